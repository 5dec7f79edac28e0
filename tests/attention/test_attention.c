/* test_attention.c -- the attention chapter's tests: the (m, d, o) triple
 * on the CPU against a two-pass double reference, every attention launcher
 * against that reference on edge shapes (S = 1, tile sizes and one either
 * side, 4097, Sq != Sk with fully masked rows, Sk = 0), large scores,
 * causal and not, D = 32, 64, 128 (and 48 for the unfused forms), the
 * launchers' refusals (on the CPU, every one the header names), the tiled
 * launcher's choice of shape (on the CPU), its largest grid, the cuBLAS
 * form on a handle's non-blocking stream, every launcher's work queued on
 * its stream alone (behind the gate), and the update that forgets to
 * rescale o (wrong on purpose). */
#define _POSIX_C_SOURCE 200809L
#include "testkit.h"
#include "attention/mdo.h"
#include "attention/attention.h"
#include "variants.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

#define EPS (1.0 / 16777216.0) /* 2^-24, a float's unit roundoff */

/* ---- the reference: two passes in double ----------------------------- */
/* Keys query i sees (attention.h's rule). */
static size_t seen(const attn_dims *a, size_t i)
{
    long long n = (long long)i + 1 + (long long)a->Sk - (long long)a->Sq;
    if (!a->causal || n > (long long)a->Sk) return a->Sk;
    return n < 0 ? 0 : (size_t)n;
}
/* ref = O in double; *amax = the largest sum_d |q_d k_d| / sqrt(D) over
 * seen pairs (what bounds the error of a computed score). */
static void attn_ref(const float *q, const float *k, const float *v,
                     double *ref, const attn_dims *a, double *amax,
                     double *smax)
{
    size_t D = a->D, bh = a->B * a->H;
    double *s = tk_malloc((a->Sk + 1) * sizeof(double)), c = 1.0 / sqrt((double)D);
    *amax = 0.0; *smax = 0.0;
    for (size_t h = 0; h < bh; h++)
        for (size_t i = 0; i < a->Sq; i++) {
            const float *qr = q + (h * a->Sq + i) * D;
            double *o = ref + (h * a->Sq + i) * D, m = -INFINITY, d = 0.0;
            size_t n = seen(a, i);
            for (size_t j = 0; j < n; j++) {
                const float *kr = k + (h * a->Sk + j) * D;
                double t = 0.0, u = 0.0;
                for (size_t e = 0; e < D; e++) {
                    t += (double)qr[e] * kr[e];
                    u += fabs((double)qr[e] * kr[e]);
                }
                s[j] = t * c;
                if (u * c > *amax) *amax = u * c;
                if (fabs(s[j]) > *smax) *smax = fabs(s[j]);
                if (s[j] > m) m = s[j];
            }
            for (size_t e = 0; e < D; e++) o[e] = 0.0;
            for (size_t j = 0; j < n; j++) {
                double w = exp(s[j] - m);
                d += w;
                for (size_t e = 0; e < D; e++)
                    o[e] += w * v[(h * a->Sk + j) * D + e];
            }
            for (size_t e = 0; e < D; e++) o[e] = d > 0.0 ? o[e] / d : 0.0;
        }
    free(s);
}
/* The tolerance, per element: a score carries an error up to D eps A
 * (A = amax), which changes each weight by a relative 2 D eps A at most
 * (the score and the maximum); that moves O by twice that times max |v|.
 * Summing Sk terms adds Sk eps max|v|; 16 eps covers the scaling, exp2f
 * and the final division. */
static double attn_tol(const attn_dims *a, double amax, double vmax)
{
    return EPS * vmax * (4.0 * (double)a->D * amax + (double)a->Sk + 16.0);
}

/* ---- CPU: the streamed triple equals the two-pass result -------------- */
static void streamed_equals_two_pass(void **st)
{
    (void)st;
    enum { N = 1000, D = 64 };
    for (int round = 0; round < 2; round++) {
        uint64_t seed = tk_seed(round), r = seed;
        float *x = tk_malloc(N * sizeof(float)), *v = tk_malloc(N * D * sizeof(float));
        float o[D], o2[D], ob[D];
        double ref[D], m = -INFINITY, d = 0.0;
        tk_fill(x, N, -30, 30, &r);         /* scores past expf's range */
        tk_fill(v, N * D, -1, 1, &r);
        x[7] = -INFINITY;                   /* a masked key */
        for (int j = 0; j < N; j++) if (x[j] > m) m = x[j];
        for (int e = 0; e < D; e++) ref[e] = 0.0;
        for (int j = 0; j < N; j++) {
            double w = exp((double)x[j] - m);
            d += w;
            for (int e = 0; e < D; e++) ref[e] += w * v[j * D + e];
        }
        for (int e = 0; e < D; e++) ref[e] /= d;
        /* One stream over the whole row. */
        md_t s = md_identity();
        memset(o, 0, sizeof o);
        for (int j = 0; j < N; j++) mdo_push(&s, o, D, x[j], v + j * D);
        mdo_finish(s, o, D);
        double tol = EPS * (4.0 * 30 + N + 16);
        assert_int_equal(tk_compare("streamed", o, ref, D, tol, 0, seed), 0);
        /* Two streams over halves, combined: the operator is associative. */
        md_t a = md_identity(), b = md_identity();
        memset(o2, 0, sizeof o2); memset(ob, 0, sizeof ob);
        for (int j = 0; j < N / 3; j++) mdo_push(&a, o2, D, x[j], v + j * D);
        for (int j = N / 3; j < N; j++) mdo_push(&b, ob, D, x[j], v + j * D);
        mdo_combine(&a, o2, b, ob, D);
        mdo_finish(a, o2, D);
        assert_int_equal(tk_compare("combined", o2, ref, D, tol, 0, seed), 0);
        free(x); free(v);
    }
    /* A row whose every key is masked gives zeros. */
    md_t s = md_identity();
    float o[4] = {0, 0, 0, 0}, v[4] = {1, 2, 3, 4};
    mdo_push(&s, o, 4, -INFINITY, v);
    mdo_finish(s, o, 4);
    for (int e = 0; e < 4; e++) assert_true(o[e] == 0.0f);
}

/* ---- GPU: every launcher against the reference ------------------------ */
/* The launchers, their names and attn_launch: variants.h. */
/* One shape's inputs, q and k in [-r, r] and v in [-1, 1] from seed, on
 * the host and on the device (a float to spare after each, never read),
 * with the reference output, its tolerance and the largest |score|. */
