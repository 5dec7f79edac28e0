/* test_tc_gemm.c -- the tensor-core chapter's tests: every launcher
 * against a double-precision CPU reference of the same bf16 inputs, with
 * the chapter's bound for fp32 accumulation that truncates, on edge and
 * odd shapes (every row) and large ones (a row of every band of 64),
 * both output types, outputs poisoned with guards before and after; C
 * taller than a grid's y dimension; the same pointers with a new shape
 * (the tensor-map memo); the refusals its header promises; K = 0; a
 * stream; the ceiling's value; and the two listings that are wrong on
 * purpose. */
#include "testkit.h"
#include "variants.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct tc_variant {
    const char *name;
    tc_gemm_fn fn;
    const char *listing;
    int cc, aligned;
};
#define TC_TEST_ENTRY(name, fn, listing, cc, aligned) \
    {name, fn, listing, cc, aligned},
static const struct tc_variant variants[] = {TC_VARIANTS(TC_TEST_ENTRY)};
#define NVARIANTS (sizeof variants / sizeof variants[0])

/* The entry of variants.h named name. */
static const struct tc_variant *variant(const char *name)
{
    for (size_t v = 0; v < NVARIANTS; v++)
        if (strcmp(variants[v].name, name) == 0) return &variants[v];
    fail_msg("no variant %s in variants.h", name);
    return NULL;
}

/* Random bf16 in [-1, 1). */
static void fill_bf16(uint16_t *x, size_t n, uint64_t *st)
{
    for (size_t i = 0; i < n; i++)
        x[i] = tk_to_bf16((float)tk_uniform(st, -1.0, 1.0));
}

/* Rows rows[0..nrows) of C = A B and of |A||B|, in double precision. */
static void reference(const uint16_t *A, const uint16_t *B, double *C,
                      double *absC, size_t N, size_t K, const size_t *rows,
                      size_t nrows)
{
    for (size_t r = 0; r < nrows; r++) {
        double *c = C + r * N, *ac = absC + r * N;
        memset(c, 0, N * sizeof *c);
        memset(ac, 0, N * sizeof *ac);
        for (size_t k = 0; k < K; k++) {
            double a = tk_from_bf16(A[rows[r] * K + k]);
            const uint16_t *b = B + k * N;
            for (size_t j = 0; j < N; j++) {
                double bj = tk_from_bf16(b[j]);
                c[j] += a * bj;
                ac[j] += fabs(a) * fabs(bj);
            }
        }
    }
}

/* The chapter's bound: gamma_K sum |a||b| with u = 2^-23 (a truncating
 * fp32 adder), plus the double reference's own error, plus for a bf16
 * output its rounding, at most 2^-8 (its unit roundoff) of the value,
 * bounded by |ref| + tol.  NaN fails.  Returns the number of elements
 * outside. */
static size_t check_rows(const char *what, const void *got, tc_out out,
                         const double *ref, const double *absref,
                         const size_t *rows, size_t nrows, size_t N,
                         size_t K, uint64_t seed)
{
    const double u = 0x1p-23, gamma = K * u / (1.0 - K * u);
    size_t bad = 0;
    for (size_t r = 0; r < nrows; r++)
        for (size_t j = 0; j < N; j++) {
            size_t i = r * N + j, g = rows[r] * N + j;
            double v = out == TC_OUT_F32
                           ? ((const float *)got)[g]
                           : tk_from_bf16(((const uint16_t *)got)[g]);
            double tol = (gamma + K * 0x1p-52) * absref[i];
            if (out == TC_OUT_BF16) tol += 0x1p-8 * (fabs(ref[i]) + tol);
            if (!(fabs(v - ref[i]) <= tol)) {
                if (bad < 5)
                    print_message("%s: C[%zu][%zu] is %.9g, expected %.9g "
                                  "(tolerance %.3g, seed %llu)\n", what,
                                  rows[r], j, v, ref[i], tol,
                                  (unsigned long long)seed);
                bad++;
            }
        }
    return bad;
}

/* Which rows of C are checked: every row, or the first, the last and
 * one random row in each band of 64 rows (a consumer warpgroup's share of
 * a tile, so that no tile goes unchecked). */
enum rows_checked { EVERY_ROW, A_ROW_PER_BAND };
static size_t *rows_to_check(size_t M, enum rows_checked which,
                             uint64_t *st, size_t *nrows)
{
    size_t n = which == EVERY_ROW ? M : 2 + (M + 63) / 64;
    size_t *rows = tk_malloc(n * sizeof *rows);
    for (size_t r = 0; r < n; r++) {
        size_t band = r - 2, lo = 64 * band;
        rows[r] = which == EVERY_ROW ? r
                  : r == 0           ? 0
                  : r == 1           ? M - 1
                  : lo + tk_next(st) % (M - lo < 64 ? M - lo : 64);
    }
    *nrows = n;
    return rows;
}

/* Checks rows[0..nrows) of got = A B, 1024 rows of the reference at a
 * time; returns the number of elements outside the bound. */
