/* test_layernorm.c -- the layernorm chapter's tests: Welford and Chan on the
 * CPU, every layer-norm launcher and RMSNorm against a double reference on
 * random rows, rows with a large offset, constant rows and odd widths,
 * every launcher's stream order, and the E[x^2] - E[x]^2 listing that is
 * wrong on purpose. */
#include "testkit.h"
#include "layernorm/layernorm.h"
#include "layernorm/welford.h"
#include "variants.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

#define EPS 1e-5f
#define ATOL 1e-4

/* The reference: two passes in double, epsilon inside the root. */
static void layernorm_ref(const float *x, const float *g, const float *b,
                          double *y, size_t n, double eps)
{
    double mu = 0, var = 0;
    for (size_t j = 0; j < n; j++) mu += x[j];
    mu /= (double)n;
    for (size_t j = 0; j < n; j++) var += (x[j] - mu) * (x[j] - mu);
    var /= (double)n;
    double rstd = 1.0 / sqrt(var + eps);
    for (size_t j = 0; j < n; j++) y[j] = (x[j] - mu) * rstd * g[j] + b[j];
}

static void rmsnorm_ref(const float *x, const float *g, double *y, size_t n,
                        double eps)
{
    double q = 0;
    for (size_t j = 0; j < n; j++) q += (double)x[j] * x[j];
    double r = 1.0 / sqrt(q / (double)n + eps);
    for (size_t j = 0; j < n; j++) y[j] = x[j] * r * g[j];
}

/* ---- CPU ------------------------------------------------------------------ */

static void ref_constant_row(void **s)
{
    (void)s;
    float x[5] = {7, 7, 7, 7, 7}, g[5] = {1, 2, 3, 4, 5};
    float b[5] = {0.5f, -1, 0, 2, 3};
    double y[5];
    layernorm_ref(x, g, b, y, 5, EPS);
    for (int j = 0; j < 5; j++) assert_true(y[j] == b[j]);
}

/* Welford over a whole array, and Chan's merge of random splits of it,
 * against double sums. */
static void welford_and_chan_match_double(void **s)
{
    (void)s;
    enum { N = 5000 };
    static float x[N];
    for (int round = 0; round < 2; round++) {
        uint64_t seed = tk_seed(round), st = seed;
        double off = round ? 1e4 : 0.0;
        tk_fill(x, N, off - 1, off + 1, &st);
        double mu = 0, m2 = 0;
        for (int i = 0; i < N; i++) mu += x[i];
        mu /= N;
        for (int i = 0; i < N; i++) m2 += (x[i] - mu) * (x[i] - mu);
        /* Shift by x[0], as the kernels do. */
        welford_t all = welford_identity();
        for (int i = 0; i < N; i++) all = welford_push(all, x[i] - x[0]);
        assert_true(all.n == (float)N);
        assert_true(fabs((double)all.mean + x[0] - mu) < 1e-5);
        assert_true(fabs(all.m2 - m2) < 1e-3 * m2);
        for (int t = 0; t < 50; t++) {
            int cut = (int)(tk_next(&st) % (N + 1));
            welford_t a = welford_identity(), b = welford_identity();
            for (int i = 0; i < cut; i++) a = welford_push(a, x[i] - x[0]);
            for (int i = cut; i < N; i++) b = welford_push(b, x[i] - x[0]);
            welford_t c = welford_combine(a, b);
            assert_true(c.n == (float)N);
            assert_true(fabs((double)c.mean + x[0] - mu) < 1e-5);
            assert_true(fabs(c.m2 - m2) < 1e-3 * m2);
        }
    }
}

static void welford_identity_is_identity(void **s)
{
    (void)s;
    welford_t e = welford_identity(), w = welford_identity();
    w = welford_push(welford_push(welford_push(w, 3.0f), -1.5f), 0.25f);
    welford_t l = welford_combine(e, w), r = welford_combine(w, e);
    assert_true(l.n == w.n && l.mean == w.mean && l.m2 == w.m2);
    assert_true(r.n == w.n && r.mean == w.mean && r.m2 == w.m2);
    welford_t z = welford_combine(e, e);
    assert_true(z.n == 0 && z.mean == 0 && z.m2 == 0);
    /* A constant piece stays exact. */
    welford_t c = welford_identity();
    for (int i = 0; i < 1000; i++) c = welford_push(c, 0.0f);
    assert_true(c.mean == 0.0f && c.m2 == 0.0f);
}

