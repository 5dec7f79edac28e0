/* exercises.h -- the reduce-2d chapter's code exercises: the launchers a
 * student writes in exercises/reduce-2d/NAME.cu; tests/reduce-2d/ex_NAME.c
 * tests them.  Device pointers to a row-major rows x cols matrix; NULL
 * pointers, or rows or cols of 2^31 or more: cudaErrorInvalidValue;
 * rows = 0 does nothing.  Each takes the stream its work is queued on as
 * its last argument (0: the default stream), and returns without waiting
 * for it. */
#ifndef EX_REDUCE_2D_H
#define EX_REDUCE_2D_H
#include <cuda_runtime_api.h>
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
/* Exercise 3 (row-max): out[i] = the largest element of row i; -inf for
 * a row of no elements (cols = 0), the identity of max. */
cudaError_t row_max(const float *a, size_t rows, size_t cols, float *out,
                    cudaStream_t stream);
/* Exercise 5 (gemv): y = A x, y[i] = sum over j of a[i][j] x[j]; x has
 * cols elements, y rows. */
cudaError_t gemv(const float *a, const float *x, size_t rows, size_t cols,
                 float *y, cudaStream_t stream);
#ifdef __cplusplus
}
#endif
#endif
