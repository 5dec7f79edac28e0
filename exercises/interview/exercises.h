/* exercises.h -- the interview appendix's code exercises: the launchers a
 * student writes in exercises/interview/NAME.cu;
 * tests/interview/ex_NAME.c tests them.  Device pointers; a bad
 * argument: cudaErrorInvalidValue, nothing launched.  Each launcher takes
 * the stream its work is queued on as its last argument (0: the default
 * stream).  lcs_diagonals returns without waiting for it;
 * tree_path_sum_levels waits for it, as it says below. */
#ifndef EX_INTERVIEW_H
#define EX_INTERVIEW_H
#include <cuda_runtime_api.h>
#include <stddef.h>
#include "interview/tree.h"
#include "interview/editdist.h"
#ifdef __cplusplus
extern "C" {
#endif
/* Exercise 3 (tree-levels): tree_path_sum's contract (tree.h: the same
 * tree, sum, refusals, TREE_WORK_BYTES(n) bytes of work, 8-byte aligned),
 * computed level by level: a frontier of nodes and their numbers, a
 * kernel a level writing the next frontier.  The host needs each
 * frontier's size to launch its level, so this launcher waits for stream
 * (and for nothing else) after every level: it returns with the sum
 * written. */
cudaError_t tree_path_sum_levels(const int *left, const int *right,
                                 const unsigned char *val, size_t n,
                                 void *work, unsigned long long *sum,
                                 cudaStream_t stream);
/* Exercise 5 (lcs): *len = the length of the longest common subsequence
 * of a[0..la) and b[0..lb), one kernel an anti-diagonal as ed_diagonals;
 * ed_diagonals' refusals (editdist.h: lengths at most ED_MAX_LEN, a
 * string may be NULL only where its length is 0; NULL len or work), work
 * of ED_WORK_INTS(la, lb) ints. */
cudaError_t lcs_diagonals(const char *a, size_t la, const char *b,
                          size_t lb, int *work, int *len,
                          cudaStream_t stream);
#ifdef __cplusplus
}
#endif
#endif
