/* test_method.c -- the method chapter's tests: the five byte histograms
 * against a CPU count (every bin exact) on uniform random bytes, one
 * repeated byte and runs of equal bytes, at the book's ladder of sizes up to
 * 2^28 + 3 and at unaligned tails; every refusal hist.h and probe.h
 * promise, on the CPU (before the launcher touches the device) and on the
 * GPU (a refused call leaves its outputs' poison); the latency chains'
 * results against the same recurrences on the CPU; the empty kernel's
 * checks; every launcher's work queued on the stream it is given, behind
 * a closed gate. */
#include "testkit.h"
#include "method/hist.h"
#include "method/probe.h"
#include "variants.h"
#include <stdio.h>
#include <string.h>

typedef cudaError_t (*hist_fn)(const unsigned char *, size_t, unsigned *,
                               cudaStream_t);
#define HISTOGRAM(name, fn, sixteen) {name, fn, sixteen},
static const struct { const char *name; hist_fn fn; int sixteen; } hists[] = {
    METHOD_HISTOGRAMS(HISTOGRAM)
};
#define NFN ((int)(sizeof hists / sizeof hists[0]))
/* The index in hists of the launcher fn. */
static int index_of(hist_fn fn)
{
    int f = 0;
    while (f < NFN && hists[f].fn != fn) f++;
    assert_true(f < NFN);
    return f;
}
enum { IN_UNIFORM, IN_SAME, IN_RUNS };
static const char *inames[] = {"uniform", "same", "runs"};

static void fill(unsigned char *x, size_t n, int kind, uint64_t *st)
{
    unsigned char cur = (unsigned char)tk_next(st);
    uint64_t r = 0;
    for (size_t i = 0; i < n; i++) {
        if (kind == IN_SAME) { x[i] = 0x5a; continue; }
        if (kind == IN_UNIFORM) {   /* eight bytes of one random number */
            if (i % 8 == 0) r = tk_next(st);
            x[i] = (unsigned char)(r >> (8 * (i % 8)));
            continue;
        }
        r = tk_next(st);            /* runs of random length, mean 8 */
        if (r % 8 == 0) cur = (unsigned char)(r >> 56);
        x[i] = cur;
    }
}

/* The reference: one loop, 64-bit counts. */
static void hist_ref(const unsigned char *x, size_t n, uint64_t *h)
{
    memset(h, 0, HIST_BINS * sizeof *h);
    for (size_t i = 0; i < n; i++) h[x[i]]++;
}

/* The bins histogram f wrote at dbins, for n bytes, against the
 * reference.  Returns the number of wrong bins. */
static size_t wrong_bins(int f, const unsigned *dbins, size_t n,
                         const uint64_t *ref, const char *what, uint64_t seed)
{
    unsigned got[HIST_BINS];
    tk_download_bytes(got, dbins, sizeof got);
    size_t bad = 0;
    for (int b = 0; b < HIST_BINS; b++)
        if (got[b] != ref[b] && bad++ < 5)
            print_error("%s, %s, n %zu: bin %d is %u, expected %llu (seed "
                        "%llu)\n", hists[f].name, what, n, b, got[b],
                        (unsigned long long)ref[b], (unsigned long long)seed);
    return bad;
}

/* Histogram f of the n bytes at dx against the reference; bins poisoned
 * first (the launcher must zero them).  Returns the number of wrong bins. */
static size_t compare(int f, const unsigned char *dx, size_t n,
                      const uint64_t *ref, const char *what, uint64_t seed)
{
    unsigned *dbins = tk_dev_bytes(HIST_BINS * sizeof(unsigned));
    TK_CUDA(hists[f].fn(dx, n, dbins, 0));
    TK_CUDA(cudaDeviceSynchronize());
    size_t bad = wrong_bins(f, dbins, n, ref, what, seed);
    tk_free(dbins);
    return bad;
}

/* One histogram of n random bytes of one kind; the buffer has 16 bytes
 * more, so that a kernel reading past n counts bytes it should not. */
static size_t check(int f, size_t n, int kind, int round)
{
    uint64_t seed = tk_seed(round), st = seed;
    unsigned char *x = tk_malloc(n + 16);
    fill(x, n + 16, kind, &st);
    unsigned char *dx = tk_dev_bytes(n + 16);
    tk_upload_bytes(dx, x, n + 16);
    uint64_t ref[HIST_BINS];
    hist_ref(x, n, ref);
    size_t bad = compare(f, dx, n, ref, inames[kind], seed);
    tk_free(dx);
    free(x);
    return bad;
}

