/* test_reduce.c -- the reduce chapter's tests: every sum against a double
 * reference with the tolerance derived in the chapter, exact sums of inputs
 * from {-1, 0, 1} and of all-equal inputs, mean and max, determinism of the
 * deterministic finishes, bad arguments, every launcher's stream order, and
 * the two listings that are wrong on purpose. */
#include "testkit.h"
#include "reduce/reduce.h"
#include "variants.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

/* The book's ladder of sizes (testkit), up to 2^28; under the sanitizer
 * (BOOK_SMALL) a short one, up to 12289.  tk_sweep walks it for the fixed
 * seed and a fresh one. */
#define LARGEST ((size_t)1 << 28)
static size_t nsizes(void) { return tk_nsizes(LARGEST); }

/* Every sum (variants.h): the ladder, then the other finishes. */
struct variant { const char *name; reduce_fn fn; int sequential; };
#define LADDER_SUM(name, label, fn, sequential) {name, fn, sequential},
#define FINISH_SUM(name, fn) {name, fn, 0},
static const struct variant sums[] = {
    REDUCE_LADDER(LADDER_SUM) REDUCE_OTHER_FINISHES(FINISH_SUM)};
#define NSUMS (sizeof sums / sizeof sums[0])

static const double U = 0x1p-24;          /* unit roundoff of float */

/* The chapter's tolerance: gamma_h * sum |x_i|, h the longest chain of
 * additions; a sequential order has h = n - 1.  Vacuous (infinite) when
 * h u >= 1. */
static double tolerance(size_t n, int sequential, double abs_sum)
{
    double h = sequential ? (double)n : 64.0 + ceil((double)n / 32768.0);
    if (h * U >= 0.5) return INFINITY;
    return h * U / (1.0 - h * U) * abs_sum;
}

/* The device side of one input: x, a workspace and one output float. */
struct dev { float *x, *out; void *work; size_t n; };

static struct dev dev_alloc(const float *h, size_t n)
{
    struct dev d;
    d.n = n;
    d.x = tk_dev_floats(n);
    tk_upload(d.x, h, n);
    d.out = tk_dev_floats(1);
    size_t wb = reduce_workspace_bytes(n);
    TK_CUDA(cudaMalloc(&d.work, wb));
    TK_CUDA(cudaMemset(d.work, 0xff, wb));   /* partials poisoned (NaN) */
    TK_CUDA(cudaMemset(d.work, 0, 256));     /* the counter zeroed once */
    return d;
}
static void dev_free(struct dev *d)
{
    tk_free(d->x); tk_free(d->out); tk_free(d->work);
}

/* Run fn on the device input with a poisoned output; return the result. */
static float run(reduce_fn fn, struct dev *d)
{
    float got;
    tk_poison(d->out, sizeof(float));
    TK_CUDA(fn(d->x, d->n, d->out, d->work, 0));
    TK_CUDA(cudaDeviceSynchronize());
    tk_download(&got, d->out, 1);
    return got;
}

static void sums_of(const float *x, size_t n, double *sum, double *abs_sum)
{
    double s = 0, a = 0;
    for (size_t i = 0; i < n; i++) { s += x[i]; a += fabs(x[i]); }
    *sum = s; *abs_sum = a;
}

/* 2^32 + 2^20 + 3 elements, past every 32-bit index: zeros, except 2.0
 * in the first 2^20 and 1.0 in the 2^21 + 3 that straddle element 2^32.
 * Every partial sum is an integer below 2^24, so every order gives the
 * exact 2^22 + 3; an index that wrapped at 2^32 would read the head again
 * (or nothing) for the last 2^20 + 3 elements.  16 GiB of GPU memory. */
