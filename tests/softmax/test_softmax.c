/* test_softmax.c -- the softmax chapter's tests: the (m, d) algebra on the
 * CPU, the naive listing's overflow, every row launcher against the double
 * reference on random and edge rows, the whole-array softmax up to
 * 2^28 + 3 elements, the per-block normalization that is wrong on
 * purpose, and every launcher's work queued on the stream it is given. */
#define _POSIX_C_SOURCE 200809L
#include "testkit.h"
#include "softmax/online_pair.h"
#include "softmax/softmax.h"
#include "softmax/softmax_ref.h"
#include "variants.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

#define U (1.0 / 16777216.0) /* 2^-24 */
/* Below the smallest normal float relative precision ends. */
#define ATOL 1.2e-38
#define RTOL 1e-5

/* ---- CPU: the reference and the naive listing ------------------------ */

static void naive_overflows(void **s)
{
    (void)s;
    float x[2] = {100.0f, 101.0f}, y[2];
    double r[2];
    softmax_naive_float(x, y, 2);
    assert_true(isnan(y[0]) && isnan(y[1]));
    softmax_ref(x, r, 2);
    assert_true(fabs(r[0] - 0.2689414213699951) < 1e-12);
    assert_true(fabs(r[1] - 0.7310585786300049) < 1e-12);
    float z[2] = {-200.0f, -199.0f};
    softmax_naive_float(z, y, 2);
    assert_true(isnan(y[0]) && isnan(y[1]));
    softmax_ref(z, r, 2);
    assert_true(fabs(r[1] - 0.7310585786300049) < 1e-12);
    /* On small scores the naive version looks right: the bug hides. */
    float w[1000], v[1000];
    double q[1000];
    uint64_t st = tk_seed(0);
    tk_fill(w, 1000, -10, 10, &st);
    softmax_naive_float(w, v, 1000);
    softmax_ref(w, q, 1000);
    assert_int_equal(tk_compare("naive, small scores", v, q, 1000, 0, 1e-5,
                                0), 0);
}

static void ref_edge_semantics(void **s)
{
    (void)s;
    const float I = INFINITY;
    double r[4];
    float all_neg[4] = {-I, -I, -I, -I};
    softmax_ref(all_neg, r, 4);
    for (int i = 0; i < 4; i++) assert_true(r[i] == 0.0);
    float one_inf[4] = {1.0f, I, -I, 1e30f};
    softmax_ref(one_inf, r, 4);
    assert_true(r[0] == 0.0 && r[1] == 1.0 && r[2] == 0.0 && r[3] == 0.0);
    float two_inf[4] = {I, 0.0f, I, -I};
    softmax_ref(two_inf, r, 4);
    assert_true(r[0] == 0.5 && r[1] == 0.0 && r[2] == 0.5 && r[3] == 0.0);
    float masked[4] = {-I, 0.0f, -I, 0.0f};
    softmax_ref(masked, r, 4);
    assert_true(r[0] == 0.0 && r[1] == 0.5 && r[2] == 0.0 && r[3] == 0.5);
    float has_nan[3] = {1.0f, NAN, 2.0f};
    softmax_ref(has_nan, r, 3);
    for (int i = 0; i < 3; i++) assert_true(isnan(r[i]));
    float huge[2] = {1e30f, -1e30f};
    softmax_ref(huge, r, 2);
    assert_true(r[0] == 1.0 && r[1] == 0.0);
}

/* ---- CPU: the (m, d) operator ---------------------------------------- */

static int md_same(md_t a, md_t b)
{
    return (a.m == b.m || (isnan(a.m) && isnan(b.m))) && a.d == b.d;
}

static void md_identity_is_identity(void **s)
{
    (void)s;
    const float I = INFINITY;
    md_t cases[] = {{0.0f, 1.0f}, {-3.5f, 17.25f}, {1e30f, 2.0f},
                    {-1e30f, 5.0f}, {I, 1.0f}, {I, 3.0f}, {-I, 0.0f},
                    {88.0f, 1e6f}};
    md_t e = md_identity();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_true(md_same(md_combine(e, cases[i]), cases[i]));
        assert_true(md_same(md_combine(cases[i], e), cases[i]));
    }
    assert_true(md_same(md_of(-I), e));
    assert_true(md_same(md_combine(e, e), e));
    md_t one = md_of(2.0f);
    assert_true(one.m == 2.0f && one.d == 1.0f);
    /* Two pieces holding +inf add their counts; finite ones weigh 0. */
    md_t a = md_combine(md_of(I), md_of(I));
    assert_true(a.m == I && a.d == 2.0f);
    a = md_combine(a, md_of(1e30f));
    assert_true(a.m == I && a.d == 2.0f);
}

static md_t random_md(uint64_t *st)
{
    md_t r = {(float)tk_uniform(st, -50, 50), (float)tk_uniform(st, 1, 1000)};
    return r;
}

