// Solution to exercise 3 of the threads chapter: float4 after a scalar head.
// With the three pointers at the same address modulo 16, the same number of
// elements, head = (16 - address % 16) / 4 % 4, brings all three to a 16-byte
// boundary; the float4 body and a scalar tail of fewer than four elements
// follow.  Each thread adds at most one head and one tail element.
#include "common/book.h"
#include "threads/threads.h"
#include "threads/exercises.h"

__global__ void vadd_head_kernel(const float *a, const float *b, float *c,
                                 size_t n, size_t head)
{
    size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    if (t < head) c[t] = a[t] + b[t];                    // the head
    size_t nv = (n - head) / 4;                          // whole float4s
    const float4 *a4 = (const float4 *)(a + head);
    const float4 *b4 = (const float4 *)(b + head);
    float4 *c4 = (float4 *)(c + head);
    for (size_t v = t; v < nv; v += stride) {
        float4 x = a4[v], y = b4[v];
        c4[v] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
    size_t i = head + 4 * nv + t;                        // the tail
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" cudaError_t vadd_float4_head(const float *a, const float *b,
                                        float *c, size_t n,
                                        cudaStream_t stream)
{
    if (n == 0) return cudaSuccess;
    if (!a || !b || !c || !is_aligned(a, 4) || !is_aligned(b, 4) ||
        !is_aligned(c, 4))
        return cudaErrorInvalidValue;
    size_t off = (uintptr_t)a % 16;
    if ((uintptr_t)b % 16 != off || (uintptr_t)c % 16 != off)
        return cudaErrorInvalidValue;
    size_t head = (16 - off) / 4 % 4;
    if (head > n) head = n;
    size_t grid = ceil_div((n - head) / 4 + 1, 256);
    if (grid > 4096) grid = 4096;                        // grid-stride
    BOOK_CLEAR_TO_LAUNCH();
    vadd_head_kernel<<<(unsigned)grid, 256, 0, stream>>>(a, b, c, n, head);
    return cudaGetLastError();
}
