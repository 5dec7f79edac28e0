/* test_conv.c -- the convolution chapter's tests: the references' semantics
 * on the CPU (flip, valid and same sizes), every 1D and 2D launcher against
 * the double reference on random inputs over edge sizes and filters, bad
 * arguments, pointers off 16-byte alignment, a size where (n - k + 1) k
 * passes 2^31, inputs and outputs past 2^31 elements in 1D and 2D, the
 * separable Gaussian against the direct kernel, every launcher's stream
 * order (behind a closed gate), and the seed's tiled kernel, wrong on
 * purpose (last: it may leave the context unusable).
 * Tolerance: |got - ref| <= 2 k u sum_j |x w| + 1e-30, u = 2^-24, where k
 * is the number of taps (kh + kw for the separable filter). */
#define _POSIX_C_SOURCE 200809L
#include "testkit.h"
#include "convolution/conv.h"
#include "variants.h"
#include "convolution/conv_ref.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

#define U (1.0 / 16777216.0)
/* Addresses 2^44 bytes apart that no allocation holds, for refusals whose
 * sizes would make any two real buffers overlap: a launcher must refuse
 * them before it touches memory (a launch with them would fault). */
#define FAR(i) ((float *)((uintptr_t)(i) << 44))

/* Elements of got[0..m) that break the bound; prints the first few. */
static size_t check(const char *what, const float *got, const double *ref,
                    const double *abs_, size_t m, double taps, uint64_t seed)
{
    size_t bad = 0;
    for (size_t i = 0; i < m; i++) {
        double tol = 2 * taps * U * abs_[i] + 1e-30;
        if (!(fabs((double)got[i] - ref[i]) <= tol)) {
            if (++bad <= 5)
                print_error("%s: y[%zu] = %.9g, reference %.9g (tol %.3g), "
                            "seed %llu\n", what, i, got[i], ref[i], tol,
                            (unsigned long long)seed);
        }
    }
    return bad;
}

/* ---- CPU -------------------------------------------------------------- */

static void flip_is_convolution(void **s)
{
    (void)s;
    float x[5] = {1, 2, 3, 4, 5}, w[3] = {1, 0, -1}, wr[3] = {-1, 0, 1};
    double full[7], corr[3];
    conv1d_flip_ref(x, 5, w, 3, full);
    conv1d_ref(x, 5, wr, 3, 0, 3, corr, NULL);
    /* The valid part of the convolution is the correlation with the
     * reversed filter: full[i + k - 1] = corr[i]. */
    for (int i = 0; i < 3; i++) assert_true(full[i + 2] == corr[i]);
    conv1d_ref(x, 5, w, 3, 0, 3, corr, NULL);      /* no flip: x0 - x2 */
    for (int i = 0; i < 3; i++) assert_true(corr[i] == -2.0);
    assert_true(full[2] == 2.0);                    /* with flip: x2 - x0 */
    /* Same: n outputs, (k - 1) / 2 zeros on the left. */
    double same[5];
    conv1d_ref(x, 5, w, 3, 1, 5, same, NULL);
    assert_true(same[0] == -2.0 && same[2] == -2.0 && same[4] == 4.0);
    float w4[4] = {1, 1, 1, 1};                     /* even k: pad 1 left */
    conv1d_ref(x, 5, w4, 4, 1, 5, same, NULL);
    assert_true(same[0] == 6.0 && same[3] == 12.0 && same[4] == 9.0);
}

/* ---- 1D ---------------------------------------------------------------- */

#define CONV_TEST_ENTRY(id, name, fn) {name, fn},
static const struct { const char *name; c1_fn fn; } k1[] = {
    CONV1D_VARIANTS(CONV_TEST_ENTRY)
};
#define N1 (sizeof k1 / sizeof k1[0])

/* Run every 1D launcher (and same) on n inputs and k taps, two seeds. */
static void one_case_1d(size_t n, size_t k)
{
    for (int round = 0; round < 2; round++) {
        uint64_t seed = tk_seed(round) ^ (n * 131 + k), st = seed;
        size_t m = k <= n ? n - k + 1 : 0;
        float *x = tk_malloc(n * 4), *w = tk_malloc(k * 4);
        float *y = tk_malloc(n * 4);
        double *ref = tk_malloc(n * 8), *a = tk_malloc(n * 8);
        tk_fill(x, n, -1, 1, &st);
        tk_fill(w, k, -1, 1, &st);
        float *dx = tk_dev_floats(n), *dw = tk_dev_floats(k);
        float *dy = tk_dev_floats(n);
        tk_upload(dx, x, n);
        tk_upload(dw, w, k);
        conv1d_ref(x, n, w, k, 0, m, ref, a);
        for (size_t v = 0; v < N1; v++) {
            char what[96];
            snprintf(what, sizeof what, "%s n=%zu k=%zu", k1[v].name, n, k);
            tk_poison(dy, n * 4);
            TK_CUDA(k1[v].fn(dx, n, dw, k, dy, 0));
            TK_CUDA(cudaDeviceSynchronize());
            tk_download(y, dy, n);
            assert_int_equal(check(what, y, ref, a, m, k, seed), 0);
            for (size_t i = m; i < n; i++) assert_true(isnan(y[i]));
        }
        conv1d_ref(x, n, w, k, (k - 1) / 2, n, ref, a);
        tk_poison(dy, n * 4);
        TK_CUDA(conv1d_same(dx, n, dw, k, dy, 0));
        TK_CUDA(cudaDeviceSynchronize());
        tk_download(y, dy, n);
        assert_int_equal(check("same", y, ref, a, n, k, seed), 0);
        tk_free(dx); tk_free(dw); tk_free(dy);
        free(x); free(w); free(y); free(ref); free(a);
    }
}

static void conv1d_sizes(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    static const size_t ks[] = {1, 2, 3, 4, 7, 16, 17, 31, 32, 33, 48, 100};
    static const size_t ns[] = {1, 2, 31, 33, 257, 1000, 2047, 2049, 4099};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        for (size_t j = 0; j < sizeof ks / sizeof ks[0]; j++)
            one_case_1d(ns[i], ks[j]);
    one_case_1d(5000, 5000);                         /* k = n */
    one_case_1d(5000, 4999);
    one_case_1d(10000, 2047);
    one_case_1d(9000, 8192);                         /* the largest k */
    if (!tk_small()) one_case_1d(1000003, 513);
}

/* The naive launcher takes any k: filters past CONV_MAX_TAPS, which the
 * constant-memory launchers refuse, against the reference (100 outputs
 * under the sanitizer). */
static void conv1d_naive_long_filter(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    static const size_t nk[][2] = {{20000, CONV_MAX_TAPS + 1},
                                   {20000, 12289}, {16385, 16385}};
    for (size_t t = 0; t < sizeof nk / sizeof nk[0]; t++) {
        const size_t k = nk[t][1];
        const size_t n = tk_small() ? k + 99 : nk[t][0], m = n - k + 1;
        uint64_t seed = tk_seed(1) ^ (n * 131 + k), st = seed;
        float *x = tk_malloc(n * 4), *w = tk_malloc(k * 4);
        float *y = tk_malloc((m + 1) * 4);
        double *ref = tk_malloc(m * 8), *a = tk_malloc(m * 8);
        tk_fill(x, n, -1, 1, &st);
        tk_fill(w, k, -1, 1, &st);
        conv1d_ref(x, n, w, k, 0, m, ref, a);
        float *dx = tk_dev_floats(n), *dw = tk_dev_floats(k);
        float *dy = tk_dev_floats(m + 1);
        tk_upload(dx, x, n);
        tk_upload(dw, w, k);
        TK_CUDA(conv1d_naive(dx, n, dw, k, dy, 0));
        TK_CUDA(cudaDeviceSynchronize());
        tk_download(y, dy, m + 1);
        assert_int_equal(check("naive, long filter", y, ref, a, m, k, seed),
                         0);
        assert_true(isnan(y[m]));           /* nothing past the output */
        tk_free(dx); tk_free(dw); tk_free(dy);
        free(x); free(w); free(y); free(ref); free(a);
    }
}

/* k > n: no output, no launch: the output stays poisoned. */
static void conv1d_empty(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    float *dx = tk_dev_floats(8), *dw = tk_dev_floats(9), *dy = tk_dev_floats(8);
    float y[8];
    for (size_t v = 0; v < N1; v++) {
        assert_int_equal(k1[v].fn(dx, 8, dw, 9, dy, 0), cudaSuccess);
        tk_download(y, dy, 8);
        for (int i = 0; i < 8; i++) assert_true(isnan(y[i]));
    }
    tk_free(dx); tk_free(dw); tk_free(dy);
}