static void md_is_associative(void **s)
{
    (void)s;
    for (int round = 0; round < 2; round++) {
        uint64_t seed = tk_seed(round), st = seed;
        for (int i = 0; i < 10000; i++) {
            md_t a = random_md(&st), b = random_md(&st), c = random_md(&st);
            if (i % 10 == 0) b.m = a.m;                   /* equal maxima */
            if (i % 17 == 0) c = md_identity();
            md_t l = md_combine(md_combine(a, b), c);
            md_t r = md_combine(a, md_combine(b, c));
            assert_true(l.m == r.m);
            if (fabs(l.d - r.d) > 16 * U * fabs(r.d)) {
                print_error("triple %d: %.9g vs %.9g (seed %llu)\n", i, l.d,
                            r.d, (unsigned long long)seed);
                fail();
            }
            assert_true(md_same(md_combine(a, b), md_combine(b, a)));
        }
    }
}

static void md_push_is_combine(void **s)
{
    (void)s;
    const float I = INFINITY;
    float xs[] = {0.0f, 3.0f, -2.0f, 3.0f, 50.0f, -I, 1e30f, -1e30f, I, 7.0f,
                  I, -I};
    md_t a = md_identity(), b = md_identity();
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        a = md_push(a, xs[i]);
        b = md_combine(b, md_of(xs[i]));
        assert_true(a.m == b.m);
        assert_true(fabs(a.d - b.d) <= 4 * U * fabs(b.d));
    }
    assert_true(a.m == I && a.d == 2.0f);
    md_t n = md_push(md_of(1.0f), NAN);
    assert_true(isnan(n.d));
}

/* Fold 1000 scores into a pair in three orders; each must give the
 * double reference's maximum and sum. */
static void md_reduce_any_order(void **s)
{
    (void)s;
    enum { N = 1000 };
    float x[N];
    for (int round = 0; round < 2; round++) {
        uint64_t seed = tk_seed(round), st = seed;
        tk_fill(x, N, -30, 30, &st);
        double m = -INFINITY, d = 0;
        for (int i = 0; i < N; i++) if (x[i] > m) m = x[i];
        for (int i = 0; i < N; i++) d += exp((double)x[i] - m);
        md_t fwd = md_identity(), bwd = md_identity(), t[N];
        for (int i = 0; i < N; i++) fwd = md_push(fwd, x[i]);
        for (int i = N - 1; i >= 0; i--) bwd = md_combine(md_of(x[i]), bwd);
        for (int i = 0; i < N; i++) t[i] = md_of(x[i]);
        for (int w = 1; w < N; w *= 2)
            for (int i = 0; i + w < N; i += 2 * w)
                t[i] = md_combine(t[i], t[i + w]);
        md_t all[3] = {fwd, bwd, t[0]};
        for (int k = 0; k < 3; k++) {
            assert_true(all[k].m == (float)m);
            assert_true(fabs(all[k].d - d) <= 1e-4 * d);
        }
    }
}

/* ---- CPU: arguments --------------------------------------------------- */

typedef softmax_rows_fn rows_fn;
/* The chapter's row launchers (variants.h), numbered as the tests
 * rows_warp ... rows_online below number them, then the cached launcher
 * under its first name, which rows_cached_async runs on a stream of its
 * own. */
#define ROW_FN(name, fn) fn,
#define ROW_NAME(name, fn) name,
static const rows_fn row_fns[] = {SOFTMAX_ROW_VARIANTS(ROW_FN)
                                  softmax_rows_cached_async};
static const char *row_names[] = {SOFTMAX_ROW_VARIANTS(ROW_NAME)
                                  "cached_async"};
#define NFNS ((int)(sizeof row_fns / sizeof row_fns[0]))
#define F_ASYNC (NFNS - 1)

/* CPU-side: x and y are apart (q), so that each call is refused for the
 * reason it names and not because the two overlap. */
static void bad_arguments_refused(void **s)
{
    (void)s;
    float *p = TK_FAKE(256);  /* never dereferenced */
    float *q = TK_FAKE(1ull << 40);
    for (int f = 0; f < NFNS; f++) {
        TK_REFUSED(row_fns[f](NULL, q, 2, 2, 0));
        TK_REFUSED(row_fns[f](p, NULL, 2, 2, 0));
        TK_REFUSED(row_fns[f](p, q, SIZE_MAX / 2, 4, 0));
        /* rows * cols fits in size_t, its bytes do not. */
        TK_REFUSED(row_fns[f](p, q, SIZE_MAX / 8, 4, 0));
        assert_int_equal(row_fns[f](NULL, NULL, 0, 5, 0), cudaSuccess);
        assert_int_equal(row_fns[f](NULL, NULL, 5, 0, 0), cudaSuccess);
    }
    /* More rows than a grid has blocks: 2^31 - 1 rows at most, a block a
     * row (the cached launcher keeps that limit for its warp kernels);
     * softmax_rows_warp, 8 rows a block, 8 (2^31 - 1). */
    for (int f = 1; f < NFNS; f++)
        TK_REFUSED(row_fns[f](p, q, (size_t)1 << 31, 1, 0));
    TK_REFUSED(softmax_rows_block(p, q, (size_t)1 << 32, 1, 0));
    TK_REFUSED(softmax_rows_warp(p, q, 8 * (((size_t)1 << 31) - 1) + 1, 1, 0));
    /* The whole-array launchers' refusals of a null or misaligned
     * pointer are whole_bad_arguments_refused's table; here the forms
     * that table does not hold. */
    TK_REFUSED(softmax_whole_per_block(NULL, q, 10, 0));
    TK_REFUSED(softmax_whole_fused_cache(p, NULL, 10, p, 1024, 0));
    TK_REFUSED(softmax_whole_resident_cache(NULL, q, 10, p, 16, 16, 1, 0));
    TK_REFUSED(softmax_whole_resident_cache(p, q, 10, NULL, 0, 0, 0, 0));
}

