// bench_reduce2d.cu -- the reduce-2d chapter's measurements (make bench).
// Row and column sums on 8192 x 8192, 2^20 x 32 and 32 x 2^20 floats
// beside a streaming read of the same bytes, and the dot product of 2^28
// floats beside cublasSdot, all measured in the same run; the tall and wide
// in-flight rows again five times, interleaved with the read (-repeats.csv).
#include <cublas_v2.h>
#include <cstdio>
#include "benchkit.h"
#include "common/book.h"
#include "reduce-2d/reduce2d.h"
#include "variants.h"

// The variants (variants.h), one row each for every shape.
#define VARIANT(name, fn, by_rows, zeroed) {name, fn},
static const struct { const char *name; rowcol_fn fn; } variants[] = {
    REDUCE2D_VARIANTS(VARIANT)};

struct ctx {
    const float *a; size_t rows, cols; float *out; void *work; rowcol_fn fn;
    const float *y; cublasHandle_t h;
};
static cudaError_t run_rowcol(void *p)
{
    ctx *c = (ctx *)p;
    return c->fn(c->a, c->rows, c->cols, c->out, c->work, 0);
}
static cudaError_t run_dot(void *p)
{
    ctx *c = (ctx *)p;
    return dot(c->a, c->y, c->rows, c->out, c->work, 0);
}
static cudaError_t run_sdot(void *p)
{
    ctx *c = (ctx *)p;
    cublasStatus_t s = cublasSdot(c->h, (int)c->rows, c->a, 1, c->y, 1,
                                  c->out);
    return s == CUBLAS_STATUS_SUCCESS ? cudaGetLastError()
                                      : cudaErrorUnknown;
}

// Shapes a user brings: the in-flight row and column sums beside the
// streaming read of the same bytes, measured in the same run.
static void run_shapes(const float *a, float *out)
{
    static const struct { const char *cls; size_t rows, cols; } sh[] = {
        {"small", 64, 64}, {"small", 2048, 32}, {"small", 32, 2048},
        {"small", 256, 256}, {"odd", 1000003, 33}, {"odd", 33, 1000003},
        {"odd", 8191, 8193}, {"odd", 999999, 100}, {"headline", 1u << 20, 32},
        {"headline", 32, 1u << 20}, {"headline", 8192, 8192}};
    static const struct { const char *name; rowcol_fn fn; } best[] = {
        {"row_sums_in_flight", row_sums_in_flight},
        {"col_sums_in_flight", col_sums_in_flight}};
    FILE *f = bk_shapes_open("reduce-2d");
    for (const auto &x : sh) {
        char name[64];
        snprintf(name, sizeof name, "%zux%zu", x.rows, x.cols);
        size_t bytes = x.rows * x.cols * 4;
        double ref = bytes / (bk_read_gbps(bytes) * 1e3);   // us
        size_t wb = col_sums_in_flight_workspace_bytes(x.rows, x.cols);
        void *work;
        BOOK_CHECK(cudaMalloc(&work, wb));
        BOOK_CHECK(cudaMemset(work, 0, wb));
        for (const auto &v : best) {
            ctx c = {a, x.rows, x.cols, out, work, v.fn, NULL, NULL};
            double us = 1e3 * bk_median_ms(run_rowcol, &c, 30);
            bk_shape_row(f, x.cls, name, v.name, us, bytes / (us * 1e3),
                         "GB/s", "read_same_bytes", ref);
        }
        BOOK_CHECK(cudaFree(work));
    }
    bk_csv_close(f);
}