/* After refused calls: nothing was launched (no error pending) and the n
 * poisoned floats at d were not written. */
static void refused_wrote_nothing(const float *d, size_t n)
{
    TK_CUDA(cudaGetLastError());
    TK_CUDA(cudaDeviceSynchronize());
    float *h = tk_malloc(n * sizeof *h);
    tk_download(h, d, n);
    for (size_t i = 0; i < n; i++) assert_true(isnan(h[i]));
    free(h);
}

/* The refusals every 1D launcher makes, same included: a null pointer,
 * n or k of 0, n past CONV_MAX_N, a pointer off its alignment, and y
 * overlapping x or w. */
static void conv1d_refuses(c1_fn f, float *dx, float *dw, float *dy)
{
    TK_REFUSED(f(NULL, 100, dw, 3, dy, 0));
    TK_REFUSED(f(dx, 100, NULL, 3, dy, 0));
    TK_REFUSED(f(dx, 100, dw, 3, NULL, 0));
    TK_REFUSED(f(dx, 0, dw, 3, dy, 0));
    TK_REFUSED(f(dx, 100, dw, 0, dy, 0));
    TK_REFUSED(f(dx, CONV_MAX_N + 1, dw, 3, dy, 0));
    TK_REFUSED(f((const float *)((char *)dx + 1), 50, dw, 3, dy, 0));
    TK_REFUSED(f(dx, 50, (const float *)((char *)dw + 2), 3, dy, 0));
    TK_REFUSED(f(dx, 50, dw, 3, (float *)((char *)dy + 1), 0));
    TK_REFUSED(f(dx, 100, dw, 3, dx + 10, 0));  /* overlap */
    TK_REFUSED(f(dx, 100, dw, 3, dw + 2, 0));
    if (f != conv1d_naive)
        TK_REFUSED(f(dx, 100, dw, CONV_MAX_TAPS + 1, dy, 0));
}

static void conv1d_bad_arguments(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    float *dx = tk_dev_floats(100), *dw = tk_dev_floats(CONV_MAX_TAPS + 1);
    float *dy = tk_dev_floats(100);
    for (size_t v = 0; v < N1; v++) conv1d_refuses(k1[v].fn, dx, dw, dy);
    /* same: the same refusals, and its output is n floats, not m. */
    conv1d_refuses(conv1d_same, dx, dw, dy);
    TK_REFUSED(conv1d_same(dx, 100, dw, 3, dx + 99, 0));
    /* x at dx + 60, n = 40, k = 5; y at dx + 22: its m = 36 valid
     * outputs would end 2 floats before x, same's n = 40 end 2 inside. */
    TK_REFUSED(conv1d_same(dx + 60, 40, dw, 5, dx + 22, 0));
    refused_wrote_nothing(dy, 100);
    tk_free(dx); tk_free(dw); tk_free(dy);
}

/* Pointers one float off 16-byte alignment are fine. */
static void conv1d_offset_pointers(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    const size_t n = 3001, k = 45, m = n - k + 1;
    uint64_t seed = tk_seed(1), st = seed;
    float *x = tk_malloc(n * 4), *w = tk_malloc(k * 4), *y = tk_malloc(m * 4);
    double *ref = tk_malloc(m * 8), *a = tk_malloc(m * 8);
    tk_fill(x, n, -1, 1, &st);
    tk_fill(w, k, -1, 1, &st);
    conv1d_ref(x, n, w, k, 0, m, ref, a);
    float *dx = tk_dev_floats(n + 1), *dw = tk_dev_floats(k + 3);
    float *dy = tk_dev_floats(m + 2);
    tk_upload(dx + 1, x, n);
    tk_upload(dw + 3, w, k);
    for (size_t v = 0; v < N1; v++) {
        tk_poison(dy, (m + 2) * 4);
        TK_CUDA(k1[v].fn(dx + 1, n, dw + 3, k, dy + 1, 0));
        TK_CUDA(cudaDeviceSynchronize());
        tk_download(y, dy + 1, m);
        assert_int_equal(check(k1[v].name, y, ref, a, m, k, seed), 0);
    }
    tk_free(dx); tk_free(dw); tk_free(dy);
    free(x); free(w); free(y); free(ref); free(a);
}

/* (n - k + 1) k = 2^20 * 4096 = 2^32 multiply-adds: 32-bit products of
 * the two would wrap.  Checked at 4096 sampled outputs and both ends. */
static void conv1d_product_past_2_31(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    TK_SKIP_UNDER_SANITIZER("2^32 multiply-adds are too slow under the tool");
    const size_t k = 4096, m = (size_t)1 << 20, n = m + k - 1;
    uint64_t seed = tk_seed(0), st = seed;
    float *x = tk_malloc(n * 4), *w = tk_malloc(k * 4), *y = tk_malloc(m * 4);
    tk_fill(x, n, -1, 1, &st);
    tk_fill(w, k, -1, 1, &st);
    float *dx = tk_dev_floats(n), *dw = tk_dev_floats(k), *dy = tk_dev_floats(m);
    tk_upload(dx, x, n);
    tk_upload(dw, w, k);
    for (size_t v = 0; v < N1; v++) {
        tk_poison(dy, m * 4);
        TK_CUDA(k1[v].fn(dx, n, dw, k, dy, 0));
        TK_CUDA(cudaDeviceSynchronize());
        tk_download(y, dy, m);
        size_t bad = 0;
        for (size_t t = 0; t < 4098; t++) {
            size_t i = t == 4096 ? 0 : t == 4097 ? m - 1 : tk_next(&st) % m;
            double r, a;
            r = conv2d_ref_at(x + i, n, w, 1, k, 0, 0, &a);
            bad += check(k1[v].name, y + i, &r, &a, 1, k, seed);
        }
        assert_int_equal(bad, 0);
    }
    tk_free(dx); tk_free(dw); tk_free(dy);
    free(x); free(w); free(y);
}

/* ---- past 2^31 elements ------------------------------------------------ */

/* The inputs past 2^31 elements are too large to keep on the host: x[i]
 * is a hash of i (splitmix64's finalizer of i and a salt, a bijection of
 * the 64-bit index), in [-1, 1) with 24 bits, so the reference can make
 * any stretch of x again, and an index that wrapped at 2^31 or 2^32 (or
 * a byte offset at 2^31 or 2^32) reads other values. */
static float hashed(uint64_t i, uint64_t salt)
{
    uint64_t z = i * 0x9E3779B97F4A7C15ull + salt;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (float)((int64_t)(z >> 40) - (1 << 23)) * (1.0f / 8388608.0f);
}

/* x[0..n) = hashed(i, salt) on the device, made and uploaded in chunks. */
static void upload_hashed(float *dx, size_t n, uint64_t salt)
{
    const size_t chunk = (size_t)1 << 24;
    float *h = tk_malloc(chunk * 4);
    for (size_t i0 = 0; i0 < n; i0 += chunk) {
        size_t c = n - i0 < chunk ? n - i0 : chunk;
        for (size_t i = 0; i < c; i++) h[i] = hashed(i0 + i, salt);
        tk_upload(dx + i0, h, c);
    }
    free(h);
}

/* Blocks of 4096 of the m outputs of a 1D result: the first, the last,
 * those whose windows reach x[2^31], those around y[2^31], and those at
 * elements 2^29 and 2^30 (byte offsets 2^31 and 2^32); then the float
 * after the output, still NaN. */
static size_t check_blocks_1d(const char *what, const float *dy, size_t m,
                              size_t n, const float *w, size_t k, size_t pad,
                              uint64_t salt, uint64_t seed)
{
    enum { B = 4096 };
    const size_t e31 = (size_t)1 << 31;
    const size_t at[] = {0, m - B, e31 - k + 1 - B / 2, e31 - B / 2,
                         ((size_t)1 << 29) - B / 2, ((size_t)1 << 30) - B / 2};
    static float y[B], xs[B + CONV_MAX_TAPS];
    static double ref[B], a[B];
    size_t bad = 0;
    for (size_t b = 0; b < sizeof at / sizeof at[0]; b++) {
        size_t i0 = at[b] < m - B ? at[b] : m - B;
        tk_download(y, dy + i0, B);
        /* Output i reads x[i - pad + j], j < k; zeros outside [0, n). */
        for (size_t j = 0; j < B + k - 1; j++) {
            size_t q = i0 + j;
            xs[j] = q < pad || q - pad >= n ? 0.0f : hashed(q - pad, salt);
        }
        conv1d_ref(xs, B + k - 1, w, k, 0, B, ref, a);
        size_t c = check(what, y, ref, a, B, k, seed);
        if (c) print_error("%s: %zu wrong in the block from y[%zu]\n", what,
                           c, i0);
        bad += c;
    }
    float after;
    tk_download(&after, dy + m, 1);
    if (!isnan(after)) {
        print_error("%s: y[%zu], past the output, = %.9g\n", what, m, after);
        bad++;
    }
    return bad;
}

