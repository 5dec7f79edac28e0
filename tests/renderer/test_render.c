/* test_render.c -- the renderer chapter's tests.  CPU side: the scenes are
 * the same on every run, the reference's box never leaves out a covered
 * pixel, the float reference stays within its derived bound of one in
 * double, bad arguments are refused.  GPU side: every correct renderer is
 * bit-identical to the reference on every scene at 250 x 190 and on rand10k
 * at 1024 x 1024, on empty and edge scenes and odd sizes; every renderer
 * queues its work on its stream (behind a closed gate); the per-circle
 * renderer differs from it, and only where circles overlap. */
#define _POSIX_C_SOURCE 200809L    /* setenv */
#include "testkit.h"
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "renderer/render.h"
#include "renderer/render_ref.h"
#include "variants.h"      /* the renderers, V_WRONG to V_BINNED */

#define TW 250
#define TH 190

/* Render scene s on the GPU with variant v into host image got. */
static cudaError_t gpu_render(int v, const circle *c, size_t n,
                              render_mode mode, rgba bg, rgba *got, int w,
                              int h)
{
    circle *dc = n ? tk_dev_bytes(n * sizeof *dc) : NULL;
    rgba *di = tk_dev_bytes((size_t)w * h * sizeof *di);   /* NaN */
    if (n) tk_upload_bytes(dc, c, n * sizeof *c);
    size_t sb = render_binned_scratch_bytes(n, w, h);
    void *scratch = sb ? tk_dev_bytes(sb) : NULL;
    cudaError_t e = render_variant(v, dc, n, mode, bg, di, w, h, scratch, sb,
                                   0);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e == cudaSuccess)
        tk_download_bytes(got, di, (size_t)w * h * sizeof *got);
    tk_free(scratch);
    tk_free(di);
    tk_free(dc);
    return e;
}

/* Pixels whose bits differ; prints the first few. */
static size_t bits_differ(const char *what, const rgba *got, const rgba *ref,
                          int w, int h)
{
    size_t bad = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const rgba *g = &got[(size_t)y * w + x], *r = &ref[(size_t)y * w + x];
            if (memcmp(g, r, sizeof *g) == 0) continue;
            if (bad++ < 3)
                print_error("%s: pixel (%d, %d) is (%.9g %.9g %.9g %.9g), "
                            "reference (%.9g %.9g %.9g %.9g)\n", what, x, y,
                            g->r, g->g, g->b, g->a, r->r, r->g, r->b, r->a);
        }
    return bad;
}

/* Every renderer in vs (a bit mask) against the reference. */
static void check_exact(const char *what, const circle *c, size_t n,
                        render_mode mode, rgba bg, int w, int h, unsigned vs)
{
    rgba *ref = tk_malloc((size_t)w * h * sizeof *ref);
    rgba *got = tk_malloc((size_t)w * h * sizeof *got);
    render_ref(c, n, mode, bg, ref, w, h);
    for (int v = 0; v < V_COUNT; v++) {
        if (!(vs >> v & 1)) continue;
        assert_int_equal(gpu_render(v, c, n, mode, bg, got, w, h),
                         cudaSuccess);
        char name[160];
        snprintf(name, sizeof name, "%s %s %dx%d", what,
                 render_variant_names[v], w, h);
        size_t bad = bits_differ(name, got, ref, w, h);
        if (bad) print_error("%s: %zu pixels differ\n", name, bad);
        assert_int_equal(bad, 0);
    }
    free(got);
    free(ref);
}
/* Every correct renderer: all but the one wrong on purpose. */
#define ALL_VARIANTS (((1u << V_COUNT) - 1) & ~(1u << V_WRONG))

/* ---- CPU side ---------------------------------------------------------- */

static void scenes_are_fixed(void **s)
{
    (void)s;
    static const size_t n[SCENE_COUNT] = {3, 10000, 100000, 1000000,
                                          2000000, 1926, 40012, 20000};
    for (int k = 0; k < SCENE_COUNT; k++) {
        scene a, b;
        assert_int_equal(scene_make(scene_names[k], &a), 0);
        assert_int_equal(scene_make(scene_names[k], &b), 0);
        assert_int_equal(a.n, n[k]);
        assert_memory_equal(a.c, b.c, a.n * sizeof *a.c);
        for (size_t i = 0; i < a.n; i++) {
            assert_true(a.c[i].radius > 0 && a.c[i].alpha > 0);
            assert_true(a.c[i].alpha <= 1 && a.c[i].blue <= 1);
        }
        scene_free(&a);
        scene_free(&b);
    }
    scene x;
    assert_int_equal(scene_make("nosuch", &x), -1);
}

