// bench_layernorm.cu -- the layernorm chapter's measurements (make bench).
// Every launcher on an 8192x8192 matrix (256 MB each way), beside a
// device-to-device copy of 256 MB measured in the same run.  Bytes are one
// read of x and one write of y per element.  Then the shapes CSV: the
// cached layer norm and the cached RMSNorm on small, odd and headline
// shapes, each against a copy of the same bytes timed in the same run
// (--shapes writes only that file).
#include "benchkit.h"
#include "common/book.h"
#include "layernorm/layernorm.h"
#include "variants.h"
#include <string.h>

struct ctx { const float *x, *g, *b; float *y; size_t rows, cols; };
template <layernorm_fn F> static cudaError_t run(void *p)
{
    ctx *k = (ctx *)p;
    return F(k->x, k->g, k->b, k->y, k->rows, k->cols, 1e-5f, 0);
}
struct copy_ctx { void *dst; const void *src; size_t bytes; };
static cudaError_t run_copy(void *p)
{
    copy_ctx *c = (copy_ctx *)p;
    return cudaMemcpyAsync(c->dst, c->src, c->bytes,
                           cudaMemcpyDeviceToDevice);
}
// The variants (variants.h), one row each.
#define VARIANT(name, fn) {name, run<fn>},
static const struct { const char *name; bk_work run; } variants[] = {
    LAYERNORM_VARIANTS(VARIANT)};

// Small (launch-bound), odd (widths not multiples of 4: the scalar paths)
// and the headline shape; each variant against a copy of its bytes.
static void shapes(float *x, float *g, float *b, float *y)
{
    static const struct { const char *cls; size_t rows, cols; } sh[] = {
        {"small", 1, 4096},     {"small", 64, 1024},
        {"small", 512, 4096},   {"odd", 1000, 1023},
        {"odd", 4097, 8191},    {"odd", 8191, 4099},
        {"headline", 8192, 8192},
    };
    static const struct { const char *name; bk_work run; } best[] = {
        {"cached", run<layernorm_cached>},
        {"rmsnorm_cached", run<rmsnorm_cached_as_layernorm>},
        {"rmsnorm", run<rmsnorm_as_layernorm>},
    };
    FILE *f = bk_shapes_open("layernorm");
    for (const auto &s : sh) {
        char shape[32];
        snprintf(shape, sizeof shape, "%zux%zu", s.rows, s.cols);
        size_t bytes = s.rows * s.cols * sizeof(float);
        copy_ctx c = {y, x, bytes};
        double ref_us = 1e3 * bk_median_ms(run_copy, &c, 30);
        ctx k = {x, g, b, y, s.rows, s.cols};
        for (const auto &v : best) {
            double us = 1e3 * bk_median_ms(v.run, &k, 30);
            bk_shape_row(f, s.cls, shape, v.name, us,
                         2.0 * bytes / (us * 1e3), "GB/s", "copy", ref_us);
        }
    }
    bk_csv_close(f);
}

// bench --ncu VARIANT: one launch of VARIANT on the headline shape, for
// tests/layernorm/counters.sh.
static int ncu_one(int, char **args, void *k)
{
    const int v = BK_NCU_PICK("variant", args[0], variants);
    if (v < 0) return 2;
    BOOK_CHECK(variants[v].run(k));
    return 0;
}

int main(int argc, char **argv)
{
    const size_t rows = 8192, cols = 8192, n = rows * cols;
    const size_t bytes = n * sizeof(float);
    float *x, *y, *g, *b;
    BOOK_CHECK(cudaMalloc(&x, bytes));
    BOOK_CHECK(cudaMalloc(&y, bytes));
    BOOK_CHECK(cudaMalloc(&g, cols * sizeof(float)));
    BOOK_CHECK(cudaMalloc(&b, cols * sizeof(float)));
    bk_fill_random(x, n, -1, 1, 11);
    bk_fill_random(g, cols, 0.5f, 1.5f, 12);
    bk_fill_random(b, cols, -1, 1, 13);
    ctx k = {x, g, b, y, rows, cols};
    const int ncu = bk_ncu(argc, argv, 1, 1, "VARIANT", ncu_one, &k);
    if (ncu >= 0) return ncu;
    if (!bk_shapes_only(argc, argv)) {
        double copy = bk_copy_gbps(bytes);
        FILE *f = bk_csv_open("layernorm",
                              "variant,rows,cols,ms,gbps,of_copy");
        bk_row(f, "copy,1,%zu,%.4f,%.1f,1.000\n", n,
               2.0 * bytes / (copy * 1e6), copy);
        for (const auto &v : variants) {
            double ms = bk_median_ms(v.run, &k, 30);
            double gbps = 2.0 * bytes / (ms * 1e6);
            bk_row(f, "%s,%zu,%zu,%.4f,%.1f,%.3f\n", v.name, rows, cols, ms,
                   gbps, gbps / copy);
        }
        bk_csv_close(f);
    }
    shapes(x, g, b, y);
    BOOK_CHECK(cudaFree(x));
    BOOK_CHECK(cudaFree(y));
    BOOK_CHECK(cudaFree(g));
    BOOK_CHECK(cudaFree(b));
    return 0;
}
