// reduce_grid_stride.cu -- step 7 and the sums, mean and max built on it.
#include <cooperative_groups.h>
#include "reduce/reduce_parts.cuh"

// <<Reduction operators>>
struct ReduceSum {
    static __device__ float identity() { return 0.0f; }
    static __device__ float apply(float a, float v) { return a + v; }
    static __device__ float apply4(float a, float4 v)
    {
        return a + ((v.x + v.y) + (v.z + v.w));
    }
    template <unsigned B> static __device__ float block(float v)
    {
        return block_sum<B>(v);
    }
};
struct ReduceMax {
    static __device__ float identity() { return -INFINITY; }
    static __device__ float apply(float a, float v) { return fmaxf(a, v); }
    static __device__ float apply4(float a, float4 v)
    {
        return fmaxf(a, fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)));
    }
    template <unsigned B> static __device__ float block(float v)
    {
        return block_max<B>(v);
    }
};

// <<Per-thread float4 grid-stride partial>>
template <unsigned BLOCK, unsigned U, class Op>
__device__ __forceinline__ float thread_partial(const float *x, size_t n)
{
    const float4 *x4 = reinterpret_cast<const float4 *>(x);
    size_t n4 = n / 4, stride = (size_t)gridDim.x * BLOCK;
    size_t g = blockIdx.x * (size_t)BLOCK + threadIdx.x, i = g;
    float acc = Op::identity();
    for (; i + (U - 1) * stride < n4; i += U * stride) {
        float4 v[U];
#pragma unroll
        for (unsigned u = 0; u < U; u++) v[u] = __ldg(&x4[i + u * stride]);
#pragma unroll
        for (unsigned u = 0; u < U; u++) acc = Op::apply4(acc, v[u]);
    }
    for (; i < n4; i += stride) acc = Op::apply4(acc, __ldg(&x4[i]));
    if (g < n % 4) acc = Op::apply(acc, x[4 * n4 + g]);    // the tail
    return acc;
}

// <<Step 7: float4 loads and a grid-stride loop>>
template <unsigned BLOCK, unsigned U, class Op>
__global__ void __launch_bounds__(BLOCK)
reduce_float4_kernel(const float *x, size_t n, float *partial)
{
    float acc = thread_partial<BLOCK, U, Op>(x, n);
    acc = Op::template block<BLOCK>(acc);
    if (threadIdx.x == 0) partial[blockIdx.x] = acc;
}

template <class Op>
__global__ void __launch_bounds__(1024)
reduce_finish_kernel(const float *partial, size_t g, float *out,
                     double divisor)
{
    float acc = Op::identity();
    for (size_t i = threadIdx.x; i < g; i += 1024)
        acc = Op::apply(acc, partial[i]);
    acc = Op::template block<1024>(acc);
    if (threadIdx.x == 0) *out = (float)((double)acc / divisor);
}
static const unsigned kUnroll = 4;

template <class K>
static cudaError_t resident_grid(K kernel, unsigned threads, size_t n,
                                 unsigned *grid)
{
    int sms, per_sm;
    BOOK_TRY(book_sm_count(&sms));
    BOOK_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, kernel, (int)threads, 0));
    size_t g = (size_t)sms * (per_sm > 0 ? per_sm : 1);
    size_t full = n / (4 * kUnroll * (size_t)threads);  // full rounds of U
    size_t useful = full > 0 ? full : 1;                // float4s a thread
    *grid = (unsigned)(g < useful ? g : useful);
    return cudaSuccess;
}

template <class Op>
static cudaError_t reduce_float4_op(const float *x, size_t n, float *out,
                                    void *work, double divisor,
                                    cudaStream_t stream)
{
    if (!x || !out || !work) return cudaErrorInvalidValue;
    if (!is_aligned(x, 16)) return cudaErrorInvalidValue;
    auto k = reduce_float4_kernel<kReduceBlock, kUnroll, Op>;
    unsigned grid;
    BOOK_TRY(resident_grid(k, kReduceBlock, n, &grid));
    BOOK_CLEAR_TO_LAUNCH();
    float *partial = reduce_work_at(work, n).a;
    k<<<grid, kReduceBlock, 0, stream>>>(x, n, partial);
    BOOK_TRY(cudaGetLastError());
    reduce_finish_kernel<Op><<<1, 1024, 0, stream>>>(partial, grid,
                                                     out, divisor);
    return cudaGetLastError();
}

