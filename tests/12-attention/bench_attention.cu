// bench_attention.cu -- chapter 12's measurements: the three-kernel form,
// the cuBLAS unfused pipeline, the warp-per-row and the tiled kernels at
// B8 H16 S4096 D64 and B4 H16 S4096 D128, causal and not, against chapter
// 2's FMA peak measured in the same run (12-attention.csv); and time
// against S at B2 H16 D64 for the unfused and fused forms
// (12-attention-sweep.csv).  fp32 throughout; cuBLAS in its default math
// mode (no TF32).
#include "benchkit.h"
#include "02-memory/memory.h"
#include "12-attention/attention.h"
#include <math.h>
#include <string.h>

struct job {
    int which;                    // 0 three, 1 cublas, 2 warp, 3 tiled, 4 fma
    const float *q, *k, *v;
    float *o;
    attn_dims a;
    void *work;
    cublasHandle_t h;
    size_t n;                     // fma: threads
};
static cudaError_t run(void *p)
{
    struct job *j = (struct job *)p;
    switch (j->which) {
    case 0: return attention_three_kernel(j->q, j->k, j->v, j->o, j->a, j->work);
    case 1: return attention_cublas(j->h, j->q, j->k, j->v, j->o, j->a, j->work);
    case 2: return attention_warp(j->q, j->k, j->v, j->o, j->a);
    case 3: return attention_tiled(j->q, j->k, j->v, j->o, j->a);
    default: return fma_peak(j->o, j->n, 16384, 0.999f, 0.5f);
    }
}
static const char *const names[4] = {"three_kernel", "cublas", "warp", "tiled"};

// FLOPs: 4 D for every (query, key) pair that is not masked.
static double flops(attn_dims a)
{
    double pairs = a.causal ? (double)a.Sq * (a.Sq + 1) / 2 : (double)a.Sq * a.Sk;
    return 4.0 * a.B * a.H * a.D * pairs;
}

int main(void)
{
    cudaDeviceProp prop;
    BOOK_CHECK(cudaGetDeviceProperties(&prop, 0));
    const size_t n = (size_t)8 * 16 * 4096 * 64;       // floats of q (max)
    attn_dims big = {8, 16, 4096, 4096, 64, 0};
    // The workspace for the largest case: the scores of B8 H16 S4096 and of
    // the sweep's B2 H16 S8192 are both 2^31 floats, but the sweep's K^T
    // is twice as long, and the D = 128 shape's K^T too.
    const attn_dims need[3] = {big, {4, 16, 4096, 4096, 128, 0},
                               {2, 16, 8192, 8192, 64, 0}};
    size_t wb = 0;
    for (int i = 0; i < 3; i++) {
        size_t b = attention_work_bytes(need[i]);
        if (b > wb) wb = b;
    }
    float *q, *k, *v, *o;
    void *work;
    BOOK_CHECK(cudaMalloc(&q, n * 4)); BOOK_CHECK(cudaMalloc(&k, n * 4));
    BOOK_CHECK(cudaMalloc(&v, n * 4)); BOOK_CHECK(cudaMalloc(&o, n * 4));
    BOOK_CHECK(cudaMalloc(&work, wb));
    bk_fill_random(q, n, -1, 1, 1); bk_fill_random(k, n, -1, 1, 2);
    bk_fill_random(v, n, -1, 1, 3);
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS ||
        cublasSetMathMode(h, CUBLAS_DEFAULT_MATH) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "bench_attention: cuBLAS handle failed\n");
        return 1;
    }
    struct job j = {4, q, k, v, o, big, work, h, 0};
    // The FMA peak, chapter 2's kernel, in this run.
    j.n = (size_t)prop.multiProcessorCount * prop.maxThreadsPerMultiProcessor * 4;
    double ms = bk_median_ms(run, &j, 20);
    double peak = 2.0 * 8 * 16384 * (double)j.n / (ms * 1e9);
    FILE *f = bk_csv_open("12-attention",
                          "case,shape,causal,variant,ms,tflops,of_peak,vs_cublas");
    bk_row(f, "fma_peak,-,0,fma_peak,%.4f,%.2f,1.000,-\n", ms, peak);
    attn_dims shapes[2] = {{8, 16, 4096, 4096, 64, 0}, {4, 16, 4096, 4096, 128, 0}};
    for (int s = 0; s < 2; s++)
        for (int c = 0; c < 2; c++) {
            j.a = shapes[s];
            j.a.causal = c;
            char shape[64];
            snprintf(shape, sizeof shape, "B%zuH%zuS%zuD%zu", j.a.B, j.a.H,
                     j.a.Sq, j.a.D);
            double t[4];
            for (int w = 0; w < 4; w++) {
                j.which = w;
                t[w] = bk_median_ms(run, &j, 20);
            }
            for (int w = 0; w < 4; w++) {
                double tf = flops(j.a) / (t[w] * 1e9);
                bk_row(f, "d%zu%s/%s,%s,%d,%s,%.4f,%.2f,%.3f,%.2f\n", j.a.D,
                       c ? "c" : "", names[w], shape, c, names[w], t[w], tf,
                       tf / peak, t[1] / t[w]);
            }
        }
    bk_csv_close(f);
    // Time against S: the unfused forms grow with S^2 bytes, the fused not.
    FILE *g = bk_csv_open("12-attention-sweep", "S,three_kernel,cublas,warp,tiled");
    for (size_t S = 512; S <= 8192; S *= 2) {
        j.a = (attn_dims){2, 16, S, S, 64, 0};
        double t[4];
        for (int w = 0; w < 4; w++) {
            j.which = w;
            t[w] = w == 2 && S > 4096 ? NAN : bk_median_ms(run, &j, 20);
        }
        bk_row(g, "%zu,%.4f,%.4f,%.4f,%.4f\n", S, t[0], t[1], t[2], t[3]);
    }
    bk_csv_close(g);
    if (cublasDestroy(h) != CUBLAS_STATUS_SUCCESS) return 1;
    BOOK_CHECK(cudaFree(q)); BOOK_CHECK(cudaFree(k)); BOOK_CHECK(cudaFree(v));
    BOOK_CHECK(cudaFree(o)); BOOK_CHECK(cudaFree(work));
    return 0;
}
