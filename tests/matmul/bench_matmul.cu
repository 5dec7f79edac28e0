// bench_matmul.cu -- the matmul chapter's measurements (make bench).
// Every variant at M = N = K = 4096 in fp32 (three 64 MB matrices, beyond
// the 60 MB L2), beside cuBLAS SGEMM in pedantic fp32 mode (no TF32) and
// the streaming-read and copy ceilings measured in the same run; then the
// warp-tiled kernel and cuBLAS at 2048^3, M 8192 N 4096 K 6144 and 1024^3
// (rows named VARIANT-SHAPE).  The arithmetic ceiling is the memory
// chapter's: the fma_peak row of figures/data/$BOOK_GPU/memory.csv, read
// by bk_measured (make bench runs that chapter's bench first).  Writes
// figures/data/$BOOK_GPU/matmul.csv,
// matmul-ceilings.csv, matmul-tiles.csv (each entry of the
// warp-tile table at those shapes: tiles, waves, speed) and
// matmul-shapes.csv (small, odd and headline shapes; with --shapes, only
// that file) and matmul-repeats.csv (cuBLAS and the warp-tiled kernel
// five times at each shape above, interleaved; with --repeats, only that
// file).  With --ncu VARIANT it launches that variant once at 4096^3
// for Nsight Compute (tests/matmul/counters.sh) and writes nothing.
#include "benchkit.h"
#include "common/book.h"
#include "variants.h"
#include <cublas_v2.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

// The FMA peak in TFLOP/s that the memory chapter measured on this GPU:
// its memory.csv, row variant=fma_peak, column tflops.
static const char *const kPeakCsv = "memory.csv",
                        *const kPeakRow = "variant=fma_peak",
                        *const kPeakCol = "tflops";

// The chapter's variants (variants.h): name, launcher, FLOP per byte.
struct mm_variant { const char *name; mm_fn fn; double fpb; };
#define MM_BENCH_ENTRY(name, fn, flop_per_byte) {name, fn, flop_per_byte},
static const mm_variant variants[] = {MATMUL_VARIANTS(MM_BENCH_ENTRY)};
struct mm_ctx {
    const float *A, *B;
    float *C;
    size_t m, n, k;
    mm_fn fn;            // NULL: cuBLAS, unless tile >= 0
    int tile;            // >= 0: that entry of the warp-tile table
    cublasHandle_t h;
};
static cudaError_t run_mm(void *p)
{
    mm_ctx *c = (mm_ctx *)p;
    if (c->fn) return c->fn(c->A, c->B, c->C, c->m, c->n, c->k, 0);
    if (c->tile >= 0)
        return matmul_warp_tiled_tile(c->tile, c->A, c->B, c->C, c->m, c->n,
                                      c->k, 0);
    const float one = 1.0f, zero = 0.0f;
    int m = (int)c->m, n = (int)c->n, k = (int)c->k;
    // Row-major C = A B is column-major C^T = B^T A^T.
    cublasStatus_t s = cublasSgemm(c->h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k,
                                   &one, c->B, n, c->A, k, &zero, c->C, n);
    return s == CUBLAS_STATUS_SUCCESS ? cudaGetLastError()
                                      : cudaErrorUnknown;
}

// Median time in ms of variant fn (or table entry tile, or cuBLAS) on
// M x N x K; the matrices in k are large enough for all shapes here.
static double time_mm(mm_ctx k, mm_fn fn, int tile, size_t m, size_t n,
                      size_t kk)
{
    k.fn = fn;
    k.tile = tile;
    k.m = m;
    k.n = n;
    k.k = kk;
    return bk_median_ms(run_mm, &k, 20);
}

