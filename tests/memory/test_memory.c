/* test_memory.c -- the memory chapter's tests: every kernel of the chapter
 * against an exact CPU answer, edge sizes, misaligned pointers, bad
 * arguments, and stream order (each launcher's work waits on the stream it
 * is given).  All comparisons here are exact: copies move bits, the sums
 * add small integers, and the FMA chains are repeated with C's fmaf. */
#define _POSIX_C_SOURCE 200809L
#include "testkit.h"
#include "memory/memory.h"
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The largest size of the book's ladder (testkit) that the tests take. */
static const size_t kMaxN = 10000001;      /* 10^7 + 1 */

/* Copy n random floats from din + off to dout + off_out; compare them bit
 * for bit, and check that nothing else of dout is written. */
static void copy_case(size_t n, size_t off, size_t off_out, int round,
                      int gated)
{
    uint64_t seed = tk_seed(round), st = seed;
    size_t m = n + (off > off_out ? off : off_out);
    float *h = tk_malloc(m * sizeof *h), *g = tk_malloc(m * sizeof *g);
    double *ref = tk_malloc(n * sizeof *ref);
    tk_fill(h, m, -1e3, 1e3, &st);
    for (size_t i = 0; i < n; i++) ref[i] = h[off + i];
    float *din = tk_dev_floats(m), *dout = tk_dev_floats(m);
    tk_upload(din, h, m);
    tk_gate gate = tk_gate_if(gated);
    TK_CUDA(mem_copy(din + off, dout + off_out, n, gate.s));
    tk_gate_open_untouched(&gate, dout, NULL, m * sizeof *dout, "mem_copy");
    TK_CUDA(cudaDeviceSynchronize());
    tk_download(g, dout, m);
    assert_int_equal(tk_compare("mem_copy", g + off_out, ref, n, 0, 0, seed),
                     0);
    for (size_t i = 0; i < m; i++)        /* nothing else written */
        if (i < off_out || i >= off_out + n) assert_true(isnan(g[i]));
    tk_free(din); tk_free(dout);
    free(h); free(g); free(ref);
}

static void copy_all_sizes(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    for (tk_sweep sw = tk_sweep_start(kMaxN, 0); tk_sweep_next(&sw);) {
        copy_case(sw.n, 0, 0, sw.round, 0);
        for (size_t off = 1; off <= 3; off++)      /* a head, then float4 */
            copy_case(sw.n, off, off, sw.round, 0);
        copy_case(sw.n, 4, 4, sw.round, 0);    /* 16-byte aligned again */
        copy_case(sw.n, 1, 2, sw.round, 0);    /* different: scalar */
        copy_case(sw.n, 0, 3, sw.round, 0);
    }
}

/* Random integers -1, 0, 1 as floats: every partial sum is an integer of
 * magnitude <= passes * n, exact in a float while that is <= 2^24.  The
 * sum is never 0, the value *sum starts from, so a read that added
 * nothing, or had added before the gate opened, shows. */
static void read_case(size_t n, unsigned passes, int round, int gated)
{
    uint64_t seed = tk_seed(round), st = seed;
    float *h = tk_malloc(n * sizeof *h);
    double want = 0;
    for (size_t i = 0; i < n; i++) {
        h[i] = (float)((int)(tk_next(&st) % 3) - 1);
        want += h[i];
    }
    if (want == 0) {                   /* 1 for 0 or -1, -1 for 1 */
        want -= h[0];
        h[0] = h[0] < 1 ? 1.0f : -1.0f;
        want += h[0];
    }
    want *= passes;
    assert_true(fabs(want) <= 16777216.0 && passes * (double)n <= 16777216.0);
    float *d = tk_dev_floats(n), *dsum = tk_dev_floats(1), got;
    const float zero = 0.0f;
    tk_upload(d, h, n);
    TK_CUDA(cudaMemset(dsum, 0, sizeof(float)));
    tk_gate gate = tk_gate_if(gated);
    TK_CUDA(mem_read_sum(d, n, passes, dsum, gate.s));
    tk_gate_open_untouched(&gate, dsum, &zero, sizeof zero, "mem_read_sum");
    TK_CUDA(cudaDeviceSynchronize());
    tk_download(&got, dsum, 1);
    if ((double)got != want)
        print_error("mem_read_sum n=%zu passes=%u: got %.1f, want %.1f "
                    "(seed %llu)\n", n, passes, got, want,
                    (unsigned long long)seed);
    assert_true((double)got == want);
    tk_free(d); tk_free(dsum);
    free(h);
}

