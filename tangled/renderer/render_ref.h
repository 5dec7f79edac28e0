/* render_ref.h -- the CPU reference renderer and the scenes.
 * C (and C++); include after the C library headers it needs. */
#ifndef RENDER_REF_H
#define RENDER_REF_H
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "renderer/shade.h"

// <<Render circles on the CPU, in order>>
static inline size_t render_ref(const circle *c, size_t n, render_mode mode,
                         rgba bg, rgba *img, int w, int h)
{
    const float iw = 1.0f / (float)w, ih = 1.0f / (float)h;
    size_t blends = 0;
    for (size_t i = 0; i < (size_t)w * h; i++) img[i] = bg;
    for (size_t k = 0; k < n; k++) {
        const pixbox b = sh_box(&c[k], w, h);
        for (int y = b.y0; y < b.y1; y++)
            for (int x = b.x0; x < b.x1; x++)
                blends += sh_blend(&c[k], mode, sh_centre(x, iw),
                                   sh_centre(y, ih), &img[(size_t)y * w + x]);
    }
    return blends;
}

// <<Render one pixel in double>>
static inline void render_ref_pixel_double(const circle *c, size_t n,
                                    render_mode mode, rgba bg, int w, int h,
                                    int x, int y, double out[4])
{
    const float px = sh_centre(x, 1.0f / (float)w);
    const float py = sh_centre(y, 1.0f / (float)h);
    double p[4] = {bg.r, bg.g, bg.b, bg.a};
    for (size_t k = 0; k < n; k++) {
        rgba probe = {0, 0, 0, 0};
        if (!sh_blend(&c[k], mode, px, py, &probe)) continue;
        const double a = probe.a;   /* the circle's alpha at this pixel */
        const double col[4] = {c[k].red, c[k].green, c[k].blue, 1.0};
        for (int q = 0; q < 4; q++) p[q] = a * col[q] + (1.0 - a) * p[q];
    }
    for (int q = 0; q < 4; q++) out[q] = p[q];
}

// <<Scene generator>>
typedef struct {
    const char *name;
    render_mode mode;
    rgba background;
    size_t n;
    circle *c;            /* malloc'd; free with scene_free */
} scene;
static const char *const scene_names[] = {
    "rgb", "rand10k", "rand100k", "rand1M", "micro2M",
    "pattern", "biglittle", "snow"};
#define SCENE_COUNT 8

// <<Scene random numbers>>
static inline uint64_t scene_next(uint64_t *s)          /* splitmix64 */
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static inline float scene_uniform(uint64_t *s, float lo, float hi)
{
    return lo + (hi - lo) * (float)(scene_next(s) >> 40) * 0x1p-24f;
}

// <<Random circles>>
/* n circles from k on: centres uniform (or clustered), radii in [r0, r1). */
static inline void scene_random(circle *c, size_t k, size_t n, float r0,
                                float r1, int clustered, uint64_t *s)
{
    for (size_t i = k; i < k + n; i++) {
        circle *q = &c[i];
        if (clustered) {
            q->x = (scene_uniform(s, 0, 1) + scene_uniform(s, 0, 1) +
                    scene_uniform(s, 0, 1)) / 3.0f;
            q->y = (scene_uniform(s, 0, 1) + scene_uniform(s, 0, 1) +
                    scene_uniform(s, 0, 1)) / 3.0f;
        } else {
            q->x = scene_uniform(s, 0, 1);
            q->y = scene_uniform(s, 0, 1);
        }
        q->radius = scene_uniform(s, r0, r1);
        q->alpha = scene_uniform(s, 0.3f, 0.8f);
        q->red = scene_uniform(s, 0, 1);
        q->green = scene_uniform(s, 0, 1);
        q->blue = scene_uniform(s, 0, 1);
        q->z = scene_uniform(s, 0, 1);
    }
}

// <<Make a scene by name>>
static inline circle scene_circle(float x, float y, float r, float a,
                                  float red, float green, float blue)
{
    circle c = {x, y, r, a, red, green, blue, 0.0f};
    return c;
}

// <<Fill the scene called name>>
/* 0 on success, -1 for an unknown name or no memory. */
static inline int scene_make(const char *name, scene *s)
{
    static const size_t sizes[SCENE_COUNT] = {3, 10000, 100000, 1000000,
                                              2000000, 40 * 48 + 6,
                                              12 + 40000, 20000};
    uint64_t st = 20261201u;                       /* the book's seed */
    int k = 0;
    while (k < SCENE_COUNT && strcmp(name, scene_names[k])) k++;
    if (k == SCENE_COUNT) return -1;
    s->name = scene_names[k];
    s->n = sizes[k];
    s->mode = k == 7 ? RENDER_SNOW : RENDER_FLAT;
    const rgba sky = {0.05f, 0.07f, 0.2f, 1.0f}, white = {1, 1, 1, 1};
    s->background = k == 7 ? sky : white;
    s->c = (circle *)malloc(s->n * sizeof *s->c);
    if (!s->c) return -1;
    // <<Place the circles of scene k>>
    circle *c = s->c;
    if (k == 0) {
        c[0] = scene_circle(0.40f, 0.40f, 0.30f, 0.5f, 1, 0, 0);
        c[1] = scene_circle(0.60f, 0.40f, 0.30f, 0.5f, 0, 1, 0);
        c[2] = scene_circle(0.50f, 0.58f, 0.30f, 0.5f, 0, 0, 1);
    } else if (k >= 1 && k <= 4) {
        static const float r0[] = {0.005f, 0.002f, 0.0005f, 0.0002f};
        static const float r1[] = {0.05f, 0.02f, 0.005f, 0.001f};
        scene_random(c, 0, s->n, r0[k - 1], r1[k - 1], 0, &st);
    } else if (k == 5) {
        // <<Place the rings of the pattern scene>>
        for (int i = 0; i < 6; i++)                     /* large, faint */
            c[i] = scene_circle(0.2f + 0.3f * (i % 3), 0.3f + 0.4f * (i / 3),
                                0.25f, 0.15f, 0.2f * i, 0.5f, 1.0f - 0.15f * i);
        for (int ring = 0; ring < 40; ring++)
            for (int j = 0; j < 48; j++) {
                const float t = 6.2831853f * (float)j / 48.0f;
                const float rr = 0.02f + 0.012f * (float)ring;
                const float x = 0.5f + rr * cosf(t), y = 0.5f + rr * sinf(t);
                c[6 + ring * 48 + j] = scene_circle(
                    x, y, 0.004f + 0.0006f * (float)ring, 0.7f,
                    0.5f + 0.5f * sinf(0.3f * ring), 0.5f + 0.5f * cosf(t),
                    (float)(ring % 5) / 4.0f);
            }
    } else if (k == 6) {
        scene_random(c, 0, 12, 0.25f, 0.6f, 0, &st);
        scene_random(c, 12, 40000, 0.002f, 0.012f, 1, &st);
    } else {
        scene_random(c, 0, s->n, 0.005f, 0.04f, 0, &st);
        for (size_t i = 0; i < s->n; i++) {          /* white to pale blue */
            c[i].red = c[i].green = scene_uniform(&st, 0.8f, 1.0f);
            c[i].blue = 1.0f;
        }
    }
    return 0;
}
static inline void scene_free(scene *s)
{
    free(s->c);
    s->c = NULL;
}
#endif
