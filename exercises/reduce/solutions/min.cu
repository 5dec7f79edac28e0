// Solution to exercise 5 of the reduce chapter: the minimum.  A float's bits,
// flipped so that unsigned order is float order, make min an atomicMin on
// one word: exact, and the same result in any order.  +inf is the
// identity, so an empty input gives +inf.
#include "common/book.h"
#include "reduce/reduce.h"
#include "reduce/exercises.h"

__device__ unsigned ordered_bits(float v)     // order-preserving map
{
    unsigned u = __float_as_uint(v);
    return (u & 0x80000000u) ? ~u : u | 0x80000000u;
}
__device__ float from_ordered_bits(unsigned u)
{
    return __uint_as_float((u & 0x80000000u) ? u & 0x7fffffffu : ~u);
}

__global__ void min_kernel(const float *x, size_t n, unsigned *best)
{
    float m = INFINITY;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += stride)
        m = fminf(m, x[i]);
    for (int d = 16; d > 0; d /= 2)                  // warp minimum
        m = fminf(m, __shfl_down_sync(0xffffffffu, m, d));
    if (threadIdx.x % 32 == 0) atomicMin(best, ordered_bits(m));
}

__global__ void min_init_kernel(unsigned *best)
{
    *best = ordered_bits(INFINITY);
}

__global__ void min_finish_kernel(const unsigned *best, float *out)
{
    *out = from_ordered_bits(*best);
}

extern "C" cudaError_t reduce_min(const float *x, size_t n, float *out,
                                  void *work, cudaStream_t stream)
{
    if (!x || !out || !work) return cudaErrorInvalidValue;
    unsigned *best = (unsigned *)work;
    size_t grid = n == 0 ? 1 : ceil_div(n, 256);
    if (grid > 1024) grid = 1024;                 // grid-stride beyond
    BOOK_CLEAR_TO_LAUNCH();
    min_init_kernel<<<1, 1, 0, stream>>>(best);
    min_kernel<<<(unsigned)grid, 256, 0, stream>>>(x, n, best);
    min_finish_kernel<<<1, 1, 0, stream>>>(best, out);
    return cudaGetLastError();
}
