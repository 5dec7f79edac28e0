// softmax.h -- softmax of rows, and of one whole array.
// Pointers are device pointers.  x and y, rows * cols (or n) floats each,
// must not overlap, and their bytes must fit in size_t: else
// cudaErrorInvalidValue.  Every launcher takes the stream its work is
// queued on as its last argument (0: the default stream), and returns
// without waiting for it.
#ifndef SOFTMAX_H
#define SOFTMAX_H
#include <cuda_runtime_api.h>
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
// Softmax of each row of a rows x cols matrix: at most 2^31 - 1 rows, a
// block per row (softmax_rows_warp: 8 (2^31 - 1), a warp per row); else
// cudaErrorInvalidValue.
cudaError_t softmax_rows_warp(const float *x, float *y, size_t rows,
                              size_t cols, cudaStream_t stream);
cudaError_t softmax_rows_block(const float *x, float *y, size_t rows,
                               size_t cols, cudaStream_t stream);
cudaError_t softmax_rows_float4(const float *x, float *y, size_t rows,
                                size_t cols, cudaStream_t stream);
cudaError_t softmax_rows_cached(const float *x, float *y, size_t rows,
                                size_t cols, cudaStream_t stream);
// softmax_rows_cached under its first name, from when it alone took a
// stream; the attention and host chapters call it so.
cudaError_t softmax_rows_cached_async(const float *x, float *y,
                                      size_t rows, size_t cols,
                                      cudaStream_t stream);
cudaError_t softmax_rows_online(const float *x, float *y, size_t rows,
                                size_t cols, cudaStream_t stream);
// One distribution over all n elements; work: SOFTMAX_WORK_BYTES of
// device memory, 8-byte aligned.  softmax_work_bytes() is the same size,
// counted by the launchers' own layout.
#define SOFTMAX_WORK_BYTES (1024 * 8)
size_t softmax_work_bytes(void);
cudaError_t softmax_whole_simple(const float *x, float *y, size_t n,
                                 void *work, cudaStream_t stream);
cudaError_t softmax_whole_u4(const float *x, float *y, size_t n,
                             void *work, cudaStream_t stream);
cudaError_t softmax_whole(const float *x, float *y, size_t n, void *work,
                          cudaStream_t stream);
// One kernel with a grid-wide barrier (falls back to softmax_whole where
// cooperative launches are not supported); _pairs folds with md_combine.
cudaError_t softmax_whole_fused(const float *x, float *y, size_t n,
                                void *work, cudaStream_t stream);
cudaError_t softmax_whole_fused_pairs(const float *x, float *y, size_t n,
                                      void *work, cudaStream_t stream);
// The same, keeping at most cache_bytes of each block's slice on chip
// (for the tests: a small cache makes small arrays take every path).
cudaError_t softmax_whole_fused_cache(const float *x, float *y, size_t n,
                                      void *work, size_t cache_bytes,
                                      cudaStream_t stream);
// One kernel that also keeps 8 float4s per thread in registers and folds
// groups of float4s (falls back as softmax_whole_fused does).  _fast
// computes the probabilities with __expf, whose share of the relative
// error is up to (4 + 2.35 |x - max|) 2^-24 each.  _cache keeps at
// most reg_bytes of each block's slice in registers and cache_bytes in
// shared memory, with __expf when fast is nonzero (for the tests).
cudaError_t softmax_whole_resident(const float *x, float *y, size_t n,
                                   void *work, cudaStream_t stream);
cudaError_t softmax_whole_resident_fast(const float *x, float *y, size_t n,
                                        void *work, cudaStream_t stream);
cudaError_t softmax_whole_resident_cache(const float *x, float *y,
                                         size_t n, void *work,
                                         size_t reg_bytes,
                                         size_t cache_bytes, int fast,
                                         cudaStream_t stream);
// Wrong on purpose: each block of 1024 elements normalized on its own.
cudaError_t softmax_whole_per_block(const float *x, float *y, size_t n,
                                    cudaStream_t stream);
#ifdef __cplusplus
}
#endif
#endif
