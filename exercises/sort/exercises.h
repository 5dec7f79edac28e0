/* exercises.h -- the sort chapter's code exercise: the launcher a student
 * writes in exercises/sort/NAME.cu; tests/sort/ex_NAME.c tests it.  It
 * may use the chapter's sorts (book.yaml: they link in).  Device
 * pointers; temp 256-byte aligned, of the bytes its function below
 * gives.  NULL pointers (with n > 0), n above SORT_MAX_N or too little
 * temp: cudaErrorInvalidValue; n == 0 launches nothing.  The launcher
 * takes the stream its work is queued on as its last argument (0: the
 * default stream), as the chapter's do, and returns without waiting for
 * it. */
#ifndef EX_SORT_H
#define EX_SORT_H
#include <cuda_runtime_api.h>
#include <stddef.h>
#include "sort/sort.h"
#ifdef __cplusplus
extern "C" {
#endif
static inline size_t ex_round256(size_t b) { return (b + 255) / 256 * 256; }
/* Exercise 2 (segmented): out = the keys ordered by (seg[i], keys[i]):
 * every segment's keys sorted, the segments in the order of their ids;
 * seg need not be sorted.  out may not overlap the inputs. */
static inline size_t segmented_temp_bytes(size_t n)
{
    return 2 * ex_round256(8 * n) + sort_temp_bytes(n, 8, 0);
}
cudaError_t segmented_sort_u32(const unsigned *keys, const unsigned *seg,
                               unsigned *out, size_t n, void *temp,
                               size_t bytes, cudaStream_t stream);
#ifdef __cplusplus
}
#endif
#endif
