// bench_conv.cu -- chapter 11's measurements (make bench).
// Five cases: conv1d n = 2^24, k = 2047 and n = 2^26, k = 31; conv2d
// 3072^2 with 15x15, 8192^2 with 5x5 and 8192^2 with 31x31 (and its
// separable Gaussian).  Each variant beside cuDNN (cudnnConvolutionForward,
// fp32 with CUDNN_FMA_MATH, the fastest algorithm that
// cudnnFindConvolutionForwardAlgorithm finds, its workspace included)
// where the machine has it, and beside two ceilings measured in this run:
// the device-to-device copy and the FMA peak (chapter 2's fma_peak
// kernel).  CUDNN_FMA_MATH, not CUDNN_DEFAULT_MATH: from compute capability
// 8.0 on, the default lets cuDNN run fp32 convolutions in TF32 on the
// tensor cores, and the comparison is fp32 against fp32 (PyTorch with TF32
// off, which measured the issue's targets, asks for CUDNN_FMA_MATH too).
// Run time on an H200, estimated: about 20 s, most of it cuDNN (23 calls
// of some 113 ms and 215 ms in the k = 2047 and 31x31 cases, and its Find).
// Bytes: the input read once and the output written once;
// FLOPs: 2 x outputs x taps (the separable filter counted as the direct
// one, so that its rate compares).  limit is the roofline's bound for the
// case, max(bytes / copy, flops / peak), and of_limit = limit time / time.
// Writes figures/data/$BOOK_GPU/11-convolution.csv (one row a case and
// variant) and 11-convolution-ceilings.csv.
#include "benchkit.h"
#include "common/book.h"
#include "02-memory/memory.h"
#include "11-convolution/conv.h"
#include <math.h>
#include <string.h>
#if __has_include(<cudnn.h>)
#include <cudnn.h>
#include <dlfcn.h>
#define HAVE_CUDNN_H 1
#endif

struct cas {
    const char *name;
    size_t h, w, kh, kw;     // 1D: h = kh = 1
};
struct ctx {
    const float *x, *f, *g;  // input, filter, one separable factor
    float *y, *work;
    cas c;
    int v;                   // which variant
};
enum { NAIVE, CONST, ROTATED, TILED, WINDOW, BLOCKED, SEPARABLE, CUDNN };
static const char *vname[] = {"naive", "const", "const-rotated", "tiled",
                              "window", "blocked", "separable", "cudnn"};

#ifdef HAVE_CUDNN_H
// cuDNN is loaded at run time (as in chapter 7), so the bench builds and
// runs without it.
struct cudnn_api {
    decltype(&cudnnCreate) create;
    decltype(&cudnnCreateTensorDescriptor) tdesc;
    decltype(&cudnnSetTensor4dDescriptor) set_t;
    decltype(&cudnnCreateFilterDescriptor) fdesc;
    decltype(&cudnnSetFilter4dDescriptor) set_f;
    decltype(&cudnnCreateConvolutionDescriptor) cdesc;
    decltype(&cudnnSetConvolution2dDescriptor) set_c;
    decltype(&cudnnSetConvolutionMathType) set_math;
    decltype(&cudnnFindConvolutionForwardAlgorithm) find;
    decltype(&cudnnConvolutionForward) fwd;
    cudnnHandle_t h;
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t fd;
    cudnnConvolutionDescriptor_t cd;
    cudnnConvolutionFwdAlgo_t algo;
    void *ws;
    size_t ws_bytes;
};
static cudnn_api dnn;
#define DNN_SYM(field, name) \
    (dnn.field = (decltype(dnn.field))dlsym(lib, name)) != NULL