static size_t check_against_reference(const char *what, const void *got,
                                      tc_out out, const uint16_t *A,
                                      const uint16_t *B, const size_t *rows,
                                      size_t nrows, size_t N, size_t K,
                                      uint64_t seed)
{
    const size_t chunk = 1024;
    double *ref = tk_malloc(chunk * N * sizeof *ref);
    double *absref = tk_malloc(chunk * N * sizeof *absref);
    size_t bad = 0;
    for (size_t r0 = 0; r0 < nrows; r0 += chunk) {
        size_t n = nrows - r0 < chunk ? nrows - r0 : chunk;
        reference(A, B, ref, absref, N, K, rows + r0, n);
        bad += check_rows(what, got, out, ref, absref, rows + r0, n, N, K,
                          seed);
    }
    free(ref);
    free(absref);
    return bad;
}

/* The guards around C: 16 bytes before and 16 after, poisoned. */
enum { GUARD = 16 };

/* Run v on M x N x K with output out into the device buffers dA, dB and
 * dC (C preceded and followed by GUARD bytes of poison, which must stay),
 * the inputs from round's seed; returns the failures. */
static size_t run_and_check(const struct tc_variant *v, size_t M, size_t N,
                            size_t K, tc_out out, int round, size_t off,
                            enum rows_checked which, char *dA, char *dB,
                            char *dC)
{
    uint64_t seed = tk_seed(round), st = seed;
    size_t esz = out == TC_OUT_F32 ? 4 : 2, cbytes = M * N * esz;
    uint16_t *A = tk_malloc(M * K * 2 + 2), *B = tk_malloc(K * N * 2 + 2);
    fill_bf16(A, M * K, &st);
    fill_bf16(B, K * N, &st);
    size_t nrows;
    size_t *rows = rows_to_check(M, which, &st, &nrows);
    tk_upload_bytes(dA, A, M * K * 2);
    tk_upload_bytes(dB, B, K * N * 2);
    tk_poison(dC - GUARD, cbytes + 2 * GUARD);
    TK_CUDA(v->fn((void *)dA, (void *)dB, dC, out, M, N, K, 0));
    TK_CUDA(cudaDeviceSynchronize());
    unsigned char *C = tk_malloc(cbytes + 2 * GUARD);
    tk_download_bytes(C, dC - GUARD, cbytes + 2 * GUARD);
    size_t outside = 0;
    for (size_t i = 0; i < GUARD; i++)
        outside += (C[i] != 0xff) + (C[GUARD + cbytes + i] != 0xff);
    if (outside)
        print_message("%s %zux%zux%zu wrote outside C\n", v->name, M, N, K);
    char what[160];
    snprintf(what, sizeof what, "%s %zux%zux%zu %s offset %zu", v->name, M,
             N, K, out == TC_OUT_F32 ? "fp32" : "bf16", off);
    size_t bad = outside + check_against_reference(what, C + GUARD, out, A,
                                                   B, rows, nrows, N, K,
                                                   seed);
    free(A); free(B); free(C); free(rows);
    return bad;
}

/* run_and_check on buffers of its own, with A, B and C off elements past
 * 16-byte boundaries. */
static size_t check_at(const struct tc_variant *v, size_t M, size_t N,
                       size_t K, tc_out out, int round, size_t off,
                       enum rows_checked which)
{
    size_t esz = out == TC_OUT_F32 ? 4 : 2;
    char *dA0 = tk_dev_bytes(M * K * 2 + 32);
    char *dB0 = tk_dev_bytes(K * N * 2 + 32);
    char *dC0 = tk_dev_bytes(M * N * esz + 2 * GUARD + 16);
    size_t bad = run_and_check(v, M, N, K, out, round, off, which,
                               dA0 + 2 * off, dB0 + 2 * off,
                               dC0 + GUARD + esz * off);
    tk_free(dA0); tk_free(dB0); tk_free(dC0);
    return bad;
}
static size_t check_shape(const struct tc_variant *v, size_t M, size_t N,
                          size_t K, tc_out out, int round)
{
    return check_at(v, M, N, K, out, round, 0, EVERY_ROW);
}

/* Shapes that keep the 16-byte rule: 1, 15, 16, 17 rows; tile edges of
 * 64, 128 and 256; odd M; N and K past a tile; 2200 x 2304 x 136, more
 * tiles than SMs (162 of 128 x 256, 18 rows of them, three steps of K),
 * for the persistent kernel's bookkeeping across tiles.  The first eight
 * are the sanitizer's. */
static const size_t aligned_shapes[][3] = {
    {1, 8, 8},       {15, 16, 16},    {16, 24, 16},    {17, 24, 40},
    {64, 64, 64},    {127, 136, 72},  {129, 264, 136}, {2200, 2304, 136},
    {300, 136, 16},  {16, 16, 16},
    {128, 256, 64},  {257, 520, 1000}, {255, 256, 192}, {33, 1024, 520},
    {1000, 264, 4104},
};
/* Shapes no 16-byte copy can take: for wmma and the launcher's fallback. */
static const size_t odd_shapes[][3] = {
    {1, 1, 1},    {15, 15, 15},  {17, 33, 31}, {31, 17, 100},
    {129, 127, 65}, {64, 1000, 127}, {300, 7, 9},
};
#define NALIGNED (sizeof aligned_shapes / sizeof aligned_shapes[0])
#define NODD (sizeof odd_shapes / sizeof odd_shapes[0])

