// Solution to exercise 5 of the reduce-2d chapter: y = A x as a row reduction
// of a[i][j] x[j], with the warp-per-row mapping of row_sums_warp.  x is read
// by every warp: 4 cols bytes that stay in L1 and L2, against 4 rows cols
// bytes of A read once, so the floor is A's bytes.
#include "common/book.h"
#include "reduce-2d/reduce2d.h"
#include "reduce-2d/exercises.h"

// One warp a row, eight warps a block: the lanes stride along the row
// (consecutive lanes, consecutive addresses: coalesced), then combine
// their partials with shuffles.
__global__ void gemv_kernel(const float *a, const float *x, size_t rows,
                            size_t cols, float *y)
{
    size_t row = blockIdx.x * (size_t)8 + threadIdx.x / 32;
    unsigned lane = threadIdx.x % 32;
    if (row >= rows) return;                  // the whole warp
    const float *r = a + row * cols;
    float s = 0.0f;
    for (size_t j = lane; j < cols; j += 32) s = fmaf(r[j], x[j], s);
    for (int d = 16; d > 0; d /= 2)
        s += __shfl_xor_sync(0xffffffffu, s, d);
    if (lane == 0) y[row] = s;
}

extern "C" cudaError_t gemv(const float *a, const float *x, size_t rows,
                            size_t cols, float *y, cudaStream_t stream)
{
    const size_t lim = (size_t)1 << 31;
    if (!a || !x || !y || rows >= lim || cols >= lim)
        return cudaErrorInvalidValue;
    if (rows == 0) return cudaSuccess;
    BOOK_CLEAR_TO_LAUNCH();
    gemv_kernel<<<(unsigned)ceil_div(rows, 8), 256, 0, stream>>>(a, x, rows,
                                                                 cols, y);
    return cudaGetLastError();
}
