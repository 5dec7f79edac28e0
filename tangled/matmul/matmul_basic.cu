// matmul_basic.cu -- one output a thread: naive, coalesced, shared tiles.
#include "matmul/matmul_launch.cuh"

// <<Naive matmul, x walks the rows>>
__global__ void mm_naive_kernel(MM_ARGS)
{
    size_t row = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t col = blockIdx.y * (size_t)blockDim.y + threadIdx.y;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (size_t k = 0; k < K; k++)
            acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}

extern "C" cudaError_t matmul_naive(MM_LAUNCH_ARGS)
{
    if (M == 0 || N == 0) return cudaSuccess;
    size_t gx = ceil_div(M, 32), gy = ceil_div(N, 32);
    if (!mm_launch_ok(A, B, C, gx, gy)) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    mm_naive_kernel<<<dim3((unsigned)gx, (unsigned)gy), dim3(32, 32), 0,
                      stream>>>(A, B, C, M, N, K);
    return cudaGetLastError();
}

// <<Coalesced matmul, x walks the columns>>
__global__ void mm_coalesced_kernel(MM_ARGS)
{
    size_t col = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t row = blockIdx.y * (size_t)blockDim.y + threadIdx.y;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (size_t k = 0; k < K; k++)
            acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}

extern "C" cudaError_t matmul_coalesced(MM_LAUNCH_ARGS)
{
    if (M == 0 || N == 0) return cudaSuccess;
    size_t gx = ceil_div(N, 32), gy = ceil_div(M, 32);
    if (!mm_launch_ok(A, B, C, gx, gy)) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    mm_coalesced_kernel<<<dim3((unsigned)gx, (unsigned)gy), dim3(32, 32),
                          0, stream>>>(A, B, C, M, N, K);
    return cudaGetLastError();
}

// <<Shared-memory tiled matmul>>
#define MM_TILE 32
__global__ void mm_tiled_kernel(MM_ARGS)
{
    __shared__ float As[MM_TILE][MM_TILE];
    __shared__ float Bs[MM_TILE][MM_TILE];
    const unsigned tx = threadIdx.x, ty = threadIdx.y;
    const size_t row = blockIdx.y * (size_t)MM_TILE + ty;
    const size_t col = blockIdx.x * (size_t)MM_TILE + tx;
    float acc = 0.0f;
    for (size_t k0 = 0; k0 < K; k0 += MM_TILE) {
        // <<Load one tile of A and one of B, zeros outside>>
        As[ty][tx] = row < M && k0 + tx < K ? A[row * K + k0 + tx] : 0.0f;
        Bs[ty][tx] = k0 + ty < K && col < N ? B[(k0 + ty) * N + col] : 0.0f;
        __syncthreads();      // the tiles are complete before anyone reads
        for (int k = 0; k < MM_TILE; k++)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();      // no one still reads when the next load writes
    }
    if (row < M && col < N) C[row * N + col] = acc;
}

extern "C" cudaError_t matmul_tiled(MM_LAUNCH_ARGS)
{
    if (M == 0 || N == 0) return cudaSuccess;
    size_t gx = ceil_div(N, MM_TILE), gy = ceil_div(M, MM_TILE);
    if (!mm_launch_ok(A, B, C, gx, gy)) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    mm_tiled_kernel<<<dim3((unsigned)gx, (unsigned)gy),
                      dim3(MM_TILE, MM_TILE), 0, stream>>>(A, B, C, M, N, K);
    return cudaGetLastError();
}

// <<Wrong on purpose: the tiled matmul without its second barrier>>
__global__ void mm_wrong_one_barrier_kernel(MM_ARGS)
{
    __shared__ float As[MM_TILE][MM_TILE];
    __shared__ float Bs[MM_TILE][MM_TILE];
    const unsigned tx = threadIdx.x, ty = threadIdx.y;
    const size_t row = blockIdx.y * (size_t)MM_TILE + ty;
    const size_t col = blockIdx.x * (size_t)MM_TILE + tx;
    float acc = 0.0f;
    for (size_t k0 = 0; k0 < K; k0 += MM_TILE) {
        // <<Load one tile of A and one of B, zeros outside>>
        As[ty][tx] = row < M && k0 + tx < K ? A[row * K + k0 + tx] : 0.0f;
        Bs[ty][tx] = k0 + ty < K && col < N ? B[(k0 + ty) * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < MM_TILE; k++)
            acc += As[ty][k] * Bs[k][tx];
        // WRONG: no barrier here; the next load may overwrite a tile
        // that other warps are still reading.
    }
    if (row < M && col < N) C[row * N + col] = acc;
}

extern "C" cudaError_t matmul_wrong_one_barrier(MM_LAUNCH_ARGS)
{
    if (M == 0 || N == 0) return cudaSuccess;
    size_t gx = ceil_div(N, MM_TILE), gy = ceil_div(M, MM_TILE);
    if (!mm_launch_ok(A, B, C, gx, gy)) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    mm_wrong_one_barrier_kernel<<<dim3((unsigned)gx, (unsigned)gy),
                                  dim3(MM_TILE, MM_TILE), 0, stream>>>(
        A, B, C, M, N, K);
    return cudaGetLastError();
}