/* A circle covers a pixel only inside its box: random circles, some huge,
 * some off the image, some with NaN or zero radius. */
static void box_is_conservative(void **s)
{
    (void)s;
    TK_SKIP_UNDER_SANITIZER("CPU only; the plain test run checks it");
    for (int round = 0; round < 2; round++) {
        uint64_t seed = tk_seed(round), st = seed;
        const int w = 37 + round * 64, h = 23 + round * 40;
        for (int i = 0; i < 3000; i++) {
            circle c = {(float)tk_uniform(&st, -0.5, 1.5),
                        (float)tk_uniform(&st, -0.5, 1.5),
                        (float)tk_uniform(&st, 0, i % 7 ? 0.1 : 1.5),
                        0.5f, 1, 0, 0, 0};
            if (i % 97 == 0) c.radius = 0;
            if (i % 101 == 0) c.x = NAN;
            const pixbox b = sh_box(&c, w, h);
            assert_true(b.x0 >= 0 && b.x1 <= w && b.y0 >= 0 && b.y1 <= h);
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++) {
                    rgba p = {0, 0, 0, 0};
                    if (!sh_blend(&c, RENDER_FLAT, sh_centre(x, 1.0f / w),
                                  sh_centre(y, 1.0f / h), &p))
                        continue;
                    if (x < b.x0 || x >= b.x1 || y < b.y0 || y >= b.y1)
                        print_error("seed %llu: circle %d leaves out "
                                    "(%d, %d)\n", (unsigned long long)seed,
                                    i, x, y);
                    assert_true(x >= b.x0 && x < b.x1 && y >= b.y0 &&
                                y < b.y1);
                }
        }
    }
}

/* The reference on hand-checked cases: nothing drawn is the background;
 * one circle at the centre blends exactly alpha C + (1 - alpha) bg. */
static void reference_by_hand(void **s)
{
    (void)s;
    const rgba bg = {0.25f, 0.5f, 0.75f, 1.0f};
    rgba img[8 * 6];
    assert_int_equal(render_ref(NULL, 0, RENDER_FLAT, bg, img, 8, 6), 0);
    for (int i = 0; i < 48; i++) assert_memory_equal(&img[i], &bg, sizeof bg);
    /* radius 0.1 on an 8 x 8 image: only centres 0.4375, 0.5625 inside */
    const circle c[3] = {{0.5f, 0.5f, 0.1f, 0.5f, 1, 0, 0, 0},
                         {0.5f, 0.5f, 0.0f, 1.0f, 0, 1, 0, 0},   /* r = 0 */
                         {3.0f, -2.f, 0.5f, 1.0f, 0, 1, 0, 0}};  /* off */
    rgba im2[64];
    assert_int_equal(render_ref(c, 3, RENDER_FLAT, bg, im2, 8, 8), 4);
    const rgba in = {0.5f * 1 + 0.5f * 0.25f, 0.5f * 0.5f, 0.5f * 0.75f, 1};
    for (int y = 0; y < 8; y++)
        for (int x = 0; x < 8; x++) {
            const int inside = (x == 3 || x == 4) && (y == 3 || y == 4);
            assert_memory_equal(&im2[y * 8 + x], inside ? &in : &bg,
                                sizeof bg);
        }
}

/* Float reference against double: |error| <= 8 m 2^-24 at a pixel with m
 * blends (see the chapter). */