extern "C" cudaError_t reduce_float4(const float *x, size_t n, float *out,
                                     void *work, cudaStream_t stream)
{
    if (n == 0 && x && out && work) return write_value(out, 0.0f, stream);
    if (x && !is_aligned(x, 16))
        return reduce_unrolled(x, n, out, work, stream);
    return reduce_float4_op<ReduceSum>(x, n, out, work, 1.0, stream);
}

extern "C" cudaError_t reduce_sum_async(const float *x, size_t n,
                                        float *out, void *work,
                                        cudaStream_t stream)
{
    if (!x || !out || !work || !is_aligned(x, 16))
        return cudaErrorInvalidValue;
    if (n == 0) return write_value(out, 0.0f, stream);
    return reduce_float4_op<ReduceSum>(x, n, out, work, 1.0, stream);
}

// <<Cross-block finish: atomicAdd of block partials>>
template <unsigned BLOCK, unsigned U>
__global__ void __launch_bounds__(BLOCK)
reduce_finish_atomic_kernel(const float *x, size_t n, float *out)
{
    float acc = thread_partial<BLOCK, U, ReduceSum>(x, n);
    acc = block_sum<BLOCK>(acc);
    if (threadIdx.x == 0) atomicAdd(out, acc);
}

extern "C" cudaError_t reduce_finish_atomic(const float *x, size_t n,
                                            float *out, void *work,
                                            cudaStream_t stream)
{
    (void)work;
    if (!x || !out || !is_aligned(x, 16)) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    BOOK_TRY(cudaMemsetAsync(out, 0, sizeof(float), stream));
    if (n == 0) return cudaSuccess;
    auto k = reduce_finish_atomic_kernel<kReduceBlock, kUnroll>;
    unsigned grid;
    BOOK_TRY(resident_grid(k, kReduceBlock, n, &grid));
    k<<<grid, kReduceBlock, 0, stream>>>(x, n, out);
    return cudaGetLastError();
}

// <<Cross-block finish: the last block done>>
template <unsigned BLOCK, unsigned U>
__global__ void __launch_bounds__(BLOCK)
reduce_last_block_kernel(const float *x, size_t n, float *partial,
                         unsigned *counter, float *out)
{
    __shared__ bool last;
    float acc = block_sum<BLOCK>(thread_partial<BLOCK, U, ReduceSum>(x, n));
    if (gridDim.x == 1) {                 // the only block: no partials
        if (threadIdx.x == 0) *out = acc;
        return;
    }
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = acc;
        __threadfence();                  // the partial before the count
        last = atomicAdd(counter, 1u) == gridDim.x - 1;
        __threadfence();                  // the count before the reads
    }
    __syncthreads();
    if (!last) return;                    // the whole block leaves
    acc = 0.0f;
    for (unsigned i = threadIdx.x; i < gridDim.x; i += BLOCK)
        acc += __ldcg(&partial[i]);       // from L2, not a stale L1
    acc = block_sum<BLOCK>(acc);
    if (threadIdx.x == 0) { *out = acc; *counter = 0; }
}
extern "C" cudaError_t reduce_last_block(const float *x, size_t n,
                                         float *out, void *work,
                                         cudaStream_t stream)
{
    if (!x || !out || !work || !is_aligned(x, 16))
        return cudaErrorInvalidValue;
    if (n == 0) return write_value(out, 0.0f, stream);
    auto k = reduce_last_block_kernel<kReduceBlock, kUnroll>;
    unsigned grid;
    BOOK_TRY(resident_grid(k, kReduceBlock, n, &grid));
    BOOK_CLEAR_TO_LAUNCH();
    const reduce_work w = reduce_work_at(work, n);
    k<<<grid, kReduceBlock, 0, stream>>>(x, n, w.a, w.counter, out);
    return cudaGetLastError();
}

