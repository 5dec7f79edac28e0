// Solution to exercise 1 of the renderer chapter: rectangles.  A thread
// per pixel walks the list in order, as render_per_pixel does; a
// rectangle's test is two comparisons per axis on the pixel's centre,
// and its blend is sh_blend's with the flat alpha.  In the binned
// renderer only the box changes: a rectangle's box of pixels goes into
// the same flags, scan and lists.
#include "common/book.h"
#include "renderer/render.h"
#include "renderer/shade.h"
#include "renderer/exercises.h"

SH_FN int rect_blend(const circle *c, float x1, float y1, float px,
                     float py, rgba *p)
{
    if (!(c->x <= px && px < x1 && c->y <= py && py < y1)) return 0;
    const float a = c->alpha, t = F_SUB(1.0f, a);
    p->r = F_ADD(F_MUL(a, c->red), F_MUL(t, p->r));
    p->g = F_ADD(F_MUL(a, c->green), F_MUL(t, p->g));
    p->b = F_ADD(F_MUL(a, c->blue), F_MUL(t, p->b));
    p->a = F_ADD(a, F_MUL(t, p->a));
    return 1;
}

__global__ void shapes_kernel(const shape *s, size_t n, render_mode mode,
                              rgba bg, rgba *image, int w, int h)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    const float px = sh_centre(x, 1.0f / (float)w);
    const float py = sh_centre(y, 1.0f / (float)h);
    rgba p = bg;
    for (size_t k = 0; k < n; k++) {
        const shape q = s[k];
        if (q.kind == SHAPE_CIRCLE) sh_blend(&q.c, mode, px, py, &p);
        else if (q.kind == SHAPE_RECT) rect_blend(&q.c, q.x1, q.y1, px, py, &p);
    }
    image[(size_t)y * w + x] = p;
}

extern "C" cudaError_t render_shapes(const shape *shapes, size_t n,
                                     render_mode mode, rgba background,
                                     rgba *image, int width, int height,
                                     cudaStream_t stream)
{
    if (!image || (n > 0 && !shapes) || n > RENDER_MAX_CIRCLES ||
        width < 1 || height < 1 || width > RENDER_MAX_SIDE ||
        height > RENDER_MAX_SIDE ||
        (mode != RENDER_FLAT && mode != RENDER_SNOW))
        return cudaErrorInvalidValue;
    dim3 block(16, 16), grid((unsigned)ceil_div((size_t)width, 16),
                             (unsigned)ceil_div((size_t)height, 16));
    BOOK_CLEAR_TO_LAUNCH();
    shapes_kernel<<<grid, block, 0, stream>>>(shapes, n, mode, background,
                                              image, width, height);
    return cudaGetLastError();
}
