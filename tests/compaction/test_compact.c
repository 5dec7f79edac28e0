/* test_compact.c -- the compaction chapter's tests: every compaction and
 * find_repeats against a CPU reference, at densities none, all,
 * alternating, 1%, 50% and 99%, at the scan chapter's sizes; bad
 * arguments; every launcher's work queued on the stream it is given. */
#include "testkit.h"
#include "compaction/compact.h"
#include "variants.h"     /* the compactions: C_THREE_PASS ... */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The book's ladder of sizes (testkit), up to 2^28; under the sanitizer
 * (BOOK_SMALL=1) its short ladder, which the sweeps run from the fixed
 * seed alone. */
#define LADDER_MAX ((size_t)1 << 28)
static size_t nsizes(void) { return tk_nsizes(LADDER_MAX); }
static size_t size_at(size_t z) { return tk_size(z); }

enum { D_NONE, D_ALL, D_ALTERNATING, D_1, D_50, D_99 };
static const char *dname[] = {"none", "all", "alternating", "1%", "50%",
                              "99%"};
#define THRESHOLD 0

/* Values above THRESHOLD are kept: positive with the density's
 * probability, otherwise zero or negative. */
static void fill_density(int *x, size_t n, int d, uint64_t *st)
{
    static const double p[] = {0, 1, 0, 0.01, 0.5, 0.99};
    const uint64_t cut = (uint64_t)(p[d] * 16777216.0);   /* p 2^24 */
    for (size_t i = 0; i < n; i++) {
        uint64_t r = tk_next(st);
        int keep = d == D_ALTERNATING ? (int)(i % 2 == 0)
                 : d == D_ALL         ? 1
                                      : (r >> 40) < cut;
        int mag = (int)(r % 1000000);
        x[i] = keep ? 1 + mag : -mag;
    }
}

/* Elements by which input and output are offset into their buffers: 1
 * makes them misaligned for 16-byte vectors (the scalar paths). */
static size_t g_offset = 0;

/* One compaction of n elements at density d; returns wrong outputs. */
static size_t check_compact(int algo, size_t n, int d, int round)
{
    uint64_t seed = tk_seed(round), st = seed;
    int *x = tk_malloc(n * sizeof *x), *got = tk_malloc(n * sizeof *got);
    fill_density(x, n, d, &st);
    int *din = NULL, *dout = NULL;
    size_t *dcount = NULL, count = 0, sb = compact_scratch_bytes(n);
    void *scratch = NULL;
    din = tk_dev_bytes((n + g_offset) * sizeof *din);
    dout = tk_dev_bytes((n + g_offset) * sizeof *dout);
    dcount = tk_dev_bytes(sizeof *dcount);
    scratch = tk_dev_bytes(sb);
    tk_upload_bytes(din + g_offset, x, n * sizeof *x);
    const compact_variant *v = &compact_variants[algo];
    cudaError_t e = v->fn(din + g_offset, dout + g_offset, n, THRESHOLD,
                          dcount, scratch, sb, 0);
    TK_SKIP_IF_NOT_SUPPORTED(e, "the staged compaction (over 64 KB of shared memory a block)");
    TK_CUDA(e);
    TK_CUDA(cudaDeviceSynchronize());
    tk_download_bytes(&count, dcount, sizeof count);
    tk_download_bytes(got, dout + g_offset, n * sizeof *got);
    int before = -1;                    /* the poison */
    if (g_offset) tk_download_bytes(&before, dout, sizeof before);
    size_t bad = before != -1;          /* nothing written before out */
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (x[i] <= THRESHOLD) continue;
        if (k < count && got[k] != x[i] && bad++ < 5)
            print_error("%s compaction, n %zu, density %s: out[%zu] is %d, "
                        "expected %d (seed %llu)\n", v->name, n, dname[d],
                        k, got[k], x[i], (unsigned long long)seed);
        k++;
    }
    if (count != k) {
        print_error("%s compaction, n %zu, density %s: count %zu, expected "
                    "%zu (seed %llu)\n", v->name, n, dname[d], count, k,
                    (unsigned long long)seed);
        bad++;
    }
    /* Nothing is written past the count: the poison is still there. */
    for (size_t i = k; i < n && count == k; i++)
        if (got[i] != -1 && bad++ < 5)
            print_error("out[%zu] written past the count\n", i);
    tk_free(din);
    tk_free(dout);
    tk_free(dcount);
    tk_free(scratch);
    free(x);
    free(got);
    return bad;
}