/* Every launcher (variants.h), called as a layer norm: the NLN layer
 * norms first, then RMS, RMS_CACHED and NAIVE, in the order of the list. */
typedef layernorm_fn ln_fn;
#define LN_FN(name, fn) fn,
#define LN_NAME(name, fn) name,
static const ln_fn all_fns[] = {LAYERNORM_VARIANTS(LN_FN)};
static const char *all_names[] = {LAYERNORM_VARIANTS(LN_NAME)};
#define NALL ((int)(sizeof all_fns / sizeof all_fns[0]))
enum { NLN = 4, RMS = NLN, RMS_CACHED = NLN + 1, NAIVE = NLN + 2 };
static int is_rms(int f) { return f == RMS || f == RMS_CACHED; }

static void bad_arguments_refused(void **s)
{
    (void)s;
    float *p = TK_FAKE(256);
    float *q = TK_FAKE(1ull << 40);  /* y, apart from x */
    for (int f = 0; f < NLN; f++) {
        TK_REFUSED(all_fns[f](NULL, p, p, q, 2, 2, EPS, 0));
        TK_REFUSED(all_fns[f](p, NULL, p, q, 2, 2, EPS, 0));
        TK_REFUSED(all_fns[f](p, p, NULL, q, 2, 2, EPS, 0));
        TK_REFUSED(all_fns[f](p, p, p, NULL, 2, 2, EPS, 0));
        TK_REFUSED(all_fns[f](p, p, p, q, 2, 2, 0.0f, 0));
        TK_REFUSED(all_fns[f](p, p, p, q, 2, 2, -1e-5f, 0));
        TK_REFUSED(all_fns[f](p, p, p, q, 2, 2, NAN, 0));
        TK_REFUSED(all_fns[f](p, p, p, q, (size_t)1 << 32, 1, EPS, 0));
        assert_int_equal(all_fns[f](NULL, NULL, NULL, NULL, 0, 3, EPS, 0),
                         cudaSuccess);
    }
    TK_REFUSED(layernorm_welford(p, p, p, q, 1, (1u << 24) + 1, EPS, 0));
    TK_REFUSED(rmsnorm(p, NULL, q, 2, 2, EPS, 0));
    TK_REFUSED(rmsnorm(p, p, q, 2, 2, 0.0f, 0));
    /* rmsnorm_cached: the same checks, whichever kernel the width picks. */
    static const size_t rc_cols[] = {2, 1023, 8192, 16385};
    for (int k = 0; k < 4; k++) {
        size_t c = rc_cols[k];
        TK_REFUSED(rmsnorm_cached(NULL, p, q, 2, c, EPS, 0));
        TK_REFUSED(rmsnorm_cached(p, NULL, q, 2, c, EPS, 0));
        TK_REFUSED(rmsnorm_cached(p, p, NULL, 2, c, EPS, 0));
        TK_REFUSED(rmsnorm_cached(p, p, q, 2, c, 0.0f, 0));
        TK_REFUSED(rmsnorm_cached(p, p, q, 2, c, -1e-5f, 0));
        TK_REFUSED(rmsnorm_cached(p, p, q, 2, c, NAN, 0));
        TK_REFUSED(rmsnorm_cached(p, p, q, (size_t)1 << 32, c, EPS, 0));
        TK_REFUSED(rmsnorm_cached(p, p, q, SIZE_MAX / 2, c, EPS, 0));
        assert_int_equal(rmsnorm_cached(NULL, NULL, NULL, 0, c, EPS, 0),
                         cudaSuccess);
        assert_int_equal(rmsnorm_cached(NULL, NULL, NULL, 3, 0, EPS, 0),
                         cudaSuccess);
    }
    TK_REFUSED(layernorm_naive_moments(p, p, NULL, q, 2, 2, EPS, 0));
    TK_REFUSED(layernorm_welford_float4(p, p, p, q, 1, (1u << 24) + 1, EPS, 0));
    /* eps > 0 (the header) for rmsnorm and the wrong listing as well. */
    static const float bad_eps[] = {0.0f, -1e-5f, -INFINITY, NAN};
    for (int k = 0; k < 4; k++) {
        TK_REFUSED(rmsnorm(p, p, q, 2, 2, bad_eps[k], 0));
        TK_REFUSED(layernorm_naive_moments(p, p, p, q, 2, 2, bad_eps[k], 0));
    }
}

