/* ex_rects.c -- exercise 1 of the renderer chapter, render_shapes:
 * circles and rectangles in one ordered list, bit-identical to a CPU
 * reference that blends shape after shape with shade.h's operations, in
 * both modes, on edge image sizes (1 x 1, a row, a column, sizes that are
 * not multiples of a tile), with rectangles that leave the image, have no
 * area, or cover it all, and with an empty list (the background). */
#include "exkit.h"
#include <math.h>
#include <string.h>
#include "renderer/render.h"
#include "renderer/render_ref.h"
#include "renderer/exercises.h"

/* CPU-side: bad arguments are refused before anything touches a device. */
static void rects_bad_arguments_refused(void **s)
{
    (void)s;
    shape *d = EX_FAKE(shape, 256);
    rgba *img = EX_FAKE(rgba, 1 << 20), bg = {0, 0, 0, 1};
    EX_REFUSED(render_shapes(d, 10, RENDER_FLAT, bg, NULL, 64, 64, 0));
    EX_REFUSED(render_shapes(NULL, 10, RENDER_FLAT, bg, img, 64, 64, 0));
    EX_REFUSED(render_shapes(d, 10, RENDER_FLAT, bg, img, 0, 64, 0));
    EX_REFUSED(render_shapes(d, 10, RENDER_FLAT, bg, img, 64, 0, 0));
    EX_REFUSED(render_shapes(d, 10, RENDER_FLAT, bg, img,
                             RENDER_MAX_SIDE + 1, 64, 0));
    EX_REFUSED(render_shapes(d, 10, RENDER_FLAT, bg, img, 64,
                             RENDER_MAX_SIDE + 1, 0));
    EX_REFUSED(render_shapes(d, (size_t)RENDER_MAX_CIRCLES + 1, RENDER_FLAT,
                             bg, img, 64, 64, 0));
}

/* The reference: shape after shape, every pixel it may cover. */
static void shapes_ref(const shape *s, size_t n, render_mode mode, rgba bg,
                       rgba *img, int w, int h)
{
    const float iw = 1.0f / (float)w, ih = 1.0f / (float)h;
    for (size_t i = 0; i < (size_t)w * h; i++) img[i] = bg;
    for (size_t k = 0; k < n; k++) {
        const circle *c = &s[k].c;
        if (s[k].kind == SHAPE_CIRCLE) {
            const pixbox b = sh_box(c, w, h);
            for (int y = b.y0; y < b.y1; y++)
                for (int x = b.x0; x < b.x1; x++)
                    sh_blend(c, mode, sh_centre(x, iw), sh_centre(y, ih),
                             &img[(size_t)y * w + x]);
        } else if (s[k].kind == SHAPE_RECT) {
            for (int y = 0; y < h; y++) {
                const float py = sh_centre(y, ih);
                if (!(c->y <= py && py < s[k].y1)) continue;
                for (int x = 0; x < w; x++) {
                    const float px = sh_centre(x, iw);
                    if (!(c->x <= px && px < s[k].x1)) continue;
                    rgba *p = &img[(size_t)y * w + x];
                    const float a = c->alpha, t = F_SUB(1.0f, a);
                    p->r = F_ADD(F_MUL(a, c->red), F_MUL(t, p->r));
                    p->g = F_ADD(F_MUL(a, c->green), F_MUL(t, p->g));
                    p->b = F_ADD(F_MUL(a, c->blue), F_MUL(t, p->b));
                    p->a = F_ADD(a, F_MUL(t, p->a));
                }
            }
        }
    }
}

/* n random shapes: circles and rectangles mixed, a few odd ones. */
static void random_shapes(shape *s, size_t n, uint64_t *st)
{
    for (size_t k = 0; k < n; k++) {
        shape *q = &s[k];
        memset(q, 0, sizeof *q);
        q->kind = tk_next(st) % 2 ? SHAPE_RECT : SHAPE_CIRCLE;
        q->c.x = (float)tk_uniform(st, -0.1, 1.1);
        q->c.y = (float)tk_uniform(st, -0.1, 1.1);
        q->c.radius = (float)tk_uniform(st, 0.0, 0.15);
        q->c.alpha = (float)tk_uniform(st, 0.1, 0.9);
        q->c.red = (float)tk_uniform(st, 0, 1);
        q->c.green = (float)tk_uniform(st, 0, 1);
        q->c.blue = (float)tk_uniform(st, 0, 1);
        q->x1 = q->c.x + (float)tk_uniform(st, -0.02, 0.3); /* may be empty */
        q->y1 = q->c.y + (float)tk_uniform(st, -0.02, 0.3);
        switch (tk_next(st) % 50) {
        case 0: q->c.x = q->c.y = -1; q->x1 = q->y1 = 2; break; /* all */
        case 1: q->kind = 7; break;                        /* skipped */
        case 2: q->c.alpha = 1; break;                     /* opaque */
        default: break;
        }
    }
}