typedef struct {
    size_t nq, nk;
    float *q, *k, *v, *dq, *dk, *dv;
    double *ref, amax, smax, tol;
} attn_case;
static attn_case attn_case_new(attn_dims a, double r, uint64_t seed)
{
    attn_case c;
    uint64_t st = seed;
    c.nq = a.B * a.H * a.Sq * a.D;
    c.nk = a.B * a.H * a.Sk * a.D;
    c.q = tk_malloc((c.nq + 1) * 4);
    c.k = tk_malloc((c.nk + 1) * 4);
    c.v = tk_malloc((c.nk + 1) * 4);
    c.ref = tk_malloc((c.nq + 1) * sizeof(double));
    tk_fill(c.q, c.nq, -r, r, &st);
    tk_fill(c.k, c.nk, -r, r, &st);
    tk_fill(c.v, c.nk, -1, 1, &st);
    attn_ref(c.q, c.k, c.v, c.ref, &a, &c.amax, &c.smax);
    c.tol = attn_tol(&a, c.amax, 1.0);
    c.dq = tk_dev_floats(c.nq + 1);
    c.dk = tk_dev_floats(c.nk + 1);
    c.dv = tk_dev_floats(c.nk + 1);
    tk_upload(c.dq, c.q, c.nq);
    tk_upload(c.dk, c.k, c.nk);
    tk_upload(c.dv, c.v, c.nk);
    return c;
}
static void attn_case_free(attn_case *c)
{
    tk_free(c->dq); tk_free(c->dk); tk_free(c->dv);
    free(c->q); free(c->k); free(c->v); free(c->ref);
}

/* Run every launcher on one shape with q and k in [-r, r], v in [-1, 1];
 * fused launchers must refuse D other than 32, 64, 128.  Returns the
 * largest |score| of the inputs. */
static double check_shape(attn_dims a, double r, int rounds,
                          cublasHandle_t h)
{
    double largest = 0.0;
    for (int round = 0; round < rounds; round++) {
        const uint64_t seed = tk_seed(round);
        attn_case c = attn_case_new(a, r, seed);
        if (c.smax > largest) largest = c.smax;
        float *got = tk_malloc((c.nq + 1) * 4);
        float *dout = tk_dev_floats(c.nq + 1);
        size_t wb = attention_work_bytes(a);
        assert_true(wb > 0);
        void *work = tk_dev_bytes(wb);
        for (int w = 0; w < NLAUNCH; w++) {
            tk_poison(dout, (c.nq + 1) * 4);
            cudaError_t e = attn_launch(w, h, c.dq, c.dk, c.dv, dout, a, work,
                                        0);
            if (w >= WARP && a.D != 32 && a.D != 64 && a.D != 128) {
                TK_REFUSED(e);
                continue;
            }
            if (w >= TILED && e == cudaErrorNotSupported) {
                print_message("skipped: the tiled kernel for D = %zu needs "
                              "more shared memory than this GPU gives a "
                              "block\n", a.D);
                continue;
            }
            TK_CUDA(e);
            TK_CUDA(cudaDeviceSynchronize());
            tk_download(got, dout, c.nq + 1);
            char what[160];
            snprintf(what, sizeof what, "%s B%zu H%zu Sq%zu Sk%zu D%zu%s",
                     attn_variant_name(w), a.B, a.H, a.Sq, a.Sk, a.D,
                     a.causal ? " causal" : "");
            assert_int_equal(tk_compare(what, got, c.ref, c.nq, c.tol, 0,
                                        seed), 0);
            assert_true(isnan(got[c.nq]));    /* nothing written past o */
        }
        tk_free(dout); tk_free(work); free(got);
        attn_case_free(&c);
    }
    return largest;
}
/* One cuBLAS handle for the tests, fp32 without TF32; main destroys it. */
static cublasHandle_t the_handle;
static cublasHandle_t handle(void)
{
    if (!the_handle) {
        assert_int_equal(cublasCreate(&the_handle), CUBLAS_STATUS_SUCCESS);
        assert_int_equal(cublasSetMathMode(the_handle, CUBLAS_DEFAULT_MATH),
                         CUBLAS_STATUS_SUCCESS);
    }
    return the_handle;
}

/* S = 1, a warp, the tile sizes (64, 128) and one either side (D = 128
 * at both: 128 rows a block, 64 in the compact shape); Sq != Sk
 * both ways (with Sq > Sk the first Sq - Sk causal rows see no key);
 * Sk = 0; D = 48 for the unfused forms. */
static void edge_shapes(void **st)
{
    (void)st;
    TK_REQUIRE_GPU();
    static const attn_dims cases[] = {
        {1, 1, 1, 1, 64, 0},    {1, 1, 1, 1, 32, 1},
        {2, 3, 33, 33, 32, 0},  {1, 2, 63, 63, 128, 1},
        {2, 1, 65, 65, 64, 1},  {1, 2, 127, 127, 128, 0},
        {1, 1, 129, 129, 64, 0}, {1, 1, 129, 129, 32, 1},
        {3, 2, 100, 37, 64, 1}, {1, 1, 37, 100, 128, 1},
        {2, 1, 50, 0, 64, 0},   {1, 2, 65, 65, 48, 1},
        {1, 1, 300, 257, 64, 0}, {2, 2, 191, 191, 128, 1},
        {1, 1, 65, 65, 128, 0}, {1, 1, 129, 129, 128, 1},
        /* Sq > Sk causal with whole blocks whose rows see no key (the
         * kernel's kend <= 0 path), at D = 64 and 128. */
        {1, 1, 300, 37, 64, 1}, {1, 1, 200, 10, 128, 1},
    };
    /* Under the sanitizer (BOOK_SMALL) the fixed seed only: the tools look
     * at the indices, which the seed does not change. */
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        check_shape(cases[c], 1.0, tk_small() ? 1 : 2, handle());
}
static void long_rows_4097(void **st)
{
    (void)st;
    TK_REQUIRE_GPU();
    TK_SKIP_UNDER_SANITIZER("S = 4097 takes minutes under the sanitizer");
    check_shape((attn_dims){1, 1, 4097, 4097, 64, 1}, 1.0, 1, handle());
    check_shape((attn_dims){1, 1, 4097, 4097, 128, 0}, 1.0, 1, handle());
    check_shape((attn_dims){1, 2, 1025, 1025, 32, 0}, 1.0, 1, handle());
}
/* Scores up to a few hundred: e^s overflows a float past 88.7, so a
 * softmax without the maximum would give inf / inf. */
static void large_scores(void **st)
{
    (void)st;
    TK_REQUIRE_GPU();
    attn_dims a = {1, 2, 129, 129, 64, 0};
    assert_true(check_shape(a, 16.0, 2, handle()) > 200.0);
    a.causal = 1;
    assert_true(check_shape(a, 16.0, 1, handle()) > 200.0);
    a = (attn_dims){1, 1, 129, 129, 128, 0};   /* both D = 128 shapes */
    assert_true(check_shape(a, 16.0, 1, handle()) > 200.0);
}

