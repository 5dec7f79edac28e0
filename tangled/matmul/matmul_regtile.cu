// matmul_regtile.cu -- a tile of outputs a thread, held in registers.
#include "matmul/matmul_regtile.cuh"

// <<Matmul with a 1D register tile>>
__global__ void __launch_bounds__(512) mm_1d_kernel(MM_ARGS)
{
    __shared__ float As[64][8];
    __shared__ float Bs[8][64];
    const int tid = threadIdx.x, col = tid % 64, row8 = tid / 64 * 8;
    const size_t m0 = blockIdx.y * (size_t)64, n0 = blockIdx.x * (size_t)64;
    float acc[8] = {};
    for (size_t k0 = 0; k0 < K; k0 += 8) {
        size_t ar = m0 + tid / 8, ac = k0 + tid % 8;
        size_t br = k0 + tid / 64, bc = n0 + tid % 64;
        As[tid / 8][tid % 8] = ar < M && ac < K ? A[ar * K + ac] : 0.0f;
        Bs[tid / 64][tid % 64] = br < K && bc < N ? B[br * N + bc] : 0.0f;
        __syncthreads();
        // <<Multiply the 1D tile: one value of B, eight of A>>
        #pragma unroll
        for (int k = 0; k < 8; k++) {
            float b = Bs[k][col];
        #pragma unroll
            for (int i = 0; i < 8; i++) acc[i] += As[row8 + i][k] * b;
        }
        __syncthreads();
    }
    for (int i = 0; i < 8; i++)
        if (m0 + row8 + i < M && n0 + col < N)
            C[(m0 + row8 + i) * N + n0 + col] = acc[i];
}

extern "C" cudaError_t matmul_1d_blocked(MM_LAUNCH_ARGS)
{
    if (M == 0 || N == 0) return cudaSuccess;
    size_t gx = ceil_div(N, 64), gy = ceil_div(M, 64);
    if (!mm_launch_ok(A, B, C, gx, gy)) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    mm_1d_kernel<<<dim3((unsigned)gx, (unsigned)gy), 512, 0, stream>>>(
        A, B, C, M, N, K);
    return cudaGetLastError();
}

