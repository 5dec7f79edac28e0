// matmul_regtile.cuh -- the 128 by 128 register tile's shared pieces.
#ifndef MATMUL_REGTILE_CUH
#define MATMUL_REGTILE_CUH
#include "matmul/matmul_launch.cuh"

// <<Register-tile constants>>
constexpr int kBM = 128, kBN = 128, kBK = 8;  // block tile, K slice
constexpr int kThreads = 256;                 // 16 x 16, 8 x 8 results each
constexpr int kApad = 4;                      // As rows of 132 floats

// <<Load four floats of a row, zeros outside>>
// The fast path (tiles that cover the matrices exactly, aligned float4s)
// or the checked one, for every other shape.
enum class Edges { exact, checked };
template <Edges EDGES>
__device__ __forceinline__ float4 mm_load4(const float *p, size_t r,
                                           size_t c, size_t rows,
                                           size_t cols)
{
    if constexpr (EDGES == Edges::exact) {
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
template <Edges EDGES>
__device__ __forceinline__ void mm_store4(float *p, size_t r, size_t c,
                                          size_t rows, size_t cols,
                                          float4 v)
{
    if constexpr (EDGES == Edges::exact) {
        *(float4 *)(p + r * cols + c) = v;
    } else if (r < rows) {
        const float w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
        for (int j = 0; j < 4; j++)
            if (c + j < cols) p[r * cols + c + j] = w[j];
    }
}

// <<Load the next slices of A and B into registers>>
template <Edges EDGES>
__device__ __forceinline__ void mm_load_slices(const float *A,
                                               const float *B, size_t M,
                                               size_t N, size_t K,
                                               size_t m0, size_t n0,
                                               size_t k0, int tid,
                                               float4 &ra, float4 &rb)
{
    ra = mm_load4<EDGES>(A, m0 + tid / 2, k0 + tid % 2 * 4, M, K);
    rb = mm_load4<EDGES>(B, k0 + tid / 32, n0 + tid % 32 * 4, K, N);
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

// <<Launch a 128 by 128 tile kernel>>
typedef void (*mm_kernel_fn)(MM_ARGS);
static inline cudaError_t mm_launch_tile128(mm_kernel_fn fast,
                                            mm_kernel_fn checked,
                                            size_t bk,   // the K slice
                                            MM_LAUNCH_ARGS)
{
    if (M == 0 || N == 0) return cudaSuccess;
    size_t gx = ceil_div(N, kBN), gy = ceil_div(M, kBM);
    if (!mm_launch_ok(A, B, C, gx, gy)) return cudaErrorInvalidValue;
    bool exact = M % kBM == 0 && N % kBN == 0 && K % bk == 0 && K > 0 &&
                 is_aligned(A, 16) && is_aligned(B, 16) && is_aligned(C, 16);
    mm_kernel_fn k = exact ? fast : checked;
    BOOK_CLEAR_TO_LAUNCH();
    k<<<dim3((unsigned)gx, (unsigned)gy), kThreads, 0, stream>>>(A, B, C, M,
                                                                 N, K);
    return cudaGetLastError();
}
#endif
