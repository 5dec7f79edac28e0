// exercises/host/saxpy-stage.cu -- Exercise 2 of the host chapter: SAXPY as
// a stage of the pipeline.  Write host_saxpy_stage and
// host_saxpy_pipelined (declared, with their contracts, in exercises.h);
// check them with  make exercise EX=host/saxpy-stage
#include "common/book.h"
#include "host/host.h"
#include "host/exercises.h"

extern "C" cudaError_t host_saxpy_stage(const float *const *in, float *out,
                                        size_t n, const void *arg,
                                        cudaStream_t s)
{
    (void)in; (void)out; (void)n; (void)s; (void)arg;
    // TODO: refuse bad arguments, then launch a kernel on stream s (and on
    // no other) that computes out[i] = alpha * x[i] + y[i].
    return cudaErrorNotYetImplemented;
}

extern "C" cudaError_t host_saxpy_pipelined(host_pipe *p, float alpha,
                                            const float *x, const float *y,
                                            float *out, size_t n,
                                            cudaStream_t s0)
{
    (void)p; (void)alpha; (void)x; (void)y; (void)out; (void)n; (void)s0;
    // TODO: describe the stage in a host_kernel and call host_pipeline.
    // How long must alpha live?
    return cudaErrorNotYetImplemented;
}
