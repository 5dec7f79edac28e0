// bench_conv.cu -- the convolution chapter's measurements (make bench).
// Five cases, the cheap ones first: conv2d 3072^2 with 15x15, conv1d
// n = 2^26 with k = 31, conv2d 8192^2 with 5x5, conv1d n = 2^24 with
// k = 2047, conv2d 8192^2 with 31x31 (and its separable Gaussian).  Each
// variant beside cuDNN (cudnnConvolutionForward, fp32 with CUDNN_FMA_MATH,
// its workspace included) where the machine has it, and beside two
// ceilings: the device-to-device copy, measured in this run, and the FMA
// peak that the memory chapter measured on this GPU (the fma_peak row of
// its memory.csv, read by bk_measured).  CUDNN_FMA_MATH, not
// CUDNN_DEFAULT_MATH: from compute capability 8.0 on, the default lets
// cuDNN run fp32 convolutions in TF32 on the tensor cores, and the
// comparison is fp32 against fp32 (PyTorch with TF32 off, which measured
// the chapter's targets, asks for CUDNN_FMA_MATH too).
//
// Timing: bk_timed_ms, the book's rule, stated in the renderer chapter:
// the median of 20 runs after 3 warm-ups when 20 runs fit in 200 ms,
// otherwise of as many as fit, at least 3, after one warm-up; the CSV's
// reps column says how many.
//
// cuDNN's algorithm: not cudnnFindConvolutionForwardAlgorithm.  Find runs
// every algorithm cuDNN has for the case, whatever requestedAlgoCount says
// (that only bounds how many results it returns), on workspaces it
// allocates itself, with no limit on time or memory; on a 1 x 2^24 image
// with a 1 x 2047 filter the first H200 run spent more than 225 s without
// leaving a trace of which algorithm.  Instead the bench lists the
// algorithms that cudnnGetConvolutionForwardAlgorithm_v7 returns, with
// their workspaces (cudnnGetConvolutionForwardWorkspaceSize), and times the
// supported ones itself in the heuristic's order: a candidate whose
// workspace passes kWsLimit (4 GiB) or cannot be allocated is skipped; each
// other is called once (cold) and, if that took at most kOnceMs (2 s),
// once more, the second time being its time (timed by benchkit's method:
// kernel-only, behind the gate); no further candidate starts
// once the search has spent kSearchMs (2 s).  The two FFT algorithms are
// not tried: where an H200 ran them (2026-12-01) they took 0.50 s and 1.49 s
// a call on 3072^2 with 15x15 and 8192^2 with 5x5, 400 and 1000 times
// the 1.24 and 1.41 ms of cuDNN's GEMM in the same search, and on 8192^2
// with 31x31 FFT_TILING's first call had not returned after 220 s (a call
// cannot be stopped from the host).  The fastest is kept, which is what
// Find would return among the algorithms tried.  Every candidate and its
// times go to stderr.
//
// Progress (bk_progress): a line on stderr, flushed, before and after
// every case and variant and every cuDNN call of the search, with the
// seconds since the start; and every 10 s a line naming what the bench is
// still doing.  A
// case's rows go to the CSV (and stdout), flushed, as soon as the case is
// done, so a killed run leaves them in NAME.tmp and in its log.
//
// Run time on an H200, from the FLOPs, the bytes and the rule above:
// about 10 s for the cases and shapes, most of it cuDNN in the last two
// cases (14.5 ms and 29.0 ms a call in the 2026-12-01 H200 run,
// convolution.csv: the search's 2 to 6 calls, then the timed calls, 13
// and 6 of them); about 15 s more for the constant-cache sweeps (estimated
// from that run's rates: 64 timings of at most 0.3 s, the slowest, the
// constant-memory kernels at 8192 taps, 0.7 s).
// Bytes: the input read once and the output written once;
// FLOPs: 2 x outputs x taps (the separable filter counted as the direct
// one, so that its rate compares).  limit is the roofline's bound for the
// case, max(bytes / copy, flops / peak), and of_limit = limit time / time.
// Writes figures/data/$BOOK_GPU/convolution.csv (one row a case and
// variant), convolution-ceilings.csv and convolution-shapes.csv
// (run_shapes; bench --shapes writes only that) and
// convolution-constcache.csv (run_constcache, about 20 s more; bench
// --constcache writes only that).  bench --ncu CASE VARIANT runs one call
// and exits (for counters.sh and Nsight Compute).
#include "benchkit.h"
#include "common/book.h"
#include "variants.h"
#include <math.h>
#include <string.h>
#if __has_include(<cudnn.h>)
#include <cudnn.h>
#define HAVE_CUDNN_H 1
#endif

