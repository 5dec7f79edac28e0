// bench.cu -- the tensor-core chapter's measurements (make bench).
// Every variant at 1024^3, 2048^3, 4096^3, 8192^3, 8192 x 6144 x 4096 (a
// transformer's shape: "llm") and 4097 x 4095 x 4096 ("odd", which only
// the launchers without the 16-byte rule take), bf16 inputs from random
// values, C in bf16, beside cuBLAS (cublasGemmEx, bf16 in and out, fp32
// compute) in the same run; at 8192^3 also with C in fp32.  The ceiling
// is measured too: tc_peak on every SM.  TFLOP/s count 2 M N K.  Writes
// figures/data/$BOOK_GPU/tensor-gemm.csv and tensor-gemm-repeats.csv
// (repeats, below).  With --ncu VARIANT it launches
// that variant once at 4096^3 for Nsight Compute (counters.sh) and writes
// nothing.
#include "benchkit.h"
#include "common/book.h"
#include "variants.h"
#include <cublas_v2.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct tc_variant { const char *name; tc_gemm_fn fn; int cc, aligned; };
#define TC_BENCH_ENTRY(name, fn, listing, cc, aligned) \
    {name, fn, cc, aligned},
static const tc_variant variants[] = {TC_VARIANTS(TC_BENCH_ENTRY)};
static const int kVariants = sizeof variants / sizeof variants[0];

struct shape { const char *name; size_t m, n, k; };
static const shape shapes[] = {
    {"1024", 1024, 1024, 1024}, {"2048", 2048, 2048, 2048},
    {"4096", 4096, 4096, 4096}, {"8192", 8192, 8192, 8192},
    {"llm", 8192, 6144, 4096},  {"odd", 4097, 4095, 4096},
};
static const int kShapes = sizeof shapes / sizeof shapes[0];

struct tc_ctx {
    const book_bf16 *A, *B;
    void *C;
    tc_out out;
    size_t m, n, k;
    tc_gemm_fn fn;   // NULL: cuBLAS
    cublasHandle_t h;
};
static cudaError_t run_tc(void *p)
{
    tc_ctx *c = (tc_ctx *)p;
    if (c->fn) return c->fn(c->A, c->B, c->C, c->out, c->m, c->n, c->k, 0);
    const float one = 1.0f, zero = 0.0f;
    // Row-major C = A B is column-major C^T = B^T A^T.
    cublasStatus_t s = cublasGemmEx(
        c->h, CUBLAS_OP_N, CUBLAS_OP_N, (int)c->n, (int)c->m, (int)c->k, &one,
        c->B, CUDA_R_16BF, (int)c->n, c->A, CUDA_R_16BF, (int)c->k, &zero,
        c->C, c->out == TC_OUT_F32 ? CUDA_R_32F : CUDA_R_16BF, (int)c->n,
        CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    return s == CUBLAS_STATUS_SUCCESS ? cudaGetLastError() : cudaErrorUnknown;
}

__global__ void fill_bf16(__nv_bfloat16 *x, size_t n, unsigned long long seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        unsigned long long z = (i + seed) * 0x9E3779B97F4A7C15ull;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z ^= z >> 31;
        x[i] = __float2bfloat16((float)(z >> 40) * 0x1p-23f - 1.0f);
    }
}

// TFLOP/s of fn (or cuBLAS) on shape s, output out; 0 when it refuses.
static double tflops(tc_gemm_fn fn, const shape &s, tc_out out,
                     const book_bf16 *A, const book_bf16 *B, void *C,
                     cublasHandle_t h)
{
    tc_ctx c = {A, B, C, out, s.m, s.n, s.k, fn, h};
    if (run_tc(&c) != cudaSuccess) { cudaGetLastError(); return 0.0; }
    BOOK_TRY(cudaDeviceSynchronize());
    double ms = bk_median_ms(run_tc, &c, 20);
    return 2.0 * s.m * s.n * s.k / (ms * 1e-3) / 1e12;
}

