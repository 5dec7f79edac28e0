// Solution to exercise 3 of the memory chapter: drift in the AoSoA
// layout.  Lane i of a warp reads x[i] and vx[i] of one block: two runs of
// 128 bytes, four sectors each, as in the SoA layout, while a block of 32
// particles stays one contiguous kilobyte.
#include "common/book.h"
#include "memory/memory.h"
#include "memory/exercises.h"

__global__ void drift_aosoa_kernel(struct particle_block *p, size_t n,
                                   float dt)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    struct particle_block *b = &p[i / 32];
    unsigned lane = (unsigned)(i % 32);
    b->x[lane] = fmaf(b->vx[lane], dt, b->x[lane]);
}

extern "C" cudaError_t drift_aosoa(struct particle_block *p, size_t n,
                                   float dt, cudaStream_t stream)
{
    if (n == 0) return cudaSuccess;
    if (!p) return cudaErrorInvalidValue;
    size_t grid = ceil_div(n, 256);
    if (grid > 2147483647u) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    drift_aosoa_kernel<<<(unsigned)grid, 256, 0, stream>>>(p, n, dt);
    return cudaGetLastError();
}
