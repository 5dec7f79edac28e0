// layernorm.h -- layer norm and RMSNorm of the rows of a rows x cols
// matrix.  Pointers are device pointers; gamma and beta hold cols floats.
// eps > 0; at most 2^31 - 1 rows (a block a row); x and y, rows * cols
// floats each, must not overlap, and their bytes must fit in size_t.  Else
// cudaErrorInvalidValue.  Every launcher takes the stream its work is
// queued on as its last argument (0: the default stream), and returns
// without waiting for it.
#ifndef LAYERNORM_H
#define LAYERNORM_H
#include <cuda_runtime_api.h>
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
cudaError_t layernorm_two_pass(const float *x, const float *gamma,
                               const float *beta, float *y, size_t rows,
                               size_t cols, float eps, cudaStream_t stream);
// The Welford launchers take at most 2^24 columns (their counts are
// floats), else cudaErrorInvalidValue; so does layernorm_cached, which
// hands rows wider than 16384 to layernorm_welford_float4.
cudaError_t layernorm_welford(const float *x, const float *gamma,
                              const float *beta, float *y, size_t rows,
                              size_t cols, float eps, cudaStream_t stream);
cudaError_t layernorm_welford_float4(const float *x, const float *gamma,
                                     const float *beta, float *y,
                                     size_t rows, size_t cols, float eps,
                                     cudaStream_t stream);
cudaError_t layernorm_cached(const float *x, const float *gamma,
                             const float *beta, float *y, size_t rows,
                             size_t cols, float eps, cudaStream_t stream);
cudaError_t rmsnorm(const float *x, const float *gamma, float *y,
                    size_t rows, size_t cols, float eps,
                    cudaStream_t stream);
// The row held in registers: one read, one write.  Any alignment; rows
// wider than 16384 go to rmsnorm.
cudaError_t rmsnorm_cached(const float *x, const float *gamma, float *y,
                           size_t rows, size_t cols, float eps,
                           cudaStream_t stream);
// Wrong on purpose: the variance as E[x^2] - E[x]^2 in float.
cudaError_t layernorm_naive_moments(const float *x, const float *gamma,
                                    const float *beta, float *y,
                                    size_t rows, size_t cols, float eps,
                                    cudaStream_t stream);
#ifdef __cplusplus
}
#endif
#endif