static void read_sum_all_sizes(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    /* One pass at every size, three at the sizes up to 4097. */
    for (tk_sweep sw = tk_sweep_start(kMaxN, 0); tk_sweep_next(&sw);)
        read_case(sw.n, 1, sw.round, 0);
    for (tk_sweep sw = tk_sweep_start(4097, 0); tk_sweep_next(&sw);)
        read_case(sw.n, 3, sw.round, 0);
}

static void read_sum_refuses_bad_arguments(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    float *d = tk_dev_floats(8), *dsum = tk_dev_floats(1), got;
    TK_REFUSED(mem_read_sum(d + 1, 4, 1, dsum, 0));
    TK_REFUSED(mem_read_sum(NULL, 4, 1, dsum, 0));
    TK_REFUSED(mem_read_sum(d, 4, 1, NULL, 0));
    tk_download(&got, dsum, 1);
    assert_true(isnan(got));                 /* nothing ran */
    tk_free(d); tk_free(dsum);
}

/* Elements offset + i * stride are copied; all others stay NaN. */
static void strided_case(size_t len, size_t stride, size_t offset, int round,
                         int gated)
{
    uint64_t seed = tk_seed(round), st = seed;
    float *h = tk_malloc(len * sizeof *h), *g = tk_malloc(len * sizeof *g);
    tk_fill(h, len, -1, 1, &st);
    float *din = tk_dev_floats(len), *dout = tk_dev_floats(len);
    tk_upload(din, h, len);
    tk_gate gate = tk_gate_if(gated);
    TK_CUDA(mem_copy_strided(din, dout, len, stride, offset, gate.s));
    tk_gate_open_untouched(&gate, dout, NULL, len * sizeof *dout,
                           "mem_copy_strided");
    TK_CUDA(cudaDeviceSynchronize());
    tk_download(g, dout, len);
    size_t bad = 0;
    for (size_t j = 0; j < len; j++) {
        int copied = j >= offset && (j - offset) % stride == 0;
        int ok = copied ? memcmp(&g[j], &h[j], sizeof(float)) == 0
                        : isnan(g[j]);
        if (!ok && bad++ < 5)
            print_error("strided len=%zu stride=%zu offset=%zu: element %zu "
                        "%s (seed %llu)\n", len, stride, offset, j,
                        copied ? "wrong" : "written",
                        (unsigned long long)seed);
    }
    assert_int_equal(bad, 0);
    tk_free(din); tk_free(dout);
    free(h); free(g);
}

static void strided_copy_strides_and_offsets(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    static const size_t lens[] = {1, 33, 1000, 4097, 100003};
    size_t nlen = tk_small() ? 4 : 5;
    for (int round = 0; round < 2; round++)
        for (size_t l = 0; l < nlen; l++) {
            for (size_t st = 1; st <= 33; st += (st < 4 ? 1 : 7))
                strided_case(lens[l], st, 0, round, 0);
            for (size_t off = 1; off <= 32; off *= 2)
                strided_case(lens[l], 1, off, round, 0);
            strided_case(lens[l], 8, 3, round, 0);
        }
}

static void strided_copy_arguments(void **s)
{
    (void)s;
    float *p = TK_FAKE(256);  /* never dereferenced */
    TK_REFUSED(mem_copy_strided(p, p, 10, 0, 0, 0));
    TK_REFUSED(mem_copy_strided(NULL, p, 10, 1, 0, 0));
    /* Nothing in range: nothing to do, and nothing touched. */
    assert_int_equal(mem_copy_strided(p, p, 10, 1, 10, 0), cudaSuccess);
    assert_int_equal(mem_copy_strided(NULL, NULL, 0, 1, 0, 0), cudaSuccess);
}

/* The CPU repeats each thread's eight chains with fmaf, in the same order. */
static void fma_case(int gated)
{
    const size_t n = 1000;
    const unsigned iters = 100;
    const float a = 0.999f, b = 0.5f;
    float *g = tk_malloc(n * sizeof *g);
    float *d = tk_dev_floats(n);
    tk_gate gate = tk_gate_if(gated);
    TK_CUDA(fma_peak(d, n, iters, a, b, gate.s));
    tk_gate_open_untouched(&gate, d, NULL, n * sizeof *d, "fma_peak");
    TK_CUDA(cudaDeviceSynchronize());
    tk_download(g, d, n);
    size_t bad = 0;
    for (size_t t = 0; t < n; t++) {
        float x[8], sum = 0.0f;
        for (int j = 0; j < 8; j++) x[j] = (float)(t % 1024) + 0.125f * j;
        for (unsigned k = 0; k < iters; k++)
            for (int j = 0; j < 8; j++) x[j] = fmaf(x[j], a, b);
        for (int j = 0; j < 8; j++) sum += x[j];
        if (memcmp(&sum, &g[t], sizeof sum) != 0 && bad++ < 5)
            print_error("fma_peak thread %zu: got %.9g, want %.9g\n", t,
                        g[t], sum);
    }
    assert_int_equal(bad, 0);
    tk_free(d);
    free(g);
}