static bool cudnn_load(void)
{
    void *lib = dlopen("libcudnn.so.9", RTLD_NOW);
    if (!lib) lib = dlopen("libcudnn.so", RTLD_NOW);
    if (!lib) return false;
    bool ok = DNN_SYM(create, "cudnnCreate") &&
              DNN_SYM(tdesc, "cudnnCreateTensorDescriptor") &&
              DNN_SYM(set_t, "cudnnSetTensor4dDescriptor") &&
              DNN_SYM(fdesc, "cudnnCreateFilterDescriptor") &&
              DNN_SYM(set_f, "cudnnSetFilter4dDescriptor") &&
              DNN_SYM(cdesc, "cudnnCreateConvolutionDescriptor") &&
              DNN_SYM(set_c, "cudnnSetConvolution2dDescriptor") &&
              DNN_SYM(set_math, "cudnnSetConvolutionMathType") &&
              DNN_SYM(find, "cudnnFindConvolutionForwardAlgorithm") &&
              DNN_SYM(fwd, "cudnnConvolutionForward");
    return ok && dnn.create(&dnn.h) == CUDNN_STATUS_SUCCESS &&
           dnn.tdesc(&dnn.xd) == CUDNN_STATUS_SUCCESS &&
           dnn.tdesc(&dnn.yd) == CUDNN_STATUS_SUCCESS &&
           dnn.fdesc(&dnn.fd) == CUDNN_STATUS_SUCCESS &&
           dnn.cdesc(&dnn.cd) == CUDNN_STATUS_SUCCESS;
}
// Describe one case (N = C = K = 1, valid cross-correlation, fp32 on the
// FMA units, no TF32) and pick the fastest algorithm; false if cuDNN fails.
static bool cudnn_setup(const cas &c, const float *x, const float *f,
                        float *y)
{
    size_t ho = c.h - c.kh + 1, wo = c.w - c.kw + 1;
    const cudnnDataType_t F = CUDNN_DATA_FLOAT;
    if (dnn.set_t(dnn.xd, CUDNN_TENSOR_NCHW, F, 1, 1, (int)c.h, (int)c.w) ||
        dnn.set_t(dnn.yd, CUDNN_TENSOR_NCHW, F, 1, 1, (int)ho, (int)wo) ||
        dnn.set_f(dnn.fd, F, CUDNN_TENSOR_NCHW, 1, 1, (int)c.kh, (int)c.kw) ||
        dnn.set_c(dnn.cd, 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, F) ||
        dnn.set_math(dnn.cd, CUDNN_FMA_MATH))
        return false;
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int got = 0;
    if (dnn.find(dnn.h, dnn.xd, dnn.fd, dnn.cd, dnn.yd,
                 CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &got, perf) ||
        got < 1 || perf[0].status != CUDNN_STATUS_SUCCESS)
        return false;
    dnn.algo = perf[0].algo;
    dnn.ws_bytes = perf[0].memory;
    dnn.ws = NULL;
    if (dnn.ws_bytes) BOOK_CHECK(cudaMalloc(&dnn.ws, dnn.ws_bytes));
    printf("cuDNN %s: algorithm %d, workspace %zu bytes, %.3f ms in Find\n",
           c.name, (int)dnn.algo, dnn.ws_bytes, perf[0].time);
    (void)x; (void)f; (void)y;
    return true;
}
static cudaError_t run_cudnn(const ctx *k)
{
    const float one = 1.0f, zero = 0.0f;
    cudnnStatus_t s = dnn.fwd(dnn.h, &one, dnn.xd, k->x, dnn.fd, k->f, dnn.cd,
                              dnn.algo, dnn.ws, dnn.ws_bytes, &zero, dnn.yd,
                              k->y);
    return s == CUDNN_STATUS_SUCCESS ? cudaGetLastError() : cudaErrorUnknown;
}
#endif

static cudaError_t run(void *p)
{
    ctx *k = (ctx *)p;
    const cas &c = k->c;
    size_t n = c.w, kk = c.kw;
    switch (k->v) {
    case NAIVE:
        return c.h == 1 ? conv1d_naive(k->x, n, k->f, kk, k->y)
                        : conv2d_naive(k->x, c.h, c.w, k->f, c.kh, c.kw, k->y);
    case CONST: return conv1d_const(k->x, n, k->f, kk, k->y);
    case ROTATED: return conv1d_const_rotated(k->x, n, k->f, kk, k->y);
    case TILED:
        return c.h == 1 ? conv1d_tiled(k->x, n, k->f, kk, k->y)
                        : conv2d_tiled(k->x, c.h, c.w, k->f, c.kh, c.kw, k->y);
    case WINDOW: return conv1d_window(k->x, n, k->f, kk, k->y);
    case BLOCKED:
        return conv2d_blocked(k->x, c.h, c.w, k->f, c.kh, c.kw, k->y);
    case SEPARABLE:
        return conv2d_separable(k->x, c.h, c.w, k->g, c.kh, k->g, c.kw,
                                k->work, k->y);
#ifdef HAVE_CUDNN_H
    case CUDNN: return run_cudnn(k);
#endif
    }
    return cudaErrorInvalidValue;
}

// The FMA peak, measured here with chapter 2's kernel as chapter 2 does:
// four waves of full SMs, 16384 iterations of 8 independent chains.
static double fma_peak_tflops(void)
{
    cudaDeviceProp p;
    BOOK_CHECK(cudaGetDeviceProperties(&p, 0));
    size_t n = (size_t)p.multiProcessorCount * p.maxThreadsPerMultiProcessor * 4;
    float *out;
    BOOK_CHECK(cudaMalloc(&out, n * sizeof(float)));
    struct pk { float *out; size_t n; } c = {out, n};
    double ms = bk_median_ms([](void *q) {
        pk *c = (pk *)q;
        return fma_peak(c->out, c->n, 16384, 0.999f, 0.5f);
    }, &c, 21);
    BOOK_CHECK(cudaFree(out));
    return 2.0 * 8 * 16384 * (double)n / (ms * 1e9);
}

