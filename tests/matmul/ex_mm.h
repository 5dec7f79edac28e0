/* ex_mm.h -- what the matmul chapter's exercise drivers share:
 * C = alpha A B + beta C on the GPU against a double reference.  A float
 * dot product of K terms, in any order, is within gamma_K sum |a b| of the
 * exact one (gamma_K = K u / (1 - K u), u = 2^-24); alpha and beta add two
 * roundings more.  The tolerance is twice that bound. */
#include "exkit.h"
#include <math.h>
#include <stdio.h>

typedef cudaError_t (*ex_gemm_fn)(const float *A, const float *B, float *C,
                                  size_t M, size_t N, size_t K, float alpha,
                                  float beta, cudaStream_t stream);

/* c_init: 0 leaves C poisoned (NaN), 1 fills it with random values. */
static void ex_gemm_check(ex_gemm_fn fn, size_t M, size_t N, size_t K,
                          float alpha, float beta, int c_init, int round)
{
    uint64_t seed = tk_seed(round), st = seed;
    float *A = tk_malloc((M * K + 1) * sizeof *A), *B = tk_malloc((K * N + 1) * sizeof *B);
    float *C0 = tk_malloc(M * N * sizeof *C0), *C = tk_malloc(M * N * sizeof *C);
    tk_fill(A, M * K, -1.0, 1.0, &st);
    tk_fill(B, K * N, -1.0, 1.0, &st);
    tk_fill(C0, M * N, -1.0, 1.0, &st);
    float *dA = tk_dev_floats(M * K + 1), *dB = tk_dev_floats(K * N + 1);
    float *dC = tk_dev_floats(M * N);
    tk_upload(dA, A, M * K);
    tk_upload(dB, B, K * N);
    if (c_init) tk_upload(dC, C0, M * N);
    EX_CUDA(fn(dA, dB, dC, M, N, K, alpha, beta, 0));
    TK_CUDA(cudaDeviceSynchronize());
    tk_download(C, dC, M * N);
    const double u = 0x1p-24, g = (K + 2) * u / (1 - (K + 2) * u);
    /* The reference a row at a time, k outside j (B read along its rows,
     * not down its columns: 1000^3 takes under a second, not several).
     * Past 2^24 multiply-adds only rows i % 7 == 0 and the last are
     * checked: every column, every block row of 16 and, 7 being prime to
     * 16, every row within a block. */
    const int sample = (double)M * N * K > (double)(1 << 24);
    double *s = tk_malloc((N + 1) * sizeof *s), *a = tk_malloc((N + 1) * sizeof *a);
    size_t bad = 0;
    for (size_t i = 0; i < M; i++) {
        if (sample && i % 7 != 0 && i != M - 1) continue;
        for (size_t j = 0; j < N; j++) s[j] = a[j] = 0;
        for (size_t k = 0; k < K; k++) {
            const double aik = A[i * K + k];
            const float *b = B + k * N;
            for (size_t j = 0; j < N; j++) {
                double p = aik * b[j];
                s[j] += p;
                a[j] += fabs(p);
            }
        }
        for (size_t j = 0; j < N; j++) {
            double c = c_init ? C0[i * N + j] : 0.0;
            double r = alpha * s[j] + (beta != 0.0f ? beta * c : 0.0);
            double tol = 2 * g * (fabs(alpha) * a[j] + fabs(beta * c));
            float got = C[i * N + j];
            if (!(isfinite(got) && fabs(got - r) <= tol) && bad++ < 5)
                print_error("%s M=%zu N=%zu K=%zu alpha=%g beta=%g seed=%llu: "
                            "C[%zu][%zu] = %.9g, want %.9g within %.3g\n",
                            EX_NAME, M, N, K, alpha, beta,
                            (unsigned long long)seed, i, j, got, r, tol);
        }
    }
    free(s); free(a);
    tk_free(dA); tk_free(dB); tk_free(dC);
    free(A); free(B); free(C0); free(C);
    if (bad) fail();
}

/* Edge shapes from {1, 15, 16, 17, 33, 100}, and 1000^3 once (checked on
 * every seventh row, ex_gemm_check says why). */
static void ex_gemm_shapes(ex_gemm_fn fn, float alpha, float beta,
                           int c_init)
{
    static const size_t side[] = {1, 15, 16, 17, 33, 100};
    for (size_t i = 0; i < 6; i++)
        for (size_t j = 0; j < 6; j++)
            for (size_t k = 0; k < 6; k++)
                ex_gemm_check(fn, side[i], side[j], side[k], alpha, beta,
                              c_init, (int)((i + j + k) % 2));
    ex_gemm_check(fn, 1000, 1000, 1000, alpha, beta, c_init, 1);
    ex_gemm_check(fn, 7, 9, 0, alpha, beta, c_init, 0);     /* K = 0 */
}
