// softmax_coop.cu -- a whole array in one cooperative kernel.
#include "softmax/softmax_parts.cuh"
#include "common/once_per_device.cuh"
#include <cooperative_groups.h>

// <<Softmax of one whole array in one kernel>>
namespace cg = cooperative_groups;
static const int kFusedU = 4;     // float4 loads in flight per thread

// Block b's slice [lo, lo + len) of n4 float4s: as even as can be.
__device__ __forceinline__ void fused_slice(size_t n4, size_t *lo,
                                            size_t *len)
{
    size_t g = gridDim.x, b = blockIdx.x, q = n4 / g, r = n4 % g;
    *lo = b * q + (b < r ? b : r);
    *len = q + (b < r);
}

// <<Add four scores to a pair, rescaling only when the maximum grows>>
// The weight with the hardware exponential: 2 + 1.173|x - m| ulp at most.
__device__ __forceinline__ float md_weight_fast(float x, float m)
{
    if (x == -INFINITY) return 0.0f;
    return x == m ? 1.0f : __expf(x - m);
}
__device__ __forceinline__ md_t md_push4(md_t s, float4 v)
{
    const float mv = max4(v);
    if (mv > s.m) {                      // rare once the maximum settles
        s.d *= md_weight_fast(s.m, mv);
        s.m = mv;
    }
    s.d += md_weight_fast(v.x, s.m) + md_weight_fast(v.y, s.m) +
           md_weight_fast(v.z, s.m) + md_weight_fast(v.w, s.m);
    return s;
}

// <<The fused whole-array kernel>>
// How a float4 joins a pair: as a pair of its own (md_of4) combined in,
// or pushed in by md_push4 (see "A cheaper fold" below).
enum class Fold { of4, push4 };
template <Fold FOLD>
__global__ void __launch_bounds__(kSmBlock)
softmax_fused_kernel(const float *x, float *y, size_t n, bool vec,
                     md_t *part, size_t cache4)
{
    extern __shared__ float4 fused_cache[];   // the slice's head
    size_t n4 = vec ? n / 4 : 0, lo, len;
    fused_slice(n4, &lo, &len);
    size_t c = len < cache4 ? len : cache4;   // float4s kept on chip
    const float4 *xs = (const float4 *)x + lo;
    float4 *ys = (float4 *)y + lo;
    size_t i = blockIdx.x * (size_t)kSmBlock + threadIdx.x;
    size_t stride = (size_t)gridDim.x * kSmBlock;
    // <<Fused phase 1: fold the slice, keep its head on chip>>
    md_t s = md_identity();
    for (size_t k = threadIdx.x; k < len; k += kFusedU * kSmBlock) {
        float4 v[kFusedU];
    #pragma unroll
        for (int u = 0; u < kFusedU; u++) {
            size_t j = k + u * kSmBlock;
            v[u] = j < len ? xs[j] : neg_inf4();
        }
    #pragma unroll
        for (int u = 0; u < kFusedU; u++) {
            size_t j = k + u * kSmBlock;
            if (j < c) fused_cache[j] = v[u];
            s = FOLD == Fold::push4 ? md_push4(s, v[u])
                                    : md_combine(s, md_of4(v[u]));
        }
    }
    for (size_t k = 4 * n4 + i; k < n; k += stride) s = md_push(s, x[k]);
    s = md_block_reduce<kSmBlock>(s);
    if (threadIdx.x == 0) part[blockIdx.x] = s;
    cg::this_grid().sync();           // every block's pair is written
    // <<Fused phase 2: the total pair, then the probabilities>>
    md_t t = md_identity();
    for (unsigned k = threadIdx.x; k < gridDim.x; k += kSmBlock)
        t = md_combine(t, part[k]);
    t = md_block_reduce<kSmBlock>(t);     // the same (m, d) in every block
    float inv = md_inv(t);
    size_t rest = len - c;                // float4s to read again, backward
    for (size_t k = threadIdx.x; k < rest; k += kFusedU * kSmBlock) {
        float4 v[kFusedU];
    #pragma unroll
        for (int u = 0; u < kFusedU; u++) {
            size_t j = k + u * kSmBlock;
            v[u] = j < rest ? xs[len - 1 - j] : neg_inf4();
        }
    #pragma unroll
        for (int u = 0; u < kFusedU; u++) {
            size_t j = k + u * kSmBlock;
            if (j < rest) __stcs(ys + len - 1 - j, prob4(v[u], t.m, inv));
        }
    }
    for (size_t j = threadIdx.x; j < c; j += kSmBlock)
        __stcs(ys + j, prob4(fused_cache[j], t.m, inv));
    for (size_t k = 4 * n4 + i; k < n; k += stride)
        y[k] = md_weight(x[k], t.m) * inv;
}

