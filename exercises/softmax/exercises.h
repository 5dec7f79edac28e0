/* exercises.h -- the softmax chapter's code exercises: the launchers a
 * student writes in exercises/softmax/NAME.cu; tests/softmax/ex_NAME.c tests
 * them.  Device pointers to row-major rows x cols matrices; rows = 0 or
 * cols = 0 does nothing and succeeds; NULL pointers, or rows or cols of
 * 2^31 or more: cudaErrorInvalidValue.  Infinities follow softmax_ref.h:
 * -inf has weight 0, the maximum weight 1 (even +inf), and a row of -inf
 * only is all 0.  Each launcher takes the stream its work is queued on as
 * its last argument (0: the default stream), and returns without waiting
 * for it. */
#ifndef EX_SOFTMAX_H
#define EX_SOFTMAX_H
#include <cuda_runtime_api.h>
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
/* Exercise 1 (online-warp): y = softmax of each row of x, one warp a row,
 * the (m, d) pairs of the online softmax merged across the warp. */
cudaError_t softmax_rows_online_warp(const float *x, float *y, size_t rows,
                                     size_t cols, cudaStream_t stream);
/* Exercise 4 (entropy): h[i] = the entropy -sum p log p (natural log) of
 * the softmax of row i, in one pass over the row, from the triple
 * (m, d, s) with s = sum e^(x - m) x.  Rows of finite values and -inf,
 * with at least one finite value. */
cudaError_t softmax_entropy_rows(const float *x, float *h, size_t rows,
                                 size_t cols, cudaStream_t stream);
#ifdef __cplusplus
}
#endif
#endif
