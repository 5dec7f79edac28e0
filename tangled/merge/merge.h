/* merge.h -- merging sorted arrays by merge path, and a stable merge sort
 * built on it.  All pointers are device pointers to 4-byte words; counts
 * are elements, at most MERGE_MAX_N in all.  Every launcher enqueues its
 * work on `stream` and returns the status of the launch.  It returns
 * cudaErrorInvalidValue and launches nothing when: a pointer is NULL while
 * its count is not zero; a count, or na + nb, is over MERGE_MAX_N; the
 * workspace is NULL, not 4-byte aligned, smaller than its size query says
 * or overlapping another argument; an output overlaps an input.  With
 * nothing to do (n == 0, na + nb == 0) it returns cudaSuccess at once.
 * Unsorted inputs to a merge, or a comparator that is not a strict weak
 * order (NaN by absolute value), give an unspecified output, never an
 * access outside the arguments' ranges. */
#ifndef MERGE_H
#define MERGE_H
#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>
#define MERGE_MAX_N ((size_t)2147483647)       /* 2^31 - 1 elements */
#ifdef __cplusplus
extern "C" {
#endif

// <<Merge launchers>>
/* Workspace bytes for a merge of n = na + nb elements; 0 when n is over
 * MERGE_MAX_N. */
size_t merge_temp_bytes(size_t n);
/* out[0, na + nb) = the stable merge of a[0, na) and b[0, nb), both sorted
 * ascending: of equal keys, a's come first.  Not in place. */
cudaError_t merge_u32(const uint32_t *a, size_t na, const uint32_t *b,
                      size_t nb, uint32_t *out, void *temp,
                      size_t temp_bytes, cudaStream_t stream);
/* The same for pairs: each value moves with its key. */
cudaError_t merge_pairs_u32(const uint32_t *a_keys, const uint32_t *a_vals,
                            size_t na, const uint32_t *b_keys,
                            const uint32_t *b_vals, size_t nb,
                            uint32_t *out_keys, uint32_t *out_vals,
                            void *temp, size_t temp_bytes,
                            cudaStream_t stream);
/* Wrong on purpose: ties go to b, so equal keys come out b's first. */
cudaError_t merge_pairs_u32_tie_to_b(const uint32_t *a_keys,
                                     const uint32_t *a_vals, size_t na,
                                     const uint32_t *b_keys,
                                     const uint32_t *b_vals, size_t nb,
                                     uint32_t *out_keys, uint32_t *out_vals,
                                     void *temp, size_t temp_bytes,
                                     cudaStream_t stream);

// <<Merge sort launchers>>
/* Workspace bytes for sorting n keys, or n pairs; 0 when n is over
 * MERGE_MAX_N. */
size_t merge_sort_keys_temp_bytes(size_t n);
size_t merge_sort_pairs_temp_bytes(size_t n);
/* keys[0, n) sorted ascending, stably, in place. */
cudaError_t merge_sort_u32(uint32_t *keys, size_t n, void *temp,
                           size_t temp_bytes, cudaStream_t stream);
/* The same with tiles of 256 threads x items_per_thread (4, 7, 8, 9, 15,
 * 16 or 17; merge_sort_u32 uses 8).  Other values are refused. */
cudaError_t merge_sort_u32_ipt(uint32_t *keys, size_t n,
                               int items_per_thread, void *temp,
                               size_t temp_bytes, cudaStream_t stream);
/* Pairs: vals[i] moves with keys[i]; equal keys keep their order. */
cudaError_t merge_sort_pairs_u32(uint32_t *keys, uint32_t *vals, size_t n,
                                 void *temp, size_t temp_bytes,
                                 cudaStream_t stream);
/* float keys by absolute value, stably (-2 and 2 keep their order).  No
 * NaN: |NaN| compares with nothing, and the output is then unspecified
 * (but stays inside keys[0, n)).  The workspace is
 * merge_sort_keys_temp_bytes(n). */
cudaError_t merge_sort_f32_abs(float *keys, size_t n, void *temp,
                               size_t temp_bytes, cudaStream_t stream);
#ifdef __cplusplus
}
#endif
#endif