static void sums_past_2_to_32(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    TK_SKIP_UNDER_SANITIZER("2^32 elements are too many for the sanitizer's runs");
    const size_t head = (size_t)1 << 20, edge = (size_t)1 << 32;
    const size_t n = edge + head + 3;
    TK_REQUIRE_DEVICE_BYTES(4 * n + reduce_workspace_bytes(n) + (1 << 28));
    float *h = tk_malloc((2 * head + 3) * sizeof *h);
    struct dev d;
    d.n = n;
    d.x = tk_dev_floats(n);
    TK_CUDA(cudaMemset(d.x, 0, n * sizeof(float)));
    for (size_t i = 0; i < head; i++) h[i] = 2.0f;
    tk_upload(d.x, h, head);
    for (size_t i = 0; i < 2 * head + 3; i++) h[i] = 1.0f;
    tk_upload(d.x + (edge - head), h, 2 * head + 3);
    d.out = tk_dev_floats(1);
    size_t wb = reduce_workspace_bytes(n);
    TK_CUDA(cudaMalloc(&d.work, wb));
    TK_CUDA(cudaMemset(d.work, 0xff, wb));
    TK_CUDA(cudaMemset(d.work, 0, 256));
    const double want = 4.0 * (double)head + 3.0;      /* 2^22 + 3 */
    for (size_t v = 0; v < NSUMS; v++) {
        float got = run(sums[v].fn, &d);
        if (got != want) {
            print_error("%s n=2^32+2^20+3: got %.9g, want %.9g\n",
                        sums[v].name, got, want);
            fail();
        }
    }
    float mean = run(reduce_mean, &d);
    assert_true(fabs(mean - want / (double)n) <= 1e-6 * (want / (double)n));
    dev_free(&d);
    free(h);
}

/* Four sums at once on four streams, each with its own input, workspace
 * and output: each must equal, bit for bit, what reduce_float4 gives for
 * its input on the default stream (the same kernels, grid and order).
 * An empty sum on a stream writes 0. */
#define NSTREAMS 4
static void sums_on_streams_at_once(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    const size_t n = tk_small() ? 100003 : 10000003;
    uint64_t seed = tk_seed(1), st = seed;
    float *h = tk_malloc(n * sizeof *h), want[NSTREAMS], got;
    struct dev d[NSTREAMS];
    cudaStream_t q[NSTREAMS];
    for (int k = 0; k < NSTREAMS; k++) {
        tk_fill(h, n, -1.0, 1.0, &st);
        d[k] = dev_alloc(h, n);
        want[k] = run(reduce_float4, &d[k]);
        tk_poison(d[k].out, sizeof(float));
        TK_CUDA(cudaStreamCreateWithFlags(&q[k], cudaStreamNonBlocking));
    }
    TK_CUDA(cudaDeviceSynchronize());
    for (int k = 0; k < NSTREAMS; k++)
        TK_CUDA(reduce_sum_async(d[k].x, n, d[k].out, d[k].work, q[k]));
    for (int k = 0; k < NSTREAMS; k++) {
        TK_CUDA(cudaStreamSynchronize(q[k]));
        tk_download(&got, d[k].out, 1);
        if (memcmp(&got, &want[k], sizeof got) != 0) {
            print_error("stream %d: got %.9g, reduce_float4 gave %.9g "
                        "(seed %llu)\n", k, got, want[k],
                        (unsigned long long)seed);
            fail();
        }
    }
    TK_CUDA(reduce_sum_async(d[0].x, 0, d[0].out, d[0].work, q[0]));
    TK_CUDA(cudaStreamSynchronize(q[0]));
    tk_download(&got, d[0].out, 1);
    assert_true(got == 0.0f);
    for (int k = 0; k < NSTREAMS; k++) {
        TK_CUDA(cudaStreamDestroy(q[k]));
        dev_free(&d[k]);
    }
    free(h);
}

/* Every launcher of the chapter, for the stream-order test: the sums
 * (variants.h), reduce_sum_async, the mean, the maximum, and the two
 * listings that are wrong on purpose, whose results are not compared. */
enum { SUM, MEAN, MAX, WRONG };
struct launcher { const char *name; reduce_fn fn; int what; };
#define LADDER_LAUNCHER(name, label, fn, sequential) {name, fn, SUM},
#define FINISH_LAUNCHER(name, fn) {name, fn, SUM},
static const struct launcher launchers[] = {
    REDUCE_LADDER(LADDER_LAUNCHER) REDUCE_OTHER_FINISHES(FINISH_LAUNCHER)
    {"sum_async", reduce_sum_async, SUM},
    {"mean", reduce_mean, MEAN},
    {"max", reduce_max, MAX},
    {"wrong_volatile_warp", reduce_wrong_volatile_warp, WRONG},
    {"wrong_fence_barrier", reduce_wrong_fence_barrier, WRONG},
};

