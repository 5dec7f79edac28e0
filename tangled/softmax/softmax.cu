// softmax.cu -- softmax kernels and their launchers.
#include "common/book.h"
#include "common/reduce.cuh"
#include "common/per_device.cuh"
#include "softmax/online_pair.h"
#include "softmax/softmax.h"
#include <cooperative_groups.h>

// <<Softmax launch constants>>
static const unsigned kSmBlock = 256;             // threads per block
static const unsigned kSmRowsPerBlock = kSmBlock / 32;  // warp per row
static const size_t kSmMaxGrid = 2147483647u;     // 2^31 - 1 blocks

// <<Softmax launcher checks>>
static bool softmax_apart(const float *x, const float *y, size_t n)
{
    return n <= SIZE_MAX / sizeof(float) &&     // n floats fit in bytes
           !ranges_overlap(x, n * sizeof(float), y, n * sizeof(float));
}
static cudaError_t softmax_check(const float *x, const float *y,
                                 size_t rows, size_t cols, size_t grid)
{
    if (!x || !y) return cudaErrorInvalidValue;
    if (rows > SIZE_MAX / cols || !softmax_apart(x, y, rows * cols))
        return cudaErrorInvalidValue;
    if (grid > kSmMaxGrid) return cudaErrorInvalidValue;
    return cudaSuccess;
}

// <<Softmax: a warp per row, three passes>>
__global__ void softmax_warp_kernel(const float *x, float *y, size_t rows,
                                    size_t cols)
{
    size_t row = blockIdx.x * (size_t)kSmRowsPerBlock + threadIdx.x / 32;
    unsigned lane = threadIdx.x % 32;
    if (row >= rows) return;          // the whole warp leaves together
    const float *xr = x + row * cols;
    float *yr = y + row * cols;
    float m = -INFINITY;
    for (size_t j = lane; j < cols; j += 32) m = fmaxf(m, xr[j]);
    m = warp_max(m);
    float d = 0.0f;
    for (size_t j = lane; j < cols; j += 32) d += md_weight(xr[j], m);
    d = warp_sum(d);
    float inv = md_recip(d);
    for (size_t j = lane; j < cols; j += 32)
        yr[j] = md_weight(xr[j], m) * inv;
}

extern "C" cudaError_t softmax_rows_warp(const float *x, float *y,
                                         size_t rows, size_t cols)
{
    if (rows == 0 || cols == 0) return cudaSuccess;
    size_t grid = ceil_div(rows, kSmRowsPerBlock);
    BOOK_TRY(softmax_check(x, y, rows, cols, grid));
    BOOK_CLEAR_TO_LAUNCH();
    softmax_warp_kernel<<<(unsigned)grid, kSmBlock>>>(x, y, rows, cols);
    return cudaGetLastError();
}

// <<Softmax: a block per row, three passes>>

// <<Softmax helpers for float4>>
__device__ __forceinline__ float max4(float4 v)
{
    return fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w));
}
__device__ __forceinline__ float weight4(float4 v, float m)
{
    return md_weight(v.x, m) + md_weight(v.y, m) + md_weight(v.z, m) +
           md_weight(v.w, m);
}
__device__ __forceinline__ float4 prob4(float4 v, float m, float inv)
{
    return make_float4(md_weight(v.x, m) * inv, md_weight(v.y, m) * inv,
                       md_weight(v.z, m) * inv, md_weight(v.w, m) * inv);
}
__device__ __forceinline__ float4 neg_inf4(void)
{
    return make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
}
__global__ void softmax_block_kernel(const float *x, float *y, size_t cols,
                                     bool vec)
{
    const float *xr = x + blockIdx.x * cols;
    float *yr = y + blockIdx.x * cols;
    const float4 *xr4 = (const float4 *)xr;
    size_t c4 = vec ? cols / 4 : 0;   // float4s; the rest one by one
    float m = -INFINITY;
    for (size_t j = threadIdx.x; j < c4; j += kSmBlock)
        m = fmaxf(m, max4(xr4[j]));
    for (size_t j = 4 * c4 + threadIdx.x; j < cols; j += kSmBlock)
        m = fmaxf(m, xr[j]);
    m = block_max<kSmBlock>(m);
    // <<Sum the weights of a row over the block>>
    float d = 0.0f;
    for (size_t j = threadIdx.x; j < c4; j += kSmBlock)
        d += weight4(xr4[j], m);
    for (size_t j = 4 * c4 + threadIdx.x; j < cols; j += kSmBlock)
        d += md_weight(xr[j], m);
    d = block_sum<kSmBlock>(d);
    float inv = md_recip(d);
    for (size_t j = threadIdx.x; j < c4; j += kSmBlock)
        ((float4 *)yr)[j] = prob4(xr4[j], m, inv);
    for (size_t j = 4 * c4 + threadIdx.x; j < cols; j += kSmBlock)
        yr[j] = md_weight(xr[j], m) * inv;
}