/* n = 2^31 + 4099 inputs, k = 33 taps: every 1D launcher and same (the
 * header accepts n up to CONV_MAX_N = 2^38 and k up to CONV_MAX_TAPS for
 * all of them, so none refuses).  One x serves every launcher.  17.2 GB of
 * GPU memory. */
static void conv1d_past_2_31(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    TK_SKIP_UNDER_SANITIZER("2^31 elements are too many for the sanitizer's runs");
    const size_t n = ((size_t)1 << 31) + 4099, k = 33, m = n - k + 1;
    TK_REQUIRE_DEVICE_BYTES(2 * 4 * n + ((size_t)1 << 28));
    uint64_t seed = tk_seed(0), st = seed, salt = tk_next(&st);
    float w[33];
    tk_fill(w, k, -1, 1, &st);
    float *dx = tk_dev_floats(n), *dw = tk_dev_floats(k);
    float *dy = tk_dev_floats(n + 1);
    upload_hashed(dx, n, salt);
    tk_upload(dw, w, k);
    size_t bad = 0;
    for (size_t v = 0; v < N1; v++) {
        char what[96];
        snprintf(what, sizeof what, "%s n=2^31+4099 k=33", k1[v].name);
        tk_poison(dy, (n + 1) * 4);
        TK_CUDA(k1[v].fn(dx, n, dw, k, dy, 0));
        TK_CUDA(cudaDeviceSynchronize());
        bad += check_blocks_1d(what, dy, m, n, w, k, 0, salt, seed);
    }
    tk_poison(dy, (n + 1) * 4);
    TK_CUDA(conv1d_same(dx, n, dw, k, dy, 0));
    TK_CUDA(cudaDeviceSynchronize());
    bad += check_blocks_1d("same n=2^31+4099 k=33", dy, n, n, w, k,
                           (k - 1) / 2, salt, seed);
    assert_int_equal(bad, 0);
    tk_free(dx); tk_free(dw); tk_free(dy);
}

/* ---- 2D ---------------------------------------------------------------- */

static const struct { const char *name; c2_fn fn; } k2[] = {
    CONV2D_VARIANTS(CONV_TEST_ENTRY)
};
#define N2 (sizeof k2 / sizeof k2[0])

static void one_case_2d(size_t h, size_t w, size_t kh, size_t kw)
{
    uint64_t seed = tk_seed(1) ^ (h * 7 + w * 131 + kh * 17 + kw), st = seed;
    size_t ho = kh <= h && kw <= w ? h - kh + 1 : 0;
    size_t wo = ho ? w - kw + 1 : 0, hw = h * w;
    float *x = tk_malloc(hw * 4), *f = tk_malloc(kh * kw * 4);
    float *y = tk_malloc(hw * 4);
    double *ref = tk_malloc(hw * 8 + 8), *a = tk_malloc(hw * 8 + 8);
    tk_fill(x, hw, -1, 1, &st);
    tk_fill(f, kh * kw, -1, 1, &st);
    for (size_t r = 0; r < ho; r++)
        for (size_t c = 0; c < wo; c++)
            ref[r * wo + c] = conv2d_ref_at(x, w, f, kh, kw, r, c,
                                            &a[r * wo + c]);
    float *dx = tk_dev_floats(hw), *df = tk_dev_floats(kh * kw);
    float *dy = tk_dev_floats(hw);
    tk_upload(dx, x, hw);
    tk_upload(df, f, kh * kw);
    for (size_t v = 0; v < N2; v++) {
        char what[96];
        snprintf(what, sizeof what, "%s %zux%zu, %zux%zu", k2[v].name, h, w,
                 kh, kw);
        tk_poison(dy, hw * 4);
        TK_CUDA(k2[v].fn(dx, h, w, df, kh, kw, dy, 0));
        TK_CUDA(cudaDeviceSynchronize());
        tk_download(y, dy, hw);
        assert_int_equal(check(what, y, ref, a, ho * wo, kh * kw, seed), 0);
        for (size_t i = ho * wo; i < hw; i++) assert_true(isnan(y[i]));
    }
    tk_free(dx); tk_free(df); tk_free(dy);
    free(x); free(f); free(y); free(ref); free(a);
}

static void conv2d_sizes(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    static const size_t hw[][2] = {{1, 1}, {1, 37}, {37, 1}, {9, 33},
                                   {33, 257}, {100, 301}, {257, 33},
                                   {40, 520}};
    static const size_t kk[][2] = {{1, 1}, {2, 2}, {3, 3}, {5, 5}, {4, 7},
                                   {7, 4}, {15, 15}, {16, 17}, {31, 31},
                                   {32, 32}, {1, 31}, {31, 1}};
    for (size_t i = 0; i < sizeof hw / sizeof hw[0]; i++)
        for (size_t j = 0; j < sizeof kk / sizeof kk[0]; j++)
            one_case_2d(hw[i][0], hw[i][1], kk[j][0], kk[j][1]);
    one_case_2d(31, 31, 31, 31);                   /* k = n: one output */
    one_case_2d(32, 100, 32, 5);                   /* kh = h */
    one_case_2d(20, 30, 5, 31);                    /* kw > w: empty */
    one_case_2d(20, 30, 31, 5);                    /* kh > h: empty */
    /* Widths that are multiples of 4, so that rows takes its float4
     * paths, with wo a multiple of 4 (kw = 1, 5, 13) or not, and the
     * halo chunk of the last block partly or wholly past the image. */
    static const size_t v4[][4] = {{33, 1028, 5, 5}, {17, 260, 13, 13},
                                   {50, 512, 3, 1}, {19, 264, 2, 9},
                                   {70, 520, 32, 32}, {16, 256, 1, 1}};
    for (size_t i = 0; i < sizeof v4 / sizeof v4[0]; i++)
        one_case_2d(v4[i][0], v4[i][1], v4[i][2], v4[i][3]);
    /* Every filter width rows has an instance for, odd and even heights. */
    for (size_t kw = 1; kw <= CONV2D_MAX_K; kw++)
        one_case_2d(45, 300 + (kw & 3), 1 + kw % 7, kw);
    if (!tk_small()) {
        one_case_2d(515, 1031, 15, 15);
        one_case_2d(300, 2048, 5, 5);              /* float4, many blocks */
    }
}

