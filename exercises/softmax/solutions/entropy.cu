// Solution to exercise 4 of the softmax chapter: entropy in one pass.  With
// p_j = e^(x_j - m) / d, log p_j = x_j - m - log d, so
//   H = -sum p_j log p_j = m + log d - s / d,   s = sum e^(x_j - m) x_j.
// The triple (m, d, s) merges like the pair: both d and s scale by
// e^(m - max).  A term with x = -inf has weight 0 and adds nothing to s
// (0 times -inf would be NaN, so it is skipped).  One warp a row.
#include "common/book.h"
#include "softmax/softmax.h"
#include "softmax/exercises.h"

__device__ float ent_weight(float x, float m)    // as in softmax_ref.h
{
    if (x == -INFINITY) return 0.0f;
    return x == m ? 1.0f : expf(x - m);
}

__global__ void entropy_kernel(const float *x, float *h, size_t rows,
                               size_t cols)
{
    size_t row = blockIdx.x * (size_t)8 + threadIdx.x / 32;
    unsigned lane = threadIdx.x % 32;
    if (row >= rows) return;                      // the whole warp
    const float *xr = x + row * cols;
    float m = -INFINITY, d = 0.0f, s = 0.0f;      // the identity
    for (size_t j = lane; j < cols; j += 32) {
        float v = xr[j];
        if (v == -INFINITY) continue;
        float mn = fmaxf(m, v), w = ent_weight(m, mn), e = ent_weight(v, mn);
        d = d * w + e;
        s = s * w + e * v;
        m = mn;
    }
    for (int k = 16; k > 0; k /= 2) {
        float m2 = __shfl_xor_sync(0xffffffffu, m, k);
        float d2 = __shfl_xor_sync(0xffffffffu, d, k);
        float s2 = __shfl_xor_sync(0xffffffffu, s, k);
        float mn = fmaxf(m, m2), w = ent_weight(m, mn), w2 = ent_weight(m2, mn);
        d = d * w + d2 * w2;
        s = s * w + s2 * w2;
        m = mn;
    }
    if (lane == 0) h[row] = m + logf(d) - s / d;
}

extern "C" cudaError_t softmax_entropy_rows(const float *x, float *h,
                                            size_t rows, size_t cols,
                                            cudaStream_t stream)
{
    const size_t lim = (size_t)1 << 31;
    if (rows == 0 || cols == 0) return cudaSuccess;
    if (!x || !h || rows >= lim || cols >= lim) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    entropy_kernel<<<(unsigned)ceil_div(rows, 8), 256, 0, stream>>>(
        x, h, rows, cols);
    return cudaGetLastError();
}