// The tall and wide shapes again, five times, each time the read of the
// same bytes and then both in-flight launchers, so that every ratio comes
// from timings next to each other; then the median ratio of the five.
static void run_repeats(const float *a, float *out)
{
    const int kReps = 5;
    static const struct { const char *tag; size_t rows, cols; } sh[] = {
        {"tall", 1u << 20, 32}, {"wide", 32, 1u << 20}};
    static const struct { const char *name; rowcol_fn fn; } best[] = {
        {"row_sums_in_flight", row_sums_in_flight},
        {"col_sums_in_flight", col_sums_in_flight}};
    FILE *f = bk_csv_open("reduce-2d-repeats",
                          "id,shape,variant,rep,us,read_us,of_read");
    for (const auto &x : sh) {
        size_t bytes = x.rows * x.cols * 4;
        size_t wb = col_sums_in_flight_workspace_bytes(x.rows, x.cols);
        void *work;
        BOOK_CHECK(cudaMalloc(&work, wb));
        BOOK_CHECK(cudaMemset(work, 0, wb));
        double ratio[2][kReps];
        for (int r = 0; r < kReps; r++) {
            double read_us = bytes / (bk_read_gbps(bytes) * 1e3);
            for (int v = 0; v < 2; v++) {
                ctx c = {a, x.rows, x.cols, out, work, best[v].fn, NULL, NULL};
                double us = 1e3 * bk_median_ms(run_rowcol, &c, 30);
                ratio[v][r] = read_us / us;
                bk_row(f, "%s/%s/%d,%zux%zu,%s,%d,%.2f,%.2f,%.3f\n", x.tag,
                       best[v].name, r, x.rows, x.cols, best[v].name, r, us,
                       read_us, ratio[v][r]);
            }
        }
        for (int v = 0; v < 2; v++) {
            bk_row(f, "%s/%s/median,%zux%zu,%s,median,--,--,%.3f\n", x.tag,
                   best[v].name, x.rows, x.cols, best[v].name,
                   bk_median(ratio[v], kReps));
        }
        BOOK_CHECK(cudaFree(work));
    }
    bk_csv_close(f);
}

int main(int argc, char **argv)
{
    const size_t n = (size_t)1 << 28;
    float *a, *y, *out;
    BOOK_CHECK(cudaMalloc(&a, n * 4));
    BOOK_CHECK(cudaMalloc(&y, n * 4));
    BOOK_CHECK(cudaMalloc(&out, (size_t)1 << 22));   // up to 2^20 outputs
    bk_fill_random(a, n, -1.0f, 1.0f, 11);
    bk_fill_random(y, n, -1.0f, 1.0f, 12);
    if (bk_shapes_only(argc, argv)) {
        run_shapes(a, out);
        return 0;
    }
    FILE *f = bk_csv_open("reduce-2d",
                          "variant,shape,ms,gbps,of_read,of_cublas");
    const size_t shapes[][2] = {{8192, 8192}, {1u << 20, 32}, {32, 1u << 20}};
    const char *tags[] = {"square", "tall", "wide"};
    for (int s = 0; s < 3; s++) {
        size_t rows = shapes[s][0], cols = shapes[s][1];
        size_t bytes = rows * cols * 4;
        double read = bk_read_gbps(bytes);
        void *work;
        size_t wb = col_sums_in_flight_workspace_bytes(rows, cols);
        if (wb < row_sums_workspace_bytes()) wb = row_sums_workspace_bytes();
        BOOK_CHECK(cudaMalloc(&work, wb));
        bk_row(f, "read_ceiling_%s,%zux%zu,%.4f,%.1f,1.000,--\n", tags[s],
               rows, cols, bytes / (read * 1e6), read);
        for (const auto &v : variants) {
            ctx c = {a, rows, cols, out, work, v.fn, NULL, NULL};
            BOOK_CHECK(cudaMemset(work, 0, wb));   // zero once (in flight)
            double ms = bk_median_ms(run_rowcol, &c, 30);
            double g = bytes / (ms * 1e6);
            bk_row(f, "%s_%s,%zux%zu,%.4f,%.1f,%.3f,--\n", v.name, tags[s],
                   rows, cols, ms, g, g / read);
        }
        BOOK_CHECK(cudaFree(work));
    }
    // The dot product: 8n bytes read.
    void *work;
    BOOK_CHECK(cudaMalloc(&work, dot_workspace_bytes()));
    ctx c = {a, n, 1, out, work, NULL, y, NULL};
    if (cublasCreate(&c.h) != CUBLAS_STATUS_SUCCESS) return 1;
    cublasSetPointerMode(c.h, CUBLAS_POINTER_MODE_DEVICE);
    double read = bk_read_gbps(n * 4);
    double ms_s = bk_median_ms(run_sdot, &c, 30);
    double ms_d = bk_median_ms(run_dot, &c, 30);
    double gs = 8.0 * n / (ms_s * 1e6), gd = 8.0 * n / (ms_d * 1e6);
    bk_row(f, "cublas_sdot,%zu,%.4f,%.1f,%.3f,1.000\n", n, ms_s, gs,
           gs / read);
    bk_row(f, "dot,%zu,%.4f,%.1f,%.3f,%.3f\n", n, ms_d, gd, gd / read,
           gd / gs);
    cublasDestroy(c.h);
    bk_csv_close(f);
    run_repeats(a, out);
    run_shapes(a, out);
    BOOK_CHECK(cudaFree(work));
    BOOK_CHECK(cudaFree(out));
    BOOK_CHECK(cudaFree(y));
    BOOK_CHECK(cudaFree(a));
    return 0;
}