// <<Softmax launchers for a block per row>>
extern "C" cudaError_t softmax_rows_block(const float *x, float *y,
                                          size_t rows, size_t cols)
{
    if (rows == 0 || cols == 0) return cudaSuccess;
    BOOK_TRY(softmax_check(x, y, rows, cols, rows));
    BOOK_CLEAR_TO_LAUNCH();
    softmax_block_kernel<<<(unsigned)rows, kSmBlock>>>(x, y, cols, false);
    return cudaGetLastError();
}

static cudaError_t rows_float4_on(const float *x, float *y, size_t rows,
                                  size_t cols, cudaStream_t stream)
{
    if (rows == 0 || cols == 0) return cudaSuccess;
    BOOK_TRY(softmax_check(x, y, rows, cols, rows));
    bool vec = cols % 4 == 0 && is_aligned(x, 16) && is_aligned(y, 16);
    BOOK_CLEAR_TO_LAUNCH();
    softmax_block_kernel<<<(unsigned)rows, kSmBlock, 0, stream>>>(x, y, cols,
                                                                  vec);
    return cudaGetLastError();
}
extern "C" cudaError_t softmax_rows_float4(const float *x, float *y,
                                           size_t rows, size_t cols)
{
    return rows_float4_on(x, y, rows, cols, 0);
}

// <<Softmax: the row cached in registers>>
template <int V>
__device__ float cached_load_max(float4 (&v)[V], const float4 *xr,
                                 unsigned t, unsigned stride, unsigned c4)
{
    float m = -INFINITY;
#pragma unroll
    for (int k = 0; k < V; k++) {
        unsigned j = t + k * stride;
        v[k] = j < c4 ? xr[j] : neg_inf4();
        m = fmaxf(m, max4(v[k]));
    }
    return m;
}

// <<Sum and store a cached row>>
template <int V>
__device__ float cached_sum(const float4 (&v)[V], float m)
{
    float d = 0.0f;
#pragma unroll
    for (int k = 0; k < V; k++) d += weight4(v[k], m);
    return d;
}

template <int V>
__device__ void cached_store(float4 *yr, const float4 (&v)[V], unsigned t,
                             unsigned stride, unsigned c4, float m, float d)
{
    float inv = md_recip(d);
#pragma unroll
    for (int k = 0; k < V; k++) {
        unsigned j = t + k * stride;
        if (j < c4) yr[j] = prob4(v[k], m, inv);
    }
}

// <<The cached kernels: a warp or a block per row>>
template <int V>
__global__ void softmax_cached_warp_kernel(const float *x, float *y,
                                           size_t rows, unsigned cols)
{
    size_t row = blockIdx.x * (size_t)kSmRowsPerBlock + threadIdx.x / 32;
    if (row >= rows) return;          // the whole warp leaves together
    unsigned lane = threadIdx.x % 32, c4 = cols / 4;
    float4 v[V];
    float m = warp_max(cached_load_max<V>(
        v, (const float4 *)(x + row * cols), lane, 32, c4));
    float d = warp_sum(cached_sum<V>(v, m));
    cached_store<V>((float4 *)(y + row * cols), v, lane, 32, c4, m, d);
}

