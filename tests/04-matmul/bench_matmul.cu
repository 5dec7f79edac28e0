// bench_matmul.cu -- chapter 4's measurements (make bench).
// Every variant at M = N = K = 4096 in fp32 (three 64 MB matrices, beyond
// the 60 MB L2), beside cuBLAS SGEMM in pedantic fp32 mode (no TF32) and
// the ceilings measured in the same run: the FMA peak of a kernel of
// independent fmaf chains, and the streaming-read bandwidth.
// Writes figures/data/h200/04-matmul.csv (one row a variant) and
// figures/data/h200/04-matmul-ceilings.csv.
#include "benchkit.h"
#include "common/book.h"
#include "04-matmul/matmul.h"
#include <cublas_v2.h>

// The arithmetic ceiling: each thread runs 8 independent chains of fused
// multiply-adds; the result is stored only if it is impossible, so the
// chains cannot be optimized away and nothing is written.
static const int kChains = 8;
__global__ void fma_peak_kernel(float *sink, int iters, float m, float a)
{
    float x[kChains];
#pragma unroll
    for (int j = 0; j < kChains; j++) x[j] = threadIdx.x * 1e-3f + j;
#pragma unroll 16
    for (int i = 0; i < iters; i++)
#pragma unroll
        for (int j = 0; j < kChains; j++) x[j] = fmaf(x[j], m, a);
    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < kChains; j++) s += x[j];
    if (s == -1.0f) *sink = s;
}
struct peak_ctx { float *sink; int blocks, iters; };
static cudaError_t run_peak(void *p)
{
    peak_ctx *c = (peak_ctx *)p;
    fma_peak_kernel<<<c->blocks, 256>>>(c->sink, c->iters, 0.9999f, 1e-4f);
    return cudaGetLastError();
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
    // Ceilings.
    double read = bk_read_gbps((size_t)1 << 30);
    double copy = bk_copy_gbps((size_t)1 << 30);
    int sms = 0;
    BK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    peak_ctx pc = {NULL, sms * 8, 1 << 16};
    BK_CUDA(cudaMalloc(&pc.sink, sizeof(float)));
    double peak_ms = bk_median_ms(run_peak, &pc, 20);
    double peak_flops = 2.0 * kChains * 256.0 * pc.blocks * pc.iters;
    double peak = peak_flops / (peak_ms * 1e9);          // TFLOP/s
    double ridge = peak * 1e12 / (read * 1e9);           // FLOP per byte
    BK_CUDA(cudaFree(pc.sink));

    mm_ctx k = {NULL, NULL, NULL, n, NULL, NULL};
    float *A, *B, *C;
    BK_CUDA(cudaMalloc(&A, nn * sizeof(float)));
    BK_CUDA(cudaMalloc(&B, nn * sizeof(float)));
    BK_CUDA(cudaMalloc(&C, nn * sizeof(float)));
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
    fprintf(f, "fma_peak,0,0,0,%.4f,%.3f,%.3f,1.000,%.2f\n", peak_ms, peak,
            peak / cublas, ridge);
    fprintf(f, "cublas,%zu,%zu,%zu,%.4f,%.3f,1.000,%.3f,nan\n", n, n, n,
            cublas_ms, cublas, cublas / peak);
    printf("fma peak %.2f TFLOP/s, read %.0f GB/s, copy %.0f GB/s\n", peak,
           read, copy);
    printf("%-16s %9.3f ms %7.2f TFLOP/s\n", "cublas", cublas_ms, cublas);
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
        fprintf(f, "%s,%zu,%zu,%zu,%.4f,%.3f,%.3f,%.3f,%.2f\n", v[i].name, n,
                n, n, ms, t, t / cublas, t / peak, v[i].fpb);
        printf("%-16s %9.3f ms %7.2f TFLOP/s %.3f of cuBLAS\n", v[i].name,
               ms, t, t / cublas);
    }
    fclose(f);

    FILE *g = bk_csv_open("04-matmul-ceilings", "ceiling,value,unit");
    fprintf(g, "fma_peak,%.3f,TFLOP/s\n", peak);
    fprintf(g, "read,%.1f,GB/s\n", read);
    fprintf(g, "copy,%.1f,GB/s\n", copy);
    fprintf(g, "ridge,%.2f,FLOP/byte\n", ridge);
    fprintf(g, "floor_4096,%.4f,ms\n", flops / (peak * 1e9));
    fclose(g);
    cublasDestroy(k.h);
    BK_CUDA(cudaFree(A));
    BK_CUDA(cudaFree(B));
    BK_CUDA(cudaFree(C));
    return 0;
}
