// exercises/13-renderer/rects.cu -- Exercise 1 of the renderer chapter:
// rectangles as a second primitive.  Write render_shapes (declared, with
// its contract, in exercises.h); check it with
//   make exercise EX=13-renderer/rects
#include "common/book.h"
#include "13-renderer/render.h"
#include "13-renderer/shade.h"
#include "13-renderer/exercises.h"

extern "C" cudaError_t render_shapes(const shape *shapes, size_t n,
                                     render_mode mode, rgba background,
                                     rgba *image, int width, int height)
{
    (void)shapes; (void)n; (void)mode; (void)background; (void)image;
    (void)width; (void)height;
    // TODO: refuse bad arguments, then launch your kernel.  What is a
    // rectangle's covering test, and what must stay in list order?
    return cudaErrorNotYetImplemented;
}
