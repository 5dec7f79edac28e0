// matmul.h -- C = A B in fp32, from naive to register tiles.
// Device pointers to row-major matrices: A is M x K, B is K x N and C is
// M x N.  Every launcher accepts any M, N, K its grid can cover (K = 0
// gives C = 0, but A and B must still be non-null), returns
// cudaErrorInvalidValue without launching otherwise (a null pointer, when
// C is not empty), and returns the status of the launch.
// Every launcher takes the stream its work is queued on as its last
// argument (0: the default stream), and returns without waiting for it.
#ifndef MATMUL_H
#define MATMUL_H
#include <cuda_runtime_api.h>
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
cudaError_t matmul_naive(const float *A, const float *B, float *C,
                         size_t M, size_t N, size_t K, cudaStream_t stream);
cudaError_t matmul_coalesced(const float *A, const float *B, float *C,
                             size_t M, size_t N, size_t K,
                             cudaStream_t stream);
cudaError_t matmul_tiled(const float *A, const float *B, float *C,
                         size_t M, size_t N, size_t K, cudaStream_t stream);
cudaError_t matmul_1d_blocked(const float *A, const float *B, float *C,
                              size_t M, size_t N, size_t K,
                              cudaStream_t stream);
cudaError_t matmul_2d_blocked(const float *A, const float *B, float *C,
                              size_t M, size_t N, size_t K,
                              cudaStream_t stream);
cudaError_t matmul_vectorized(const float *A, const float *B, float *C,
                              size_t M, size_t N, size_t K,
                              cudaStream_t stream);
cudaError_t matmul_double_buffered(const float *A, const float *B, float *C,
                                   size_t M, size_t N, size_t K,
                                   cudaStream_t stream);
cudaError_t matmul_dbuf_warp(const float *A, const float *B, float *C,
                             size_t M, size_t N, size_t K,
                             cudaStream_t stream);
cudaError_t matmul_pipelined(const float *A, const float *B, float *C,
                             size_t M, size_t N, size_t K,
                             cudaStream_t stream);
cudaError_t matmul_warp_unrolled(const float *A, const float *B, float *C,
                                 size_t M, size_t N, size_t K,
                                 cudaStream_t stream);
// The best of the chapter: a block tile chosen by shape from a table of
// MM_WT_TILES entries (the unrolled warp-tiled kernel, the pipelined one
// on 64 x 64 tiles); matmul_warp_tiled_pick says which, for the current
// device (0 when it has none).  matmul_warp_tiled_tile runs entry TILE,
// and matmul_warp_tiled_info gives its block tile and the blocks an SM
// holds (null pointers refused); both refuse any other TILE
// (cudaErrorInvalidValue, nothing written).
#define MM_WT_TILES 2
cudaError_t matmul_warp_tiled(const float *A, const float *B, float *C,
                              size_t M, size_t N, size_t K,
                              cudaStream_t stream);
int matmul_warp_tiled_pick(size_t M, size_t N, size_t K);
cudaError_t matmul_warp_tiled_tile(int tile, const float *A, const float *B,
                                   float *C, size_t M, size_t N, size_t K,
                                   cudaStream_t stream);
cudaError_t matmul_warp_tiled_info(int tile, int *bm, int *bn, int *per_sm);
// Wrong on purpose: the tiled kernel without its second barrier.
cudaError_t matmul_wrong_one_barrier(const float *A, const float *B,
                                     float *C, size_t M, size_t N, size_t K,
                                     cudaStream_t stream);
#ifdef __cplusplus
}
#endif
#endif