static void fma_peak_exact(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    fma_case(0);
}

/* Both layouts against x + vx * dt rounded once; the other fields kept.
 * The drifts work in place: gated, the particles must still be their
 * input when the launcher returns. */
static void drift_case(size_t n, int round, int gated)
{
    const float dt = 0.01f;
    uint64_t seed = tk_seed(round), st = seed;
    size_t nf = 8 * n;                     /* eight floats a particle */
    float *h = tk_malloc(nf * sizeof *h), *g = tk_malloc(nf * sizeof *g);
    tk_fill(h, nf, -10, 10, &st);
    float *daos = tk_dev_floats(nf), *dsoa = tk_dev_floats(nf);
    tk_upload(daos, h, nf);                /* h as n structs */
    tk_gate gate = tk_gate_if(gated);
    TK_CUDA(drift_aos((struct particle *)daos, n, dt, gate.s));
    tk_gate_open_untouched(&gate, daos, h, nf * sizeof *h, "drift_aos");
    /* SoA: field f of particle i at dsoa[f * n + i]; x is field 0 and vx
     * field 3, filled with the same values as the structs. */
    float *col = tk_malloc(nf * sizeof *col);
    for (size_t i = 0; i < n; i++)
        for (int f = 0; f < 8; f++) col[f * n + i] = h[8 * i + f];
    tk_upload(dsoa, col, nf);
    struct particles p = {dsoa, dsoa + n, dsoa + 2 * n, dsoa + 3 * n,
                          dsoa + 4 * n, dsoa + 5 * n, dsoa + 6 * n,
                          dsoa + 7 * n};
    size_t bad = 0;
    tk_download(g, daos, nf);
    for (size_t i = 0; i < n; i++)
        for (int f = 0; f < 8; f++) {
            float want = f == 0 ? fmaf(h[8 * i + 3], dt, h[8 * i]) : h[8 * i + f];
            if (memcmp(&want, &g[8 * i + f], sizeof want) != 0 && bad++ < 5)
                print_error("drift_aos particle %zu field %d (seed %llu)\n",
                            i, f, (unsigned long long)seed);
        }
    for (int v = 0; v < 2; v++) {          /* drift_soa, drift_soa4 */
        tk_upload(dsoa, col, nf);
        gate = tk_gate_if(gated);
        TK_CUDA((v ? drift_soa4 : drift_soa)(p, n, dt, gate.s));
        tk_gate_open_untouched(&gate, dsoa, col, nf * sizeof *col,
                               v ? "drift_soa4" : "drift_soa");
        TK_CUDA(cudaDeviceSynchronize());
        tk_download(g, dsoa, nf);
        for (size_t i = 0; i < nf; i++) {
            float want = i < n ? fmaf(h[8 * i + 3], dt, h[8 * i]) : col[i];
            if (memcmp(&want, &g[i], sizeof want) != 0 && bad++ < 5)
                print_error("%s float %zu of %zu (seed %llu)\n",
                            v ? "drift_soa4" : "drift_soa", i, nf,
                            (unsigned long long)seed);
        }
    }
    assert_int_equal(bad, 0);
    tk_free(daos); tk_free(dsoa);
    free(h); free(g); free(col);
}

static void drift_both_layouts(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    static const size_t ns[] = {1, 33, 1025, 4097, 1000001};
    size_t k = tk_small() ? 3 : 5;
    for (int round = 0; round < 2; round++)
        for (size_t i = 0; i < k; i++) drift_case(ns[i], round, 0);
}

/* mem_copy's kernel declares in and out __restrict__: overlapping ranges
 * are refused, before anything is launched, and nothing is written;
 * adjacent ranges are fine.  Before the check, these calls launched the
 * kernel (or its scalar fallback) on the overlapping ranges. */
