/* exercises.h -- the layernorm chapter's code exercises: the launchers a
 * student writes in exercises/layernorm/NAME.cu; tests/layernorm/ex_NAME.c
 * tests them.  Device pointers to row-major rows x cols matrices; gamma
 * and beta have cols elements; y = (x - mean) / sqrt(var + eps) gamma +
 * beta per row, var the biased variance.  rows = 0 does nothing; NULL
 * pointers, cols = 0, eps < 0 or rows of 2^31 or more:
 * cudaErrorInvalidValue.  As the chapter's launchers do, each takes the
 * stream its work is queued on as its last argument (0: the default
 * stream), and returns without waiting for it. */
#ifndef EX_LAYERNORM_H
#define EX_LAYERNORM_H
#include <cuda_runtime_api.h>
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
/* Exercise 2 (warp-row): one warp a row, the row cached in registers;
 * cols up to 1024 (more: cudaErrorInvalidValue). */
#define LN_WARP_MAX_COLS 1024
cudaError_t layernorm_warp(const float *x, const float *gamma,
                           const float *beta, float *y, size_t rows,
                           size_t cols, float eps, cudaStream_t stream);
/* Exercise 4 (residual): y = LN(x + r), r of the same shape as x; any
 * cols below 2^31. */
cudaError_t layernorm_residual(const float *x, const float *r,
                               const float *gamma, const float *beta,
                               float *y, size_t rows, size_t cols,
                               float eps, cudaStream_t stream);
#ifdef __cplusplus
}
#endif
#endif