// Spot-check C against cuBLAS at a few hundred places: the tests check
// every element; this guards the benchmark's own arguments.
static void spot_check(const char *name, mm_ctx k, float *R, size_t m,
                       size_t n, size_t kk)
{
    k.fn = NULL;
    k.tile = -1;
    k.m = m;
    k.n = n;
    k.k = kk;
    float *C = k.C;
    k.C = R;
    BOOK_CHECK(run_mm(&k));
    for (size_t t = 0; t < 256; t++) {
        size_t i = (t * 2654435761u) % (m * n);
        float a, b;
        BOOK_CHECK(cudaMemcpy(&a, C + i, 4, cudaMemcpyDeviceToHost));
        BOOK_CHECK(cudaMemcpy(&b, R + i, 4, cudaMemcpyDeviceToHost));
        if (!(fabsf(a - b) <= 1e-3f * (1.0f + fabsf(b)))) {
            fprintf(stderr, "bench: %s %zux%zux%zu differs from cuBLAS at "
                            "%zu: %g, %g\n", name, m, n, kk, i, a, b);
            exit(1);
        }
    }
}

// The shapes beside 4096^3: in matmul.csv the warp-tiled kernel and
// cuBLAS (rows VARIANT-SHAPE), in matmul-tiles.csv every entry of the
// warp-tile table with its tile count and waves on this GPU.
static const struct { const char *name; size_t m, n, k; } big[] = {
    {"4096", 4096, 4096, 4096},
    {"2048", 2048, 2048, 2048},
    {"8192x4096x6144", 8192, 4096, 6144},
    {"1024", 1024, 1024, 1024},
};

static void tiles_csv(mm_ctx k, float *R, int sms)
{
    FILE *f = bk_csv_open("matmul-tiles", "id,shape,tile,bm,bn,per_sm,"
                                             "tiles,waves,picked,ms,tflops,"
                                             "of_cublas");
    for (const auto &s : big) {
        const double flops = 2.0 * s.m * s.n * s.k;
        const double cb = flops / (time_mm(k, NULL, -1, s.m, s.n, s.k) * 1e9);
        const int pick = matmul_warp_tiled_pick(s.m, s.n, s.k);
        for (int t = 0; t < MM_WT_TILES; t++) {
            int bm, bn, per_sm;
            BOOK_CHECK(matmul_warp_tiled_info(t, &bm, &bn, &per_sm));
            const double tiles = (double)ceil_div(s.m, bm) * ceil_div(s.n, bn);
            const double ms = time_mm(k, NULL, t, s.m, s.n, s.k);
            spot_check("warp-tiled entry", k, R, s.m, s.n, s.k);
            bk_row(f, "%s/%dx%d,%s,%dx%d,%d,%d,%d,%.0f,%.3f,%d,%.4f,%.3f,%.3f\n",
                   s.name, bm, bn, s.name, bm, bn, bm, bn, per_sm, tiles,
                   tiles / ((double)sms * per_sm), t == pick, ms,
                   flops / (ms * 1e9), flops / (ms * 1e9) / cb);
        }
    }
    bk_csv_close(f);
}

// The shapes a user brings (matmul-shapes.csv): small, bounded by the
// launch and a fraction of one wave; odd, not multiples of 4 or of any
// tile, which take the checked path; the headline 4096^3.  The warp-tiled
// kernel against cuBLAS, and cuBLAS itself, at each in the same run.
static void shapes_csv(mm_ctx k, float *R)
{
    static const struct { const char *cls; size_t m, n, k; } sh[] = {
        {"small", 128, 128, 128},    {"small", 256, 256, 256},
        {"small", 512, 512, 512},    {"odd", 1000, 1000, 1000},
        {"odd", 4095, 4097, 1023},   {"odd", 4097, 4095, 4099},
        {"headline", 4096, 4096, 4096},
    };
    FILE *f = bk_shapes_open("matmul");
    for (const auto &s : sh) {
        char name[48];
        snprintf(name, sizeof name, "%zux%zux%zu", s.m, s.n, s.k);
        const double tf = 2e-6 * s.m * s.n * s.k;   // TFLOP/s times us
        const double cb = 1e3 * time_mm(k, NULL, -1, s.m, s.n, s.k);
        bk_shape_row(f, s.cls, name, "cublas", cb, tf / cb, "TFLOP/s",
                     "cublas", cb);
        const double us = 1e3 * time_mm(k, matmul_warp_tiled, -1, s.m, s.n,
                                        s.k);
        spot_check("warp-tiled", k, R, s.m, s.n, s.k);
        bk_shape_row(f, s.cls, name, "warp_tiled", us, tf / us, "TFLOP/s",
                     "cublas", cb);
    }
    bk_csv_close(f);
}