static void conv2d_bad_arguments(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    float *dx = tk_dev_floats(4096), *df = tk_dev_floats(33 * 33);
    float *dy = tk_dev_floats(4096);
    for (size_t v = 0; v < N2; v++) {
        c2_fn f = k2[v].fn;
        TK_REFUSED(f(NULL, 64, 64, df, 3, 3, dy, 0));
        TK_REFUSED(f(dx, 64, 64, NULL, 3, 3, dy, 0));
        TK_REFUSED(f(dx, 64, 64, df, 3, 3, NULL, 0));
        TK_REFUSED(f(dx, 0, 64, df, 3, 3, dy, 0));
        TK_REFUSED(f(dx, 64, 0, df, 3, 3, dy, 0));
        TK_REFUSED(f(dx, 64, 64, df, 0, 3, dy, 0));
        TK_REFUSED(f(dx, 64, 64, df, 3, 0, dy, 0));
        TK_REFUSED(f(dx, CONV2D_MAX_ROWS + 3, 1, df, 3, 1, dy, 0));
        TK_REFUSED(f(dx, CONV_MAX_N, 2, df, 3, 1, dy, 0));
        TK_REFUSED(f(dx, 1, CONV2D_MAX_COLS + 1, df, 1, 1, dy, 0));
        TK_REFUSED(f((const float *)((char *)dx + 2), 8, 8, df, 3, 3, dy, 0));
        TK_REFUSED(f(dx, 8, 8, (const float *)((char *)df + 2), 3, 3, dy, 0));
        TK_REFUSED(f(dx, 8, 8, df, 3, 3, (float *)((char *)dy + 2), 0));
        TK_REFUSED(f(dx, 8, 8, (const float *)((char *)df + 1), 3, 3,
                     (float *)((char *)dy + 3), 0));
        TK_REFUSED(f(dx, 64, 64, df, 3, 3, dx + 5, 0));
        TK_REFUSED(f(dx, 64, 64, df, 3, 3, df + 2, 0));
        if (f != conv2d_naive) {
            TK_REFUSED(f(dx, 64, 64, df, 33, 3, dy, 0));
            TK_REFUSED(f(dx, 64, 64, df, 3, 33, dy, 0));
        }
    }
    /* The seed's launcher (wrong only in its launch) checks the same, for
     * a square k <= 32, and two limits of its own: int indices (h w <=
     * INT32_MAX) and a grid of at most 65535 rows of blocks of 33 - k
     * output rows.  Those two are tried on addresses that no buffer holds,
     * 2^44 bytes apart, so that no overlap can be the reason; it must
     * refuse before it touches them. */
    TK_REFUSED(conv2d_tiled_seed(NULL, 64, 64, df, 3, dy, 0));
    TK_REFUSED(conv2d_tiled_seed(dx, 64, 64, NULL, 3, dy, 0));
    TK_REFUSED(conv2d_tiled_seed(dx, 64, 64, df, 3, NULL, 0));
    TK_REFUSED(conv2d_tiled_seed(dx, 0, 64, df, 3, dy, 0));
    TK_REFUSED(conv2d_tiled_seed(dx, 64, 0, df, 3, dy, 0));
    TK_REFUSED(conv2d_tiled_seed(dx, 64, 64, df, 0, dy, 0));
    TK_REFUSED(conv2d_tiled_seed(dx, 64, 64, df, 33, dy, 0));
    TK_REFUSED(conv2d_tiled_seed(dx, CONV2D_MAX_ROWS + 3, 3, df, 3, dy, 0));
    TK_REFUSED(conv2d_tiled_seed(dx, CONV_MAX_N, 2, df, 1, dy, 0));
    TK_REFUSED(conv2d_tiled_seed(dx, 1, CONV2D_MAX_COLS + 1, df, 1, dy, 0));
    TK_REFUSED(conv2d_tiled_seed((const float *)((char *)dx + 2), 8, 8,
                                 df, 3, dy, 0));
    TK_REFUSED(conv2d_tiled_seed(dx, 8, 8,
                                 (const float *)((char *)df + 2), 3, dy,
                                 0));
    TK_REFUSED(conv2d_tiled_seed(dx, 8, 8, df, 3,
                                 (float *)((char *)dy + 2), 0));
    TK_REFUSED(conv2d_tiled_seed(dx, 64, 64, df, 3, dx + 5, 0));
    TK_REFUSED(conv2d_tiled_seed(dx, 64, 64, df, 3, df + 2, 0));
    TK_REFUSED(conv2d_tiled_seed(FAR(1), 46341, 46341, FAR(2), 5,
                                 FAR(3), 0)); /* h w > 2^31 - 1 */
    TK_REFUSED(conv2d_tiled_seed(FAR(1), 65567, 32, FAR(2), 32,
                                 FAR(3), 0)); /* 65536 grid rows */
    refused_wrote_nothing(dy, 4096);
    tk_free(dx); tk_free(df); tk_free(dy);
}

/* Every refusal of conv2d_separable: a null or misaligned pointer among
 * its five, a zero size, h w above CONV_MAX_N, more than CONV2D_MAX_ROWS
 * rows in its first pass (h, even with a short output), more than
 * CONV2D_MAX_COLS output columns, and an overlap of y or work with any
 * other buffer (y one float into frow's kw floats, or into work).  The
 * wide filters it takes are tested in separable_wide_filters. */
static void separable_bad_arguments(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    float *dx = tk_dev_floats(4096), *dc = tk_dev_floats(64);
    float *dr = tk_dev_floats(64), *dw = tk_dev_floats(4096);
    float *dy = tk_dev_floats(4096);
#define SEP(x, h, w, c, kh, r, kw, wk, y) \
    TK_REFUSED(conv2d_separable(x, h, w, c, kh, r, kw, wk, y, 0))
    SEP(NULL, 64, 64, dc, 3, dr, 5, dw, dy);
    SEP(dx, 64, 64, NULL, 3, dr, 5, dw, dy);
    SEP(dx, 64, 64, dc, 3, NULL, 5, dw, dy);
    SEP(dx, 64, 64, dc, 3, dr, 5, NULL, dy);
    SEP(dx, 64, 64, dc, 3, dr, 5, dw, NULL);
    SEP((const float *)((char *)dx + 2), 64, 64, dc, 3, dr, 5, dw, dy);
    SEP(dx, 64, 64, (const float *)((char *)dc + 2), 3, dr, 5, dw, dy);
    SEP(dx, 64, 64, dc, 3, (const float *)((char *)dr + 2), 5, dw, dy);
    SEP(dx, 64, 64, dc, 3, dr, 5, (float *)((char *)dw + 2), dy);
    SEP(dx, 64, 64, dc, 3, dr, 5, dw, (float *)((char *)dy + 2));
    SEP(dx, 0, 64, dc, 3, dr, 5, dw, dy);
    SEP(dx, 64, 0, dc, 3, dr, 5, dw, dy);
    SEP(dx, 64, 64, dc, 0, dr, 5, dw, dy);
    SEP(dx, 64, 64, dc, 3, dr, 0, dw, dy);
    SEP(dx, CONV_MAX_N, 2, dc, 1, dr, 1, dw, dy);
    SEP(dx, CONV2D_MAX_ROWS + 1, 1, dc, 9, dr, 1, dw, dy);
    SEP(dx, 1, CONV2D_MAX_COLS + 1, dc, 1, dr, 1, dw, dy);
    SEP(dx, 64, 64, dc, 3, dr, 5, dw, dx + 7);       /* y and x */
    SEP(dx, 64, 64, dc, 3, dr, 5, dw, dc + 2);       /* y and fcol */
    SEP(dx, 64, 64, dc, 3, dr, 5, dw, dr + 4);       /* y and frow */
    SEP(dx, 64, 64, dc, 3, dr, 5, dw, dw + 100);     /* y and work */
    SEP(dx, 64, 64, dc, 3, dr, 5, dy, dy);
    SEP(dx, 64, 64, dc, 3, dr, 5, dx + 9, dy);       /* work and x */
    SEP(dx, 64, 64, dc, 3, dr, 5, dc + 1, dy);       /* work and fcol */
    SEP(dx, 64, 64, dc, 3, dr, 5, dr + 4, dy);       /* work and frow */
    SEP(dx, 64, 64, dc, 3, dr, 5, dy + 100, dy);     /* work and y */
#undef SEP
    refused_wrote_nothing(dy, 4096);
    refused_wrote_nothing(dw, 4096);
    tk_free(dx); tk_free(dc); tk_free(dr); tk_free(dw); tk_free(dy);
}

/* Pointers 4 bytes off 16-byte alignment, with widths that are multiples
 * of 4 (so only the pointers keep rows off its float4 paths): input off,
 * output off, both off. */
static void conv2d_offset_pointers(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    const size_t h = 37, w = 516, kh = 5, kw = 5, ho = h - kh + 1;
    const size_t wo = w - kw + 1, hw = h * w;
    uint64_t seed = tk_seed(1), st = seed;
    float *x = tk_malloc(hw * 4), *f = tk_malloc(kh * kw * 4);
    float *y = tk_malloc(ho * wo * 4);
    double *ref = tk_malloc(ho * wo * 8), *a = tk_malloc(ho * wo * 8);
    tk_fill(x, hw, -1, 1, &st);
    tk_fill(f, kh * kw, -1, 1, &st);
    for (size_t r = 0; r < ho; r++)
        for (size_t c = 0; c < wo; c++)
            ref[r * wo + c] = conv2d_ref_at(x, w, f, kh, kw, r, c,
                                            &a[r * wo + c]);
    float *dx = tk_dev_floats(hw + 1), *df = tk_dev_floats(kh * kw + 1);
    float *dy = tk_dev_floats(ho * wo + 4);
    static const int offs[][2] = {{1, 0}, {0, 1}, {1, 3}};
    for (size_t o = 0; o < 3; o++) {
        int xo = offs[o][0], yo = offs[o][1];
        tk_upload(dx + xo, x, hw);
        tk_upload(df + 1, f, kh * kw);
        for (size_t v = 0; v < N2; v++) {
            char what[96];
            snprintf(what, sizeof what, "%s x+%d y+%d", k2[v].name, xo, yo);
            tk_poison(dy, (ho * wo + 4) * 4);
            TK_CUDA(k2[v].fn(dx + xo, h, w, df + 1, kh, kw, dy + yo, 0));
            TK_CUDA(cudaDeviceSynchronize());
            tk_download(y, dy + yo, ho * wo);
            assert_int_equal(check(what, y, ref, a, ho * wo, kh * kw, seed), 0);
            float edge[2];                  /* the floats around y */
            tk_download(edge, dy, 1);
            tk_download(edge + 1, dy + yo + ho * wo, 1);
            assert_true((yo == 0 || isnan(edge[0])) && isnan(edge[1]));
        }
    }
    tk_free(dx); tk_free(df); tk_free(dy);
    free(x); free(f); free(y); free(ref); free(a);
}