/* Rows that see no key are exactly zero in every form. */
static void masked_rows_are_zero(void **st)
{
    (void)st;
    TK_REQUIRE_GPU();
    attn_dims a = {1, 1, 70, 5, 32, 1};     /* rows 0 .. 64 see no key */
    size_t nq = 70 * 32, nk = 5 * 32;
    float *dq = tk_dev_floats(nq), *dk = tk_dev_floats(nk);
    float *dv = tk_dev_floats(nk), *dout = tk_dev_floats(nq);
    float *got = tk_malloc(nq * 4), *h = tk_malloc(nq * 4);
    void *work = tk_dev_bytes(attention_work_bytes(a));
    uint64_t r = tk_seed(0);
    tk_fill(h, nq, -1, 1, &r);
    tk_upload(dq, h, nq); tk_upload(dk, h, nk); tk_upload(dv, h, nk);
    for (int w = 0; w < NLAUNCH; w++) {
        tk_poison(dout, nq * 4);
        TK_CUDA(attn_launch(w, handle(), dq, dk, dv, dout, a, work, 0));
        tk_download(got, dout, nq);
        for (size_t e = 0; e < 65 * 32; e++) assert_true(got[e] == 0.0f);
        for (size_t e = 65 * 32; e < nq; e++) assert_false(isnan(got[e]));
    }
    tk_free(dq); tk_free(dk); tk_free(dv); tk_free(dout); tk_free(work);
    free(got); free(h);
}

/* What every launcher refuses, before launching. */
static void refusals(void **st)
{
    (void)st;
    TK_REQUIRE_GPU();
    attn_dims a = {1, 1, 64, 64, 64, 0};
    enum { N = 64 * 128 };            /* room for D up to 128: no overlap */
    float *b = tk_dev_floats(4 * N + 1);
    float *q = b, *k = b + N, *v = b + 2 * N, *o = b + 3 * N;
    void *work = tk_dev_bytes(attention_work_bytes(a));
    for (int w = 0; w < NLAUNCH; w++) {
        TK_REFUSED(attn_launch(w, handle(), NULL, k, v, o, a, work, 0));
        /* o overlaps q */
        TK_REFUSED(attn_launch(w, handle(), q, k, v, q, a, work, 0));
        /* o overlaps k */
        TK_REFUSED(attn_launch(w, handle(), q, k, v, k + 5, a, work, 0));
        attn_dims z = a;
        z.D = 0;
        TK_REFUSED(attn_launch(w, handle(), q, k, v, o, z, work, 0));
        z = a;
        z.B = SIZE_MAX / 2;
        /* overflow */
        TK_REFUSED(attn_launch(w, handle(), q, k, v, o, z, work, 0));
    }
    TK_REFUSED(attention_three_kernel(q, k, v, o, a, NULL, 0));
    TK_REFUSED(attention_cublas(NULL, q, k, v, o, a, work, 0));
    TK_REFUSED(attention_tiled(q + 1, k, v, o, a, 0));  /* misaligned */
    TK_REFUSED(attention_tiled_compact(q, k + 1, v, o, a, 0));  /* misaligned */
    a.D = 96;
    TK_REFUSED(attention_warp(q, k, v, o, a, 0));
    TK_REFUSED(attention_tiled(q, k, v, o, a, 0));
    TK_REFUSED(attention_tiled_compact(q, k, v, o, a, 0));
    assert_int_equal(attention_work_bytes((attn_dims){SIZE_MAX, 2, 1, 1, 1, 0}), 0);
    TK_CUDA(cudaGetLastError());
    tk_free(b); tk_free(work);
}

/* The shape attention_tiled picks, on the CPU: every opt-in size a GPU
 * the book names has, and each shape's size and one byte less.  The
 * sizes are the chapter's table: 56, 80, 128 KiB, 96 KiB compact. */
static void tiled_shape_choice(void **st)
{
    (void)st;
    enum { F = ATTN_SHAPE_FULL, C = ATTN_SHAPE_COMPACT, N = ATTN_SHAPE_NONE };
    const size_t kib = 1024, b32 = 56 * kib, b64 = 80 * kib,
                 b128 = 128 * kib, bc = 96 * kib;
    static const struct { size_t optin; int d32, d64, d128; } c[] = {
        {0, N, N, N},
        {65536, F, N, N},          /* cc 7.5: 64 KiB */
        {101376, F, F, C},         /* cc 8.6, 8.9: 99 KiB */
        {166912, F, F, F},         /* cc 8.0: 163 KiB */
        {232448, F, F, F},         /* cc 9.0: 227 KiB */
        {SIZE_MAX, F, F, F},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        assert_int_equal(attention_tiled_shape(32, c[i].optin), c[i].d32);
        assert_int_equal(attention_tiled_shape(64, c[i].optin), c[i].d64);
        assert_int_equal(attention_tiled_shape(128, c[i].optin), c[i].d128);
    }
    assert_int_equal(attention_tiled_shape(32, b32), F);
    assert_int_equal(attention_tiled_shape(32, b32 - 1), N);
    assert_int_equal(attention_tiled_shape(64, b64), F);
    assert_int_equal(attention_tiled_shape(64, b64 - 1), N);
    assert_int_equal(attention_tiled_shape(64, bc), F);
    assert_int_equal(attention_tiled_shape(128, b128), F);
    assert_int_equal(attention_tiled_shape(128, b128 - 1), C);
    assert_int_equal(attention_tiled_shape(128, bc), C);
    assert_int_equal(attention_tiled_shape(128, bc - 1), N);
    assert_int_equal(attention_tiled_shape(128, b64), N);
    static const size_t bad[] = {0, 1, 16, 48, 96, 127, 129, 256, SIZE_MAX};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(attention_tiled_shape(bad[i], 232448),
                         ATTN_SHAPE_INVALID);
        assert_int_equal(attention_tiled_shape(bad[i], 0), ATTN_SHAPE_INVALID);
    }
}

/* Wrong on purpose: without the rescale of o, terms added under an old
 * maximum keep their old, too large weight.  Scores that grow along the
 * row make the maximum grow at every key and the output far too large;
 * scores that shrink never move the maximum, and the bug hides. */
