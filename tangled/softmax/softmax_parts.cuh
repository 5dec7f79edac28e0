// softmax_parts.cuh -- constants, checks and block pieces all files share.
#ifndef SOFTMAX_PARTS_CUH
#define SOFTMAX_PARTS_CUH
#include "common/book.h"
#include "common/carve.h"
#include "reduce/reduce.cuh"
#include "softmax/online_pair.h"
#include "softmax/softmax.h"

// <<Softmax launch constants>>
static const unsigned kSmBlock = 256;             // threads per block
static const unsigned kSmRowsPerBlock = kSmBlock / 32;  // warp per row
static const size_t kSmMaxGrid = 2147483647u;     // 2^31 - 1 blocks

// <<Softmax launcher checks>>
static inline bool softmax_apart(const float *x, const float *y, size_t n)
{
    return n <= SIZE_MAX / sizeof(float) &&     // n floats fit in bytes
           !ranges_overlap(x, n * sizeof(float), y, n * sizeof(float));
}
static inline cudaError_t softmax_check(const float *x, const float *y,
                                        size_t rows, size_t cols,
                                        size_t grid)
{
    if (!x || !y) return cudaErrorInvalidValue;
    if (rows > SIZE_MAX / cols || !softmax_apart(x, y, rows * cols))
        return cudaErrorInvalidValue;
    if (grid > kSmMaxGrid) return cudaErrorInvalidValue;
    return cudaSuccess;
}

// <<Softmax helpers for float4>>
__device__ __forceinline__ float max4(float4 v)
{
    return fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w));
}
__device__ __forceinline__ float weight4(float4 v, float m)
{
    return md_weight(v.x, m) + md_weight(v.y, m) + md_weight(v.z, m) +
           md_weight(v.w, m);
}
__device__ __forceinline__ float4 prob4(float4 v, float m, float inv)
{
    return make_float4(md_weight(v.x, m) * inv, md_weight(v.y, m) * inv,
                       md_weight(v.z, m) * inv, md_weight(v.w, m) * inv);
}
__device__ __forceinline__ float4 neg_inf4(void)
{
    return make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
}

// <<Block-wide reduction of (m, d) pairs>>
__device__ __forceinline__ md_t md_warp_reduce(md_t v)
{
    for (int offset = 16; offset > 0; offset /= 2) {
        md_t o;
        o.m = __shfl_xor_sync(0xffffffffu, v.m, offset);
        o.d = __shfl_xor_sync(0xffffffffu, v.d, offset);
        v = md_combine(v, o);
    }
    return v;
}

struct MdWarpOp {
    __device__ md_t operator()(md_t v) const { return md_warp_reduce(v); }
};
template <unsigned BLOCK> __device__ md_t md_block_reduce(md_t v)
{
    __shared__ md_t part[32];
    return block_reduce<BLOCK>(v, md_identity(), MdWarpOp(), part);
}

// <<Whole-array constants, and a float4 as one pair>>
static const unsigned kWholeBlocks = 1024;  // partial pairs, at most

// The work buffer: a pair for each of at most kWholeBlocks blocks.
static inline md_t *whole_work_layout(book_carve *c)
{
    return (md_t *)book_carve_take(c, kWholeBlocks * sizeof(md_t), 8);
}
static inline md_t *whole_work_at(void *work)
{
    book_carve c = {(char *)work, 0, 0};
    return whole_work_layout(&c);
}

__device__ __forceinline__ md_t md_of4(float4 v)
{
    md_t r;
    r.m = max4(v);
    r.d = weight4(v, r.m);
    return r;
}
#endif
