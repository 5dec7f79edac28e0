// transpose.cu -- matrix transpose and shared-memory banks.
#include "common/book.h"
#include "transpose/transpose.h"

// <<Check a transpose's arguments and size its grid>>
static const dim3 kTrBlock(TR_TILE, TR_BLOCK_ROWS);

static cudaError_t tr_grid(const float *in, const float *out, size_t rows,
                           size_t cols, dim3 *grid)
{
    if (!in || !out || rows > SIZE_MAX / sizeof(float) / cols)
        return cudaErrorInvalidValue;
    size_t bytes = rows * cols * sizeof(float);
    if (ranges_overlap(in, bytes, out, bytes)) return cudaErrorInvalidValue;
    size_t gx = ceil_div(cols, TR_TILE), gy = ceil_div(rows, TR_TILE);
    if (gx > 2147483647u || gy > 65535) return cudaErrorInvalidValue;
    *grid = dim3((unsigned)gx, (unsigned)gy);
    return cudaSuccess;
}

// <<Naive transpose>>
__global__ void transpose_naive_kernel(const float *__restrict__ in,
                                       float *__restrict__ out, size_t rows,
                                       size_t cols)
{
    // <<Find this block's tile>>
    size_t r0 = (size_t)blockIdx.y * TR_TILE;   // first input row of the tile
    size_t c0 = (size_t)blockIdx.x * TR_TILE;   // first input column
    unsigned tx = threadIdx.x, ty = threadIdx.y;
    for (unsigned k = 0; k < TR_TILE; k += TR_BLOCK_ROWS) {
        size_t r = r0 + ty + k, c = c0 + tx;
        if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];
    }
}

extern "C" cudaError_t transpose_naive(const float *in, float *out,
                                       size_t rows, size_t cols,
                                       cudaStream_t stream)
{
    if (rows == 0 || cols == 0) return cudaSuccess;
    dim3 grid;
    BOOK_TRY(tr_grid(in, out, rows, cols, &grid));
    BOOK_CLEAR_TO_LAUNCH();
    transpose_naive_kernel<<<grid, kTrBlock, 0, stream>>>(in, out, rows,
                                                          cols);
    return cudaGetLastError();
}

// <<Naive transpose that reads columns>>
__global__ void transpose_naive_colread_kernel(const float *__restrict__ in,
                                               float *__restrict__ out,
                                               size_t rows, size_t cols)
{
    // <<Find this block's tile>>
    size_t r0 = (size_t)blockIdx.y * TR_TILE;   // first input row of the tile
    size_t c0 = (size_t)blockIdx.x * TR_TILE;   // first input column
    unsigned tx = threadIdx.x, ty = threadIdx.y;
    for (unsigned k = 0; k < TR_TILE; k += TR_BLOCK_ROWS) {
        size_t r = c0 + ty + k, c = r0 + tx;     // row and column of out
        if (r < cols && c < rows) out[r * rows + c] = in[c * cols + r];
    }
}

extern "C" cudaError_t transpose_naive_colread(const float *in, float *out,
                                               size_t rows, size_t cols,
                                               cudaStream_t stream)
{
    if (rows == 0 || cols == 0) return cudaSuccess;
    dim3 grid;
    BOOK_TRY(tr_grid(in, out, rows, cols, &grid));
    BOOK_CLEAR_TO_LAUNCH();
    transpose_naive_colread_kernel<<<grid, kTrBlock, 0, stream>>>(
        in, out, rows, cols);
    return cudaGetLastError();
}