/* ---- GPU: rows ---------------------------------------------------------- */

/* Row patterns: 0 random; 1 every 7th -inf; 2 all -inf; 3 one +inf;
 * 4 +inf first and last; 5 scores in +-1e30; 6 all equal; 7 scores in
 * [-1e30, -1e29]; 8 one NaN (the whole row is NaN). */
#define NPAT 9
static void fill_row(float *r, size_t cols, int p, uint64_t *st)
{
    tk_fill(r, cols, -10, 10, st);
    for (size_t j = 0; j < cols; j++) {
        switch (p) {
        case 1: if (j % 7 == 0) r[j] = -INFINITY; break;
        case 2: r[j] = -INFINITY; break;
        case 3: if (j == cols / 2) r[j] = INFINITY; break;
        case 4: if (j == 0 || j == cols - 1) r[j] = INFINITY; break;
        case 5: r[j] = (float)tk_uniform(st, -1e30, 1e30); break;
        case 6: r[j] = 3.0f; break;
        case 7: r[j] = (float)tk_uniform(st, -1e30, -1e29); break;
        case 8: if (j == cols / 3) r[j] = NAN; break;
        default: break;
        }
    }
}

/* Run fn on rows x cols (offset floats into the buffers) on stream s,
 * rows patterned when edge is set; compare with the reference; return
 * wrong elements. */
static size_t check_rows(rows_fn fn, const char *name, size_t rows,
                         size_t cols, int edge, size_t offset, int round,
                         cudaStream_t s)
{
    uint64_t seed = tk_seed(round), st = seed;
    size_t n = rows * cols, m = n + offset;
    float *x = tk_malloc(m * sizeof *x), *y = tk_malloc(n * sizeof *y);
    double *ref = tk_malloc(n * sizeof *ref);
    for (size_t r = 0; r < rows; r++)
        fill_row(x + offset + r * cols, cols, edge ? (int)(r % NPAT) : 0, &st);
    for (size_t r = 0; r < rows; r++)
        softmax_ref(x + offset + r * cols, ref + r * cols, cols);
    float *dx = tk_dev_floats(m), *dy = tk_dev_floats(m);
    tk_upload(dx, x, m);
    /* A stream created non-blocking is not ordered with the default
     * stream, where the poisoning memset and a pageable upload may still
     * be running. */
    if (s) TK_CUDA(cudaDeviceSynchronize());
    TK_CUDA(fn(dx + offset, dy + offset, rows, cols, s));
    TK_CUDA(cudaDeviceSynchronize());
    tk_download(y, dy + offset, n);
    char what[96];
    snprintf(what, sizeof what, "softmax %s %zux%zu%s", name, rows, cols,
             edge ? " edge rows" : "");
    size_t bad = tk_compare(what, y, ref, n, ATOL, RTOL, seed);
    tk_free(dx); tk_free(dy);
    free(x); free(y); free(ref);
    return bad;
}

static const size_t widths[] = {1, 4, 31, 32, 33, 128, 1000, 1024, 1028,
                                4096, 4097, 8192, 12288, 16384, 16388};
#define NWIDTHS (sizeof widths / sizeof widths[0])

/* Launcher f on every width, on the default stream, or for F_ASYNC on
 * a stream created with cudaStreamNonBlocking. */
static void rows_all_widths(int f)
{
    TK_REQUIRE_GPU();
    cudaStream_t s = 0;
    if (f == F_ASYNC)
        TK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    size_t nw = tk_small() ? 9 : NWIDTHS;   /* up to 4097 under sanitizer */
    for (int round = 0; round < 2; round++)
        for (size_t k = 0; k < nw; k++) {
            size_t rows = widths[k] > 4096 ? 19 : 37;
            assert_int_equal(check_rows(row_fns[f], row_names[f], rows,
                                        widths[k], 0, 0, round, s), 0);
            assert_int_equal(check_rows(row_fns[f], row_names[f], 2 * NPAT,
                                        widths[k], 1, 0, round, s), 0);
        }
    /* Misaligned rows take the scalar path. */
    assert_int_equal(check_rows(row_fns[f], row_names[f], 9, 1024, 1, 1, 0,
                                s), 0);
    if (!tk_small())  /* many rows: the grid of the warp kernels */
        assert_int_equal(check_rows(row_fns[f], row_names[f], 70001, 64, 0,
                                    0, 0, s), 0);
    if (s) TK_CUDA(cudaStreamDestroy(s));
}
static void rows_warp(void **s) { (void)s; rows_all_widths(0); }
static void rows_block(void **s) { (void)s; rows_all_widths(1); }
static void rows_float4(void **s) { (void)s; rows_all_widths(2); }
static void rows_cached(void **s) { (void)s; rows_all_widths(3); }
static void rows_online(void **s) { (void)s; rows_all_widths(4); }
static void rows_cached_async(void **s)
{
    (void)s;
    rows_all_widths(F_ASYNC);
}