static void reference_within_bound(void **s)
{
    (void)s;
    TK_SKIP_UNDER_SANITIZER("CPU only; the plain test run checks it");
    static const char *names[] = {"rgb", "rand10k", "pattern", "snow"};
    const int w = 64, h = 48;
    rgba *img = tk_malloc((size_t)w * h * sizeof *img);
    for (int k = 0; k < 4; k++) {
        scene sc;
        assert_int_equal(scene_make(names[k], &sc), 0);
        render_ref(sc.c, sc.n, sc.mode, sc.background, img, w, h);
        double worst = 0;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                double d[4];
                render_ref_pixel_double(sc.c, sc.n, sc.mode, sc.background,
                                        w, h, x, y, d);
                size_t m = 0;
                rgba probe = sc.background;
                for (size_t i = 0; i < sc.n; i++)
                    m += sh_blend(&sc.c[i], sc.mode, sh_centre(x, 1.0f / w),
                                  sh_centre(y, 1.0f / h), &probe);
                const float *f = &img[(size_t)y * w + x].r;
                const double bound = 8.0 * (double)m * 0x1p-24;
                for (int q = 0; q < 4; q++) {
                    const double err = fabs(f[q] - d[q]);
                    if (err > bound)
                        print_error("%s (%d, %d) channel %d: error %g > %g\n",
                                    names[k], x, y, q, err, bound);
                    assert_true(err <= bound);
                    if (m && err / (double)m > worst) worst = err / (double)m;
                }
            }
        print_message("%s: worst error per blend %.3g (2^-24 = %.3g)\n",
                      names[k], worst, 0x1p-24);
        scene_free(&sc);
    }
    free(img);
}

static void bad_arguments_refused(void **s)
{
    (void)s;
    circle *c = TK_FAKE(256);  /* never dereferenced */
    rgba *im = TK_FAKE(1u << 20);
    const rgba bg = {0, 0, 0, 1};
    /* Every renderer but the binned one (below), scratch unused. */
#define F(...) render_variant(v, __VA_ARGS__, NULL, 0, 0)
    for (int v = 0; v < V_COUNT; v++) {
        if (v == V_BINNED) continue;
        TK_REFUSED(F(c, 10, RENDER_FLAT, bg, NULL, 8, 8));
        TK_REFUSED(F(NULL, 10, RENDER_FLAT, bg, im, 8, 8));
        TK_REFUSED(F(c, 10, RENDER_FLAT, bg, im, 0, 8));
        TK_REFUSED(F(c, 10, RENDER_FLAT, bg, im, 8, -1));
        TK_REFUSED(F(c, 10, RENDER_FLAT, bg, im, RENDER_MAX_SIDE + 1, 8));
        TK_REFUSED(F(c, 10, (render_mode)7, bg, im, 8, 8));
        TK_REFUSED(F((circle *)((char *)c + 4), 10, RENDER_FLAT, bg, im, 8, 8));
        TK_REFUSED(F(c, 10, RENDER_FLAT, bg, (rgba *)((char *)im + 8), 8, 8));
        TK_REFUSED(F(c, (size_t)RENDER_MAX_CIRCLES + 1, RENDER_FLAT,
                     bg, im, 8, 8));
        /* circles and image overlapping */
        TK_REFUSED(F(c, 10, RENDER_FLAT, bg, (rgba *)c, 8, 8));
    }
#undef F
    const size_t n = 5000, need = render_binned_scratch_bytes(n, 100, 100);
    void *sc = TK_FAKE(1u << 30);
    assert_true(need > 0);
    assert_int_equal(render_binned_scratch_bytes(100, 100, 100), 0);
    assert_int_equal(render_binned_scratch_bytes(n, 0, 100), 0);
    TK_REFUSED(render_binned(c, n, RENDER_FLAT, bg, im, 100, 100, sc,
                             need - 1, 0));
    TK_REFUSED(render_binned(c, n, RENDER_FLAT, bg, im, 100, 100, NULL,
                             need, 0));
    TK_REFUSED(render_binned(c, n, RENDER_FLAT, bg, im, 100, 100,
                             (char *)sc + 16, need, 0));
    TK_REFUSED(render_binned(NULL, n, RENDER_FLAT, bg, im, 100, 100, sc,
                             need, 0));
    TK_REFUSED(render_binned(c, n, RENDER_FLAT, bg, im, 100, 0, sc, need, 0));
}

/* Every launcher, the binned one below and above RENDER_BIN_MIN circles
 * included, refuses each bad argument that render.h names, one at a time,
 * before touching a pointer (the addresses are never dereferenced).  The
 * binned one also refuses a missing, misaligned or short scratch, and
 * render_binned_scratch_bytes is 0 wherever the launchers refuse.  The
 * rows: every renderer of variants.h, then the binned one again with
 * fewer than RENDER_BIN_MIN circles. */
