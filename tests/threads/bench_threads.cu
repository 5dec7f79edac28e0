// bench_threads.cu -- the threads chapter's measurements (make bench).
// Every kernel on 2^28 floats an array (1 GiB, far beyond the 60 MB L2),
// beside the copy and read ceilings measured in the same run, and the
// host-to-device transfer of SAXPY's inputs.
#include "benchkit.h"
#include "common/book.h"
#include "threads/threads.h"
#include "variants.h"

struct ctx { float *a, *b, *c; size_t n, rows, cols; };
// The adds of variants.h on the headline arrays: the vector adds on n
// floats, the matrix adds on 16384 rows of n / 16384.
#define RUN_VECTOR_ADD(fn)                                              \
    static cudaError_t run_##fn(void *p)                                \
    {                                                                   \
        ctx *k = (ctx *)p;                                              \
        return fn(k->a, k->b, k->c, k->n, 0);                           \
    }
#define RUN_MATRIX_ADD(fn)                                              \
    static cudaError_t run_##fn(void *p)                                \
    {                                                                   \
        ctx *k = (ctx *)p;                                              \
        return fn(k->a, k->b, k->c, 16384, k->n / 16384, 0);            \
    }
THREADS_VECTOR_ADDS(RUN_VECTOR_ADD)
THREADS_MATRIX_ADDS(RUN_MATRIX_ADD)
static cudaError_t run_saxpy(void *p)
{
    ctx *k = (ctx *)p;
    return saxpy(2.5f, k->a, k->c, k->n, 0);
}
// The variants, one row each, named as variants.h says.
#define VECTOR_ROW(fn) {#fn, run_##fn},
#define MATRIX_ROW(fn) {#fn "_16384x16384", run_##fn},
static const struct { const char *name; bk_work run; } variants[] = {
    THREADS_VECTOR_ADDS(VECTOR_ROW)
    THREADS_MATRIX_ADDS(MATRIX_ROW)
    {"saxpy", run_saxpy},
};

// Shapes a user brings: the matrix adds beside a device-to-device copy of
// the same bytes (1.5 rows x cols floats copied: 12 bytes an element read
// and written, as the add moves), timed in the same run.
struct shape_ctx { ctx k; void *dst, *src; size_t copy_bytes; };
struct h2d_ctx { float *a, *c; const float *h; size_t n; };
static cudaError_t run_h2d(void *p)
{
    const h2d_ctx *x = (const h2d_ctx *)p;
    const size_t b = x->n * sizeof(float);
    BOOK_TRY(cudaMemcpyAsync(x->a, x->h, b, cudaMemcpyHostToDevice));
    return cudaMemcpyAsync(x->c, x->h + x->n, b, cudaMemcpyHostToDevice);
}
static cudaError_t run_shape_madd(void *p)
{
    ctx *k = &((shape_ctx *)p)->k;
    return madd(k->a, k->b, k->c, k->rows, k->cols, 0);
}
static cudaError_t run_shape_madd_float4(void *p)
{
    ctx *k = &((shape_ctx *)p)->k;
    return madd_float4(k->a, k->b, k->c, k->rows, k->cols, 0);
}
static cudaError_t run_shape_copy(void *p)
{
    shape_ctx *s = (shape_ctx *)p;
    return cudaMemcpyAsync(s->dst, s->src, s->copy_bytes,
                           cudaMemcpyDeviceToDevice);
}
static void shapes(const ctx &k)
{
    static const struct { const char *cls; size_t rows, cols; } sh[] = {
        {"small", 64, 64}, {"small", 256, 256}, {"small", 1024, 1024},
        {"odd", 4097, 4099}, {"odd", 16383, 16385}, {"odd", 1000003, 33},
        {"odd", 33, 1000003}, {"headline", 16384, 16384}};
    shape_ctx s = {k, NULL, NULL, 0};
    const size_t most = 6 * k.n;                 // bytes copied at most
    BOOK_CHECK(cudaMalloc(&s.dst, most));
    BOOK_CHECK(cudaMalloc(&s.src, most));
    BOOK_CHECK(cudaMemset(s.src, 0, most));
    FILE *f = bk_shapes_open("threads");
    for (const auto &x : sh) {
        char name[64];
        snprintf(name, sizeof name, "%zux%zu", x.rows, x.cols);
        s.k.rows = x.rows;
        s.k.cols = x.cols;
        s.copy_bytes = 6 * x.rows * x.cols;
        double moved = 12.0 * x.rows * x.cols;
        double ref = 1e3 * bk_median_ms(run_shape_copy, &s, 30);
        double us = 1e3 * bk_median_ms(run_shape_madd_float4, &s, 30);
        bk_shape_row(f, x.cls, name, "madd_float4", us, moved / (us * 1e3),
                     "GB/s", "memcpy_same_bytes", ref);
        if (x.rows <= 65535u * 8) {               // madd's row limit
            us = 1e3 * bk_median_ms(run_shape_madd, &s, 30);
            bk_shape_row(f, x.cls, name, "madd", us, moved / (us * 1e3),
                         "GB/s", "memcpy_same_bytes", ref);
        }
    }
    bk_csv_close(f);
    BOOK_CHECK(cudaFree(s.dst));
    BOOK_CHECK(cudaFree(s.src));
}

