// memory.cu -- kernels that measure the memory hierarchy.
#include <stdlib.h>
#include "common/book.h"
#include "memory/memory.h"

// <<Launch constants and the full wave>>
static const unsigned kMemBlock = 256;
static const size_t kMemMaxGrid = 2147483647u;   // 2^31 - 1 blocks

static cudaError_t mem_full_wave(unsigned *blocks)
{
    int sms, dev, threads;               // threads: resident ones an SM holds
    BOOK_TRY(book_sm_count(&sms));
    BOOK_TRY(cudaGetDevice(&dev));
    BOOK_TRY(cudaDeviceGetAttribute(
        &threads, cudaDevAttrMaxThreadsPerMultiProcessor, dev));
    *blocks = (unsigned)sms * ((unsigned)threads / kMemBlock);
    return cudaSuccess;
}

// <<Streaming copy>>
__global__ void mem_copy_kernel(const float4 *__restrict__ in,
                                float4 *__restrict__ out, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t n4 = n / 4;
    if (i < n4) out[i] = in[i];
    if (i < n % 4)
        ((float *)out)[4 * n4 + i] = ((const float *)in)[4 * n4 + i];
}

extern "C" cudaError_t mem_copy(const float *in, float *out, size_t n,
                                cudaStream_t stream)
{
    if (n == 0) return cudaSuccess;
    if (!in || !out || n > SIZE_MAX / sizeof(float))
        return cudaErrorInvalidValue;
    if (ranges_overlap(in, n * sizeof(float), out, n * sizeof(float)))
        return cudaErrorInvalidValue;        // the kernel's __restrict__
    if (!is_aligned(in, 16) || !is_aligned(out, 16)) {
        // <<Copy up to a 16-byte boundary, then align>>
        size_t gap = (uintptr_t)in % 16, head = (16 - gap) / 4;   // floats
        if (gap % 4 != 0 || (uintptr_t)out % 4 != 0)
            return cudaErrorInvalidValue;           // not float-aligned: would fault
        if (gap != (uintptr_t)out % 16 || n <= head)
            return mem_copy_strided(in, out, n, 1, 0, stream);       // scalar
        BOOK_TRY(mem_copy_strided(in, out, head, 1, 0, stream));
        return mem_copy(in + head, out + head, n - head, stream);   // aligned now
    }
    size_t grid = ceil_div(n / 4 > 0 ? n / 4 : 1, kMemBlock);
    if (grid > kMemMaxGrid) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    mem_copy_kernel<<<(unsigned)grid, kMemBlock, 0, stream>>>(
        (const float4 *)in, (float4 *)out, n);
    return cudaGetLastError();
}

// <<Read-only stream>>
__global__ void mem_read_sum_kernel(const float4 *__restrict__ in,
                                    size_t n, unsigned passes, float *sum)
{
    size_t n4 = n / 4, stride = (size_t)gridDim.x * blockDim.x;
    size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    float s = 0.0f;
    for (unsigned p = 0; p < passes; p++) {
        for (size_t i = t; i < n4; i += stride) {
            float4 v = __ldcg(&in[i]);
            s += (v.x + v.y) + (v.z + v.w);
        }
        if (t < n % 4) s += __ldcg((const float *)in + 4 * n4 + t);
    }
    // <<Add the block's sum into the total>>
    __shared__ float warp_sum[kMemBlock / 32];
    for (int d = 16; d > 0; d /= 2)
        s += __shfl_down_sync(0xffffffffu, s, d);
    if (threadIdx.x % 32 == 0) warp_sum[threadIdx.x / 32] = s;
    __syncthreads();                        // every warp's total is written
    if (threadIdx.x == 0) {
        for (unsigned w = 1; w < kMemBlock / 32; w++) s += warp_sum[w];
        atomicAdd(sum, s);
    }
}
extern "C" cudaError_t mem_read_sum(const float *in, size_t n,
                                    unsigned passes, float *sum,
                                    cudaStream_t stream)
{
    if (!sum) return cudaErrorInvalidValue;
    if (n == 0 || passes == 0) return cudaSuccess;
    if (!in || !is_aligned(in, 16)) return cudaErrorInvalidValue;
    unsigned blocks;
    BOOK_TRY(mem_full_wave(&blocks));
    size_t useful = ceil_div(n / 4 > 0 ? n / 4 : 1, kMemBlock);
    if (useful < blocks) blocks = (unsigned)useful;   // no empty blocks
    BOOK_CLEAR_TO_LAUNCH();
    mem_read_sum_kernel<<<blocks, kMemBlock, 0, stream>>>(
        (const float4 *)in, n, passes, sum);
    return cudaGetLastError();
}

