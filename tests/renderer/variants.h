/* variants.h -- the renderer chapter's renderers, listed once:
 * test_render.c runs them and bench_render.cu times them under these
 * names, the rows of renderer.csv (C and C++). */
#ifndef RENDER_VARIANTS_H
#define RENDER_VARIANTS_H
#include "renderer/render.h"

/* In the order of the chapter: X(id, name, the call), the call in the
 * parameters of render_variant below. */
#define RENDER_VARIANTS(X)                                                 \
    X(V_WRONG, "per_circle_wrong",                                         \
      render_per_circle_wrong(c, n, mode, bg, img, w, h, s))               \
    X(V_PIXEL, "per_pixel",                                                \
      render_per_pixel(c, n, mode, bg, img, w, h, s))                      \
    X(V_BATCH, "tile_batch",                                               \
      render_tile_batch(c, n, mode, bg, img, w, h, s))                     \
    X(V_SCAN, "tile_scan", render_tile_scan(c, n, mode, bg, img, w, h, s)) \
    X(V_BINNED, "binned",                                                  \
      render_binned(c, n, mode, bg, img, w, h, scratch, bytes, s))

#define RENDER_ID(id, name, call) id,
enum { RENDER_VARIANTS(RENDER_ID) V_COUNT };
#undef RENDER_ID
#define RENDER_NAME(id, name, call) name,
static const char *const render_variant_names[V_COUNT] = {
    RENDER_VARIANTS(RENDER_NAME)};
#undef RENDER_NAME

/* Renders with variant v on stream s.  scratch and bytes are the binned
 * renderer's (render_binned_scratch_bytes); the others ignore them. */
static inline cudaError_t render_variant(int v, const circle *c, size_t n,
                                         render_mode mode, rgba bg,
                                         rgba *img, int w, int h,
                                         void *scratch, size_t bytes,
                                         cudaStream_t s)
{
#define RENDER_CASE(id, name, call) case id: return call;
    switch (v) {
    RENDER_VARIANTS(RENDER_CASE)
    default: return cudaErrorInvalidValue;
    }
#undef RENDER_CASE
}
#endif