/* Histogram fn on every size of the ladder up to 10^7 + 1 and n = 0, each
 * kind of input, both seeds (the fixed one only under the sanitizer);
 * sizes past 10^7 with the fixed seed and two kinds only. */
static void sizes(hist_fn fn)
{
    const int f = index_of(fn);
    const int flags = TK_SWEEP_ZERO | TK_SWEEP_SMALL_ONE_ROUND;
    for (tk_sweep w = tk_sweep_start(10000001, flags); tk_sweep_next(&w);)
        for (int kind = IN_UNIFORM; kind <= IN_RUNS; kind++) {
            size_t n = w.n;
            if (n > 10000000 && (w.round > 0 || kind == IN_RUNS)) continue;
            assert_int_equal(check(f, n, kind, w.round), 0);
            /* every tail length after the last full 16 bytes */
            if (n == 4097)
                for (size_t t = 1; t < 16; t++)
                    assert_int_equal(check(f, 4096 + t, kind, w.round), 0);
        }
}

static void global_atomics(void **s) { (void)s; TK_REQUIRE_GPU(); sizes(hist_global); }
static void shared_private(void **s) { (void)s; TK_REQUIRE_GPU(); sizes(hist_shared); }
static void shared_vec(void **s) { (void)s; TK_REQUIRE_GPU(); sizes(hist_shared_vec); }
static void warp_copies(void **s) { (void)s; TK_REQUIRE_GPU(); sizes(hist_warp); }
static void runs_aggregated(void **s) { (void)s; TK_REQUIRE_GPU(); sizes(hist_runs); }

/* n uniform random bytes from seed, in device memory; their counts in
 * ref. */
static unsigned char *uniform_on_device(size_t n, uint64_t seed,
                                        uint64_t *ref)
{
    uint64_t st = seed;
    unsigned char *x = tk_malloc(n);
    fill(x, n, IN_UNIFORM, &st);
    unsigned char *dx = tk_dev_bytes(n);
    tk_upload_bytes(dx, x, n);
    hist_ref(x, n, ref);
    free(x);
    return dx;
}

/* 2^28 + 3 uniform bytes: many grid-stride rounds, a tail of three.  The
 * input is made, uploaded and counted on the CPU once for all five. */
static void large_input(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    TK_SKIP_UNDER_SANITIZER("2^28 bytes; the ladder covers the sanitizer's sizes");
    const size_t n = ((size_t)1 << 28) + 3;
    const uint64_t seed = tk_seed(1);
    uint64_t ref[HIST_BINS];
    unsigned char *dx = uniform_on_device(n, seed, ref);
    size_t bad = 0;
    for (int f = 0; f < NFN; f++) bad += compare(f, dx, n, ref, "uniform", seed);
    tk_free(dx);
    assert_int_equal(bad, 0);
}

/* CPU-side: every refusal hist.h and probe.h promise, with pointers no GPU
 * ever sees: a launcher must refuse before it touches the device. */
static void bad_arguments_refused(void **s)
{
    (void)s;
    const unsigned char *x = TK_FAKE(4096);
    unsigned *bins = TK_FAKE(8192);
    for (int f = 0; f < NFN; f++) {
        hist_fn fn = hists[f].fn;
        TK_REFUSED(fn(NULL, 10, bins, 0));
        TK_REFUSED(fn(NULL, 0, bins, 0));
        TK_REFUSED(fn(x, 10, NULL, 0));
        TK_REFUSED(fn(x, (size_t)1 << 32, bins, 0));
        TK_REFUSED(fn(x, SIZE_MAX, bins, 0));
    }
    /* The sixteen-byte loads need 16-byte alignment: every other offset. */
    for (int f = 0; f < NFN; f++)
        for (size_t off = 1; hists[f].sixteen && off < 16; off++)
            TK_REFUSED(hists[f].fn(x + off, 10, bins, 0));
    TK_REFUSED(probe_empty(0, 32, 0));
    TK_REFUSED(probe_empty(1, 0, 0));
    TK_REFUSED(probe_empty(1, 1025, 0));
    TK_REFUSED(probe_empty(0, 0, 0));
    long long *dt = TK_FAKE(16384);
    unsigned *dout = TK_FAKE(32768);
    TK_REFUSED(probe_chain(0, 0, 1, dt, dout, 0));
    TK_REFUSED(probe_chain(0, 16, 1, NULL, dout, 0));
    TK_REFUSED(probe_chain(0, 16, 1, dt, NULL, 0));
    TK_REFUSED(probe_chain(3, 16, 1, dt, dout, 0));
    TK_REFUSED(probe_chain(-1, 16, 1, dt, dout, 0));
}

