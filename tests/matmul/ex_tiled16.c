/* ex_tiled16.c -- exercise 2 of the matmul chapter, matmul_tiled16:
 * C = A B within the float dot product's bound on edge shapes around 16
 * and at 1000^3, with C poisoned before (every element must be written). */
#include "ex_mm.h"
#include "matmul/matmul.h"
#include "matmul/exercises.h"

static cudaError_t as_gemm(const float *A, const float *B, float *C,
                           size_t M, size_t N, size_t K, float alpha,
                           float beta, cudaStream_t stream)
{
    (void)alpha; (void)beta;
    return matmul_tiled16(A, B, C, M, N, K, stream);
}

static void tiled16_arguments(void **s)
{
    (void)s;
    float *p = EX_FAKE(float, 256);
    EX_REFUSED(matmul_tiled16(NULL, p, p, 4, 4, 4, 0));
    EX_REFUSED(matmul_tiled16(p, NULL, p, 4, 4, 4, 0));
    EX_REFUSED(matmul_tiled16(p, p, NULL, 4, 4, 4, 0));
    EX_REFUSED(matmul_tiled16(p, p, p, (size_t)1 << 31, 4, 4, 0));
    EX_REFUSED(matmul_tiled16(p, p, p, 4, (size_t)1 << 31, 4, 0));
}

static void tiled16_shapes(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    ex_gemm_shapes(as_gemm, 1.0f, 0.0f, 0);
}

EX_MAIN(cmocka_unit_test(tiled16_arguments), cmocka_unit_test(tiled16_shapes))