// <<Plan the fused grid once>>
struct FusedPlan { int grid; size_t bytes; };  // grid 0: no cooperation

template <typename K> static cudaError_t coop_plan(K kernel, FusedPlan *p)
{
    int dev, coop, sms, per_sm, optin, reserved, fit_regs, fit;
    p->grid = 0;
    BOOK_TRY(cudaGetDevice(&dev));
    BOOK_TRY(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch,
                                    dev));
    if (!coop) return cudaSuccess;
    BOOK_TRY(book_sm_count(&sms));
    BOOK_TRY(cudaDeviceGetAttribute(
        &per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
    BOOK_TRY(cudaDeviceGetAttribute(
        &optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    BOOK_TRY(cudaDeviceGetAttribute(
        &reserved, cudaDevAttrReservedSharedMemoryPerBlock, dev));
    cudaFuncAttributes fa;
    BOOK_TRY(cudaFuncGetAttributes(&fa, kernel));
    BOOK_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &fit_regs, kernel, kSmBlock, 0));
    if (fit_regs < 1) return cudaSuccess;
    long share = per_sm / fit_regs - reserved - (long)fa.sharedSizeBytes;
    long most = optin - (long)fa.sharedSizeBytes;
    share = (share < most ? share : most) / 16 * 16;
    if (share < 16) return cudaSuccess;
    BOOK_TRY(cudaFuncSetAttribute(
        kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
        (int)cudaSharedmemCarveoutMaxShared));
    BOOK_TRY(cudaFuncSetAttribute(
        kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)share));
    BOOK_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &fit, kernel, kSmBlock, (size_t)share));
    long grid = (long)sms * fit;
    p->grid = (int)(grid > (long)kWholeBlocks ? kWholeBlocks : grid);
    p->bytes = (size_t)share;
    return cudaSuccess;
}
// Launch kernel cooperatively on stream: grid blocks of kSmBlock threads,
// bytes of dynamic shared memory, args its arguments.  A grid the device
// refuses (too large to be resident at once) runs as the two kernels
// instead.
template <typename K>
static cudaError_t coop_launch(K kernel, size_t grid, void **args,
                               size_t bytes, const float *x, float *y,
                               size_t n, void *work, cudaStream_t stream)
{
    BOOK_CLEAR_TO_LAUNCH();
    cudaError_t e = cudaLaunchCooperativeKernel(
        kernel, dim3((unsigned)grid), dim3(kSmBlock), args, bytes, stream);
    if (e == cudaErrorCooperativeLaunchTooLarge) {  // grid refused: 2 kernels
        (void)cudaGetLastError();
        return softmax_whole(x, y, n, work, stream);
    }
    BOOK_TRY(e);
    return cudaGetLastError();
}
template <Fold FOLD> static cudaError_t fused_plan(FusedPlan *p)
{
    return coop_plan(softmax_fused_kernel<FOLD>, p);
}

// <<Launch the fused whole-array softmax>>
template <Fold FOLD>
static cudaError_t launch_fused(const float *x, float *y, size_t n,
                                void *work, size_t cache_bytes,
                                cudaStream_t stream)
{
    if (n == 0) return cudaSuccess;
    if (!x || !y || !work || !is_aligned(work, 8) || !softmax_apart(x, y, n))
        return cudaErrorInvalidValue;
    static per_device<FusedPlan> plans;   // planned once a device
    FusedPlan plan;
    BOOK_TRY(once_per_device(plans, fused_plan<FOLD>, &plan));
    if (plan.grid == 0) return softmax_whole(x, y, n, work, stream);
    bool vec = is_aligned(x, 16) && is_aligned(y, 16);
    size_t grid = ceil_div(n, 4 * (size_t)kFusedU * kSmBlock);
    if (grid > (size_t)plan.grid) grid = (size_t)plan.grid;
    if (cache_bytes > plan.bytes) cache_bytes = plan.bytes;
    size_t cache4 = cache_bytes / sizeof(float4);
    md_t *part = whole_work_at(work);
    void *args[] = {&x, &y, &n, &vec, &part, &cache4};
    return coop_launch(softmax_fused_kernel<FOLD>, grid, args, plan.bytes,
                       x, y, n, work, stream);
}

extern "C" cudaError_t softmax_whole_fused_pairs(const float *x, float *y,
                                                 size_t n, void *work,
                                                 cudaStream_t stream)
{
    return launch_fused<Fold::of4>(x, y, n, work, SIZE_MAX, stream);
}

