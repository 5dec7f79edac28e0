// tc_mma.sm80.cu -- mma.sync on fragments that ldmatrix loads from
// swizzled shared tiles, fed by a cp.async pipeline of three stages.
#include "tensor-gemm/tc_args.cuh"
#include "arch/sm80.cuh"

namespace {
constexpr int MM_BM = 128, MM_BN = 128, MM_BK = 64, MM_STAGES = 3;
constexpr int MM_THREADS = 128;
constexpr int MM_A_BYTES = MM_BM * MM_BK * 2, MM_B_BYTES = MM_BK * MM_BN * 2;
constexpr int MM_STAGE_BYTES = MM_A_BYTES + MM_B_BYTES;
constexpr int MM_SMEM = MM_STAGES * MM_STAGE_BYTES;
// The shared tiles swizzled, or not: slower on purpose, its ldmatrix
// loads conflict.
enum class Swizzle { on, off };

// <<The offset of a chunk, swizzled or not>>
template <Swizzle SWZ>
__device__ __forceinline__ uint32_t mm_off(int r, int c)
{
    return SWZ == Swizzle::on ? swz128(r, c)
                              : (uint32_t)(r * 128 + c * 16);
}

// <<Copy one stage of A and B with cp.async>>
template <Swizzle SWZ>
__device__ __forceinline__ void
mm_load_stage(uint32_t sa, const __nv_bfloat16 *A, const __nv_bfloat16 *B,
              int M, int N, int K, int m0, int n0, int k0)
{
    const uint32_t sb = sa + MM_A_BYTES;
#pragma unroll
    for (int q = 0; q < MM_BM * MM_BK / 8 / MM_THREADS; q++) {
        int e = threadIdx.x + q * MM_THREADS, r = e / 8, c = e % 8;
        int gr = m0 + r, gc = k0 + 8 * c;
        bool ok = gr < M && gc < K;
        cp_async16(sa + mm_off<SWZ>(r, c),
                   ok ? A + (size_t)gr * K + gc : A, ok ? 16 : 0);
    }
#pragma unroll
    for (int q = 0; q < MM_BK * MM_BN / 8 / MM_THREADS; q++) {
        int e = threadIdx.x + q * MM_THREADS, r = e / 16, c = e % 16;
        int gr = k0 + r, gc = n0 + 8 * c;
        bool ok = gr < K && gc < N;
        cp_async16(sb + (c / 8) * (MM_BK * 128) + mm_off<SWZ>(r, c % 8),
                   ok ? B + (size_t)gr * N + gc : B, ok ? 16 : 0);
    }
}

// <<The mma.sync kernel>>
template <Swizzle SWZ>
__global__ void __launch_bounds__(MM_THREADS)
mma_kernel(const __nv_bfloat16 *A, const __nv_bfloat16 *B, void *C,
           tc_out out, int M, int N, int K)
{
    extern __shared__ __align__(128) uint8_t smem[];
    const uint32_t s0 = smem_addr(smem);
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int wr = warp / 2, wc = warp % 2;
    const int m0 = blockIdx.y * MM_BM, n0 = blockIdx.x * MM_BN;
    const int KT = (K + MM_BK - 1) / MM_BK;
    float acc[4][8][4] = {};
#pragma unroll
    for (int s = 0; s < MM_STAGES - 1; s++) {
        if (s < KT)
            mm_load_stage<SWZ>(s0 + s * MM_STAGE_BYTES, A, B, M, N, K, m0,
                               n0, s * MM_BK);
        cp_async_commit();
    }
    for (int kt = 0; kt < KT; kt++) {
        cp_async_wait<MM_STAGES - 2>();
        __syncthreads();
        int nk = kt + MM_STAGES - 1;
        if (nk < KT)
            mm_load_stage<SWZ>(s0 + (nk % MM_STAGES) * MM_STAGE_BYTES, A, B,
                               M, N, K, m0, n0, nk * MM_BK);
        cp_async_commit();
        const uint32_t sa = s0 + (kt % MM_STAGES) * MM_STAGE_BYTES;
        const uint32_t sb = sa + MM_A_BYTES;
        // <<Multiply one stage with ldmatrix and mma.sync>>
        #pragma unroll
        for (int ks = 0; ks < MM_BK / 16; ks++) {
            uint32_t a[4][4], b[8][2];
        #pragma unroll
            for (int i = 0; i < 4; i++) {
                int row = wr * 64 + i * 16 + (lane & 15);
                int chunk = 2 * ks + (lane >> 4);
                ldmatrix_x4(a[i], sa + mm_off<SWZ>(row, chunk));
            }
        #pragma unroll
            for (int p = 0; p < 4; p++) {
                int j = lane >> 3, k = 16 * ks + (j & 1) * 8 + (lane & 7);
                int chunk = wc * 8 + p * 2 + (j >> 1);
                uint32_t r[4];
                ldmatrix_x4_trans(r, sb + (chunk / 8) * (MM_BK * 128) +
                                         mm_off<SWZ>(k, chunk % 8));
                b[2 * p][0] = r[0]; b[2 * p][1] = r[1];
                b[2 * p + 1][0] = r[2]; b[2 * p + 1][1] = r[3];
            }
        #pragma unroll
            for (int i = 0; i < 4; i++)
        #pragma unroll
                for (int j = 0; j < 8; j++)
                    mma_16816(acc[i][j], a[i], b[j]);
        }
    }
    cp_async_wait<0>();
    // <<Store the mma.sync accumulators>>
    #pragma unroll
    for (int i = 0; i < 4; i++)
    #pragma unroll
        for (int j = 0; j < 8; j++) {
            int row = m0 + wr * 64 + i * 16 + (lane >> 2);
            int col = n0 + wc * 64 + j * 8 + 2 * (lane & 3);
            tc_store2(C, out, M, N, row, col, acc[i][j][0], acc[i][j][1]);
            tc_store2(C, out, M, N, row + 8, col, acc[i][j][2], acc[i][j][3]);
        }
}

// <<The mma.sync launcher>>
template <Swizzle SWZ>
cudaError_t mma_launch(const book_bf16 *A, const book_bf16 *B, void *C,
                       tc_out out, size_t M, size_t N, size_t K,
                       cudaStream_t stream)
{
    int done;
    cudaError_t err = tc_common_args(A, B, C, out, M, N, K, stream, &done);
    if (done) return err;
    if (!tc_rows_whole_chunks(N, K) || !is_aligned(A, 16) ||
        !is_aligned(B, 16) || !is_aligned(C, 16))
        return cudaErrorInvalidValue;
    if (book_device_cc() < 80) return cudaErrorNoKernelImageForDevice;
    err = cudaFuncSetAttribute(mma_kernel<SWZ>,
                               cudaFuncAttributeMaxDynamicSharedMemorySize,
                               MM_SMEM);
    if (err != cudaSuccess) return err;
    return tc_slabs(A, C, out, M, N, K, MM_BM,
                    [&](const book_bf16 *a, void *c, size_t rows) {
        dim3 grid((unsigned)((N + MM_BN - 1) / MM_BN),
                  (unsigned)((rows + MM_BM - 1) / MM_BM));
        BOOK_CLEAR_TO_LAUNCH();
        mma_kernel<SWZ><<<grid, MM_THREADS, MM_SMEM, stream>>>(
            a, B, c, out, (int)rows, (int)N, (int)K);
        return cudaGetLastError();
    });
}
} // namespace

// <<The mma.sync entry points>>
extern "C" cudaError_t tc_gemm_mma(const book_bf16 *A, const book_bf16 *B,
                                   void *C, tc_out out, size_t M, size_t N,
                                   size_t K, cudaStream_t stream)
{
    return mma_launch<Swizzle::on>(A, B, C, out, M, N, K, stream);
}
extern "C" cudaError_t tc_gemm_mma_unswizzled(const book_bf16 *A,
                                              const book_bf16 *B, void *C,
                                              tc_out out, size_t M, size_t N,
                                              size_t K, cudaStream_t stream)
{
    return mma_launch<Swizzle::off>(A, B, C, out, M, N, K, stream);
}