static void mem_copy_refuses_overlap(void **s)
{
    (void)s;
    float *p = TK_FAKE(256);  /* CPU-side: never dereferenced */
    TK_REFUSED(mem_copy(p, p + 1, 10, 0));
    TK_REFUSED(mem_copy(p + 9, p, 10, 0));
    TK_REQUIRE_GPU();
    size_t n = 1000, m = n + 8;
    uint64_t seed = tk_seed(0), st = seed;
    float *h = tk_malloc(m * sizeof *h), *g = tk_malloc(m * sizeof *g);
    tk_fill(h, m, -1e3, 1e3, &st);
    float *d = tk_dev_floats(m);
    tk_upload(d, h, m);
    TK_REFUSED(mem_copy(d, d + 4, n, 0));
    TK_REFUSED(mem_copy(d + 4, d, n, 0));
    TK_REFUSED(mem_copy(d, d, n, 0));
    TK_REFUSED(mem_copy(d, d + 1, n, 0));
    TK_REFUSED(mem_copy(d + 7, d + 8, n, 0));
    TK_CUDA(cudaDeviceSynchronize());
    tk_download(g, d, m);
    assert_memory_equal(g, h, m * sizeof *h);          /* nothing written */
    TK_CUDA(mem_copy(d, d + 4, 4, 0));                 /* adjacent: copied */
    TK_CUDA(cudaDeviceSynchronize());
    tk_download(g, d, m);
    assert_memory_equal(g + 4, h, 4 * sizeof *h);
    assert_memory_equal(g, h, 4 * sizeof *h);
    tk_free(d);
    free(h); free(g);
}

/* The pointer chase: follow the cycle on the CPU (every node once, back to
 * the start), then compare where the GPU's chase ends after a few step
 * counts, and that two launches continue where one ends. */
static size_t chase_cpu(const size_t *h, size_t i, size_t steps)
{
    while (steps--) i = h[i];
    return i;
}

static size_t chase_gpu(const size_t *next, size_t len, size_t start,
                        size_t steps, size_t *dpos, int gated)
{
    size_t got;
    tk_upload_bytes(dpos, &start, sizeof start);
    tk_gate gate = tk_gate_if(gated);
    TK_CUDA(mem_chase(next, len, steps, dpos, gate.s));
    tk_gate_open_untouched(&gate, dpos, &start, sizeof start, "mem_chase");
    TK_CUDA(cudaDeviceSynchronize());
    tk_download_bytes(&got, dpos, sizeof got);
    return got;
}

/* mem_chase_cycle waits for its stream (memory.h), so gated, a second
 * thread calls it while this one looks: 0.2 s on, the call must not have
 * returned, and its copy must not have landed in next.  Then this thread
 * opens the gate, and the call returns. */
struct cycle_call {
    size_t *next;
    size_t nodes, stride;
    uint64_t seed;
    cudaStream_t s;
    cudaError_t e;
    int done;
};
static void *cycle_call_run(void *p)
{
    struct cycle_call *c = p;
    c->e = mem_chase_cycle(c->next, c->nodes, c->stride, c->seed, c->s);
    __atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static void cycle_behind_gate(size_t *next, size_t nodes, size_t stride,
                              uint64_t seed)
{
    size_t bytes = nodes * stride * sizeof *next, k = 0;
    unsigned char *look = NULL;        /* pinned: read while the copy waits */
    cudaStream_t ls;
    TK_CUDA(cudaMallocHost((void **)&look, bytes));
    TK_CUDA(cudaStreamCreateWithFlags(&ls, cudaStreamNonBlocking));
    tk_gate g = tk_gate_close();
    double t0 = now_s();
    struct cycle_call c = {next, nodes, stride, seed, g.s, cudaSuccess, 0};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, cycle_call_run, &c), 0);
    struct timespec pause = {0, 200000000L};
    nanosleep(&pause, NULL);
    int waited = !__atomic_load_n(&c.done, __ATOMIC_ACQUIRE);
    cudaError_t e = cudaMemcpyAsync(look, next, bytes,
                                    cudaMemcpyDeviceToHost, ls);
    if (e == cudaSuccess) e = cudaStreamSynchronize(ls);
    /* The gate opens by itself after TK_GATE_NS; before that, only the
     * flag below opens it, so a look this early saw it closed. */
    int held = now_s() - t0 < 0.5e-9 * TK_GATE_NS;
    while (k < bytes && look[k] == 0xff) k++;
    __atomic_store_n(g.flag, 1, __ATOMIC_RELEASE);       /* open it */
    pthread_join(t, NULL);
    tk_gate_open(&g);
    TK_CUDA(cudaStreamDestroy(ls));
    TK_CUDA(cudaFreeHost(look));
    TK_CUDA(e);
    TK_CUDA(c.e);
    if (!waited)
        print_error("mem_chase_cycle returned while its stream was held: "
                    "it did not wait for its copy\n");
    assert_true(waited);
    if (!held)
        print_message("mem_chase_cycle: the look at next had to wait for "
                      "the gate, so its copy's stream is not checked\n");
    else if (k != bytes)
        print_error("mem_chase_cycle: next was written while its stream "
                    "was held: the copy was not queued on that stream\n");
    assert_true(!held || k == bytes);
}