/* CPU-side: the header's limits.  Every launcher takes at most 2^31 - 1
 * rows (a block a row) and refuses rows * cols floats whose bytes pass
 * SIZE_MAX; the Welford launchers, and layernorm_cached, which hands them
 * rows wider than 16384, at most 2^24 columns. */
static void limits_refused(void **s)
{
    (void)s;
    float *p = TK_FAKE(256);  /* never dereferenced */
    float *q = TK_FAKE(1ull << 40);
    for (int f = 0; f < NALL; f++) {
        TK_REFUSED(all_fns[f](p, p, p, q, (size_t)1 << 31, 1, EPS, 0));
        TK_REFUSED(all_fns[f](p, p, p, q, SIZE_MAX / 8, 4, EPS, 0));
    }
    for (int f = 1; f <= 3; f++)
        TK_REFUSED(all_fns[f](p, p, p, q, 1, (1u << 24) + 1, EPS, 0));
}

/* CPU-side: x and y must not overlap (the header).  Every launcher refuses
 * the same range, y starting one float into x or at x's last float, and y
 * ending one float into x or at x's first, before anything runs.  Before
 * the check, these calls launched the kernels on the overlapping ranges. */
static void overlap_refused(void **s)
{
    (void)s;
    float *p = TK_FAKE(256);  /* never dereferenced */
    float *g = TK_FAKE(1ull << 41);  /* gamma and beta */
    const size_t rows = 3, cols = 5, n = rows * cols;
    float *ys[] = {p, p + 1, p + n - 1};            /* x = p */
    float *xs[] = {p + 1, p + n - 1};               /* y = p */
    for (int f = 0; f < NALL; f++) {
        for (int k = 0; k < 3; k++)
            TK_REFUSED(all_fns[f](p, g, g, ys[k], rows, cols, EPS, 0));
        for (int k = 0; k < 2; k++)
            TK_REFUSED(all_fns[f](xs[k], g, g, p, rows, cols, EPS, 0));
    }
}

/* ---- GPU ------------------------------------------------------------------ */

enum { RANDOM, CONSTANT, BEHIND_GATE = 4 };

/* Run launcher f (a layer norm, RMS, RMS_CACHED or NAIVE) on rows x cols
 * values offset + U(-1, 1) (or constant rows), with x offset by xoff
 * floats; returns the number of rows with an element off by more than
 * tol (or not finite); tol < 0 means ATOL, and then failures are printed.
 * kind | BEHIND_GATE queues the launcher on a stream that testkit's gate
 * holds closed, and asserts that y is still poisoned when it returns.  It
 * runs the call on stream 0 first, and y is poisoned again: CUDA loads a
 * kernel at its first launch, which may wait for the whole device, the
 * closed gate included. */
