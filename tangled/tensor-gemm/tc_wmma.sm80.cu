// tc_wmma.sm80.cu -- the simplest tensor-core GEMM: wmma fragments.
#include "tensor-gemm/tc_args.cuh"
#include <mma.h>
using namespace nvcuda;

namespace {
constexpr int WM_BM = 64, WM_BN = 64, WM_BK = 32;
constexpr int WM_PA = WM_BK + 8, WM_PB = WM_BN + 8, WM_PC = WM_BN + 4;

// <<The wmma kernel>>
__global__ void __launch_bounds__(128)
wmma_kernel(const __nv_bfloat16 *A, const __nv_bfloat16 *B, void *C,
            tc_out out, int M, int N, int K)
{
    __shared__ __align__(32) __nv_bfloat16 As[WM_BM][WM_PA];
    __shared__ __align__(32) __nv_bfloat16 Bs[WM_BK][WM_PB];
    __shared__ __align__(32) float Cs[WM_BM][WM_PC];
    const int warp = threadIdx.x / 32, wr = warp / 2, wc = warp % 2;
    const int m0 = blockIdx.y * WM_BM, n0 = blockIdx.x * WM_BN;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) wmma::fill_fragment(acc[i][j], 0.0f);
    for (int k0 = 0; k0 < K; k0 += WM_BK) {
        // <<Stage a tile of A and a tile of B, zeros past the edges>>
        const __nv_bfloat16 zero = __float2bfloat16(0.0f);
        for (int e = threadIdx.x; e < WM_BM * WM_BK; e += 128) {
            int r = e / WM_BK, c = e % WM_BK, gr = m0 + r, gc = k0 + c;
            As[r][c] = gr < M && gc < K ? A[(size_t)gr * K + gc] : zero;
        }
        for (int e = threadIdx.x; e < WM_BK * WM_BN; e += 128) {
            int r = e / WM_BN, c = e % WM_BN, gr = k0 + r, gc = n0 + c;
            Bs[r][c] = gr < K && gc < N ? B[(size_t)gr * N + gc] : zero;
        }
        __syncthreads();
        // <<Multiply the staged tiles with wmma fragments>>
        for (int kk = 0; kk < WM_BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16,
                           wmma::row_major> a[2];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16,
                           wmma::row_major> b[2];
            for (int i = 0; i < 2; i++)
                wmma::load_matrix_sync(a[i], &As[wr * 32 + i * 16][kk],
                                       WM_PA);
            for (int j = 0; j < 2; j++)
                wmma::load_matrix_sync(b[j], &Bs[kk][wc * 32 + j * 16],
                                       WM_PB);
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < 2; j++)
                    wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
    // <<Store the wmma accumulators through shared memory>>
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            wmma::store_matrix_sync(&Cs[wr * 32 + i * 16][wc * 32 + j * 16],
                                    acc[i][j], WM_PC, wmma::mem_row_major);
    __syncthreads();
    for (int e = threadIdx.x; e < WM_BM * WM_BN / 2; e += 128) {
        int r = e / (WM_BN / 2), c = 2 * (e % (WM_BN / 2));
        tc_store2(C, out, M, N, m0 + r, n0 + c, Cs[r][c], Cs[r][c + 1]);
    }
}
} // namespace

// <<The wmma launcher>>
extern "C" cudaError_t tc_gemm_wmma(const book_bf16 *A, const book_bf16 *B,
                                    void *C, tc_out out, size_t M, size_t N,
                                    size_t K, cudaStream_t stream)
{
    int done;
    cudaError_t err = tc_common_args(A, B, C, out, M, N, K, stream, &done);
    if (done) return err;
    if (book_device_cc() < 80) return cudaErrorNoKernelImageForDevice;
    return tc_slabs(A, C, out, M, N, K, WM_BM,
                    [&](const book_bf16 *a, void *c, size_t rows) {
        dim3 grid((unsigned)((N + WM_BN - 1) / WM_BN),
                  (unsigned)((rows + WM_BM - 1) / WM_BM));
        BOOK_CLEAR_TO_LAUNCH();
        wmma_kernel<<<grid, 128, 0, stream>>>(a, B, c, out, (int)rows,
                                              (int)N, (int)K);
        return cudaGetLastError();
    });
}
