/* ex_residual.c -- exercise 4 of the layernorm chapter, layernorm_residual:
 * LN(x + r) against the double reference (ex_ln.h) for widths around a warp
 * and a block, and one row of 100003. */
#include "ex_ln.h"
#include "layernorm/layernorm.h"
#include "layernorm/exercises.h"

static void residual_arguments(void **s)
{
    (void)s;
    float *p = EX_FAKE(float, 256);
    EX_REFUSED(layernorm_residual(NULL, p, p, p, p, 4, 4, 1e-5f, 0));
    EX_REFUSED(layernorm_residual(p, NULL, p, p, p, 4, 4, 1e-5f, 0));
    EX_REFUSED(layernorm_residual(p, p, NULL, p, p, 4, 4, 1e-5f, 0));
    EX_REFUSED(layernorm_residual(p, p, p, NULL, p, 4, 4, 1e-5f, 0));
    EX_REFUSED(layernorm_residual(p, p, p, p, NULL, 4, 4, 1e-5f, 0));
    EX_REFUSED(layernorm_residual(p, p, p, p, p, 4, 0, 1e-5f, 0));
    EX_REFUSED(layernorm_residual(p, p, p, p, p, 4, 4, -1.0f, 0));
    EX_CUDA(layernorm_residual(p, p, p, p, p, 0, 4, 1e-5f, 0));
}

static void residual_shapes(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    ex_ln_shapes(layernorm_residual, 1, 4097);
    ex_ln_check(layernorm_residual, 1, 2, 100003, 0, 1);
}

EX_MAIN(cmocka_unit_test(residual_arguments),
        cmocka_unit_test(residual_shapes))
