// Solution to exercise 2 of the threads chapter: vadd on a two-dimensional
// grid.  The blocks are numbered row by row,
// blockIdx.y * gridDim.x + blockIdx.x, in 64 bits; the last row of blocks
// may run past n, hence the test.
#include "common/book.h"
#include "threads/threads.h"
#include "threads/exercises.h"

__global__ void vadd_2d_kernel(const float *a, const float *b, float *c,
                               size_t n)
{
    size_t block = (size_t)blockIdx.y * gridDim.x + blockIdx.x;
    size_t i = block * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" cudaError_t vadd_2d(const float *a, const float *b, float *c,
                               size_t n, cudaStream_t stream)
{
    if (n == 0) return cudaSuccess;
    if (!a || !b || !c || n > VADD_2D_MAX_N) return cudaErrorInvalidValue;
    size_t blocks = ceil_div(n, 256);
    size_t gx = blocks < 65535 ? blocks : 65535;
    size_t gy = ceil_div(blocks, gx);              // at most 65535
    BOOK_CLEAR_TO_LAUNCH();
    vadd_2d_kernel<<<dim3((unsigned)gx, (unsigned)gy), 256, 0, stream>>>(
        a, b, c, n);
    return cudaGetLastError();
}