static void densities(int algo)
{
    for (tk_sweep sw = tk_sweep_start(LADDER_MAX, TK_SWEEP_SMALL_ONE_ROUND);
         tk_sweep_next(&sw);)
        for (int d = D_NONE; d <= D_99; d++) {
            /* 2^28 from the fixed seed only: every density for the
             * single pass, 1%, 50% and 99% for the staged ones, 50%
             * for the three passes. */
            if (sw.n > 10000000 &&
                (sw.round > 0 || (algo == C_THREE_PASS && d != D_50) ||
                 (algo >= C_STAGED_SCATTER && d < D_1)))
                continue;
            assert_int_equal(check_compact(algo, sw.n, d, sw.round), 0);
        }
}

static void three_pass_densities(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    densities(C_THREE_PASS);
}

static void single_pass_densities(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    densities(C_SINGLE);
}

static void staged_densities(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    densities(C_STAGED_SCATTER);
    densities(C_STAGED);
}

/* The ballot compaction: every density at the ladder's sizes; around its
 * 12,288-element tile (one short, one, one past, two and one past) and a
 * large odd size; input and output one element past 16-byte alignment
 * (scalar loads, word-by-word copy out).  g_offset moves input and output
 * together: aligned input with misaligned output, and the reverse, are
 * not tested. */
static void ballot_densities(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    densities(C_BALLOT);
    static const size_t sizes[] = {12287, 12288, 12289, 24577, 36863,
                                   10000003};
    const size_t ns = tk_small() ? 3 : sizeof sizes / sizeof sizes[0];
    for (int d = D_NONE; d <= D_99; d++)
        for (size_t z = 0; z < ns; z++)
            assert_int_equal(check_compact(C_BALLOT, sizes[z], d, z % 2), 0);
    g_offset = 1;
    for (int d = D_NONE; d <= D_99; d++)
        for (size_t z = 0; z < nsizes(); z += 3)
            if (size_at(z) <= 10000001)
                assert_int_equal(check_compact(C_BALLOT, size_at(z), d, 0), 0);
    if (!tk_small())
        assert_int_equal(check_compact(C_BALLOT, 10000003, D_99, 1), 0);
    g_offset = 0;
}

/* find_repeats on runs: a[i] repeats a[i - 1] with probability p. */
static size_t check_repeats(size_t n, double p, int round)
{
    uint64_t seed = tk_seed(round), st = seed;
    int *a = tk_malloc(n * sizeof *a);
    size_t *got = tk_malloc(n * sizeof *got);
    for (size_t i = 0; i < n; i++)
        a[i] = i > 0 && tk_uniform(&st, 0, 1) < p
                   ? a[i - 1] : (int)(tk_next(&st) % 1000003);
    int *da = NULL;
    size_t *didx = NULL, *dcount = NULL, count = 0;
    size_t sb = compact_scratch_bytes(n);
    void *scratch = NULL;
    da = tk_dev_bytes(n * sizeof *da);
    didx = tk_dev_bytes(n * sizeof *didx);
    dcount = tk_dev_bytes(sizeof *dcount);
    scratch = tk_dev_bytes(sb);
    tk_upload_bytes(da, a, n * sizeof *a);
    TK_CUDA(find_repeats(da, n, didx, dcount, scratch, sb, 0));
    TK_CUDA(cudaDeviceSynchronize());
    tk_download_bytes(&count, dcount, sizeof count);
    tk_download_bytes(got, didx, n * sizeof *got);
    size_t bad = 0, k = 0;
    for (size_t i = 0; i + 1 < n; i++) {
        if (a[i] != a[i + 1]) continue;
        if (k < count && got[k] != i && bad++ < 5)
            print_error("find_repeats, n %zu: idx[%zu] is %zu, expected %zu "
                        "(seed %llu)\n", n, k, got[k], i,
                        (unsigned long long)seed);
        k++;
    }
    if (count != k) {
        print_error("find_repeats, n %zu: count %zu, expected %zu (seed "
                    "%llu)\n", n, count, k, (unsigned long long)seed);
        bad++;
    }
    tk_free(da);
    tk_free(didx);
    tk_free(dcount);
    tk_free(scratch);
    free(a);
    free(got);
    return bad;
}

static void find_repeats_all_sizes(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    static const double ps[] = {0.0, 0.01, 0.5, 0.99, 1.0};
    for (tk_sweep sw = tk_sweep_start(LADDER_MAX, TK_SWEEP_SMALL_ONE_ROUND);
         tk_sweep_next(&sw);)
        for (size_t q = 0; q < 5; q++) {
            if (sw.n > 10000000 && (sw.round > 0 || q != 2)) continue;
            assert_int_equal(check_repeats(sw.n, ps[q], sw.round), 0);
        }
}