static size_t run_ln(int f, size_t rows, size_t cols, double offset,
                     int kind, size_t xoff, double tol, int round)
{
    int gated = kind & BEHIND_GATE;
    kind &= ~BEHIND_GATE;
    uint64_t seed = tk_seed(round), st = seed;
    size_t n = rows * cols, m = n + xoff;
    float *x = tk_malloc(m * sizeof *x), *y = tk_malloc(n * sizeof *y);
    float *g = tk_malloc(cols * sizeof *g), *b = tk_malloc(cols * sizeof *b);
    double *ref = tk_malloc(cols * sizeof *ref);
    tk_fill(x, m, offset - 1, offset + 1, &st);
    if (kind == CONSTANT)
        for (size_t r = 0; r < rows; r++)
            for (size_t j = 0; j < cols; j++)
                x[xoff + r * cols + j] = (float)(offset + 0.123 * r);
    tk_fill(g, cols, 0.5, 1.5, &st);
    tk_fill(b, cols, -1, 1, &st);
    float *dx = tk_dev_floats(m), *dy = tk_dev_floats(m);
    float *dg = tk_dev_floats(cols), *db = tk_dev_floats(cols);
    tk_upload(dx, x, m);
    tk_upload(dg, g, cols);
    tk_upload(db, b, cols);
    TK_CUDA(all_fns[f](dx + xoff, dg, db, dy + xoff, rows, cols, EPS, 0));
    if (gated) {
        TK_CUDA(cudaDeviceSynchronize());
        tk_poison(dy, m * sizeof *dy);
        tk_gate gate = tk_gate_close();
        TK_CUDA(all_fns[f](dx + xoff, dg, db, dy + xoff, rows, cols, EPS,
                           gate.s));
        int untouched = tk_still_poisoned(dy, m * sizeof *dy);
        tk_gate_open(&gate);
        if (!untouched)
            print_error("%s %zux%zu: wrote y before its stream was "
                        "opened\n", all_names[f], rows, cols);
        assert_true(untouched);
    }
    TK_CUDA(cudaDeviceSynchronize());
    tk_download(y, dy + xoff, n);
    int quiet = tol >= 0;
    if (!quiet) tol = ATOL;
    const char *name = all_names[f];
    size_t bad_rows = 0;
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + xoff + r * cols, *yr = y + r * cols;
        if (is_rms(f)) rmsnorm_ref(xr, g, ref, cols, EPS);
        else layernorm_ref(xr, g, b, ref, cols, EPS);
        size_t bad = 0;
        for (size_t j = 0; j < cols; j++) {
            int ok = isfinite(yr[j]) && fabs(yr[j] - ref[j]) <= tol;
            if (kind == CONSTANT && !is_rms(f)) ok = ok && yr[j] == b[j];
            if (!ok && !quiet && bad < 3)
                print_error("%s %zux%zu offset %g%s: row %zu col %zu is "
                            "%.9g, expected %.9g (seed %llu)\n", name, rows,
                            cols, offset, kind == CONSTANT ? " constant" : "",
                            r, j, yr[j], ref[j], (unsigned long long)seed);
            bad += !ok;
        }
        bad_rows += bad > 0;
    }
    tk_free(dx); tk_free(dy); tk_free(dg); tk_free(db);
    free(x); free(y); free(g); free(b); free(ref);
    return bad_rows;
}

static const size_t widths[] = {1, 31, 33, 768, 1000, 1001, 1024, 4096,
                                4099, 8192, 12288};
#define NWIDTHS (sizeof widths / sizeof widths[0])

static void all_widths(int f)
{
    TK_REQUIRE_GPU();
    size_t nw = tk_small() ? 7 : NWIDTHS;   /* up to 1024 under sanitizer */
    for (int round = 0; round < 2; round++)
        for (size_t k = 0; k < nw; k++) {
            size_t rows = widths[k] > 4096 ? 13 : 29;
            assert_int_equal(run_ln(f, rows, widths[k], 0.0, RANDOM, 0, -1,
                                    round), 0);
            assert_int_equal(run_ln(f, rows, widths[k], 1e4, RANDOM, 0, -1,
                                    round), 0);
            assert_int_equal(run_ln(f, 7, widths[k], -3.7e3, RANDOM, 0, -1,
                                    round), 0);
        }
    /* Misaligned rows take the scalar path. */
    assert_int_equal(run_ln(f, 9, 1024, 0.0, RANDOM, 1, -1, 0), 0);
    if (!tk_small())
        assert_int_equal(run_ln(f, 1000, 8192, 1.0, RANDOM, 0, -1, 0), 0);
}
static void ln_two_pass(void **s) { (void)s; all_widths(0); }
static void ln_welford(void **s) { (void)s; all_widths(1); }
static void ln_welford_float4(void **s) { (void)s; all_widths(2); }
static void ln_cached(void **s) { (void)s; all_widths(3); }
static void ln_rmsnorm(void **s) { (void)s; all_widths(RMS); }

