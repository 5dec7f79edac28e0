// Solution to exercise 1 of the softmax chapter: the online softmax, one warp
// a row.  Each lane folds its elements into a pair (m, d), d = sum e^(x - m);
// the warp merges the 32 pairs with the operator of the chapter, (m, d) with
// (m', d') giving (max, d e^(m - max) + d' e^(m' - max)), whose identity
// (-inf, 0) is what a lane without elements holds; a second pass over the
// row writes e^(x - m) / d.  Two reads and one write of the row.
#include "common/book.h"
#include "softmax/softmax.h"
#include "softmax/exercises.h"

// The weight e^(x - m) with the chapter's infinities: -inf weighs 0, the
// maximum itself 1 (so a row with +inf has no inf - inf).
__device__ float sm_weight(float x, float m)
{
    if (x == -INFINITY) return 0.0f;
    return x == m ? 1.0f : expf(x - m);
}

__global__ void softmax_online_warp_kernel(const float *x, float *y,
                                           size_t rows, size_t cols)
{
    size_t row = blockIdx.x * (size_t)8 + threadIdx.x / 32;
    unsigned lane = threadIdx.x % 32;
    if (row >= rows) return;                      // the whole warp
    const float *xr = x + row * cols;
    float m = -INFINITY, d = 0.0f;                // the identity
    for (size_t j = lane; j < cols; j += 32) {    // fold one element in
        float v = xr[j], mn = fmaxf(m, v);
        d = d * sm_weight(m, mn) + sm_weight(v, mn);
        m = mn;
    }
    for (int k = 16; k > 0; k /= 2) {             // merge across the warp
        float m2 = __shfl_xor_sync(0xffffffffu, m, k);
        float d2 = __shfl_xor_sync(0xffffffffu, d, k);
        float mn = fmaxf(m, m2);
        d = d * sm_weight(m, mn) + d2 * sm_weight(m2, mn);
        m = mn;
    }
    float *yr = y + row * cols;
    for (size_t j = lane; j < cols; j += 32)
        yr[j] = d == 0.0f ? 0.0f : sm_weight(xr[j], m) / d;
}

extern "C" cudaError_t softmax_rows_online_warp(const float *x, float *y,
                                                size_t rows, size_t cols,
                                                cudaStream_t stream)
{
    const size_t lim = (size_t)1 << 31;
    if (rows == 0 || cols == 0) return cudaSuccess;
    if (!x || !y || rows >= lim || cols >= lim) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    const unsigned grid = (unsigned)ceil_div(rows, 8);
    softmax_online_warp_kernel<<<grid, 256, 0, stream>>>(x, y, rows, cols);
    return cudaGetLastError();
}
