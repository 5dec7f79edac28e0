// bench_matmul.cu -- chapter 4's measurements (make bench).
// Every variant at M = N = K = 4096 in fp32 (three 64 MB matrices, beyond
// the 60 MB L2), beside cuBLAS SGEMM in pedantic fp32 mode (no TF32) and
// the streaming-read and copy ceilings measured in the same run.  The
// arithmetic ceiling is chapter 2's: the fma_peak row of
// figures/data/$BOOK_GPU/02-memory.csv, which `make bench` writes first.
// Writes figures/data/$BOOK_GPU/04-matmul.csv (one row a variant) and
// figures/data/$BOOK_GPU/04-matmul-ceilings.csv.
#include "benchkit.h"
#include "common/book.h"
#include "04-matmul/matmul.h"
#include <cublas_v2.h>
#include <math.h>
#include <stdlib.h>

// The FMA peak in TFLOP/s that chapter 2 measured on this GPU, which
// make bench reads from figures/data/$BOOK_GPU/02-memory.csv (tools/csv.awk)
// and passes in BOOK_FMA_PEAK; NAN if there is none yet.
static double chapter2_peak(void)
{
    const char *v = getenv("BOOK_FMA_PEAK");
    return v && *v ? strtod(v, NULL) : NAN;
}

typedef cudaError_t (*mm_fn)(const float *, const float *, float *, size_t,
                             size_t, size_t);
struct mm_ctx {
    const float *A, *B;
    float *C;
    size_t n;
    mm_fn fn;            // NULL: cuBLAS
    cublasHandle_t h;
};
static cudaError_t run_mm(void *p)
{
    mm_ctx *c = (mm_ctx *)p;
    if (c->fn) return c->fn(c->A, c->B, c->C, c->n, c->n, c->n);
    const float one = 1.0f, zero = 0.0f;
    int n = (int)c->n;
    // Row-major C = A B is column-major C^T = B^T A^T.
    cublasStatus_t s = cublasSgemm(c->h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n,
                                   &one, c->B, n, c->A, n, &zero, c->C, n);
    return s == CUBLAS_STATUS_SUCCESS ? cudaGetLastError()
                                      : cudaErrorUnknown;
}

int main(void)
{
    const size_t n = 4096, nn = n * n;
    const double flops = 2.0 * n * n * n;
    // Ceilings: bandwidth measured here, the FMA peak from chapter 2.
    double read = bk_read_gbps((size_t)1 << 30);
    double copy = bk_copy_gbps((size_t)1 << 30);
    double peak = chapter2_peak();   // TFLOP/s
    if (!(peak > 0)) {
        fprintf(stderr, "bench_matmul: no fma_peak in this GPU's 02-memory.csv "
                        "(run chapter 2's bench first); of_peak is nan\n");
        peak = NAN;
    }
    double ridge = peak * 1e12 / (read * 1e9);           // FLOP per byte

    mm_ctx k = {NULL, NULL, NULL, n, NULL, NULL};
    float *A, *B, *C;
    BOOK_CHECK(cudaMalloc(&A, nn * sizeof(float)));
    BOOK_CHECK(cudaMalloc(&B, nn * sizeof(float)));
    BOOK_CHECK(cudaMalloc(&C, nn * sizeof(float)));
    bk_fill_random(A, nn, -1, 1, 1);
    bk_fill_random(B, nn, -1, 1, 2);
    bk_fill_random(C, nn, -1, 1, 3);
    k.A = A; k.B = B; k.C = C;
    if (cublasCreate(&k.h) != CUBLAS_STATUS_SUCCESS ||
        cublasSetMathMode(k.h, CUBLAS_PEDANTIC_MATH) !=
            CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "cuBLAS set-up failed\n");
        return 1;
    }
    double cublas_ms = bk_median_ms(run_mm, &k, 20);
    double cublas = flops / (cublas_ms * 1e9);

    FILE *f = bk_csv_open("04-matmul", "variant,m,n,k,ms,tflops,of_cublas,"
                                       "of_peak,flop_per_byte");
    fprintf(f, "# of_peak: of the FMA peak, %.2f TFLOP/s, in 02-memory.csv\n",
            peak);
    bk_row(f, "cublas,%zu,%zu,%zu,%.4f,%.3f,1.000,%.3f,nan\n", n, n, n,
           cublas_ms, cublas, cublas / peak);
    static const struct { const char *name; mm_fn fn; double fpb; } v[] = {
        {"naive", matmul_naive, 0.25},
        {"coalesced", matmul_coalesced, 0.25},
        {"tiled", matmul_tiled, 8},
        {"1d-blocked", matmul_1d_blocked, 16},
        {"2d-blocked", matmul_2d_blocked, 32},
        {"vectorized", matmul_vectorized, 32},
        {"double-buffered", matmul_double_buffered, 32},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        k.fn = v[i].fn;
        double ms = bk_median_ms(run_mm, &k, 20);
        double t = flops / (ms * 1e9);
        bk_row(f, "%s,%zu,%zu,%zu,%.4f,%.3f,%.3f,%.3f,%.2f\n", v[i].name, n,
               n, n, ms, t, t / cublas, t / peak, v[i].fpb);
    }
    bk_csv_close(f);

    FILE *g = bk_csv_open("04-matmul-ceilings", "ceiling,value,unit");
    fprintf(g, "# fma_peak %.2f TFLOP/s from this GPU's 02-memory.csv\n", peak);
    bk_row(g, "read,%.1f,GB/s\n", read);
    bk_row(g, "copy,%.1f,GB/s\n", copy);
    bk_row(g, "ridge,%.2f,FLOP/byte\n", ridge);
    bk_row(g, "floor_4096,%.4f,ms\n", flops / (peak * 1e9));
    bk_csv_close(g);
    cublasDestroy(k.h);
    BOOK_CHECK(cudaFree(A));
    BOOK_CHECK(cudaFree(B));
    BOOK_CHECK(cudaFree(C));
    return 0;
}