/* Buffers back to back in one allocation, each starting where the one
 * before ends, touch but do not overlap: every launcher must take them.
 * 1D: w (k floats), then y (m floats, n for same), then x; 2D: f, y, x.
 * The inputs are unchanged afterwards, and y is right. */
static void conv_adjacent_buffers(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    const size_t n = 777, k = 19, m = n - k + 1;
    uint64_t seed = tk_seed(1), st = seed;
    float *x = tk_malloc(n * 4), *w = tk_malloc(k * 4), *y = tk_malloc(n * 4);
    float *back = tk_malloc(n * 4);
    double *ref = tk_malloc(n * 8), *a = tk_malloc(n * 8);
    tk_fill(x, n, -1, 1, &st);
    tk_fill(w, k, -1, 1, &st);
    for (int same = 0; same < 2; same++) {
        size_t ny = same ? n : m;
        float *d = tk_dev_floats(k + ny + n), *dw = d, *dy = d + k;
        float *dx = dy + ny;
        tk_upload(dw, w, k);
        tk_upload(dx, x, n);
        conv1d_ref(x, n, w, k, same ? (k - 1) / 2 : 0, ny, ref, a);
        for (size_t v = 0; v < (same ? 1 : N1); v++) {
            tk_poison(dy, ny * 4);
            TK_CUDA(same ? conv1d_same(dx, n, dw, k, dy, 0)
                         : k1[v].fn(dx, n, dw, k, dy, 0));
            TK_CUDA(cudaDeviceSynchronize());
            tk_download(y, dy, ny);
            assert_int_equal(check(same ? "same" : k1[v].name, y, ref, a, ny,
                                   k, seed), 0);
            tk_download(back, dw, k);
            assert_memory_equal(back, w, k * 4);
            tk_download(back, dx, n);
            assert_memory_equal(back, x, n * 4);
        }
        tk_free(d);
    }
    free(x); free(w); free(y); free(back); free(ref); free(a);
    /* 2D, each direct launcher: f (kh x kw), y (ho x wo), x (h x w). */
    const size_t h = 23, wd = 41, kh = 4, kw = 6, ho = h - kh + 1;
    const size_t wo = wd - kw + 1, hw = h * wd;
    x = tk_malloc(hw * 4); w = tk_malloc(kh * kw * 4);
    y = tk_malloc(ho * wo * 4); back = tk_malloc(hw * 4);
    ref = tk_malloc(ho * wo * 8); a = tk_malloc(ho * wo * 8);
    tk_fill(x, hw, -1, 1, &st);
    tk_fill(w, kh * kw, -1, 1, &st);
    for (size_t r = 0; r < ho; r++)
        for (size_t c = 0; c < wo; c++)
            ref[r * wo + c] = conv2d_ref_at(x, wd, w, kh, kw, r, c,
                                            &a[r * wo + c]);
    float *d = tk_dev_floats(kh * kw + ho * wo + hw), *df = d;
    float *dy = d + kh * kw, *dx = dy + ho * wo;
    tk_upload(df, w, kh * kw);
    tk_upload(dx, x, hw);
    for (size_t v = 0; v < N2; v++) {
        tk_poison(dy, ho * wo * 4);
        TK_CUDA(k2[v].fn(dx, h, wd, df, kh, kw, dy, 0));
        TK_CUDA(cudaDeviceSynchronize());
        tk_download(y, dy, ho * wo);
        assert_int_equal(check(k2[v].name, y, ref, a, ho * wo, kh * kw, seed),
                         0);
        tk_download(back, df, kh * kw);
        assert_memory_equal(back, w, kh * kw * 4);
        tk_download(back, dx, hw);
        assert_memory_equal(back, x, hw * 4);
    }
    tk_free(d);
    free(x); free(w); free(y); free(back); free(ref); free(a);
}

/* Whole output rows of a 2D result at h x w past 2^31 elements: the
 * first and last four, those that read the row of x[2^31] or hold
 * y[2^31], and those at elements 2^29 and 2^30 of x and of y; each
 * row to its right edge.  Then the float after y, still NaN. */
static size_t check_rows_2d(const char *what, const float *dy, size_t h,
                            size_t w, const float *f, size_t kh, size_t kw,
                            uint64_t salt, double taps, uint64_t seed)
{
    const size_t ho = h - kh + 1, wo = w - kw + 1;
    const size_t e[3] = {(size_t)1 << 29, (size_t)1 << 30, (size_t)1 << 31};
    size_t rows[40], nr = 0;
    for (size_t r = 0; r < 4; r++) { rows[nr++] = r; rows[nr++] = ho - 1 - r; }
    for (size_t t = 0; t < 3; t++) {
        size_t rx = e[t] / w, ry = e[t] / wo;      /* rows of x, of y */
        rows[nr++] = rx >= kh - 1 ? rx - (kh - 1) : 0; /* first to read rx */
        rows[nr++] = rx - 1 < ho ? rx - 1 : ho - 1;
        rows[nr++] = rx < ho ? rx : ho - 1;          /* last to read rx */
        for (size_t d = 0; d < 3; d++)
            rows[nr++] = ry - 1 + d < ho ? ry - 1 + d : ho - 1;
    }
    float *y = tk_malloc(wo * 4), *xs = tk_malloc(kh * w * 4);
    double *ref = tk_malloc(wo * 8), *a = tk_malloc(wo * 8);
    size_t bad = 0;
    for (size_t t = 0; t < nr; t++) {
        size_t r = rows[t];
        tk_download(y, dy + r * wo, wo);
        for (size_t i = 0; i < kh * w; i++) xs[i] = hashed(r * w + i, salt);
        for (size_t c = 0; c < wo; c++)
            ref[c] = conv2d_ref_at(xs, w, f, kh, kw, 0, c, &a[c]);
        size_t b = check(what, y, ref, a, wo, taps, seed);
        if (b) print_error("%s: %zu wrong in output row %zu\n", what, b, r);
        bad += b;
    }
    float after;
    tk_download(&after, dy + ho * wo, 1);
    if (!isnan(after)) {
        print_error("%s: y[%zu], past the output, = %.9g\n", what, ho * wo,
                    after);
        bad++;
    }
    free(y); free(xs); free(ref); free(a);
    return bad;
}

/* h x w = 32800 x 65537 (not a multiple of 4: rows takes its scalar
 * loads), 5 x 5: x has 2^31 + 2129952 elements and y, 32796 x 65533,
 * 2^31 + 1736620.  The header accepts it for every 2D
 * launcher (h w <= CONV_MAX_N, 32796 rows <= CONV2D_MAX_ROWS), so all four
 * run, and the separable filter with work of h x 65533.  25.8 GB of GPU
 * memory at the most. */
static void conv2d_past_2_31(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    TK_SKIP_UNDER_SANITIZER("2^31 elements are too many for the sanitizer's runs");
    const size_t h = 32800, w = 65537, kh = 5, kw = 5;
    const size_t hw = h * w, ho = h - kh + 1, wo = w - kw + 1;
    TK_REQUIRE_DEVICE_BYTES(4 * (hw + 2 * h * wo + 1) + ((size_t)1 << 28));
    uint64_t seed = tk_seed(0), st = seed, salt = tk_next(&st);
    float f[25], fc[5], fr[5];
    tk_fill(f, kh * kw, -1, 1, &st);
    float *dx = tk_dev_floats(hw), *df = tk_dev_floats(kh * kw);
    float *dy = tk_dev_floats(ho * wo + 1);
    upload_hashed(dx, hw, salt);
    tk_upload(df, f, kh * kw);
    size_t bad = 0;
    for (size_t v = 0; v < N2; v++) {
        char what[96];
        snprintf(what, sizeof what, "%s 32800x65537, 5x5", k2[v].name);
        tk_poison(dy, (ho * wo + 1) * 4);
        TK_CUDA(k2[v].fn(dx, h, w, df, kh, kw, dy, 0));
        TK_CUDA(cudaDeviceSynchronize());
        bad += check_rows_2d(what, dy, h, w, f, kh, kw, salt, kh * kw, seed);
    }
    /* Separable: the reference's filter is fc_i fr_j rounded to float
     * (within u |f_ij|), as in separable_matches_direct. */
    tk_fill(fc, kh, -1, 1, &st);
    tk_fill(fr, kw, -1, 1, &st);
    for (size_t i = 0; i < kh; i++)
        for (size_t j = 0; j < kw; j++) f[i * kw + j] = fc[i] * fr[j];
    float *dfc = tk_dev_floats(kh), *dfr = tk_dev_floats(kw);
    float *dwork = tk_dev_floats(h * wo);
    tk_upload(dfc, fc, kh);
    tk_upload(dfr, fr, kw);
    tk_poison(dy, (ho * wo + 1) * 4);
    TK_CUDA(conv2d_separable(dx, h, w, dfc, kh, dfr, kw, dwork, dy, 0));
    TK_CUDA(cudaDeviceSynchronize());
    bad += check_rows_2d("separable 32800x65537, 5x5", dy, h, w, f, kh, kw,
                         salt, kh + kw + 1, seed);
    assert_int_equal(bad, 0);
    tk_free(dx); tk_free(df); tk_free(dy);
    tk_free(dfc); tk_free(dfr); tk_free(dwork);
}