static void edge_shapes(const struct tc_variant *v)
{
    TK_REQUIRE_LISTING(v->listing, v->cc);
    size_t bad = 0, na = tk_small() ? 8 : NALIGNED;
    size_t no = tk_small() ? 3 : NODD;
    for (int round = 0; round < 2; round++) {
        for (size_t s = 0; s < na; s++)
            bad += check_shape(v, aligned_shapes[s][0], aligned_shapes[s][1],
                               aligned_shapes[s][2],
                               (s + round) % 2 ? TC_OUT_BF16 : TC_OUT_F32,
                               round);
        if (!v->aligned)
            for (size_t s = 0; s < no; s++)
                bad += check_shape(v, odd_shapes[s][0], odd_shapes[s][1],
                                   odd_shapes[s][2],
                                   (s + round) % 2 ? TC_OUT_F32 : TC_OUT_BF16,
                                   round);
        if (!v->aligned)             // pointers one and three elements off
            for (size_t off = 1; off <= 3; off += 2)
                bad += check_at(v, 33, 40, 24,
                                off == 1 ? TC_OUT_F32 : TC_OUT_BF16, round,
                                off, EVERY_ROW);
    }
    assert_int_equal(bad, 0);
}

/* 2048 x 2048 x 2048 and 4096 x 4104 x 4096: the first and last rows and
 * one random row of every band of 64. */
static void large_shapes(const struct tc_variant *v)
{
    TK_REQUIRE_LISTING(v->listing, v->cc);
    TK_SKIP_UNDER_SANITIZER("large shapes take too long under the sanitizer");
    size_t bad = check_at(v, 2048, 2048, 2048, TC_OUT_F32, 0, 0,
                          A_ROW_PER_BAND);
    bad += check_at(v, 4096, 4104, 4096, TC_OUT_BF16, 1, 0, A_ROW_PER_BAND);
    assert_int_equal(bad, 0);
}

/* One test of each kind per launcher, in the order of variants.h. */
static void wmma_edge_shapes(void **state)
{
    (void)state;
    edge_shapes(variant("wmma"));
}
static void wmma_large_shapes(void **state)
{
    (void)state;
    large_shapes(variant("wmma"));
}
static void mma_unswizzled_edge_shapes(void **state)
{
    (void)state;
    edge_shapes(variant("mma-unswizzled"));
}
static void mma_unswizzled_large_shapes(void **state)
{
    (void)state;
    large_shapes(variant("mma-unswizzled"));
}
static void mma_edge_shapes(void **state)
{
    (void)state;
    edge_shapes(variant("mma"));
}
static void mma_large_shapes(void **state)
{
    (void)state;
    large_shapes(variant("mma"));
}
static void wgmma_edge_shapes(void **state)
{
    (void)state;
    edge_shapes(variant("wgmma"));
}
static void wgmma_large_shapes(void **state)
{
    (void)state;
    large_shapes(variant("wgmma"));
}
static void wgmma_in_flight_edge_shapes(void **state)
{
    (void)state;
    edge_shapes(variant("wgmma-in-flight"));
}
static void wgmma_in_flight_large_shapes(void **state)
{
    (void)state;
    large_shapes(variant("wgmma-in-flight"));
}
static void ws_128_edge_shapes(void **state)
{
    (void)state;
    edge_shapes(variant("ws-128"));
}
static void ws_128_large_shapes(void **state)
{
    (void)state;
    large_shapes(variant("ws-128"));
}
static void warp_specialized_edge_shapes(void **state)
{
    (void)state;
    edge_shapes(variant("warp-specialized"));
}
static void warp_specialized_large_shapes(void **state)
{
    (void)state;
    large_shapes(variant("warp-specialized"));
}
static void ws_row_order_edge_shapes(void **state)
{
    (void)state;
    edge_shapes(variant("ws-row-order"));
}
static void ws_row_order_large_shapes(void **state)
{
    (void)state;
    large_shapes(variant("ws-row-order"));
}
static void persistent_edge_shapes(void **state)
{
    (void)state;
    edge_shapes(variant("persistent"));
}
static void persistent_large_shapes(void **state)
{
    (void)state;
    large_shapes(variant("persistent"));
}
static void cluster_edge_shapes(void **state)
{
    (void)state;
    edge_shapes(variant("cluster"));
}
static void cluster_large_shapes(void **state)
{
    (void)state;
    large_shapes(variant("cluster"));
}
static void cluster_wg_arrive_edge_shapes(void **state)
{
    (void)state;
    edge_shapes(variant("cluster-wg-arrive"));
}
static void cluster_wg_arrive_large_shapes(void **state)
{
    (void)state;
    large_shapes(variant("cluster-wg-arrive"));
}
static void best_edge_shapes(void **state)
{
    (void)state;
    edge_shapes(variant("best"));
}
static void best_large_shapes(void **state)
{
    (void)state;
    large_shapes(variant("best"));
}

