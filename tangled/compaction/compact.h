/* compact.h -- stream compaction.  All pointers are device pointers;
 * n < 2^31; *count receives the number of outputs.  Every launcher takes
 * the stream its work is queued on as its last argument (0: the default
 * stream), and returns without waiting for it: *count is written on that
 * stream too. */
#ifndef COMPACT_H
#define COMPACT_H
#include <cuda_runtime_api.h>
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
/* Scratch bytes that any launcher below needs for n elements; the
 * scratch must be 256-byte aligned. */
size_t compact_scratch_bytes(size_t n);
/* out = the elements of in greater than threshold, in order. */
cudaError_t compact_gt_three_pass(const int *in, int *out, size_t n,
                                  int threshold, size_t *count,
                                  void *scratch, size_t bytes,
                                  cudaStream_t stream);
cudaError_t compact_gt(const int *in, int *out, size_t n, int threshold,
                       size_t *count, void *scratch, size_t bytes,
                       cudaStream_t stream);
/* The same on tiles staged in shared memory: scattered from there, or
 * packed in place first and written with consecutive stores.  They need
 * 64 KB of shared memory a block and a few hundred bytes more; where the
 * GPU gives less (sm_75), they return cudaErrorNotSupported and launch
 * nothing. */
cudaError_t compact_gt_staged_scatter(const int *in, int *out, size_t n,
                                      int threshold, size_t *count,
                                      void *scratch, size_t bytes,
                                      cudaStream_t stream);
cudaError_t compact_gt_staged(const int *in, int *out, size_t n,
                              int threshold, size_t *count, void *scratch,
                              size_t bytes, cudaStream_t stream);
/* The staged compaction with flags counted by warp ballots and the packed
 * run written in 16-byte vectors (word by word where out is not 16-byte
 * aligned); tiles of 48 KB.  Where the GPU cannot give a block 48 KB of
 * shared memory and a few hundred bytes more, it returns
 * cudaErrorNotSupported and launches nothing. */
cudaError_t compact_gt_ballot(const int *in, int *out, size_t n,
                              int threshold, size_t *count, void *scratch,
                              size_t bytes, cudaStream_t stream);
/* idx = every i with a[i] == a[i + 1], ascending. */
cudaError_t find_repeats(const int *a, size_t n, size_t *idx, size_t *count,
                         void *scratch, size_t bytes, cudaStream_t stream);
#ifdef __cplusplus
}
#endif
#endif