/* A normalized Gaussian of k taps, sigma = k / 6. */
static void gaussian(float *g, size_t k)
{
    double sum = 0, c = (k - 1) / 2.0, sg = k / 6.0;
    for (size_t i = 0; i < k; i++) sum += exp(-(i - c) * (i - c) / (2 * sg * sg));
    for (size_t i = 0; i < k; i++)
        g[i] = (float)(exp(-(i - c) * (i - c) / (2 * sg * sg)) / sum);
}

/* The separable blur matches the direct kernel with the outer-product
 * filter, and the reference. */
static void separable_matches_direct(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    static const size_t cases[][3] = {{300, 517, 31}, {64, 64, 5},
                                      {40, 33, 1}, {33, 40, 32}, {31, 100, 31}};
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        size_t h = cases[t][0], w = cases[t][1], k = cases[t][2];
        size_t ho = h - k + 1, wo = w - k + 1, hw = h * w;
        uint64_t seed = tk_seed(0) ^ t, st = seed;
        float *x = tk_malloc(hw * 4), *g = tk_malloc(k * 4);
        float *f = tk_malloc(k * k * 4), *y = tk_malloc(hw * 4);
        float *yd = tk_malloc(hw * 4);
        double *ref = tk_malloc(hw * 8), *a = tk_malloc(hw * 8);
        tk_fill(x, hw, -1, 1, &st);
        gaussian(g, k);
        for (size_t i = 0; i < k; i++)
            for (size_t j = 0; j < k; j++) f[i * k + j] = g[i] * g[j];
        for (size_t r = 0; r < ho; r++)
            for (size_t c = 0; c < wo; c++)
                ref[r * wo + c] = conv2d_ref_at(x, w, f, k, k, r, c,
                                                &a[r * wo + c]);
        float *dx = tk_dev_floats(hw), *dg = tk_dev_floats(k);
        float *df = tk_dev_floats(k * k), *dy = tk_dev_floats(hw);
        float *dwork = tk_dev_floats(h * wo);
        tk_upload(dx, x, hw);
        tk_upload(dg, g, k);
        tk_upload(df, f, k * k);
        TK_CUDA(conv2d_separable(dx, h, w, dg, k, dg, k, dwork, dy, 0));
        TK_CUDA(cudaDeviceSynchronize());
        tk_download(y, dy, ho * wo);
        TK_CUDA(conv2d_blocked(dx, h, w, df, k, k, dy, 0));
        TK_CUDA(cudaDeviceSynchronize());
        tk_download(yd, dy, ho * wo);
        /* g_i g_j rounded to float differs from f_ij by at most u |f_ij|. */
        assert_int_equal(check("separable", y, ref, a, ho * wo, 2 * k + 1,
                               seed), 0);
        assert_int_equal(check("direct", yd, ref, a, ho * wo, k * k, seed), 0);
        tk_free(dx); tk_free(dg); tk_free(df); tk_free(dy); tk_free(dwork);
        free(x); free(g); free(f); free(y); free(yd); free(ref); free(a);
    }
}

/* The separable filter's reference in double, from its two factors: t =
 * each row of x times fr (h x wo), then y = each column of t times fc;
 * a gets sum_ij |x fc_i fr_j|, the sum of the error bound. */
static void separable_ref(const float *x, size_t h, size_t w,
                          const float *fc, size_t kh, const float *fr,
                          size_t kw, double *y, double *a)
{
    const size_t ho = h - kh + 1, wo = w - kw + 1;
    double *t = tk_malloc(h * wo * 8), *ta = tk_malloc(h * wo * 8);
    for (size_t r = 0; r < h; r++)
        for (size_t c = 0; c < wo; c++) {
            double sum = 0, b = 0;
            for (size_t j = 0; j < kw; j++) {
                double p = (double)x[r * w + c + j] * fr[j];
                sum += p;
                b += fabs(p);
            }
            t[r * wo + c] = sum;
            ta[r * wo + c] = b;
        }
    for (size_t r = 0; r < ho; r++)
        for (size_t c = 0; c < wo; c++) {
            double sum = 0, b = 0;
            for (size_t i = 0; i < kh; i++) {
                sum += fc[i] * t[(r + i) * wo + c];
                b += fabs((double)fc[i]) * ta[(r + i) * wo + c];
            }
            y[r * wo + c] = sum;
            a[r * wo + c] = b;
        }
    free(t); free(ta);
}

/* One separable case against separable_ref, factors random in [-1, 1):
 * y checked with kh + kw taps, and the floats after y and after work
 * still NaN.  With direct, conv2d_naive (any filter) runs the outer
 * product rounded to float beside it (kh kw + 1 taps: the rounding). */
static void one_case_separable(size_t h, size_t w, size_t kh, size_t kw,
                               int direct)
{
    uint64_t seed = tk_seed(1) ^ (h * 7 + w * 131 + kh * 17 + kw), st = seed;
    const size_t ho = h - kh + 1, wo = w - kw + 1, hw = h * w;
    float *x = tk_malloc(hw * 4), *fc = tk_malloc(kh * 4);
    float *fr = tk_malloc(kw * 4), *y = tk_malloc(ho * wo * 4);
    double *ref = tk_malloc(ho * wo * 8), *a = tk_malloc(ho * wo * 8);
    tk_fill(x, hw, -1, 1, &st);
    tk_fill(fc, kh, -1, 1, &st);
    tk_fill(fr, kw, -1, 1, &st);
    separable_ref(x, h, w, fc, kh, fr, kw, ref, a);
    float *dx = tk_dev_floats(hw), *dc = tk_dev_floats(kh);
    float *dr = tk_dev_floats(kw), *dwork = tk_dev_floats(h * wo + 1);
    float *dy = tk_dev_floats(ho * wo + 1);
    tk_upload(dx, x, hw);
    tk_upload(dc, fc, kh);
    tk_upload(dr, fr, kw);
    char what[96];
    snprintf(what, sizeof what, "separable %zux%zu, %zux%zu", h, w, kh, kw);
    TK_CUDA(conv2d_separable(dx, h, w, dc, kh, dr, kw, dwork, dy, 0));
    TK_CUDA(cudaDeviceSynchronize());
    tk_download(y, dy, ho * wo);
    assert_int_equal(check(what, y, ref, a, ho * wo, kh + kw, seed), 0);
    float after[2];
    tk_download(after, dy + ho * wo, 1);
    tk_download(after + 1, dwork + h * wo, 1);
    assert_true(isnan(after[0]) && isnan(after[1]));
    if (direct) {
        float *f = tk_malloc(kh * kw * 4), *df = tk_dev_floats(kh * kw);
        for (size_t i = 0; i < kh; i++)
            for (size_t j = 0; j < kw; j++) f[i * kw + j] = fc[i] * fr[j];
        tk_upload(df, f, kh * kw);
        tk_poison(dy, (ho * wo + 1) * 4);
        TK_CUDA(conv2d_naive(dx, h, w, df, kh, kw, dy, 0));
        TK_CUDA(cudaDeviceSynchronize());
        tk_download(y, dy, ho * wo);
        snprintf(what, sizeof what, "naive %zux%zu, %zux%zu", h, w, kh, kw);
        assert_int_equal(check(what, y, ref, a, ho * wo, kh * kw + 1, seed),
                         0);
        tk_free(df);
        free(f);
    }
    tk_free(dx); tk_free(dc); tk_free(dr); tk_free(dwork); tk_free(dy);
    free(x); free(fc); free(fr); free(y); free(ref); free(a);
}