/* A launcher that refuses must write nothing: C stays poisoned. */
static void assert_untouched(const void *dC, size_t bytes)
{
    unsigned char *h = tk_malloc(bytes);
    tk_download_bytes(h, dC, bytes);
    for (size_t i = 0; i < bytes; i++) assert_int_equal(h[i], 0xff);
    free(h);
}

/* The 16-byte rule's launchers refuse K or N not a multiple of 8 and
 * pointers off 16-byte boundaries, with cudaErrorInvalidValue. */
static void aligned_launchers_refuse_the_rest(void **state)
{
    (void)state;
    TK_REQUIRE_GPU();
    char *dA = tk_dev_bytes(64 * 64 * 2 + 32);
    char *dB = tk_dev_bytes(64 * 64 * 2 + 32);
    char *dC = tk_dev_bytes(64 * 64 * 4 + 32);
    for (size_t v = 0; v < NVARIANTS; v++) {
        if (!variants[v].aligned) continue;
        tc_gemm_fn f = variants[v].fn;
        const void *a = dA, *b = dB, *a2 = dA + 2, *b8 = dB + 8;
        TK_REFUSED(f(a, b, dC, TC_OUT_F32, 64, 60, 64, 0));
        TK_REFUSED(f(a, b, dC, TC_OUT_F32, 64, 64, 63, 0));
        TK_REFUSED(f(a2, b, dC, TC_OUT_F32, 64, 64, 64, 0));
        TK_REFUSED(f(a, b8, dC, TC_OUT_BF16, 64, 64, 64, 0));
        TK_REFUSED(f(a, b, dC + 4, TC_OUT_F32, 64, 64, 64, 0));
    }
    TK_CUDA(cudaDeviceSynchronize());
    assert_untouched(dC, 64 * 64 * 4 + 32);
    tk_free(dA); tk_free(dB); tk_free(dC);
}

/* Every launcher: a bad output type, null pointers and sizes of 2^31 are
 * refused; M or N = 0 writes nothing; K = 0 writes zeros. */
static void bad_arguments_and_empty_sizes(void **state)
{
    (void)state;
    TK_REQUIRE_GPU();
    void *dA = tk_dev_bytes(4096), *dB = tk_dev_bytes(4096);
    void *dC = tk_dev_bytes(64 * 64 * 4);
    const size_t big = (size_t)1 << 31;
    for (size_t v = 0; v < NVARIANTS; v++) {
        tc_gemm_fn f = variants[v].fn;
        TK_REFUSED(f(dA, dB, dC, (tc_out)7, 8, 8, 8, 0));
        TK_REFUSED(f(dA, dB, NULL, TC_OUT_F32, 8, 8, 8, 0));
        TK_REFUSED(f(NULL, dB, dC, TC_OUT_F32, 8, 8, 8, 0));
        TK_REFUSED(f(dA, NULL, dC, TC_OUT_F32, 8, 8, 8, 0));
        TK_REFUSED(f(dA, dB, dC, TC_OUT_F32, big, 8, 8, 0));
        TK_REFUSED(f(dA, dB, dC, TC_OUT_F32, 8, big, 8, 0));
        TK_REFUSED(f(dA, dB, dC, TC_OUT_F32, 8, 8, big, 0));
        assert_int_equal(f(dA, dB, dC, TC_OUT_F32, 0, 8, 8, 0), cudaSuccess);
        assert_int_equal(f(dA, dB, dC, TC_OUT_F32, 8, 0, 8, 0), cudaSuccess);
        TK_CUDA(cudaDeviceSynchronize());
        assert_untouched(dC, 64 * 64 * 4);
        for (int o = 0; o < 2; o++) {
            size_t bytes = 64 * 64 * (o ? 2 : 4);
            TK_CUDA(f(NULL, NULL, dC, (tc_out)o, 64, 64, 0, 0));
            TK_CUDA(cudaDeviceSynchronize());
            unsigned char *h = tk_malloc(64 * 64 * 4);
            tk_download_bytes(h, dC, 64 * 64 * 4);
            for (size_t i = 0; i < 64 * 64 * 4; i++)
                assert_int_equal(h[i], i < bytes ? 0 : 0xff);
            free(h);
            tk_poison(dC, 64 * 64 * 4);
        }
    }
    tk_free(dA); tk_free(dB); tk_free(dC);
}

