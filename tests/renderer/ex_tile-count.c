/* ex_tile-count.c -- exercise 3 of the renderer chapter,
 * render_tile_counts: exact against a CPU count that tests every tile
 * against every circle's box with sh_box_meets, on the chapter's scenes
 * (render_ref.h) at 250 x 190 and on random circles (some off the image,
 * some covering it, radius 0) at edge sizes: 1 x 1, one row, sizes that
 * are and are not multiples of a tile, up to 2048 x 1024 tiles of 16. */
#include "exkit.h"
#include <math.h>
#include <string.h>
#include "renderer/render.h"
#include "renderer/render_ref.h"
#include "renderer/exercises.h"

/* CPU-side: bad arguments are refused before anything touches a device. */
static void tile_count_bad_arguments_refused(void **s)
{
    (void)s;
    circle *c = EX_FAKE(circle, 256);
    unsigned *k = EX_FAKE(unsigned, 1 << 20);
    EX_REFUSED(render_tile_counts(NULL, 10, 64, 64, k, 0));
    EX_REFUSED(render_tile_counts(c, 10, 64, 64, NULL, 0));
    EX_REFUSED(render_tile_counts(c, 10, 0, 64, k, 0));
    EX_REFUSED(render_tile_counts(c, 10, 64, 0, k, 0));
    EX_REFUSED(render_tile_counts(c, 10, RENDER_MAX_SIDE + 1, 64, k, 0));
    EX_REFUSED(render_tile_counts(c, 10, 64, -1, k, 0));
    EX_REFUSED(render_tile_counts(c, (size_t)RENDER_MAX_CIRCLES + 1, 64, 64,
                                  k, 0));
}

static void check_counts(const char *what, const circle *c, size_t n, int w,
                         int h, uint64_t seed)
{
    unsigned *ref = tk_malloc((n ? n : 1) * sizeof *ref);
    unsigned *got = tk_malloc((n ? n : 1) * sizeof *got);
    for (size_t k = 0; k < n; k++) {          /* every tile, every box */
        const pixbox b = sh_box(&c[k], w, h);
        unsigned m = 0;
        for (int ty = 0; ty < h; ty += RENDER_TILE)
            for (int tx = 0; tx < w; tx += RENDER_TILE)
                m += sh_box_meets(b, tx, ty, tx + RENDER_TILE < w ? tx + RENDER_TILE : w,
                                  ty + RENDER_TILE < h ? ty + RENDER_TILE : h);
        ref[k] = m;
    }
    circle *dc = n ? tk_dev_bytes(n * sizeof *dc) : NULL;
    unsigned *dk = tk_dev_bytes((n + 1) * sizeof *dk);          /* poisoned */
    if (n) tk_upload_bytes(dc, c, n * sizeof *c);
    unsigned guard;
    tk_download_bytes(&guard, dk + n, sizeof guard);
    EX_CUDA(render_tile_counts(dc, n, w, h, dk, 0));
    TK_CUDA(cudaDeviceSynchronize());
    unsigned after;
    if (n) tk_download_bytes(got, dk, n * sizeof *got);
    tk_download_bytes(&after, dk + n, sizeof after);
    size_t bad = 0;
    for (size_t k = 0; k < n; k++)
        if (got[k] != ref[k] && bad++ < 3)
            print_error("%s: %s n=%zu %dx%d seed=%llu: circle %zu (%.9g, "
                        "%.9g, r %.9g): %u tiles, want %u\n", EX_NAME, what,
                        n, w, h, (unsigned long long)seed, k, c[k].x, c[k].y,
                        c[k].radius, got[k], ref[k]);
    if (after != guard) {
        print_error("%s: %s n=%zu: wrote past counts[n - 1]\n", EX_NAME,
                    what, n);
        bad++;
    }
    tk_free(dc); tk_free(dk); free(ref); free(got);
    if (bad) fail();
}

static void tile_count_scenes(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    for (int i = 0; i < SCENE_COUNT; i++) {
        scene sc = {0};
        if (scene_make(scene_names[i], &sc) != 0) fail_msg("scene_make");
        size_t n = sc.n < 20000 ? sc.n : 20000;    /* CPU time */
        check_counts(sc.name, sc.c, n, 250, 190, 0);
        scene_free(&sc);
    }
}

static void tile_count_random(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    static const int sizes[][2] = {{1, 1}, {300, 1}, {16, 16}, {17, 15},
                                   {256, 256}, {1000, 701}, {32768 / 2, 8}};
    for (int round = 0; round < 2; round++) {
        uint64_t seed = tk_seed(round), st = seed;
        size_t n = 3000;
        circle *c = tk_malloc(n * sizeof *c);
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
            for (size_t k = 0; k < n; k++) {
                memset(&c[k], 0, sizeof c[k]);
                c[k].x = (float)tk_uniform(&st, -0.2, 1.2);
                c[k].y = (float)tk_uniform(&st, -0.2, 1.2);
                c[k].radius = (float)tk_uniform(&st, 0, 0.1);
                c[k].alpha = 0.5f;
                if (k % 97 == 0) c[k].radius = 0.0f;
                if (k % 101 == 0) c[k].radius = 2.0f;      /* all tiles */
            }
            check_counts("random", c, n, sizes[i][0], sizes[i][1], seed);
        }
        free(c);
    }
    check_counts("no circles", NULL, 0, 64, 64, 0);
}

EX_MAIN(cmocka_unit_test(tile_count_bad_arguments_refused),
        cmocka_unit_test(tile_count_scenes),
        cmocka_unit_test(tile_count_random))