int main(void)
{
    const size_t most = (size_t)1 << 26;            // floats: 256 MiB
    double copy = bk_copy_gbps((size_t)1 << 30);    // GB/s, read + write
    double peak = fma_peak_tflops();                // TFLOP/s
    static const cas cases[] = {
        {"1d-16M-k2047", 1, (size_t)1 << 24, 1, 2047},
        {"1d-64M-k31", 1, (size_t)1 << 26, 1, 31},
        {"2d-3072-15x15", 3072, 3072, 15, 15},
        {"2d-8192-5x5", 8192, 8192, 5, 5},
        {"2d-8192-31x31", 8192, 8192, 31, 31},
    };
    static const int vars[][8] = {
        {NAIVE, CONST, TILED, WINDOW, CUDNN, -1},
        {NAIVE, CONST, ROTATED, TILED, WINDOW, CUDNN, -1},
        {NAIVE, TILED, BLOCKED, CUDNN, -1},
        {NAIVE, TILED, BLOCKED, SEPARABLE, CUDNN, -1},
        {TILED, BLOCKED, SEPARABLE, CUDNN, -1},
    };
    ctx k;
    memset(&k, 0, sizeof k);
    float *x, *y, *f, *g, *work;
    BOOK_CHECK(cudaMalloc(&x, most * sizeof(float)));
    BOOK_CHECK(cudaMalloc(&y, most * sizeof(float)));
    BOOK_CHECK(cudaMalloc(&work, most * sizeof(float)));
    BOOK_CHECK(cudaMalloc(&f, CONV_MAX_TAPS * sizeof(float)));
    BOOK_CHECK(cudaMalloc(&g, 64 * sizeof(float)));
    bk_fill_random(x, most, -1, 1, 11);
    bk_fill_random(f, CONV_MAX_TAPS, -1, 1, 12);
    bk_fill_random(g, 64, 0, 1, 13);      // any positive factor will do
    k.x = x; k.y = y; k.f = f; k.g = g; k.work = work;
#ifdef HAVE_CUDNN_H
    bool have_dnn = cudnn_load();
#else
    bool have_dnn = false;
#endif
    if (!have_dnn) printf("cuDNN: not loadable, not measured\n");

    FILE *csv = bk_csv_open("11-convolution",
                            "id,case,variant,ms,tflops,gbps,flop_per_byte,"
                            "limit,of_limit,of_peak,of_copy,of_cudnn");
    fprintf(csv, "# ceilings measured in this run: copy %.1f GB/s, FMA peak "
                 "%.2f TFLOP/s (11-convolution-ceilings.csv)\n", copy, peak);
    FILE *cf = bk_csv_open("11-convolution-ceilings", "ceiling,value,unit");
    bk_row(cf, "copy,%.1f,GB/s\n", copy);
    bk_row(cf, "fma_peak,%.2f,TFLOP/s\n", peak);
    bk_row(cf, "ridge,%.2f,FLOP/byte\n", peak * 1e3 / copy);
    bk_csv_close(cf);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const cas &c = cases[i];
        k.c = c;
        size_t ho = c.h - c.kh + 1, wo = c.w - c.kw + 1;
        double flops = 2.0 * ho * wo * c.kh * c.kw;
        double bytes = 4.0 * (c.h * c.w + ho * wo);
        double t_mem = bytes / (copy * 1e6), t_fma = flops / (peak * 1e9);
        const char *limit = t_fma > t_mem ? "fma" : "copy";
        double t_lim = t_fma > t_mem ? t_fma : t_mem;
        double dnn_ms = NAN;
#ifdef HAVE_CUDNN_H
        bool dnn_ok = have_dnn && cudnn_setup(c, x, f, y);
        if (have_dnn && !dnn_ok) printf("cuDNN %s: set-up failed\n", c.name);
        if (dnn_ok) {
            k.v = CUDNN;
            dnn_ms = bk_median_ms(run, &k, 20);
        }
#endif
        for (int j = 0; vars[i][j] >= 0; j++) {
            k.v = vars[i][j];
            double ms;
            if (k.v == CUDNN) {
                if (isnan(dnn_ms)) continue;
                ms = dnn_ms;
            } else {
                ms = bk_median_ms(run, &k, 20);
            }
            double tf = flops / (ms * 1e9), gb = bytes / (ms * 1e6);
            bk_row(csv, "%s/%s,%s,%s,%.4f,%.3f,%.1f,%.1f,%s,%.3f,%.3f,%.3f,%.2f\n",
                   c.name, vname[k.v], c.name, vname[k.v], ms, tf, gb, flops / bytes, limit,
                   t_lim / ms, tf / peak, gb / copy, dnn_ms / ms);
        }
#ifdef HAVE_CUDNN_H
        if (dnn_ok && dnn.ws) BOOK_CHECK(cudaFree(dnn.ws));
#endif
    }
    bk_csv_close(csv);
    BOOK_CHECK(cudaFree(x));
    BOOK_CHECK(cudaFree(y));
    BOOK_CHECK(cudaFree(work));
    BOOK_CHECK(cudaFree(f));
    BOOK_CHECK(cudaFree(g));
    return 0;
}
