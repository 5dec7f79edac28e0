// reduce_ladder.cu -- steps 0 to 6, a tile a block, and the volatile unroll.
#include "reduce/reduce_parts.cuh"

// <<The workspace a call needs>>
extern "C" size_t reduce_workspace_bytes(size_t n)
{
    book_carve c = {NULL, 0, 0};
    reduce_work_layout(&c, n);
    return book_carve_size(&c);
}

// <<Run a block-partial kernel until one value is left>>
typedef void (*partial_kernel)(const float *, size_t, float *);

static cudaError_t reduce_passes(partial_kernel k, size_t per_block,
                                 unsigned threads, const float *x, size_t n,
                                 float *out, void *work, cudaStream_t stream)
{
    if (!x || !out || !work) return cudaErrorInvalidValue;
    if (n == 0) return write_value(out, 0.0f, stream);
    const reduce_work w = reduce_work_at(work, n);
    float *dst = w.a, *other = w.b;
    BOOK_CLEAR_TO_LAUNCH();
    for (;;) {
        size_t grid = ceil_div(n, per_block);
        if (grid > kReduceMaxGrid) return cudaErrorInvalidValue;
        float *to = grid == 1 ? out : dst;
        k<<<(unsigned)grid, threads, 0, stream>>>(x, n, to);
        BOOK_TRY(cudaGetLastError());
        if (grid == 1) return cudaSuccess;
        x = to;                                  // the partials are the
        n = grid;                                // next pass's input
        float *t = dst; dst = other; other = t;  // A, B, A, ...
    }
}

// <<Step 0: one atomicAdd per element>>
__global__ void reduce_atomic_kernel(const float *x, size_t n, float *out)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(out, x[i]);
}

extern "C" cudaError_t reduce_atomic(const float *x, size_t n, float *out,
                                     void *work, cudaStream_t stream)
{
    (void)work;
    if (!x || !out) return cudaErrorInvalidValue;
    size_t grid = ceil_div(n, kReduceBlock);
    if (grid > kReduceMaxGrid) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    BOOK_TRY(cudaMemsetAsync(out, 0, sizeof(float), stream));  // bits 0: 0.0f
    if (n == 0) return cudaSuccess;
    reduce_atomic_kernel<<<(unsigned)grid, kReduceBlock, 0, stream>>>(x, n,
                                                                      out);
    return cudaGetLastError();
}

// <<Step 1: interleaved addressing, divergent branch>>
__global__ void reduce_divergent_kernel(const float *x, size_t n,
                                        float *partial)
{
    __shared__ float s[kReduceBlock];
    unsigned t = threadIdx.x;
    size_t i = blockIdx.x * (size_t)kReduceBlock + t;
    s[t] = i < n ? x[i] : 0.0f;             // 0 past the end: the identity
    __syncthreads();
    for (unsigned stride = 1; stride < kReduceBlock; stride *= 2) {
        if (t % (2 * stride) == 0) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) partial[blockIdx.x] = s[0];
}

extern "C" cudaError_t reduce_interleaved_divergent(const float *x,
                                                    size_t n, float *out,
                                                    void *work,
                                                    cudaStream_t stream)
{
    return reduce_passes(reduce_divergent_kernel, kReduceBlock,
                         kReduceBlock, x, n, out, work, stream);
}

// <<Step 2: interleaved addressing, strided index>>
__global__ void reduce_strided_kernel(const float *x, size_t n,
                                      float *partial)
{
    __shared__ float s[kReduceBlock];
    unsigned t = threadIdx.x;
    size_t i = blockIdx.x * (size_t)kReduceBlock + t;
    s[t] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (unsigned stride = 1; stride < kReduceBlock; stride *= 2) {
        unsigned k = 2 * stride * t;
        if (k < kReduceBlock) s[k] += s[k + stride];
        __syncthreads();
    }
    if (t == 0) partial[blockIdx.x] = s[0];
}

extern "C" cudaError_t reduce_interleaved_strided(const float *x, size_t n,
                                                  float *out, void *work,
                                                  cudaStream_t stream)
{
    return reduce_passes(reduce_strided_kernel, kReduceBlock, kReduceBlock,
                         x, n, out, work, stream);
}

// <<Step 3: sequential addressing>>
__global__ void reduce_sequential_kernel(const float *x, size_t n,
                                         float *partial)
{
    __shared__ float s[kReduceBlock];
    unsigned t = threadIdx.x;
    size_t i = blockIdx.x * (size_t)kReduceBlock + t;
    s[t] = i < n ? x[i] : 0.0f;
    __syncthreads();
    // <<Halve the active threads until one value is left>>
    for (unsigned stride = kReduceBlock / 2; stride > 0; stride /= 2) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) partial[blockIdx.x] = s[0];
}