/* The example of the chapter. */
static void find_repeats_example(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    const int a[7] = {1, 2, 2, 2, 3, 1, 1};
    const size_t want[3] = {1, 2, 5};
    int *da = NULL;
    size_t *didx = NULL, *dcount = NULL, got[7], count = 0;
    size_t sb = compact_scratch_bytes(7);
    void *scratch = NULL;
    da = tk_dev_bytes(sizeof a);
    didx = tk_dev_bytes(sizeof got);
    dcount = tk_dev_bytes(sizeof count);
    scratch = tk_dev_bytes(sb);
    tk_upload_bytes(da, a, sizeof a);
    TK_CUDA(find_repeats(da, 7, didx, dcount, scratch, sb, 0));
    tk_download_bytes(&count, dcount, sizeof count);
    assert_int_equal(count, 3);
    tk_download_bytes(got, didx, count * sizeof *got);
    assert_memory_equal(got, want, sizeof want);
    tk_free(da);
    tk_free(didx);
    tk_free(dcount);
    tk_free(scratch);
}

static void empty_input_counts_zero(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    size_t *dcount = NULL, count = 99;
    dcount = tk_dev_bytes(sizeof *dcount);
    TK_CUDA(compact_gt(NULL, NULL, 0, 0, dcount, NULL, 0, 0));
    tk_download_bytes(&count, dcount, sizeof count);
    assert_int_equal(count, 0);
    tk_free(dcount);
}

/* find_repeats in the compaction launchers' shape (no threshold; idx in
 * out's place), for the table of refusals. */
static cudaError_t repeats_as_compact(const int *in, int *out, size_t n,
                                      int threshold, size_t *count,
                                      void *scratch, size_t bytes,
                                      cudaStream_t s)
{
    (void)threshold;
    return find_repeats(in, n, (size_t *)(void *)out, count, scratch, bytes,
                        s);
}

static void bad_arguments_refused(void **s)
{
    (void)s;
    int *p = TK_FAKE(256);  /* never dereferenced */
    size_t *c = TK_FAKE(512);
    void *sc = TK_FAKE(1024);
    size_t need = compact_scratch_bytes(1000);
    TK_REFUSED(compact_gt(NULL, p, 1000, 0, c, sc, need, 0));
    TK_REFUSED(compact_gt(p, p, 1000, 0, NULL, sc, need, 0));
    TK_REFUSED(compact_gt(p, p, 1000, 0, c, sc, need - 1, 0));
    TK_REFUSED(compact_gt_three_pass(p, p, 1000, 0, c,
                                     (char *)sc + 4, need, 0));
    for (int a = C_STAGED_SCATTER; a < C_COUNT; a++) {
        const compact_fn fn = compact_variants[a].fn;
        TK_REFUSED(fn(NULL, p, 1000, 0, c, sc, need, 0));
        TK_REFUSED(fn(p, p, 1000, 0, c, sc, need - 1, 0));
        TK_REFUSED(fn(p, p, (size_t)INT_MAX + 1, 0, c, sc, (size_t)-1, 0));
    }
    TK_REFUSED(compact_gt(p, p, (size_t)INT_MAX + 1, 0, c, sc, (size_t)-1, 0));
    TK_REFUSED(find_repeats(p, 1000, NULL, c, sc, need, 0));
    TK_REFUSED(compact_gt(p, p, 0, 0, NULL, sc, need, 0));
    /* Every launcher, find_repeats too, on the header's terms: scratch
     * missing, not 256-byte aligned or short of compact_scratch_bytes(n);
     * n of 2^31 or more; a null in, out or count; n = 0 without count. */
    compact_fn all[C_COUNT + 1];
    for (int a = 0; a < C_COUNT; a++) all[a] = compact_variants[a].fn;
    all[C_COUNT] = repeats_as_compact;
    for (int a = 0; a <= C_COUNT; a++) {
        TK_REFUSED(all[a](p, p, 1000, 0, c, NULL, need, 0));
        for (size_t off = 4; off < 256; off *= 2)
            TK_REFUSED(all[a](p, p, 1000, 0, c, (char *)sc + off, need, 0));
        TK_REFUSED(all[a](p, p, 1000, 0, c, sc, need - 1, 0));
        TK_REFUSED(all[a](p, p, (size_t)INT_MAX + 1, 0, c, sc, (size_t)-1, 0));
        TK_REFUSED(all[a](p, p, SIZE_MAX, 0, c, sc, (size_t)-1, 0));
        TK_REFUSED(all[a](NULL, p, 1000, 0, c, sc, need, 0));
        TK_REFUSED(all[a](p, NULL, 1000, 0, c, sc, need, 0));
        TK_REFUSED(all[a](p, p, 1000, 0, NULL, sc, need, 0));
        TK_REFUSED(all[a](NULL, NULL, 0, 0, NULL, NULL, 0, 0));
    }
}

