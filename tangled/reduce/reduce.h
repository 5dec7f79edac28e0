// reduce.h -- reductions of n floats to one float.
// x and out are device pointers; out receives one float.  work is device
// memory of reduce_workspace_bytes(n) bytes, set to zero once after
// allocation (cudaMemset); the launchers leave it usable for the next call.
// Every launcher takes the stream its work is queued on as its last
// argument (0: the default stream), and returns without waiting for it.
// A call keeps its partials and counter in work until its kernels end, so
// calls that can run on the GPU at the same time need a workspace each, or
// they overwrite each other's partials and count each other's blocks.
// Calls on one stream run one after another, and one workspace serves
// them all.  Calls on different streams can overlap, and so can calls on
// stream 0 from several host threads of a program built with
// --default-stream per-thread.
#ifndef REDUCE_H
#define REDUCE_H
#include <cuda_runtime_api.h>
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
size_t reduce_workspace_bytes(size_t n);
typedef cudaError_t (*reduce_fn)(const float *x, size_t n, float *out,
                                 void *work, cudaStream_t stream);

// <<Declarations of the reduction ladder>>
cudaError_t reduce_atomic(const float *x, size_t n, float *out, void *work,
                          cudaStream_t stream);
cudaError_t reduce_interleaved_divergent(const float *x, size_t n,
                                         float *out, void *work,
                                         cudaStream_t stream);
cudaError_t reduce_interleaved_strided(const float *x, size_t n, float *out,
                                       void *work, cudaStream_t stream);
cudaError_t reduce_sequential(const float *x, size_t n, float *out,
                              void *work, cudaStream_t stream);
cudaError_t reduce_first_add(const float *x, size_t n, float *out,
                             void *work, cudaStream_t stream);
cudaError_t reduce_warp_shuffle(const float *x, size_t n, float *out,
                                void *work, cudaStream_t stream);
cudaError_t reduce_unrolled(const float *x, size_t n, float *out, void *work,
                            cudaStream_t stream);
cudaError_t reduce_float4(const float *x, size_t n, float *out, void *work,
                          cudaStream_t stream);
// Step 7 without the fallback to step 6: x must be 16-byte aligned.
cudaError_t reduce_sum_async(const float *x, size_t n, float *out,
                             void *work, cudaStream_t stream);

// <<Declarations of the cross-block finishes>>
// x must be 16-byte aligned (else cudaErrorInvalidValue).  For n > 0 on
// a device without cooperative launches, reduce_grid_sync launches
// nothing and returns cudaErrorNotSupported.
cudaError_t reduce_finish_atomic(const float *x, size_t n, float *out,
                                 void *work, cudaStream_t stream);
cudaError_t reduce_last_block(const float *x, size_t n, float *out,
                              void *work, cudaStream_t stream);
cudaError_t reduce_grid_sync(const float *x, size_t n, float *out,
                             void *work, cudaStream_t stream);

// <<Declarations of compensated sum, mean and max>>
// x must be 16-byte aligned, and reduce_mean needs n > 0 (the mean of
// nothing is 0 / 0); else cudaErrorInvalidValue.
cudaError_t reduce_compensated(const float *x, size_t n, float *out,
                               void *work, cudaStream_t stream);
cudaError_t reduce_mean(const float *x, size_t n, float *out, void *work,
                        cudaStream_t stream);
cudaError_t reduce_max(const float *x, size_t n, float *out, void *work,
                       cudaStream_t stream);

// <<Declarations of reductions that are wrong on purpose>>
// Wrong on purpose: the pre-Volta warp-synchronous volatile unroll.
cudaError_t reduce_wrong_volatile_warp(const float *x, size_t n, float *out,
                                       void *work, cudaStream_t stream);
// Wrong on purpose: a memory fence used as if it were a grid barrier.
cudaError_t reduce_wrong_fence_barrier(const float *x, size_t n,
                                       float *out, void *work,
                                       cudaStream_t stream);
#ifdef __cplusplus
}
#endif
#endif