// <<Tiled transpose kernel>>
template <int Layout>
__global__ void transpose_tile_kernel(const float *__restrict__ in,
                                      float *__restrict__ out, size_t rows,
                                      size_t cols)
{
    __shared__ float tile[TR_TILE * (TR_TILE + 1)];
    const int layout = Layout;
    // <<Find this block's tile>>
    size_t r0 = (size_t)blockIdx.y * TR_TILE;   // first input row of the tile
    size_t c0 = (size_t)blockIdx.x * TR_TILE;   // first input column
    unsigned tx = threadIdx.x, ty = threadIdx.y;
    // <<Load the tile into shared memory>>
    for (unsigned k = 0; k < TR_TILE; k += TR_BLOCK_ROWS) {
        size_t r = r0 + ty + k, c = c0 + tx;
        if (r < rows && c < cols)
            tile[tr_smem_index(layout, ty + k, tx)] = in[r * cols + c];
    }
    __syncthreads();       // the whole tile is in shared memory
    // <<Store the tile transposed>>
    for (unsigned k = 0; k < TR_TILE; k += TR_BLOCK_ROWS) {
        size_t r = c0 + ty + k, c = r0 + tx;         // row and column of out
        if (r < cols && c < rows)
            out[r * rows + c] = tile[tr_smem_index(layout, tx, ty + k)];
    }
}

// <<Tiled transpose launchers>>
template <int Layout>
static cudaError_t transpose_tile_launch(const float *in, float *out,
                                         size_t rows, size_t cols,
                                         cudaStream_t stream)
{
    if (rows == 0 || cols == 0) return cudaSuccess;
    dim3 grid;
    BOOK_TRY(tr_grid(in, out, rows, cols, &grid));
    BOOK_CLEAR_TO_LAUNCH();
    transpose_tile_kernel<Layout><<<grid, kTrBlock, 0, stream>>>(
        in, out, rows, cols);
    return cudaGetLastError();
}

extern "C" cudaError_t transpose_tile(const float *in, float *out,
                                      size_t rows, size_t cols,
                                      cudaStream_t stream)
{
    return transpose_tile_launch<TR_PLAIN>(in, out, rows, cols, stream);
}
extern "C" cudaError_t transpose_tile_padded(const float *in, float *out,
                                             size_t rows, size_t cols,
                                             cudaStream_t stream)
{
    return transpose_tile_launch<TR_PADDED>(in, out, rows, cols, stream);
}

extern "C" cudaError_t transpose_tile_swizzled(const float *in, float *out,
                                               size_t rows, size_t cols,
                                               cudaStream_t stream)
{
    return transpose_tile_launch<TR_SWIZZLED>(in, out, rows, cols, stream);
}

// <<Wide-tile transpose>>
// Each of the 32 x 8 threads moves 8 rows x 2 columns of the tile.
enum { TR_WIDE_ROWS = TR_WIDE / TR_BLOCK_ROWS, TR_WIDE_COLS = TR_WIDE / 32 };

__global__ void __launch_bounds__(TR_TILE * TR_BLOCK_ROWS)
transpose_tile64_kernel(const float *__restrict__ in,
                        float *__restrict__ out, size_t rows, size_t cols)
{
    __shared__ float tile[TR_WIDE * (TR_WIDE + 1)];
    size_t r0 = (size_t)blockIdx.y * TR_WIDE;     // first input row
    size_t c0 = (size_t)blockIdx.x * TR_WIDE;     // first input column
    unsigned tx = threadIdx.x, ty = threadIdx.y;
    float v[TR_WIDE_ROWS][TR_WIDE_COLS];
    // <<Load the wide tile into registers>>
    #pragma unroll
    for (unsigned i = 0; i < TR_WIDE_ROWS; i++)
    #pragma unroll
        for (unsigned j = 0; j < TR_WIDE_COLS; j++) {
            size_t r = r0 + ty + TR_BLOCK_ROWS * i, c = c0 + tx + 32 * j;
            v[i][j] = r < rows && c < cols ? in[r * cols + c] : 0.0f;
        }
    // <<Copy the registers into the wide tile>>
    #pragma unroll
    for (unsigned i = 0; i < TR_WIDE_ROWS; i++)
    #pragma unroll
        for (unsigned j = 0; j < TR_WIDE_COLS; j++)
            tile[tr_wide_index(ty + TR_BLOCK_ROWS * i, tx + 32 * j)] = v[i][j];
    __syncthreads();       // the whole tile is in shared memory
    // <<Store the wide tile transposed>>
    #pragma unroll
    for (unsigned i = 0; i < TR_WIDE_ROWS; i++)
    #pragma unroll
        for (unsigned j = 0; j < TR_WIDE_COLS; j++) {
            size_t r = c0 + ty + TR_BLOCK_ROWS * i;   // row of out
            size_t c = r0 + tx + 32 * j;              // column of out
            if (r < cols && c < rows)
                out[r * rows + c] =
                    tile[tr_wide_index(tx + 32 * j, ty + TR_BLOCK_ROWS * i)];
        }
}
extern "C" cudaError_t transpose_tile64(const float *in, float *out,
                                        size_t rows, size_t cols,
                                        cudaStream_t stream)
{
    if (rows == 0 || cols == 0) return cudaSuccess;
    dim3 grid;
    BOOK_TRY(tr_grid(in, out, rows, cols, &grid));   // the same checks
    grid = dim3((unsigned)ceil_div(cols, TR_WIDE),
                (unsigned)ceil_div(rows, TR_WIDE));
    BOOK_CLEAR_TO_LAUNCH();
    transpose_tile64_kernel<<<grid, kTrBlock, 0, stream>>>(in, out, rows,
                                                           cols);
    return cudaGetLastError();
}