static void chase_case(size_t nodes, size_t stride, int round, int gated)
{
    uint64_t seed = tk_seed(round);
    size_t len = nodes * stride;
    size_t *h = tk_malloc(len * sizeof *h);
    char *seen = tk_malloc(nodes);
    size_t *next = tk_dev_bytes(len * sizeof *next);
    size_t *dpos = tk_dev_bytes(sizeof *dpos);
    if (gated)
        cycle_behind_gate(next, nodes, stride, seed);
    else
        TK_CUDA(mem_chase_cycle(next, nodes, stride, seed, 0));
    tk_download_bytes(h, next, len * sizeof *h);
    memset(seen, 0, nodes);
    size_t i = 0;
    for (size_t k = 0; k < nodes; k++) {     /* every node exactly once */
        assert_true(i < len && i % stride == 0);
        assert_false(seen[i / stride]);
        seen[i / stride] = 1;
        i = h[i];
    }
    assert_int_equal(i, 0);                  /* ... and back to the start */
    for (size_t k = 0; k < len; k++)         /* nothing between the nodes */
        if (k % stride) assert_int_equal(h[k], 0);
    size_t steps[] = {1, 7, nodes - 1, nodes, 2 * nodes + 3};
    for (size_t s = 0; s < 5; s++) {
        size_t start = (nodes / 2) * stride;
        size_t want = chase_cpu(h, start, steps[s]);
        size_t got = chase_gpu(next, len, start, steps[s], dpos, gated);
        if (got != want)
            print_error("nodes %zu stride %zu steps %zu seed %llu: %zu, "
                        "want %zu\n", nodes, stride, steps[s],
                        (unsigned long long)seed, got, want);
        assert_int_equal(got, want);
    }
    /* Two launches of 5 steps end where one of 10 does. */
    size_t half = chase_gpu(next, len, 0, 5, dpos, gated);
    assert_int_equal(half, chase_cpu(h, 0, 5));
    TK_CUDA(mem_chase(next, len, 5, dpos, 0));
    TK_CUDA(cudaDeviceSynchronize());
    tk_download_bytes(&half, dpos, sizeof half);
    assert_int_equal(half, chase_cpu(h, 0, 10));
    tk_free(next); tk_free(dpos);
    free(h); free(seen);
}

static void chase_visits_every_node(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    static const size_t nodes[] = {1, 2, 33, 1000}, strides[] = {1, 16, 17};
    for (int round = 0; round < 2; round++)
        for (int n = 0; n < 4; n++)
            for (int k = 0; k < 3; k++)
                chase_case(nodes[n], strides[k], round, 0);
}

/* A link out of the buffer stops the chase there: nothing is read past
 * the end, and the position shows the bad link.  A start past the end
 * moves nowhere. */
static void chase_stops_at_a_bad_link(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    const size_t h[4] = {2, 0, 100, 0};
    size_t *next = tk_dev_bytes(sizeof h), *dpos = tk_dev_bytes(sizeof h[0]);
    tk_upload_bytes(next, h, sizeof h);
    assert_int_equal(chase_gpu(next, 4, 0, 1, dpos, 0), 2);
    assert_int_equal(chase_gpu(next, 4, 0, 10, dpos, 0), 100);
    assert_int_equal(chase_gpu(next, 4, 7, 10, dpos, 0), 7);
    tk_free(next); tk_free(dpos);
}