/* The launcher on a stream of its own, ordered after an upload on it. */
static void runs_on_a_stream(void **state)
{
    (void)state;
    TK_REQUIRE_ARCH(8, 0, "the tensor-core launchers");
    const size_t M = 200, N = 136, K = 264;
    uint64_t st = tk_seed(0);
    uint16_t *A = tk_malloc(M * K * 2), *B = tk_malloc(K * N * 2);
    fill_bf16(A, M * K, &st);
    fill_bf16(B, K * N, &st);
    size_t rows[M];
    for (size_t r = 0; r < M; r++) rows[r] = r;
    double *ref = tk_malloc(M * N * sizeof *ref);
    double *absref = tk_malloc(M * N * sizeof *absref);
    reference(A, B, ref, absref, N, K, rows, M);
    void *dA = tk_dev_bytes(M * K * 2), *dB = tk_dev_bytes(K * N * 2);
    void *dC = tk_dev_bytes(M * N * 4);
    cudaStream_t s;
    // The poison was written on the legacy stream, which a non-blocking
    // stream does not wait for.
    TK_CUDA(cudaDeviceSynchronize());
    TK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    TK_CUDA(cudaMemcpyAsync(dA, A, M * K * 2, cudaMemcpyHostToDevice, s));
    TK_CUDA(cudaMemcpyAsync(dB, B, K * N * 2, cudaMemcpyHostToDevice, s));
    TK_CUDA(tc_gemm(dA, dB, dC, TC_OUT_F32, M, N, K, s));
    float *C = tk_malloc(M * N * 4);
    TK_CUDA(cudaMemcpyAsync(C, dC, M * N * 4, cudaMemcpyDeviceToHost, s));
    TK_CUDA(cudaStreamSynchronize(s));
    TK_CUDA(cudaStreamDestroy(s));
    assert_int_equal(check_rows("tc_gemm on a stream", C, TC_OUT_F32, ref,
                                absref, rows, M, N, K, tk_seed(0)), 0);
    tk_free(dA); tk_free(dB); tk_free(dC);
    free(A); free(B); free(C); free(ref); free(absref);
}

/* CPU-side: pointers not aligned to their element are refused by every
 * launcher before anything runs (a misaligned store would end the
 * context), K = 0 included.  The old code launched wmma and tc_gemm with
 * such a C. */
static void misaligned_elements_refused(void **state)
{
    (void)state;
    const void *a = TK_FAKE(1 << 20), *b = TK_FAKE(2 << 20);
    void *c = TK_FAKE(3 << 20);
    const void *a1 = TK_FAKE((1 << 20) + 1), *b1 = TK_FAKE((2 << 20) + 1);
    for (size_t v = 0; v < NVARIANTS; v++) {
        tc_gemm_fn f = variants[v].fn;
        for (int k = 0; k <= 8; k += 8) {
            TK_REFUSED(f(a, b, (char *)c + 1, TC_OUT_F32, 8, 8, k, 0));
            TK_REFUSED(f(a, b, (char *)c + 2, TC_OUT_F32, 8, 8, k, 0));
            TK_REFUSED(f(a, b, (char *)c + 1, TC_OUT_BF16, 8, 8, k, 0));
        }
        TK_REFUSED(f(a1, b, c, TC_OUT_F32, 8, 8, 8, 0));
        TK_REFUSED(f(a, b1, c, TC_OUT_BF16, 8, 8, 8, 0));
    }
}

/* The Hopper launchers' limits, refused before any memory is touched: M
 * past 65535 * 128 rows for the one-warpgroup kernels; more than
 * INT32_MAX tiles, or INT32_MAX / 2 pairs, for the others. */
static void hopper_limits_refused(void **state)
{
    (void)state;
    TK_REQUIRE_LISTING("tc_wgmma.sm90a.cu", 90);
    void *dA = tk_dev_bytes(4096), *dB = tk_dev_bytes(4096);
    void *dC = tk_dev_bytes(4096);
    const size_t tall = 65535 * 128 + 8, wide = (size_t)1 << 30;
    TK_REFUSED(tc_gemm_wgmma(dA, dB, dC, TC_OUT_F32, tall, 8, 8, 0));
    TK_REFUSED(tc_gemm_wgmma_in_flight(dA, dB, dC, TC_OUT_F32, tall, 8, 8,
                                       0));
    TK_REFUSED(tc_gemm_wrong_late_wait(dA, dB, dC, TC_OUT_F32, tall, 8, 8,
                                       0));
    const tc_gemm_fn tiled[] = {tc_gemm_ws, tc_gemm_ws_128,
                                tc_gemm_ws_row_order, tc_gemm_persistent,
                                tc_gemm_cluster, tc_gemm_cluster_wg_arrive,
                                tc_gemm_wrong_early_release};
    for (size_t i = 0; i < sizeof tiled / sizeof tiled[0]; i++)
        TK_REFUSED(tiled[i](dA, dB, dC, TC_OUT_F32, wide, wide, 8, 0));
    TK_CUDA(cudaDeviceSynchronize());
    assert_untouched(dC, 4096);
    tk_free(dA); tk_free(dB); tk_free(dC);
}

/* C taller than a grid's y dimension covers: wmma (and tc_gemm's
 * fallback) past 65535 * 64 rows, mma.sync past 65535 * 128, so that the
 * launchers run in slabs.  Every row is checked.  The old launchers
 * refused these sizes. */