/* ---- GPU: one whole array ------------------------------------------------ */

/* x of n floats (random in [-10, 10], then kind: 0 none, 1 every 7th -inf,
 * 2 all -inf, 3 +inf at the last element, 4 scores in +-1e30, 5 all equal,
 * 6 +inf first and last); compares y with the reference
 * computed on the fly, so 2^28 elements need no double array. */
typedef softmax_whole_fn whole_fn;
static whole_fn whole_under_test = softmax_whole;

/* The fused kernel with 65 float4s a block on chip: small arrays then take
 * the re-read path too (the sanitizer runs only get small arrays), and the
 * cached head ends in the middle of a step of the loop. */
static cudaError_t fused_small_cache(const float *x, float *y, size_t n,
                                     void *work, cudaStream_t s)
{
    return softmax_whole_fused_cache(x, y, n, work, 65 * 16, s);
}
/* The resident kernel with 777 float4s a block in registers (three steps
 * of 256 and part of a fourth) and 65 in shared memory: small arrays take
 * all three paths, and each part ends in the middle of a step. */
static cudaError_t resident_small_cache(const float *x, float *y, size_t n,
                                        void *work, cudaStream_t s)
{
    return softmax_whole_resident_cache(x, y, n, work, 777 * 16, 65 * 16,
                                        0, s);
}
static cudaError_t resident_fast_small_cache(const float *x, float *y,
                                             size_t n, void *work,
                                             cudaStream_t s)
{
    return softmax_whole_resident_cache(x, y, n, work, 777 * 16, 65 * 16,
                                        1, s);
}
/* Registers only, no shared memory: the rest is read again from L2.  A
 * block's slice passes its 2048 float4s in registers only from about 10^7
 * elements on, so the sanitizer's small runs see that re-read path through
 * resident_small_cache (on 300007 elements), not here. */
static cudaError_t resident_no_smem(const float *x, float *y, size_t n,
                                    void *work, cudaStream_t s)
{
    return softmax_whole_resident_cache(x, y, n, work, SIZE_MAX, 0, 0, s);
}
/* The chapter's whole-array launchers (variants.h), then the settings
 * of their _cache forms above. */
#define WHOLE_FN(name, fn) fn,
#define WHOLE_NAME(name, fn) name,
static const whole_fn whole_fns[] = {
    SOFTMAX_WHOLE_VARIANTS(WHOLE_FN) fused_small_cache, resident_small_cache,
    resident_no_smem, resident_fast_small_cache};
static const char *whole_names[] = {
    SOFTMAX_WHOLE_VARIANTS(WHOLE_NAME) "fused_small_cache",
    "resident_small_cache", "resident_no_smem", "resident_fast_small_cache"};
#define NWHOLE ((int)(sizeof whole_fns / sizeof whole_fns[0]))

/* CPU-side: every whole-array launcher (and the test's _cache settings)
 * refuses a null x, y or work and a work that is not 8-byte aligned, the
 * header's terms, before anything runs; n = 0 is nothing to do. */
/* The size the header names is the one the launchers' layout counts. */
static void work_bytes_is_the_layout(void **s)
{
    (void)s;
    assert_int_equal(softmax_work_bytes(), SOFTMAX_WORK_BYTES);
}

static void whole_bad_arguments_refused(void **s)
{
    (void)s;
    float *p = TK_FAKE(256);
    float *q = TK_FAKE(1ull << 40);  /* apart from p */
    for (int f = 0; f < NWHOLE; f++) {
        TK_REFUSED(whole_fns[f](NULL, q, 10, p, 0));
        TK_REFUSED(whole_fns[f](p, NULL, 10, p, 0));
        TK_REFUSED(whole_fns[f](p, q, 10, NULL, 0));
        for (size_t off = 1; off < 8; off++)
            TK_REFUSED(whole_fns[f](p, q, 10, (char *)p + off, 0));
        assert_int_equal(whole_fns[f](NULL, NULL, 0, NULL, 0), cudaSuccess);
    }
}

/* CPU-side: x and y must not overlap (the header).  Every launcher refuses
 * the same range, y starting one float into x or at x's last float, y
 * ending one float into x or at x's first, and n floats whose bytes pass
 * SIZE_MAX, before anything runs.  Before the check the row launchers
 * launched their kernels on such ranges, and the whole-array ones too. */