/* Launcher l on the n floats at x, a copy of h, queued on a stream that
 * testkit's gate holds closed.  When it returns, nothing may have run:
 * out and the partials of the workspace are still poisoned (a kernel, a
 * memset or a copy on the legacy stream would have written them).  Once
 * the gate opens, the result is exact for inputs from {-1, 0, 1}: the
 * sum, the mean as the sum over n rounded once, and the maximum.  The
 * same call runs once on stream 0 first: CUDA loads a kernel at its first
 * launch, which may wait for the whole device, closed gate included. */
static void launch_behind_gate(const struct launcher *l, struct dev *d,
                               const float *x, const float *h, size_t n)
{
    char *partials = (char *)d->work + 256;       /* past the counter */
    size_t pbytes = reduce_workspace_bytes(d->n) - 256;
    TK_CUDA(l->fn(x, n, d->out, d->work, 0));
    TK_CUDA(cudaDeviceSynchronize());
    tk_poison(d->out, sizeof(float));
    tk_poison(partials, pbytes);
    tk_gate g = tk_gate_close();
    TK_CUDA(l->fn(x, n, d->out, d->work, g.s));
    int untouched = tk_still_poisoned(d->out, sizeof(float)) &&
                    tk_still_poisoned(partials, pbytes);
    tk_gate_open(&g);
    if (!untouched)
        print_error("%s n=%zu: ran before its stream was opened\n",
                    l->name, n);
    assert_true(untouched);
    if (l->what == WRONG) return;
    double sum = 0;
    float max = -INFINITY, got;
    for (size_t i = 0; i < n; i++) {
        sum += h[i];
        max = h[i] > max ? h[i] : max;
    }
    float want = l->what == MAX    ? max
               : l->what == MEAN ? (float)(sum / (double)n)
                                 : (float)sum;
    tk_download(&got, d->out, 1);
    if (!(got == want)) {
        print_error("%s n=%zu on a gated stream: got %.9g, want %.9g\n",
                    l->name, n, got, want);
        fail();
    }
}

/* Stream order: every launcher on 2^20 + 3 floats, several passes or
 * blocks, and on none (the identity, another kernel); the mean, which
 * refuses n = 0, only on the first; and step 7 on x + 1, where it falls
 * back to step 6. */
static void reduce_launchers_follow_the_stream(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    const size_t n = ((size_t)1 << 20) + 3;
    uint64_t st = tk_seed(0);
    float *h = tk_malloc(n * sizeof *h);
    for (size_t i = 0; i < n; i++) h[i] = (float)(int)(tk_next(&st) % 3) - 1;
    struct dev d = dev_alloc(h, n);
    for (size_t k = 0; k < sizeof launchers / sizeof launchers[0]; k++) {
        launch_behind_gate(&launchers[k], &d, d.x, h, n);
        if (launchers[k].what != MEAN)
            launch_behind_gate(&launchers[k], &d, d.x, h, 0);
    }
    const struct launcher step7 = {"float4 at x + 1", reduce_float4, SUM};
    launch_behind_gate(&step7, &d, d.x + 1, h + 1, n - 1);
    dev_free(&d);
    free(h);
}

/* Random inputs in [-1, 1): every sum within the derived tolerance. */
static void sums_random(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    for (tk_sweep sw = tk_sweep_start(LARGEST, 0); tk_sweep_next(&sw);) {
        size_t n = sw.n;
        uint64_t seed = sw.seed, st = sw.st;
        float *x = tk_malloc(n * sizeof *x);
        tk_fill(x, n, -1.0, 1.0, &st);
        double ref, abs_sum;
        sums_of(x, n, &ref, &abs_sum);
        struct dev d = dev_alloc(x, n);
        for (size_t v = 0; v < NSUMS; v++) {
            float got = run(sums[v].fn, &d);
            double tol = tolerance(n, sums[v].sequential, abs_sum);
            if (!(fabs(got - ref) <= tol)) {
                print_error("%s n=%zu seed=%llu: got %.9g, want %.9g "
                            "within %.3g\n", sums[v].name, n,
                            (unsigned long long)seed, got, ref, tol);
                fail();
            }
        }
        dev_free(&d);
        free(x);
    }
}

