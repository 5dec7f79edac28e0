/* exercises.h -- the compaction chapter's code exercises: the launchers a
 * student writes in exercises/compaction/NAME.cu;
 * tests/compaction/ex_NAME.c tests them.  They may use the scan chapter's
 * scans (book.yaml: the compaction chapter needs scan, so they link
 * in).  Device pointers, count and runs included; n < 2^31; scratch 256-byte aligned, of the bytes its
 * function below gives.  NULL pointers, a bigger n or too little scratch:
 * cudaErrorInvalidValue; n == 0 writes a count of 0.  Each launcher takes
 * the stream its work is queued on as its last argument (0: the default
 * stream), and returns without waiting for it; the count is written on
 * that stream too. */
#ifndef EX_COMPACTION_H
#define EX_COMPACTION_H
#include <cuda_runtime_api.h>
#include <stddef.h>
#include "scan/scan.h"
#ifdef __cplusplus
extern "C" {
#endif
static inline size_t ex_round256(size_t b) { return (b + 255) / 256 * 256; }
/* Exercise 1 (partition): out = the elements of in greater than
 * threshold, in order, then the others, in order; *count = how many are
 * greater. */
static inline size_t partition_scratch_bytes(size_t n)
{
    return 2 * ex_round256(4 * n) + scan_scratch_bytes(n, 4);
}
cudaError_t partition_gt(const int *in, int *out, size_t n, int threshold,
                         size_t *count, void *scratch, size_t bytes,
                         cudaStream_t stream);
/* Exercise 5 (rle): run-length encoding: for each run of equal values, in
 * order, values[r] = the value, lengths[r] = the run's length; *runs =
 * the number of runs.  values and lengths have room for n. */
static inline size_t rle_scratch_bytes(size_t n)
{
    return 3 * ex_round256(4 * n) + scan_scratch_bytes(n, 4);
}
cudaError_t rle_i32(const int *in, size_t n, int *values, int *lengths,
                    size_t *runs, void *scratch, size_t bytes,
                    cudaStream_t stream);
#ifdef __cplusplus
}
#endif
#endif