// <<Cross-block finish: a cooperative grid sync>>
template <unsigned BLOCK, unsigned U>
__global__ void __launch_bounds__(BLOCK)
reduce_grid_sync_kernel(const float *x, size_t n, float *partial,
                        float *out)
{
    float acc = block_sum<BLOCK>(thread_partial<BLOCK, U, ReduceSum>(x, n));
    if (threadIdx.x == 0) partial[blockIdx.x] = acc;
    cooperative_groups::this_grid().sync();  // all partials written
    if (blockIdx.x != 0) return;
    acc = 0.0f;
    for (unsigned i = threadIdx.x; i < gridDim.x; i += BLOCK)
        acc += partial[i];
    acc = block_sum<BLOCK>(acc);
    if (threadIdx.x == 0) *out = acc;
}
extern "C" cudaError_t reduce_grid_sync(const float *x, size_t n, float *out,
                                        void *work, cudaStream_t stream)
{
    if (!x || !out || !work || !is_aligned(x, 16))
        return cudaErrorInvalidValue;
    if (n == 0) return write_value(out, 0.0f, stream);
    int dev, coop;
    BOOK_TRY(cudaGetDevice(&dev));
    BOOK_TRY(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch,
                                    dev));
    if (!coop) return cudaErrorNotSupported;
    auto k = reduce_grid_sync_kernel<kReduceBlock, kUnroll>;
    unsigned grid;
    BOOK_TRY(resident_grid(k, kReduceBlock, n, &grid));
    float *partial = reduce_work_at(work, n).a;
    void *args[] = {(void *)&x, (void *)&n, (void *)&partial, (void *)&out};
    BOOK_CLEAR_TO_LAUNCH();
    return cudaLaunchCooperativeKernel((const void *)k, grid, kReduceBlock,
                                       args, 0, stream);
}

// <<Compensated sum>>
struct SumErr { float s, c; };            // the value s + c, |c| small

__device__ __forceinline__ SumErr two_sum_add(SumErr a, SumErr b)
{
    float s = a.s + b.s;
    float bb = s - a.s;                   // TwoSum: s + e == a.s + b.s
    float e = (a.s - (s - bb)) + (b.s - bb);
    return {s, (a.c + b.c) + e};
}

__device__ __forceinline__ SumErr warp_sum_err(SumErr v)
{
    for (int offset = 16; offset > 0; offset /= 2) {
        SumErr o = {__shfl_xor_sync(0xffffffffu, v.s, offset),
                    __shfl_xor_sync(0xffffffffu, v.c, offset)};
        v = two_sum_add(v, o);
    }
    return v;
}
template <unsigned BLOCK>
__device__ SumErr block_sum_err(SumErr v)
{
    __shared__ float ps[32], pc[32];
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_sum_err(v);
    __syncthreads();
    if (lane == 0) { ps[warp] = v.s; pc[warp] = v.c; }
    __syncthreads();
    SumErr z = {0.0f, 0.0f};
    return warp_sum_err(lane < BLOCK / 32 ? SumErr{ps[lane], pc[lane]} : z);
}
template <unsigned BLOCK>
__global__ void __launch_bounds__(BLOCK)
reduce_compensated_kernel(const float *x, size_t n, float *partial)
{
    const float4 *x4 = reinterpret_cast<const float4 *>(x);
    size_t n4 = n / 4, stride = (size_t)gridDim.x * BLOCK;
    size_t g = blockIdx.x * (size_t)BLOCK + threadIdx.x;
    SumErr acc = {0.0f, 0.0f};
    for (size_t i = g; i < n4; i += stride) {
        float4 v = __ldg(&x4[i]);
        acc = two_sum_add(acc, {v.x, 0.0f});
        acc = two_sum_add(acc, {v.y, 0.0f});
        acc = two_sum_add(acc, {v.z, 0.0f});
        acc = two_sum_add(acc, {v.w, 0.0f});
    }
    if (g < n % 4) acc = two_sum_add(acc, {x[4 * n4 + g], 0.0f});
    acc = block_sum_err<BLOCK>(acc);
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = acc.s;
        partial[gridDim.x + blockIdx.x] = acc.c;
    }
}
__global__ void __launch_bounds__(1024)
reduce_compensated_finish(const float *partial, unsigned g, float *out)
{
    SumErr acc = {0.0f, 0.0f};
    for (unsigned i = threadIdx.x; i < g; i += 1024)
        acc = two_sum_add(acc, {partial[i], partial[g + i]});
    acc = block_sum_err<1024>(acc);
    if (threadIdx.x == 0) *out = acc.s + acc.c;   // rounded once
}

