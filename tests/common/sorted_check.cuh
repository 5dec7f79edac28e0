// sorted_check.cuh -- the benchmarks' check of a sort's output, on the
// device and of every key, not a sample: a benchmark that times a wrong
// sort measures nothing.  Two kernels and their host calls (which wait
// for the device: call them outside the timed work):
//   sc_descents(keys, n, order)  the i in [1, n) with keys[i] before
//                                keys[i - 1] in the order (0: none)
//   sc_hash(keys, n)             a sum of a 64-bit mix of every key, which
//                                does not depend on their order: the same
//                                before and after a sort of the same keys
// Keys: unsigned, unsigned long long, or float by absolute value
// (SC_ABS_F32, the merge chapter's |x| order; the bits of a float key).
#ifndef SORTED_CHECK_CUH
#define SORTED_CHECK_CUH
#include <cuda_runtime.h>
#include <stddef.h>
#include "common/book.h"

enum sc_order { SC_BITS, SC_ABS_F32 };

__device__ inline unsigned long long sc_mix(unsigned long long z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
template <typename K>
__device__ inline bool sc_before(K x, K y, sc_order o)
{
    if (o == SC_ABS_F32)
        return fabsf(__uint_as_float((unsigned)x)) <
               fabsf(__uint_as_float((unsigned)y));
    return x < y;
}
template <typename K>
__global__ void sc_descents_kernel(const K *k, size_t n, sc_order o,
                                   unsigned long long *count)
{
    unsigned long long c = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x + 1; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        c += sc_before(k[i], k[i - 1], o);
    if (c) atomicAdd(count, c);
}
template <typename K>
__global__ void sc_hash_kernel(const K *k, size_t n, unsigned long long *sum)
{
    unsigned long long s = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        s += sc_mix((unsigned long long)k[i]);
    atomicAdd(sum, s);
}
// One launch's result, through a word of device memory of its own.
template <typename F>
static unsigned long long sc_reduce(F launch)
{
    unsigned long long *d, h = 0;
    BOOK_CHECK(cudaMalloc(&d, sizeof *d));
    BOOK_CHECK(cudaMemset(d, 0, sizeof *d));
    launch(d);
    BOOK_CHECK(cudaGetLastError());
    BOOK_CHECK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
    BOOK_CHECK(cudaFree(d));
    return h;
}
template <typename K>
static unsigned long long sc_descents(const K *k, size_t n,
                                      sc_order o = SC_BITS)
{
    return sc_reduce([&](unsigned long long *d) {
        sc_descents_kernel<<<1024, 256>>>(k, n, o, d);
    });
}
template <typename K>
static unsigned long long sc_hash(const K *k, size_t n)
{
    return sc_reduce([&](unsigned long long *d) {
        sc_hash_kernel<<<1024, 256>>>(k, n, d);
    });
}
#endif
