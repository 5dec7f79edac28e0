// Solution to exercise 5 of the reduce chapter: the index of the first
// maximum.  The pair (value, index) packs into one 64-bit key: the value's
// bits, flipped so that unsigned order is float order, above the complement
// of the index, so that of two equal values the smaller index has the larger
// key.  argmax is then atomicMax of keys: exact, and order-free.  The
// identity is the key 0, below every value (-inf included) and every
// index; it is why n must be at least 1 and below 2^32.  -0 is keyed as
// +0: they are equal, so the first of them is the maximum.
#include "common/book.h"
#include "reduce/reduce.h"
#include "reduce/exercises.h"

__device__ unsigned long long argmax_key(float v, size_t i)
{
    unsigned u = __float_as_uint(v == 0.0f ? 0.0f : v);   // -0 == +0
    u = (u & 0x80000000u) ? ~u : u | 0x80000000u;
    return (unsigned long long)u << 32 | (0xffffffffu - (unsigned)i);
}

__global__ void argmax_kernel(const float *x, size_t n,
                              unsigned long long *best)
{
    unsigned long long k = 0;                     // the identity
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += stride) {
        unsigned long long c = argmax_key(x[i], i);
        k = c > k ? c : k;
    }
    for (int d = 16; d > 0; d /= 2) {             // warp maximum
        unsigned long long o = __shfl_down_sync(0xffffffffu, k, d);
        k = o > k ? o : k;
    }
    if (threadIdx.x % 32 == 0) atomicMax(best, k);
}

__global__ void argmax_finish_kernel(const unsigned long long *best,
                                     size_t *idx)
{
    *idx = 0xffffffffu - (unsigned)(*best & 0xffffffffu);
}

extern "C" cudaError_t reduce_argmax(const float *x, size_t n, size_t *idx,
                                     void *work, cudaStream_t stream)
{
    if (!x || !idx || !work || n == 0 || n >= ((size_t)1 << 32))
        return cudaErrorInvalidValue;
    unsigned long long *best = (unsigned long long *)work;
    size_t grid = ceil_div(n, 256);
    if (grid > 1024) grid = 1024;                 // grid-stride beyond
    BOOK_CLEAR_TO_LAUNCH();
    BOOK_TRY(cudaMemsetAsync(best, 0, sizeof *best, stream));
    argmax_kernel<<<(unsigned)grid, 256, 0, stream>>>(x, n, best);
    argmax_finish_kernel<<<1, 1, 0, stream>>>(best, idx);
    return cudaGetLastError();
}
