// bench_softmax.cu -- the softmax chapter's measurements (make bench).
// Every row launcher on 8192x8192 and 65536x1024 floats, the whole-array
// softmax of 2^24 and 2^28 floats (two kernels, and one with a grid
// barrier), and cuDNN's softmax where the machine has it (not on 2^28),
// beside a device-to-device copy of 256 MB measured in the same run.
// Bytes are one read and one write per element.  The whole-array runs
// start with a cold L2 (bk_median_ms_cold): 2^24 floats, 64 MiB, is barely
// more than the L2, and back-to-back runs would find in it what the run
// before left.
#include "benchkit.h"
#include "common/book.h"
#include "softmax/softmax.h"
#include "variants.h"
#include <string.h>
#if __has_include(<cudnn.h>)
#include <cudnn.h>
#include <dlfcn.h>
#define HAVE_CUDNN_H 1
#endif

// The chapter's launchers (variants.h), with the names of their rows.
#define ENTRY(name, fn) {name, fn},
static const struct { const char *name; softmax_rows_fn fn; } row_fns[] =
    {SOFTMAX_ROW_VARIANTS(ENTRY)};
static const struct { const char *name; softmax_whole_fn fn; } whole_fns[] =
    {SOFTMAX_WHOLE_VARIANTS(ENTRY)};
static softmax_whole_fn whole_named(const char *name)
{
    for (const auto &w : whole_fns)
        if (!strcmp(w.name, name)) return w.fn;
    return NULL;
}

// A softmax of rows x cols floats: fn on the rows, or whole (not NULL)
// on all rows * cols elements as one distribution.
struct ctx {
    const float *x; float *y; size_t rows, cols;
    softmax_rows_fn fn; void *work; softmax_whole_fn whole;
};
static cudaError_t run(void *p)
{
    ctx *k = (ctx *)p;
    if (k->whole)
        return k->whole(k->x, k->y, k->rows * k->cols, k->work, 0);
    return k->fn(k->x, k->y, k->rows, k->cols, 0);
}

// An experiment, not a launcher: the L2's persisting set-aside given to
// the input through an access-policy window on the default stream, where
// the launchers launch.  False (and nothing set) where the device or the
// stream refuses.  hitRatio: the share of the window's lines that persist,
// as much as the set-aside holds; MISS: what the other lines are marked
// (streaming, evicted first, or normal).
static bool l2_window(const void *base, size_t bytes,
                      cudaAccessProperty miss)
{
    int dev, most = 0;
    BOOK_CHECK(cudaGetDevice(&dev));
    BOOK_CHECK(cudaDeviceGetAttribute(
        &most, cudaDevAttrMaxPersistingL2CacheSize, dev));
    if (most <= 0 || cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize,
                                        (size_t)most) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    cudaStreamAttrValue a = {};
    a.accessPolicyWindow.base_ptr = (void *)base;
    a.accessPolicyWindow.num_bytes = bytes;
    a.accessPolicyWindow.hitRatio =
        (float)(most < (double)bytes ? most / (double)bytes : 1.0);
    a.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    a.accessPolicyWindow.missProp = miss;
    if (cudaStreamSetAttribute(0, cudaStreamAttributeAccessPolicyWindow,
                               &a) != cudaSuccess) {
        (void)cudaGetLastError();
        BOOK_CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0));
        return false;
    }
    printf("L2 window: %zu bytes, %d persisting, hitRatio %.3f\n", bytes,
           most, a.accessPolicyWindow.hitRatio);
    return true;
}
// Everything back as it was: no window, no persisting lines, no set-aside.
static void l2_window_off(void)
{
    cudaStreamAttrValue a = {};
    a.accessPolicyWindow.num_bytes = 0;
    BOOK_CHECK(cudaStreamSetAttribute(0, cudaStreamAttributeAccessPolicyWindow,
                                      &a));
    BOOK_CHECK(cudaCtxResetPersistingL2Cache());
    BOOK_CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0));
}