extern "C" cudaError_t softmax_whole_fused(const float *x, float *y,
                                           size_t n, void *work,
                                           cudaStream_t stream)
{
    return launch_fused<Fold::push4>(x, y, n, work, SIZE_MAX, stream);
}

extern "C" cudaError_t softmax_whole_fused_cache(const float *x, float *y,
                                                 size_t n, void *work,
                                                 size_t cache_bytes,
                                                 cudaStream_t stream)
{
    return launch_fused<Fold::push4>(x, y, n, work, cache_bytes, stream);
}

// <<Softmax of one whole array, most of it on chip>>
static const int kResidentR = 8;        // float4s a thread in registers
static const int kResidentBlocks = 4;   // blocks an SM: 64 registers each

__device__ __forceinline__ float weight4_fast(float4 v, float m)
{
    return md_weight_fast(v.x, m) + md_weight_fast(v.y, m) +
           md_weight_fast(v.z, m) + md_weight_fast(v.w, m);
}
// The exponential of the probabilities: expf, or __expf where the maximum
// m is finite (then -inf, m itself and NaN need no special case).
enum class Exp { exact, fast };
template <Exp EXP>
__device__ __forceinline__ float4 prob4_as(float4 v, float m, float inv)
{
    if (EXP == Exp::exact || !isfinite(m)) return prob4(v, m, inv);
    return make_float4(__expf(v.x - m) * inv, __expf(v.y - m) * inv,
                       __expf(v.z - m) * inv, __expf(v.w - m) * inv);
}

// <<Fold a group of float4s into a pair>>
template <int G>
__device__ __forceinline__ md_t md_fold_group(md_t s, const float4 (&v)[G])
{
    float mg = -INFINITY;                   // the group's maximum
#pragma unroll
    for (int g = 0; g < G; g++) mg = fmaxf(mg, max4(v[g]));
    if (mg > s.m) {                         // one rescale a group at most
        s.d *= md_weight_fast(s.m, mg);
        s.m = mg;
    }
    float a = 0.0f;
    if (isfinite(s.m)) {                    // no special case can arise
#pragma unroll
        for (int g = 0; g < G; g++)
            a += (__expf(v[g].x - s.m) + __expf(v[g].y - s.m)) +
                 (__expf(v[g].z - s.m) + __expf(v[g].w - s.m));
    } else {                                // m is +inf, or all are -inf
#pragma unroll
        for (int g = 0; g < G; g++) a += weight4_fast(v[g], s.m);
    }
    s.d += a;
    return s;
}

// <<The resident whole-array kernel>>
template <int R, Exp EXP>
__global__ void __launch_bounds__(kSmBlock, kResidentBlocks)
softmax_resident_kernel(const float *x, float *y, size_t n, bool vec,
                        md_t *part, size_t reg4, size_t cache4)
{
    extern __shared__ float4 resident_cache[];
    size_t n4 = vec ? n / 4 : 0, lo, len;
    fused_slice(n4, &lo, &len);
    const size_t nr = len < reg4 ? len : reg4;   // in registers
    const size_t rem = len - nr;                 // the rest of the slice
    const size_t c = rem < cache4 ? rem : cache4;  // in shared memory
    const float4 *xs = (const float4 *)x + lo, *xt = xs + nr;
    float4 *ys = (float4 *)y + lo, *yt = ys + nr;
    const unsigned t = threadIdx.x;
    size_t i = blockIdx.x * (size_t)kSmBlock + t;
    size_t stride = (size_t)gridDim.x * kSmBlock;
    // <<Resident phase 1: registers, shared memory, the stream>>
    float4 v[R];
    #pragma unroll
    for (int r = 0; r < R; r++) {         // R loads in flight at once
        size_t j = t + (size_t)r * kSmBlock;
        v[r] = j < nr ? xs[j] : neg_inf4();
    }
    md_t s = md_fold_group(md_identity(), v);
    for (size_t k = t; k < rem; k += kFusedU * kSmBlock) {
        float4 w[kFusedU];
    #pragma unroll
        for (int u = 0; u < kFusedU; u++) {
            size_t j = k + u * kSmBlock;
            w[u] = j < rem ? xt[j] : neg_inf4();
        }
    #pragma unroll
        for (int u = 0; u < kFusedU; u++) {
            size_t j = k + u * kSmBlock;
            if (j < c) resident_cache[j] = w[u];
        }
        s = md_fold_group(s, w);
    }
    for (size_t k = 4 * n4 + i; k < n; k += stride) s = md_push(s, x[k]);
    s = md_block_reduce<kSmBlock>(s);
    if (t == 0) part[blockIdx.x] = s;
    cg::this_grid().sync();           // every block's pair is written
    // <<Resident phase 2: registers, the stream backward, shared memory>>
    md_t tot = md_identity();
    for (unsigned k = t; k < gridDim.x; k += kSmBlock)
        tot = md_combine(tot, part[k]);
    tot = md_block_reduce<kSmBlock>(tot);  // the same (m, d) in every block
    const float inv = md_inv(tot);
    #pragma unroll
    for (int r = 0; r < R; r++) {         // nothing to load: store at once
        size_t j = t + (size_t)r * kSmBlock;
        if (j < nr) ys[j] = prob4_as<EXP>(v[r], tot.m, inv);
    }
    // <<Resident phase 2: the rest, read again backward>>
    const size_t rest = rem - c;          // read again, last read first
    for (size_t k = t; k < rest; k += kFusedU * kSmBlock) {
        float4 w[kFusedU];
    #pragma unroll
        for (int u = 0; u < kFusedU; u++) {
            size_t j = k + u * kSmBlock;
            w[u] = j < rest ? xt[rem - 1 - j] : neg_inf4();
        }
    #pragma unroll
        for (int u = 0; u < kFusedU; u++) {
            size_t j = k + u * kSmBlock;
            if (j < rest) yt[rem - 1 - j] = prob4_as<EXP>(w[u], tot.m, inv);
        }
    }
    for (size_t j = t; j < c; j += kSmBlock)
        yt[j] = prob4_as<EXP>(resident_cache[j], tot.m, inv);
    for (size_t k = 4 * n4 + i; k < n; k += stride)
        y[k] = md_weight(x[k], tot.m) * inv;
}