/* Inputs from {-1, 0, 1}: every partial sum is a small integer, so every
 * order must give the exact sum. */
static void sums_exact_ternary(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    for (tk_sweep sw = tk_sweep_start(LARGEST, 0); tk_sweep_next(&sw);) {
        size_t n = sw.n;
        uint64_t seed = sw.seed, st = sw.st;
        float *x = tk_malloc(n * sizeof *x);
        for (size_t i = 0; i < n; i++)
            x[i] = (float)(int)(tk_next(&st) % 3) - 1.0f;
        double ref, abs_sum;
        sums_of(x, n, &ref, &abs_sum);
        struct dev d = dev_alloc(x, n);
        for (size_t v = 0; v < NSUMS; v++) {
            float got = run(sums[v].fn, &d);
            if (got != ref) {
                print_error("%s n=%zu seed=%llu: got %.9g, want %.9g "
                            "exactly\n", sums[v].name, n,
                            (unsigned long long)seed, got, ref);
                fail();
            }
        }
        dev_free(&d);
        free(x);
    }
}

/* All elements 0.5: exact up to 2^24 in every order; beyond, within the
 * tolerance (the sequential atomic sum stalls at 2^24 and is not run). */
static void sums_all_equal(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    for (size_t k = 0; k < nsizes(); k++) {
        size_t n = tk_size(k);
        float *x = tk_malloc(n * sizeof *x);
        for (size_t i = 0; i < n; i++) x[i] = 0.5f;
        double ref = 0.5 * (double)n;
        struct dev d = dev_alloc(x, n);
        for (size_t v = 0; v < NSUMS; v++) {
            int exact = n <= ((size_t)1 << 24);
            if (!exact && sums[v].sequential) continue;
            float got = run(sums[v].fn, &d);
            double tol = exact ? 0.0 : tolerance(n, 0, ref);
            if (!(fabs(got - ref) <= tol)) {
                print_error("%s n=%zu all 0.5: got %.9g, want %.9g\n",
                            sums[v].name, n, got, ref);
                fail();
            }
        }
        dev_free(&d);
        free(x);
    }
}

/* The mean: the sum's tolerance over n, plus the final rounding. */
static void mean_all_sizes(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    for (tk_sweep sw = tk_sweep_start(LARGEST, 0); tk_sweep_next(&sw);) {
        size_t n = sw.n;
        uint64_t seed = sw.seed, st = sw.st;
        float *x = tk_malloc(n * sizeof *x);
        tk_fill(x, n, -1.0, 3.0, &st);
        double ref, abs_sum;
        sums_of(x, n, &ref, &abs_sum);
        ref /= (double)n;
        double tol = tolerance(n, 0, abs_sum) / (double)n + U * fabs(ref);
        struct dev d = dev_alloc(x, n);
        float got = run(reduce_mean, &d);
        if (!(fabs(got - ref) <= tol)) {
            print_error("mean n=%zu seed=%llu: got %.9g, want %.9g\n", n,
                        (unsigned long long)seed, got, ref);
            fail();
        }
        dev_free(&d);
        free(x);
    }
}

/* The maximum is exact: no rounding.  Negative inputs catch an identity
 * of 0; an array of -inf must give -inf. */
static void max_all_sizes(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    for (tk_sweep sw = tk_sweep_start(LARGEST, 0); tk_sweep_next(&sw);) {
        size_t n = sw.n;
        uint64_t seed = sw.seed, st = sw.st;
        float *x = tk_malloc(n * sizeof *x);
        for (int kind = 0; kind < 3; kind++) {
            if (kind == 0) tk_fill(x, n, -1.0, 1.0, &st);
            if (kind == 1) tk_fill(x, n, -2.0, -1.0, &st);
            if (kind == 2)
                for (size_t i = 0; i < n; i++) x[i] = -INFINITY;
            float ref = -INFINITY;
            for (size_t i = 0; i < n; i++) ref = x[i] > ref ? x[i] : ref;
            struct dev d = dev_alloc(x, n);
            float got = run(reduce_max, &d);
            if (!(got == ref)) {
                print_error("max kind %d n=%zu seed=%llu: got %.9g, "
                            "want %.9g\n", kind, n,
                            (unsigned long long)seed, got, ref);
                fail();
            }
            dev_free(&d);
        }
        free(x);
    }
}