static void no_rescale_is_wrong(void **st)
{
    (void)st;
    TK_REQUIRE_GPU();
    enum { S = 64, D = 32 };
    attn_dims a = {1, 1, S, S, D, 0};
    float *q = tk_malloc(S * D * 4), *k = tk_malloc(S * D * 4);
    float *v = tk_malloc(S * D * 4), *got = tk_malloc(S * D * 4);
    double *ref = tk_malloc(S * D * sizeof(double)), amax, smax;
    uint64_t r = tk_seed(0);
    tk_fill(v, S * D, 0, 1, &r);
    float *dq = tk_dev_floats(S * D), *dk = tk_dev_floats(S * D);
    float *dv = tk_dev_floats(S * D), *dout = tk_dev_floats(S * D);
    tk_upload(dv, v, S * D);
    for (int grow = 1; grow >= 0; grow--) {
        memset(q, 0, S * D * 4);
        memset(k, 0, S * D * 4);
        for (int i = 0; i < S; i++) q[i * D] = 1.0f;
        /* score of key j: (grow ? j : S - j) / 2 */
        for (int j = 0; j < S; j++)
            k[j * D] = (grow ? j : S - j) * 0.5f * sqrtf((float)D);
        attn_ref(q, k, v, ref, &a, &amax, &smax);
        tk_upload(dq, q, S * D); tk_upload(dk, k, S * D);
        double tol = attn_tol(&a, amax, 1.0);
        tk_poison(dout, S * D * 4);
        TK_CUDA(attention_warp(dq, dk, dv, dout, a, 0));
        tk_download(got, dout, S * D);
        assert_int_equal(tk_compare("warp", got, ref, S * D, tol, 0, 0), 0);
        tk_poison(dout, S * D * 4);
        TK_CUDA(attention_warp_no_rescale(dq, dk, dv, dout, a, 0));
        tk_download(got, dout, S * D);
        size_t bad = tk_compare(grow ? "no rescale, growing scores (expected "
                                       "to fail)" : "no rescale, shrinking",
                                got, ref, S * D, tol, 0, 0);
        if (grow) assert_true(bad == S * D);   /* every element is wrong */
        else assert_int_equal(bad, 0);
    }
    tk_free(dq); tk_free(dk); tk_free(dv); tk_free(dout);
    free(q); free(k); free(v); free(got); free(ref);
}

/* ---- refusals before any launch, on the CPU --------------------------- */
/* The header's refusals all happen before a launcher touches a pointer
 * or the GPU, so these tests give it addresses that are never
 * dereferenced, 2^44 bytes apart (room for the largest sizes below, which
 * no GPU could hold), and a handle and workspace that are never used.  A
 * launcher that failed to refuse would go on to launch: without a GPU
 * that returns another error; with one, the launch faults, so these tests
 * come last. */
static float *fake(int i)
{
    return (float *)(uintptr_t)((uint64_t)(i + 1) << 44);
}
#define FAKE_HANDLE ((cublasHandle_t)(uintptr_t)4096)
#define FAKE_WORK ((void *)fake(8))
static const size_t kMaxTiles = 65535, kIntMax = 2147483647u;
static void expect_refused(int which, const float *q, const float *k,
                           const float *v, float *o, attn_dims a,
                           const char *what)
{
    cudaError_t e =
        attn_launch(which, FAKE_HANDLE, q, k, v, o, a, FAKE_WORK, 0);
    if (e != cudaErrorInvalidValue)
        print_error("%s: %s B%zu H%zu Sq%zu Sk%zu D%zu returned %d, not "
                    "cudaErrorInvalidValue\n", attn_variant_name(which),
                    what, a.B, a.H, a.Sq, a.Sk, a.D, (int)e);
    TK_REFUSED(e);
}
/* Null pointers, an output that overlaps an input (at its start, inside
 * it, or ending in its first float), D = 0, and for the fused forms a D
 * other than 32, 64, 128 and a pointer off 16 bytes for the tiled ones;
 * a missing workspace or handle for the unfused forms. */
static void refusals_pointers(void **st)
{
    (void)st;
    const attn_dims a = {1, 1, 64, 64, 64, 0};
    const size_t nq = 64 * 64;
    float *q = fake(0), *k = fake(1), *v = fake(2), *o = fake(3);
    for (int w = 0; w < NLAUNCH; w++) {
        expect_refused(w, NULL, k, v, o, a, "q null");
        expect_refused(w, q, NULL, v, o, a, "k null");
        expect_refused(w, q, k, NULL, o, a, "v null");
        expect_refused(w, q, k, v, NULL, a, "o null");
        expect_refused(w, q, k, v, q, a, "o is q");
        expect_refused(w, q, k, v, k + 4, a, "o inside k");
        expect_refused(w, q, k, v, v - (nq - 4), a, "o ends in v");
        expect_refused(w, q, k, v, q + nq - 4, a, "o starts in q");
        attn_dims z = a;
        z.D = 0;
        expect_refused(w, q, k, v, o, z, "D = 0");
    }
    static const size_t bad_d[] = {1, 16, 48, 96, 127, 129, 256};
    for (size_t i = 0; i < sizeof bad_d / sizeof *bad_d; i++) {
        attn_dims z = a;
        z.D = bad_d[i];
        for (int w = WARP; w < NLAUNCH; w++)
            expect_refused(w, q, k, v, o, z, "D not 32, 64, 128");
        TK_REFUSED(attention_warp_no_rescale(q, k, v, o, z, 0));
    }
    for (size_t off = 4; off < 16; off += 4)
        for (int w = TILED; w < NLAUNCH; w++) {
#define SHIFT(p) ((float *)((char *)(p) + off))
            expect_refused(w, SHIFT(q), k, v, o, a, "q misaligned");
            expect_refused(w, q, SHIFT(k), v, o, a, "k misaligned");
            expect_refused(w, q, k, SHIFT(v), o, a, "v misaligned");
            expect_refused(w, q, k, v, SHIFT(o), a, "o misaligned");
#undef SHIFT
        }
    TK_REFUSED(attention_three_kernel(q, k, v, o, a, NULL, 0));
    TK_REFUSED(attention_cublas(NULL, q, k, v, o, a, FAKE_WORK, 0));
    TK_REFUSED(attention_cublas(FAKE_HANDLE, q, k, v, o, a, NULL, 0));
}
/* Sizes whose byte counts overflow a size_t, one product at a time: every
 * launcher refuses them and attention_work_bytes is 0. */