/* A separable filter is what a wide blur uses: factors of 63, 127 and 255
 * taps, square and not, one pass wide and the other narrow, either side
 * of the 32 taps of the direct kernels, a filter as tall as the image;
 * then filters taller or wider than the image, which have no output. */
static void separable_wide_filters(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    static const size_t cases[][4] = {
        {100, 140, 63, 63}, {150, 300, 127, 127}, {300, 520, 255, 255},
        {40, 700, 9, 255}, {700, 40, 255, 9}, {70, 301, 33, 1},
        {37, 300, 1, 33}, {64, 96, 33, 32}, {64, 96, 32, 33},
        {255, 290, 255, 40}, {90, 1000, 31, 513}};
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        size_t h = cases[t][0], w = cases[t][1];
        size_t kh = cases[t][2], kw = cases[t][3];
        if (tk_small() && h * w * (kh + kw) > 20000000) continue;
        one_case_separable(h, w, kh, kw, !tk_small() || kh * kw <= 1024);
    }
    float *dx = tk_dev_floats(600), *dc = tk_dev_floats(64);
    float *dr = tk_dev_floats(64), *dw = tk_dev_floats(600);
    float *dy = tk_dev_floats(600);
    TK_CUDA(conv2d_separable(dx, 20, 30, dc, 21, dr, 5, dw, dy, 0));
    TK_CUDA(conv2d_separable(dx, 20, 30, dc, 5, dr, 31, dw, dy, 0));
    TK_CUDA(cudaDeviceSynchronize());
    float y[600];                      /* nothing written */
    tk_download(y, dy, 600);
    for (int i = 0; i < 600; i++) assert_true(isnan(y[i]));
    tk_download(y, dw, 600);
    for (int i = 0; i < 600; i++) assert_true(isnan(y[i]));
    tk_free(dx); tk_free(dc); tk_free(dr); tk_free(dw); tk_free(dy);
}

/* conv2d_separable's five buffers back to back in one allocation, each
 * starting where the one before ends, in two orders: frow, y, fcol, work,
 * x (y right after frow's kw floats, inside the kh kw floats that a 2D
 * filter would take there) and y, work, x, frow, fcol.  Nothing overlaps,
 * so the launcher must run: y is right and the inputs are unchanged. */
static void separable_adjacent_buffers(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    const size_t h = 40, w = 75, kh = 7, kw = 5, ho = h - kh + 1;
    const size_t wo = w - kw + 1, hw = h * w;
    const size_t total = kw + ho * wo + kh + h * wo + hw;
    uint64_t seed = tk_seed(0), st = seed;
    float *x = tk_malloc(hw * 4), *fc = tk_malloc(kh * 4);
    float *fr = tk_malloc(kw * 4), *y = tk_malloc(ho * wo * 4);
    float *back = tk_malloc(hw * 4);
    double *ref = tk_malloc(ho * wo * 8), *a = tk_malloc(ho * wo * 8);
    tk_fill(x, hw, -1, 1, &st);
    tk_fill(fc, kh, -1, 1, &st);
    tk_fill(fr, kw, -1, 1, &st);
    separable_ref(x, h, w, fc, kh, fr, kw, ref, a);
    float *d = tk_dev_floats(total);
    for (int order = 0; order < 2; order++) {
        float *dr, *dy, *dc, *dwork, *dx;
        if (order == 0) {
            dr = d; dy = dr + kw; dc = dy + ho * wo; dwork = dc + kh;
            dx = dwork + h * wo;
        } else {
            dy = d; dwork = dy + ho * wo; dx = dwork + h * wo; dr = dx + hw;
            dc = dr + kw;
        }
        tk_poison(d, total * 4);
        tk_upload(dr, fr, kw);
        tk_upload(dc, fc, kh);
        tk_upload(dx, x, hw);
        TK_CUDA(conv2d_separable(dx, h, w, dc, kh, dr, kw, dwork, dy, 0));
        TK_CUDA(cudaDeviceSynchronize());
        tk_download(y, dy, ho * wo);
        assert_int_equal(check(order ? "separable, y first"
                                     : "separable, y after frow",
                               y, ref, a, ho * wo, kh + kw, seed), 0);
        tk_download(back, dr, kw);
        assert_memory_equal(back, fr, kw * 4);
        tk_download(back, dc, kh);
        assert_memory_equal(back, fc, kh * 4);
        tk_download(back, dx, hw);
        assert_memory_equal(back, x, hw * 4);
    }
    tk_free(d);
    free(x); free(fc); free(fr); free(y); free(back); free(ref); free(a);
}

/* ---- stream order ------------------------------------------------------ */

/* The stream test's inputs: a 1D signal and a 2D image, two filters for
 * each (filter c at c times its length), two outputs and one work. */
enum { SO_N = 5000, SO_K = 33, SO_H = 70, SO_W = 300, SO_KH = 5, SO_KW = 7 };
enum { SO_M = SO_N - SO_K + 1, SO_HO = SO_H - SO_KH + 1 };
enum { SO_WO = SO_W - SO_KW + 1, SO_Y = SO_HO * SO_WO };
typedef struct { float *x, *w, *img, *f, *fc, *fr, *work, *y[2]; } order_bufs;
#define ORDER_CALLS (N1 + 1 + N2 + 1)

/* Call j of the stream test with filter c into y[c], on stream s: the 1D
 * table, same, the 2D table, then the separable filter. */
static cudaError_t order_call(size_t j, const order_bufs *b, int c,
                              cudaStream_t s)
{
    const float *w = b->w + c * SO_K, *f = b->f + c * SO_KH * SO_KW;
    if (j < N1) return k1[j].fn(b->x, SO_N, w, SO_K, b->y[c], s);
    if (j == N1) return conv1d_same(b->x, SO_N, w, SO_K, b->y[c], s);
    if (j < N1 + 1 + N2)
        return k2[j - N1 - 1].fn(b->img, SO_H, SO_W, f, SO_KH, SO_KW,
                                 b->y[c], s);
    return conv2d_separable(b->img, SO_H, SO_W, b->fc + c * SO_KH, SO_KH,
                            b->fr + c * SO_KW, SO_KW, b->work, b->y[c], s);
}

/* Every launcher queues all its work on the stream it is given.  Two calls
 * of it, with two filters, wait on a stream behind a closed gate: neither
 * has written y (nor the separable filter's work) when they return, and
 * once the gate opens each result is its filter's reference.  A copy into
 * constant memory made off the stream would give both kernels the second
 * filter.  The seed's launcher, which may fault, is tried the same way in
 * wrong_seed_tiled_2d. */