/* The same refusals on real buffers write nothing: the bins, the ticks
 * and the lanes' values keep their poison.  The scalar histograms take any
 * address, and count right there; the empty kernel takes 1024 threads. */
static void refusals_write_nothing(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    uint64_t seed = tk_seed(0), st = seed;
    unsigned char x[64];
    fill(x, sizeof x, IN_UNIFORM, &st);
    unsigned char *dx = tk_dev_bytes(sizeof x);
    tk_upload_bytes(dx, x, sizeof x);
    unsigned *dbins = tk_dev_bytes(HIST_BINS * sizeof(unsigned));
    for (int f = 0; f < NFN; f++) {
        TK_REFUSED(hists[f].fn(NULL, 10, dbins, 0));
        TK_REFUSED(hists[f].fn(dx, (size_t)1 << 32, dbins, 0));
    }
    for (int f = 0; f < NFN; f++)
        for (size_t off = 1; hists[f].sixteen && off < 16; off++)
            TK_REFUSED(hists[f].fn(dx + off, 10, dbins, 0));
    TK_CUDA(cudaDeviceSynchronize());
    unsigned got[HIST_BINS];
    tk_download_bytes(got, dbins, sizeof got);
    for (int b = 0; b < HIST_BINS; b++) assert_int_equal(got[b], ~0u);
    tk_free(dbins);
    uint64_t ref[HIST_BINS];
    hist_ref(x + 1, 10, ref);
    assert_int_equal(compare(index_of(hist_global), dx + 1, 10, ref,
                             "offset 1", seed), 0);
    hist_ref(x + 3, 50, ref);
    assert_int_equal(compare(index_of(hist_shared), dx + 3, 50, ref,
                             "offset 3", seed), 0);
    TK_CUDA(probe_empty(1, 1024, 0));
    TK_CUDA(cudaDeviceSynchronize());
    long long *dt = tk_dev_bytes(sizeof *dt), ticks = 0;
    unsigned *dout = tk_dev_bytes(32 * sizeof *dout), lanes[32];
    TK_REFUSED(probe_chain(3, 16, 1, dt, dout, 0));
    TK_REFUSED(probe_chain(-1, 16, 1, dt, dout, 0));
    TK_REFUSED(probe_chain(0, 0, 1, dt, dout, 0));
    TK_CUDA(cudaDeviceSynchronize());
    tk_download_bytes(&ticks, dt, sizeof ticks);
    tk_download_bytes(lanes, dout, sizeof lanes);
    assert_true(ticks == -1);
    for (int l = 0; l < 32; l++) assert_int_equal(lanes[l], ~0u);
    tk_free(dx);
    tk_free(dt);
    tk_free(dout);
}

/* What lane ends with after steps operations op of the chain with shift,
 * by the same recurrence on the CPU. */
static unsigned chain_want(int op, unsigned steps, unsigned shift,
                           unsigned lane)
{
    unsigned src = (unsigned)((lane + (uint64_t)steps * shift) % 32);
    if (op == PROBE_SHFL) return src * 7u + 1u;
    if (op == PROBE_SHARED) return src;
    unsigned want = lane * 7u + 1u;
    for (unsigned i = 0; i < steps; i++) want = want * want + shift;
    return want;
}

/* The chain's 32 lanes at dout and its ticks at dt against chain_want. */
static void chain_check(int op, unsigned steps, unsigned shift,
                        const long long *dt, const unsigned *dout)
{
    unsigned got[32];
    long long ticks;
    tk_download_bytes(got, dout, sizeof got);
    tk_download_bytes(&ticks, dt, sizeof ticks);
    assert_true(ticks > 0);
    for (unsigned lane = 0; lane < 32; lane++) {
        unsigned want = chain_want(op, steps, shift, lane);
        if (got[lane] != want)
            print_error("op %d, %u steps, lane %u: %u, expected %u\n", op,
                        steps, lane, got[lane], want);
        assert_int_equal(got[lane], want);
    }
}

