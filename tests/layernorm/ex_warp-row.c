/* ex_warp-row.c -- exercise 2 of the layernorm chapter, layernorm_warp:
 * against the double reference (ex_ln.h) for widths up to 1024, around a
 * warp; wider rows refused. */
#include "ex_ln.h"
#include "layernorm/layernorm.h"
#include "layernorm/exercises.h"

static cudaError_t as_ln(const float *x, const float *r, const float *g,
                         const float *b, float *y, size_t rows, size_t cols,
                         float eps, cudaStream_t stream)
{
    (void)r;
    return layernorm_warp(x, g, b, y, rows, cols, eps, stream);
}

static void warp_row_arguments(void **s)
{
    (void)s;
    float *p = EX_FAKE(float, 256);
    EX_REFUSED(layernorm_warp(NULL, p, p, p, 4, 4, 1e-5f, 0));
    EX_REFUSED(layernorm_warp(p, NULL, p, p, 4, 4, 1e-5f, 0));
    EX_REFUSED(layernorm_warp(p, p, NULL, p, 4, 4, 1e-5f, 0));
    EX_REFUSED(layernorm_warp(p, p, p, NULL, 4, 4, 1e-5f, 0));
    EX_REFUSED(layernorm_warp(p, p, p, p, 4, 0, 1e-5f, 0));
    EX_REFUSED(layernorm_warp(p, p, p, p, 4, LN_WARP_MAX_COLS + 1, 1e-5f, 0));
    EX_REFUSED(layernorm_warp(p, p, p, p, 4, 4, -1.0f, 0));
    EX_CUDA(layernorm_warp(p, p, p, p, 0, 4, 1e-5f, 0));
}

static void warp_row_shapes(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    ex_ln_shapes(as_ln, 0, LN_WARP_MAX_COLS);
    ex_ln_check(as_ln, 0, 16384, 1024, 0, 1);   /* 2048 blocks */
}

EX_MAIN(cmocka_unit_test(warp_row_arguments),
        cmocka_unit_test(warp_row_shapes))