static void convolution_launchers_follow_the_stream(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    uint64_t seed = tk_seed(1), st = seed;
    float *x = tk_malloc(SO_N * 4), *w = tk_malloc(2 * SO_K * 4);
    float *img = tk_malloc(SO_H * SO_W * 4);
    float *f = tk_malloc(2 * SO_KH * SO_KW * 4), *y = tk_malloc(SO_Y * 4);
    float fc[2 * SO_KH], fr[2 * SO_KW];
    double *ref[2][4], *a[2][4];
    tk_fill(x, SO_N, -1, 1, &st);
    tk_fill(w, 2 * SO_K, -1, 1, &st);
    tk_fill(img, SO_H * SO_W, -1, 1, &st);
    tk_fill(f, 2 * SO_KH * SO_KW, -1, 1, &st);
    tk_fill(fc, 2 * SO_KH, -1, 1, &st);
    tk_fill(fr, 2 * SO_KW, -1, 1, &st);
    for (int c = 0; c < 2; c++) {
        for (int r = 0; r < 4; r++) {
            ref[c][r] = tk_malloc(SO_Y * 8);
            a[c][r] = tk_malloc(SO_Y * 8);
        }
        const float *wc = w + c * SO_K, *fcc = f + c * SO_KH * SO_KW;
        conv1d_ref(x, SO_N, wc, SO_K, 0, SO_M, ref[c][0], a[c][0]);
        conv1d_ref(x, SO_N, wc, SO_K, (SO_K - 1) / 2, SO_N, ref[c][1],
                   a[c][1]);
        for (size_t i = 0; i < SO_Y; i++)
            ref[c][2][i] = conv2d_ref_at(img, SO_W, fcc, SO_KH, SO_KW,
                                         i / SO_WO, i % SO_WO, &a[c][2][i]);
        separable_ref(img, SO_H, SO_W, fc + c * SO_KH, SO_KH, fr + c * SO_KW,
                      SO_KW, ref[c][3], a[c][3]);
    }
    order_bufs b = {tk_dev_floats(SO_N), tk_dev_floats(2 * SO_K),
                    tk_dev_floats(SO_H * SO_W),
                    tk_dev_floats(2 * SO_KH * SO_KW),
                    tk_dev_floats(2 * SO_KH), tk_dev_floats(2 * SO_KW),
                    tk_dev_floats(SO_H * SO_WO),
                    {tk_dev_floats(SO_Y), tk_dev_floats(SO_Y)}};
    tk_upload(b.x, x, SO_N);
    tk_upload(b.w, w, 2 * SO_K);
    tk_upload(b.img, img, SO_H * SO_W);
    tk_upload(b.f, f, 2 * SO_KH * SO_KW);
    tk_upload(b.fc, fc, 2 * SO_KH);
    tk_upload(b.fr, fr, 2 * SO_KW);
    for (size_t j = 0; j < ORDER_CALLS; j++) {
        /* Which reference: valid 1D, same, 2D, separable. */
        const int r = j < N1 ? 0 : j == N1 ? 1 : j < ORDER_CALLS - 1 ? 2 : 3;
        const size_t outs[4] = {SO_M, SO_N, SO_Y, SO_Y};
        const double taps[4] = {SO_K, SO_K, SO_KH * SO_KW, SO_KH + SO_KW};
        const char *name = r == 0 ? k1[j].name : r == 1 ? "same"
                         : r == 2 ? k2[j - N1 - 1].name : "separable";
        tk_poison(b.y[0], SO_Y * 4);
        tk_poison(b.y[1], SO_Y * 4);
        tk_poison(b.work, SO_H * SO_WO * 4);
        tk_gate g = tk_gate_close();
        TK_CUDA(order_call(j, &b, 0, g.s));
        TK_CUDA(order_call(j, &b, 1, g.s));
        assert_true(tk_still_poisoned(b.y[0], SO_Y * 4));
        assert_true(tk_still_poisoned(b.y[1], SO_Y * 4));
        assert_true(tk_still_poisoned(b.work, SO_H * SO_WO * 4));
        tk_gate_open(&g);
        for (int c = 0; c < 2; c++) {
            tk_download(y, b.y[c], outs[r]);
            assert_int_equal(check(name, y, ref[c][r], a[c][r], outs[r],
                                   taps[r], seed), 0);
        }
    }
    tk_free(b.x); tk_free(b.w); tk_free(b.img); tk_free(b.f);
    tk_free(b.fc); tk_free(b.fr); tk_free(b.work);
    tk_free(b.y[0]); tk_free(b.y[1]);
    for (int c = 0; c < 2; c++)
        for (int r = 0; r < 4; r++) { free(ref[c][r]); free(a[c][r]); }
    free(x); free(w); free(img); free(f); free(y);
}

/* ---- wrong on purpose --------------------------------------------------- */

/* tk_gate_open for a kernel behind the gate that may fault: opens the
 * gate, returns the status of g's stream, and frees the gate only if the
 * context survived (after a fault, nothing can be freed). */
static cudaError_t gate_open_status(tk_gate *g)
{
    __atomic_store_n(g->flag, 1, __ATOMIC_RELEASE);      /* as tk_gate_open */
    cudaError_t e = cudaStreamSynchronize(g->s);
    if (e == cudaSuccess) {
        TK_CUDA(cudaStreamDestroy(g->s));
        TK_CUDA(cudaFreeHost(g->flag));
    }
    return e;
}

/* The seed's tiled kernel gets no shared memory for its tile.  It either
 * faults (the launch or the synchronization reports an error) or, where
 * the hardware lets the writes through, blocks overwrite one another's
 * tiles and the outputs are wrong.  Either way it fails the reference; the
 * test asserts that, after checking that no earlier error is pending, and
 * accepts as a failure only a memory fault or wrong outputs.  Before
 * that, its launch too must follow its stream: queued behind a closed
 * gate, it has written nothing when the launcher returns.  Runs last: a
 * fault leaves the context unusable.  Under make sanitize it runs alone
 * under memcheck (BOOK_EXPECT_FINDING, on stream 0: the tool runs kernels
 * one at a time, so no gate), which must report the out-of-bounds shared
 * writes (sanitize.expect). */
static void wrong_seed_tiled_2d(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    TK_SKIP_IN_CLEAN_SANITIZER_RUN();
    /* 1548 blocks of 1024 threads: several to an SM, so that even where
     * the writes went through, blocks would share (and spoil) a tile. */
    const size_t h = 1000, w = 1200, k = 5, ho = h - k + 1, wo = w - k + 1;
    uint64_t seed = tk_seed(0), st = seed;
    float *x = tk_malloc(h * w * 4), *f = tk_malloc(k * k * 4);
    float *y = tk_malloc(ho * wo * 4);
    double *ref = tk_malloc(ho * wo * 8), *a = tk_malloc(ho * wo * 8);
    tk_fill(x, h * w, -1, 1, &st);
    tk_fill(f, k * k, -1, 1, &st);
    for (size_t r = 0; r < ho; r++)
        for (size_t c = 0; c < wo; c++)
            ref[r * wo + c] = conv2d_ref_at(x, w, f, k, k, r, c, &a[r * wo + c]);
    float *dx = tk_dev_floats(h * w), *df = tk_dev_floats(k * k);
    float *dy = tk_dev_floats(ho * wo);
    tk_upload(dx, x, h * w);
    tk_upload(df, f, k * k);
    /* The device is healthy before the wrong launch: an error from here on
     * is the seed kernel's, not one left by an earlier test. */
    assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
    assert_int_equal(cudaGetLastError(), cudaSuccess);
    tk_poison(dy, ho * wo * 4);
    cudaError_t e;
    if (tk_env("BOOK_EXPECT_FINDING")) {
        e = conv2d_tiled_seed(dx, h, w, df, k, dy, 0);
        if (e == cudaSuccess) e = cudaDeviceSynchronize();
    } else {
        tk_gate g = tk_gate_close();
        e = conv2d_tiled_seed(dx, h, w, df, k, dy, g.s);
        assert_true(tk_still_poisoned(dy, ho * wo * 4));
        const cudaError_t opened = gate_open_status(&g);
        if (e == cudaSuccess) e = opened;
    }
    if (e != cudaSuccess) {
        /* Only a fault of the kernel's memory accesses counts: an argument
         * error (the launcher refusing a valid call) or a launch that could
         * not start is a bug of the test or the launcher. */
        if (e != cudaErrorIllegalAddress && e != cudaErrorLaunchFailure &&
            e != cudaErrorMisalignedAddress)
            fail_msg("the seed's kernel failed, but not by a memory fault: %s",
                     cudaGetErrorString(e));
        print_message("the seed's kernel failed as expected: %s\n",
                      cudaGetErrorString(e));
        free(x); free(f); free(y); free(ref); free(a);
        return;                      /* the context is gone: no frees */
    }
    tk_download(y, dy, ho * wo);
    size_t bad = 0;
    for (size_t i = 0; i < ho * wo; i++)
        bad += !(fabs((double)y[i] - ref[i]) <= 2 * 25 * U * a[i] + 1e-30);
    print_message("the seed's kernel: %zu of %zu outputs wrong\n", bad,
                  ho * wo);
    assert_true(bad > 0);
    tk_free(dx); tk_free(df); tk_free(dy);
    free(x); free(f); free(y); free(ref); free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(flip_is_convolution),
        cmocka_unit_test(conv1d_sizes),
        cmocka_unit_test(conv1d_naive_long_filter),
        cmocka_unit_test(conv1d_empty),
        cmocka_unit_test(conv1d_bad_arguments),
        cmocka_unit_test(conv1d_offset_pointers),
        cmocka_unit_test(conv1d_product_past_2_31),
        cmocka_unit_test(conv1d_past_2_31),
        cmocka_unit_test(conv2d_sizes),
        cmocka_unit_test(conv2d_bad_arguments),
        cmocka_unit_test(separable_bad_arguments),
        cmocka_unit_test(conv2d_offset_pointers),
        cmocka_unit_test(conv_adjacent_buffers),
        cmocka_unit_test(separable_matches_direct),
        cmocka_unit_test(separable_wide_filters),
        cmocka_unit_test(separable_adjacent_buffers),
        cmocka_unit_test(conv2d_past_2_31),
        cmocka_unit_test(convolution_launchers_follow_the_stream),
        cmocka_unit_test(wrong_seed_tiled_2d),
    };
    /* Every kernel loaded when the context starts: with lazy loading, a
     * kernel's first launch loads it, which may wait for the device, and
     * so for a closed gate (the seed's kernel is first launched behind
     * one). */
    setenv("CUDA_MODULE_LOADING", "EAGER", 1);
    return tk_run_tests("convolution", tests);
}