/* The compensated sum is nearly correctly rounded: u |s| plus a second
 * order term (h u)^2 sum |x|. */
static void compensated_is_accurate(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    for (tk_sweep sw = tk_sweep_start(LARGEST, 0); tk_sweep_next(&sw);) {
        size_t n = sw.n;
        uint64_t seed = sw.seed, st = sw.st;
        float *x = tk_malloc(n * sizeof *x);
        tk_fill(x, n, 0.0, 1.0, &st);
        double ref, abs_sum;
        sums_of(x, n, &ref, &abs_sum);
        double h = 64.0 + ceil((double)n / 32768.0);
        double tol = U * fabs(ref) + h * h * U * U * abs_sum;
        struct dev d = dev_alloc(x, n);
        float got = run(reduce_compensated, &d);
        if (!(fabs(got - ref) <= tol)) {
            print_error("compensated n=%zu seed=%llu: got %.9g, want "
                        "%.9g within %.3g\n", n,
                        (unsigned long long)seed, got, ref, tol);
            fail();
        }
        dev_free(&d);
        free(x);
    }
}

/* The deterministic finishes give the same bits twice; the atomic finish
 * may not, and the test prints what it saw. */
static void determinism_run_twice(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    size_t n = tk_small() ? 100003 : 10000003;
    uint64_t st = tk_seed(1);
    float *x = tk_malloc(n * sizeof *x);
    tk_fill(x, n, -1.0, 1.0, &st);
    struct dev d = dev_alloc(x, n);
    reduce_fn det[] = {reduce_float4, reduce_last_block, reduce_grid_sync,
                       reduce_unrolled, reduce_compensated};
    for (size_t v = 0; v < sizeof det / sizeof det[0]; v++) {
        float a = run(det[v], &d), b = run(det[v], &d);
        assert_memory_equal(&a, &b, sizeof a);
    }
    int differ = 0;
    float first = run(reduce_finish_atomic, &d);
    for (int r = 0; r < 10; r++) {
        float again = run(reduce_finish_atomic, &d);
        differ += memcmp(&first, &again, sizeof first) != 0;
    }
    print_message("finish_atomic: %d of 10 reruns differed in some bit\n",
                  differ);
    dev_free(&d);
    free(x);
}

/* float4 at an offset of one float falls back to the scalar kernel. */
static void float4_misaligned_falls_back(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    size_t n = 4097;
    uint64_t st = tk_seed(0);
    float *x = tk_malloc((n + 1) * sizeof *x);
    for (size_t i = 0; i <= n; i++) x[i] = (float)(int)(tk_next(&st) % 3) - 1;
    double ref, abs_sum;
    sums_of(x + 1, n, &ref, &abs_sum);
    struct dev d = dev_alloc(x, n + 1);
    float got;
    tk_poison(d.out, sizeof(float));
    TK_CUDA(reduce_float4(d.x + 1, n, d.out, d.work, 0));
    TK_CUDA(cudaDeviceSynchronize());
    tk_download(&got, d.out, 1);
    assert_true(got == ref);
    TK_REFUSED(reduce_last_block(d.x + 1, n, d.out, d.work, 0));
    dev_free(&d);
    free(x);
}

/* Wrong on purpose: the volatile warp unroll races between lanes.  The
 * answer is usually right on today's compilers, which is the danger;
 * racecheck reports the hazards (sanitize.expect). */
static void wrong_volatile_warp_races(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    TK_SKIP_IN_CLEAN_SANITIZER_RUN();
    size_t n = 4097;
    uint64_t st = tk_seed(0);
    float *x = tk_malloc(n * sizeof *x);
    for (size_t i = 0; i < n; i++) x[i] = (float)(int)(tk_next(&st) % 3) - 1;
    double ref, abs_sum;
    sums_of(x, n, &ref, &abs_sum);
    struct dev d = dev_alloc(x, n);
    float got = run(reduce_wrong_volatile_warp, &d);
    print_message("volatile warp unroll: got %.9g, exact sum %.9g (%s)\n",
                  got, ref, got == ref ? "right by luck" : "wrong");
    dev_free(&d);
    free(x);
}

