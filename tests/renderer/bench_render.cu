// bench_render.cu -- the renderer chapter's measurements (make bench).
// Every scene at 1024 x 1024, every renderer: the median of up to 20 runs
// (CUDA events; fewer for slow renderers, see bk_timed_ms: the CSV's reps
// column), the one-thread CPU reference (one run, wall clock, on a CPU
// thread of its own while the GPU renderers are timed), and a floor
// from the work itself: the scene's blends, counted by the reference, at
// kOpsPerBlend float operations each at the rate of separately rounded
// multiplies and adds measured in this run, plus the circles read once and
// the image written once at the copy rate measured in this run.  Then
// other image sizes and scenes (renderer-shapes.csv, run_shapes; bench
// --shapes writes only that).
// `bench --ncu batch|scan` runs one launch of step 3 or step 4 on rand100k
// for Nsight Compute (tests/renderer/counters.sh).
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <algorithm>
#include <thread>
#include <vector>
#include "benchkit.h"
#include "common/book.h"
#include "renderer/render.h"
#include "renderer/render_ref.h"
#include "variants.h"        // the renderers, V_WRONG to V_BINNED

static const int kW = 1024, kH = 1024;
// dx, dy, two squares, their sum, the test; 1 - a; 4 x (2 mul + add).
static const double kOpsPerBlend = 19;

struct ctx {
    int v;
    const circle *c;
    size_t n;
    render_mode mode;
    rgba bg;
    rgba *img;
    void *scratch;
    size_t bytes;
    int w, h;               // the image's size
};
static cudaError_t run(void *p)
{
    const ctx *x = (const ctx *)p;
    return render_variant(x->v, x->c, x->n, x->mode, x->bg, x->img, x->w,
                          x->h, x->scratch, x->bytes, 0);
}

// Separately rounded multiplies and adds a second: 8 independent chains.
__global__ void fp32_rate_kernel(float *out, int iters, float a, float b)
{
    float v[8];
    for (int j = 0; j < 8; j++) v[j] = threadIdx.x + j;
    for (int i = 0; i < iters; i++)
        for (int j = 0; j < 8; j++) v[j] = __fadd_rn(__fmul_rn(v[j], a), b);
    float s = 0;
    for (int j = 0; j < 8; j++) s += v[j];
    if (s == 12345.0f) out[0] = s;       // keeps the chains alive
}
struct rate_ctx { float *out; int blocks, iters; };
static cudaError_t rate_run(void *p)
{
    const rate_ctx *r = (const rate_ctx *)p;
    fp32_rate_kernel<<<r->blocks, 256>>>(r->out, r->iters, 0.999f, 0.001f);
    return cudaGetLastError();
}
static double fp32_ops_per_s(void)
{
    int sms = 0;
    BOOK_CHECK(book_sm_count(&sms));
    rate_ctx r = {NULL, sms * 8, 4096};
    BOOK_CHECK(cudaMalloc(&r.out, sizeof(float)));
    const double ms = bk_median_ms(rate_run, &r, 20);
    BOOK_CHECK(cudaFree(r.out));
    return (double)r.blocks * 256 * r.iters * 8 * 2 / (ms * 1e-3);
}

// A timing of wrong work is no timing: 0 where the image on the device,
// img (px pixels, downloaded into got), is the reference href; else it
// says which image differs (a printf format and its arguments) and is 1.
static int image_differs(rgba *got, const rgba *img, const rgba *href,
                         size_t px, const char *fmt, ...)
{
    BOOK_CHECK(cudaMemcpy(got, img, px * sizeof(rgba),
                          cudaMemcpyDeviceToHost));
    if (!memcmp(got, href, px * sizeof(rgba))) return 0;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " image differs from the reference\n");
    return 1;
}