/* The cached RMSNorm: every width of the others, each side of every
 * boundary of its choice of block (1024, 1536, 2048, 3072, 4096, 6144,
 * 8192, 12288), the widest it caches (16384, 16383 on the scalar path) and
 * the first it sends to rmsnorm (16385, 16388), odd widths offset by 1 to
 * 3 floats (the scalar path), and the float4 path offset by 4 floats.
 * Under the sanitizer's small runs, two rows at 2049, 8193 and 12289, so
 * that blocks of 256 to 1024 threads and 3 and 4 floats a thread (V = 3,
 * 4) are checked there too. */
static void ln_rmsnorm_cached(void **s)
{
    (void)s;
    all_widths(RMS_CACHED);
    static const size_t some[] = {2049, 8193, 12289};
    for (size_t k = 0; k < sizeof some / sizeof some[0]; k++)
        assert_int_equal(run_ln(RMS_CACHED, 2, some[k], 0.5, RANDOM, 0, -1,
                                1), 0);
    if (tk_small()) return;
    static const size_t wide[] = {1025, 1536, 1537, 2047, 2048, 2049, 3072,
                                  3073, 6144, 6145, 8193, 12289, 16383,
                                  16384, 16385, 16388};
    for (size_t k = 0; k < sizeof wide / sizeof wide[0]; k++)
        assert_int_equal(run_ln(RMS_CACHED, 5, wide[k], 0.5, RANDOM, 0, -1,
                                1), 0);
    for (size_t off = 1; off <= 4; off++)
        assert_int_equal(run_ln(RMS_CACHED, 17, 4096 - off, 0.0, RANDOM,
                                off, -1, 0), 0);
    assert_int_equal(run_ln(RMS_CACHED, 17, 4096, 0.0, RANDOM, 4, -1, 0),
                     0);
    assert_int_equal(run_ln(RMS_CACHED, 4097, 1023, 0.0, RANDOM, 0, -1, 0),
                     0);
}

/* A constant row c gives c / sqrt(c^2 + eps) times gamma; a zero row
 * gives exactly 0. */
static void rmsnorm_constant_rows(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    static const size_t w[] = {1, 33, 1024, 4099, 8192};
    size_t nw = tk_small() ? 3 : 5;
    for (int f = RMS; f <= RMS_CACHED; f += RMS_CACHED - RMS)
        for (size_t k = 0; k < nw; k++) {
            assert_int_equal(run_ln(f, 5, w[k], 0.0, CONSTANT, 0, -1, 0), 0);
            assert_int_equal(run_ln(f, 5, w[k], -3.5, CONSTANT, 0, -1, 0),
                             0);
        }
}

static void constant_rows_give_beta(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    static const size_t w[] = {1, 33, 1024, 4099, 8192};
    size_t nw = tk_small() ? 3 : 5;
    for (int f = 0; f < NLN; f++)
        for (size_t k = 0; k < nw; k++) {
            assert_int_equal(run_ln(f, 5, w[k], 0.0, CONSTANT, 0, -1, 0), 0);
            assert_int_equal(run_ln(f, 5, w[k], 12345.678, CONSTANT, 0, -1,
                                    0), 0);
        }
}

/* The wrong listing: right on rows centred at 0, wrong on 10^4 + noise. */
static void naive_moments_cancel(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    assert_int_equal(run_ln(NAIVE, 64, 4096, 0.0, RANDOM, 0, -1, 0), 0);
    size_t wrong = run_ln(NAIVE, 64, 4096, 1e4, RANDOM, 0, 0.05, 0);
    print_message("naive moments: %zu of 64 rows with offset 1e4 wrong\n",
                  wrong);
    assert_true(wrong >= 48);
}

/* Stream order: every launcher, queued on a stream that testkit's gate
 * holds closed, has written nothing of y when it returns (a kernel on the
 * legacy stream would have); once the gate opens, y is right.  The widths
 * take every branch: 1001, not a multiple of 4 (layernorm_cached hands it
 * to the Welford float4 kernel, rmsnorm_cached loads single floats);
 * 4096, the cached float4 kernels; 16388, wider than either cached kernel
 * holds (layernorm_welford_float4, rmsnorm).  The listing that is wrong
 * on purpose is checked for the order only. */