static void refusals_overflow(void **st)
{
    (void)st;
    const size_t t31 = (size_t)1 << 31, t32 = (size_t)1 << 32,
                 t33 = (size_t)1 << 33;
    attn_dims c[13];
    size_t n = 0;
    c[n++] = (attn_dims){SIZE_MAX / 2, 3, 1, 1, 1, 0};     /* B H */
    c[n++] = (attn_dims){t32, 1, t32, 1, 1, 0};            /* B H Sq */
    c[n++] = (attn_dims){1, 1, t33, 1, t31, 0};            /* ... D */
    c[n++] = (attn_dims){1, 1, t31, 1, t31, 0};            /* q bytes */
    c[n++] = (attn_dims){t32, 1, 1, t32, 1, 0};            /* B H Sk */
    c[n++] = (attn_dims){1, 1, 1, t33, t31, 0};            /* ... D */
    c[n++] = (attn_dims){1, 1, 1, t31, t31, 0};            /* k bytes */
    c[n++] = (attn_dims){1, 1, t32, t32, 1, 1};            /* Sq Sk */
    c[n++] = (attn_dims){1, 1, t31, t31, 1, 0};            /* score bytes */
    /* No head at all, but one head's K (Sk D) would overflow. */
    c[n++] = (attn_dims){0, 1, 1, t32 + 1, t32 + 1, 0};
    c[n++] = (attn_dims){1, 0, 7, t32 + 1, t32 + 1, 1};
    c[n++] = (attn_dims){1, 1, 0, t32 + 1, t32 + 1, 0};
    c[n++] = (attn_dims){0, 1, 1, (size_t)1 << 62, 1, 0};  /* its bytes */
    for (size_t i = 0; i < n; i++) {
        if (attention_work_bytes(c[i]) != 0)
            print_error("case %zu: attention_work_bytes gave %zu, not 0\n", i,
                        attention_work_bytes(c[i]));
        assert_int_equal(attention_work_bytes(c[i]), 0);
        for (int w = 0; w < NLAUNCH; w++)
            expect_refused(w, fake(0), fake(1), fake(2), fake(3), c[i],
                           "overflow");
        TK_REFUSED(attention_warp_no_rescale(fake(0), fake(1), fake(2),
                                             fake(3), c[i], 0));
    }
}
/* The limits below the overflow: Sq, Sk and D below 2^31 for the unfused
 * forms, B H below 2^31 for cuBLAS and the tiled forms, Sq at most
 * 64 * 65535 for the tiled forms, and a grid of at most 2^31 - 1 blocks of
 * 8 rows for the warp form.  Each case is one past its limit; the
 * pointers are far enough apart that nothing overlaps. */
static void refusals_limits(void **st)
{
    (void)st;
    float *q = fake(0), *k = fake(1), *v = fake(2), *o = fake(3);
    const size_t t31 = (size_t)1 << 31;
    const attn_dims unfused[] = {
        {1, 1, kIntMax + 1, 1, 1, 0}, {1, 1, 1, kIntMax + 1, 1, 0},
        {1, 1, 1, 1, kIntMax + 1, 0}, {1, 1, kIntMax + 1, 3, 2, 1},
    };
    for (size_t i = 0; i < sizeof unfused / sizeof *unfused; i++) {
        expect_refused(THREE, q, k, v, o, unfused[i], "past INT_MAX");
        expect_refused(CUBLAS, q, k, v, o, unfused[i], "past INT_MAX");
    }
    const attn_dims heads[] = {
        {t31, 1, 1, 1, 32, 0}, {1, t31, 1, 1, 64, 0},
        {(size_t)1 << 16, (size_t)1 << 15, 1, 1, 128, 1},
        {3, 715827883, 1, 1, 32, 0},                /* 3 * 715827883 > 2^31 */
    };
    for (size_t i = 0; i < sizeof heads / sizeof *heads; i++) {
        expect_refused(CUBLAS, q, k, v, o, heads[i], "B H past 2^31 - 1");
        expect_refused(TILED, q, k, v, o, heads[i], "B H past 2^31 - 1");
        expect_refused(COMPACT, q, k, v, o, heads[i], "B H past 2^31 - 1");
    }
    static const size_t ds[] = {32, 64, 128};
    for (int i = 0; i < 3; i++)
        for (int causal = 0; causal < 2; causal++) {
            attn_dims a = {1, 1, 64 * kMaxTiles + 1, 1, ds[i], causal};
            expect_refused(TILED, q, k, v, o, a, "Sq past 64 * 65535");
            expect_refused(COMPACT, q, k, v, o, a, "Sq past 64 * 65535");
            a.Sq = 100 * kMaxTiles;
            a.B = 2;
            expect_refused(TILED, q, k, v, o, a, "Sq past 64 * 65535");
            expect_refused(COMPACT, q, k, v, o, a, "Sq past 64 * 65535");
            /* The warp form: B H Sq rows, 8 a block, at most 2^31 - 1
             * blocks. */
            attn_dims w = {1, 1, 8 * kIntMax + 1, 1, ds[i], causal};
            expect_refused(WARP, q, k, v, o, w, "grid past 2^31 - 1");
            TK_REFUSED(attention_warp_no_rescale(q, k, v, o, w, 0));
            w = (attn_dims){4, 2, kIntMax + 1, 1, ds[i], causal};
            expect_refused(WARP, q, k, v, o, w, "grid past 2^31 - 1");
        }
}
/* Sizes that no byte count of an array overflows, and that are within
 * the unfused forms' limits, but whose workspace does not fit a size_t:
 * Sq Sk just under 2^61 scores, two copies of them and Q.  The unfused
 * forms refuse what attention_work_bytes cannot size (it gives 0), since
 * no workspace the caller could pass would be large enough. */
static void refusals_workspace(void **st)
{
    (void)st;
    /* Q and K each just under 2^62 floats: the sum passes 2^62. */
    assert_int_equal(attention_work_bytes((attn_dims){1, 1, 1, 1,
                                          ((size_t)1 << 62) - 128, 0}), 0);
    for (int causal = 0; causal < 2; causal++) {
        const attn_dims a = {1, 1, kIntMax, (size_t)1 << 30, 1, causal};
        assert_int_equal(attention_work_bytes(a), 0);
        expect_refused(THREE, fake(0), fake(1), fake(2), fake(3), a,
                       "workspace bytes overflow");
        expect_refused(CUBLAS, fake(0), fake(1), fake(2), fake(3), a,
                       "workspace bytes overflow");
    }
}

/* ---- the split keys ----------------------------------------------------- */

/* The split form at every split count from 1 to 9, at 17, at the most it
 * takes, and at the rule's, on shapes where shares are uneven or empty:
 * Sq != Sk both ways (causal rows that see no key), one query row over
 * many keys (decoding), a key count of 1, more shares than key tiles;
 * against the double-precision reference, output and workspace poisoned,
 * nothing written past o. */