// Every measurement is taken kRounds times, interleaved: each round runs
// cuBLAS and every variant on every shape, so that a drift of the clock
// (the GPU slows as it heats) touches all alike.  The tables give the
// median of the rounds; tensor-gemm-repeats.csv gives, for cuBLAS and the
// three warp-specialised kernels at 4096^3 and 8192^3, median, min and max.
const int kRounds = 5;
static double rounds[kRounds][16][8];
static double round_median(int v, int s, double *lo, double *hi)
{
    double x[kRounds];
    *lo = *hi = rounds[0][v][s];
    for (int k = 0; k < kRounds; k++) {
        x[k] = rounds[k][v][s];
        *lo = fmin(*lo, x[k]);
        *hi = fmax(*hi, x[k]);
    }
    return bk_median(x, kRounds);
}
static void repeats(void)
{
    int vs[4] = {kVariants, 0, 0, 0};    // cuBLAS and the three below
    for (int v = 0; v < kVariants; v++) {
        if (strcmp(variants[v].name, "warp-specialized") == 0) vs[1] = v;
        if (strcmp(variants[v].name, "persistent") == 0) vs[2] = v;
        if (strcmp(variants[v].name, "cluster") == 0) vs[3] = v;
    }
    FILE *csv = bk_csv_open("tensor-gemm-repeats",
                            "id,variant,shape,median,min,max");
    for (int s = 2; s <= 3; s++)
        for (int i = 0; i < 4; i++) {
            const char *name = vs[i] < kVariants ? variants[vs[i]].name
                                                 : "cublas";
            double lo, hi, med = round_median(vs[i], s, &lo, &hi);
            bk_row(csv, "%s/%s,%s,%s,%.1f,%.1f,%.1f\n", name, shapes[s].name,
                   name, shapes[s].name, med, lo, hi);
        }
    bk_csv_close(csv);
}

// bench --ncu VARIANT: one launch of VARIANT at 4096^3, bf16 out, for
// tests/tensor-gemm/counters.sh.
static int ncu_one(int, char **args, void *p)
{
    tc_ctx c = *(const tc_ctx *)p;
    const int v = BK_NCU_PICK("variant", args[0], variants);
    if (v < 0) return 2;
    c.fn = variants[v].fn;
    BOOK_CHECK(run_tc(&c));
    return 0;
}