extern "C" cudaError_t reduce_sequential(const float *x, size_t n,
                                         float *out, void *work,
                                         cudaStream_t stream)
{
    return reduce_passes(reduce_sequential_kernel, kReduceBlock,
                         kReduceBlock, x, n, out, work, stream);
}

// <<Step 4: first add during load>>
__global__ void reduce_first_add_kernel(const float *x, size_t n,
                                        float *partial)
{
    __shared__ float s[kReduceBlock];
    unsigned t = threadIdx.x;
    // <<Load two elements per thread and add them>>
    size_t i = blockIdx.x * (size_t)(2 * kReduceBlock) + t;
    float v = i < n ? x[i] : 0.0f;
    if (i + kReduceBlock < n) v += x[i + kReduceBlock];
    s[t] = v;
    __syncthreads();
    // <<Halve the active threads until one value is left>>
    for (unsigned stride = kReduceBlock / 2; stride > 0; stride /= 2) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) partial[blockIdx.x] = s[0];
}

extern "C" cudaError_t reduce_first_add(const float *x, size_t n,
                                        float *out, void *work,
                                        cudaStream_t stream)
{
    return reduce_passes(reduce_first_add_kernel, 2 * kReduceBlock,
                         kReduceBlock, x, n, out, work, stream);
}

// <<Step 5: warp-shuffle finish>>
__global__ void reduce_shuffle_kernel(const float *x, size_t n,
                                      float *partial)
{
    unsigned t = threadIdx.x;
    // <<Load two elements per thread and add them>>
    size_t i = blockIdx.x * (size_t)(2 * kReduceBlock) + t;
    float v = i < n ? x[i] : 0.0f;
    if (i + kReduceBlock < n) v += x[i + kReduceBlock];
    v = block_sum<kReduceBlock>(v);
    if (t == 0) partial[blockIdx.x] = v;
}

extern "C" cudaError_t reduce_warp_shuffle(const float *x, size_t n,
                                           float *out, void *work,
                                           cudaStream_t stream)
{
    return reduce_passes(reduce_shuffle_kernel, 2 * kReduceBlock,
                         kReduceBlock, x, n, out, work, stream);
}

// <<Step 6: unrolled with templates>>
template <unsigned BLOCK, unsigned K>
__global__ void __launch_bounds__(BLOCK)
reduce_unrolled_kernel(const float *x, size_t n, float *partial)
{
    size_t base = blockIdx.x * (size_t)(BLOCK * K) + threadIdx.x;
    float v[K];
#pragma unroll
    for (unsigned k = 0; k < K; k++)          // K loads, none waits
        v[k] = base + k * BLOCK < n ? x[base + k * BLOCK] : 0.0f;
    float sum = 0.0f;
#pragma unroll
    for (unsigned k = 0; k < K; k++) sum += v[k];
    sum = block_sum<BLOCK>(sum);
    if (threadIdx.x == 0) partial[blockIdx.x] = sum;
}

extern "C" cudaError_t reduce_unrolled(const float *x, size_t n, float *out,
                                       void *work, cudaStream_t stream)
{
    return reduce_passes(reduce_unrolled_kernel<kReduceBlock, 8>,
                         8 * kReduceBlock, kReduceBlock, x, n, out, work,
                         stream);
}

// <<Wrong on purpose: warp-synchronous volatile unroll>>
__device__ void wrong_warp_unroll(volatile float *s, unsigned t)
{
    s[t] += s[t + 32];    // WRONG since Volta: no __syncwarp() between
    s[t] += s[t + 16];    // the steps, so lanes may read a partner's
    s[t] += s[t + 8];     // element before the partner has written it
    s[t] += s[t + 4];
    s[t] += s[t + 2];
    s[t] += s[t + 1];
}

__global__ void reduce_wrong_volatile_kernel(const float *x, size_t n,
                                             float *partial)
{
    __shared__ float s[kReduceBlock];
    unsigned t = threadIdx.x;
    // <<Load two elements per thread and add them>>
    size_t i = blockIdx.x * (size_t)(2 * kReduceBlock) + t;
    float v = i < n ? x[i] : 0.0f;
    if (i + kReduceBlock < n) v += x[i + kReduceBlock];
    s[t] = v;
    __syncthreads();
    for (unsigned stride = kReduceBlock / 2; stride > 32; stride /= 2) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t < 32) wrong_warp_unroll(s, t);
    if (t == 0) partial[blockIdx.x] = s[0];
}

extern "C" cudaError_t reduce_wrong_volatile_warp(const float *x, size_t n,
                                                  float *out, void *work,
                                                  cudaStream_t stream)
{
    return reduce_passes(reduce_wrong_volatile_kernel, 2 * kReduceBlock,
                         kReduceBlock, x, n, out, work, stream);
}
