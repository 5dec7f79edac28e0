// softmax.h -- softmax of rows, and of one whole array.
// Pointers are device pointers.  x and y, rows * cols (or n) floats each,
// must not overlap, and their bytes must fit in size_t: else
// cudaErrorInvalidValue.
#ifndef SOFTMAX_H
#define SOFTMAX_H
#include <cuda_runtime_api.h>
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
// Softmax of each row of a rows x cols matrix: at most 2^31 - 1 rows, a
// block a row (softmax_rows_warp: 8 (2^31 - 1), a warp a row); else
// cudaErrorInvalidValue.
cudaError_t softmax_rows_warp(const float *x, float *y, size_t rows,
                              size_t cols);
cudaError_t softmax_rows_block(const float *x, float *y, size_t rows,
                               size_t cols);
cudaError_t softmax_rows_float4(const float *x, float *y, size_t rows,
                                size_t cols);
cudaError_t softmax_rows_cached(const float *x, float *y, size_t rows,
                                size_t cols);
// The same on the caller's stream (the others run on the default one).
cudaError_t softmax_rows_cached_async(const float *x, float *y,
                                      size_t rows, size_t cols,
                                      cudaStream_t stream);
cudaError_t softmax_rows_online(const float *x, float *y, size_t rows,
                                size_t cols);
// One distribution over all n elements; work: SOFTMAX_WORK_BYTES of
// device memory, 8-byte aligned.
#define SOFTMAX_WORK_BYTES (1024 * 8)
cudaError_t softmax_whole_simple(const float *x, float *y, size_t n,
                                 void *work);
cudaError_t softmax_whole_u4(const float *x, float *y, size_t n,
                             void *work);
cudaError_t softmax_whole(const float *x, float *y, size_t n, void *work);
// One kernel with a grid-wide barrier (falls back to softmax_whole where
// cooperative launches are not supported); _pairs folds with md_combine.
cudaError_t softmax_whole_fused(const float *x, float *y, size_t n,
                                void *work);
cudaError_t softmax_whole_fused_pairs(const float *x, float *y, size_t n,
                                      void *work);
// The same, keeping at most cache_bytes of each block's slice on chip
// (for the tests: a small cache makes small arrays take every path).
cudaError_t softmax_whole_fused_cache(const float *x, float *y, size_t n,
                                      void *work, size_t cache_bytes);
// One kernel that also keeps 8 float4s a thread in registers and folds
// groups of float4s (falls back as softmax_whole_fused does).  _fast
// computes the probabilities with __expf, whose share of the relative
// error is up to (4 + 2.35 |x - max|) 2^-24 each.  _cache keeps at
// most reg_bytes of each block's slice in registers and cache_bytes in
// shared memory, with __expf when fast is nonzero (for the tests).
cudaError_t softmax_whole_resident(const float *x, float *y, size_t n,
                                   void *work);
cudaError_t softmax_whole_resident_fast(const float *x, float *y, size_t n,
                                        void *work);
cudaError_t softmax_whole_resident_cache(const float *x, float *y,
                                         size_t n, void *work,
                                         size_t reg_bytes,
                                         size_t cache_bytes, int fast);
// Wrong on purpose: each block of 1024 elements normalized on its own.
cudaError_t softmax_whole_per_block(const float *x, float *y, size_t n);
#ifdef __cplusplus
}
#endif
#endif