template <int V>
__global__ void softmax_cached_block_kernel(const float *x, float *y,
                                            unsigned cols)
{
    size_t row = blockIdx.x;
    unsigned c4 = cols / 4;
    float4 v[V];
    float m = block_max<kSmBlock>(cached_load_max<V>(
        v, (const float4 *)(x + row * cols), threadIdx.x, kSmBlock, c4));
    float d = block_sum<kSmBlock>(cached_sum<V>(v, m));
    cached_store<V>((float4 *)(y + row * cols), v, threadIdx.x, kSmBlock,
                    c4, m, d);
}

// <<Softmax launcher for the cached row>>
template <int V>
static cudaError_t launch_cached_warp(const float *x, float *y,
                                      size_t rows, unsigned cols,
                                      cudaStream_t st)
{
    size_t grid = ceil_div(rows, kSmRowsPerBlock);
    if (grid > kSmMaxGrid) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    softmax_cached_warp_kernel<V><<<(unsigned)grid, kSmBlock, 0, st>>>(
        x, y, rows, cols);
    return cudaGetLastError();
}

template <int V>
static cudaError_t launch_cached_block(const float *x, float *y,
                                       size_t rows, unsigned cols,
                                       cudaStream_t st)
{
    BOOK_CLEAR_TO_LAUNCH();
    softmax_cached_block_kernel<V><<<(unsigned)rows, kSmBlock, 0, st>>>(
        x, y, cols);
    return cudaGetLastError();
}

extern "C" cudaError_t softmax_rows_cached_async(const float *x, float *y,
                                                 size_t rows, size_t cols,
                                                 cudaStream_t st)
{
    if (rows == 0 || cols == 0) return cudaSuccess;
    BOOK_TRY(softmax_check(x, y, rows, cols, rows));
    if (cols % 4 != 0 || cols > 16384 || !is_aligned(x, 16) ||
        !is_aligned(y, 16))
        return rows_float4_on(x, y, rows, cols, st);
    unsigned c = (unsigned)cols;
    if (c <= 128) return launch_cached_warp<1>(x, y, rows, c, st);
    if (c <= 256) return launch_cached_warp<2>(x, y, rows, c, st);
    if (c <= 512) return launch_cached_warp<4>(x, y, rows, c, st);
    if (c <= 1024) return launch_cached_warp<8>(x, y, rows, c, st);
    if (c <= 2048) return launch_cached_block<2>(x, y, rows, c, st);
    if (c <= 4096) return launch_cached_block<4>(x, y, rows, c, st);
    if (c <= 8192) return launch_cached_block<8>(x, y, rows, c, st);
    return launch_cached_block<16>(x, y, rows, c, st);
}
extern "C" cudaError_t softmax_rows_cached(const float *x, float *y,
                                           size_t rows, size_t cols)
{
    return softmax_rows_cached_async(x, y, rows, cols, 0);
}

// <<Block-wide reduction of (m, d) pairs>>
__device__ __forceinline__ md_t md_warp_reduce(md_t v)
{
    for (int offset = 16; offset > 0; offset /= 2) {
        md_t o;
        o.m = __shfl_xor_sync(0xffffffffu, v.m, offset);
        o.d = __shfl_xor_sync(0xffffffffu, v.d, offset);
        v = md_combine(v, o);
    }
    return v;
}

struct MdWarpOp {
    __device__ md_t operator()(md_t v) const { return md_warp_reduce(v); }
};
template <unsigned BLOCK> __device__ md_t md_block_reduce(md_t v)
{
    __shared__ md_t part[32];
    return block_reduce<BLOCK>(v, md_identity(), MdWarpOp(), part);
}