static void overlap_refused(void **s)
{
    (void)s;
    float *p = TK_FAKE(256);  /* never dereferenced */
    float *q = TK_FAKE(1ull << 40);
    void *w = TK_FAKE(1ull << 41);
    const size_t rows = 3, cols = 5, n = rows * cols;
    float *ys[] = {p, p + 1, p + n - 1};            /* x = p */
    float *xs[] = {p + 1, p + n - 1};               /* y = p */
    for (int f = 0; f < NFNS; f++) {
        for (int k = 0; k < 3; k++)
            TK_REFUSED(row_fns[f](p, ys[k], rows, cols, 0));
        for (int k = 0; k < 2; k++)
            TK_REFUSED(row_fns[f](xs[k], p, rows, cols, 0));
    }
    for (int f = 0; f < NWHOLE; f++) {
        for (int k = 0; k < 3; k++)
            TK_REFUSED(whole_fns[f](p, ys[k], n, w, 0));
        for (int k = 0; k < 2; k++)
            TK_REFUSED(whole_fns[f](xs[k], p, n, w, 0));
        TK_REFUSED(whole_fns[f](p, q, SIZE_MAX / 2, w, 0));
    }
    for (int k = 0; k < 3; k++)
        TK_REFUSED(softmax_whole_per_block(p, ys[k], n, 0));
    for (int k = 0; k < 2; k++)
        TK_REFUSED(softmax_whole_per_block(xs[k], p, n, 0));
    TK_REFUSED(softmax_whole_per_block(p, q, SIZE_MAX / 2, 0));
}

/* The number of elements of y that differ from the softmax of xs. */
static size_t compare_whole(const float *xs, const float *y, size_t n,
                            int kind, double rtol, uint64_t seed)
{
    double mx = -INFINITY, d = 0;
    for (size_t i = 0; i < n; i++) if (xs[i] > mx) mx = xs[i];
    for (size_t i = 0; i < n; i++) d += softmax_ref_weight(xs[i], mx);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        double r = d == 0 ? 0.0 : softmax_ref_weight(xs[i], mx) / d;
        if (!(isfinite(y[i]) && fabs(y[i] - r) <= ATOL + rtol * r) &&
            bad++ < 5)
            print_error("whole n=%zu kind %d: element %zu is %.9g, expected "
                        "%.9g (seed %llu)\n", n, kind, i, y[i], r,
                        (unsigned long long)seed);
    }
    return bad;
}

static size_t check_whole(size_t n, int kind, size_t offset, double rtol,
                          int round)
{
    uint64_t seed = tk_seed(round), st = seed;
    size_t m = n + offset;
    float *x = tk_malloc(m * sizeof *x), *y = tk_malloc(n * sizeof *y);
    tk_fill(x, m, -10, 10, &st);
    float *xs = x + offset;
    for (size_t i = 0; i < n; i++) {
        if ((kind == 1 && i % 7 == 0) || kind == 2) xs[i] = -INFINITY;
        if (kind == 3 && i == n - 1) xs[i] = INFINITY;
        if (kind == 4) xs[i] = (float)tk_uniform(&st, -1e30, 1e30);
        if (kind == 5) xs[i] = 3.0f;
        if (kind == 6 && (i == 0 || i == n - 1)) xs[i] = INFINITY;
    }
    float *dx = tk_dev_floats(m), *dy = tk_dev_floats(m), *work;
    work = tk_dev_bytes(SOFTMAX_WORK_BYTES);
    tk_upload(dx, x, m);
    TK_CUDA(whole_under_test(dx + offset, dy + offset, n, work, 0));
    TK_CUDA(cudaDeviceSynchronize());
    tk_download(y, dy + offset, n);
    size_t bad = compare_whole(xs, y, n, kind, rtol, seed);
    tk_free(dx); tk_free(dy); tk_free(work);
    free(x); free(y);
    return bad;
}

static void whole_sizes(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    static const size_t ns[] = {1, 2, 31, 33, 1000, 1024, 4097,
                                (1u << 20) + 3, 10000001, (size_t)1 << 24};
    size_t k = tk_small() ? 7 : sizeof ns / sizeof ns[0];
    for (int f = 0; f < NWHOLE; f++) {
        whole_under_test = whole_fns[f];
        for (int round = 0; round < 2; round++)
            for (size_t i = 0; i < k; i++)
                assert_int_equal(check_whole(ns[i], 0, 0, RTOL, round), 0);
    }
    whole_under_test = softmax_whole;
}

static void whole_edges(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    for (int f = 0; f < NWHOLE; f++) {
        whole_under_test = whole_fns[f];
        for (int kind = 1; kind <= 6; kind++) {
            assert_int_equal(check_whole(1, kind, 0, RTOL, 0), 0);
            assert_int_equal(check_whole(4097, kind, 0, RTOL, 0), 0);
            if (kind <= 3 || !tk_small())   /* the sanitizer's time */
                assert_int_equal(check_whole(300007, kind, 0, RTOL, 0), 0);
        }
        /* Offset by one float: the scalar path. */
        assert_int_equal(check_whole(300007, 0, 1, RTOL, 0), 0);
        assert_int_equal(check_whole(33, 1, 3, RTOL, 0), 0);
    }
    whole_under_test = softmax_whole;
}

