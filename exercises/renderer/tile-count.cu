// exercises/renderer/tile-count.cu -- Exercise 3 of the renderer
// chapter: the tiles each circle's box meets.  Write render_tile_counts
// (declared, with its contract, in exercises.h); check it with
//   make exercise EX=renderer/tile-count
#include "common/book.h"
#include "renderer/render.h"
#include "renderer/shade.h"
#include "renderer/exercises.h"

extern "C" cudaError_t render_tile_counts(const circle *circles, size_t n,
                                          int width, int height,
                                          unsigned *counts,
                                          cudaStream_t stream)
{
    (void)circles; (void)n; (void)width; (void)height; (void)counts;
    (void)stream;
    // TODO: refuse bad arguments, then launch your kernel on stream.
    // Which tiles does a box of pixels [x0, x1) x [y0, y1) meet?
    return cudaErrorNotYetImplemented;
}
