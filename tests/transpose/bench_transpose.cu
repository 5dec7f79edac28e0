// bench_transpose.cu -- the transpose chapter's measurements (make bench).
// Every variant on a 16384 x 16384 matrix of floats (1 GiB in, 1 GiB out),
// beside the copy ceiling and cuBLAS's transpose (cublasSgeam) measured in
// the same run.  Writes figures/data/$BOOK_GPU/transpose.csv and
// transpose-best.csv, and the shapes a user brings in
// transpose-shapes.csv.
//   bench --shapes        writes only transpose-shapes.csv.
//   bench --ncu VARIANT   runs VARIANT once on 4096 x 4096 and exits
//                         (for tests/transpose/counters.sh and ncu).
//   bench --variants      prints the variants' names, one a line, and
//                         exits (counters.sh profiles each).
#include "benchkit.h"
#include "common/book.h"
#include "transpose/transpose.h"
#include "variants.h"
#include <cublas_v2.h>
#include <cstring>
#include <vector>

typedef cudaError_t (*transpose_fn)(const float *, float *, size_t, size_t,
                                    cudaStream_t);
#define VARIANT(name, fn) {name, fn},
static const struct { const char *name; transpose_fn fn; } variants[] = {
    TRANSPOSE_VARIANTS(VARIANT)
};
static const int kVariants = sizeof variants / sizeof variants[0];
// The name variants.h gives the launcher fn.
static const char *name_of(transpose_fn fn)
{
    for (const auto &v : variants)
        if (v.fn == fn) return v.name;
    fprintf(stderr, "bench: a launcher that variants.h does not list\n");
    exit(2);
}

struct ctx {
    const float *in;
    float *out;
    size_t rows, cols;
    transpose_fn fn;          // NULL: cublasSgeam
    cublasHandle_t h;
    bool copy;                // cudaMemcpy of the same bytes instead
};

static cudaError_t run(void *p)
{
    ctx *k = (ctx *)p;
    if (k->copy)
        return cudaMemcpyAsync(k->out, k->in, k->rows * k->cols * 4,
                               cudaMemcpyDeviceToDevice);
    if (k->fn) return k->fn(k->in, k->out, k->rows, k->cols, 0);
    // Row-major in (rows x cols) is column-major cols x rows, lda = cols;
    // out = in^T is column-major rows x cols, ldc = rows.  beta = 0, and
    // B = C is cuBLAS's documented in-place form.
    const float one = 1.0f, zero = 0.0f;
    cublasStatus_t s = cublasSgeam(k->h, CUBLAS_OP_T, CUBLAS_OP_N,
                                   (int)k->rows, (int)k->cols, &one, k->in,
                                   (int)k->cols, &zero, k->out, (int)k->rows,
                                   k->out, (int)k->rows);
    return s == CUBLAS_STATUS_SUCCESS ? cudaGetLastError()
                                      : cudaErrorUnknown;
}

// Spot-check out = in^T at a few thousand places (the tests check every
// element of the book's kernels; this guards the cuBLAS call's arguments).
static void spot_check(const char *name, const float *in, const float *out,
                       size_t rows, size_t cols, size_t samples = 4096)
{
    for (size_t t = 0; t < samples; t++) {
        size_t r = (t * 2654435761u) % rows, c = (t * 40503u + 7) % cols;
        float a, b;
        BOOK_CHECK(cudaMemcpy(&a, in + r * cols + c, 4, cudaMemcpyDeviceToHost));
        BOOK_CHECK(cudaMemcpy(&b, out + c * rows + r, 4, cudaMemcpyDeviceToHost));
        if (memcmp(&a, &b, 4) != 0) {
            fprintf(stderr, "bench: %s is not a transpose at (%zu, %zu)\n",
                    name, r, c);
            exit(1);
        }
    }
}

// The shapes a user brings (transpose-shapes.csv): small matrices,
// bounded by launch; odd sides, not multiples of 4 or of a tile (an odd
// number of columns misaligns the rows read, an odd number of rows those
// written), and a matrix of 32 rows, half of the wide tile; the headline
// 16384^2.  The
// chapter's two best tiles against cuBLAS geam, and geam against a copy of
// the same bytes, at each shape in the same run.  in and out hold
// kShapeMaxRows x 16384 floats, the most any shape needs.
static const size_t kShapeMaxRows = 16388;
static void shapes(ctx k)
{
    static const struct { const char *cls; size_t rows, cols; } sh[] = {
        {"small", 64, 64},         {"small", 256, 256},
        {"small", 1024, 1024},     {"odd", 1000, 1000},
        {"odd", 4097, 8191},       {"odd", 8191, 4097},
        {"odd", 16384, 16385},     {"odd", 16385, 16384},
        {"odd", kShapeMaxRows, 16384}, {"odd", 16383, 16385},
        {"odd", 32, 4194304},      {"headline", 16384, 16384},
    };
    static const transpose_fn best[] = {transpose_tile64,
                                        transpose_tile_padded};
    FILE *f = bk_shapes_open("transpose");
    for (const auto &s : sh) {
        char name[32];
        snprintf(name, sizeof name, "%zux%zu", s.rows, s.cols);
        k.rows = s.rows;
        k.cols = s.cols;
        double gb = 8e-3 * s.rows * s.cols;       // bytes moved / 1e3
        k.fn = NULL;
        k.copy = true;
        double copy_us = 1e3 * bk_median_ms(run, &k, 50);
        k.copy = false;
        BOOK_CHECK(cudaMemset(k.out, 0, s.rows * s.cols * 4));
        double geam_us = 1e3 * bk_median_ms(run, &k, 50);
        spot_check("cublasSgeam", k.in, k.out, s.rows, s.cols, 256);
        bk_shape_row(f, s.cls, name, "cublas_geam", geam_us, gb / geam_us,
                     "GB/s", "copy", copy_us);
        for (transpose_fn fn : best) {
            k.fn = fn;
            BOOK_CHECK(cudaMemset(k.out, 0, s.rows * s.cols * 4));
            double us = 1e3 * bk_median_ms(run, &k, 50);
            spot_check(name_of(fn), k.in, k.out, s.rows, s.cols, 256);
            bk_shape_row(f, s.cls, name, name_of(fn), us, gb / us, "GB/s",
                         "cublas_geam", geam_us);
        }
    }
    bk_csv_close(f);
}