// <<Launch the resident whole-array softmax>>
template <Exp EXP> static cudaError_t resident_plan(FusedPlan *p)
{
    return coop_plan(softmax_resident_kernel<kResidentR, EXP>, p);
}

template <Exp EXP>
static cudaError_t launch_resident(const float *x, float *y, size_t n,
                                   void *work, size_t reg_bytes,
                                   size_t cache_bytes, cudaStream_t stream)
{
    if (n == 0) return cudaSuccess;
    if (!x || !y || !work || !is_aligned(work, 8) || !softmax_apart(x, y, n))
        return cudaErrorInvalidValue;
    static per_device<FusedPlan> plans;   // planned once a device
    FusedPlan plan;
    BOOK_TRY(once_per_device(plans, resident_plan<EXP>, &plan));
    if (plan.grid == 0) return softmax_whole(x, y, n, work, stream);
    bool vec = is_aligned(x, 16) && is_aligned(y, 16);
    size_t grid = ceil_div(n, 4 * (size_t)kFusedU * kSmBlock);
    if (grid > (size_t)plan.grid) grid = (size_t)plan.grid;
    size_t most_reg = (size_t)kResidentR * kSmBlock * sizeof(float4);
    size_t reg4 = (reg_bytes < most_reg ? reg_bytes : most_reg) / 16;
    size_t cache4 =
        (cache_bytes < plan.bytes ? cache_bytes : plan.bytes) / 16;
    md_t *part = whole_work_at(work);
    void *args[] = {&x, &y, &n, &vec, &part, &reg4, &cache4};
    return coop_launch(softmax_resident_kernel<kResidentR, EXP>, grid, args,
                       plan.bytes, x, y, n, work, stream);
}

// <<The resident launchers with C linkage>>
extern "C" cudaError_t softmax_whole_resident(const float *x, float *y,
                                              size_t n, void *work,
                                              cudaStream_t stream)
{
    return launch_resident<Exp::exact>(x, y, n, work, SIZE_MAX, SIZE_MAX,
                                       stream);
}

extern "C" cudaError_t softmax_whole_resident_fast(const float *x, float *y,
                                                   size_t n, void *work,
                                                   cudaStream_t stream)
{
    return launch_resident<Exp::fast>(x, y, n, work, SIZE_MAX, SIZE_MAX,
                                      stream);
}

extern "C" cudaError_t softmax_whole_resident_cache(
    const float *x, float *y, size_t n, void *work, size_t reg_bytes,
    size_t cache_bytes, int fast, cudaStream_t stream)
{
    if (fast)
        return launch_resident<Exp::fast>(x, y, n, work, reg_bytes,
                                          cache_bytes, stream);
    return launch_resident<Exp::exact>(x, y, n, work, reg_bytes, cache_bytes,
                                       stream);
}
