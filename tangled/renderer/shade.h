/* shade.h -- what the CPU reference and every renderer kernel share:
 * float operations rounded one at a time, a circle's box of pixels, the
 * covering test and the blend.  Compiles as C and as CUDA C++. */
#ifndef SHADE_H
#define SHADE_H
#include <math.h>
#include "renderer/circle.h"

// <<Float operations rounded one at a time>>
#ifdef __CUDACC__
#define SH_FN static __host__ __device__ __forceinline__
#else
#define SH_FN static inline
#endif
#ifdef __CUDA_ARCH__        /* device: intrinsics are never contracted */
#define F_ADD(a, b) __fadd_rn(a, b)
#define F_SUB(a, b) __fsub_rn(a, b)
#define F_MUL(a, b) __fmul_rn(a, b)
#define F_DIV(a, b) __fdiv_rn(a, b)
#else                       /* host: ISO C, no contraction (see text) */
#define F_ADD(a, b) ((a) + (b))
#define F_SUB(a, b) ((a) - (b))
#define F_MUL(a, b) ((a) * (b))
#define F_DIV(a, b) ((a) / (b))
#if defined(__FP_FAST_FMAF) && !defined(SHADE_NO_CONTRACTION) && \
    (defined(__cplusplus) || defined(__clang__) || !defined(__STRICT_ANSI__))
#error "shade.h: this host compiler may fuse a * b + c (see the text)"
#endif
#endif

// <<The centre of a pixel>>
/* Column (or row) i's centre in image units; inv is 1/W (or 1/H). */
SH_FN float sh_centre(int i, float inv)
{
    return F_MUL(F_ADD((float)i, 0.5f), inv);
}

// <<A circle's box of pixels>>
typedef struct { int x0, y0, x1, y1; } pixbox;  /* [x0, x1) x [y0, y1) */
SH_FN int sh_clamp(float v, float hi)
{
    return (int)fminf(fmaxf(v, 0.0f), hi);      /* NaN becomes 0 */
}
SH_FN pixbox sh_box(const circle *c, int w, int h)
{
    const float fw = (float)w, fh = (float)h;
    pixbox b;
    b.x0 = sh_clamp(floorf((c->x - c->radius) * fw) - 1.0f, fw);
    b.x1 = sh_clamp(ceilf((c->x + c->radius) * fw) + 1.0f, fw);
    b.y0 = sh_clamp(floorf((c->y - c->radius) * fh) - 1.0f, fh);
    b.y1 = sh_clamp(ceilf((c->y + c->radius) * fh) + 1.0f, fh);
    return b;
}
/* Does the box meet the pixel rectangle [x0, x1) x [y0, y1)? */
SH_FN int sh_box_meets(pixbox b, int x0, int y0, int x1, int y1)
{
    return b.x0 < x1 && x0 < b.x1 && b.y0 < y1 && y0 < b.y1;
}

// <<Blend one circle into one pixel>>
SH_FN int sh_blend(const circle *c, render_mode mode, float px, float py,
                   rgba *p)
{
    const float dx = F_SUB(px, c->x), dy = F_SUB(py, c->y);
    const float d2 = F_ADD(F_MUL(dx, dx), F_MUL(dy, dy));
    const float r2 = F_MUL(c->radius, c->radius);
    if (!(c->radius > 0.0f && d2 < r2)) return 0;
    float a = c->alpha;
    if (mode == RENDER_SNOW) a = F_MUL(a, F_SUB(1.0f, F_DIV(d2, r2)));
    const float t = F_SUB(1.0f, a);
    p->r = F_ADD(F_MUL(a, c->red), F_MUL(t, p->r));
    p->g = F_ADD(F_MUL(a, c->green), F_MUL(t, p->g));
    p->b = F_ADD(F_MUL(a, c->blue), F_MUL(t, p->b));
    p->a = F_ADD(a, F_MUL(t, p->a));
    return 1;
}
#endif
