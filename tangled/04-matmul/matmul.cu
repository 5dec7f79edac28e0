// matmul.cu -- chapter 4: the matrix-multiply kernels and launchers.
#include "common/book.h"
#include "04-matmul/matmul.h"

#define MM_ARGS const float *A, const float *B, float *C, size_t M, \
                size_t N, size_t K

// <<Matmul launch checks>>
static int mm_launch_ok(const float *A, const float *B, const float *C,
                        size_t gx, size_t gy)
{
    return A && B && C && gx <= 2147483647u && gy <= 65535u;
}

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

extern "C" cudaError_t matmul_naive(MM_ARGS)
{
    if (M == 0 || N == 0) return cudaSuccess;
    size_t gx = ceil_div(M, 32), gy = ceil_div(N, 32);
    if (!mm_launch_ok(A, B, C, gx, gy)) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    mm_naive_kernel<<<dim3((unsigned)gx, (unsigned)gy), dim3(32, 32)>>>(
        A, B, C, M, N, K);
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

extern "C" cudaError_t matmul_coalesced(MM_ARGS)
{
    if (M == 0 || N == 0) return cudaSuccess;
    size_t gx = ceil_div(N, 32), gy = ceil_div(M, 32);
    if (!mm_launch_ok(A, B, C, gx, gy)) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    mm_coalesced_kernel<<<dim3((unsigned)gx, (unsigned)gy),
                          dim3(32, 32)>>>(A, B, C, M, N, K);
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

extern "C" cudaError_t matmul_tiled(MM_ARGS)
{
    if (M == 0 || N == 0) return cudaSuccess;
    size_t gx = ceil_div(N, MM_TILE), gy = ceil_div(M, MM_TILE);
    if (!mm_launch_ok(A, B, C, gx, gy)) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    mm_tiled_kernel<<<dim3((unsigned)gx, (unsigned)gy),
                      dim3(MM_TILE, MM_TILE)>>>(A, B, C, M, N, K);
    return cudaGetLastError();
}

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

extern "C" cudaError_t matmul_1d_blocked(MM_ARGS)
{
    if (M == 0 || N == 0) return cudaSuccess;
    size_t gx = ceil_div(N, 64), gy = ceil_div(M, 64);
    if (!mm_launch_ok(A, B, C, gx, gy)) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    mm_1d_kernel<<<dim3((unsigned)gx, (unsigned)gy), 512>>>(A, B, C, M, N,
                                                            K);
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

extern "C" cudaError_t matmul_2d_blocked(MM_ARGS)
{
    if (M == 0 || N == 0) return cudaSuccess;
    size_t gx = ceil_div(N, 128), gy = ceil_div(M, 128);
    if (!mm_launch_ok(A, B, C, gx, gy)) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    mm_2d_kernel<<<dim3((unsigned)gx, (unsigned)gy), 256>>>(A, B, C, M, N,
                                                            K);
    return cudaGetLastError();
}

// <<Register-tile constants>>
constexpr int kBM = 128, kBN = 128, kBK = 8;  // block tile, K slice
constexpr int kThreads = 256;                 // 16 x 16, 8 x 8 results each
constexpr int kApad = 4;                      // As rows of 132 floats

// <<Load four floats of a row, zeros outside>>
template <bool Checked>
__device__ __forceinline__ float4 mm_load4(const float *p, size_t r,
                                           size_t c, size_t rows,
                                           size_t cols)
{
    if constexpr (!Checked) {
        return *(const float4 *)(p + r * cols + c);
    } else {
        float v[4];
#pragma unroll
        for (int j = 0; j < 4; j++)
            v[j] = r < rows && c + j < cols ? p[r * cols + c + j] : 0.0f;
        return make_float4(v[0], v[1], v[2], v[3]);
    }
}

// <<Store four floats of a row, only inside>>
template <bool Checked>
__device__ __forceinline__ void mm_store4(float *p, size_t r, size_t c,
                                          size_t rows, size_t cols,
                                          float4 v)
{
    if constexpr (!Checked) {
        *(float4 *)(p + r * cols + c) = v;
    } else if (r < rows) {
        const float w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
        for (int j = 0; j < 4; j++)
            if (c + j < cols) p[r * cols + c + j] = w[j];
    }
}

// <<Load the next slices of A and B into registers>>
template <bool Checked>
__device__ __forceinline__ void mm_load_slices(const float *A,
                                               const float *B, size_t M,
                                               size_t N, size_t K,
                                               size_t m0, size_t n0,
                                               size_t k0, int tid,
                                               float4 &ra, float4 &rb)
{
    ra = mm_load4<Checked>(A, m0 + tid / 2, k0 + tid % 2 * 4, M, K);
    rb = mm_load4<Checked>(B, k0 + tid / 32, n0 + tid % 32 * 4, K, N);
}

// <<Store the slices into shared memory, A transposed>>
__device__ __forceinline__ void mm_store_slices(float (*As)[kBM + kApad],
                                                float (*Bs)[kBN], int tid,
                                                float4 ra, float4 rb)
{
    const int r = tid / 2, c = tid % 2 * 4;
    As[c + 0][r] = ra.x;
    As[c + 1][r] = ra.y;
    As[c + 2][r] = ra.z;
    As[c + 3][r] = ra.w;
    *(float4 *)&Bs[tid / 32][tid % 32 * 4] = rb;
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
template <bool Checked>
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
            mm_store4<Checked>(C, r, n0 + h * 64 + tx * 4, M, N,
                               make_float4(acc[i][4 * h], acc[i][4 * h + 1],
                                           acc[i][4 * h + 2],
                                           acc[i][4 * h + 3]));
    }
}

// <<Launch a 128 by 128 tile kernel>>
typedef void (*mm_kernel_fn)(MM_ARGS);
static cudaError_t mm_launch_tile128(mm_kernel_fn fast,
                                     mm_kernel_fn checked, MM_ARGS)
{
    if (M == 0 || N == 0) return cudaSuccess;
    size_t gx = ceil_div(N, kBN), gy = ceil_div(M, kBM);
    if (!mm_launch_ok(A, B, C, gx, gy)) return cudaErrorInvalidValue;
    bool exact = M % kBM == 0 && N % kBN == 0 && K % kBK == 0 && K > 0 &&
                 is_aligned(A, 16) && is_aligned(B, 16) && is_aligned(C, 16);
    mm_kernel_fn k = exact ? fast : checked;
    BOOK_CLEAR_TO_LAUNCH();
    k<<<dim3((unsigned)gx, (unsigned)gy), kThreads>>>(A, B, C, M, N, K);
    return cudaGetLastError();
}

// <<Matmul with float4 loads and a transposed A tile>>
template <bool Checked>
__global__ void __launch_bounds__(kThreads, 2) mm_vec_kernel(MM_ARGS)
{
    __shared__ __align__(16) float As[kBK][kBM + kApad];
    __shared__ __align__(16) float Bs[kBK][kBN];
    const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
    const size_t m0 = blockIdx.y * (size_t)kBM, n0 = blockIdx.x * (size_t)kBN;
    float acc[8][8] = {};
    for (size_t k0 = 0; k0 < K; k0 += kBK) {
        float4 ra, rb;
        mm_load_slices<Checked>(A, B, M, N, K, m0, n0, k0, tid, ra, rb);
        mm_store_slices(As, Bs, tid, ra, rb);
        __syncthreads();
        mm_multiply_slices(As, Bs, tx, ty, acc);
        __syncthreads();
    }
    mm_write_tile<Checked>(C, M, N, m0, n0, tx, ty, acc);
}

extern "C" cudaError_t matmul_vectorized(MM_ARGS)
{
    return mm_launch_tile128(mm_vec_kernel<false>, mm_vec_kernel<true>, A,
                             B, C, M, N, K);
}

// <<Matmul with double-buffered shared memory>>
template <bool Checked>
__global__ void __launch_bounds__(kThreads, 2) mm_dbuf_kernel(MM_ARGS)
{
    __shared__ __align__(16) float As[2][kBK][kBM + kApad];
    __shared__ __align__(16) float Bs[2][kBK][kBN];
    const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
    const size_t m0 = blockIdx.y * (size_t)kBM, n0 = blockIdx.x * (size_t)kBN;
    float acc[8][8] = {};
    float4 ra, rb;
    mm_load_slices<Checked>(A, B, M, N, K, m0, n0, 0, tid, ra, rb);
    mm_store_slices(As[0], Bs[0], tid, ra, rb);
    __syncthreads();
    int cur = 0;
    for (size_t k0 = 0; k0 < K; k0 += kBK) {
        const bool more = k0 + kBK < K;
        if (more)          // in flight while the slice below is multiplied
            mm_load_slices<Checked>(A, B, M, N, K, m0, n0, k0 + kBK, tid,
                                    ra, rb);
        mm_multiply_slices(As[cur], Bs[cur], tx, ty, acc);
        if (more) mm_store_slices(As[cur ^ 1], Bs[cur ^ 1], tid, ra, rb);
        __syncthreads();
        cur ^= 1;
    }
    mm_write_tile<Checked>(C, M, N, m0, n0, tx, ty, acc);
}

extern "C" cudaError_t matmul_double_buffered(MM_ARGS)
{
    return mm_launch_tile128(mm_dbuf_kernel<false>, mm_dbuf_kernel<true>,
                             A, B, C, M, N, K);
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

extern "C" cudaError_t matmul_wrong_one_barrier(MM_ARGS)
{
    if (M == 0 || N == 0) return cudaSuccess;
    size_t gx = ceil_div(N, MM_TILE), gy = ceil_div(M, MM_TILE);
    if (!mm_launch_ok(A, B, C, gx, gy)) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    mm_wrong_one_barrier_kernel<<<dim3((unsigned)gx, (unsigned)gy),
                                  dim3(MM_TILE, MM_TILE)>>>(A, B, C, M, N,
                                                            K);
    return cudaGetLastError();
}