static double now_ms(void)
{
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

// bench --ncu batch|scan: one render of rand100k by step 3's batched
// or scanned tiles, for tests/renderer/counters.sh.
static int ncu_mode(int, char **args, void *)
{
    static const char *const names[] = {"batch", "scan"};
    const int v = bk_ncu_pick("variant", args[0], names, 2, sizeof *names);
    if (v < 0) return 2;
    scene s;
    if (scene_make("rand100k", &s)) return 1;
    ctx x = {v ? V_SCAN : V_BATCH, NULL, s.n, s.mode, s.background, NULL,
             NULL, 0, kW, kH};
    BOOK_CHECK(cudaMalloc((void **)&x.c, s.n * sizeof(circle)));
    BOOK_CHECK(cudaMalloc((void **)&x.img, (size_t)kW * kH * sizeof(rgba)));
    BOOK_CHECK(cudaMemcpy((void *)x.c, s.c, s.n * sizeof(circle),
                          cudaMemcpyHostToDevice));
    BOOK_CHECK(run(&x));
    return 0;
}

// The shapes a user brings: small (few pixels, few circles: launch-bound),
// odd (sides that are no multiple of the 16-pixel tile, nor of 4) and the
// headline scenes at 1024 x 1024: the binned renderer and the step before
// it (tile_scan), each against the floor computed as in main (the CPU
// reference counts the blends; its image checks the binned one).  Writes
// renderer-shapes.csv; bench --shapes runs only this.
static int run_shapes(double rate, double copy)
{
    static const struct { const char *cls, *scene; int w, h; } sh[] = {
        {"small", "rgb", 64, 64},
        {"small", "pattern", 128, 128},
        {"small", "rand10k", 128, 96},
        {"odd", "rgb", 1000, 777},
        {"odd", "rand10k", 1000, 777},
        {"odd", "rand100k", 1000, 777},
        {"odd", "snow", 1001, 999},
        {"headline", "rand10k", kW, kH},
        {"headline", "rand100k", kW, kH},
    };
    FILE *csv = bk_shapes_open("renderer");
    for (size_t i = 0; i < sizeof sh / sizeof sh[0]; i++) {
        scene s;
        if (scene_make(sh[i].scene, &s)) return 1;
        const size_t px = (size_t)sh[i].w * sh[i].h;
        rgba *img, *href = (rgba *)malloc(px * sizeof(rgba));
        rgba *got = (rgba *)malloc(px * sizeof(rgba));
        BOOK_CHECK(cudaMalloc(&img, px * sizeof(rgba)));
        const size_t blends = render_ref(s.c, s.n, s.mode, s.background,
                                         href, sh[i].w, sh[i].h);
        ctx x = {V_SCAN, NULL, s.n, s.mode, s.background, img, NULL, 0,
                 sh[i].w, sh[i].h};
        BOOK_CHECK(cudaMalloc((void **)&x.c, s.n * sizeof(circle)));
        BOOK_CHECK(cudaMemcpy((void *)x.c, s.c, s.n * sizeof(circle),
                              cudaMemcpyHostToDevice));
        x.bytes = render_binned_scratch_bytes(s.n, x.w, x.h);
        if (x.bytes) BOOK_CHECK(cudaMalloc(&x.scratch, x.bytes));
        int reps;
        const double scan_ms = bk_timed_ms(run, &x, &reps, NULL);
        // check step 4's image too (after its timing, so the times are
        // those of a run without it)
        if (image_differs(got, img, href, px, "%s %dx%d: tile_scan", s.name,
                          x.w, x.h))
            return 1;
        x.v = V_BINNED;
        const double ms = bk_timed_ms(run, &x, &reps, NULL);
        if (image_differs(got, img, href, px, "%s %dx%d: binned", s.name,
                          x.w, x.h))
            return 1;
        const double floor_ms =
            1e3 * (blends * kOpsPerBlend / rate +
                   (s.n * sizeof(circle) + px * sizeof(rgba)) / copy);
        char shape[64];
        snprintf(shape, sizeof shape, "%s-%dx%d", s.name, x.w, x.h);
        // rate: megapixels a millisecond = Gpixel/s
        bk_shape_row(csv, sh[i].cls, shape, "binned", 1e3 * ms, px / ms / 1e6,
                     "Gpixel/s", "floor", 1e3 * floor_ms);
        bk_shape_row(csv, sh[i].cls, shape, "tile_scan", 1e3 * scan_ms,
                     px / scan_ms / 1e6, "Gpixel/s", "floor", 1e3 * floor_ms);
        BOOK_CHECK(cudaFree(x.scratch));
        BOOK_CHECK(cudaFree((void *)x.c));
        BOOK_CHECK(cudaFree(img));
        free(href);
        free(got);
        scene_free(&s);
    }
    bk_csv_close(csv);
    return 0;
}

int main(int argc, char **argv)
{
    const int ncu = bk_ncu(argc, argv, 1, 1, "batch|scan", ncu_mode, NULL);
    if (ncu >= 0) return ncu;
    const double rate = fp32_ops_per_s();
    const double copy = bk_copy_gbps((size_t)1 << 28) * 1e9;   // bytes/s
    printf("fp32 mul/add rate %.3g /s, copy %.4g GB/s\n", rate, copy / 1e9);
    if (bk_shapes_only(argc, argv)) return run_shapes(rate, copy);
    FILE *csv = bk_csv_open("renderer",
                            "case,n,blends,ms,reps,vs_cpu,vs_pixel,"
                            "vs_batch,vs_scan,of_floor");
    // The same times, a scene a row, for the plot.
    FILE *wide = bk_csv_open("renderer-wide",
                             "scene,cpu_ref,per_pixel,tile_batch,tile_scan,"
                             "binned,floor");
    // The binned renderer's predicted flag traffic, a scene a row: the
    // flags written (4Bn bytes), read and their positions written by the
    // scan (8Bn), the flags read by the scatter (4Bn), at the copy rate.
    FILE *binned = bk_csv_open("renderer-binned",
                               "scene,n,bins,traffic_mb,traffic_ms,"
                               "binned_ms,traffic_share");
    rgba *img = NULL, *href = (rgba *)malloc((size_t)kW * kH * sizeof(rgba));
    BOOK_CHECK(cudaMalloc(&img, (size_t)kW * kH * sizeof(rgba)));
    for (int k = 0; k < SCENE_COUNT; k++) {
        scene s;
        if (scene_make(scene_names[k], &s)) return 1;
        // The reference runs on a CPU thread of its own meanwhile.
        size_t blends = 0;
        double cpu_ms = 0;
        std::thread cpu([&] {
            const double t0 = now_ms();
            blends = render_ref(s.c, s.n, s.mode, s.background, href, kW, kH);
            cpu_ms = now_ms() - t0;
        });
        ctx x = {0, NULL, s.n, s.mode, s.background, img, NULL, 0, kW, kH};
        BOOK_CHECK(cudaMalloc((void **)&x.c, s.n * sizeof(circle)));
        BOOK_CHECK(cudaMemcpy((void *)x.c, s.c, s.n * sizeof(circle),
                              cudaMemcpyHostToDevice));
        x.bytes = render_binned_scratch_bytes(s.n, kW, kH);
        if (x.bytes) BOOK_CHECK(cudaMalloc(&x.scratch, x.bytes));
        double ms[V_COUNT];
        int reps[V_COUNT];
        for (int v = 0; v < V_COUNT; v++) {
            x.v = v;
            ms[v] = bk_timed_ms(run, &x, &reps[v], NULL);  // the rule: benchkit.h
        }
        cpu.join();
        const double floor_ms =
            1e3 * (blends * kOpsPerBlend / rate +
                   (s.n * sizeof(circle) + (size_t)kW * kH * sizeof(rgba)) /
                       copy);
        rgba *got = (rgba *)malloc((size_t)kW * kH * sizeof(rgba));
        if (image_differs(got, img, href, (size_t)kW * kH, "%s: binned",
                          s.name))
            return 1;
        free(got);
        bk_row(csv, "%s/cpu_ref,%zu,%zu,%.4f,1,1,%.4g,%.4g,%.4g,%.4g\n",
               s.name, s.n, blends, cpu_ms, ms[V_PIXEL] / cpu_ms,
               ms[V_BATCH] / cpu_ms, ms[V_SCAN] / cpu_ms, floor_ms / cpu_ms);
        for (int v = 0; v < V_COUNT; v++)
            bk_row(csv, "%s/%s,%zu,%zu,%.4f,%d,%.4g,%.4g,%.4g,%.4g,%.4g\n",
                   s.name, render_variant_names[v], s.n, blends, ms[v],
                   reps[v], cpu_ms / ms[v], ms[V_PIXEL] / ms[v],
                   ms[V_BATCH] / ms[v], ms[V_SCAN] / ms[v], floor_ms / ms[v]);
        bk_row(csv, "%s/floor,%zu,%zu,%.4f,0,%.4g,%.4g,%.4g,%.4g,1\n", s.name,
               s.n, blends, floor_ms, cpu_ms / floor_ms,
               ms[V_PIXEL] / floor_ms, ms[V_BATCH] / floor_ms,
               ms[V_SCAN] / floor_ms);
        if (s.n >= RENDER_BIN_MIN) {
            // make_bins: tiles of 16, at most 8 x 8 bins of whole tiles.
            const int tiles = ((kW > kH ? kW : kH) + 15) / 16;
            const int side = (tiles + 7) / 8 * 16;
            const size_t bins = (size_t)((kW + side - 1) / side) *
                                ((kH + side - 1) / side);
            const double bytes = 16.0 * (double)bins * (double)s.n;
            const double t = 1e3 * bytes / copy;
            bk_row(binned, "%s,%zu,%zu,%.1f,%.4f,%.4f,%.4g\n", s.name, s.n,
                   bins, bytes / 1e6, t, ms[V_BINNED], t / ms[V_BINNED]);
        }
        bk_row(wide, "%s,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f\n", s.name, cpu_ms,
               ms[V_PIXEL], ms[V_BATCH], ms[V_SCAN], ms[V_BINNED], floor_ms);
        BOOK_CHECK(cudaFree(x.scratch));
        BOOK_CHECK(cudaFree((void *)x.c));
        scene_free(&s);
    }
    bk_csv_close(csv);
    bk_csv_close(wide);
    bk_csv_close(binned);
    BOOK_CHECK(cudaFree(img));
    free(href);
    return run_shapes(rate, copy);
}