// <<A random cycle for the pointer chase>>
static unsigned long long mem_splitmix(unsigned long long *s)
{
    unsigned long long z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

extern "C" cudaError_t mem_chase_cycle(size_t *next, size_t nodes,
                                       size_t stride,
                                       unsigned long long seed,
                                       cudaStream_t stream)
{
    if (!next || nodes == 0 || stride == 0) return cudaErrorInvalidValue;
    if (nodes > SIZE_MAX / sizeof(size_t) / stride)
        return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    size_t len = nodes * stride;
    size_t *h = (size_t *)calloc(len, sizeof *h);
    if (!h) return cudaErrorMemoryAllocation;
    for (size_t k = 0; k < nodes; k++) h[k * stride] = k;
    for (size_t k = nodes - 1; k > 0; k--) {     // Sattolo: j < k, never k
        size_t j = (size_t)(mem_splitmix(&seed) % k), t = h[k * stride];
        h[k * stride] = h[j * stride];
        h[j * stride] = t;
    }
    for (size_t k = 0; k < nodes; k++) h[k * stride] *= stride;
    cudaError_t e = cudaMemcpyAsync(next, h, len * sizeof *h,
                                    cudaMemcpyHostToDevice, stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(stream);  // then free h
    free(h);
    return e;
}

// <<Pointer chase>>
__global__ void mem_chase_kernel(const size_t *next, size_t len,
                                 size_t steps, size_t *pos)
{
    size_t i = *pos;
    for (size_t s = 0; s < steps && i < len; s++)
        i = __ldcg(next + i);       // the next address is this load's value
    *pos = i;
}

extern "C" cudaError_t mem_chase(const size_t *next, size_t len,
                                 size_t steps, size_t *pos,
                                 cudaStream_t stream)
{
    if (!next || !pos || len == 0) return cudaErrorInvalidValue;
    if (steps == 0) return cudaSuccess;
    BOOK_CLEAR_TO_LAUNCH();
    mem_chase_kernel<<<1, 1, 0, stream>>>(next, len, steps, pos);
    return cudaGetLastError();
}

// <<Copy with a stride and an offset>>
__global__ void mem_copy_strided_kernel(const float *in, float *out,
                                        size_t count, size_t stride,
                                        size_t offset)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < count) {
        size_t j = offset + i * stride;
        out[j] = in[j];
    }
}
extern "C" cudaError_t mem_copy_strided(const float *in, float *out,
                                        size_t len, size_t stride,
                                        size_t offset, cudaStream_t stream)
{
    if (stride == 0) return cudaErrorInvalidValue;
    if (offset >= len) return cudaSuccess;
    if (!in || !out) return cudaErrorInvalidValue;
    size_t count = ceil_div(len - offset, stride);
    size_t grid = ceil_div(count, kMemBlock);
    if (grid > kMemMaxGrid) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    mem_copy_strided_kernel<<<(unsigned)grid, kMemBlock, 0, stream>>>(
        in, out, count, stride, offset);
    return cudaGetLastError();
}

// <<Peak FMA throughput>>
__global__ void fma_peak_kernel(float *out, size_t n, unsigned iters,
                                float a, float b)
{
    size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (t >= n) return;
    float x[8];
    for (int j = 0; j < 8; j++) x[j] = (float)(t % 1024) + 0.125f * j;
#pragma unroll 16
    for (unsigned k = 0; k < iters; k++)
        for (int j = 0; j < 8; j++) x[j] = fmaf(x[j], a, b);
    float s = 0.0f;
    for (int j = 0; j < 8; j++) s += x[j];
    out[t] = s;         // a result, so the compiler keeps the work
}
extern "C" cudaError_t fma_peak(float *out, size_t n, unsigned iters,
                                float a, float b, cudaStream_t stream)
{
    if (n == 0) return cudaSuccess;
    if (!out) return cudaErrorInvalidValue;
    size_t grid = ceil_div(n, kMemBlock);
    if (grid > kMemMaxGrid) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    fma_peak_kernel<<<(unsigned)grid, kMemBlock, 0, stream>>>(
        out, n, iters, a, b);
    return cudaGetLastError();
}

// <<Drift particles stored as structs>>
__global__ void drift_aos_kernel(struct particle *p, size_t n, float dt)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) p[i].x = fmaf(p[i].vx, dt, p[i].x);
}

extern "C" cudaError_t drift_aos(struct particle *p, size_t n, float dt,
                                 cudaStream_t stream)
{
    if (n == 0) return cudaSuccess;
    if (!p) return cudaErrorInvalidValue;
    size_t grid = ceil_div(n, kMemBlock);
    if (grid > kMemMaxGrid) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    drift_aos_kernel<<<(unsigned)grid, kMemBlock, 0, stream>>>(p, n, dt);
    return cudaGetLastError();
}

// <<Drift particles stored as arrays>>
__global__ void drift_soa_kernel(float *x, const float *vx, size_t n,
                                 float dt)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) x[i] = fmaf(vx[i], dt, x[i]);
}

extern "C" cudaError_t drift_soa(struct particles p, size_t n, float dt,
                                 cudaStream_t stream)
{
    if (n == 0) return cudaSuccess;
    if (!p.x || !p.vx) return cudaErrorInvalidValue;
    size_t grid = ceil_div(n, kMemBlock);
    if (grid > kMemMaxGrid) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    drift_soa_kernel<<<(unsigned)grid, kMemBlock, 0, stream>>>(
        p.x, p.vx, n, dt);
    return cudaGetLastError();
}

// <<Drift particles stored as arrays, four a thread>>
__global__ void drift_soa4_kernel(float *x, const float *vx, size_t n,
                                  float dt)
{
    size_t i = blockIdx.x * (size_t)blockDim.x * 4 + threadIdx.x;
    float a[4], v[4];
#pragma unroll
    for (unsigned u = 0; u < 4; u++) {   // all eight loads first
        size_t j = i + u * blockDim.x;
        a[u] = j < n ? x[j] : 0.0f;
        v[u] = j < n ? vx[j] : 0.0f;
    }
#pragma unroll
    for (unsigned u = 0; u < 4; u++) {
        size_t j = i + u * blockDim.x;
        if (j < n) x[j] = fmaf(v[u], dt, a[u]);
    }
}

extern "C" cudaError_t drift_soa4(struct particles p, size_t n, float dt,
                                  cudaStream_t stream)
{
    if (n == 0) return cudaSuccess;
    if (!p.x || !p.vx) return cudaErrorInvalidValue;
    size_t grid = ceil_div(n, 4 * (size_t)kMemBlock);
    if (grid > kMemMaxGrid) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    drift_soa4_kernel<<<(unsigned)grid, kMemBlock, 0, stream>>>(
        p.x, p.vx, n, dt);
    return cudaGetLastError();
}