// <<Matmul with a 2D register tile>>
__global__ void __launch_bounds__(256) mm_2d_kernel(MM_ARGS)
{
    __shared__ float As[128][8];
    __shared__ float Bs[8][128];
    const int tid = threadIdx.x, ty = tid / 16, tx = tid % 16;
    const size_t m0 = blockIdx.y * (size_t)128, n0 = blockIdx.x * (size_t)128;
    float acc[8][8] = {};
    for (size_t k0 = 0; k0 < K; k0 += 8) {
        // <<Load the 2D-tile slices, four elements a thread>>
        for (int r = tid / 8; r < 128; r += 32) {
            size_t ar = m0 + r, ac = k0 + tid % 8;
            As[r][tid % 8] = ar < M && ac < K ? A[ar * K + ac] : 0.0f;
        }
        for (int r = tid / 128; r < 8; r += 2) {
            size_t br = k0 + r, bc = n0 + tid % 128;
            Bs[r][tid % 128] = br < K && bc < N ? B[br * N + bc] : 0.0f;
        }
        __syncthreads();
        // <<Multiply the 2D tile: an outer product for each k>>
        #pragma unroll
        for (int k = 0; k < 8; k++) {
            float a[8], b[8];
        #pragma unroll
            for (int i = 0; i < 8; i++) a[i] = As[ty * 8 + i][k];
        #pragma unroll
            for (int j = 0; j < 8; j++) b[j] = Bs[k][tx * 8 + j];
        #pragma unroll
            for (int i = 0; i < 8; i++)
        #pragma unroll
                for (int j = 0; j < 8; j++) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++) {
            size_t r = m0 + ty * 8 + i, c = n0 + tx * 8 + j;
            if (r < M && c < N) C[r * N + c] = acc[i][j];
        }
}

extern "C" cudaError_t matmul_2d_blocked(MM_LAUNCH_ARGS)
{
    if (M == 0 || N == 0) return cudaSuccess;
    size_t gx = ceil_div(N, 128), gy = ceil_div(M, 128);
    if (!mm_launch_ok(A, B, C, gx, gy)) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    mm_2d_kernel<<<dim3((unsigned)gx, (unsigned)gy), 256, 0, stream>>>(
        A, B, C, M, N, K);
    return cudaGetLastError();
}

// <<Multiply the slices held in shared memory>>
__device__ __forceinline__ void mm_multiply_slices(
    const float (*As)[kBM + kApad], const float (*Bs)[kBN], int tx, int ty,
    float (&acc)[8][8])
{
#pragma unroll
    for (int k = 0; k < kBK; k++) {
        const float4 a0 = *(const float4 *)&As[k][ty * 4];
        const float4 a1 = *(const float4 *)&As[k][64 + ty * 4];
        const float4 b0 = *(const float4 *)&Bs[k][tx * 4];
        const float4 b1 = *(const float4 *)&Bs[k][64 + tx * 4];
        const float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
        const float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
        for (int i = 0; i < 8; i++)
#pragma unroll
            for (int j = 0; j < 8; j++)
                acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
}

// <<Write a thread's 8 by 8 results>>
template <Edges EDGES>
__device__ __forceinline__ void mm_write_tile(float *C, size_t M, size_t N,
                                              size_t m0, size_t n0, int tx,
                                              int ty,
                                              const float (&acc)[8][8])
{
#pragma unroll
    for (int i = 0; i < 8; i++) {
        const size_t r = m0 + i / 4 * 64 + ty * 4 + i % 4;
#pragma unroll
        for (int h = 0; h < 2; h++)
            mm_store4<EDGES>(C, r, n0 + h * 64 + tx * 4, M, N,
                               make_float4(acc[i][4 * h], acc[i][4 * h + 1],
                                           acc[i][4 * h + 2],
                                           acc[i][4 * h + 3]));
    }
}

// <<Matmul with float4 loads and a transposed A tile>>
template <Edges EDGES>
__global__ void __launch_bounds__(kThreads, 2) mm_vec_kernel(MM_ARGS)
{
    __shared__ __align__(16) float As[kBK][kBM + kApad];
    __shared__ __align__(16) float Bs[kBK][kBN];
    const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
    const size_t m0 = blockIdx.y * (size_t)kBM, n0 = blockIdx.x * (size_t)kBN;
    float acc[8][8] = {};
    for (size_t k0 = 0; k0 < K; k0 += kBK) {
        float4 ra, rb;
        mm_load_slices<EDGES>(A, B, M, N, K, m0, n0, k0, tid, ra, rb);
        mm_store_slices(As, Bs, tid, ra, rb);
        __syncthreads();
        mm_multiply_slices(As, Bs, tx, ty, acc);
        __syncthreads();
    }
    mm_write_tile<EDGES>(C, M, N, m0, n0, tx, ty, acc);
}

extern "C" cudaError_t matmul_vectorized(MM_LAUNCH_ARGS)
{
    return mm_launch_tile128(mm_vec_kernel<Edges::exact>,
                             mm_vec_kernel<Edges::checked>, kBK, A, B, C, M,
                             N, K, stream);
}

// <<Matmul with double-buffered shared memory>>
template <Edges EDGES>
__global__ void __launch_bounds__(kThreads, 2) mm_dbuf_kernel(MM_ARGS)
{
    __shared__ __align__(16) float As[2][kBK][kBM + kApad];
    __shared__ __align__(16) float Bs[2][kBK][kBN];
    const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
    const size_t m0 = blockIdx.y * (size_t)kBM, n0 = blockIdx.x * (size_t)kBN;
    float acc[8][8] = {};
    float4 ra, rb;
    mm_load_slices<EDGES>(A, B, M, N, K, m0, n0, 0, tid, ra, rb);
    mm_store_slices(As[0], Bs[0], tid, ra, rb);
    __syncthreads();
    int cur = 0;
    for (size_t k0 = 0; k0 < K; k0 += kBK) {
        const bool more = k0 + kBK < K;
        if (more)          // in flight while the slice below is multiplied
            mm_load_slices<EDGES>(A, B, M, N, K, m0, n0, k0 + kBK, tid,
                                    ra, rb);
        mm_multiply_slices(As[cur], Bs[cur], tx, ty, acc);
        if (more) mm_store_slices(As[cur ^ 1], Bs[cur ^ 1], tid, ra, rb);
        __syncthreads();
        cur ^= 1;
    }
    mm_write_tile<EDGES>(C, M, N, m0, n0, tx, ty, acc);
}

extern "C" cudaError_t matmul_double_buffered(MM_LAUNCH_ARGS)
{
    return mm_launch_tile128(mm_dbuf_kernel<Edges::exact>,
                             mm_dbuf_kernel<Edges::checked>, kBK, A, B, C, M,
                             N, K, stream);
}
