// bench.cu -- the tensor-core chapter's measurements (make bench).
// Every variant at 1024^3, 2048^3, 4096^3, 8192^3, 8192 x 6144 x 4096 (a
// transformer's shape: "llm") and 4097 x 4095 x 4096 ("odd", which only
// the launchers without the 16-byte rule take), bf16 inputs from random
// values, C in bf16, beside cuBLAS (cublasGemmEx, bf16 in and out, fp32
// compute) in the same run; at 8192^3 also with C in fp32.  The ceiling
// is measured too: tc_peak on every SM, on random bf16 tiles, inside the
// rounds (tensor-gemm-ceiling.csv: its median and the clock it implies).  TFLOP/s count 2 M N K.  Writes
// figures/data/$BOOK_GPU/tensor-gemm.csv, tensor-gemm-repeats.csv
// (repeats, below) and tensor-gemm-timing.csv (both timing methods at
// 1024^3).  With --ncu VARIANT it launches
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

// Every measurement is a variant of one case of benchkit's interleaved
// rounds (bk_rounds): each round runs cuBLAS and every variant on every
// shape, so that a drift of the clock (the GPU slows as it heats) touches
// all alike.  The tables give the median of the round medians;
// tensor-gemm-repeats.csv gives, for cuBLAS and the three warp-specialised
// kernels at 4096^3 and 8192^3, the median, min and max over the rounds.
// A launcher that refuses a shape is refused in the case ("-" in the
// table).
static tc_ctx jobs[16][8], jobs_f32[16];
static int slot[16][8], slot_f32[16];
static bk_rounds *rounds;
static double flop(const shape &s) { return 2.0 * s.m * s.n * s.k; }
// TFLOP/s of time ms on shape s; 0 when refused (NAN).
static double tf(const shape &s, double ms)
{
    return ms > 0 ? flop(s) / (ms * 1e-3) / 1e12 : 0.0;
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
                            "id,variant,shape,median,min,max,rounds");
    for (int s = 2; s <= 3; s++)
        for (int i = 0; i < 4; i++) {
            const char *name = vs[i] < kVariants ? variants[vs[i]].name
                                                 : "cublas";
            const bk_stat st = bk_rounds_stat(rounds, slot[vs[i]][s]);
            bk_row(csv, "%s/%s,%s,%s,%.1f,%.1f,%.1f,%d\n", name,
                   shapes[s].name, name, shapes[s].name,
                   tf(shapes[s], st.median), tf(shapes[s], st.hi),
                   tf(shapes[s], st.lo), st.rounds);
        }
    bk_csv_close(csv);
}

