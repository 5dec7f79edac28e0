// bench_layernorm.cu -- chapter 8's measurements (make bench).
// Every launcher on an 8192x8192 matrix (256 MB each way), beside a
// device-to-device copy of 256 MB measured in the same run.  Bytes are one
// read of x and one write of y per element.
#include "benchkit.h"
#include "common/book.h"
#include "08-layernorm/layernorm.h"

struct ctx { const float *x, *g, *b; float *y; size_t rows, cols; };
typedef cudaError_t (*ln_fn)(const float *, const float *, const float *,
                             float *, size_t, size_t, float);
template <ln_fn F> static cudaError_t run(void *p)
{
    ctx *k = (ctx *)p;
    return F(k->x, k->g, k->b, k->y, k->rows, k->cols, 1e-5f);
}
static cudaError_t run_rmsnorm(void *p)
{
    ctx *k = (ctx *)p;
    return rmsnorm(k->x, k->g, k->y, k->rows, k->cols, 1e-5f);
}
// The variants, one row each.
static const struct { const char *name; bk_work run; } variants[] = {
    {"two_pass", run<layernorm_two_pass>},
    {"welford", run<layernorm_welford>},
    {"welford_float4", run<layernorm_welford_float4>},
    {"cached", run<layernorm_cached>},
    {"rmsnorm", run_rmsnorm},
    {"naive_wrong", run<layernorm_naive_moments>},
};

int main(void)
{
    const size_t rows = 8192, cols = 8192, n = rows * cols;
    const size_t bytes = n * sizeof(float);
    double copy = bk_copy_gbps(bytes);
    FILE *f = bk_csv_open("08-layernorm",
                          "variant,rows,cols,ms,gbps,of_copy");
    bk_row(f, "copy,1,%zu,%.4f,%.1f,1.000\n", n, 2.0 * bytes / (copy * 1e6),
           copy);
    float *x, *y, *g, *b;
    BOOK_CHECK(cudaMalloc(&x, bytes));
    BOOK_CHECK(cudaMalloc(&y, bytes));
    BOOK_CHECK(cudaMalloc(&g, cols * sizeof(float)));
    BOOK_CHECK(cudaMalloc(&b, cols * sizeof(float)));
    bk_fill_random(x, n, -1, 1, 11);
    bk_fill_random(g, cols, 0.5f, 1.5f, 12);
    bk_fill_random(b, cols, -1, 1, 13);
    ctx k = {x, g, b, y, rows, cols};
    for (const auto &v : variants) {
        double ms = bk_median_ms(v.run, &k, 30);
        double gbps = 2.0 * bytes / (ms * 1e6);
        bk_row(f, "%s,%zu,%zu,%.4f,%.1f,%.3f\n", v.name, rows, cols, ms, gbps,
               gbps / copy);
    }
    BOOK_CHECK(cudaFree(x));
    BOOK_CHECK(cudaFree(y));
    BOOK_CHECK(cudaFree(g));
    BOOK_CHECK(cudaFree(b));
    bk_csv_close(f);
    return 0;
}
