// flash.h -- O = softmax(Q K^T / sqrt(D)) V in bf16 on the tensor cores,
// fp32 accumulation and softmax statistics.
//
// q, k, v, o are device pointers to bf16 arrays in one of two layouts:
// FLASH_BHSD, [B][H][S][D] (the fp32 attention's), or FLASH_BSHD,
// [B][S][H][D] (what a projection of [B][S][H D] produces); q and o have
// Sq rows a head, k and v Sk.  D = 64 or 128.  All four 16-byte aligned;
// o and lse must not overlap q, k, v or each other.  With causal set,
// query i sees key j only when j <= i + Sk - Sq (aligned at the bottom
// right); a query that sees no key gets a row of zeros.  lse, when not
// NULL, is a device array of B*H*Sq floats, [B][H][Sq] in either layout,
// that gets each row's log-sum-exp of the scaled scores (natural log;
// -inf for a row that sees no key), what a backward pass needs.  B*H,
// Sq and Sk at most 2^31 - 1, and B*H*ceil(Sq / 64) at most 2^31 - 1.
// Every launcher runs on stream (0: the default stream) and returns
// cudaErrorInvalidValue, launching nothing, for a null pointer, a bad
// layout, a D it does not take, misalignment, overlap or sizes past the
// limits; cudaErrorNoKernelImageForDevice on a GPU its code does not run
// on; else the status of its launch.  B*H*Sq = 0 does nothing (any
// pointers); Sk = 0 writes zeros (and lse = -inf).
#ifndef FLASH_H
#define FLASH_H
#include "common/bf16.h"
#include <cuda_runtime_api.h>
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
typedef enum { FLASH_BHSD = 0, FLASH_BSHD = 1 } flash_layout;
typedef struct {
    size_t B, H, Sq, Sk, D;
    int causal;
    flash_layout layout;
} flash_dims;
typedef cudaError_t (*flash_fn)(const book_bf16 *q, const book_bf16 *k,
                                const book_bf16 *v, book_bf16 *o,
                                float *lse, flash_dims a,
                                cudaStream_t stream);

// <<Declarations of the bf16 ladder>>
// mma.sync (compute capability 8.0 or later): a block of 4 warps takes 64
// query rows, one of 8 warps 128; each warp 16 rows.
cudaError_t flash_mma64(const book_bf16 *q, const book_bf16 *k,
                        const book_bf16 *v, book_bf16 *o, float *lse,
                        flash_dims a, cudaStream_t stream);
cudaError_t flash_mma(const book_bf16 *q, const book_bf16 *k,
                      const book_bf16 *v, book_bf16 *o, float *lse,
                      flash_dims a, cudaStream_t stream);
// sm_90a code (compute capability 9.0 only): TMA and wgmma, a producer
// warp and two consumer warpgroups of 64 query rows each.
cudaError_t flash_wgmma(const book_bf16 *q, const book_bf16 *k,
                        const book_bf16 *v, book_bf16 *o, float *lse,
                        flash_dims a, cudaStream_t stream);
// flash_wgmma's kernel without the overlap of step 3 (each tile's
// products and softmax in turn), and flash_wgmma with a head's query
// tiles in consecutive blocks: variants to measure against it; sm_90a.
cudaError_t flash_wgmma_serial(const book_bf16 *q, const book_bf16 *k,
                               const book_bf16 *v, book_bf16 *o,
                               float *lse, flash_dims a,
                               cudaStream_t stream);
cudaError_t flash_wgmma_tiles(const book_bf16 *q, const book_bf16 *k,
                              const book_bf16 *v, book_bf16 *o,
                              float *lse, flash_dims a,
                              cudaStream_t stream);
// The best of these for the GPU: flash_wgmma on 9.0, else flash_mma.
cudaError_t flash_attention(const book_bf16 *q, const book_bf16 *k,
                            const book_bf16 *v, book_bf16 *o, float *lse,
                            flash_dims a, cudaStream_t stream);
// Wrong on purpose: flash_mma that forgets to rescale its running output
// when a row's maximum grows.
cudaError_t flash_mma_no_rescale(const book_bf16 *q, const book_bf16 *k,
                                 const book_bf16 *v, book_bf16 *o,
                                 float *lse, flash_dims a,
                                 cudaStream_t stream);
// Wrong on purpose: flash_wgmma whose consumers give a stage of V back
// to the producer before the P V that reads it (and then pause, so that
// the next copy lands in it first); sm_90a.
cudaError_t flash_wgmma_early_release(const book_bf16 *q,
                                      const book_bf16 *k,
                                      const book_bf16 *v, book_bf16 *o,
                                      float *lse, flash_dims a,
                                      cudaStream_t stream);

// <<Declarations of the split keys>>
// Split keys (flash-decoding) on mma.sync (compute capability 8.0 or
// later): flash_mma64's kernel with each query tile's keys cut into
// `splits` shares, one block each, and a second kernel that merges the
// shares' partial (m, l, o).  Takes what flash_mma64 takes, plus: splits
// from 1 to FLASH_MAX_SPLITS (1 runs flash_mma64's kernel, work unused);
// work, 16-byte aligned, of at least flash_split_work_bytes(a, splits)
// bytes, overlapping none of q, k, v, o and lse, used in stream order by
// this call alone; NULL where that size is 0.  A bad split count or
// workspace is cudaErrorInvalidValue, launching nothing.
#define FLASH_MAX_SPLITS 64
cudaError_t flash_split(const book_bf16 *q, const book_bf16 *k,
                        const book_bf16 *v, book_bf16 *o, float *lse,
                        flash_dims a, int splits, void *work,
                        size_t work_bytes, cudaStream_t stream);
// Bytes of workspace: splits x B H Sq rows of D floats (the shares'
// unnormalized outputs), then as many pairs (m, l); 0 for splits
// outside 2 .. FLASH_MAX_SPLITS, a D other than 64 and 128, an empty
// problem (B H Sq = 0 or Sk = 0), and sizes that overflow a size_t
// (which flash_split refuses).
size_t flash_split_work_bytes(flash_dims a, int splits);
// The rule: the split count for a GPU of sms SMs, 1 to FLASH_MAX_SPLITS.
// Host only; needs no GPU.
int flash_split_count(flash_dims a, int sms);
// Wrong on purpose: flash_split whose merge adds the shares without
// rescaling each by 2^(m_z - m).
cudaError_t flash_split_no_rescale(const book_bf16 *q,
                                   const book_bf16 *k,
                                   const book_bf16 *v, book_bf16 *o,
                                   float *lse, flash_dims a, int splits,
                                   void *work, size_t work_bytes,
                                   cudaStream_t stream);
#ifdef __cplusplus
}
#endif
#endif