static void tall_matrices_run_in_slabs(void **state)
{
    (void)state;
    TK_REQUIRE_ARCH(8, 0, "the tensor-core launchers");
    TK_SKIP_UNDER_SANITIZER("a C of 67 million elements is too slow there");
    const size_t tall64 = 65535 * 64 + 1, tall128 = 65535 * 128 + 1;
    size_t bad = check_at(variant("wmma"), tall64, 7, 7, TC_OUT_F32, 0, 0,
                          EVERY_ROW);
    bad += check_at(variant("best"), tall64, 7, 7, TC_OUT_BF16, 1, 0,
                    EVERY_ROW);
    bad += check_at(variant("mma"), tall128, 8, 8, TC_OUT_F32, 0, 0,
                    EVERY_ROW);
    bad += check_at(variant("mma-unswizzled"), tall128, 8, 8, TC_OUT_BF16, 1,
                    0, EVERY_ROW);
    bad += check_at(variant("best"), tall128, 8, 8, TC_OUT_F32, 1, 0,
                    EVERY_ROW);
    assert_int_equal(bad, 0);
}

/* The same A, B and C, first 256 x 256 x 256, then 200 x 136 x 264: a
 * tensor map remembered by its pointer alone would give the second call
 * the first one's sizes and strides, and wrong rows of A and B.  Every
 * launcher that makes tensor maps, and tc_gemm. */
static void gemm_same_pointers_new_shape(void **state)
{
    (void)state;
    TK_REQUIRE_LISTING("tc_wgmma.sm90a.cu", 90);
    const char *names[] = {"wgmma", "wgmma-in-flight", "ws-128",
                           "warp-specialized", "ws-row-order", "persistent",
                           "cluster", "cluster-wg-arrive", "best"};
    char *dA = tk_dev_bytes(256 * 264 * 2), *dB = tk_dev_bytes(264 * 256 * 2);
    char *dC = tk_dev_bytes(256 * 256 * 4 + 2 * GUARD);
    size_t bad = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const struct tc_variant *v = variant(names[i]);
        for (int round = 0; round < 2; round++) {
            bad += run_and_check(v, 256, 256, 256, TC_OUT_F32, round, 0,
                                 EVERY_ROW, dA, dB, dC + GUARD);
            bad += run_and_check(v, 200, 136, 264, TC_OUT_F32, round, 0,
                                 EVERY_ROW, dA, dB, dC + GUARD);
            bad += run_and_check(v, 256, 256, 256, TC_OUT_BF16, round, 0,
                                 EVERY_ROW, dA, dB, dC + GUARD);
        }
    }
    tk_free(dA); tk_free(dB); tk_free(dC);
    assert_int_equal(bad, 0);
}

/* The bf16 value of element i of the ceiling's tiles. */
static double peak_tile(size_t byte)
{
    return tk_from_bf16(tc_peak_bits((unsigned)(byte / 2)));
}

/* The ceiling's launcher: refuses what it does not take, and computes
 * what its descriptors say.  Warpgroup c multiplies its 64 x 64 tile of
 * A (K-major, at byte 8192 c) by the first 16 rows of K of the 16 x 256
 * tile of B (MN-major, four boxes of 64 columns from byte 16384), for each
 * 16 columns of A, iters times; both tiles in the 128-byte swizzle.  The
 * old kernel's tiles were two-thirds zeros and stored nothing. */
static void peak_runs_and_computes(void **state)
{
    (void)state;
    TK_REQUIRE_LISTING("tc_peak.sm90a.cu", 90);
    float *sink = tk_dev_floats(TC_PEAK_SINK);
    TK_REFUSED(tc_peak(0, 10, sink, 0));
    TK_REFUSED(tc_peak(4, 0, sink, 0));
    TK_REFUSED(tc_peak(4, 10, NULL, 0));
    TK_REFUSED(tc_peak(4, 10, (float *)((char *)sink + 2), 0));
    const int iters = 10;
    TK_CUDA(tc_peak(4, iters, sink, 0));
    TK_CUDA(cudaDeviceSynchronize());
    float *got = tk_malloc(TC_PEAK_SINK * sizeof *got);
    tk_download(got, sink, TC_PEAK_SINK);
    double *ref = tk_malloc(TC_PEAK_SINK * sizeof *ref);
    double *absref = tk_malloc(TC_PEAK_SINK * sizeof *absref);
    size_t rows[128];
    for (size_t r = 0; r < 128; r++) {
        rows[r] = r;
        size_t c = r / 64, m = r % 64;
        for (size_t n = 0; n < 256; n++) {
            double sum = 0.0, abs = 0.0;
            for (size_t k = 0; k < 64; k++) {
                size_t kb = k % 16;
                double a = peak_tile(8192 * c + 128 * m +
                                     (((k / 8) ^ (m % 8)) << 4) + 2 * (k % 8));
                double b = peak_tile(16384 + 8192 * (n / 64) + 128 * kb +
                                     ((((n % 64) / 8) ^ (kb % 8)) << 4) +
                                     2 * (n % 8));
                sum += a * b;
                abs += fabs(a) * fabs(b);
            }
            ref[r * 256 + n] = iters * sum;
            absref[r * 256 + n] = iters * abs;
        }
    }
    assert_int_equal(check_rows("tc_peak", got, TC_OUT_F32, ref, absref,
                                rows, 128, 256, 64 * iters, 0), 0);
    tk_free(sink);
    free(got); free(ref); free(absref);
}