// <<Softmax: a block per row, one pass for (m, d)>>
__global__ void softmax_online_kernel(const float *x, float *y, size_t cols,
                                      bool vec)
{
    const float *xr = x + blockIdx.x * cols;
    float *yr = y + blockIdx.x * cols;
    const float4 *xr4 = (const float4 *)xr;
    size_t c4 = vec ? cols / 4 : 0;
    md_t s = md_identity();
    for (size_t j = threadIdx.x; j < c4; j += kSmBlock) {
        float4 v = xr4[j];
        s = md_push(md_push(md_push(md_push(s, v.x), v.y), v.z), v.w);
    }
    for (size_t j = 4 * c4 + threadIdx.x; j < cols; j += kSmBlock)
        s = md_push(s, xr[j]);
    s = md_block_reduce<kSmBlock>(s);
    float inv = md_inv(s);
    for (size_t j = threadIdx.x; j < c4; j += kSmBlock)
        ((float4 *)yr)[j] = prob4(xr4[j], s.m, inv);
    for (size_t j = 4 * c4 + threadIdx.x; j < cols; j += kSmBlock)
        yr[j] = md_weight(xr[j], s.m) * inv;
}

extern "C" cudaError_t softmax_rows_online(const float *x, float *y,
                                           size_t rows, size_t cols)
{
    if (rows == 0 || cols == 0) return cudaSuccess;
    BOOK_TRY(softmax_check(x, y, rows, cols, rows));
    bool vec = cols % 4 == 0 && is_aligned(x, 16) && is_aligned(y, 16);
    BOOK_CLEAR_TO_LAUNCH();
    softmax_online_kernel<<<(unsigned)rows, kSmBlock>>>(x, y, cols, vec);
    return cudaGetLastError();
}

// <<Softmax of one whole array>>
static const unsigned kWholeBlocks = 1024;  // partial pairs, at most

__device__ __forceinline__ md_t md_of4(float4 v)
{
    md_t r;
    r.m = max4(v);
    r.d = weight4(v, r.m);
    return r;
}

// <<Fold a grid-stride share of the array into pairs>>
template <int U>
__global__ void softmax_partials_kernel(const float *x, size_t n, bool vec,
                                        md_t *part)
{
    size_t i = blockIdx.x * (size_t)kSmBlock + threadIdx.x;
    size_t stride = (size_t)gridDim.x * kSmBlock;
    size_t n4 = vec ? n / 4 : 0;
    const float4 *x4 = (const float4 *)x;
    md_t s = md_identity();
    for (size_t k = i; k < n4; k += U * stride) {
        float4 v[U];
#pragma unroll
        for (int u = 0; u < U; u++)          // U loads in flight
            v[u] = k + u * stride < n4 ? x4[k + u * stride] : neg_inf4();
#pragma unroll
        for (int u = 0; u < U; u++) s = md_combine(s, md_of4(v[u]));
    }
    for (size_t k = 4 * n4 + i; k < n; k += stride) s = md_push(s, x[k]);
    s = md_block_reduce<kSmBlock>(s);
    if (threadIdx.x == 0) part[blockIdx.x] = s;
}

