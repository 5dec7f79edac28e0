// exercises/renderer/rects.cu -- Exercise 1 of the renderer chapter:
// rectangles as a second primitive.  Write render_shapes (declared, with
// its contract, in exercises.h); check it with
//   make exercise EX=renderer/rects
#include "common/book.h"
#include "renderer/render.h"
#include "renderer/shade.h"
#include "renderer/exercises.h"

extern "C" cudaError_t render_shapes(const shape *shapes, size_t n,
                                     render_mode mode, rgba background,
                                     rgba *image, int width, int height,
                                     cudaStream_t stream)
{
    (void)shapes; (void)n; (void)mode; (void)background; (void)image;
    (void)width; (void)height; (void)stream;
    // TODO: refuse bad arguments, then launch your kernel on stream.  What
    // is a rectangle's covering test, and what must stay in list order?
    return cudaErrorNotYetImplemented;
}