struct conv_case {
    const char *name;
    size_t h, w, kh, kw;     // 1D: h = kh = 1
};
struct ctx {
    const float *x, *f, *g;  // input, filter, one separable factor
    float *y, *work;
    conv_case c;
    int v;                   // which variant
};
enum { NAIVE, CONST, ROTATED, TILED, WINDOW, BLOCKED, ROWS, SEPARABLE,
       CUDNN };
static const char *vname[] = {"naive", "const", "const-rotated", "tiled",
                              "window", "blocked", "rows", "separable",
                              "cudnn"};

#ifdef HAVE_CUDNN_H
// cuDNN is loaded at run time (bk_cudnn_open), so that the bench builds
// and runs without it.
struct cudnn_api {
    decltype(&cudnnCreate) create;
    decltype(&cudnnCreateTensorDescriptor) tdesc;
    decltype(&cudnnSetTensor4dDescriptor) set_t;
    decltype(&cudnnCreateFilterDescriptor) fdesc;
    decltype(&cudnnSetFilter4dDescriptor) set_f;
    decltype(&cudnnCreateConvolutionDescriptor) cdesc;
    decltype(&cudnnSetConvolution2dDescriptor) set_c;
    decltype(&cudnnSetConvolutionMathType) set_math;
    decltype(&cudnnGetConvolutionForwardAlgorithm_v7) heur;
    decltype(&cudnnGetConvolutionForwardWorkspaceSize) ws_size;
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
#define DNN_SYM(field, name) BK_CUDNN_SYM(dnn.field, name)
static bool cudnn_load(void)
{
    if (!bk_cudnn_open()) return false;
    bool ok = DNN_SYM(create, "cudnnCreate") &&
              DNN_SYM(tdesc, "cudnnCreateTensorDescriptor") &&
              DNN_SYM(set_t, "cudnnSetTensor4dDescriptor") &&
              DNN_SYM(fdesc, "cudnnCreateFilterDescriptor") &&
              DNN_SYM(set_f, "cudnnSetFilter4dDescriptor") &&
              DNN_SYM(cdesc, "cudnnCreateConvolutionDescriptor") &&
              DNN_SYM(set_c, "cudnnSetConvolution2dDescriptor") &&
              DNN_SYM(set_math, "cudnnSetConvolutionMathType") &&
              DNN_SYM(heur, "cudnnGetConvolutionForwardAlgorithm_v7") &&
              DNN_SYM(ws_size, "cudnnGetConvolutionForwardWorkspaceSize") &&
              DNN_SYM(fwd, "cudnnConvolutionForward");
    return ok && dnn.create(&dnn.h) == CUDNN_STATUS_SUCCESS &&
           dnn.tdesc(&dnn.xd) == CUDNN_STATUS_SUCCESS &&
           dnn.tdesc(&dnn.yd) == CUDNN_STATUS_SUCCESS &&
           dnn.fdesc(&dnn.fd) == CUDNN_STATUS_SUCCESS &&
           dnn.cdesc(&dnn.cd) == CUDNN_STATUS_SUCCESS;
}
static const char *algo_name[] = {
    "IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT", "FFT",
    "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"};
static const char *aname(int a)
{
    return a >= 0 && a < CUDNN_CONVOLUTION_FWD_ALGO_COUNT ? algo_name[a] : "?";
}
// The limits of the search (see the header).
static const size_t kWsLimit = (size_t)4 << 30;   // bytes of workspace
static const double kOnceMs = 2000;   // a first call this slow: no second
static const double kSearchMs = 2000; // no new candidate after this long
// One call of cudnnConvolutionForward with algorithm ALGO and workspace
// WS, timed with events; a negative time if cuDNN refuses it.
static double cudnn_call_ms(const float *x, const float *f, float *y,
                            cudnnConvolutionFwdAlgo_t algo, void *ws,
                            size_t ws_bytes, cudnnStatus_t *st)
{
    const float one = 1.0f, zero = 0.0f;
    cudaEvent_t a, b;
    float ms = 0;
    BOOK_CHECK(cudaEventCreate(&a));
    BOOK_CHECK(cudaEventCreate(&b));
    BOOK_CHECK(cudaEventRecord(a));
    *st = dnn.fwd(dnn.h, &one, dnn.xd, x, dnn.fd, f, dnn.cd, algo, ws,
                  ws_bytes, &zero, dnn.yd, y);
    BOOK_CHECK(cudaEventRecord(b));
    BOOK_CHECK(cudaEventSynchronize(b));
    BOOK_CHECK(cudaGetLastError());
    BOOK_CHECK(cudaEventElapsedTime(&ms, a, b));
    BOOK_CHECK(cudaEventDestroy(a));
    BOOK_CHECK(cudaEventDestroy(b));
    return *st == CUDNN_STATUS_SUCCESS ? ms : -1.0;
}
// The second call of a candidate, timed by benchkit's method in force
// (bk_event_ms: kernel-only, one call behind the gate), so that the
// search compares the algorithms' GPU time, not cuDNN's host work.  The
// first call (cudnn_call_ms, above) stays outside the gate: it may set
// things up and wait for the device.
struct dnn_call {
    const float *x, *f;
    float *y;
    cudnnConvolutionFwdAlgo_t algo;
    void *ws;
    size_t ws_bytes;
    cudnnStatus_t st;
};
static cudaError_t run_dnn_call(void *p)
{
    dnn_call *c = (dnn_call *)p;
    const float one = 1.0f, zero = 0.0f;
    c->st = dnn.fwd(dnn.h, &one, dnn.xd, c->x, dnn.fd, c->f, dnn.cd, c->algo,
                    c->ws, c->ws_bytes, &zero, dnn.yd, c->y);
    return c->st == CUDNN_STATUS_SUCCESS ? cudaGetLastError()
                                         : cudaErrorUnknown;
}
static double cudnn_held_ms(const float *x, const float *f, float *y,
                            cudnnConvolutionFwdAlgo_t algo, void *ws,
                            size_t ws_bytes, cudnnStatus_t *st)
{
    dnn_call c = {x, f, y, algo, ws, ws_bytes, CUDNN_STATUS_SUCCESS};
    const double ms = bk_event_ms(run_dnn_call, &c);
    *st = c.st;
    return ms;
}
// Describe one case (N = C = K = 1, valid cross-correlation, fp32 on the
// FMA units, no TF32) and pick the fastest algorithm of the bounded search
// described in the header; false if cuDNN fails or no candidate runs.
static bool cudnn_setup(const conv_case &c, const float *x, const float *f,
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
    bk_progress("%s/cudnn: heuristic list (GetConvolutionForwardAlgorithm_v7)",
                c.name);
    cudnnStatus_t hs = dnn.heur(dnn.h, dnn.xd, dnn.fd, dnn.cd, dnn.yd,
                                CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &got, perf);
    if (hs != CUDNN_STATUS_SUCCESS || got < 1) {
        bk_progress("%s/cudnn: heuristic failed, status %d", c.name, (int)hs);
        return false;
    }
    size_t ws[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    for (int i = 0; i < got; i++) {
        ws[i] = 0;
        cudnnStatus_t s = dnn.ws_size(dnn.h, dnn.xd, dnn.fd, dnn.cd, dnn.yd,
                                      perf[i].algo, &ws[i]);
        if (s != CUDNN_STATUS_SUCCESS) ws[i] = SIZE_MAX;
        bk_progress("%s/cudnn: candidate %d: algo %d %s, status %d, math %d, "
                    "workspace %.3f MiB (status %d; heuristic says %.3f MiB)",
                    c.name, i, (int)perf[i].algo, aname(perf[i].algo),
                    (int)perf[i].status, (int)perf[i].mathType,
                    s == CUDNN_STATUS_SUCCESS ? ws[i] / 1048576.0 : -1.0,
                    (int)s,
                    perf[i].memory / 1048576.0);
    }
    double best = INFINITY, spent = 0;
    dnn.ws = NULL;
    dnn.ws_bytes = 0;
    for (int i = 0; i < got; i++) {
        const int al = (int)perf[i].algo;
        const char *why = NULL;
        if (perf[i].status != CUDNN_STATUS_SUCCESS) why = "not supported";
        else if (perf[i].mathType == CUDNN_TENSOR_OP_MATH ||
                 perf[i].mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION)
            why = "tensor-core math";
        else if (perf[i].algo == CUDNN_CONVOLUTION_FWD_ALGO_FFT ||
                 perf[i].algo == CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING)
            why = "FFT: not tried (see the header)";
        else if (ws[i] == SIZE_MAX) why = "no workspace size";
        else if (ws[i] > kWsLimit) why = "workspace over 4 GiB";
        else if (spent > kSearchMs) why = "search time spent";
        void *w = NULL;
        if (!why && ws[i] && cudaMalloc(&w, ws[i]) != cudaSuccess) {
            (void)cudaGetLastError();
            w = NULL;
            why = "workspace not allocated";
        }
        if (why) {
            bk_progress("%s/cudnn: algo %d %s skipped: %s", c.name, al,
                        aname(al), why);
            continue;
        }
        cudnnStatus_t st;
        bk_progress("%s/cudnn: algo %d %s: first call", c.name, al, aname(al));
        double t1 = cudnn_call_ms(x, f, y, perf[i].algo, w, ws[i], &st);
        double t = t1;
        spent += t1 > 0 ? t1 : 0;
        if (t1 >= 0 && t1 <= kOnceMs) {
            bk_progress("%s/cudnn: algo %d %s: first call %.3f ms, second call",
                        c.name, al, aname(al), t1);
            t = cudnn_held_ms(x, f, y, perf[i].algo, w, ws[i], &st);
            spent += t > 0 ? t : 0;
        }
        bk_progress("%s/cudnn: algo %d %s: %.3f ms%s (first call %.3f ms), "
                    "status %d", c.name, al, aname(al), t,
                    t1 > kOnceMs ? ", one call only" : "", t1, (int)st);
        if (t >= 0 && t < best) {
            if (dnn.ws) BOOK_CHECK(cudaFree(dnn.ws));
            best = t;
            dnn.algo = perf[i].algo;
            dnn.ws = w;
            dnn.ws_bytes = ws[i];
        } else if (w) {
            BOOK_CHECK(cudaFree(w));
        }
    }
    if (isinf(best)) return false;
    printf("cuDNN %s: algorithm %d (%s), workspace %zu bytes, %.3f ms in the "
           "search\n", c.name, (int)dnn.algo, aname(dnn.algo), dnn.ws_bytes,
           best);
    fflush(stdout);
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

// A kind's launcher for the case: the 1D one of variants.h for a 1D case,
// its 2D one otherwise; the separable filter and cuDNN beside them.
#define CONV_RUN_1D(id, name, fn) \
    case id: return fn(k->x, n, k->f, kk, k->y, 0);
#define CONV_RUN_2D(id, name, fn) \
    case id: return fn(k->x, c.h, c.w, k->f, c.kh, c.kw, k->y, 0);
static cudaError_t run(void *p)
{
    ctx *k = (ctx *)p;
    const conv_case &c = k->c;
    size_t n = c.w, kk = c.kw;
    if (k->v == SEPARABLE)
        return conv2d_separable(k->x, c.h, c.w, k->g, c.kh, k->g, c.kw,
                                k->work, k->y, 0);
#ifdef HAVE_CUDNN_H
    if (k->v == CUDNN) return run_cudnn(k);
#endif
    if (c.h == 1) {
        switch (k->v) { CONV1D_VARIANTS(CONV_RUN_1D) }
    } else {
        switch (k->v) { CONV2D_VARIANTS(CONV_RUN_2D) }
    }
    return cudaErrorInvalidValue;
}

// The kinds' names above are variants.h's, which the test uses too.
#define CONV_NAME_AGREES(id, name, fn) ok = ok && strcmp(vname[id], name) == 0;
static bool names_agree(void)
{
    bool ok = true;
    CONV1D_VARIANTS(CONV_NAME_AGREES)
    CONV2D_VARIANTS(CONV_NAME_AGREES)
    return ok;
}

// The FMA peak, TFLOP/s: the memory chapter's measurement on this GPU.
static const char *const kPeakCsv = "memory.csv",
                        *const kPeakRow = "variant=fma_peak",
                        *const kPeakCol = "tflops";

// The cheap cases first, so that a run stopped midway has them.
static const conv_case cases[] = {
    {"2d-3072-15x15", 3072, 3072, 15, 15},
    {"1d-64M-k31", 1, (size_t)1 << 26, 1, 31},
    {"2d-8192-5x5", 8192, 8192, 5, 5},
    {"1d-16M-k2047", 1, (size_t)1 << 24, 1, 2047},
    {"2d-8192-31x31", 8192, 8192, 31, 31},
};
static const int kCases = sizeof cases / sizeof cases[0];

// bench --ncu CASE VARIANT: one call of VARIANT on CASE (a kernel of this
// file, not cuDNN), then exit: for tests/convolution/counters.sh,
// which reads Nsight Compute's counters of that launch.
static int ncu_one(int, char **args, void *)
{
    const int c = BK_NCU_PICK("case", args[0], cases);
    const int v = bk_ncu_pick("variant", args[1], vname, CUDNN, sizeof *vname);
    if (c < 0 || v < 0) return 2;
    ctx k;
    memset(&k, 0, sizeof k);
    k.c = cases[c];
    k.v = v;
    size_t n = k.c.h * k.c.w;
    float *x, *y, *f, *g, *work;
    BOOK_CHECK(cudaMalloc(&x, n * sizeof(float)));
    BOOK_CHECK(cudaMalloc(&y, n * sizeof(float)));
    BOOK_CHECK(cudaMalloc(&work, n * sizeof(float)));
    BOOK_CHECK(cudaMalloc(&f, CONV_MAX_TAPS * sizeof(float)));
    BOOK_CHECK(cudaMalloc(&g, 64 * sizeof(float)));
    bk_fill_random(x, n, -1, 1, 11);
    bk_fill_random(f, CONV_MAX_TAPS, -1, 1, 12);
    bk_fill_random(g, 64, 0, 1, 13);
    k.x = x; k.y = y; k.f = f; k.g = g; k.work = work;
    BOOK_CHECK(run(&k));
    BOOK_CHECK(cudaDeviceSynchronize());
    BOOK_CHECK(cudaFree(x));
    BOOK_CHECK(cudaFree(y));
    BOOK_CHECK(cudaFree(work));
    BOOK_CHECK(cudaFree(f));
    BOOK_CHECK(cudaFree(g));
    return 0;
}

// Other shapes: small (launch-bound), odd (no multiple of 4 or
// of a tile) and headline, each with the chapter's best kernel for its
// kind (2D: rows; 1D with 31 taps: const; 1D with 2047 taps: window)
// against cuDNN, searched as above, and cuDNN against the roofline bound
// (bytes over the copy or FLOPs over the FMA peak, whichever is slower).
// Writes convolution-shapes.csv; bench --shapes runs only this.
struct shape { const char *cls; conv_case c; int v; };
static const shape shapes[] = {
    {"small", {"2d-64x64-5x5", 64, 64, 5, 5}, ROWS},
    {"small", {"2d-256x256-15x15", 256, 256, 15, 15}, ROWS},
    {"small", {"1d-4096-k31", 1, 4096, 1, 31}, CONST},
    {"odd", {"2d-1000x777-5x5", 1000, 777, 5, 5}, ROWS},
    {"odd", {"2d-1001x999-15x15", 1001, 999, 15, 15}, ROWS},
    {"odd", {"1d-1000003-k31", 1, 1000003, 1, 31}, CONST},
    {"odd", {"1d-1000003-k2047", 1, 1000003, 1, 2047}, WINDOW},
    {"headline", {"2d-3072-15x15", 3072, 3072, 15, 15}, ROWS},
    {"headline", {"2d-8192-5x5", 8192, 8192, 5, 5}, ROWS},
    {"headline", {"1d-64M-k31", 1, (size_t)1 << 26, 1, 31}, CONST},
};
static void run_shapes(ctx &k, bool have_dnn, double copy, double peak)
{
    FILE *csv = bk_shapes_open("convolution");
    fprintf(csv, "# reference: cudnn for the kernel's rows, the roofline bound "
                 "(copy %.1f GB/s in this run, FMA peak %.2f TFLOP/s from "
                 "memory.csv) for cudnn's\n", copy, peak);
    bk_measured_note(csv, kPeakCsv, kPeakRow, kPeakCol, peak);
    for (const shape &s : shapes) {
        const conv_case &c = s.c;
        k.c = c;
        size_t ho = c.h - c.kh + 1, wo = c.w - c.kw + 1;
        double flops = 2.0 * ho * wo * c.kh * c.kw;
        double bytes = 4.0 * (c.h * c.w + ho * wo);
        double t_lim = fmax(bytes / (copy * 1e6), flops / (peak * 1e9));
        bool fma = flops / (peak * 1e9) > bytes / (copy * 1e6);
        auto rate = [&](double us) {       // TFLOP/s or GB/s
            return fma ? flops / (us * 1e6) : bytes / (us * 1e3);
        };
        const char *unit = fma ? "TFLOP/s" : "GB/s";
        int reps;
        bk_progress("shapes %s/%s: start", c.name, vname[s.v]);
        k.v = s.v;
        double us = 1e3 * bk_timed_ms(run, &k, &reps, NULL);
        double dnn_us = NAN;
#ifdef HAVE_CUDNN_H
        if (have_dnn && cudnn_setup(c, k.x, k.f, k.y)) {
            k.v = CUDNN;
            dnn_us = 1e3 * bk_timed_ms(run, &k, &reps, NULL);
            if (dnn.ws) BOOK_CHECK(cudaFree(dnn.ws));
            dnn.ws = NULL;
        }
#else
        (void)have_dnn;
#endif
        bk_shape_row(csv, s.cls, c.name, vname[s.v], us, rate(us), unit,
                     "cudnn", dnn_us);
        if (!isnan(dnn_us))
            bk_shape_row(csv, s.cls, c.name, "cudnn", dnn_us,
                         rate(dnn_us), unit, "roofline", 1e3 * t_lim);
    }
    bk_csv_close(csv);
}

// bench --constcache: does the constant cache's working set (the CUDA
// Programming Guide's table gives 8 KB per SM; the 2047-tap filter of the
// headline case is 8188 bytes) explain why the constant-memory kernels
// lose to the naive one?  (On the H200 it does not: they lose from 255
// taps on, and the probe's rate does not change with the span; the
// chapter says so.)  Two sweeps, timed by bk_timed_ms, into
// convolution-constcache.csv:
//  - by filter length: the 1D kernels that read the taps from constant
//    memory (const, tiled, window) and the naive one, whose tap loads go
//    through L1, on n = 2^24 inputs (the headline case's) with k from 31
//    to CONV_MAX_TAPS taps, filters of 124 bytes to 32 KiB; each call
//    copies its filter into constant memory, as in the main table;
//  - by working set alone: probe_span_kernel below, the loop of
//    conv1d_const_kernel with k = 4096 taps an output on n = 2^22 inputs,
//    of which tap j reads c_probe[j mod span]: the same FMAs, loads and
//    instructions at every span, only the number of distinct constants
//    read changes (its filter is copied once, outside the timing).  Its
//    loop, unrolled by 16 as conv1d_const_kernel's, reads each tap with a
//    ULDC into a uniform register as the chapter's kernels do, but spends
//    more instructions on the index (sm_90, CUDA 13.0: 135 for 16 FFMA,
//    against 67), so its own rate is lower; the sweep is about how that
//    rate changes with the span.
// Columns: id (variant/k for the first sweep, probe/span), series (0
// naive, 1 const, 2 tiled, 3 window, 4 probe: for the figure), variant,
// k (taps an output), span (distinct taps read: k, or the probe's span),
// bytes (4 span: the working set), n, ms, reps, tflops (2 (n - k + 1) k
// FLOPs over the time), of_peak (over the memory chapter's FMA peak).
__constant__ float c_probe[CONV_MAX_TAPS];

__global__ void probe_span_kernel(const float *x, unsigned k, unsigned span,
                                  float *y, size_t m)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= m) return;
    float s = 0.0f;
    unsigned t = 0;                                 // j mod span
    for (unsigned j = 0; j < k; j++) {
        s = fmaf(x[i + j], c_probe[t], s);
        t = t + 1 == span ? 0 : t + 1;
    }
    y[i] = s;
}

struct probe_ctx { const float *x; float *y; size_t m; unsigned k, span; };
static cudaError_t run_probe(void *p)
{
    const probe_ctx *c = (const probe_ctx *)p;
    const unsigned block = 256;                     // as conv1d_const's
    probe_span_kernel<<<(unsigned)ceil_div(c->m, block), block>>>(
        c->x, c->k, c->span, c->y, c->m);
    return cudaGetLastError();
}

static void run_constcache(ctx &k, double peak)
{
    FILE *csv = bk_csv_open("convolution-constcache",
                            "id,series,variant,k,span,bytes,n,ms,reps,"
                            "tflops,of_peak");
    fprintf(csv, "# FMA peak %.2f TFLOP/s, the memory chapter's; the "
                 "kernels' calls copy the filter into constant memory, the "
                 "probe's do not\n", peak);
    bk_measured_note(csv, kPeakCsv, kPeakRow, kPeakCol, peak);
    static const size_t ks[] = {31, 255, 511, 1023, 1535, 1791, 1983,
                                2047, 2111, 2559, 4095, CONV_MAX_TAPS};
    static const int vs[] = {NAIVE, CONST, TILED, WINDOW};
    const size_t n = (size_t)1 << 24;
    for (int si = 0; si < 4; si++) {       // one variant's rows together
        for (size_t kk : ks) {
            k.c = conv_case{"constcache", 1, n, 1, kk};
            k.v = vs[si];
            int reps;
            bk_progress("constcache k=%zu/%s: start", kk, vname[k.v]);
            double ms = bk_timed_ms(run, &k, &reps, NULL);
            double tf = 2.0 * (n - kk + 1) * kk / (ms * 1e9);
            bk_row(csv, "%s/%zu,%d,%s,%zu,%zu,%zu,%zu,%.4f,%d,%.3f,%.4f\n",
                   vname[k.v], kk, si, vname[k.v], kk, kk, 4 * kk, n, ms,
                   reps, tf, tf / peak);
        }
    }
    static const unsigned spans[] = {256, 512, 1024, 1536, 1792, 1920, 1984,
                                     2016, 2047, 2048, 2080, 2112, 2304,
                                     2560, 3072, 4096};
    probe_ctx pc = {k.x, k.y, 0, 4096, 0};
    const size_t pn = (size_t)1 << 22;
    pc.m = pn - pc.k + 1;
    BOOK_CHECK(cudaMemcpyToSymbol(c_probe, k.f, CONV_MAX_TAPS * sizeof(float),
                                  0, cudaMemcpyDeviceToDevice));
    for (unsigned sp : spans) {
        pc.span = sp;
        int reps;
        bk_progress("constcache probe span=%u: start", sp);
        double ms = bk_timed_ms(run_probe, &pc, &reps, NULL);
        double tf = 2.0 * pc.m * pc.k / (ms * 1e9);
        bk_row(csv, "probe/%u,4,probe,%u,%u,%u,%zu,%.4f,%d,%.3f,%.4f\n", sp,
               pc.k, sp, 4 * sp, pn, ms, reps, tf, tf / peak);
    }
    bk_csv_close(csv);
}

int main(int argc, char **argv)
{
    if (!names_agree()) {
        fprintf(stderr, "bench_conv: vname and variants.h disagree\n");
        return 2;
    }
    const int ncu = bk_ncu(argc, argv, 2, 2, "CASE VARIANT", ncu_one, NULL);
    if (ncu >= 0) return ncu;
    // --constcache: the constant-cache sweeps only, without cuDNN.
    const bool cc_only = argc == 2 && strcmp(argv[1], "--constcache") == 0;
    bk_progress_start("bench_conv", 10);
    const size_t most = (size_t)1 << 26;            // floats: 256 MiB
    bk_progress("ceilings: the copy, and the FMA peak of memory.csv");
    double copy = bk_copy_gbps((size_t)1 << 30);    // GB/s, read + write
    double peak = bk_measured(kPeakCsv, kPeakRow, kPeakCol);
    if (!(peak > 0)) {
        fprintf(stderr, "bench_conv: every bound needs the FMA peak; run "
                        "the memory chapter's bench first\n");
        return 1;
    }
    bk_progress("ceilings: copy %.1f GB/s, FMA peak %.2f TFLOP/s", copy, peak);
    static const int vars[][8] = {
        {NAIVE, TILED, BLOCKED, ROWS, CUDNN, -1},
        {NAIVE, CONST, ROTATED, TILED, WINDOW, CUDNN, -1},
        {NAIVE, TILED, BLOCKED, ROWS, SEPARABLE, CUDNN, -1},
        {NAIVE, CONST, TILED, WINDOW, CUDNN, -1},
        {TILED, BLOCKED, ROWS, SEPARABLE, CUDNN, -1},
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
    bool have_dnn = false;
    if (!cc_only) {
        bk_progress("cuDNN: loading");
#ifdef HAVE_CUDNN_H
        have_dnn = cudnn_load();
#endif
        bk_progress("cuDNN: %s",
                    have_dnn ? "loaded" : "not loadable, not measured");
        if (!have_dnn) printf("cuDNN: not loadable, not measured\n");
    }
    // --shapes: the shapes CSV only, none of the long cases.
    const bool only = bk_shapes_only(argc, argv);
    FILE *csv = NULL;
    if (cc_only) {
        run_constcache(k, peak);
    } else if (only) {
        run_shapes(k, have_dnn, copy, peak);
    } else {
        csv = bk_csv_open("convolution",
                          "id,case,variant,ms,reps,tflops,gbps,"
                          "flop_per_byte,limit,of_limit,of_peak,of_copy,"
                          "of_cudnn");
        fprintf(csv, "# ceilings: copy %.1f GB/s measured in this run, FMA "
                     "peak %.2f TFLOP/s from memory.csv "
                     "(convolution-ceilings.csv)\n", copy, peak);
        bk_measured_note(csv, kPeakCsv, kPeakRow, kPeakCol, peak);
        fflush(csv);
        FILE *cf = bk_csv_open("convolution-ceilings", "ceiling,value,unit");
        bk_measured_note(cf, kPeakCsv, kPeakRow, kPeakCol, peak);
        bk_row(cf, "copy,%.1f,GB/s\n", copy);
        bk_row(cf, "fma_peak,%.2f,TFLOP/s\n", peak);
        bk_row(cf, "ridge,%.2f,FLOP/byte\n", peak * 1e3 / copy);
        bk_csv_close(cf);
    }
    for (int i = 0; csv && i < kCases; i++) {
        const conv_case &c = cases[i];
        k.c = c;
        size_t ho = c.h - c.kh + 1, wo = c.w - c.kw + 1;
        double flops = 2.0 * ho * wo * c.kh * c.kw;
        double bytes = 4.0 * (c.h * c.w + ho * wo);
        double t_mem = bytes / (copy * 1e6), t_fma = flops / (peak * 1e9);
        const char *limit = t_fma > t_mem ? "fma" : "copy";
        double t_lim = t_fma > t_mem ? t_fma : t_mem;
        double case_at = bk_elapsed_s();
        bk_progress("%s: start (bound %s, %.3f ms)", c.name, limit, t_lim);
        // The kernels first, cuDNN last; the rows when all are timed (each
        // needs cuDNN's time for of_cudnn).
        double ms[8];
        int reps[8];
        for (int j = 0; vars[i][j] >= 0; j++) {
            k.v = vars[i][j];
            ms[j] = NAN;
            reps[j] = 0;
            double at = bk_elapsed_s(), first = NAN;
            if (k.v == CUDNN) {
#ifdef HAVE_CUDNN_H
                if (!have_dnn) continue;
                bk_progress("%s/cudnn: algorithm search", c.name);
                if (!cudnn_setup(c, x, f, y)) {
                    bk_progress("%s/cudnn: set-up failed, not measured",
                                c.name);
                    printf("cuDNN %s: set-up failed\n", c.name);
                    fflush(stdout);
                    continue;
                }
                at = bk_elapsed_s();
#else
                continue;
#endif
            }
            bk_progress("%s/%s: start", c.name, vname[k.v]);
            ms[j] = bk_timed_ms(run, &k, &reps[j], &first);
            bk_progress("%s/%s: %.4f ms a call (median of %d, first call %.4f "
                        "ms), %.2f s", c.name, vname[k.v], ms[j], reps[j],
                        first, bk_elapsed_s() - at);
        }
        double dnn_ms = NAN;
        for (int j = 0; vars[i][j] >= 0; j++)
            if (vars[i][j] == CUDNN) dnn_ms = ms[j];
        for (int j = 0; vars[i][j] >= 0; j++) {
            if (isnan(ms[j])) continue;
            const char *v = vname[vars[i][j]];
            double tf = flops / (ms[j] * 1e9), gb = bytes / (ms[j] * 1e6);
            bk_row(csv, "%s/%s,%s,%s,%.4f,%d,%.3f,%.1f,%.1f,%s,%.3f,%.3f,%.3f,"
                        "%.2f\n", c.name, v, c.name, v, ms[j], reps[j], tf,
                   gb, flops / bytes, limit, t_lim / ms[j], tf / peak,
                   gb / copy, dnn_ms / ms[j]);
        }
#ifdef HAVE_CUDNN_H
        if (dnn.ws) BOOK_CHECK(cudaFree(dnn.ws));
        dnn.ws = NULL;
#endif
        bk_progress("%s: done, rows written, %.2f s", c.name,
                    bk_elapsed_s() - case_at);
    }
    if (csv) {
        bk_csv_close(csv);
        run_shapes(k, have_dnn, copy, peak);
        run_constcache(k, peak);
    }
    BOOK_CHECK(cudaFree(x));
    BOOK_CHECK(cudaFree(y));
    BOOK_CHECK(cudaFree(work));
    BOOK_CHECK(cudaFree(f));
    BOOK_CHECK(cudaFree(g));
    bk_progress("finished");
    bk_progress_stop();
    return 0;
}