// <<Normalize a whole array with the partial pairs>>
template <int U, bool BACKWARD>
__global__ void softmax_normalize_kernel(const float *x, float *y, size_t n,
                                         bool vec, const md_t *part,
                                         unsigned parts)
{
    md_t s = md_identity();
    for (unsigned k = threadIdx.x; k < parts; k += kSmBlock)
        s = md_combine(s, part[k]);
    s = md_block_reduce<kSmBlock>(s);    // the same (m, d) in every block
    float inv = md_inv(s);
    size_t i = blockIdx.x * (size_t)kSmBlock + threadIdx.x;
    size_t stride = (size_t)gridDim.x * kSmBlock;
    size_t n4 = vec ? n / 4 : 0;
    const float4 *x4 = (const float4 *)x;
    float4 *y4 = (float4 *)y;
    for (size_t k = i; k < n4; k += U * stride) {
        float4 v[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            size_t j = BACKWARD ? n4 - 1 - (k + u * stride) : k + u * stride;
            v[u] = k + u * stride < n4 ? x4[j] : neg_inf4();
        }
        // <<Store U float4s of probabilities>>
        #pragma unroll
        for (int u = 0; u < U; u++) {
            size_t j = BACKWARD ? n4 - 1 - (k + u * stride) : k + u * stride;
            if (k + u * stride < n4) {
                if (BACKWARD) __stcs(y4 + j, prob4(v[u], s.m, inv));
                else y4[j] = prob4(v[u], s.m, inv);
            }
        }
    }
    for (size_t k = 4 * n4 + i; k < n; k += stride)
        y[k] = md_weight(x[k], s.m) * inv;
}

// <<Launch the whole-array softmax>>

// <<How many whole-array blocks fit at once>>
template <int U, bool BACKWARD>
static cudaError_t whole_wave(int *wave)
{
    int dev, sms, a, b;
    BOOK_TRY(cudaGetDevice(&dev));
    BOOK_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount,
                                    dev));
    BOOK_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &a, softmax_partials_kernel<U>, kSmBlock, 0));
    BOOK_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &b, softmax_normalize_kernel<U, BACKWARD>, kSmBlock, 0));
    int fit = sms * (a < b ? a : b);
    *wave = fit < 1 ? 1 : fit > (int)kWholeBlocks ? (int)kWholeBlocks : fit;
    return cudaSuccess;
}
template <int U, bool BACKWARD>
static cudaError_t launch_whole(const float *x, float *y, size_t n,
                                void *work)
{
    if (n == 0) return cudaSuccess;
    if (!x || !y || !work || !is_aligned(work, 8) || !softmax_apart(x, y, n))
        return cudaErrorInvalidValue;
    bool vec = is_aligned(x, 16) && is_aligned(y, 16);
    static per_device<int> waves;     // blocks that fit at once, a device
    int wave;
    BOOK_TRY(once_per_device(waves, whole_wave<U, BACKWARD>, &wave));
    size_t grid = ceil_div(n, 4 * (size_t)U * kSmBlock);
    if (grid > (size_t)wave) grid = (size_t)wave;
    md_t *part = (md_t *)work;
    BOOK_CLEAR_TO_LAUNCH();
    softmax_partials_kernel<U><<<(unsigned)grid, kSmBlock>>>(x, n, vec,
                                                             part);
    BOOK_TRY(cudaGetLastError());
    softmax_normalize_kernel<U, BACKWARD><<<(unsigned)grid, kSmBlock>>>(
        x, y, n, vec, part, (unsigned)grid);
    return cudaGetLastError();
}

extern "C" cudaError_t softmax_whole_simple(const float *x, float *y,
                                            size_t n, void *work)
{
    return launch_whole<1, false>(x, y, n, work);
}

extern "C" cudaError_t softmax_whole_u4(const float *x, float *y, size_t n,
                                        void *work)
{
    return launch_whole<4, false>(x, y, n, work);
}

