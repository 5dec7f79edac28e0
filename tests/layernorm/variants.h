/* variants.h -- the layernorm chapter's launchers, listed once for the
 * test and the bench: X(name, launcher), name the launcher's row in the
 * bench's layernorm.csv.  Each is called as a layer norm; RMSNorm takes
 * no beta, so its two launchers come in wrappers that ignore it.  The
 * layer norms proper come first.  Compiles as C and as CUDA. */
#ifndef LAYERNORM_VARIANTS_H
#define LAYERNORM_VARIANTS_H
#include "layernorm/layernorm.h"

typedef cudaError_t (*layernorm_fn)(const float *x, const float *gamma,
                                    const float *beta, float *y,
                                    size_t rows, size_t cols, float eps,
                                    cudaStream_t stream);
static inline cudaError_t rmsnorm_as_layernorm(const float *x,
                                               const float *gamma,
                                               const float *beta, float *y,
                                               size_t rows, size_t cols,
                                               float eps,
                                               cudaStream_t stream)
{
    (void)beta;
    return rmsnorm(x, gamma, y, rows, cols, eps, stream);
}
static inline cudaError_t rmsnorm_cached_as_layernorm(
    const float *x, const float *gamma, const float *beta, float *y,
    size_t rows, size_t cols, float eps, cudaStream_t stream)
{
    (void)beta;
    return rmsnorm_cached(x, gamma, y, rows, cols, eps, stream);
}

#define LAYERNORM_VARIANTS(X)                                              \
    X("two_pass", layernorm_two_pass)                                      \
    X("welford", layernorm_welford)                                        \
    X("welford_float4", layernorm_welford_float4)                          \
    X("cached", layernorm_cached)                                          \
    X("rmsnorm", rmsnorm_as_layernorm)                                     \
    X("rmsnorm_cached", rmsnorm_cached_as_layernorm)                       \
    X("naive_wrong", layernorm_naive_moments)
#endif