extern "C" cudaError_t reduce_compensated(const float *x, size_t n,
                                          float *out, void *work,
                                          cudaStream_t stream)
{
    if (!x || !out || !work || !is_aligned(x, 16))
        return cudaErrorInvalidValue;
    if (n == 0) return write_value(out, 0.0f, stream);
    auto k = reduce_compensated_kernel<kReduceBlock>;
    unsigned grid;
    BOOK_TRY(resident_grid(k, kReduceBlock, n, &grid));
    BOOK_CLEAR_TO_LAUNCH();
    float *partial = reduce_work_at(work, n).a;
    k<<<grid, kReduceBlock, 0, stream>>>(x, n, partial);
    BOOK_TRY(cudaGetLastError());
    reduce_compensated_finish<<<1, 1024, 0, stream>>>(partial, grid,
                                                      out);
    return cudaGetLastError();
}

// <<Mean and max>>
extern "C" cudaError_t reduce_mean(const float *x, size_t n, float *out,
                                   void *work, cudaStream_t stream)
{
    if (n == 0) return cudaErrorInvalidValue;      // 0/0 has no answer
    if (x && !is_aligned(x, 16)) return cudaErrorInvalidValue;
    return reduce_float4_op<ReduceSum>(x, n, out, work, (double)n, stream);
}

extern "C" cudaError_t reduce_max(const float *x, size_t n, float *out,
                                  void *work, cudaStream_t stream)
{
    if (n == 0 && x && out && work)
        return write_value(out, -INFINITY, stream);
    if (x && !is_aligned(x, 16)) return cudaErrorInvalidValue;
    return reduce_float4_op<ReduceMax>(x, n, out, work, 1.0, stream);
}

// <<Wrong on purpose: a fence as a grid barrier>>
__global__ void reduce_wrong_fence_kernel(const float *x, size_t n,
                                          float *partial, float *out)
{
    unsigned t = threadIdx.x;
    // <<Load two elements per thread and add them>>
    size_t i = blockIdx.x * (size_t)(2 * kReduceBlock) + t;
    float v = i < n ? x[i] : 0.0f;
    if (i + kReduceBlock < n) v += x[i + kReduceBlock];
    v = block_sum<kReduceBlock>(v);
    if (t == 0) partial[blockIdx.x] = v;
    __threadfence();                      // WRONG: waits for no one
    if (blockIdx.x != 0) return;
    float acc = 0.0f;
    for (unsigned b = t; b < gridDim.x; b += kReduceBlock)
        acc += partial[b];                // most are not written yet
    acc = block_sum<kReduceBlock>(acc);
    if (t == 0) *out = acc;
}

extern "C" cudaError_t reduce_wrong_fence_barrier(const float *x, size_t n,
                                                  float *out, void *work,
                                                  cudaStream_t stream)
{
    if (!x || !out || !work) return cudaErrorInvalidValue;
    if (n == 0) return write_value(out, 0.0f, stream);
    size_t grid = ceil_div(n, 2 * kReduceBlock);
    if (grid > kReduceMaxGrid) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    reduce_wrong_fence_kernel<<<(unsigned)grid, kReduceBlock, 0, stream>>>(
        x, n, reduce_work_at(work, n).a, out);
    return cudaGetLastError();
}