extern "C" cudaError_t softmax_whole(const float *x, float *y, size_t n,
                                     void *work)
{
    return launch_whole<4, true>(x, y, n, work);
}

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
template <bool PUSH4>            // the fold: see "A cheaper fold" below
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
            s = PUSH4 ? md_push4(s, v[u]) : md_combine(s, md_of4(v[u]));
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
    BOOK_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount,
                                    dev));
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
// Launch kernel cooperatively: grid blocks of kSmBlock threads, bytes of
// dynamic shared memory, args its arguments.  A grid the device refuses
// (too large to be resident at once) runs as the two kernels instead.
template <typename K>
static cudaError_t coop_launch(K kernel, size_t grid, void **args,
                               size_t bytes, const float *x, float *y,
                               size_t n, void *work)
{
    BOOK_CLEAR_TO_LAUNCH();
    cudaError_t e = cudaLaunchCooperativeKernel(
        kernel, dim3((unsigned)grid), dim3(kSmBlock), args, bytes, 0);
    if (e == cudaErrorCooperativeLaunchTooLarge) {  // grid refused: 2 kernels
        (void)cudaGetLastError();
        return softmax_whole(x, y, n, work);
    }
    BOOK_TRY(e);
    return cudaGetLastError();
}
template <bool PUSH4> static cudaError_t fused_plan(FusedPlan *p)
{
    return coop_plan(softmax_fused_kernel<PUSH4>, p);
}

// <<Launch the fused whole-array softmax>>
template <bool PUSH4>
static cudaError_t launch_fused(const float *x, float *y, size_t n,
                                void *work, size_t cache_bytes)
{
    if (n == 0) return cudaSuccess;
    if (!x || !y || !work || !is_aligned(work, 8) || !softmax_apart(x, y, n))
        return cudaErrorInvalidValue;
    static per_device<FusedPlan> plans;   // planned once a device
    FusedPlan plan;
    BOOK_TRY(once_per_device(plans, fused_plan<PUSH4>, &plan));
    if (plan.grid == 0) return softmax_whole(x, y, n, work);
    bool vec = is_aligned(x, 16) && is_aligned(y, 16);
    size_t grid = ceil_div(n, 4 * (size_t)kFusedU * kSmBlock);
    if (grid > (size_t)plan.grid) grid = (size_t)plan.grid;
    if (cache_bytes > plan.bytes) cache_bytes = plan.bytes;
    size_t cache4 = cache_bytes / sizeof(float4);
    md_t *part = (md_t *)work;
    void *args[] = {&x, &y, &n, &vec, &part, &cache4};
    return coop_launch(softmax_fused_kernel<PUSH4>, grid, args, plan.bytes,
                       x, y, n, work);
}

extern "C" cudaError_t softmax_whole_fused_pairs(const float *x, float *y,
                                                 size_t n, void *work)
{
    return launch_fused<false>(x, y, n, work, SIZE_MAX);
}

extern "C" cudaError_t softmax_whole_fused(const float *x, float *y,
                                           size_t n, void *work)
{
    return launch_fused<true>(x, y, n, work, SIZE_MAX);
}

extern "C" cudaError_t softmax_whole_fused_cache(const float *x, float *y,
                                                 size_t n, void *work,
                                                 size_t cache_bytes)
{
    return launch_fused<true>(x, y, n, work, cache_bytes);
}

// <<Softmax of one whole array, most of it on chip>>
static const int kResidentR = 8;        // float4s a thread in registers
static const int kResidentBlocks = 4;   // blocks an SM: 64 registers each

__device__ __forceinline__ float weight4_fast(float4 v, float m)
{
    return md_weight_fast(v.x, m) + md_weight_fast(v.y, m) +
           md_weight_fast(v.z, m) + md_weight_fast(v.w, m);
}
// Probabilities with __expf where FAST and the maximum m is finite (then
// -inf, m itself and NaN need no special case), else with expf.
template <bool FAST>
__device__ __forceinline__ float4 prob4_as(float4 v, float m, float inv)
{
    if (!FAST || !isfinite(m)) return prob4(v, m, inv);
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
template <int R, bool FAST>
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
        if (j < nr) ys[j] = prob4_as<FAST>(v[r], tot.m, inv);
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
            if (j < rest) yt[rem - 1 - j] = prob4_as<FAST>(w[u], tot.m, inv);
        }
    }
    for (size_t j = t; j < c; j += kSmBlock)
        yt[j] = prob4_as<FAST>(resident_cache[j], tot.m, inv);
    for (size_t k = 4 * n4 + i; k < n; k += stride)
        y[k] = md_weight(x[k], tot.m) * inv;
}