enum { R_BINNED_FEW = V_COUNT, R_COUNT };
static const char *refusal_name(int r)
{
    return r == R_BINNED_FEW ? "binned (few)" : render_variant_names[r];
}
static cudaError_t refuse_call(int r, const circle *c, size_t n,
                               render_mode mode, rgba *im, int w, int h,
                               void *sc, size_t bytes)
{
    const rgba bg = {0, 0, 0, 1};
    return render_variant(r == R_BINNED_FEW ? V_BINNED : r, c, n, mode, bg,
                          im, w, h, sc, bytes, 0);
}
static void refusals_every_launcher(void **s)
{
    (void)s;
    /* 2^24 circles are 512 MiB, a 16384^2 image 4 GiB: 2^36 apart. */
    circle *c = (circle *)(uintptr_t)((uint64_t)1 << 36);
    rgba *im = (rgba *)(uintptr_t)((uint64_t)2 << 36);
    void *sc = (void *)(uintptr_t)((uint64_t)3 << 36);
    const int W = 100, H = 60;
    static const int bad_side[] = {0, -1, -16, RENDER_MAX_SIDE + 1,
                                   RENDER_MAX_SIDE + 16, -2147483647 - 1,
                                   2147483647};
    for (int v = 0; v < R_COUNT; v++) {
        const size_t n = v == V_BINNED ? RENDER_BIN_MIN + 7
                       : v == R_BINNED_FEW ? RENDER_BIN_MIN - 1 : 300;
        const size_t need = render_binned_scratch_bytes(n, W, H);
        assert_true(v == V_BINNED ? need > 0 : need == 0);
        const size_t cb = n * sizeof *c, ib = (size_t)W * H * sizeof *im;
#define REFUSED(what, cc, nn, mm, ii, ww, hh)                              \
        do {                                                               \
            cudaError_t e_ = refuse_call(v, cc, nn, mm, ii, ww, hh, sc,    \
                                         need);                            \
            if (e_ != cudaErrorInvalidValue)                               \
                print_error("%s: %s returned %d\n", refusal_name(v), what, \
                            (int)e_);                                      \
            TK_REFUSED(e_);                                                \
        } while (0)
        REFUSED("image null", c, n, RENDER_FLAT, NULL, W, H);
        REFUSED("circles null", NULL, n, RENDER_FLAT, im, W, H);
        REFUSED("circles null", NULL, 1, RENDER_SNOW, im, W, H);
        for (size_t i = 0; i < sizeof bad_side / sizeof *bad_side; i++) {
            REFUSED("bad width", c, n, RENDER_FLAT, im, bad_side[i], H);
            REFUSED("bad height", c, n, RENDER_FLAT, im, W, bad_side[i]);
            REFUSED("bad sides", c, n, RENDER_SNOW, im, bad_side[i],
                    bad_side[i]);
            assert_int_equal(render_binned_scratch_bytes(RENDER_BIN_MIN,
                                                         bad_side[i], H), 0);
            assert_int_equal(render_binned_scratch_bytes(RENDER_BIN_MIN, W,
                                                         bad_side[i]), 0);
        }
        REFUSED("mode 2", c, n, (render_mode)2, im, W, H);
        REFUSED("mode -1", c, n, (render_mode)-1, im, W, H);
        for (size_t off = 4; off < 16; off += 4) {
            REFUSED("circles misaligned", (circle *)((char *)c + off), n,
                    RENDER_FLAT, im, W, H);
            REFUSED("image misaligned", c, n, RENDER_FLAT,
                    (rgba *)((char *)im + off), W, H);
        }
        REFUSED("too many circles", c, (size_t)RENDER_MAX_CIRCLES + 1,
                RENDER_FLAT, im, W, H);
        REFUSED("too many circles", c, SIZE_MAX, RENDER_FLAT, im, W, H);
        /* Overlaps: the same start; the image ending in the circles'
         * first 16 bytes; the image starting in their last 16. */
        REFUSED("image is circles", c, n, RENDER_FLAT, (rgba *)c, W, H);
        REFUSED("image ends in circles", c, n, RENDER_FLAT,
                (rgba *)((char *)c - ib + 16), W, H);
        REFUSED("image starts in circles", c, n, RENDER_FLAT,
                (rgba *)((char *)c + cb - 16), W, H);
        REFUSED("circles start in image", (circle *)((char *)im + ib - 32),
                n, RENDER_FLAT, im, W, H);
#undef REFUSED
    }
    const size_t n = RENDER_BIN_MIN + 7,
                 need = render_binned_scratch_bytes(n, W, H);
    const rgba bg = {0, 0, 0, 1};
    TK_REFUSED(render_binned(c, n, RENDER_FLAT, bg, im, W, H, NULL, need, 0));
    TK_REFUSED(render_binned(c, n, RENDER_FLAT, bg, im, W, H, sc, 0, 0));
    TK_REFUSED(render_binned(c, n, RENDER_FLAT, bg, im, W, H, sc, need - 1, 0));
    for (size_t off = 4; off < 256; off *= 2)
        TK_REFUSED(render_binned(c, n, RENDER_FLAT, bg, im, W, H,
                                 (char *)sc + off, need, 0));
    assert_int_equal(render_binned_scratch_bytes(RENDER_BIN_MIN - 1, W, H), 0);
    assert_int_equal(render_binned_scratch_bytes(0, W, H), 0);
    assert_int_equal(render_binned_scratch_bytes(
                         (size_t)RENDER_MAX_CIRCLES + 1, W, H), 0);
    assert_true(render_binned_scratch_bytes(RENDER_MAX_CIRCLES,
                                            RENDER_MAX_SIDE,
                                            RENDER_MAX_SIDE) > 0);
}