static void layernorm_launchers_follow_the_stream(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    static const size_t w[] = {1001, 4096, 16388};
    for (int f = 0; f < NALL; f++)
        for (size_t k = 0; k < sizeof w / sizeof w[0]; k++) {
            size_t bad = run_ln(f, 13, w[k], 0.0, RANDOM | BEHIND_GATE, 0,
                                f == NAIVE ? 0.0 : -1.0, 0);
            if (f != NAIVE) assert_int_equal(bad, 0);
        }
}

/* On device memory: the overlapping calls of overlap_refused write
 * nothing, and x and y that only touch (y right after x, or right
 * before) are apart: the result is right and x is left as it was. */
static void overlap_on_device(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    const size_t rows = 7, cols = 128, n = rows * cols;   /* 16-byte rows */
    uint64_t seed = tk_seed(0), st = seed;
    float *h = tk_malloc(2 * n * sizeof *h);
    float *got = tk_malloc(2 * n * sizeof *got);
    float *g = tk_malloc(cols * sizeof *g), *b = tk_malloc(cols * sizeof *b);
    double *ref = tk_malloc(n * sizeof *ref);
    tk_fill(h, 2 * n, -1, 1, &st);
    tk_fill(g, cols, 0.5, 1.5, &st);
    tk_fill(b, cols, -1, 1, &st);
    float *d = tk_dev_floats(2 * n);
    float *dg = tk_dev_floats(cols), *db = tk_dev_floats(cols);
    tk_upload(d, h, 2 * n);
    tk_upload(dg, g, cols);
    tk_upload(db, b, cols);
    for (int f = 0; f < NALL; f++) {
        TK_REFUSED(all_fns[f](d, dg, db, d, rows, cols, EPS, 0));
        TK_REFUSED(all_fns[f](d, dg, db, d + 1, rows, cols, EPS, 0));
        TK_REFUSED(all_fns[f](d + n - 1, dg, db, d, rows, cols, EPS, 0));
    }
    TK_CUDA(cudaDeviceSynchronize());
    tk_download(got, d, 2 * n);
    assert_memory_equal(got, h, 2 * n * sizeof *h);     /* nothing written */
    for (int f = 0; f < NALL; f++)
        for (int below = 0; below < 2; below++) {
            const tk_touch t = tk_touching(d, h, n, below);
            const float *hx = t.hx;
            TK_CUDA(all_fns[f](t.x, dg, db, t.y, rows, cols, EPS, 0));
            const float *gy = tk_touched(&t, got);
            for (size_t r = 0; r < rows; r++) {
                if (is_rms(f))
                    rmsnorm_ref(hx + r * cols, g, ref + r * cols, cols, EPS);
                else
                    layernorm_ref(hx + r * cols, g, b, ref + r * cols, cols,
                                  EPS);
            }
            char what[64];
            snprintf(what, sizeof what, "%s, y %s x", all_names[f],
                     below ? "just below" : "just after");
            assert_int_equal(tk_compare(what, gy, ref, n, ATOL, 0, seed), 0);
        }
    tk_free(d); tk_free(dg); tk_free(db);
    free(h); free(got); free(g); free(b); free(ref);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ref_constant_row),
        cmocka_unit_test(welford_and_chan_match_double),
        cmocka_unit_test(welford_identity_is_identity),
        cmocka_unit_test(bad_arguments_refused),
        cmocka_unit_test(limits_refused),
        cmocka_unit_test(overlap_refused),
        cmocka_unit_test(ln_two_pass),
        cmocka_unit_test(ln_welford),
        cmocka_unit_test(ln_welford_float4),
        cmocka_unit_test(ln_cached),
        cmocka_unit_test(ln_rmsnorm),
        cmocka_unit_test(ln_rmsnorm_cached),
        cmocka_unit_test(rmsnorm_constant_rows),
        cmocka_unit_test(constant_rows_give_beta),
        cmocka_unit_test(naive_moments_cancel),
        cmocka_unit_test(overlap_on_device),
        cmocka_unit_test(layernorm_launchers_follow_the_stream),
    };
    return tk_run_tests("layernorm", tests);
}
