// tc_gemm.h -- C = A B on the tensor cores: bf16 inputs, fp32 accumulation.
//
// Device pointers to row-major matrices: A is M x K and B is K x N, both
// bf16.  C is M x N, fp32 (TC_OUT_F32) or bf16 (TC_OUT_BF16, rounded to
// nearest).  M, N and K are at most TC_MAX_DIM.  Each launcher states
// below what else it needs.  A launcher writes C only, never past M x N,
// and runs on stream (0: the default stream).  It returns
// cudaErrorInvalidValue, launching nothing, for a bad out, a null
// pointer (when C is not empty), a pointer not aligned to its element
// (2 bytes for A and B, 2 or 4 for C) or sizes it does not take; it returns
// cudaErrorNoKernelImageForDevice on a GPU its code does not run on;
// otherwise the status of the launch.  Before any other check, M or N =
// 0 does nothing and K = 0 writes C = 0 (cudaMemsetAsync on stream), on
// any GPU and for any N.
#ifndef TC_GEMM_H
#define TC_GEMM_H
#include "common/bf16.h"
#include <cuda_runtime_api.h>
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
typedef enum { TC_OUT_F32 = 0, TC_OUT_BF16 = 1 } tc_out;
// The largest M, N or K any launcher takes: 2^31 - 512, so that no tile
// count or loop bound overflows an int.
#define TC_MAX_DIM 2147483136u
typedef cudaError_t (*tc_gemm_fn)(const book_bf16 *A, const book_bf16 *B,
                                  void *C, tc_out out, size_t M, size_t N,
                                  size_t K, cudaStream_t stream);

// <<Declarations of the tensor-core ladder>>
// Any sizes (M past 65535 * 64 runs as slabs of that many rows, one
// launch each); compute capability 8.0 or later.
cudaError_t tc_gemm_wmma(const book_bf16 *A, const book_bf16 *B, void *C,
                         tc_out out, size_t M, size_t N, size_t K,
                         cudaStream_t stream);
// The 16-byte rule: K and N multiples of 8, and A, B, C 16-byte aligned
// (cudaErrorInvalidValue otherwise); any M (slabs of 65535 * 128 rows);
// compute capability 8.0 or later.
// The unswizzled one is slower on purpose: its ldmatrix loads conflict.
cudaError_t tc_gemm_mma(const book_bf16 *A, const book_bf16 *B, void *C,
                        tc_out out, size_t M, size_t N, size_t K,
                        cudaStream_t stream);
cudaError_t tc_gemm_mma_unswizzled(const book_bf16 *A, const book_bf16 *B,
                                   void *C, tc_out out, size_t M, size_t N,
                                   size_t K, cudaStream_t stream);
// sm_90a code: compute capability 9.0 only; the 16-byte rule, which is
// also TMA's (global addresses and row strides multiples of 16 bytes);
// M at most 65535 * 128 for tc_gemm_wgmma; at most INT32_MAX tiles of
// 128 x 256 for tc_gemm_ws and tc_gemm_persistent, and at most
// INT32_MAX / 2 pairs of them (256 x 256) for the cluster kernels.
cudaError_t tc_gemm_wgmma(const book_bf16 *A, const book_bf16 *B, void *C,
                          tc_out out, size_t M, size_t N, size_t K,
                          cudaStream_t stream);
cudaError_t tc_gemm_ws(const book_bf16 *A, const book_bf16 *B, void *C,
                       tc_out out, size_t M, size_t N, size_t K,
                       cudaStream_t stream);
cudaError_t tc_gemm_persistent(const book_bf16 *A, const book_bf16 *B,
                               void *C, tc_out out, size_t M, size_t N,
                               size_t K, cudaStream_t stream);
cudaError_t tc_gemm_cluster(const book_bf16 *A, const book_bf16 *B, void *C,
                            tc_out out, size_t M, size_t N, size_t K,
                            cudaStream_t stream);
// The experiment of step 6: tc_gemm_cluster with one arrival per consumer
// warpgroup on each block's empty barrier (4 a stage, not 16).
cudaError_t tc_gemm_cluster_wg_arrive(const book_bf16 *A, const book_bf16 *B,
                                      void *C, tc_out out, size_t M,
                                      size_t N, size_t K,
                                      cudaStream_t stream);
// Step 4 one change at a time, each under tc_gemm_wgmma's rules (with
// tc_gemm_ws's tile limit for the last two): tc_gemm_wgmma_in_flight is
// tc_gemm_wgmma keeping one group of wgmma in flight (wait_group 1);
// tc_gemm_ws_128 is tc_gemm_ws on tiles of 128 x 128; and
// tc_gemm_ws_row_order is tc_gemm_ws taking its tiles row after row.
cudaError_t tc_gemm_wgmma_in_flight(const book_bf16 *A, const book_bf16 *B,
                                    void *C, tc_out out, size_t M, size_t N,
                                    size_t K, cudaStream_t stream);
cudaError_t tc_gemm_ws_128(const book_bf16 *A, const book_bf16 *B, void *C,
                           tc_out out, size_t M, size_t N, size_t K,
                           cudaStream_t stream);
cudaError_t tc_gemm_ws_row_order(const book_bf16 *A, const book_bf16 *B,
                                 void *C, tc_out out, size_t M, size_t N,
                                 size_t K, cudaStream_t stream);
// Wrong on purpose: tc_gemm_wgmma waiting for a stage after reading it.
cudaError_t tc_gemm_wrong_late_wait(const book_bf16 *A, const book_bf16 *B,
                                    void *C, tc_out out, size_t M, size_t N,
                                    size_t K, cudaStream_t stream);
// Wrong on purpose: tc_gemm_ws giving a stage back as soon as it has
// landed, before its wgmma have read it.
cudaError_t tc_gemm_wrong_early_release(const book_bf16 *A,
                                        const book_bf16 *B, void *C,
                                        tc_out out, size_t M, size_t N,
                                        size_t K, cudaStream_t stream);
// The best that takes the arguments here: the warp-specialized kernel on
// compute capability 9.0 under the 16-byte rule (when it takes the tile
// count), else tc_gemm_mma under the rule on 8.0 or later, else
// tc_gemm_wmma.  So it takes every size up to TC_MAX_DIM.
cudaError_t tc_gemm(const book_bf16 *A, const book_bf16 *B, void *C,
                    tc_out out, size_t M, size_t N, size_t K,
                    cudaStream_t stream);
// The ceiling: wgmma on shared tiles that never change, iters steps of
// 64 x 256 x 64 per warpgroup, two warpgroups per block, blocks blocks.
// sink (TC_PEAK_SINK floats) gets block 0's two 64 x 256 accumulator
// tiles, row-major, so that the work is not removed and can be checked.
// 9.0 only.
cudaError_t tc_peak(int blocks, int iters, float *sink, cudaStream_t stream);
#define TC_PEAK_SINK (2 * 64 * 256)
// The ceiling's shared tiles: 16-bit element i holds these bf16 bits,
// random sign, exponent in [-3, 0] and seven random fraction bits, so
// that the tensor cores see operands as varied as random matrices.
#ifdef __CUDACC__
__host__ __device__
#endif
static inline unsigned short tc_peak_bits(unsigned i)
{
    unsigned h = i * 2654435761u;
    h ^= h >> 15;
    h *= 0x2c1b3c6du;
    h ^= h >> 12;
    return (unsigned short)((h >> 16 & 0x8000u) |
                            (0x7cu + (h >> 7 & 3u)) << 7 | (h & 0x7fu));
}
#ifdef __cplusplus
}
#endif
#endif