/* ---- GPU side ---------------------------------------------------------- */

/* Every scene at 250 x 190 (not multiples of 16), every renderer.  Under
 * the sanitizer (BOOK_SMALL) the tools watch every shared-memory access,
 * and the tile renderers make about 256 of them for every (circle, tile)
 * hit: there each scene is cut to its first 100 circles at 40 x 24 (3 x 2
 * tiles, the last ones partial), about a million accesses a renderer;
 * exact_edges covers several batches and the binning. */
static void exact_every_scene(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    const int w = tk_small() ? 40 : TW, h = tk_small() ? 24 : TH;
    for (int k = 0; k < SCENE_COUNT; k++) {
        scene sc;
        assert_int_equal(scene_make(scene_names[k], &sc), 0);
        const size_t n = tk_small() && sc.n > 100 ? 100 : sc.n;
        check_exact(sc.name, sc.c, n, sc.mode, sc.background, w, h,
                    ALL_VARIANTS);
        scene_free(&sc);
    }
}

static void exact_rand10k_full_size(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    TK_SKIP_UNDER_SANITIZER("1024 x 1024 x 10000 tests per renderer");
    scene sc;
    assert_int_equal(scene_make("rand10k", &sc), 0);
    check_exact(sc.name, sc.c, sc.n, sc.mode, sc.background, 1024, 1024,
                ALL_VARIANTS);
    scene_free(&sc);
}

/* Random circles (some huge, off the image, of radius 0 or negative) in
 * numbers around the binning threshold, at sizes around the tile and
 * the bin; the empty scene; both modes.  Under the sanitizer: the fixed
 * seed only; 33 x 130 for the largest size (27 tiles, bins of 2 x 2
 * tiles); 2048 circles through the binned renderer alone (the fallback and
 * the tile renderers are the same code at 257); per-pixel and step 3 on
 * 257 circles at most. */