static void whole_2_28(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    if (tk_small()) skip();
    whole_under_test = softmax_whole_simple;
    assert_int_equal(check_whole(((size_t)1 << 28) + 3, 0, 0, 1e-4, 0), 0);
    whole_under_test = softmax_whole;
    assert_int_equal(check_whole(((size_t)1 << 28) + 3, 0, 0, 1e-4, 1), 0);
    /* Fused: slices of ~85000 float4s, less than 3% of them on chip. */
    whole_under_test = softmax_whole_fused;
    assert_int_equal(check_whole(((size_t)1 << 28) + 3, 0, 0, 1e-4, 1), 0);
    /* Resident: one of the two (they differ only in the exponential of
     * the second phase), to keep the test's time in bounds. */
    whole_under_test = softmax_whole_resident_fast;
    assert_int_equal(check_whole(((size_t)1 << 28) + 3, 0, 0, 1e-4, 1), 0);
    whole_under_test = softmax_whole;
}

/* ---- GPU: what the launchers remember, per device and per thread ---- */

/* The whole-array launchers remember, for each device, how many blocks fit
 * (and the fused ones their plans and kernel attributes), computed on the
 * first call.  Eleven host threads, one a launcher, make that first call
 * at once, each on its own buffers, released together by a barrier; every result must be
 * right.  Registered before every other test that calls them. */
#define NTHREADS NWHOLE
struct whole_job {
    whole_fn fn;
    const float *dx;
    float *dy;
    void *work;
    size_t n;
    cudaError_t launched, synced;
};
static void whole_job_run(void *p)
{
    struct whole_job *j = p;
    j->launched = j->fn(j->dx, j->dy, j->n, j->work, 0);
    j->synced = cudaDeviceSynchronize();
}

static void whole_first_use_from_threads(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    const size_t n = tk_small() ? 4097 : 300007;
    uint64_t seed = tk_seed(0), st = seed;
    float *x = tk_malloc(n * sizeof *x), *y = tk_malloc(n * sizeof *y);
    tk_fill(x, n, -10, 10, &st);
    float *dx = tk_dev_floats(n);
    tk_upload(dx, x, n);
    struct whole_job jobs[NTHREADS];
    for (int t = 0; t < NTHREADS; t++) {
        jobs[t] = (struct whole_job){whole_fns[t % NWHOLE], dx,
                                     tk_dev_floats(n), NULL, n,
                                     cudaErrorUnknown, cudaErrorUnknown};
        TK_CUDA(cudaMalloc(&jobs[t].work, SOFTMAX_WORK_BYTES));
    }
    tk_run_at_once(NTHREADS, whole_job_run, jobs, sizeof jobs[0]);
    for (int t = 0; t < NTHREADS; t++) {
        TK_CUDA(jobs[t].launched);
        TK_CUDA(jobs[t].synced);
        tk_download(y, jobs[t].dy, n);
        assert_int_equal(compare_whole(x, y, n, 0, RTOL, seed), 0);
        tk_free(jobs[t].dy);
        tk_free(jobs[t].work);
    }
    tk_free(dx);
    free(x); free(y);
}

/* With two GPUs or more: every whole-array launcher on every device, so
 * that what was remembered for device 0 (blocks that fit, the fused plan,
 * kernel attributes set with cudaFuncSetAttribute) is not used on another
 * device.  Skipped on a machine with one GPU. */
static void whole_on_every_gpu(void **s)
{
    (void)s;
    TK_REQUIRE_GPUS(2);
    int count = 0;
    TK_CUDA(cudaGetDeviceCount(&count));
    for (int d = count - 1; d >= 0; d--) {
        TK_CUDA(cudaSetDevice(d));
        for (int f = 0; f < NWHOLE; f++) {
            whole_under_test = whole_fns[f];
            assert_int_equal(check_whole(300007, 0, 0, RTOL, 0), 0);
            assert_int_equal(check_whole(4097, 1, 0, RTOL, 1), 0);
        }
    }
    whole_under_test = softmax_whole;
}

/* The fast probabilities' error grows with the distance from the maximum,
 * (4 + 2.346 t) 2^-24 at distance t: with scores in [-30, 0] and the
 * maximum 0, within 1e-5 relative (t <= 30: 74.4 units, 4.4e-6, and d's
 * own error). */
