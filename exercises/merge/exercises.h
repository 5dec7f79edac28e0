/* exercises.h -- the merge chapter's code exercises: the launchers a
 * student writes in exercises/merge/NAME.cu; tests/merge/ex_NAME.c tests
 * them.  Device pointers; a and b sorted ascending; na, nb and na + nb at
 * most MERGE_MAX_N (merge/merge.h).  A NULL pointer whose count is not
 * zero, or a count over the limit: cudaErrorInvalidValue, nothing
 * launched.  Each launcher takes the stream its work is queued on as its
 * last argument (0: the default stream), as the chapter's do, and returns
 * without waiting for it. */
#ifndef EX_MERGE_H
#define EX_MERGE_H
#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>
#include "merge/merge.h"
#ifdef __cplusplus
extern "C" {
#endif
/* Exercise 1 (by_ranks): out[0, na + nb) = the stable merge of a and b
 * (ties to a), with no workspace: every element finds its own output
 * position by a binary search in the other array.  out overlaps neither
 * input (else cudaErrorInvalidValue). */
cudaError_t merge_by_ranks_u32(const uint32_t *a, size_t na,
                               const uint32_t *b, size_t nb, uint32_t *out,
                               cudaStream_t stream);
/* Exercise 2 (kth): *result (a device pointer) = the element at position
 * k (from 0) of the stable merge of a and b, found by one co-rank; k <
 * na + nb, and na, nb and na + nb at most MERGE_MAX_N, else
 * cudaErrorInvalidValue. */
cudaError_t merge_kth_u32(const uint32_t *a, size_t na, const uint32_t *b,
                          size_t nb, size_t k, uint32_t *result,
                          cudaStream_t stream);
#ifdef __cplusplus
}
#endif
#endif
