// Solution to exercise 4 of the transpose chapter: transpose of doubles,
// the tiled kernel of the chapter with eight-byte words.  A warp's 32
// doubles are 256 bytes, served as two 128-byte halves; reading a column of
// the tile, row r at word 2 (33 r + c) mod 32 in the padded layout, the 16
// lanes of a half hit 16 different even banks with both words each:
// conflict-free.
#include "common/book.h"
#include "transpose/transpose.h"
#include "transpose/exercises.h"

__global__ void transpose_double_kernel(const double *in, double *out,
                                        size_t rows, size_t cols)
{
    __shared__ double tile[TR_TILE][TR_TILE + 1];       // padded
    size_t c = blockIdx.x * (size_t)TR_TILE + threadIdx.x;
    size_t r0 = blockIdx.y * (size_t)TR_TILE;
    for (int k = threadIdx.y; k < TR_TILE; k += TR_BLOCK_ROWS)
        if (r0 + k < rows && c < cols)
            tile[k][threadIdx.x] = in[(r0 + k) * cols + c];
    __syncthreads();
    size_t oc = r0 + threadIdx.x;                       // out's column
    size_t or0 = blockIdx.x * (size_t)TR_TILE;          // out's first row
    for (int k = threadIdx.y; k < TR_TILE; k += TR_BLOCK_ROWS)
        if (or0 + k < cols && oc < rows)
            out[(or0 + k) * rows + oc] = tile[threadIdx.x][k];
}

extern "C" cudaError_t transpose_double(const double *in, double *out,
                                        size_t rows, size_t cols,
                                        cudaStream_t stream)
{
    const size_t lim = (size_t)1 << 31;
    if (rows == 0 || cols == 0) return cudaSuccess;
    if (!in || !out || rows >= lim || cols >= lim) return cudaErrorInvalidValue;
    if (ranges_overlap(in, rows * cols * 8, out, rows * cols * 8))
        return cudaErrorInvalidValue;
    size_t gx = ceil_div(cols, TR_TILE), gy = ceil_div(rows, TR_TILE);
    if (gy > 65535) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    dim3 grid((unsigned)gx, (unsigned)gy), block(TR_TILE, TR_BLOCK_ROWS);
    transpose_double_kernel<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return cudaGetLastError();
}