static void whole_fast_wide_range(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    const size_t n = tk_small() ? 4097 : 300007;
    uint64_t seed = tk_seed(0), st = seed;
    float *x = tk_malloc(n * sizeof *x), *y = tk_malloc(n * sizeof *y);
    tk_fill(x, n, -30, 0, &st);
    x[n / 2] = 0.0f;
    float *dx = tk_dev_floats(n), *dy = tk_dev_floats(n);
    void *work = tk_dev_bytes(SOFTMAX_WORK_BYTES);
    tk_upload(dx, x, n);
    TK_CUDA(softmax_whole_resident_fast(dx, dy, n, work, 0));
    TK_CUDA(cudaDeviceSynchronize());
    tk_download(y, dy, n);
    assert_int_equal(compare_whole(x, y, n, 0, RTOL, seed), 0);
    tk_free(dx); tk_free(dy); tk_free(work);
    free(x); free(y);
}

/* The wrong listing: every chunk of 1024 sums to 1, the array to the
 * number of chunks, and the outputs are wrong. */
static void per_block_sums_to_one_per_block(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    const size_t n = 10000, chunk = 1024;
    uint64_t seed = tk_seed(0), st = seed;
    float *x = tk_malloc(n * sizeof *x), *y = tk_malloc(n * sizeof *y);
    double *ref = tk_malloc(n * sizeof *ref);
    tk_fill(x, n, -10, 10, &st);
    softmax_ref(x, ref, n);
    float *dx = tk_dev_floats(n), *dy = tk_dev_floats(n);
    tk_upload(dx, x, n);
    TK_CUDA(softmax_whole_per_block(dx, dy, n, 0));
    TK_CUDA(cudaDeviceSynchronize());
    tk_download(y, dy, n);
    double total = 0;
    for (size_t b = 0; b < n; b += chunk) {
        double sum = 0;
        for (size_t i = b; i < b + chunk && i < n; i++) sum += y[i];
        assert_true(fabs(sum - 1.0) < 1e-5);
        total += sum;
    }
    assert_true(fabs(total - 10.0) < 1e-4);
    size_t wrong = 0;
    for (size_t i = 0; i < n; i++)
        wrong += !(fabs(y[i] - ref[i]) <= RTOL * ref[i]);
    assert_int_equal(wrong, n);
    tk_free(dx); tk_free(dy);
    free(x); free(y); free(ref);
}

/* On device memory: the overlapping calls of overlap_refused write
 * nothing, and x and y that only touch (y right after x, or right
 * before) are apart: the softmax is right and x is left as it was. */
static void overlap_on_device(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    const size_t rows = 7, cols = 128, n = rows * cols;   /* 16-byte rows */
    uint64_t seed = tk_seed(0), st = seed;
    float *h = tk_malloc(2 * n * sizeof *h);
    float *g = tk_malloc(2 * n * sizeof *g);
    double *ref = tk_malloc(n * sizeof *ref);
    tk_fill(h, 2 * n, -10, 10, &st);
    float *d = tk_dev_floats(2 * n);
    void *work = tk_dev_bytes(SOFTMAX_WORK_BYTES);
    tk_upload(d, h, 2 * n);
    for (int f = 0; f < NFNS; f++) {
        TK_REFUSED(row_fns[f](d, d, rows, cols, 0));
        TK_REFUSED(row_fns[f](d, d + 1, rows, cols, 0));
        TK_REFUSED(row_fns[f](d + n - 1, d, rows, cols, 0));
    }
    for (int f = 0; f < NWHOLE; f++) {
        TK_REFUSED(whole_fns[f](d, d + 4, n, work, 0));
        TK_REFUSED(whole_fns[f](d + n - 1, d, n, work, 0));
    }
    TK_REFUSED(softmax_whole_per_block(d, d + n - 1, n, 0));
    TK_CUDA(cudaDeviceSynchronize());
    tk_download(g, d, 2 * n);
    assert_memory_equal(g, h, 2 * n * sizeof *h);       /* nothing written */
    for (int f = 0; f < NFNS + NWHOLE; f++)
        for (int below = 0; below < 2; below++) {
            const tk_touch t = tk_touching(d, h, n, below);
            const float *hx = t.hx;
            if (f < NFNS) TK_CUDA(row_fns[f](t.x, t.y, rows, cols, 0));
            else TK_CUDA(whole_fns[f - NFNS](t.x, t.y, n, work, 0));
            const float *gy = tk_touched(&t, g);
            if (f >= NFNS) {
                assert_int_equal(compare_whole(hx, gy, n, 0, RTOL, seed), 0);
                continue;
            }
            for (size_t r = 0; r < rows; r++)
                softmax_ref(hx + r * cols, ref + r * cols, cols);
            char what[64];
            snprintf(what, sizeof what, "softmax %s, y %s x", row_names[f],
                     below ? "just below" : "just after");
            assert_int_equal(tk_compare(what, gy, ref, n, ATOL, RTOL, seed),
                             0);
        }
    tk_free(d); tk_free(work);
    free(h); free(g); free(ref);
}

/* ---- GPU: stream order ------------------------------------------------ */

/* Launcher k of the order test: the row launchers (row_fns), the
 * whole-array ones with the tests' _cache settings (whole_fns), then the
 * per-block listing that is wrong on purpose, on stream s. */
