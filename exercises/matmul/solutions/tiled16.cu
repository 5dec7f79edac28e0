// Solution to exercise 2 of the matmul chapter: 16 x 16 tiles.  Each
// element of A and B is loaded from global memory once per tile that needs
// it: with d = 16 that is 2MNK/16 loads, twice the 2MNK/32 of the
// chapter's tiles.  The kernel takes exercise 7's alpha and beta already
// (here 1 and 0); the solution of exercise 7 includes this file.
#include "common/book.h"
#include "matmul/matmul.h"
#include "matmul/exercises.h"

// One output element a thread, 16 x 16 threads a block; the block walks K
// in tiles of 16, staging a tile of A and one of B in shared memory.
// Elements past M, N or K load as 0, so the sum needs no other test.
__global__ void mm16_kernel(const float *A, const float *B, float *C,
                            size_t M, size_t N, size_t K, float alpha,
                            float beta)
{
    __shared__ float As[16][16], Bs[16][16];
    const unsigned tx = threadIdx.x, ty = threadIdx.y;
    const size_t row = blockIdx.y * (size_t)16 + ty;
    const size_t col = blockIdx.x * (size_t)16 + tx;
    float acc = 0.0f;
    for (size_t k0 = 0; k0 < K; k0 += 16) {
        As[ty][tx] = row < M && k0 + tx < K ? A[row * K + k0 + tx] : 0.0f;
        Bs[ty][tx] = k0 + ty < K && col < N ? B[(k0 + ty) * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < 16; k++) acc = fmaf(As[ty][k], Bs[k][tx], acc);
        __syncthreads();                  // before the next tile overwrites
    }
    if (row < M && col < N) {             // beta = 0: C is not read
        float c = alpha * acc;
        if (beta != 0.0f) c = fmaf(beta, C[row * N + col], c);
        C[row * N + col] = c;
    }
}

static cudaError_t mm16_launch(const float *A, const float *B, float *C,
                               size_t M, size_t N, size_t K, float alpha,
                               float beta, cudaStream_t stream)
{
    const size_t lim = (size_t)1 << 31;
    if (!A || !B || !C || M >= lim || N >= lim) return cudaErrorInvalidValue;
    if (M == 0 || N == 0) return cudaSuccess;
    size_t gx = ceil_div(N, 16), gy = ceil_div(M, 16);
    if (gy > 65535) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    mm16_kernel<<<dim3((unsigned)gx, (unsigned)gy), dim3(16, 16), 0,
                  stream>>>(A, B, C, M, N, K, alpha, beta);
    return cudaGetLastError();
}

extern "C" cudaError_t matmul_tiled16(const float *A, const float *B,
                                      float *C, size_t M, size_t N, size_t K,
                                      cudaStream_t stream)
{
    return mm16_launch(A, B, C, M, N, K, 1.0f, 0.0f, stream);
}
