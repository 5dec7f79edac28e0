/* circle.h -- the renderer's circle, pixel, shading modes and limits.
 * Plain C, no CUDA. */
#ifndef CIRCLE_H
#define CIRCLE_H

// <<A circle, a pixel and the shading modes>>
typedef struct {
    float x, y, radius, alpha;   /* centre and radius in image units */
    float red, green, blue, z;   /* colour; z: a depth, unused here */
} circle;
typedef struct { float r, g, b, a; } rgba;
typedef enum { RENDER_FLAT = 0, RENDER_SNOW = 1 } render_mode;
#define RENDER_TILE 16                   /* a tile is 16 x 16 pixels */
#define RENDER_MAX_SIDE 16384
#define RENDER_MAX_CIRCLES (1u << 24)
#endif
