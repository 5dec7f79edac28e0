// reduce2d.h -- chapter 6: row sums, column sums and the dot product.
// a is a row-major rows x cols matrix of floats; all pointers are device
// pointers.  Row sums write rows floats, column sums cols floats.
#ifndef REDUCE2D_H
#define REDUCE2D_H
#include <cuda_runtime_api.h>
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
typedef cudaError_t (*rowcol_fn)(const float *a, size_t rows, size_t cols,
                                 float *out, void *work);
cudaError_t row_sums_warp(const float *a, size_t rows, size_t cols,
                          float *out, void *work);
cudaError_t row_sums_block(const float *a, size_t rows, size_t cols,
                           float *out, void *work);
// row_sums needs a workspace of row_sums_workspace_bytes() for few long
// rows; the other row variants ignore it.
size_t row_sums_workspace_bytes(void);
cudaError_t row_sums(const float *a, size_t rows, size_t cols, float *out,
                     void *work);
// Column sums need a workspace of col_sums_workspace_bytes(rows, cols).
size_t col_sums_workspace_bytes(size_t rows, size_t cols);
cudaError_t col_sums_block_per_column(const float *a, size_t rows,
                                      size_t cols, float *out, void *work);
cudaError_t col_sums(const float *a, size_t rows, size_t cols, float *out,
                     void *work);
// The dot product of x and y, n floats each, into one float.
size_t dot_workspace_bytes(void);
cudaError_t dot(const float *x, const float *y, size_t n, float *out,
                void *work);
#ifdef __cplusplus
}
#endif
#endif