static void split_every_count(void **st)
{
    (void)st;
    TK_REQUIRE_GPU();
    static const attn_dims cases[] = {
        {1, 1, 300, 1000, 64, 0}, {1, 1, 300, 1000, 64, 1},
        {2, 3, 77, 513, 128, 1},  {1, 2, 1, 4099, 32, 0},
        {1, 1, 200, 100, 64, 1},  {1, 1, 5, 1, 128, 0},
        {1, 4, 16, 2000, 128, 0}, {1, 1, 129, 129, 32, 1},
        {1, 1, 300, 37, 64, 1},   /* tiles whose rows all see no key */
    };
    static const int counts[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 17,
                                 ATTN_MAX_SPLITS, 0};   /* 0: the rule */
    const int ncounts = (int)(sizeof counts / sizeof *counts);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const attn_dims a = cases[i];
        const uint64_t seed = tk_seed((int)i);
        attn_case c = attn_case_new(a, 2.0, seed);
        float *got = tk_malloc((c.nq + 1) * 4);
        float *dout = tk_dev_floats(c.nq + 1);
        for (int j = 0; j < ncounts; j++) {
            const int p = counts[j] ? counts[j] : attn_split_rule(a);
            const size_t wb = attention_split_work_bytes(a, p);
            assert_true(p == 1 ? wb == 0 : wb > 0);
            /* 16 bytes past the workspace, poisoned, must stay so. */
            unsigned char *work = p == 1 ? NULL : tk_dev_bytes(wb + 16);
            if (work) tk_poison(work, wb + 16);
            tk_poison(dout, (c.nq + 1) * 4);
            TK_CUDA(attention_split(c.dq, c.dk, c.dv, dout, a, p, work, wb,
                                    0));
            TK_CUDA(cudaDeviceSynchronize());
            tk_download(got, dout, c.nq + 1);
            char what[160];
            snprintf(what, sizeof what,
                     "split %d B%zu H%zu Sq%zu Sk%zu D%zu%s", p, a.B, a.H,
                     a.Sq, a.Sk, a.D, a.causal ? " causal" : "");
            assert_int_equal(tk_compare(what, got, c.ref, c.nq, c.tol, 0,
                                        seed), 0);
            assert_true(isnan(got[c.nq]));
            if (work) {
                unsigned char tail[16];
                TK_CUDA(cudaMemcpy(tail, work + wb, 16,
                                   cudaMemcpyDeviceToHost));
                for (int t = 0; t < 16; t++) assert_int_equal(tail[t], 0xff);
                tk_free(work);
            }
        }
        tk_free(dout); free(got);
        attn_case_free(&c);
    }
}

/* The rule, on the CPU: no split where the grid fills the GPU, enough
 * shares for twice the GPU's blocks where it does not, never more than
 * ceil(Sk / 256) (so the longest tile's shares average 256 keys or more),
 * never more than ATTN_MAX_SPLITS. */
static void split_rule(void **st)
{
    (void)st;
    const attn_dims big = {8, 16, 4096, 4096, 64, 0};
    assert_int_equal(attention_split_count(big, 132), 1);
    const attn_dims one = {1, 1, 5000, 5000, 128, 1};  /* 40 blocks */
    assert_int_equal(attention_split_count(one, 132), 7);
    const attn_dims dec = {1, 16, 1, 32768, 64, 0};    /* 16 blocks */
    assert_int_equal(attention_split_count(dec, 132), 33);
    const attn_dims few = {1, 1, 64, 300, 64, 0};      /* 300 keys */
    assert_int_equal(attention_split_count(few, 132), 2);
    const attn_dims huge = {1, 1, 1, 1 << 24, 32, 0};
    assert_int_equal(attention_split_count(huge, 132), ATTN_MAX_SPLITS);
    const attn_dims none = {1, 1, 0, 100, 64, 0};
    assert_int_equal(attention_split_count(none, 132), 1);
}

/* The split form's own refusals, without a GPU: a split count outside 1
 * .. ATTN_MAX_SPLITS, a missing, small or misaligned workspace, and a
 * workspace size that overflows. */
static void split_refusals(void **st)
{
    (void)st;
    const attn_dims a = {1, 1, 64, 64, 64, 0};
    float *q = fake(0), *k = fake(1), *v = fake(2), *o = fake(3);
    void *w = FAKE_WORK;
    const size_t wb = attention_split_work_bytes(a, 4);
    assert_true(wb >= 4 * 64 * 66 * 4);
    TK_REFUSED(attention_split(q, k, v, o, a, 0, w, wb, 0));
    TK_REFUSED(attention_split(q, k, v, o, a, ATTN_MAX_SPLITS + 1, w,
                               (size_t)1 << 40, 0));
    TK_REFUSED(attention_split(q, k, v, o, a, 4, NULL, wb, 0));
    TK_REFUSED(attention_split(q, k, v, o, a, 4, w, wb - 1, 0));
    TK_REFUSED(attention_split(q, k, v, o, a, 4, (char *)w + 4, wb, 0));
    assert_int_equal(attention_split_work_bytes(a, 1), 0);
    assert_int_equal(attention_split_work_bytes(a, 0), 0);
    assert_int_equal(attention_split_work_bytes(a, ATTN_MAX_SPLITS + 1), 0);
    const attn_dims wide = {1, 1, (size_t)1 << 52, 1, 128, 0};
    assert_int_equal(attention_split_work_bytes(wide, 64), 0);
    /* Empty problems need no workspace and are done at once. */
    const attn_dims none = {1, 1, 0, 100, 64, 0}, nob = {0, 1, 8, 8, 64, 0};
    assert_int_equal(attention_split_work_bytes(none, 4), 0);
    assert_int_equal(attention_split(q, k, v, o, none, 4, NULL, 0, 0),
                     cudaSuccess);
    assert_int_equal(attention_split(q, k, v, o, nob, 4, NULL, 0, 0),
                     cudaSuccess);
}

/* ---- the cuBLAS form on a handle's own stream -------------------------- */
/* attention_cublas on the stream of its handle, passed as its stream,
 * which leaves the handle as it is.  The handle here has a non-blocking
 * stream (not ordered with the default stream), and that
 * stream first does a long run of memsets, so the scores' product waits
 * behind them; then the workspace and the output are poisoned on the
 * stream.  Any step that ran on another stream would read the poisoned
 * scores (NaN) or write the output before the poison, and the output,
 * copied back on the same stream, would not match the reference. */