/* ---- GPU: stream order ------------------------------------------------ */

/* Launcher a: the compactions of variants.h, then find_repeats (C_COUNT). */
static compact_fn launcher_at(int a)
{
    return a < C_COUNT ? compact_variants[a].fn : repeats_as_compact;
}
/* What launcher a writes for x[0, n): the kept values, or the indices of
 * repeats; returns their count. */
static size_t expected(int a, const int *x, size_t n, void *want)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (a == C_COUNT && i + 1 < n && x[i] == x[i + 1])
            ((size_t *)want)[k++] = i;
        if (a < C_COUNT && x[i] > THRESHOLD) ((int *)want)[k++] = x[i];
    }
    return k;
}

/* Launcher a on n elements, in runs (each repeats the one before with
 * probability 1/2) of values of either sign, queued on a stream held
 * behind a closed gate: out, the count and the scratch are still the
 * poison when the launcher has returned, and right once the gate opens;
 * n = 0 sets only the count.  A first call on the default stream loads
 * the kernels (loading one may wait for the whole device) and makes the
 * staged kernels' opt-in; the buffers are poisoned again after it.
 * Returns 0 where the GPU refuses a staged tile. */
static int order_case(int a, size_t n)
{
    const size_t m = n ? n : 1, es = a == C_COUNT ? 8 : 4;
    const size_t sb = compact_scratch_bytes(n);
    const char *name = a < C_COUNT ? compact_variants[a].name : "repeats";
    uint64_t seed = tk_seed(0), st = seed;
    int *x = tk_malloc(m * sizeof *x);
    void *want = tk_malloc(m * es), *got = tk_malloc(m * es);
    for (size_t i = 0; i < n; i++)
        x[i] = i > 0 && tk_next(&st) % 2 ? x[i - 1]
                                         : (int)(tk_next(&st) % 2001) - 1000;
    int *din = tk_dev_bytes(m * sizeof *din);
    void *dout = tk_dev_bytes(m * es), *scratch = tk_dev_bytes(sb);
    size_t *dcount = tk_dev_bytes(sizeof *dcount), count = 0;
    tk_upload_bytes(din, x, n * sizeof *x);
    const compact_fn fn = launcher_at(a);
    cudaError_t e = fn(din, dout, n, THRESHOLD, dcount, scratch, sb, 0);
    const int ran = !(a >= C_STAGED_SCATTER && a < C_COUNT &&
                      e == cudaErrorNotSupported);
    if (ran) {
        TK_CUDA(e);
        TK_CUDA(cudaDeviceSynchronize());
        tk_poison(dout, m * es);
        tk_poison(dcount, sizeof *dcount);
        tk_poison(scratch, sb);
        tk_gate g = tk_gate_close();
        e = fn(din, dout, n, THRESHOLD, dcount, scratch, sb, g.s);
        int waited = tk_still_poisoned(dout, m * es) &&
                     tk_still_poisoned(dcount, sizeof *dcount) &&
                     tk_still_poisoned(scratch, sb);
        tk_gate_open(&g);
        TK_CUDA(e);
        if (!waited)
            print_error("%s, n %zu: it wrote before its stream let it\n",
                        name, n);
        assert_true(waited);
        const size_t k = expected(a, x, n, want);
        tk_download_bytes(&count, dcount, sizeof count);
        tk_download_bytes(got, dout, k * es);
        if (count != k)
            print_error("%s, n %zu, on a gated stream: count %zu, expected "
                        "%zu\n", name, n, count, k);
        assert_int_equal(count, k);
        assert_memory_equal(got, want, k * es);
    }
    tk_free(din);
    tk_free(dout);
    tk_free(dcount);
    tk_free(scratch);
    free(x);
    free(want);
    free(got);
    return ran;
}

/* Every launcher queues all its work on the stream it is given, the
 * count of an empty input too. */
static void compaction_launchers_follow_the_stream(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    int refused = 0;
    for (int a = 0; a <= C_COUNT; a++) {
        refused += !order_case(a, 1000001);
        order_case(a, 0);
    }
    if (refused)
        print_message("%d staged compactions refused by this GPU (too "
                      "little shared memory per block)\n", refused);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bad_arguments_refused),
        cmocka_unit_test(empty_input_counts_zero),
        cmocka_unit_test(three_pass_densities),
        cmocka_unit_test(single_pass_densities),
        cmocka_unit_test(staged_densities),
        cmocka_unit_test(ballot_densities),
        cmocka_unit_test(find_repeats_example),
        cmocka_unit_test(find_repeats_all_sizes),
        cmocka_unit_test(compaction_launchers_follow_the_stream),
    };
    return tk_run_tests("compaction", tests);
}