#define K_PER_BLOCK (NFNS + NWHOLE)
static cudaError_t order_call(int k, const float *x, float *y, size_t rows,
                              size_t cols, void *work, cudaStream_t s)
{
    if (k < NFNS) return row_fns[k](x, y, rows, cols, s);
    if (k < K_PER_BLOCK)
        return whole_fns[k - NFNS](x, y, rows * cols, work, s);
    return softmax_whole_per_block(x, y, rows * cols, s);
}

/* Launcher k on rows x cols floats (one array for the whole-array ones),
 * queued on a stream held behind a closed gate: y and the work buffer are
 * still the poison when the launcher has returned (a kernel on another
 * stream would have written them), and y is right once the gate opens.
 * A first call on the default stream loads the kernels (loading one may
 * wait for the whole device) and makes the launchers' plans for the
 * device; both buffers are poisoned again after it. */
static void order_case(int k, size_t rows, size_t cols)
{
    uint64_t seed = tk_seed(0), st = seed;
    const size_t n = rows * cols;
    const char *name = k < NFNS          ? row_names[k]
                       : k < K_PER_BLOCK ? whole_names[k - NFNS]
                                         : "per_block";
    float *x = tk_malloc(n * sizeof *x), *y = tk_malloc(n * sizeof *y);
    double *ref = tk_malloc(n * sizeof *ref);
    tk_fill(x, n, -10, 10, &st);
    float *dx = tk_dev_floats(n), *dy = tk_dev_floats(n);
    void *work = tk_dev_bytes(SOFTMAX_WORK_BYTES);
    tk_upload(dx, x, n);
    TK_CUDA(order_call(k, dx, dy, rows, cols, work, 0));
    TK_CUDA(cudaDeviceSynchronize());
    tk_poison(dy, n * sizeof *dy);
    tk_poison(work, SOFTMAX_WORK_BYTES);
    tk_gate g = tk_gate_close();
    cudaError_t e = order_call(k, dx, dy, rows, cols, work, g.s);
    int waited = tk_still_poisoned(dy, n * sizeof *dy) &&
                 tk_still_poisoned(work, SOFTMAX_WORK_BYTES);
    tk_gate_open(&g);
    TK_CUDA(e);
    if (!waited)
        print_error("softmax %s %zux%zu wrote before its stream let it\n",
                    name, rows, cols);
    assert_true(waited);
    tk_download(y, dy, n);
    char what[96];
    snprintf(what, sizeof what, "softmax %s %zux%zu on a gated stream", name,
             rows, cols);
    if (k < NFNS) {
        for (size_t r = 0; r < rows; r++)
            softmax_ref(x + r * cols, ref + r * cols, cols);
        assert_int_equal(tk_compare(what, y, ref, n, ATOL, RTOL, seed), 0);
    } else if (k < K_PER_BLOCK) {
        assert_int_equal(compare_whole(x, y, n, 0, RTOL, seed), 0);
    } else {                  /* wrong on purpose: only that it ran */
        assert_false(tk_still_poisoned(dy, n * sizeof *dy));
    }
    tk_free(dx); tk_free(dy); tk_free(work);
    free(x); free(y); free(ref);
}

/* Every launcher of the chapter queues all its work on the stream it is
 * given: the row launchers at widths that take every path of the cached
 * one (an odd width goes to the float4 kernel, 1024 to a warp per row,
 * 4096 to a block per row), the whole-array ones on 300007 floats. */
static void softmax_launchers_follow_the_stream(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    static const size_t cols[] = {33, 1024, 4096};
    for (int k = 0; k < NFNS; k++)
        for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++)
            order_case(k, 37, cols[c]);
    for (int k = NFNS; k <= K_PER_BLOCK; k++) order_case(k, 1, 300007);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(naive_overflows),
        cmocka_unit_test(ref_edge_semantics),
        cmocka_unit_test(md_identity_is_identity),
        cmocka_unit_test(md_is_associative),
        cmocka_unit_test(md_push_is_combine),
        cmocka_unit_test(md_reduce_any_order),
        cmocka_unit_test(bad_arguments_refused),
        cmocka_unit_test(whole_bad_arguments_refused),
        cmocka_unit_test(work_bytes_is_the_layout),
        cmocka_unit_test(overlap_refused),
        cmocka_unit_test(rows_warp),
        cmocka_unit_test(rows_block),
        cmocka_unit_test(rows_float4),
        cmocka_unit_test(rows_cached),
        cmocka_unit_test(rows_online),
        cmocka_unit_test(rows_cached_async),
        cmocka_unit_test(whole_first_use_from_threads),
        cmocka_unit_test(whole_sizes),
        cmocka_unit_test(whole_edges),
        cmocka_unit_test(whole_2_28),
        cmocka_unit_test(whole_fast_wide_range),
        cmocka_unit_test(per_block_sums_to_one_per_block),
        cmocka_unit_test(overlap_on_device),
        cmocka_unit_test(whole_on_every_gpu),
        cmocka_unit_test(softmax_launchers_follow_the_stream),
    };
    return tk_run_tests("softmax", tests);
}
