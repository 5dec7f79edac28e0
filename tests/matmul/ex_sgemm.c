/* ex_sgemm.c -- exercise 7 of the matmul chapter, sgemm_tiled:
 * C = alpha A B + beta C within the bound on edge shapes, for beta = 0
 * with C poisoned (NaN must not survive), beta = 1 and a general alpha
 * and beta. */
#include "ex_mm.h"
#include "matmul/matmul.h"
#include "matmul/exercises.h"

static void sgemm_arguments(void **s)
{
    (void)s;
    float *p = EX_FAKE(float, 256);
    EX_REFUSED(sgemm_tiled(NULL, p, p, 4, 4, 4, 1.0f, 0.0f, 0));
    EX_REFUSED(sgemm_tiled(p, NULL, p, 4, 4, 4, 1.0f, 0.0f, 0));
    EX_REFUSED(sgemm_tiled(p, p, NULL, 4, 4, 4, 1.0f, 0.0f, 0));
    EX_REFUSED(sgemm_tiled(p, p, p, (size_t)1 << 31, 4, 4, 1.0f, 0.0f, 0));
}

static void sgemm_beta_zero_ignores_nan(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    ex_gemm_shapes(sgemm_tiled, 0.5f, 0.0f, 0);
}

static void sgemm_alpha_beta(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    ex_gemm_shapes(sgemm_tiled, 1.0f, 1.0f, 1);
    ex_gemm_shapes(sgemm_tiled, -1.5f, 0.25f, 1);
}

EX_MAIN(cmocka_unit_test(sgemm_arguments),
        cmocka_unit_test(sgemm_beta_zero_ignores_nan),
        cmocka_unit_test(sgemm_alpha_beta))