/* CPU-side: bad arguments are refused before anything touches a device. */
static void null_pointers_refused(void **s)
{
    (void)s;
    float *p = TK_FAKE(256);  /* never dereferenced */
    struct particles none = {0};
    TK_REFUSED(mem_copy(NULL, p, 10, 0));
    TK_REFUSED(mem_copy(p, NULL, 10, 0));
    /* Not float-aligned: even the scalar copy would fault. */
    TK_REFUSED(mem_copy(TK_FAKE(1025), p, 10, 0));
    TK_REFUSED(mem_copy(p, TK_FAKE(1026), 10, 0));
    TK_REFUSED(mem_read_sum(p, 10, 1, NULL, 0));
    /* Float-aligned but not 16-byte aligned: refused, as the header says. */
    for (size_t k = 1; k < 4; k++)
        TK_REFUSED(mem_read_sum(p + k, 10, 1, p, 0));
    TK_REFUSED(fma_peak(NULL, 10, 1, 1.0f, 0.0f, 0));
    TK_REFUSED(drift_aos(NULL, 10, 0.1f, 0));
    TK_REFUSED(drift_soa(none, 10, 0.1f, 0));
    TK_REFUSED(drift_soa4(none, 10, 0.1f, 0));
    size_t *q = TK_FAKE(256);
    TK_REFUSED(mem_chase(NULL, 10, 1, q, 0));
    TK_REFUSED(mem_chase(q, 10, 1, NULL, 0));
    TK_REFUSED(mem_chase(q, 0, 1, q, 0));
    TK_REFUSED(mem_chase_cycle(NULL, 10, 16, 1, 0));
    TK_REFUSED(mem_chase_cycle(q, 0, 16, 1, 0));
    TK_REFUSED(mem_chase_cycle(q, 10, 0, 1, 0));
    /* bytes overflow */
    TK_REFUSED(mem_chase_cycle(q, SIZE_MAX / 64, 16, 1, 0));
}

static void empty_sizes_do_nothing(void **s)
{
    (void)s;
    struct particles none = {0};
    float *p = TK_FAKE(256);
    assert_int_equal(mem_copy(NULL, NULL, 0, 0), cudaSuccess);
    assert_int_equal(mem_read_sum(NULL, 0, 1, p, 0), cudaSuccess);
    assert_int_equal(mem_read_sum(p, 10, 0, p, 0), cudaSuccess);
    assert_int_equal(fma_peak(NULL, 0, 10, 1.0f, 0.0f, 0), cudaSuccess);
    assert_int_equal(drift_aos(NULL, 0, 0.1f, 0), cudaSuccess);
    assert_int_equal(drift_soa(none, 0, 0.1f, 0), cudaSuccess);
    assert_int_equal(drift_soa4(none, 0, 0.1f, 0), cudaSuccess);
    size_t *q = TK_FAKE(256);
    assert_int_equal(mem_chase(q, 10, 0, q, 0), cudaSuccess); /* no steps */
}

/* Stream order: every launcher, called on a stream held behind a closed
 * gate, returns with its output untouched, and once the gate opens the
 * output is the exact answer.  The copy on its three paths (float4, a
 * head and then float4, scalar); the read, whose *sum stays 0; the
 * strided copy; the FMA chains; the three drifts in place; the pointer
 * chase's cycle, which waits for its stream, and the chase. */
static void memory_launchers_follow_the_stream(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    copy_case(100003, 0, 0, 0, 1);
    copy_case(100003, 1, 1, 0, 1);
    copy_case(100003, 1, 2, 0, 1);
    read_case(100003, 2, 0, 1);
    strided_case(100003, 3, 1, 0, 1);
    fma_case(1);
    drift_case(100003, 0, 1);
    chase_case(1000, 16, 0, 1);
}

/* CPU-side: the struct is the 32 bytes the chapter's analysis assumes. */
static void particle_is_one_sector(void **s)
{
    (void)s;
    assert_int_equal(sizeof(struct particle), 32);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(null_pointers_refused),
        cmocka_unit_test(empty_sizes_do_nothing),
        cmocka_unit_test(strided_copy_arguments),
        cmocka_unit_test(particle_is_one_sector),
        cmocka_unit_test(copy_all_sizes),
        cmocka_unit_test(mem_copy_refuses_overlap),
        cmocka_unit_test(read_sum_all_sizes),
        cmocka_unit_test(read_sum_refuses_bad_arguments),
        cmocka_unit_test(strided_copy_strides_and_offsets),
        cmocka_unit_test(fma_peak_exact),
        cmocka_unit_test(drift_both_layouts),
        cmocka_unit_test(chase_visits_every_node),
        cmocka_unit_test(chase_stops_at_a_bad_link),
        cmocka_unit_test(memory_launchers_follow_the_stream),
    };
    return tk_run_tests("memory", tests);
}