static void check_shapes(const char *what, const shape *s, size_t n,
                         render_mode mode, int w, int h, uint64_t seed)
{
    const rgba bg = {0.1f, 0.2f, 0.3f, 1.0f};
    rgba *ref = tk_malloc((size_t)w * h * sizeof *ref);
    rgba *got = tk_malloc((size_t)w * h * sizeof *got);
    shapes_ref(s, n, mode, bg, ref, w, h);
    shape *ds = n ? tk_dev_bytes(n * sizeof *ds) : NULL;
    rgba *di = tk_dev_bytes((size_t)w * h * sizeof *di);       /* poisoned */
    if (n) tk_upload_bytes(ds, s, n * sizeof *s);
    EX_CUDA(render_shapes(ds, n, mode, bg, di, w, h, 0));
    TK_CUDA(cudaDeviceSynchronize());
    tk_download_bytes(got, di, (size_t)w * h * sizeof *got);
    size_t bad = 0;
    for (size_t i = 0; i < (size_t)w * h; i++) {
        if (memcmp(&got[i], &ref[i], sizeof *got) == 0) continue;
        if (bad++ < 3)
            print_error("%s: %s n=%zu %dx%d mode %d seed=%llu: pixel (%zu, "
                        "%zu) is (%.9g %.9g %.9g %.9g), reference (%.9g "
                        "%.9g %.9g %.9g)\n", EX_NAME, what, n, w, h, mode,
                        (unsigned long long)seed, i % w, i / w, got[i].r,
                        got[i].g, got[i].b, got[i].a, ref[i].r, ref[i].g,
                        ref[i].b, ref[i].a);
    }
    tk_free(ds); tk_free(di); free(ref); free(got);
    if (bad) fail();
}

static void rects_random_scenes(void **st)
{
    (void)st;
    TK_REQUIRE_GPU();
    static const int sizes[][2] = {{1, 1}, {250, 190}, {1, 97}, {97, 1},
                                   {17, 33}, {512, 300}};
    static const size_t counts[] = {1, 7, 300, 2000};
    for (int round = 0; round < 2; round++) {
        uint64_t seed = tk_seed(round), s = seed;
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
            for (size_t j = 0; j < sizeof counts / sizeof *counts; j++) {
                size_t n = counts[j];
                shape *sh = tk_malloc(n * sizeof *sh);
                random_shapes(sh, n, &s);
                for (int mode = 0; mode < 2; mode++)
                    check_shapes("random", sh, n, (render_mode)mode,
                                 sizes[i][0], sizes[i][1], seed);
                free(sh);
            }
    }
}

/* Order matters: two opaque rectangles over each other, and the circle
 * case alone agrees with the chapter's renderer. */
static void rects_order_and_edges(void **st)
{
    (void)st;
    TK_REQUIRE_GPU();
    shape s[3];
    memset(s, 0, sizeof s);
    for (int k = 0; k < 2; k++) {
        s[k].kind = SHAPE_RECT;
        s[k].c.x = 0.25f * (float)k; s[k].c.y = 0.0f;
        s[k].x1 = 0.75f + 0.25f * (float)k; s[k].y1 = 1.0f;
        s[k].c.alpha = 1.0f; s[k].c.red = (float)k; s[k].c.blue = 1.0f - (float)k;
    }
    s[2].kind = SHAPE_CIRCLE;
    s[2].c = (circle){0.5f, 0.5f, 0.2f, 0.5f, 0.0f, 1.0f, 0.0f, 0.0f};
    check_shapes("two rectangles, then a circle", s, 3, RENDER_FLAT, 64, 48, 0);
    check_shapes("one rectangle, snow mode", s + 1, 1, RENDER_SNOW, 64, 48, 0);
    check_shapes("no shapes", NULL, 0, RENDER_FLAT, 31, 5, 0);
}

EX_MAIN(cmocka_unit_test(rects_bad_arguments_refused),
        cmocka_unit_test(rects_order_and_edges),
        cmocka_unit_test(rects_random_scenes))