/* Wrong on purpose: waiting for a stage after reading it reads tiles
 * that have not landed (the listing fills its shared memory with NaNs
 * first, so that such a read shows).  Shapes with two steps of K, where
 * the first read follows the first copy at once: at least one of 20 runs
 * must be wrong. */
static void wrong_late_wait_reads_early(void **state)
{
    (void)state;
    TK_REQUIRE_LISTING("tc_wgmma.sm90a.cu", 90);
    TK_SKIP_UNDER_SANITIZER("wrong on purpose, and the sanitizer does not "
                            "see the copies of TMA or the reads of wgmma");
    const struct tc_variant right = {"wgmma", tc_gemm_wgmma,
                                     "tc_wgmma.sm90a.cu", 90, 1};
    const struct tc_variant late = {"wrong late wait",
                                    tc_gemm_wrong_late_wait,
                                    "tc_wgmma.sm90a.cu", 90, 1};
    // The control: the same kernel with its wait in place is right.
    assert_int_equal(check_shape(&right, 1024, 1024, 72, TC_OUT_F32, 0) +
                         check_shape(&right, 129, 264, 72, TC_OUT_F32, 1),
                     0);
    size_t wrong = 0;
    for (int t = 0; t < 20 && wrong == 0; t++)
        wrong += check_shape(&late, t % 2 ? 129 : 1024, t % 2 ? 264 : 1024,
                             72, TC_OUT_F32, t % 2) > 0;
    print_message("the late wait gave a wrong C: %s\n", wrong ? "yes" : "no");
    assert_true(wrong > 0);
}

/* ---- stream order ------------------------------------------------------ */

/* v on 1024 x 1024 x 136 (16 tiles of 256 x 256 at the least, three steps
 * of K), fp32 output, queued on a stream held behind a closed gate: C is
 * still the poison when the launcher has returned, and right (64 rows
 * sampled) once the gate opens.  A first call on the default stream loads
 * the kernel (loading one may wait for the whole device) and sets its
 * shared-memory opt-in.  wrong: a listing wrong on purpose, which must
 * follow its stream like the others; its C is not checked. */
static void order_case(const struct tc_variant *v, int wrong)
{
    const size_t M = 1024, N = 1024, K = 136, nrows = 64;
    uint64_t seed = tk_seed(0), st = seed;
    uint16_t *A = tk_malloc(M * K * 2), *B = tk_malloc(K * N * 2);
    fill_bf16(A, M * K, &st);
    fill_bf16(B, K * N, &st);
    size_t rows[64];
    for (size_t r = 0; r < nrows; r++)
        rows[r] = r < 2 ? r * (M - 1) : tk_next(&st) % M;
    double *ref = tk_malloc(nrows * N * sizeof *ref);
    double *absref = tk_malloc(nrows * N * sizeof *absref);
    reference(A, B, ref, absref, N, K, rows, nrows);
    void *dA = tk_dev_bytes(M * K * 2), *dB = tk_dev_bytes(K * N * 2);
    void *dC = tk_dev_bytes(M * N * 4);
    tk_upload_bytes(dA, A, M * K * 2);
    tk_upload_bytes(dB, B, K * N * 2);
    TK_CUDA(v->fn(dA, dB, dC, TC_OUT_F32, M, N, K, 0));
    TK_CUDA(cudaDeviceSynchronize());
    tk_poison(dC, M * N * 4);
    tk_gate g = tk_gate_close();
    cudaError_t e = v->fn(dA, dB, dC, TC_OUT_F32, M, N, K, g.s);
    char what[96];
    snprintf(what, sizeof what, "%s on a gated stream", v->name);
    tk_gate_open_untouched(&g, dC, NULL, M * N * 4, what);
    TK_CUDA(e);
    float *C = tk_malloc(M * N * 4);
    tk_download_bytes(C, dC, M * N * 4);
    if (!wrong)
        assert_int_equal(check_rows(what, C, TC_OUT_F32, ref, absref, rows,
                                    nrows, N, K, seed), 0);
    tk_free(dA); tk_free(dB); tk_free(dC);
    free(A); free(B); free(C); free(ref); free(absref);
}

/* Every launcher of variants.h whose code runs on compute capability 8.0
 * and later queues all its work on the stream it is given. */
static void tc_launchers_follow_the_stream(void **state)
{
    (void)state;
    TK_REQUIRE_LISTING("tc_mma.sm80.cu", 80);
    for (size_t v = 0; v < NVARIANTS; v++)
        if (variants[v].cc == 80) order_case(&variants[v], 0);
}

/* The same for the sm_90a launchers: those of variants.h, the late wait
 * that is wrong on purpose, and the ceiling, whose block 0 stores its
 * accumulators in the sink. */