int main(int argc, char **argv)
{
    const size_t maxa = 8192ull * 8192, maxc = 8192ull * 8192;
    book_bf16 *A, *B;
    void *C;
    BOOK_TRY(cudaMalloc(&A, maxa * 2));
    BOOK_TRY(cudaMalloc(&B, maxa * 2));
    BOOK_TRY(cudaMalloc(&C, maxc * 4));
    fill_bf16<<<1024, 256>>>(A, maxa, 1);
    fill_bf16<<<1024, 256>>>(B, maxa, 2);
    BOOK_TRY(cudaDeviceSynchronize());
    tc_ctx one = {A, B, C, TC_OUT_BF16, 4096, 4096, 4096, NULL, NULL};
    const int ncu = bk_ncu(argc, argv, 1, 1, "VARIANT", ncu_one, &one);
    if (ncu >= 0) return ncu;
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "bench: cublasCreate failed\n");
        return 1;
    }
    bk_progress_start("tensor-gemm", 30);
    // The ceiling: about 20 ms of wgmma on every SM.
    int sms;
    BOOK_TRY(book_sm_count(&sms));
    float *sink;
    BOOK_TRY(cudaMalloc(&sink, TC_PEAK_SINK * sizeof(float)));
    double peak = 0.0;
    const int iters = 20000;
    if (tc_peak(sms, iters, sink, 0) == cudaSuccess) {
        BOOK_TRY(cudaDeviceSynchronize());
        cudaEvent_t a, b;
        BOOK_TRY(cudaEventCreate(&a));
        BOOK_TRY(cudaEventCreate(&b));
        double best = 1e30;
        for (int r = 0; r < 5; r++) {
            BOOK_TRY(cudaEventRecord(a));
            BOOK_TRY(tc_peak(sms, iters, sink, 0));
            BOOK_TRY(cudaEventRecord(b));
            BOOK_TRY(cudaEventSynchronize(b));
            float ms;
            BOOK_TRY(cudaEventElapsedTime(&ms, a, b));
            if (ms < best) best = ms;
        }
        double flop = (double)sms * 2 * iters * 4 * 2.0 * 64 * 256 * 16;
        peak = flop / (best * 1e-3) / 1e12;
        bk_progress("peak %.0f TFLOP/s", peak);
    } else {
        cudaGetLastError();
    }
    // Warm up: a second of cuBLAS at 8192^3, so that round 1 finds the GPU
    // as hot as the others do.
    for (int i = 0; i < 5; i++)
        tflops(NULL, shapes[3], TC_OUT_BF16, A, B, C, h);
    // t[v][s]: bf16 out; row kVariants is cuBLAS.
    double t[16][8] = {}, f32[16] = {};
    for (int k = 0; k < kRounds; k++)
        for (int s = 0; s < kShapes; s++)
            for (int v = 0; v <= kVariants; v++) {
                tc_gemm_fn fn = v < kVariants ? variants[v].fn : NULL;
                rounds[k][v][s] =
                    tflops(fn, shapes[s], TC_OUT_BF16, A, B, C, h);
                bk_progress("round %d %s %s %.0f", k,
                            v < kVariants ? variants[v].name : "cublas",
                            shapes[s].name, rounds[k][v][s]);
            }
    for (int s = 0; s < kShapes; s++)
        for (int v = 0; v <= kVariants; v++) {
            double lo, hi;
            t[v][s] = round_median(v, s, &lo, &hi);
        }
    f32[kVariants] = tflops(NULL, shapes[3], TC_OUT_F32, A, B, C, h);
    for (int v = 0; v < kVariants; v++)
        f32[v] = tflops(variants[v].fn, shapes[3], TC_OUT_F32, A, B, C, h);
    FILE *csv = bk_csv_open("tensor-gemm",
                            "variant,tflops_1024,tflops_2048,tflops_4096,"
                            "tflops_8192,tflops_llm,tflops_odd,"
                            "tflops_8192_f32,of_cublas_1024,of_cublas_4096,"
                            "of_cublas_8192,of_cublas_llm,of_cublas_odd,"
                            "of_peak_8192");
    auto cell = [](double x, const char *fmt, char *buf) {
        if (x > 0) snprintf(buf, 32, fmt, x); else strcpy(buf, "-");
        return buf;
    };
    char b[14][32];
    if (peak > 0)
        bk_row(csv, "peak,-,-,-,%.1f,-,-,-,-,-,-,-,-,1.000\n", peak);
    for (int v = 0; v <= kVariants; v++) {
        const double *r = t[v], *c = t[kVariants];
        const char *name = v < kVariants ? variants[v].name : "cublas";
        bk_row(csv, "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", name,
               cell(r[0], "%.1f", b[0]), cell(r[1], "%.1f", b[1]),
               cell(r[2], "%.1f", b[2]), cell(r[3], "%.1f", b[3]),
               cell(r[4], "%.1f", b[4]), cell(r[5], "%.1f", b[5]),
               cell(f32[v], "%.1f", b[6]),
               cell(r[0] > 0 ? r[0] / c[0] : 0, "%.3f", b[7]),
               cell(r[2] > 0 ? r[2] / c[2] : 0, "%.3f", b[8]),
               cell(r[3] > 0 ? r[3] / c[3] : 0, "%.3f", b[9]),
               cell(r[4] > 0 ? r[4] / c[4] : 0, "%.3f", b[10]),
               cell(r[5] > 0 ? r[5] / c[5] : 0, "%.3f", b[11]),
               cell(peak > 0 && r[3] > 0 ? r[3] / peak : 0, "%.3f", b[12]));
    }
    bk_csv_close(csv);
    repeats();
    bk_progress_stop();
    cublasDestroy(h);
    return 0;
}