#ifdef HAVE_CUDNN_H
// cuDNN is loaded at run time, so the bench links without it.
struct cudnn_api {
    decltype(&cudnnCreate) create;
    decltype(&cudnnCreateTensorDescriptor) create_desc;
    decltype(&cudnnSetTensor4dDescriptor) set_desc;
    decltype(&cudnnSoftmaxForward) softmax;
    cudnnHandle_t h; cudnnTensorDescriptor_t d;
};
static cudnn_api dnn;
static bool cudnn_load(void)
{
    void *lib = dlopen("libcudnn.so.9", RTLD_NOW);
    if (!lib) lib = dlopen("libcudnn.so", RTLD_NOW);
    if (!lib) return false;
    dnn.create = (decltype(dnn.create))dlsym(lib, "cudnnCreate");
    dnn.create_desc = (decltype(dnn.create_desc))dlsym(
        lib, "cudnnCreateTensorDescriptor");
    dnn.set_desc = (decltype(dnn.set_desc))dlsym(
        lib, "cudnnSetTensor4dDescriptor");
    dnn.softmax = (decltype(dnn.softmax))dlsym(lib, "cudnnSoftmaxForward");
    if (!dnn.create || !dnn.create_desc || !dnn.set_desc || !dnn.softmax)
        return false;
    return dnn.create(&dnn.h) == CUDNN_STATUS_SUCCESS &&
           dnn.create_desc(&dnn.d) == CUDNN_STATUS_SUCCESS;
}
struct dnn_ctx { const float *x; float *y; };
static cudaError_t run_cudnn(void *p)
{
    dnn_ctx *k = (dnn_ctx *)p;
    const float one = 1.0f, zero = 0.0f;
    cudnnStatus_t s = dnn.softmax(dnn.h, CUDNN_SOFTMAX_ACCURATE,
                                  CUDNN_SOFTMAX_MODE_INSTANCE, &one, dnn.d,
                                  k->x, &zero, dnn.d, k->y);
    return s == CUDNN_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown;
}
#endif

static cudaError_t nothing(void *) { return cudaSuccess; }
struct copy_ctx { void *dst; const void *src; size_t bytes; };
static cudaError_t run_copy(void *p)
{
    copy_ctx *c = (copy_ctx *)p;
    return cudaMemcpyAsync(c->dst, c->src, c->bytes,
                           cudaMemcpyDeviceToDevice);
}

// The shapes CSV: small (launch-bound), odd and headline shapes, rows
// (the cached row kernel) and whole arrays (the resident kernels), each
// against a copy of the same bytes in the same run, all of them timed one
// way: with a cold L2 (bk_median_ms_cold), whose flush kernel, enqueued
// before the first event, also hides the host's launch latency.
static void other_shapes(float *x, float *y, void *work)
{
    static const struct {
        const char *cls; size_t rows, cols; const char *variant;
    } sh[] = {
        {"small", 1, 4096, "cached"},
        {"small", 64, 1024, "cached"},
        {"small", 1, 4096, "whole-resident-fast"},
        {"small", 1, 65536, "whole-resident-fast"},
        {"odd", 1000, 1023, "cached"},
        {"odd", 4097, 8191, "cached"},
        {"odd", 1, 10000001, "whole-resident-fast"},
        {"odd", 1, 10000001, "whole-resident"},
        {"headline", 8192, 8192, "cached"},
        {"headline", 65536, 1024, "cached"},
        {"headline", 1, 16777216, "whole-resident-fast"},
        {"headline", 1, 16777216, "whole-resident"},
    };
    FILE *f = bk_shapes_open("softmax");
    for (const auto &s : sh) {
        char shape[32];
        snprintf(shape, sizeof shape, "%zux%zu", s.rows, s.cols);
        size_t bytes = s.rows * s.cols * sizeof(float);
        copy_ctx c = {y, x, bytes};
        ctx k = {x, y, s.rows, s.cols, softmax_rows_cached, work,
                 whole_named(s.variant)};          // NULL: the rows
        double ref_us = 1e3 * bk_median_ms_cold(run_copy, &c, 30);
        double us = 1e3 * bk_median_ms_cold(run, &k, 30);
        bk_shape_row(f, s.cls, shape, s.variant, us,
                     2.0 * bytes / (us * 1e3), "GB/s", "copy", ref_us);
    }
    bk_csv_close(f);
}

static FILE *csv;
static double copy_gbps;

static void report(const char *shape, const char *variant, size_t rows,
                   size_t cols, double ms)
{
    double bytes = 2.0 * rows * cols * sizeof(float);
    double gbps = bytes / (ms * 1e6);
    bk_row(csv, "%s/%s,%s,%s,%zu,%zu,%.4f,%.1f,%.3f\n", shape, variant,
           shape, variant, rows, cols, ms, gbps, gbps / copy_gbps);
}

// The device buffers of a run on up to n floats: the input x, random in
// [-10, 10] (seed 7), the output y and the launchers' workspace.
struct buffers { float *x, *y; void *work; };
static buffers buffers_for(size_t n)
{
    buffers b;
    BOOK_CHECK(cudaMalloc(&b.x, n * sizeof(float)));
    BOOK_CHECK(cudaMalloc(&b.y, n * sizeof(float)));
    BOOK_CHECK(cudaMalloc(&b.work, SOFTMAX_WORK_BYTES));
    bk_fill_random(b.x, n, -10, 10, 7);
    return b;
}

// bench --ncu VARIANT: one call of the whole-array launcher VARIANT on
// 2^24 floats, for tests/softmax/counters.sh.
static int ncu_one(int, char **args, void *)
{
    const int w = BK_NCU_PICK("variant", args[0], whole_fns);
    if (w < 0) return 2;
    const size_t len = (size_t)1 << 24;
    const buffers b = buffers_for(len);
    ctx k = {b.x, b.y, 1, len, NULL, b.work, whole_fns[w].fn};
    // Empty the L2 once, before all the kernels of the call, as the
    // cold runs do (ncu runs with --cache-control none, so the second
    // of two kernels finds in the L2 what the first left there).
    bk_median_ms_cold(nothing, NULL, 20);
    BOOK_CHECK(run(&k));
    return 0;
}

