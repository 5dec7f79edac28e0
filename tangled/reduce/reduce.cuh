// reduce.cuh -- the reduce chapter's warp and block reductions, which later
// chapters share.  Include as "reduce/reduce.cuh" from .cu files.
#ifndef REDUCE_CUH
#define REDUCE_CUH
#include <math.h>

// <<Warp-shuffle sum>>
__device__ __forceinline__ float warp_sum(float v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
}

// <<Warp-shuffle max>>
__device__ __forceinline__ float warp_max(float v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
    return v;
}

// <<Block-wide reduction from warp results>>
template <unsigned BLOCK, typename T, typename Op>
__device__ __forceinline__ T block_reduce(T v, T identity, Op warp_op,
                                          T *warp_part)
{
    static_assert(BLOCK % 32 == 0 && BLOCK >= 32 && BLOCK <= 1024,
                  "BLOCK must be a multiple of 32, at most 1024");
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_op(v);
    __syncthreads();              // a previous call's reads are done
    if (lane == 0) warp_part[warp] = v;
    __syncthreads();              // every warp's result is written
    v = lane < BLOCK / 32 ? warp_part[lane] : identity;
    return warp_op(v);            // every warp combines them: all
}                                 // threads of the block get the result

// <<Block-wide sum and max>>
struct WarpSumOp_ {
    __device__ float operator()(float v) const { return warp_sum(v); }
};
struct WarpMaxOp_ {
    __device__ float operator()(float v) const { return warp_max(v); }
};
template <unsigned BLOCK> __device__ float block_sum(float v)
{
    __shared__ float warp_part[32];
    return block_reduce<BLOCK>(v, 0.0f, WarpSumOp_(), warp_part);
}
template <unsigned BLOCK> __device__ float block_max(float v)
{
    __shared__ float warp_part[32];
    return block_reduce<BLOCK>(v, -INFINITY, WarpMaxOp_(), warp_part);
}
#endif
