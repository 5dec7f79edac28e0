// tc_gemm.h -- C = A B on the tensor cores: bf16 inputs, fp32 accumulation.
//
// Device pointers to row-major matrices: A is M x K, B is K x N (both
// bf16), C is M x N of fp32 (TC_OUT_F32) or bf16 (TC_OUT_BF16, rounded to
// nearest).  M, N, K below 2^31.  All launchers take any M, N, K within
// what they name below, write C only (never past M x N), run on stream
// (0 for the default stream), return cudaErrorInvalidValue without
// launching for a bad out, a null pointer (when C is not empty), or
// sizes they do not take, cudaErrorNoKernelImageForDevice on a GPU their
// code does not run on, and otherwise the status of the launch.  M or N
// = 0 does nothing; K = 0 writes C = 0 (cudaMemsetAsync on stream).
#ifndef TC_GEMM_H
#define TC_GEMM_H
#include <cuda_runtime_api.h>
#include <cuda_bf16.h>
#include <stddef.h>
#ifdef __cplusplus
typedef __nv_bfloat16 tc_bf16;
extern "C" {
#else
typedef __nv_bfloat16_raw tc_bf16;  // the same two bytes, seen from C
#endif
typedef enum { TC_OUT_F32 = 0, TC_OUT_BF16 = 1 } tc_out;
typedef cudaError_t (*tc_gemm_fn)(const tc_bf16 *A, const tc_bf16 *B,
                                  void *C, tc_out out, size_t M, size_t N,
                                  size_t K, cudaStream_t stream);

// <<Declarations of the tensor-core ladder>>
// Any sizes and alignments; compute capability 8.0 or later.
cudaError_t tc_gemm_wmma(const tc_bf16 *A, const tc_bf16 *B, void *C,
                         tc_out out, size_t M, size_t N, size_t K,
                         cudaStream_t stream);
// The 16-byte rule: K and N multiples of 8, and A, B, C 16-byte aligned
// (cudaErrorInvalidValue otherwise); compute capability 8.0 or later.
// The unswizzled one is slower on purpose: its ldmatrix loads conflict.
cudaError_t tc_gemm_mma(const tc_bf16 *A, const tc_bf16 *B, void *C,
                        tc_out out, size_t M, size_t N, size_t K,
                        cudaStream_t stream);
cudaError_t tc_gemm_mma_unswizzled(const tc_bf16 *A, const tc_bf16 *B,
                                   void *C, tc_out out, size_t M, size_t N,
                                   size_t K, cudaStream_t stream);
// sm_90a code: compute capability 9.0 only; the 16-byte rule, which is
// also TMA's (global addresses and row strides multiples of 16 bytes).
cudaError_t tc_gemm_wgmma(const tc_bf16 *A, const tc_bf16 *B, void *C,
                          tc_out out, size_t M, size_t N, size_t K,
                          cudaStream_t stream);
cudaError_t tc_gemm_ws(const tc_bf16 *A, const tc_bf16 *B, void *C,
                       tc_out out, size_t M, size_t N, size_t K,
                       cudaStream_t stream);
cudaError_t tc_gemm_persistent(const tc_bf16 *A, const tc_bf16 *B, void *C,
                               tc_out out, size_t M, size_t N, size_t K,
                               cudaStream_t stream);
// Wrong on purpose: tc_gemm_wgmma waiting for a stage after reading it.
cudaError_t tc_gemm_wrong_late_wait(const tc_bf16 *A, const tc_bf16 *B,
                                    void *C, tc_out out, size_t M, size_t N,
                                    size_t K, cudaStream_t stream);
// The best that takes the arguments here: the warp-specialised kernel on
// compute capability 9.0 under the 16-byte rule, else tc_gemm_mma under
// the rule on 8.0 or later, else tc_gemm_wmma.
cudaError_t tc_gemm(const tc_bf16 *A, const tc_bf16 *B, void *C, tc_out out,
                    size_t M, size_t N, size_t K, cudaStream_t stream);
// The ceiling: wgmma on shared tiles that never change, iters steps of
// 64 x 256 x 16 per warpgroup, two warpgroups per block, blocks blocks;
// *sink gets a value so that the work is not removed.  9.0 only.
cudaError_t tc_peak(int blocks, int iters, float *sink, cudaStream_t stream);
#ifdef __cplusplus
}
#endif
#endif