// <<Wrong on purpose: a tile without its barrier>>
__global__ void transpose_nobarrier_kernel(const float *__restrict__ in,
                                           float *__restrict__ out,
                                           size_t rows, size_t cols)
{
    __shared__ float tile[TR_TILE * (TR_TILE + 1)];
    const int layout = TR_PADDED;
    // <<Find this block's tile>>
    size_t r0 = (size_t)blockIdx.y * TR_TILE;   // first input row of the tile
    size_t c0 = (size_t)blockIdx.x * TR_TILE;   // first input column
    unsigned tx = threadIdx.x, ty = threadIdx.y;
    // <<Load the tile into shared memory>>
    for (unsigned k = 0; k < TR_TILE; k += TR_BLOCK_ROWS) {
        size_t r = r0 + ty + k, c = c0 + tx;
        if (r < rows && c < cols)
            tile[tr_smem_index(layout, ty + k, tx)] = in[r * cols + c];
    }
    // WRONG: no __syncthreads() here; a warp may read tile words
    // that another warp of the block has not written yet.
    // <<Store the tile transposed>>
    for (unsigned k = 0; k < TR_TILE; k += TR_BLOCK_ROWS) {
        size_t r = c0 + ty + k, c = r0 + tx;         // row and column of out
        if (r < cols && c < rows)
            out[r * rows + c] = tile[tr_smem_index(layout, tx, ty + k)];
    }
}

extern "C" cudaError_t transpose_tile_nobarrier(const float *in, float *out,
                                                size_t rows, size_t cols,
                                                cudaStream_t stream)
{
    if (rows == 0 || cols == 0) return cudaSuccess;
    dim3 grid;
    BOOK_TRY(tr_grid(in, out, rows, cols, &grid));
    BOOK_CLEAR_TO_LAUNCH();
    transpose_nobarrier_kernel<<<grid, kTrBlock, 0, stream>>>(in, out, rows,
                                                              cols);
    return cudaGetLastError();
}

// <<Count the bank conflicts of one warp's access>>
extern "C" unsigned tr_conflict_degree(const unsigned word[32])
{
    unsigned worst = 0;
    for (unsigned bank = 0; bank < 32; bank++) {
        unsigned seen[32], n = 0;
        for (unsigned lane = 0; lane < 32; lane++) {
            if (word[lane] % 32 != bank) continue;
            unsigned dup = 0;          // the same word twice is a broadcast
            for (unsigned s = 0; s < n; s++) dup |= seen[s] == word[lane];
            if (!dup) seen[n++] = word[lane];
        }
        if (n > worst) worst = n;
    }
    return worst;
}
