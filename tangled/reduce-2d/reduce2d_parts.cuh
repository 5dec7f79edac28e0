// reduce2d_parts.cuh -- block sizes, limits, float and float4 helpers.
#ifndef REDUCE2D_PARTS_CUH
#define REDUCE2D_PARTS_CUH
#include "common/book.h"
#include "common/carve.h"
#include "reduce/reduce.cuh"
#include "reduce-2d/reduce2d.h"

// <<Two-dimensional reduction constants>>
static const unsigned kBlock2d = 256;          // threads per block
static const size_t kMaxBlocks2d = 2147483647u;
static const size_t kMaxChunkBlocks = 4096;    // column sums: row chunks
// Loads in flight a thread, and grids, of the in-flight variants.
static const unsigned kRowsInFlight = 2;       // rows a thread
static const size_t kRowWaves = 8;             // grid: waves of blocks
static const unsigned kFrontBlock = 1024;      // threads a column block
static const unsigned kFrontLoads = 4;         // rows a thread at a time
static const unsigned kWideLoads = 8;          // rows a thread at a time
// Threads an SM holds on the architecture compiled for: the blocks-an-SM
// argument of __launch_bounds__ may not ask for more.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
#define SM_THREADS 1024
#elif defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 860 || \
      __CUDA_ARCH__ == 870 || __CUDA_ARCH__ == 890 || __CUDA_ARCH__ >= 1200)
#define SM_THREADS 1536
#else
#define SM_THREADS 2048
#endif

// Lanes for `units' items: the least power of two >= units, at most 32.
static inline unsigned pow2_at_most_32(size_t units)
{
    unsigned p = 1;
    while (p < 32 && p < units) p *= 2;
    return p;
}
// The workspace of the row sums of few rows and of the dot product: one
// partial for each of at most kMaxChunkBlocks blocks.
static inline float *chunk_partials_layout(book_carve *c)
{
    return (float *)book_carve_take(c, 4 * kMaxChunkBlocks, 4);
}

// <<Add a float or a float4>>
__device__ __forceinline__ float sum_of(float v) { return v; }
__device__ __forceinline__ float sum_of(float4 v)
{
    return (v.x + v.y) + (v.z + v.w);
}
template <class V> static size_t width_of() { return sizeof(V) / 4; }
__device__ __forceinline__ void add_to(float *acc, float v) { acc[0] += v; }
__device__ __forceinline__ void add_to(float *acc, float4 v)
{
    acc[0] += v.x; acc[1] += v.y; acc[2] += v.z; acc[3] += v.w;
}
#endif
