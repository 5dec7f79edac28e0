// reduce2d.h -- row sums, column sums and the dot product.
// a is a row-major rows x cols matrix of floats; all pointers are device
// pointers.  Row sums write rows floats, column sums cols floats.  With
// rows > 0, every row variant refuses cols == 0; with cols > 0, every
// column variant refuses rows == 0 (cudaErrorInvalidValue: an empty sum
// to write).
// Every launcher takes the stream its work is queued on as its last
// argument (0: the default stream), and returns without waiting for it.
// A workspace serves one call at a time: calls on one stream may share
// it, calls that may run at once, on different streams, need one each.
#ifndef REDUCE2D_H
#define REDUCE2D_H
#include <cuda_runtime_api.h>
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
typedef cudaError_t (*rowcol_fn)(const float *a, size_t rows, size_t cols,
                                 float *out, void *work,
                                 cudaStream_t stream);
cudaError_t row_sums_warp(const float *a, size_t rows, size_t cols,
                          float *out, void *work, cudaStream_t stream);
// row_sums_block: a block per row, so at most 2^31 - 1 rows (else
// cudaErrorInvalidValue).
cudaError_t row_sums_block(const float *a, size_t rows, size_t cols,
                           float *out, void *work, cudaStream_t stream);
// row_sums needs a workspace of row_sums_workspace_bytes() for few long
// rows; the other row variants ignore it.
size_t row_sums_workspace_bytes(void);
cudaError_t row_sums(const float *a, size_t rows, size_t cols, float *out,
                     void *work, cudaStream_t stream);
// col_sums needs a workspace of col_sums_workspace_bytes(rows, cols).
// col_sums_block_per_column ignores it: a block per column, so at most
// 2^31 - 1 columns (else cudaErrorInvalidValue).
size_t col_sums_workspace_bytes(size_t rows, size_t cols);
cudaError_t col_sums_block_per_column(const float *a, size_t rows,
                                      size_t cols, float *out, void *work,
                                      cudaStream_t stream);
cudaError_t col_sums(const float *a, size_t rows, size_t cols, float *out,
                     void *work, cudaStream_t stream);
// Several rows (or row groups) in flight per thread, for the shapes where
// the variants above fall short.  row_sums_in_flight: rows of exactly 32
// floats with a 16-byte aligned, a reduce-scatter of 8 rows per lane
// group; other rows of up to 1024 floats, several rows per thread; work is
// then ignored and may be NULL.  Longer rows go to row_sums, and work must
// be row_sums_workspace_bytes() bytes.
cudaError_t row_sums_in_flight(const float *a, size_t rows, size_t cols,
                               float *out, void *work, cudaStream_t stream);
// col_sums_in_flight: narrow matrices (cols <= 128 when cols % 4 == 0 and
// a is 16-byte aligned, else cols <= 32) as one grid-stride front of rows,
// one launch that the last block finishes; wide ones (at least 65536
// float4s or floats per row, at most 64 rows) a thread per column unit
// down all rows; any other shape col_sums.
// work: col_sums_in_flight_workspace_bytes(rows, cols) bytes, set to zero
// once after allocation (its first word counts blocks done); the launcher
// leaves it zero, in stream order, for the next call on the same stream.
// cols == 0: nothing to do, success; rows == 0 with cols > 0, or a NULL
// a, out or work: cudaErrorInvalidValue.
size_t col_sums_in_flight_workspace_bytes(size_t rows, size_t cols);
cudaError_t col_sums_in_flight(const float *a, size_t rows, size_t cols,
                               float *out, void *work, cudaStream_t stream);
// The dot product of x and y, n floats each, into one float.
size_t dot_workspace_bytes(void);
cudaError_t dot(const float *x, const float *y, size_t n, float *out,
                void *work, cudaStream_t stream);
#ifdef __cplusplus
}
#endif
#endif
