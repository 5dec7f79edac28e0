/* exercises.h -- the host chapter's code exercises: the launchers a student
 * writes in exercises/host/NAME.cu; tests/host/ex_NAME.c tests them.  The
 * pipe and its rules are those of host/host.h. */
#ifndef EX_HOST_H
#define EX_HOST_H
#include <cuda_runtime_api.h>
#include <stddef.h>
#include "host/host.h"
#ifdef __cplusplus
extern "C" {
#endif
/* Exercise 2 (saxpy-stage): a pipeline stage (host_stage_fn) for
 * out = alpha x + y, with in = {x, y}, halo 0, and arg pointing to alpha
 * (a float); NULL in, in[0], in[1], out or arg: cudaErrorInvalidValue.
 * n == 0 does nothing and succeeds. */
cudaError_t host_saxpy_stage(const float *const *in, float *out, size_t n,
                             const void *arg, cudaStream_t s);
/* out[0..n) = alpha x + y through host_pipeline on pipe p, from stream
 * s0, with the rules of host_pipeline (pinned host memory, out overlapping
 * neither input, NULL p: cudaErrorInvalidValue). */
cudaError_t host_saxpy_pipelined(host_pipe *p, float alpha, const float *x,
                                 const float *y, float *out, size_t n,
                                 cudaStream_t s0);
#ifdef __cplusplus
}
#endif
#endif
