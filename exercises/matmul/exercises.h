/* exercises.h -- the matmul chapter's code exercises: the launchers a student
 * writes in exercises/matmul/NAME.cu; tests/matmul/ex_NAME.c tests
 * them.  As in matmul.h: device pointers to row-major matrices, A is
 * M x K, B is K x N, C is M x N; NULL pointers, M or N of 2^31 or more,
 * or M past what a grid of 65535 tiles down covers (65535 * 16 with 16 x 16
 * tiles, as matmul.h's launchers refuse what their grid cannot cover):
 * cudaErrorInvalidValue; M or N = 0 does nothing; K = 0 is an empty sum.
 * Each takes the stream its work is queued on as its last argument (0:
 * the default stream), and returns without waiting for it. */
#ifndef EX_MATMUL_H
#define EX_MATMUL_H
#include <cuda_runtime_api.h>
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
/* Exercise 2 (tiled16): C = A B with 16 x 16 shared-memory tiles. */
cudaError_t matmul_tiled16(const float *A, const float *B, float *C,
                           size_t M, size_t N, size_t K, cudaStream_t stream);
/* Exercise 7 (sgemm): C = alpha A B + beta C, tiled; with beta = 0, C is
 * not read (BLAS: a NaN in C does not survive). */
cudaError_t sgemm_tiled(const float *A, const float *B, float *C, size_t M,
                        size_t N, size_t K, float alpha, float beta,
                        cudaStream_t stream);
#ifdef __cplusplus
}
#endif
#endif