int main(int argc, char **argv)
{
    const size_t n = (size_t)1 << 28, bytes = n * sizeof(float);
    if (bk_shapes_only(argc, argv)) {
        ctx k = {NULL, NULL, NULL, n, 0, 0};
        BOOK_CHECK(cudaMalloc(&k.a, bytes));
        BOOK_CHECK(cudaMalloc(&k.b, bytes));
        BOOK_CHECK(cudaMalloc(&k.c, bytes));
        bk_fill_random(k.a, n, -1, 1, 1);
        bk_fill_random(k.b, n, -1, 1, 2);
        shapes(k);
        return 0;
    }
    double copy = bk_copy_gbps(bytes), read = bk_read_gbps(bytes);
    FILE *f = bk_csv_open("threads", "variant,n,bytes,ms,gbps,of_copy,of_read");
    bk_row(f, "copy_ceiling,%zu,%zu,%.4f,%.1f,1.000,%.3f\n", n, 2 * bytes,
           2.0 * bytes / (copy * 1e6), copy, copy / read);
    bk_row(f, "read_ceiling,%zu,%zu,%.4f,%.1f,%.3f,1.000\n", n, bytes,
           bytes / (read * 1e6), read, read / copy);
    ctx k = {NULL, NULL, NULL, n, 0, 0};
    BOOK_CHECK(cudaMalloc(&k.a, bytes));
    BOOK_CHECK(cudaMalloc(&k.b, bytes));
    BOOK_CHECK(cudaMalloc(&k.c, bytes));
    bk_fill_random(k.a, n, -1, 1, 1);
    bk_fill_random(k.b, n, -1, 1, 2);
    bk_fill_random(k.c, n, -1, 1, 3);
    for (const auto &v : variants) {
        double ms = bk_median_ms(v.run, &k, 30);
        double moved = 3.0 * bytes;           // two reads and one write
        double gbps = moved / (ms * 1e6);
        bk_row(f, "%s,%zu,%.0f,%.4f,%.1f,%.3f,%.3f\n", v.name, n, moved, ms,
               gbps, gbps / copy, gbps / read);
    }
    // SAXPY's inputs crossing PCIe from pinned host memory: two
    // asynchronous copies (pinned, so they only queue), timed by the kit
    // like the kernels.
    float *h;
    BOOK_CHECK(cudaMallocHost(&h, 2 * bytes));
    for (size_t i = 0; i < 2 * n; i++) h[i] = (float)(i % 1000) * 1e-3f;
    h2d_ctx hc = {k.a, k.c, h, n};
    const double best = bk_median_ms(run_h2d, &hc, 20);
    const double h2d = 2.0 * bytes / (best * 1e6);
    bk_row(f, "h2d_saxpy_inputs,%zu,%zu,%.4f,%.1f,%.3f,%.3f\n", n, 2 * bytes,
           best, h2d, h2d / copy, h2d / read);
    BOOK_CHECK(cudaFreeHost(h));
    bk_csv_close(f);
    bk_fill_random(k.a, n, -1, 1, 1);
    shapes(k);
    BOOK_CHECK(cudaFree(k.a));
    BOOK_CHECK(cudaFree(k.b));
    BOOK_CHECK(cudaFree(k.c));
    return 0;
}
