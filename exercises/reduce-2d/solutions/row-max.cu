// Solution to exercise 3 of the reduce-2d chapter: row maxima.  The row sum's
// warp kernel with max for +: its identity is -inf (a lane with no element
// holds it), and a maximum is exact in any order.
#include "common/book.h"
#include "reduce-2d/reduce2d.h"
#include "reduce-2d/exercises.h"

// One warp a row, eight warps a block: the lanes stride along the row
// (consecutive lanes, consecutive addresses: coalesced), then combine
// their partials with shuffles.
__global__ void row_max_kernel(const float *a, size_t rows, size_t cols,
                               float *out)
{
    size_t row = blockIdx.x * (size_t)8 + threadIdx.x / 32;
    unsigned lane = threadIdx.x % 32;
    if (row >= rows) return;                  // the whole warp
    const float *r = a + row * cols;
    float m = -INFINITY;
    for (size_t j = lane; j < cols; j += 32) m = fmaxf(m, r[j]);
    for (int d = 16; d > 0; d /= 2)
        m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, d));
    if (lane == 0) out[row] = m;
}

extern "C" cudaError_t row_max(const float *a, size_t rows, size_t cols,
                               float *out, cudaStream_t stream)
{
    const size_t lim = (size_t)1 << 31;
    if (!a || !out || rows >= lim || cols >= lim) return cudaErrorInvalidValue;
    if (rows == 0) return cudaSuccess;
    BOOK_CLEAR_TO_LAUNCH();
    row_max_kernel<<<(unsigned)ceil_div(rows, 8), 256, 0, stream>>>(
        a, rows, cols, out);
    return cudaGetLastError();
}
