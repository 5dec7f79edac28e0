/* render.h -- the renderers of semi-transparent circles, blended
 * in input order.  circles and image are device pointers, 16-byte
 * aligned, that do not overlap; the image is width x height rgba pixels,
 * row by row from the top; 1 <= width, height <= RENDER_MAX_SIDE;
 * n <= RENDER_MAX_CIRCLES (circles may be NULL when n is 0); mode is
 * RENDER_FLAT or RENDER_SNOW.  Bad arguments: cudaErrorInvalidValue,
 * nothing launched.  Every launcher takes the stream its work is queued
 * on as its last argument (0: the default stream), and returns without
 * waiting for it. */
#ifndef RENDER_H
#define RENDER_H
#include <cuda_runtime_api.h>
#include <stddef.h>
#include "renderer/circle.h"
#ifdef __cplusplus
extern "C" {
#endif

// <<Renderer launchers>>
/* Wrong on purpose: a thread per circle; blends race and reorder. */
cudaError_t render_per_circle_wrong(const circle *circles, size_t n,
                                    render_mode mode, rgba background,
                                    rgba *image, int width, int height,
                                    cudaStream_t stream);
/* A thread per pixel, every circle in order. */
cudaError_t render_per_pixel(const circle *circles, size_t n,
                             render_mode mode, rgba background,
                             rgba *image, int width, int height,
                             cudaStream_t stream);
/* A block per tile, batches of circles in shared memory. */
cudaError_t render_tile_batch(const circle *circles, size_t n,
                              render_mode mode, rgba background,
                              rgba *image, int width, int height,
                              cudaStream_t stream);
/* The same, each batch's hits packed by a block-wide scan. */
cudaError_t render_tile_scan(const circle *circles, size_t n,
                             render_mode mode, rgba background,
                             rgba *image, int width, int height,
                             cudaStream_t stream);
/* Global binning: per-bin lists by scan and stable compaction.  scratch
 * (device, 256-byte aligned) holds render_binned_scratch_bytes(n, width,
 * height) bytes; it may be NULL when that is 0.  Below RENDER_BIN_MIN
 * circles it renders as render_tile_scan does, and uses no scratch. */
#define RENDER_BIN_MIN 2048
size_t render_binned_scratch_bytes(size_t n, int width, int height);
cudaError_t render_binned(const circle *circles, size_t n, render_mode mode,
                          rgba background, rgba *image, int width,
                          int height, void *scratch, size_t bytes,
                          cudaStream_t stream);
#ifdef __cplusplus
}
#endif
#endif
