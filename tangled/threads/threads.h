// threads.h -- element-wise kernels and their launchers.
// All pointers are device pointers; n counts floats.  Every launcher
// takes the stream that its work is queued on as its last argument (0:
// the default stream), and returns without waiting for that work.
#ifndef THREADS_H
#define THREADS_H
#include <cuda_runtime_api.h>
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
cudaError_t vadd(const float *a, const float *b, float *c, size_t n,
                 cudaStream_t stream);
cudaError_t vadd_float4(const float *a, const float *b, float *c, size_t n,
                        cudaStream_t stream);
cudaError_t vadd_grid_stride(const float *a, const float *b, float *c,
                             size_t n, cudaStream_t stream);
// madd: at most 524280 rows (65535 blocks of 8 down the grid), else
// cudaErrorInvalidValue.
cudaError_t madd(const float *a, const float *b, float *c, size_t rows,
                 size_t cols, cudaStream_t stream);
// madd_float4: any rows and cols (no row limit), but rows * cols past
// SIZE_MAX, or a, b or c not float-aligned (4 bytes), gets
// cudaErrorInvalidValue.  At least 128 floats a row: one float4 a thread
// when cols is a multiple of 4 and a, b, c are 16-byte aligned; otherwise
// (an odd width, a misaligned pointer) four floats a thread, 32 apart
// along the row.  a, b and c are the same shape, rows of cols floats
// packed one after another, so a matrix narrower than 128 floats is added
// as one vector of rows * cols floats (vadd_float4, which takes vadd, one
// float a thread, when a pointer is not 16-byte aligned).
cudaError_t madd_float4(const float *a, const float *b, float *c,
                        size_t rows, size_t cols, cudaStream_t stream);
cudaError_t saxpy(float alpha, const float *x, float *y, size_t n,
                  cudaStream_t stream);
// Wrong on purpose: the grid is n / 256 blocks, rounded down.
cudaError_t vadd_wrong_floor(const float *a, const float *b, float *c,
                             size_t n, cudaStream_t stream);
#ifdef __cplusplus
}
#endif
#endif
