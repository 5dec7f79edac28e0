// Solution to exercise 7 of the matmul chapter: C = alpha A B + beta C on the
// 16 x 16 tiles of exercise 2, whose kernel and launcher (tiled16.cu, the
// solution of exercise 2) take alpha and beta already: this file includes
// them and adds the launcher.  With beta = 0 the kernel does not read C,
// as BLAS specifies: 0 * NaN would be NaN, and C may be uninitialized.
#include "tiled16.cu"

extern "C" cudaError_t sgemm_tiled(const float *A, const float *B, float *C,
                                   size_t M, size_t N, size_t K, float alpha,
                                   float beta, cudaStream_t stream)
{
    return mm16_launch(A, B, C, M, N, K, alpha, beta, stream);
}
