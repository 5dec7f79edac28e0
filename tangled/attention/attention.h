// attention.h -- O = softmax(Q K^T / sqrt(D)) V in fp32.
// q, k, v, o are device pointers to row-major [B][H][S][D] arrays: q and
// o hold B*H*Sq rows of D floats, k and v hold B*H*Sk rows.  With causal
// set, query i sees key j only when j <= i + Sk - Sq (aligned at the
// bottom right; Sq = Sk gives j <= i).  A query that sees no key gets a
// row of zeros.  o must not overlap q, k or v.  Every launcher returns
// cudaErrorInvalidValue, without launching, for null pointers, overlap,
// sizes whose products overflow, or what its line below excludes; it
// returns the status of its last launch otherwise.  Every launcher
// takes the stream its work is queued on as its last argument (0: the
// default stream) and returns without waiting for it.
#ifndef ATTENTION_H
#define ATTENTION_H
#include <cuda_runtime_api.h>
#include <cublas_v2.h>
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
typedef struct { size_t B, H, Sq, Sk, D; int causal; } attn_dims;
// Bytes of device workspace the unfused forms need (256-byte aligned);
// 0 where they, or the sizes' products, overflow a size_t.
size_t attention_work_bytes(attn_dims a);
// Three kernels: matmul's GEMM, softmax's row softmax; any D >= 1;
// Sq, Sk and D below 2^31; work: attention_work_bytes(a) bytes, refused
// where that is 0.
cudaError_t attention_three_kernel(const float *q, const float *k,
                                   const float *v, float *o, attn_dims a,
                                   void *work, cudaStream_t stream);
// The same pipeline with cuBLAS strided-batched SGEMM (B*H below 2^31).
// Where stream is not h's stream (cublasGetStream), it sets h's stream
// to it for the call and back after, and cublasSetStream resets h's
// workspace to cuBLAS's default pool: a workspace set on h with
// cublasSetWorkspace is then gone when the call returns (set it again),
// and the products run without it.  Pass h's own stream to leave h
// untouched.  h must not be in use by another host thread meanwhile.
cudaError_t attention_cublas(cublasHandle_t h, const float *q,
                             const float *k, const float *v, float *o,
                             attn_dims a, void *work, cudaStream_t stream);
// Fused: a warp per query row; D = 32, 64 or 128; B*H*Sq at most
// 8 (2^31 - 1) rows (2^31 - 1 blocks of 8).
cudaError_t attention_warp(const float *q, const float *k, const float *v,
                           float *o, attn_dims a, cudaStream_t stream);
// Fused and tiled; D = 32, 64 or 128, pointers 16-byte aligned, B*H
// below 2^31, Sq at most 64 * 65535; cudaErrorNotSupported where a
// block cannot have the shared memory it needs (D = 64, 128 on cc 7.5).
cudaError_t attention_tiled(const float *q, const float *k, const float *v,
                            float *o, attn_dims a, cudaStream_t stream);
// The same with the tile shapes for 99 KB of shared memory a block
// (cc 8.6, 8.9), where attention_tiled picks them: D = 128 with 64
// query rows a block instead of 128; D = 32 and 64 unchanged.
cudaError_t attention_tiled_compact(const float *q, const float *k,
                                    const float *v, float *o, attn_dims a,
                                    cudaStream_t stream);
// The shape attention_tiled runs for head size D where a block can have
// optin_bytes of shared memory (cudaDevAttrMaxSharedMemoryPerBlockOptin):
// the full one where it fits, else the compact one (D = 128 only), else
// none (attention_tiled returns cudaErrorNotSupported); INVALID for a D
// other than 32, 64 and 128.  Host only; needs no GPU.
enum { ATTN_SHAPE_INVALID = -1, ATTN_SHAPE_NONE = 0, ATTN_SHAPE_FULL = 1,
       ATTN_SHAPE_COMPACT = 2 };
int attention_tiled_shape(size_t D, size_t optin_bytes);

// <<Declarations of the split-key form>>
// Split keys: each query tile's keys are cut into `splits` shares, one
// block each, whose partial triples a second kernel combines.  As
// attention_tiled (D = 32, 64 or 128, pointers 16-byte aligned, the same
// limits), plus: splits from 1 to ATTN_MAX_SPLITS; work (16-byte
// aligned) of at least attention_split_work_bytes(a, splits) bytes;
// for splits = 1 (it runs attention_tiled) and for empty problems
// (B H Sq = 0, nothing to write) work may be NULL.  Both kernels run
// on stream, the merge after the split blocks.
#define ATTN_MAX_SPLITS 64
cudaError_t attention_split(const float *q, const float *k, const float *v,
                            float *o, attn_dims a, int splits, void *work,
                            size_t work_bytes, cudaStream_t stream);
// Bytes of workspace attention_split needs: splits x B H Sq x (D + 2)
// floats, and up to 255 bytes of alignment between the outputs and
// their (m, d); 0 for empty problems, for splits = 1, and for splits
// outside 1 ..
// ATTN_MAX_SPLITS or sizes that overflow (which attention_split
// refuses).
size_t attention_split_work_bytes(attn_dims a, int splits);
// The rule: the split count for a GPU of sms SMs (1 to ATTN_MAX_SPLITS).
// Host only; needs no GPU.
int attention_split_count(attn_dims a, int sms);
// Wrong on purpose: the warp kernel that forgets to rescale o.
cudaError_t attention_warp_no_rescale(const float *q, const float *k,
                                      const float *v, float *o,
                                      attn_dims a, cudaStream_t stream);
#ifdef __cplusplus
}
#endif
#endif