static void exact_edges(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    static const int sizes[][2] = {{1, 1}, {17, 1}, {1, 33}, {16, 16},
                                   {33, 17}, {129, 257}, {300, 130}};
    static const int small_sizes[][2] = {{1, 1}, {17, 1}, {1, 33},
                                         {16, 16}, {33, 17}, {33, 130}};
    static const size_t counts[] = {0, 1, 255, 257, RENDER_BIN_MIN - 1,
                                    RENDER_BIN_MIN, RENDER_BIN_MIN + 1};
    const int small = tk_small();
    const size_t nsizes = small ? sizeof small_sizes / sizeof small_sizes[0]
                                : sizeof sizes / sizeof sizes[0];
    const rgba bg = {0.1f, 0.2f, 0.3f, 0.4f};
    for (int round = 0; round < (small ? 1 : 2); round++) {
        uint64_t seed = tk_seed(round), st = seed;
        for (size_t z = 0; z < nsizes; z++)
            for (size_t q = 0; q < sizeof counts / sizeof counts[0]; q++) {
                const size_t n = counts[q];
                const int w = small ? small_sizes[z][0] : sizes[z][0];
                const int h = small ? small_sizes[z][1] : sizes[z][1];
                unsigned vs = ALL_VARIANTS;
                if (small && n > 257)
                    vs = n == RENDER_BIN_MIN ? 1u << V_BINNED : 0;
                if (!vs) continue;
                circle *c = tk_malloc((n ? n : 1) * sizeof *c);
                scene_random(c, 0, n, 0.0f, 0.08f, 0, &st);
                for (size_t i = 0; i < n; i++) {
                    if (i % 11 == 0) c[i].x = (float)tk_uniform(&st, -1, 2);
                    if (i % 13 == 0) c[i].radius = 0;
                    if (i % 17 == 0) c[i].radius = -0.1f;
                    if (i % 101 == 0) c[i].radius = 0.7f;
                }
                char what[96];
                snprintf(what, sizeof what, "seed %llu, %zu circles",
                         (unsigned long long)seed, n);
                check_exact(what, c, n, (render_mode)(q % 2), bg, w, h, vs);
                free(c);
            }
    }
}

/* Every renderer queues all its work on the stream it is given.  Two calls
 * of each, on the two halves of rand10k (5000 circles each, above
 * RENDER_BIN_MIN; then RENDER_BIN_MIN - 1 of each for the binned
 * renderer's fallback), wait on a stream behind a closed gate, the binned
 * ones sharing one scratch.  Neither image nor the scratch is written when
 * they return, and once the gate opens each image is its half's reference,
 * bit for bit (the wrong renderer's is not compared).  A memset of the
 * scan's tile status made off the stream would show in the scratch, and
 * would leave the second call's scan the first one's status. */
static void renderer_launchers_follow_the_stream(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    const int w = TW, h = TH;
    const size_t ib = (size_t)w * h * sizeof(rgba);
    scene sc;
    assert_int_equal(scene_make("rand10k", &sc), 0);
    const size_t half = sc.n / 2;
    assert_true(half >= RENDER_BIN_MIN);
    rgba *ref[2][2], *got = tk_malloc(ib);        /* [few][half] */
    for (int f = 0; f < 2; f++)
        for (int c = 0; c < 2; c++) {
            ref[f][c] = tk_malloc(ib);
            render_ref(sc.c + c * half, f ? RENDER_BIN_MIN - 1 : half,
                       sc.mode, sc.background, ref[f][c], w, h);
        }
    circle *dc = tk_dev_bytes(sc.n * sizeof *dc);
    tk_upload_bytes(dc, sc.c, sc.n * sizeof *dc);
    rgba *di[2] = {tk_dev_bytes(ib), tk_dev_bytes(ib)};
    const size_t sb = render_binned_scratch_bytes(half, w, h);
    void *scratch = tk_dev_bytes(sb);
    for (int r = 0; r <= V_COUNT; r++) {     /* V_COUNT: binned, few */
        const int v = r < V_COUNT ? r : V_BINNED, few = r == V_COUNT;
        const size_t n = few ? RENDER_BIN_MIN - 1 : half;
        tk_poison(di[0], ib);
        tk_poison(di[1], ib);
        tk_poison(scratch, sb);
        tk_gate g = tk_gate_close();
        for (int c = 0; c < 2; c++)
            TK_CUDA(render_variant(v, dc + c * half, n, sc.mode,
                                   sc.background, di[c], w, h, scratch, sb,
                                   g.s));
        assert_true(tk_still_poisoned(di[0], ib));
        assert_true(tk_still_poisoned(di[1], ib));
        assert_true(tk_still_poisoned(scratch, sb));
        tk_gate_open(&g);
        if (v == V_WRONG) continue;              /* wrong by design */
        for (int c = 0; c < 2; c++) {
            char name[96];
            snprintf(name, sizeof name, "%s%s, half %d, behind a gate",
                     render_variant_names[v], few ? " (few)" : "", c);
            tk_download_bytes(got, di[c], ib);
            assert_int_equal(bits_differ(name, got, ref[few][c], w, h), 0);
        }
    }
    tk_free(scratch);
    tk_free(di[0]);
    tk_free(di[1]);
    tk_free(dc);
    for (int f = 0; f < 2; f++)
        for (int c = 0; c < 2; c++) free(ref[f][c]);
    free(got);
    scene_free(&sc);
}

