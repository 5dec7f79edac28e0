// Solution to exercise 3 of the renderer chapter: the tiles a circle's
// box meets.  A box [x0, x1) x [y0, y1) meets the tile columns x0 / T to
// (x1 - 1) / T and the rows likewise: the count is a product, no loop, and
// an empty box (x0 == x1: the circle is off the image) meets none.
#include "common/book.h"
#include "renderer/render.h"
#include "renderer/shade.h"
#include "renderer/exercises.h"

__global__ void tile_count_kernel(const circle *c, size_t n, int w, int h,
                                  unsigned *counts)
{
    const size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (k >= n) return;
    const circle q = c[k];
    const pixbox b = sh_box(&q, w, h);
    unsigned cols = 0, rows = 0;
    if (b.x0 < b.x1) cols = (b.x1 - 1) / RENDER_TILE - b.x0 / RENDER_TILE + 1;
    if (b.y0 < b.y1) rows = (b.y1 - 1) / RENDER_TILE - b.y0 / RENDER_TILE + 1;
    counts[k] = cols * rows;
}

extern "C" cudaError_t render_tile_counts(const circle *circles, size_t n,
                                          int width, int height,
                                          unsigned *counts,
                                          cudaStream_t stream)
{
    if ((n > 0 && (!circles || !counts)) || n > RENDER_MAX_CIRCLES ||
        width < 1 || height < 1 || width > RENDER_MAX_SIDE ||
        height > RENDER_MAX_SIDE)
        return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    BOOK_CLEAR_TO_LAUNCH();
    tile_count_kernel<<<(unsigned)ceil_div(n, 256), 256, 0, stream>>>(
        circles, n, width, height, counts);
    return cudaGetLastError();
}
