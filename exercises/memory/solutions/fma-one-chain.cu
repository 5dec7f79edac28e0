// Solution to exercise 4 of the memory chapter: one chain of FMAs a
// thread.  Each FMA waits for the one before it, so a warp issues one
// every latency (four cycles); a sub-partition needs four warps in flight
// to issue every cycle, so 16 warps an SM; with eight independent chains
// one warp a sub-partition (four an SM) was enough.
#include "common/book.h"
#include "memory/memory.h"
#include "memory/exercises.h"

__global__ void fma_one_chain_kernel(float *out, size_t n, unsigned iters,
                                     float a, float b)
{
    size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (t >= n) return;
    float x = (float)(t % 1024);
#pragma unroll 16
    for (unsigned k = 0; k < iters; k++) x = fmaf(x, a, b);
    out[t] = x;
}

extern "C" cudaError_t fma_one_chain(float *out, size_t n, unsigned iters,
                                     float a, float b, cudaStream_t stream)
{
    if (n == 0) return cudaSuccess;
    if (!out) return cudaErrorInvalidValue;
    size_t grid = ceil_div(n, 256);
    if (grid > 2147483647u) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    fma_one_chain_kernel<<<(unsigned)grid, 256, 0, stream>>>(out, n, iters,
                                                             a, b);
    return cudaGetLastError();
}