/* Pixels covered by how many circles (the reference's boxes and tests). */
static unsigned *coverage(const scene *sc, int w, int h)
{
    unsigned *m = tk_malloc((size_t)w * h * sizeof *m);
    memset(m, 0, (size_t)w * h * sizeof *m);
    for (size_t k = 0; k < sc->n; k++) {
        const pixbox b = sh_box(&sc->c[k], w, h);
        for (int y = b.y0; y < b.y1; y++)
            for (int x = b.x0; x < b.x1; x++) {
                rgba p = {0, 0, 0, 0};
                m[(size_t)y * w + x] +=
                    sh_blend(&sc->c[k], sc->mode, sh_centre(x, 1.0f / w),
                             sh_centre(y, 1.0f / h), &p);
            }
    }
    return m;
}

/* The wrong renderer differs, and only where two or more circles meet.
 * Pixels covered by one circle or none are written by at most one thread,
 * so they must match exactly: that half is deterministic.  That some
 * pixel differs is a race's outcome, but not a matter of luck here: the
 * 32 threads of a warp walk their boxes in step, row by row, so where the
 * boxes of circles k < k' of one warp share a pixel that comes earlier in
 * k''s walk than in k's, k' blends it first and k blends over it, the
 * wrong order.  rand10k at 256 x 256 (radii 1.3 to 12.8 pixels, centres
 * uniform) has about five pairs of overlapping circles in each of its 313
 * warps (a pair overlaps with probability pi E[(r1 + r2)^2] / 256^2, about
 * 1 %, and a warp holds 496 pairs), in random colours, and thousands more
 * pairs racing across warps: a run that matched the reference everywhere
 * would need all of them to fall the right way.  The sanitizer's clean runs skip the test (it
 * races on purpose; racecheck does not watch global memory, so no tool
 * run is expected to report it). */
static void per_circle_wrong_differs(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    TK_SKIP_IN_CLEAN_SANITIZER_RUN();
    const int w = 256, h = 256;
    scene sc;
    assert_int_equal(scene_make("rand10k", &sc), 0);
    rgba *ref = tk_malloc((size_t)w * h * sizeof *ref);
    rgba *got = tk_malloc((size_t)w * h * sizeof *got);
    render_ref(sc.c, sc.n, sc.mode, sc.background, ref, w, h);
    assert_int_equal(gpu_render(V_WRONG, sc.c, sc.n, sc.mode, sc.background,
                                got, w, h), cudaSuccess);
    unsigned *m = coverage(&sc, w, h);
    size_t differ = 0, overlapped = 0, differ_single = 0;
    for (size_t i = 0; i < (size_t)w * h; i++) {
        const int d = memcmp(&got[i], &ref[i], sizeof ref[i]) != 0;
        differ += d;
        overlapped += m[i] >= 2;
        differ_single += d && m[i] < 2;
    }
    print_message("per circle: %zu of %d pixels differ from the reference; "
                  "%zu are covered by two or more circles; %zu differing "
                  "pixels are covered by fewer\n", differ, w * h, overlapped,
                  differ_single);
    assert_true(differ > 0);
    assert_int_equal(differ_single, 0);
    free(m);
    free(got);
    free(ref);
    scene_free(&sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scenes_are_fixed),
        cmocka_unit_test(box_is_conservative),
        cmocka_unit_test(reference_by_hand),
        cmocka_unit_test(reference_within_bound),
        cmocka_unit_test(bad_arguments_refused),
        cmocka_unit_test(refusals_every_launcher),
        cmocka_unit_test(exact_every_scene),
        cmocka_unit_test(exact_rand10k_full_size),
        cmocka_unit_test(exact_edges),
        cmocka_unit_test(renderer_launchers_follow_the_stream),
        cmocka_unit_test(per_circle_wrong_differs),
    };
    /* Every kernel loaded when the context starts: with lazy loading, a
     * kernel's first launch loads it, which may wait for the device, and
     * so for a closed gate (run alone, the stream test launches each
     * renderer first behind one). */
    setenv("CUDA_MODULE_LOADING", "EAGER", 1);
    return tk_run_tests("renderer", tests);
}