int main(int argc, char **argv)
{
    const size_t n = (size_t)8192 * 8192, bytes = n * sizeof(float);
    const size_t most = (size_t)1 << 28;     // the largest whole array
    const int ncu = bk_ncu(argc, argv, 1, 1, "VARIANT", ncu_one, NULL);
    if (ncu >= 0) return ncu;
    if (bk_shapes_only(argc, argv)) {
        const buffers b = buffers_for(n);
        other_shapes(b.x, b.y, b.work);
        return 0;
    }
    copy_gbps = bk_copy_gbps(bytes);
    csv = bk_csv_open("softmax",
                      "case,shape,variant,rows,cols,ms,gbps,of_copy");
    bk_row(csv, "copy,copy,copy,1,%zu,%.4f,%.1f,1.000\n", n,
           2.0 * bytes / (copy_gbps * 1e6), copy_gbps);
    const buffers b = buffers_for(most);
    float *x = b.x, *y = b.y;
    void *work = b.work;
#ifdef HAVE_CUDNN_H
    bool have_dnn = cudnn_load();
    if (!have_dnn) printf("cuDNN: not loadable, not measured\n");
#else
    printf("cuDNN: no cudnn.h at build time, not measured\n");
#endif
    const size_t shapes[2][2] = {{8192, 8192}, {65536, 1024}};
    for (int s = 0; s < 2; s++) {
        char shape[32];
        snprintf(shape, sizeof shape, "%zux%zu", shapes[s][0], shapes[s][1]);
        ctx k = {x, y, shapes[s][0], shapes[s][1], NULL, work, NULL};
        for (const auto &f : row_fns) {
            k.fn = f.fn;
            report(shape, f.name, k.rows, k.cols, bk_median_ms(run, &k, 30));
        }
#ifdef HAVE_CUDNN_H
        if (have_dnn && dnn.set_desc(dnn.d, CUDNN_TENSOR_NCHW,
                                     CUDNN_DATA_FLOAT, (int)k.rows,
                                     (int)k.cols, 1, 1) ==
                            CUDNN_STATUS_SUCCESS) {
            dnn_ctx c = {x, y};
            if (run_cudnn(&c) == cudaSuccess)   // probe once
                report(shape, "cudnn", k.rows, k.cols,
                   bk_median_ms(run_cudnn, &c, 30));
        }
#endif
    }
    // The whole array: 2^24 floats (the rows 1x16777216/...), then 2^28.
    // The L2 window, on 2^24 only: the two kernels and the fused one with
    // the rest of the input streaming, and the fused one with the rest
    // normal (-normal).
    static const struct {
        const char *variant; cudaAccessProperty miss; const char *tag;
    } windows[] = {{"whole", cudaAccessPropertyStreaming, ""},
                   {"whole-fused", cudaAccessPropertyStreaming, ""},
                   {"whole-fused", cudaAccessPropertyNormal, "-normal"}};
    const size_t whole = (size_t)1 << 24;
    for (size_t len = whole; len <= most; len <<= 4) {
        char shape[32];
        snprintf(shape, sizeof shape, "1x%zu", len);
        ctx k = {x, y, 1, len, NULL, work, NULL};
        for (const auto &w : whole_fns) {
            k.whole = w.fn;
            report(shape, w.name, 1, len, bk_median_ms_cold(run, &k, 30));
        }
        for (const auto &w : windows)
            if (len == whole && l2_window(x, len * sizeof(float), w.miss)) {
                char name[48];
                snprintf(name, sizeof name, "%s-l2window%s", w.variant,
                         w.tag);
                k.whole = whole_named(w.variant);
                report(shape, name, 1, len, bk_median_ms_cold(run, &k, 30));
                l2_window_off();
            }
#ifdef HAVE_CUDNN_H
        // cuDNN takes 35 ms on 2^24 (one instance of 2^24 channels); 2^28
        // would add half a second a run and say nothing new.
        if (len == whole && have_dnn &&
            dnn.set_desc(dnn.d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1,
                         (int)len, 1, 1) == CUDNN_STATUS_SUCCESS) {
            dnn_ctx c = {x, y};
            if (run_cudnn(&c) == cudaSuccess)
                report(shape, "cudnn", 1, len,
                       bk_median_ms_cold(run_cudnn, &c, 30));
        }
#endif
    }
    bk_csv_close(csv);
    other_shapes(x, y, work);
    BOOK_CHECK(cudaFree(x));
    BOOK_CHECK(cudaFree(y));
    BOOK_CHECK(cudaFree(work));
    return 0;
}
