// Solution to exercise 5 of the transpose chapter: the in-place transpose.
// Block (bx, by) with by <= bx owns the pair of tiles (by, bx) and (bx, by):
// it reads both into shared memory, waits at the barrier, and writes each
// transposed into the other's place.  No other block touches the pair, and
// every read of it comes before every write, so no element is overwritten
// before it is read.  Blocks below the diagonal return at once, whole.
#include "common/book.h"
#include "transpose/transpose.h"
#include "transpose/exercises.h"

__global__ void transpose_inplace_kernel(float *a, size_t n)
{
    if (blockIdx.y > blockIdx.x) return;                // the whole block
    __shared__ float upper[TR_TILE][TR_TILE + 1], lower[TR_TILE][TR_TILE + 1];
    size_t ur = blockIdx.y * (size_t)TR_TILE, uc = blockIdx.x * (size_t)TR_TILE;
    unsigned x = threadIdx.x;
    for (unsigned k = threadIdx.y; k < TR_TILE; k += TR_BLOCK_ROWS) {
        if (ur + k < n && uc + x < n) upper[k][x] = a[(ur + k) * n + uc + x];
        if (uc + k < n && ur + x < n) lower[k][x] = a[(uc + k) * n + ur + x];
    }
    __syncthreads();
    for (unsigned k = threadIdx.y; k < TR_TILE; k += TR_BLOCK_ROWS) {
        // Row uc + k of the lower tile's place gets column k of upper.
        if (uc + k < n && ur + x < n) a[(uc + k) * n + ur + x] = upper[x][k];
        if (ur + k < n && uc + x < n) a[(ur + k) * n + uc + x] = lower[x][k];
    }
}

extern "C" cudaError_t transpose_inplace(float *a, size_t n,
                                         cudaStream_t stream)
{
    if (n == 0) return cudaSuccess;
    if (!a || n >= ((size_t)1 << 31)) return cudaErrorInvalidValue;
    size_t tiles = ceil_div(n, TR_TILE);
    if (tiles > 65535) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    dim3 grid((unsigned)tiles, (unsigned)tiles);
    dim3 block(TR_TILE, TR_BLOCK_ROWS);
    transpose_inplace_kernel<<<grid, block, 0, stream>>>(a, n);
    return cudaGetLastError();
}