// The three shapes of the chapter's goal (4096^3, 2048^3, M 8192 N 4096
// K 6144) and 1024^3 again, five times each, cuBLAS and the warp-tiled
// kernel one after the other each time, so that every ratio comes from
// timings next to each other; then the median ratio of the five
// (matmul-repeats.csv; with --repeats, only that file).
static void repeats_csv(mm_ctx k)
{
    const int kReps = 5;
    FILE *f = bk_csv_open("matmul-repeats", "id,shape,rep,cublas_ms,"
                                               "ms,of_cublas");
    for (const auto &s : big) {
        double r[kReps];
        for (int i = 0; i < kReps; i++) {
            const double cb = time_mm(k, NULL, -1, s.m, s.n, s.k);
            const double ms = time_mm(k, matmul_warp_tiled, -1, s.m, s.n, s.k);
            r[i] = cb / ms;
            bk_row(f, "%s/%d,%s,%d,%.4f,%.4f,%.3f\n", s.name, i, s.name, i,
                   cb, ms, r[i]);
        }
        bk_row(f, "%s/median,%s,median,--,--,%.3f\n", s.name, s.name,
               bk_median(r, kReps));
    }
    bk_csv_close(f);
}

// FLOP per byte of load requests of the tile the table picks for M x N:
// B_M B_N / (2 (B_M + B_N)), as for the other block tiles.
static double tile_fpb(size_t m, size_t n)
{
    int bm, bn, per_sm;
    BOOK_CHECK(matmul_warp_tiled_info(matmul_warp_tiled_pick(m, n, 1), &bm,
                                      &bn, &per_sm));
    return (double)bm * bn / (2.0 * (bm + bn));
}

// bench --ncu VARIANT: one launch of VARIANT at 4096^3, for Nsight
// Compute (tests/matmul/counters.sh).
static int ncu_one(int, char **args, void *p)
{
    const mm_ctx *c = (const mm_ctx *)p;
    const int v = BK_NCU_PICK("variant", args[0], variants);
    if (v < 0) return 2;
    BOOK_CHECK(variants[v].fn(c->A, c->B, c->C, c->m, c->n, c->k, 0));
    return 0;
}