// bench --ncu VARIANT: one launch of VARIANT on 4096 x 4096 floats,
// checked, for tests/transpose/counters.sh.
static int ncu_one(int, char **args, void *)
{
    const int v = BK_NCU_PICK("variant", args[0], variants);
    if (v < 0) return 2;
    const size_t rows = 4096, cols = 4096, n = rows * cols;
    float *in, *out;
    BOOK_CHECK(cudaMalloc(&in, n * sizeof(float)));
    BOOK_CHECK(cudaMalloc(&out, n * sizeof(float)));
    bk_fill_random(in, n, -1, 1, 11);
    BOOK_CHECK(cudaMemset(out, 0, n * sizeof(float)));
    BOOK_CHECK(variants[v].fn(in, out, rows, cols, 0));
    BOOK_CHECK(cudaDeviceSynchronize());
    spot_check(variants[v].name, in, out, rows, cols);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--variants") == 0) {
        for (const auto &v : variants) printf("%s\n", v.name);
        return 0;
    }
    const int ncu = bk_ncu(argc, argv, 1, 1, "VARIANT", ncu_one, NULL);
    if (ncu >= 0) return ncu;
    size_t rows = 16384, cols = rows, n = rows * cols;
    size_t bytes = n * sizeof(float);
    ctx k;
    memset(&k, 0, sizeof k);
    k.rows = rows;
    k.cols = cols;
    float *in, *out;
    // The largest shape of shapes(), 16388 x 16384, is a little more.
    size_t alloc = (size_t)kShapeMaxRows * 16384;
    BOOK_CHECK(cudaMalloc(&in, alloc * sizeof(float)));
    BOOK_CHECK(cudaMalloc(&out, alloc * sizeof(float)));
    bk_fill_random(in, alloc, -1, 1, 11);
    BOOK_CHECK(cudaMemset(out, 0, bytes));
    k.in = in;
    k.out = out;
    if (cublasCreate(&k.h) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "bench: cublasCreate failed\n");
        return 1;
    }
    if (bk_shapes_only(argc, argv)) {
        shapes(k);
        return 0;
    }
    double copy = bk_copy_gbps(bytes);
    const int reps = 25;
    double moved = 2.0 * bytes;
    k.fn = NULL;
    double geam_ms = bk_median_ms(run, &k, reps);
    double geam = moved / (geam_ms * 1e6);
    spot_check("cublasSgeam", in, out, rows, cols);

    FILE *f = bk_csv_open("transpose",
                          "variant,rows,cols,ms,gbps,of_copy,of_geam");
    bk_row(f, "copy_ceiling,%zu,%zu,%.4f,%.1f,1.000,%.3f\n", rows, cols,
           moved / (copy * 1e6), copy, copy / geam);
    bk_row(f, "cublas_geam,%zu,%zu,%.4f,%.1f,%.3f,1.000\n", rows, cols,
           geam_ms, geam, geam / copy);
    int best = 0;
    std::vector<double> gbps(kVariants);
    for (int v = 0; v < kVariants; v++) {
        k.fn = variants[v].fn;
        BOOK_CHECK(cudaMemset(out, 0, bytes));
        double ms = bk_median_ms(run, &k, reps);
        spot_check(variants[v].name, in, out, rows, cols);
        gbps[v] = moved / (ms * 1e6);
        if (gbps[v] > gbps[best]) best = v;
        bk_row(f, "%s,%zu,%zu,%.4f,%.1f,%.3f,%.3f\n", variants[v].name, rows,
               cols, ms, gbps[v], gbps[v] / copy, gbps[v] / geam);
    }
    bk_csv_close(f);
    f = bk_csv_open("transpose-best", "key,variant,gbps,of_geam,of_copy");
    bk_row(f, "best,%s,%.1f,%.3f,%.3f\n", variants[best].name, gbps[best],
           gbps[best] / geam, gbps[best] / copy);
    bk_csv_close(f);
    shapes(k);
    cublasDestroy(k.h);
    BOOK_CHECK(cudaFree(in));
    BOOK_CHECK(cudaFree(out));
    return 0;
}