// The tensor-core ceiling as a work: tc_peak on every SM.
struct peak_ctx { int blocks, iters; float *sink; };
static cudaError_t run_peak(void *p)
{
    const peak_ctx *c = (const peak_ctx *)p;
    return tc_peak(c->blocks, c->iters, c->sink, 0);
}
// Dense bf16 FLOP per clock per SM of H100 and H200 (SXM): NVIDIA's
// 989.4 TFLOP/s at the 1830 MHz boost clock on 132 SMs, 989.4e12 /
// (132 x 1.83e9) = 4096, that is 1024 dense bf16 FMA per clock on each of
// the four tensor cores.  The clock the ceiling implies is its FLOP/s
// over SMs x 4096.
static const double kTensorFlopPerClockSM = 4096;
// tensor-gemm-ceiling.csv: the ceiling's median over the rounds, its
// min and max, and the clock each implies.
static void ceiling(const bk_stat &ps, double flop, int sms)
{
    FILE *csv = bk_csv_open("tensor-gemm-ceiling",
                            "id,tflops,tflops_lo,tflops_hi,sms,"
                            "flop_per_clock_sm,mhz,mhz_lo,mhz_hi,rounds");
    fprintf(csv, "# tc_peak on random bf16 tiles inside the GEMMs' rounds; "
                 "mhz = FLOP/s / (sms x flop_per_clock_sm), the clock the "
                 "ceiling implies (4096: 989.4 TFLOP/s dense bf16 at 1830 "
                 "MHz on 132 SMs, NVIDIA's H100 SXM figure)\n");
    const double tf = flop / (ps.median * 1e-3) / 1e12;
    const double lo = flop / (ps.hi * 1e-3) / 1e12;
    const double hi = flop / (ps.lo * 1e-3) / 1e12;
    const double per = sms * kTensorFlopPerClockSM / 1e6;   // TFLOP/s per MHz
    bk_row(csv, "peak,%.1f,%.1f,%.1f,%d,%.0f,%.0f,%.0f,%.0f,%d\n", tf, lo,
           hi, sms, kTensorFlopPerClockSM, tf / per, lo / per, hi / per,
           ps.rounds);
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
    // The ceiling: about 20 ms of wgmma on every SM, on random bf16
    // tiles (tc_peak), a variant of the rounds below like the GEMMs, so
    // that it runs as hot as they do and is reported as a median.
    int sms;
    BOOK_TRY(book_sm_count(&sms));
    peak_ctx pk = {sms, 20000, NULL};
    BOOK_TRY(cudaMalloc(&pk.sink, TC_PEAK_SINK * sizeof(float)));
    // Warm up: a second of cuBLAS at 8192^3, so that round 1 finds the GPU
    // as hot as the others do.
    tc_ctx warm = {A, B, C, TC_OUT_BF16, 8192, 8192, 8192, NULL, h};
    for (int i = 0; i < 5; i++) bk_median_ms(run_tc, &warm, 20);
    // jobs[v][s]: bf16 out; row kVariants is cuBLAS; jobs_f32: 8192^3
    // with C in fp32.
    rounds = bk_rounds_new("tensor-gemm");
    for (int s = 0; s < kShapes; s++)
        for (int v = 0; v <= kVariants; v++) {
            const char *name = v < kVariants ? variants[v].name : "cublas";
            char id[64];
            snprintf(id, sizeof id, "%s/%s", name, shapes[s].name);
            jobs[v][s] = {A, B, C, TC_OUT_BF16, shapes[s].m, shapes[s].n,
                          shapes[s].k, v < kVariants ? variants[v].fn : NULL,
                          h};
            slot[v][s] = bk_rounds_add(rounds, id, run_tc, &jobs[v][s], 0);
        }
    for (int v = 0; v <= kVariants; v++) {
        const char *name = v < kVariants ? variants[v].name : "cublas";
        char id[64];
        snprintf(id, sizeof id, "%s/8192_f32", name);
        jobs_f32[v] = {A, B, C, TC_OUT_F32, 8192, 8192, 8192,
                       v < kVariants ? variants[v].fn : NULL, h};
        slot_f32[v] = bk_rounds_add(rounds, id, run_tc, &jobs_f32[v], 0);
    }
    const int peak_slot = bk_rounds_add(rounds, "peak", run_peak, &pk, 0);
    bk_rounds_run(rounds);
    const bk_stat ps = bk_rounds_stat(rounds, peak_slot);
    const double peak_flop = (double)sms * 2 * pk.iters * 4 * 2.0 * 64 * 256 * 16;
    const double peak = ps.ok ? peak_flop / (ps.median * 1e-3) / 1e12 : 0.0;
    if (ps.ok) ceiling(ps, peak_flop, sms);
    double t[16][8] = {}, f32[16] = {};
    for (int s = 0; s < kShapes; s++)
        for (int v = 0; v <= kVariants; v++)
            t[v][s] = tf(shapes[s], bk_rounds_stat(rounds, slot[v][s]).median);
    for (int v = 0; v <= kVariants; v++)
        f32[v] = tf(shapes[3], bk_rounds_stat(rounds, slot_f32[v]).median);
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
    bk_rounds_free(rounds);
    // The two timing methods side by side at 1024^3, where the launchers'
    // host work (tensor-map encodes, cudaFuncSetAttribute) and the launch
    // are a large part of the old method's time (tensor-gemm-timing.csv;
    // the method chapter shows it).
    FILE *tcsv = bk_timing_open("tensor-gemm");
    for (int v = kVariants; v >= 0; v--) {
        const char *name = v < kVariants ? variants[v].name : "cublas";
        if (v < kVariants && strcmp(name, "warp-specialized") != 0 &&
            strcmp(name, "persistent") != 0 && strcmp(name, "cluster") != 0)
            continue;
        char id[64];
        snprintf(id, sizeof id, "gemm/%s/1024", name);
        bk_timing_row(tcsv, id, run_tc, &jobs[v][0]);
    }
    bk_csv_close(tcsv);
    bk_progress_stop();
    cublasDestroy(h);
    return 0;
}
