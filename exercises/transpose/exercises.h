/* exercises.h -- the transpose chapter's code exercises: the launchers a
 * student writes in exercises/transpose/NAME.cu; tests/transpose/ex_NAME.c
 * tests them.  Device pointers to row-major matrices; an empty matrix does
 * nothing and succeeds.  Like the chapter's, each launcher takes the
 * stream that its work is queued on as its last argument (0: the default
 * stream), and returns without waiting for that work. */
#ifndef EX_TRANSPOSE_H
#define EX_TRANSPOSE_H
#include <cuda_runtime_api.h>
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
/* Exercise 4 (transpose-double): out (cols x rows) = the transpose of in
 * (rows x cols), doubles, through a shared-memory tile.  NULL pointers,
 * overlapping in and out, rows or cols of 2^31 or more, or more rows than
 * a grid of 65535 tiles down covers (65535 * 32, as the chapter's
 * transposes): cudaErrorInvalidValue. */
cudaError_t transpose_double(const double *in, double *out, size_t rows,
                             size_t cols, cudaStream_t stream);
/* Exercise 5 (transpose-inplace): a (n x n) becomes its transpose, in
 * place.  A NULL a, n >= 2^31 or n > 65535 * 32 (the grid's y limit):
 * cudaErrorInvalidValue. */
cudaError_t transpose_inplace(float *a, size_t n, cudaStream_t stream);
#ifdef __cplusplus
}
#endif
#endif