/* The chains compute what the CPU says: the clock timed the real chain. */
static void chains_compute_their_recurrence(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    long long *dt = tk_dev_bytes(sizeof *dt);
    unsigned *dout = tk_dev_bytes(32 * sizeof *dout);
    const unsigned steps[] = {1, 15, 16, 17, 1000, 65536};
    /* the sanitizer instruments every step: the long chain only without */
    const size_t nsteps = sizeof steps / sizeof *steps - (tk_small() ? 1 : 0);
    for (int op = PROBE_IMAD; op <= PROBE_SHARED; op++)
        for (size_t k = 0; k < nsteps; k++)
            for (unsigned shift = 1; shift <= 3; shift += 2) {
                TK_CUDA(probe_chain(op, steps[k], shift, dt, dout, 0));
                TK_CUDA(cudaDeviceSynchronize());
                chain_check(op, steps[k], shift, dt, dout);
            }
    tk_free(dt);
    tk_free(dout);
}

/* The empty kernel writes nothing a gate could hold back: a capture of a
 * stream shows where its launch went.  A launch on any other stream would
 * leave the captured graph without a node. */
static void empty_kernel_follows_the_stream(void)
{
    cudaStream_t cs;
    cudaGraph_t graph;
    size_t nodes = 0;
    TK_CUDA(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
    TK_CUDA(cudaStreamBeginCapture(cs, cudaStreamCaptureModeThreadLocal));
    cudaError_t e = probe_empty(2, 64, cs);
    TK_CUDA(cudaStreamEndCapture(cs, &graph));
    TK_CUDA(e);
    TK_CUDA(cudaGraphGetNodes(graph, NULL, &nodes));
    TK_CUDA(cudaGraphDestroy(graph));
    TK_CUDA(cudaStreamDestroy(cs));
    assert_int_equal(nodes, 1);
}

/* Stream order: every histogram and every chain, called on a stream held
 * behind a closed gate, has written nothing when it returns: the zeroing
 * of the bins, the kernels and the chains' stores all wait on that stream.
 * After the gate opens, each result is the CPU's. */
static void method_launchers_follow_the_stream(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    const size_t n = 100003;            /* 16-byte loads and a tail of 3 */
    const uint64_t seed = tk_seed(1);
    uint64_t ref[HIST_BINS];
    unsigned char *dx = uniform_on_device(n, seed, ref);
    const size_t bytes = HIST_BINS * sizeof(unsigned);
    unsigned *dbins[NFN], *dout[PROBE_SHARED + 1];
    long long *dt[PROBE_SHARED + 1];
    for (int f = 0; f < NFN; f++) dbins[f] = tk_dev_bytes(bytes);
    for (int op = PROBE_IMAD; op <= PROBE_SHARED; op++) {
        dt[op] = tk_dev_bytes(sizeof *dt[op]);
        dout[op] = tk_dev_bytes(32 * sizeof *dout[op]);
    }
    tk_gate g = tk_gate_close();
    for (int f = 0; f < NFN; f++) TK_CUDA(hists[f].fn(dx, n, dbins[f], g.s));
    for (int op = PROBE_IMAD; op <= PROBE_SHARED; op++)
        TK_CUDA(probe_chain(op, 17, 3, dt[op], dout[op], g.s));
    for (int f = 0; f < NFN; f++) {
        int held = tk_still_poisoned(dbins[f], bytes);
        if (!held)
            print_error("%s wrote its bins before its stream ran\n",
                        hists[f].name);
        assert_true(held);
    }
    for (int op = PROBE_IMAD; op <= PROBE_SHARED; op++) {
        assert_true(tk_still_poisoned(dt[op], sizeof *dt[op]));
        assert_true(tk_still_poisoned(dout[op], 32 * sizeof *dout[op]));
    }
    tk_gate_open(&g);
    for (int f = 0; f < NFN; f++) {
        assert_int_equal(wrong_bins(f, dbins[f], n, ref, "gated", seed), 0);
        tk_free(dbins[f]);
    }
    for (int op = PROBE_IMAD; op <= PROBE_SHARED; op++) {
        chain_check(op, 17, 3, dt[op], dout[op]);
        tk_free(dt[op]);
        tk_free(dout[op]);
    }
    tk_free(dx);
    empty_kernel_follows_the_stream();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bad_arguments_refused),
        cmocka_unit_test(refusals_write_nothing),
        cmocka_unit_test(global_atomics),
        cmocka_unit_test(shared_private),
        cmocka_unit_test(shared_vec),
        cmocka_unit_test(warp_copies),
        cmocka_unit_test(runs_aggregated),
        cmocka_unit_test(large_input),
        cmocka_unit_test(chains_compute_their_recurrence),
        cmocka_unit_test(method_launchers_follow_the_stream),
    };
    return tk_run_tests("method", tests);
}
