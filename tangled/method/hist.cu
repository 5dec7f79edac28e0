// hist.cu -- the method: byte histograms and their launchers.
#include "common/book.h"
#include "common/once_per_device.cuh"
#include "method/hist.h"

constexpr int kHistBlock = 256;

// <<Count each byte with an atomic in global memory>>
__global__ void hist_global_kernel(const unsigned char *x, size_t n,
                                   unsigned *bins)
{
    const size_t step = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += step)
        atomicAdd(&bins[x[i]], 1u);
}

// <<Count bytes in the block's own histogram>>
__global__ void hist_shared_kernel(const unsigned char *x, size_t n,
                                   unsigned *bins)
{
    __shared__ unsigned h[HIST_BINS];
    for (int b = threadIdx.x; b < HIST_BINS; b += blockDim.x) h[b] = 0;
    __syncthreads();
    const size_t step = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += step)
        atomicAdd(&h[x[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < HIST_BINS; b += blockDim.x)
        if (h[b]) atomicAdd(&bins[b], h[b]);
}

// <<Count the sixteen bytes of a load>>
// An atomic for each byte, or one for each run of equal bytes.
enum class Count { bytes, runs };
template <Count HOW>
__device__ __forceinline__ void count16(unsigned *h, uint4 v)
{
    const unsigned w[4] = {v.x, v.y, v.z, v.w};
    unsigned cur = w[0] & 255u, run = 0;
#pragma unroll
    for (int k = 0; k < 16; k++) {
        unsigned b = (w[k / 4] >> (8 * (k % 4))) & 255u;
        if (HOW == Count::bytes) { atomicAdd(&h[b], 1u); continue; }
        if (b == cur) { run++; continue; }   // the run goes on
        atomicAdd(&h[cur], run);             // one atomic for a whole run
        cur = b;
        run = 1;
    }
    if (HOW == Count::runs) atomicAdd(&h[cur], run);
}

// <<Count sixteen bytes a load into private histograms>>
template <int COPIES, Count HOW>
__global__ void hist_vec_kernel(const uint4 *x4, size_t n4,
                                const unsigned char *tail, unsigned ntail,
                                unsigned *bins)
{
    __shared__ unsigned h[COPIES * HIST_BINS];
    unsigned *mine = h + (threadIdx.x / 32 % COPIES) * HIST_BINS;
    for (int b = threadIdx.x; b < COPIES * HIST_BINS; b += blockDim.x)
        h[b] = 0;
    __syncthreads();
    const size_t step = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4;
         i += step)
        count16<HOW>(mine, x4[i]);
    if (blockIdx.x == 0 && threadIdx.x < ntail)
        atomicAdd(&mine[tail[threadIdx.x]], 1u);
    __syncthreads();
    // <<Add the private histograms to the global one>>
    for (int b = threadIdx.x; b < HIST_BINS; b += blockDim.x) {
        unsigned s = 0;
    #pragma unroll
        for (int c = 0; c < COPIES; c++) s += h[c * HIST_BINS + b];
        if (s) atomicAdd(&bins[b], s);
    }
}

// <<Check a histogram's arguments and zero its bins>>
static cudaError_t hist_begin(const unsigned char *x, size_t n,
                              unsigned *bins, int vec, cudaStream_t stream)
{
    if (!x || !bins || n >= ((size_t)1 << 32)) return cudaErrorInvalidValue;
    if (vec && !is_aligned(x, 16)) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    return cudaMemsetAsync(bins, 0, HIST_BINS * sizeof(unsigned), stream);
}
static cudaError_t hist_grid(size_t work, unsigned *grid)
{
    static per_device<int> sms;
    int s = 0;
    BOOK_TRY(once_per_device(sms, book_sm_count, &s));
    size_t want = ceil_div(work, kHistBlock), most = (size_t)s * 8;
    *grid = (unsigned)(want < 1 ? 1 : want < most ? want : most);
    return cudaSuccess;
}

// <<Launch the scalar histograms>>
extern "C" cudaError_t hist_global(const unsigned char *x, size_t n,
                                   unsigned *bins, cudaStream_t stream)
{
    unsigned grid;
    BOOK_TRY(hist_begin(x, n, bins, 0, stream));
    BOOK_TRY(hist_grid(n, &grid));
    if (n) hist_global_kernel<<<grid, kHistBlock, 0, stream>>>(x, n, bins);
    return cudaGetLastError();
}
extern "C" cudaError_t hist_shared(const unsigned char *x, size_t n,
                                   unsigned *bins, cudaStream_t stream)
{
    unsigned grid;
    BOOK_TRY(hist_begin(x, n, bins, 0, stream));
    BOOK_TRY(hist_grid(n, &grid));
    if (n) hist_shared_kernel<<<grid, kHistBlock, 0, stream>>>(x, n, bins);
    return cudaGetLastError();
}

// <<Launch the sixteen-byte histograms>>
template <int COPIES, Count HOW>
static cudaError_t hist_vec(const unsigned char *x, size_t n, unsigned *bins,
                            cudaStream_t stream)
{
    unsigned grid;
    BOOK_TRY(hist_begin(x, n, bins, 1, stream));
    size_t n4 = n / 16;
    BOOK_TRY(hist_grid(n4, &grid));
    if (n) hist_vec_kernel<COPIES, HOW><<<grid, kHistBlock, 0, stream>>>(
        (const uint4 *)x, n4, x + 16 * n4, (unsigned)(n % 16), bins);
    return cudaGetLastError();
}
extern "C" cudaError_t hist_shared_vec(const unsigned char *x, size_t n,
                                       unsigned *bins, cudaStream_t stream)
{ return hist_vec<1, Count::bytes>(x, n, bins, stream); }
extern "C" cudaError_t hist_warp(const unsigned char *x, size_t n,
                                 unsigned *bins, cudaStream_t stream)
{ return hist_vec<kHistBlock / 32, Count::bytes>(x, n, bins, stream); }
extern "C" cudaError_t hist_runs(const unsigned char *x, size_t n,
                                 unsigned *bins, cudaStream_t stream)
{ return hist_vec<kHistBlock / 32, Count::runs>(x, n, bins, stream); }