int main(int argc, char **argv)
{
    const size_t n = 4096, big_floats = (size_t)8192 * 6144;
    const double flops = 2.0 * n * n * n;

    // Room for the largest shape, M 8192 N 4096 K 6144: A is 8192 x 6144,
    // B 6144 x 4096 and C 8192 x 4096; R holds cuBLAS's result for checks.
    mm_ctx k = {NULL, NULL, NULL, n, n, n, NULL, -1, NULL};
    float *A, *B, *C, *R;
    BOOK_CHECK(cudaMalloc(&A, big_floats * sizeof(float)));
    BOOK_CHECK(cudaMalloc(&B, big_floats * sizeof(float)));
    BOOK_CHECK(cudaMalloc(&C, big_floats * sizeof(float)));
    BOOK_CHECK(cudaMalloc(&R, big_floats * sizeof(float)));
    bk_fill_random(A, big_floats, -1, 1, 1);
    bk_fill_random(B, big_floats, -1, 1, 2);
    bk_fill_random(C, big_floats, -1, 1, 3);
    k.A = A; k.B = B; k.C = C;
    const int ncu = bk_ncu(argc, argv, 1, 1, "VARIANT", ncu_one, &k);
    if (ncu >= 0) return ncu;
    if (cublasCreate(&k.h) != CUBLAS_STATUS_SUCCESS ||
        cublasSetMathMode(k.h, CUBLAS_PEDANTIC_MATH) !=
            CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "cuBLAS set-up failed\n");
        return 1;
    }
    int sms;
    BOOK_CHECK(book_sm_count(&sms));
    if (bk_shapes_only(argc, argv)) {
        shapes_csv(k, R);
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "--repeats") == 0) {
        repeats_csv(k);
        return 0;
    }

    // Ceilings: bandwidth measured here; the FMA peak is the memory chapter's.
    double read = bk_read_gbps((size_t)1 << 30);
    double copy = bk_copy_gbps((size_t)1 << 30);
    double peak = bk_measured(kPeakCsv, kPeakRow, kPeakCol);   // TFLOP/s
    if (!(peak > 0)) {
        fprintf(stderr, "bench_matmul: no FMA peak (run the memory "
                        "chapter's bench first); of_peak is nan\n");
        peak = NAN;
    }
    double ridge = peak * 1e12 / (read * 1e9);           // FLOP per byte
    double cublas_ms = bk_median_ms(run_mm, &k, 20);
    double cublas = flops / (cublas_ms * 1e9);

    FILE *f = bk_csv_open("matmul", "variant,m,n,k,ms,tflops,of_cublas,"
                                       "of_peak,flop_per_byte");
    fprintf(f, "# of_peak: of the FMA peak, %.2f TFLOP/s, the memory "
               "chapter's\n", peak);
    bk_measured_note(f, kPeakCsv, kPeakRow, kPeakCol, peak);
    bk_row(f, "cublas,%zu,%zu,%zu,%.4f,%.3f,1.000,%.3f,nan\n", n, n, n,
           cublas_ms, cublas, cublas / peak);
    for (const auto &v : variants) {
        k.fn = v.fn;
        double ms = bk_median_ms(run_mm, &k, 20);
        double t = flops / (ms * 1e9);
        bk_row(f, "%s,%zu,%zu,%zu,%.4f,%.3f,%.3f,%.3f,%.2f\n", v.name, n, n,
               n, ms, t, t / cublas, t / peak,
               v.fpb > 0 ? v.fpb : tile_fpb(n, n));
    }
    spot_check("warp-tiled", k, R, n, n, n);
    for (size_t i = 1; i < sizeof big / sizeof big[0]; i++) {
        const size_t m = big[i].m, nb = big[i].n, kb = big[i].k;
        const double fl = 2.0 * m * nb * kb;
        const double cb = time_mm(k, NULL, -1, m, nb, kb);
        const double wt = time_mm(k, matmul_warp_tiled, -1, m, nb, kb);
        spot_check("warp-tiled", k, R, m, nb, kb);
        bk_row(f, "cublas-%s,%zu,%zu,%zu,%.4f,%.3f,1.000,%.3f,nan\n",
               big[i].name, m, nb, kb, cb, fl / (cb * 1e9),
               fl / (cb * 1e9) / peak);
        bk_row(f, "warp-tiled-%s,%zu,%zu,%zu,%.4f,%.3f,%.3f,%.3f,%.2f\n",
               big[i].name, m, nb, kb, wt, fl / (wt * 1e9), cb / wt,
               fl / (wt * 1e9) / peak, tile_fpb(m, nb));
    }
    bk_csv_close(f);
    tiles_csv(k, R, sms);
    shapes_csv(k, R);
    repeats_csv(k);

    FILE *g = bk_csv_open("matmul-ceilings", "ceiling,value,unit");
    bk_measured_note(g, kPeakCsv, kPeakRow, kPeakCol, peak);
    bk_row(g, "read,%.1f,GB/s\n", read);
    bk_row(g, "copy,%.1f,GB/s\n", copy);
    bk_row(g, "ridge,%.2f,FLOP/byte\n", ridge);
    bk_row(g, "floor_4096,%.4f,ms\n", flops / (peak * 1e9));
    bk_csv_close(g);
    cublasDestroy(k.h);
    BOOK_CHECK(cudaFree(R));
    BOOK_CHECK(cudaFree(A));
    BOOK_CHECK(cudaFree(B));
    BOOK_CHECK(cudaFree(C));
    return 0;
}
