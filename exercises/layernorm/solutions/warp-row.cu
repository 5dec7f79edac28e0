// Solution to exercise 2 of the layernorm chapter: one warp a row, cached.
// Lane l holds elements l, l + 32, ..., up to 32 of them (cols <= 1024), in
// an array indexed by unrolled loops only, so it stays in registers.  Two
// passes over the registers (mean, then the squared deviations) and one
// read and one write of the row in memory.
#include "common/book.h"
#include "layernorm/layernorm.h"
#include "layernorm/exercises.h"

__device__ float ln_warp_sum(float v)
{
    for (int d = 16; d > 0; d /= 2) v += __shfl_xor_sync(0xffffffffu, v, d);
    return v;
}

__global__ void layernorm_warp_kernel(const float *x, const float *gamma,
                                      const float *beta, float *y,
                                      size_t rows, size_t cols, float eps)
{
    size_t row = blockIdx.x * (size_t)8 + threadIdx.x / 32;
    unsigned lane = threadIdx.x % 32;
    if (row >= rows) return;                      // the whole warp
    const float *xr = x + row * cols;
    float v[32], s = 0.0f;
#pragma unroll
    for (int k = 0; k < 32; k++) {
        size_t j = lane + 32 * (size_t)k;
        v[k] = j < cols ? xr[j] : 0.0f;
        s += v[k];
    }
    float mean = ln_warp_sum(s) / (float)cols, q = 0.0f;
#pragma unroll
    for (int k = 0; k < 32; k++) {
        size_t j = lane + 32 * (size_t)k;
        float dv = v[k] - mean;
        if (j < cols) q = fmaf(dv, dv, q);
    }
    float rstd = rsqrtf(ln_warp_sum(q) / (float)cols + eps);
    float *yr = y + row * cols;
#pragma unroll
    for (int k = 0; k < 32; k++) {
        size_t j = lane + 32 * (size_t)k;
        if (j < cols) yr[j] = (v[k] - mean) * rstd * gamma[j] + beta[j];
    }
}

extern "C" cudaError_t layernorm_warp(const float *x, const float *gamma,
                                      const float *beta, float *y,
                                      size_t rows, size_t cols, float eps,
                                      cudaStream_t stream)
{
    if (rows == 0) return cudaSuccess;
    if (!x || !gamma || !beta || !y || cols == 0 || cols > LN_WARP_MAX_COLS ||
        !(eps >= 0.0f) || rows >= ((size_t)1 << 31))
        return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    layernorm_warp_kernel<<<(unsigned)ceil_div(rows, 8), 256, 0, stream>>>(
        x, gamma, beta, y, rows, cols, eps);
    return cudaGetLastError();
}