static void cublas_on_its_stream(void **st)
{
    (void)st;
    TK_REQUIRE_GPU();
    cublasHandle_t h;
    cudaStream_t s;
    assert_int_equal(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
    assert_int_equal(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH),
                     CUBLAS_STATUS_SUCCESS);
    TK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    assert_int_equal(cublasSetStream(h, s), CUBLAS_STATUS_SUCCESS);
    const size_t delay_bytes = (size_t)(tk_small() ? 16 : 64) << 20;
    const int delays = tk_small() ? 4 : 32;
    void *delay = tk_dev_bytes(delay_bytes);
    static const attn_dims cases[] = {
        {2, 2, 257, 300, 64, 0}, {1, 3, 300, 257, 32, 1},
        {1, 2, 129, 129, 128, 1}, {2, 1, 50, 0, 64, 0},   /* Sk = 0: zeros */
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
        for (int round = 0; round < (tk_small() ? 1 : 2); round++) {
            const attn_dims a = cases[c];
            size_t nq = a.B * a.H * a.Sq * a.D, nk = a.B * a.H * a.Sk * a.D;
            uint64_t seed = tk_seed(round), r = seed;
            float *q = tk_malloc((nq + 1) * 4), *k = tk_malloc((nk + 1) * 4);
            float *v = tk_malloc((nk + 1) * 4);
            float *got = tk_malloc((nq + 1) * 4);
            double *ref = tk_malloc((nq + 1) * sizeof(double)), amax, smax;
            tk_fill(q, nq, -1, 1, &r);
            tk_fill(k, nk, -1, 1, &r);
            tk_fill(v, nk, -1, 1, &r);
            attn_ref(q, k, v, ref, &a, &amax, &smax);
            float *dq = tk_dev_floats(nq + 1), *dk = tk_dev_floats(nk + 1);
            float *dv = tk_dev_floats(nk + 1), *dout = tk_dev_floats(nq + 1);
            size_t wb = attention_work_bytes(a);
            void *work = tk_dev_bytes(wb);
            tk_upload(dq, q, nq); tk_upload(dk, k, nk); tk_upload(dv, v, nk);
            /* cuBLAS's first call on a handle may allocate, and an
             * allocation may wait for the device: one call first.  Then
             * the scores it left are poisoned again, before the delay. */
            TK_CUDA(attention_cublas(h, dq, dk, dv, dout, a, work, s));
            TK_CUDA(cudaDeviceSynchronize());
            tk_poison(work, wb);
            tk_poison(dout, (nq + 1) * 4);
            TK_CUDA(cudaDeviceSynchronize());
            for (int i = 0; i < delays; i++)
                TK_CUDA(cudaMemsetAsync(delay, i, delay_bytes, s));
            TK_CUDA(cudaMemsetAsync(work, 0xff, wb, s));
            TK_CUDA(cudaMemsetAsync(dout, 0xff, (nq + 1) * 4, s));
            TK_CUDA(attention_cublas(h, dq, dk, dv, dout, a, work, s));
            TK_CUDA(cudaMemcpyAsync(got, dout, (nq + 1) * 4,
                                    cudaMemcpyDeviceToHost, s));
            TK_CUDA(cudaStreamSynchronize(s));
            TK_CUDA(cudaDeviceSynchronize());
            char what[160];
            snprintf(what, sizeof what, "cublas on a non-blocking stream "
                     "B%zu H%zu Sq%zu Sk%zu D%zu%s", a.B, a.H, a.Sq, a.Sk,
                     a.D, a.causal ? " causal" : "");
            assert_int_equal(tk_compare(what, got, ref, nq,
                                        attn_tol(&a, amax, 1.0), 0, seed), 0);
            assert_true(isnan(got[nq]));
            tk_free(dq); tk_free(dk); tk_free(dv); tk_free(dout);
            tk_free(work);
            free(q); free(k); free(v); free(got); free(ref);
        }
    tk_free(delay);
    assert_int_equal(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
    TK_CUDA(cudaStreamDestroy(s));
}

/* ---- every launcher follows its stream --------------------------------- */
/* The launchers of the stream test: those of variants.h, then the split
 * form at 4 shares and the wrong-on-purpose warp form.  (At these shapes
 * the rule splits only the one with 700 keys; elsewhere it gives 1, and
 * SPLIT runs the tiled form.) */
enum { ORDER_SPLIT4 = NLAUNCH, ORDER_NO_RESCALE, NORDER };
static const char *order_name(int w)
{
    return w == ORDER_SPLIT4       ? "tiled_split 4"
           : w == ORDER_NO_RESCALE ? "warp_no_rescale"
                                   : attn_variant_name(w);
}
static cudaError_t order_call(int w, cublasHandle_t h, const attn_case *c,
                              float *o, attn_dims a, void *work, size_t wb,
                              cudaStream_t s)
{
    if (w == ORDER_SPLIT4)
        return attention_split(c->dq, c->dk, c->dv, o, a, 4, work, wb, s);
    if (w == ORDER_NO_RESCALE)
        return attention_warp_no_rescale(c->dq, c->dk, c->dv, o, a, s);
    return attn_launch(w, h, c->dq, c->dk, c->dv, o, a, work, s);
}
/* The cuBLAS form takes the gated stream as its argument, on a handle
 * whose stream is the default stream: it must give the handle back its
 * stream.  (Setting a stream resets a handle's workspace to cuBLAS's
 * default pool, so the test sets none: the call on the default stream
 * before the gated one has used that pool already.) */
static int handle_on_default_stream(cublasHandle_t h)
{
    cudaStream_t now = (cudaStream_t)(uintptr_t)1;
    return cublasGetStream(h, &now) == CUBLAS_STATUS_SUCCESS && now == 0;
}
/* Each launcher on shape a, queued on a stream held behind a closed gate:
 * the output and the workspace are still the poison when the launcher
 * has returned (work on another stream, or a wait for the device, would
 * have written them), and the output matches the reference once the gate
 * opens.  A first call on the default stream loads the kernels (loading
 * one may wait for the whole device) and lets the tiled forms ask the
 * device for its shared memory; both buffers are poisoned again after
 * it.  The wrong-on-purpose form must give, bit for bit, what it gave on
 * the default stream. */
static void order_case(cublasHandle_t h, attn_dims a)
{
    const uint64_t seed = tk_seed(0);
    attn_case c = attn_case_new(a, 1.0, seed);
    const size_t ob = (c.nq + 1) * 4, w4 = attention_split_work_bytes(a, 4);
    size_t wb = attention_work_bytes(a);
    if (w4 > wb) wb = w4;
    float *got = tk_malloc(ob), *want = tk_malloc(ob);
    float *dout = tk_dev_floats(c.nq + 1);
    void *work = tk_dev_bytes(wb);
    for (int w = 0; w < NORDER; w++) {
        char what[160];
        snprintf(what, sizeof what, "%s B%zu H%zu Sq%zu Sk%zu D%zu%s on a "
                 "gated stream", order_name(w), a.B, a.H, a.Sq, a.Sk, a.D,
                 a.causal ? " causal" : "");
        tk_poison(dout, ob);
        cudaError_t e = order_call(w, h, &c, dout, a, work, wb, 0);
        if (e == cudaErrorNotSupported && w >= TILED &&
            w != ORDER_NO_RESCALE) {
            print_message("skipped: %s needs more shared memory than this "
                          "GPU gives a block\n", what);
            continue;
        }
        TK_CUDA(e);
        TK_CUDA(cudaDeviceSynchronize());
        tk_download(want, dout, c.nq + 1);
        tk_poison(dout, ob);
        tk_poison(work, wb);
        tk_gate g = tk_gate_close();
        e = order_call(w, h, &c, dout, a, work, wb, g.s);
        int waited = tk_still_poisoned(dout, ob) &&
                     tk_still_poisoned(work, wb);
        tk_gate_open(&g);
        if (w == CUBLAS && !handle_on_default_stream(h))
            print_error("%s: the handle is not back on its stream\n", what);
        assert_true(w != CUBLAS || handle_on_default_stream(h));
        TK_CUDA(e);
        if (!waited)
            print_error("%s: wrote before its stream let it\n", what);
        assert_true(waited);
        tk_download(got, dout, c.nq + 1);
        if (w == ORDER_NO_RESCALE)
            assert_memory_equal(got, want, ob);
        else
            assert_int_equal(tk_compare(what, got, c.ref, c.nq, c.tol, 0,
                                        seed), 0);
        assert_true(isnan(got[c.nq]));        /* nothing written past o */
    }
    tk_free(dout); tk_free(work); free(got); free(want);
    attn_case_free(&c);
}
/* Every launcher of the chapter queues all its work on its stream, on
 * shapes that take each of its paths: the mask of the unfused forms
 * (causal), two query tiles, a rule that splits (700 keys), D = 32, 64
 * and 128 (the compact shape's own kernel), and Sk = 0, where the
 * unfused forms write zeros with a memset. */
static void attention_launchers_follow_the_stream(void **st)
{
    (void)st;
    TK_REQUIRE_GPU();
    TK_SKIP_UNDER_SANITIZER("the sanitizer runs kernels one at a time, so "
                            "work cannot be seen waiting behind the gate");
    static const attn_dims cases[] = {
        {2, 2, 129, 130, 64, 1}, {1, 2, 100, 700, 32, 1},
        {1, 2, 65, 65, 128, 0},  {2, 1, 50, 0, 64, 0},
    };
    cublasHandle_t h;
    assert_int_equal(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
    assert_int_equal(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH),
                     CUBLAS_STATUS_SUCCESS);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        order_case(h, cases[i]);
    assert_int_equal(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
}

/* ---- the tiled forms' largest grid ------------------------------------ */
/* Sq = 64 * 65535, the header's limit, runs: 65535 tiles of 64 rows in
 * the compact shape (D = 128), half as many of 128 in the full one
 * (D = 32).  With one key, every row's output is that key's values. */
static void tiled_largest_grid(void **st)
{
    (void)st;
    TK_REQUIRE_GPU();
    TK_SKIP_UNDER_SANITIZER("4 million rows take long under the sanitizer");
    static const struct { size_t D; int which; } c[] = {{32, TILED},
                                                        {128, COMPACT}};
    for (int i = 0; i < 2; i++) {
        const attn_dims a = {1, 1, 64 * kMaxTiles, 1, c[i].D, 0};
        const size_t nq = a.Sq * a.D, chunk = (size_t)1 << 22;
        uint64_t r = tk_seed(0);
        float *h = tk_malloc(chunk * 4), kv[2][128];
        float *dq = tk_dev_floats(nq), *dout = tk_dev_floats(nq + 1);
        float *dk = tk_dev_floats(a.D), *dv = tk_dev_floats(a.D);
        tk_fill(h, chunk, -1, 1, &r);   /* Q: one random chunk, repeated */
        for (size_t e = 0; e < nq; e += chunk)
            tk_upload(dq + e, h, nq - e < chunk ? nq - e : chunk);
        tk_fill(kv[0], a.D, -1, 1, &r);
        tk_fill(kv[1], a.D, -1, 1, &r);
        tk_upload(dk, kv[0], a.D);
        tk_upload(dv, kv[1], a.D);
        cudaError_t e =
            attn_launch(c[i].which, NULL, dq, dk, dv, dout, a, NULL, 0);
        if (e == cudaErrorNotSupported) {
            print_message("skipped: %s at D = %zu needs more shared memory "
                          "than this GPU gives a block\n",
                          attn_variant_name(c[i].which), a.D);
        } else {
            TK_CUDA(e);
            TK_CUDA(cudaDeviceSynchronize());
            size_t bad = 0;
            for (size_t s = 0; s < nq; s += chunk) {
                size_t m = nq - s < chunk ? nq - s : chunk;
                tk_download(h, dout + s, m);
                for (size_t j = 0; j < m; j++) {
                    float want = kv[1][(s + j) % a.D];
                    if (!(fabsf(h[j] - want) <= 4 * EPS) && bad++ < 3)
                        print_error("%s: row %zu element %zu is %.9g, not "
                                    "%.9g\n", attn_variant_name(c[i].which),
                                    (s + j) / a.D, (s + j) % a.D, h[j], want);
                }
            }
            assert_int_equal(bad, 0);
            tk_download(h, dout + nq, 1);
            assert_true(isnan(h[0]));              /* nothing past o */
        }
        tk_free(dq); tk_free(dout); tk_free(dk); tk_free(dv);
        free(h);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(streamed_equals_two_pass),
        cmocka_unit_test(edge_shapes),
        cmocka_unit_test(long_rows_4097),
        cmocka_unit_test(large_scores),
        cmocka_unit_test(masked_rows_are_zero),
        cmocka_unit_test(split_every_count),
        cmocka_unit_test(split_rule),
        cmocka_unit_test(refusals),
        cmocka_unit_test(tiled_shape_choice),
        cmocka_unit_test(no_rescale_is_wrong),
        cmocka_unit_test(cublas_on_its_stream),
        cmocka_unit_test(attention_launchers_follow_the_stream),
        cmocka_unit_test(tiled_largest_grid),
        cmocka_unit_test(refusals_pointers),
        cmocka_unit_test(refusals_overflow),
        cmocka_unit_test(refusals_limits),
        cmocka_unit_test(refusals_workspace),
        cmocka_unit_test(split_refusals),
    };
    int failed = tk_run_tests("attention", tests);
    if (the_handle && cublasDestroy(the_handle) != CUBLAS_STATUS_SUCCESS)
        failed++;
    return failed;
}
