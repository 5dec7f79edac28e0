/* exercises.h -- the renderer chapter's code exercises: the launchers a
 * student writes in exercises/renderer/NAME.cu;
 * tests/renderer/ex_NAME.c tests them.  Device pointers; the image
 * and the limits as in render.h: 1 <= width, height <= RENDER_MAX_SIDE,
 * n <= RENDER_MAX_CIRCLES, the list may be NULL when n is 0.  Bad
 * arguments: cudaErrorInvalidValue, nothing launched.  As every launcher
 * of the book, each takes the stream its work is queued on as its last
 * argument (0: the default stream), and returns without waiting for it. */
#ifndef EX_RENDERER_H
#define EX_RENDERER_H
#include <cuda_runtime_api.h>
#include <stddef.h>
#include "renderer/circle.h"
#ifdef __cplusplus
extern "C" {
#endif
/* Exercise 1 (rects): circles and axis-aligned rectangles in one ordered
 * list, blended in list order.  A shape of kind SHAPE_CIRCLE is its
 * circle c, blended exactly as sh_blend does (mode included).  A shape of
 * kind SHAPE_RECT covers the pixels whose centre (sh_centre) lies in
 * [c.x, x1) x [c.y, y1) and blends like a flat circle: a = c.alpha, then
 * sh_blend's four lines with shade.h's rounded operations, so the image
 * is bit-identical to the CPU's.  A shape of any other kind is skipped. */
enum { SHAPE_CIRCLE = 0, SHAPE_RECT = 1 };
typedef struct {
    circle c;          /* the circle; for a rectangle: corner, colour */
    float x1, y1;      /* a rectangle's far corner; unused by a circle */
    int kind, pad;
} shape;
cudaError_t render_shapes(const shape *shapes, size_t n, render_mode mode,
                          rgba background, rgba *image, int width,
                          int height, cudaStream_t stream);
/* Exercise 3 (tile-count): counts[k] = the number of RENDER_TILE x
 * RENDER_TILE tiles of the width x height image (the last row and column
 * of tiles cut by the image's edge) that circle k's box (sh_box) meets
 * (sh_box_meets): the first step of building the lists without the flag
 * matrix.  counts has n entries. */
cudaError_t render_tile_counts(const circle *circles, size_t n, int width,
                               int height, unsigned *counts,
                               cudaStream_t stream);
#ifdef __cplusplus
}
#endif
#endif
