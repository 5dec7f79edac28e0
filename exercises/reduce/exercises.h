/* exercises.h -- the reduce chapter's code exercises: the launchers a student
 * writes in exercises/reduce/NAME.cu; tests/reduce/ex_NAME.c tests
 * them.  Device pointers; work is a workspace of reduce_workspace_bytes(n)
 * bytes (declared in reduce/reduce.h), whose contents on entry are
 * unspecified.  As the chapter's launchers do, each takes the stream its
 * work is queued on as its last argument (0: the default stream), and
 * returns without waiting for it. */
#ifndef EX_REDUCE_H
#define EX_REDUCE_H
#include <cuda_runtime_api.h>
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
/* Exercise 5 (min): *out = the smallest of x[0..n); +inf when n == 0.
 * NULL x, out or work: cudaErrorInvalidValue. */
cudaError_t reduce_min(const float *x, size_t n, float *out, void *work,
                       cudaStream_t stream);
/* Exercise 5 (argmax): *idx = the index of the first maximum of x[0..n)
 * (x holds no NaN); n == 0 or n >= 2^32, or a NULL pointer:
 * cudaErrorInvalidValue. */
cudaError_t reduce_argmax(const float *x, size_t n, size_t *idx, void *work,
                          cudaStream_t stream);
#ifdef __cplusplus
}
#endif
#endif