static void tc_sm90a_launchers_follow_the_stream(void **state)
{
    (void)state;
    TK_REQUIRE_LISTING("tc_wgmma.sm90a.cu", 90);
    for (size_t v = 0; v < NVARIANTS; v++)
        if (variants[v].cc == 90) order_case(&variants[v], 0);
    const struct tc_variant late = {"wrong late wait",
                                    tc_gemm_wrong_late_wait,
                                    "tc_wgmma.sm90a.cu", 90, 1};
    order_case(&late, 1);
    const struct tc_variant early = {"wrong early release",
                                     tc_gemm_wrong_early_release,
                                     "tc_wgmma.sm90a.cu", 90, 1};
    order_case(&early, 1);
    float *sink = tk_dev_floats(TC_PEAK_SINK);
    TK_CUDA(tc_peak(4, 10, sink, 0));
    TK_CUDA(cudaDeviceSynchronize());
    tk_poison(sink, TC_PEAK_SINK * sizeof(float));
    tk_gate g = tk_gate_close();
    cudaError_t e = tc_peak(4, 10, sink, g.s);
    tk_gate_open_untouched(&g, sink, NULL, TC_PEAK_SINK * sizeof(float),
                           "tc_peak on a gated stream");
    TK_CUDA(e);
    /* and it ran once the gate opened: block 0 stored its tiles */
    assert_false(tk_still_poisoned(sink, TC_PEAK_SINK * sizeof(float)));
    tk_free(sink);
}

/* Wrong on purpose: giving a stage back as soon as it lands, before its
 * wgmma have read it (a sleep in the listing stands for their wait behind
 * earlier groups), lets the producer refill it under them: the write
 * after read of the ring.  racecheck sees neither the copies of TMA nor
 * the reads of wgmma, so only the results can show it.  The control is
 * tc_gemm_ws on the same shapes; then at least one of 20 runs of the
 * wrong listing, 64 steps of K each, must be wrong. */
static void wrong_early_release_reads_refilled(void **state)
{
    (void)state;
    TK_REQUIRE_LISTING("tc_wgmma.sm90a.cu", 90);
    TK_SKIP_UNDER_SANITIZER("wrong on purpose, and the sanitizer does not "
                            "see the copies of TMA or the reads of wgmma");
    const struct tc_variant early = {"wrong early release",
                                     tc_gemm_wrong_early_release,
                                     "tc_wgmma.sm90a.cu", 90, 1};
    const struct tc_variant *right = variant("warp-specialized");
    assert_int_equal(check_at(right, 2048, 2048, 4096, TC_OUT_F32, 0, 0,
                              A_ROW_PER_BAND) +
                         check_at(right, 1024, 1024, 4096, TC_OUT_F32, 1, 0,
                                  A_ROW_PER_BAND),
                     0);
    size_t wrong = 0;
    for (int t = 0; t < 20 && wrong == 0; t++)
        wrong += check_at(&early, t % 2 ? 1024 : 2048, t % 2 ? 1024 : 2048,
                          4096, TC_OUT_F32, t % 2, 0, A_ROW_PER_BAND) > 0;
    print_message("the early release gave a wrong C: %s\n",
                  wrong ? "yes" : "no");
    assert_true(wrong > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(wmma_edge_shapes),
        cmocka_unit_test(wmma_large_shapes),
        cmocka_unit_test(mma_unswizzled_edge_shapes),
        cmocka_unit_test(mma_unswizzled_large_shapes),
        cmocka_unit_test(mma_edge_shapes),
        cmocka_unit_test(mma_large_shapes),
        cmocka_unit_test(wgmma_edge_shapes),
        cmocka_unit_test(wgmma_large_shapes),
        cmocka_unit_test(wgmma_in_flight_edge_shapes),
        cmocka_unit_test(wgmma_in_flight_large_shapes),
        cmocka_unit_test(ws_128_edge_shapes),
        cmocka_unit_test(ws_128_large_shapes),
        cmocka_unit_test(warp_specialized_edge_shapes),
        cmocka_unit_test(warp_specialized_large_shapes),
        cmocka_unit_test(ws_row_order_edge_shapes),
        cmocka_unit_test(ws_row_order_large_shapes),
        cmocka_unit_test(persistent_edge_shapes),
        cmocka_unit_test(persistent_large_shapes),
        cmocka_unit_test(cluster_edge_shapes),
        cmocka_unit_test(cluster_large_shapes),
        cmocka_unit_test(cluster_wg_arrive_edge_shapes),
        cmocka_unit_test(cluster_wg_arrive_large_shapes),
        cmocka_unit_test(best_edge_shapes),
        cmocka_unit_test(best_large_shapes),
        cmocka_unit_test(aligned_launchers_refuse_the_rest),
        cmocka_unit_test(bad_arguments_and_empty_sizes),
        cmocka_unit_test(misaligned_elements_refused),
        cmocka_unit_test(hopper_limits_refused),
        cmocka_unit_test(tall_matrices_run_in_slabs),
        cmocka_unit_test(gemm_same_pointers_new_shape),
        cmocka_unit_test(runs_on_a_stream),
        cmocka_unit_test(peak_runs_and_computes),
        cmocka_unit_test(wrong_late_wait_reads_early),
        cmocka_unit_test(tc_launchers_follow_the_stream),
        cmocka_unit_test(tc_sm90a_launchers_follow_the_stream),
        cmocka_unit_test(wrong_early_release_reads_refilled),
    };
    return tk_run_tests("tensor-gemm", tests);
}
