// Solution to exercise 6 of the method chapter: nbins bins.  The chapter's
// shared-memory histogram with the bin computed per byte: one private
// copy of nbins counters a block (dynamic shared memory), merged with
// nbins global atomics a block.  Fewer bins mean more collisions on each.
#include "common/book.h"
#include "method/hist.h"
#include "method/exercises.h"

__global__ void hist_nbins_kernel(const unsigned char *x, size_t n,
                                  int nbins, unsigned *bins)
{
    extern __shared__ unsigned h[];
    for (int b = threadIdx.x; b < nbins; b += blockDim.x) h[b] = 0;
    __syncthreads();
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += stride)
        atomicAdd(&h[(unsigned)x[i] * (unsigned)nbins / 256u], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < nbins; b += blockDim.x)
        if (h[b]) atomicAdd(&bins[b], h[b]);
}

extern "C" cudaError_t hist_nbins(const unsigned char *x, size_t n,
                                  int nbins, unsigned *bins,
                                  cudaStream_t stream)
{
    if (!x || !bins || n >= ((size_t)1 << 32) || nbins < 1 || nbins > 256)
        return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    BOOK_TRY(cudaMemsetAsync(bins, 0, (size_t)nbins * sizeof *bins,
                             stream));
    if (n == 0) return cudaSuccess;
    size_t grid = ceil_div(n, 256);
    if (grid > 1024) grid = 1024;                 // grid-stride beyond
    hist_nbins_kernel<<<(unsigned)grid, 256, nbins * sizeof(unsigned),
                        stream>>>(x, n, nbins, bins);
    return cudaGetLastError();
}