/* Wrong on purpose: with 8192 blocks (2048 under the sanitizer), more than
 * the GPU holds at once, block 0 reads partials that other blocks have not
 * written (still NaN); with one block it is right. */
static void wrong_fence_is_not_a_barrier(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    size_t n = (size_t)1 << (tk_small() ? 20 : 22);
    uint64_t st = tk_seed(0);
    float *x = tk_malloc(n * sizeof *x);
    for (size_t i = 0; i < n; i++) x[i] = (float)(int)(tk_next(&st) % 3) - 1;
    double ref, abs_sum;
    sums_of(x, n, &ref, &abs_sum);
    struct dev d = dev_alloc(x, n);
    float got = run(reduce_wrong_fence_barrier, &d);
    print_message("fence as barrier, n=%zu: got %.9g, want %.9g\n",
                  n, got, ref);
    assert_true(isnan(got) || got != ref);
    dev_free(&d);
    sums_of(x, 300, &ref, &abs_sum);
    d = dev_alloc(x, 300);
    assert_true(run(reduce_wrong_fence_barrier, &d) == ref);
    dev_free(&d);
    free(x);
}

/* CPU-side: bad arguments are refused before anything touches a device. */
static void bad_arguments_refused(void **s)
{
    (void)s;
    float *p = TK_FAKE(256), *odd = TK_FAKE(260);
    void *w = TK_FAKE(4096);
    for (size_t v = 0; v < NSUMS; v++) {
        TK_REFUSED(sums[v].fn(NULL, 10, p, w, 0));
        TK_REFUSED(sums[v].fn(p, 10, NULL, w, 0));
    }
    TK_REFUSED(reduce_mean(p, 0, p, w, 0));
    TK_REFUSED(reduce_mean(NULL, 10, p, w, 0));
    TK_REFUSED(reduce_max(p, 10, NULL, w, 0));
    TK_REFUSED(reduce_max(odd, 10, p, w, 0));
    TK_REFUSED(reduce_last_block(odd, 10, p, w, 0));
    TK_REFUSED(reduce_grid_sync(odd, 10, p, w, 0));
    /* The other finishes and the mean refuse a misaligned x as well. */
    TK_REFUSED(reduce_finish_atomic(odd, 10, p, w, 0));
    TK_REFUSED(reduce_compensated(odd, 10, p, w, 0));
    TK_REFUSED(reduce_mean(odd, 10, p, w, 0));
    TK_REFUSED(reduce_first_add(p, 10, p, NULL, 0));
    TK_REFUSED(reduce_wrong_fence_barrier(p, 10, p, NULL, 0));
    TK_REFUSED(reduce_sum_async(odd, 10, p, w, 0));
    TK_REFUSED(reduce_sum_async(p, 10, p, NULL, 0));
    TK_REFUSED(reduce_sum_async(NULL, 0, p, w, 0));
}

/* CPU-side: the workspace holds the counter and both partial arrays. */
static void workspace_is_large_enough(void **s)
{
    (void)s;
    static const size_t ns[] = {0, 1, 256, 257, 65536, 65537, 10000003};
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
        size_t n = ns[k], a = (n + 255) / 256, b = (n + 65535) / 65536;
        assert_true(reduce_workspace_bytes(n) >= 256 + 4 * (a + b));
    }
    assert_true(tolerance(1u << 28, 1, 1.0) == INFINITY);
    assert_true(tolerance(1000, 0, 1000.0) < 1e-2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bad_arguments_refused),
        cmocka_unit_test(workspace_is_large_enough),
        cmocka_unit_test(sums_random),
        cmocka_unit_test(sums_exact_ternary),
        cmocka_unit_test(sums_all_equal),
        cmocka_unit_test(mean_all_sizes),
        cmocka_unit_test(max_all_sizes),
        cmocka_unit_test(compensated_is_accurate),
        cmocka_unit_test(determinism_run_twice),
        cmocka_unit_test(float4_misaligned_falls_back),
        cmocka_unit_test(sums_on_streams_at_once),
        cmocka_unit_test(reduce_launchers_follow_the_stream),
        cmocka_unit_test(sums_past_2_to_32),
        cmocka_unit_test(wrong_volatile_warp_races),
        cmocka_unit_test(wrong_fence_is_not_a_barrier),
    };
    return tk_run_tests("reduce", tests);
}