// <<Launch the resident whole-array softmax>>
template <bool FAST> static cudaError_t resident_plan(FusedPlan *p)
{
    return coop_plan(softmax_resident_kernel<kResidentR, FAST>, p);
}

template <bool FAST>
static cudaError_t launch_resident(const float *x, float *y, size_t n,
                                   void *work, size_t reg_bytes,
                                   size_t cache_bytes)
{
    if (n == 0) return cudaSuccess;
    if (!x || !y || !work || !is_aligned(work, 8) || !softmax_apart(x, y, n))
        return cudaErrorInvalidValue;
    static per_device<FusedPlan> plans;   // planned once a device
    FusedPlan plan;
    BOOK_TRY(once_per_device(plans, resident_plan<FAST>, &plan));
    if (plan.grid == 0) return softmax_whole(x, y, n, work);
    bool vec = is_aligned(x, 16) && is_aligned(y, 16);
    size_t grid = ceil_div(n, 4 * (size_t)kFusedU * kSmBlock);
    if (grid > (size_t)plan.grid) grid = (size_t)plan.grid;
    size_t most_reg = (size_t)kResidentR * kSmBlock * sizeof(float4);
    size_t reg4 = (reg_bytes < most_reg ? reg_bytes : most_reg) / 16;
    size_t cache4 =
        (cache_bytes < plan.bytes ? cache_bytes : plan.bytes) / 16;
    md_t *part = (md_t *)work;
    void *args[] = {&x, &y, &n, &vec, &part, &reg4, &cache4};
    return coop_launch(softmax_resident_kernel<kResidentR, FAST>, grid, args,
                       plan.bytes, x, y, n, work);
}

// <<The resident launchers with C linkage>>
extern "C" cudaError_t softmax_whole_resident(const float *x, float *y,
                                              size_t n, void *work)
{
    return launch_resident<false>(x, y, n, work, SIZE_MAX, SIZE_MAX);
}

extern "C" cudaError_t softmax_whole_resident_fast(const float *x, float *y,
                                                   size_t n, void *work)
{
    return launch_resident<true>(x, y, n, work, SIZE_MAX, SIZE_MAX);
}

extern "C" cudaError_t softmax_whole_resident_cache(
    const float *x, float *y, size_t n, void *work, size_t reg_bytes,
    size_t cache_bytes, int fast)
{
    if (fast)
        return launch_resident<true>(x, y, n, work, reg_bytes, cache_bytes);
    return launch_resident<false>(x, y, n, work, reg_bytes, cache_bytes);
}

// <<Wrong on purpose: softmax normalized per block>>
static const unsigned kChunk = 4 * kSmBlock;   // elements per block

__global__ void softmax_per_block_kernel(const float *x, float *y, size_t n)
{
    size_t base = blockIdx.x * (size_t)kChunk;
    md_t s = md_identity();
    for (size_t k = base + threadIdx.x; k < base + kChunk && k < n;
         k += kSmBlock)
        s = md_push(s, x[k]);
    s = md_block_reduce<kSmBlock>(s);   // WRONG: this block's chunk only
    float inv = md_inv(s);
    for (size_t k = base + threadIdx.x; k < base + kChunk && k < n;
         k += kSmBlock)
        y[k] = md_weight(x[k], s.m) * inv;
}

extern "C" cudaError_t softmax_whole_per_block(const float *x, float *y,
                                               size_t n)
{
    if (n == 0) return cudaSuccess;
    if (!x || !y || !softmax_apart(x, y, n)) return cudaErrorInvalidValue;
    size_t grid = ceil_div(n, kChunk);
    if (grid > kSmMaxGrid) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    softmax_per_block_kernel<<<(unsigned)grid, kSmBlock>>>(x, y, n);
    return cudaGetLastError();
}
