// bench_layernorm.cu -- chapter 8's measurements (make bench).
// Every launcher on an 8192x8192 matrix (256 MB each way), beside a
// device-to-device copy of 256 MB measured in the same run.  Bytes are one
// read of x and one write of y per element.
#include "benchkit.h"
#include "common/book.h"
#include "08-layernorm/layernorm.h"

struct ctx { const float *x, *g, *b; float *y; size_t rows, cols; int which; };
static cudaError_t run(void *p)
{
    ctx *k = (ctx *)p;
    const float eps = 1e-5f;
    switch (k->which) {
    case 0: return layernorm_two_pass(k->x, k->g, k->b, k->y, k->rows,
                                      k->cols, eps);
    case 1: return layernorm_welford(k->x, k->g, k->b, k->y, k->rows,
                                     k->cols, eps);
    case 2: return layernorm_welford_float4(k->x, k->g, k->b, k->y, k->rows,
                                            k->cols, eps);
    case 3: return layernorm_cached(k->x, k->g, k->b, k->y, k->rows,
                                    k->cols, eps);
    case 4: return rmsnorm(k->x, k->g, k->y, k->rows, k->cols, eps);
    default: return layernorm_naive_moments(k->x, k->g, k->b, k->y, k->rows,
                                            k->cols, eps);
    }
}

int main(void)
{
    const size_t rows = 8192, cols = 8192, n = rows * cols;
    const size_t bytes = n * sizeof(float);
    double copy = bk_copy_gbps(bytes);
    FILE *f = bk_csv_open("08-layernorm",
                          "variant,rows,cols,ms,gbps,of_copy");
    fprintf(f, "copy,1,%zu,%.4f,%.1f,1.000\n", n,
            2.0 * bytes / (copy * 1e6), copy);
    float *x, *y, *g, *b;
    BOOK_CHECK(cudaMalloc(&x, bytes));
    BOOK_CHECK(cudaMalloc(&y, bytes));
    BOOK_CHECK(cudaMalloc(&g, cols * sizeof(float)));
    BOOK_CHECK(cudaMalloc(&b, cols * sizeof(float)));
    bk_fill_random(x, n, -1, 1, 11);
    bk_fill_random(g, cols, 0.5f, 1.5f, 12);
    bk_fill_random(b, cols, -1, 1, 13);
    const char *names[] = {"two_pass", "welford", "welford_float4", "cached",
                           "rmsnorm", "naive_wrong"};
    ctx k = {x, g, b, y, rows, cols, 0};
    for (int w = 0; w < 6; w++) {
        k.which = w;
        double ms = bk_median_ms(run, &k, 30);
        double gbps = 2.0 * bytes / (ms * 1e6);
        fprintf(f, "%s,%zu,%zu,%.4f,%.1f,%.3f\n", names[w], rows, cols, ms,
                gbps, gbps / copy);
        printf("%-15s %8.4f ms %7.1f GB/s  %.3f of copy\n", names[w], ms,
               gbps, gbps / copy);
    }
    BOOK_CHECK(cudaFree(x));
    BOOK_CHECK(cudaFree(y));
    BOOK_CHECK(cudaFree(g));
    BOOK_CHECK(cudaFree(b));
    fclose(f);
    return 0;
}
