// exercises/host/solutions/saxpy-stage.cu -- Exercise 2 of the host
// chapter, solved: SAXPY as a stage of the pipeline.
#include "common/book.h"
#include "host/host.h"
#include "host/exercises.h"

__global__ void saxpy_stage_kernel(float alpha, const float *x,
                                   const float *y, float *out, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) out[i] = alpha * x[i] + y[i];
}

extern "C" cudaError_t host_saxpy_stage(const float *const *in, float *out,
                                        size_t n, const void *arg,
                                        cudaStream_t s)
{
    if (n == 0) return cudaSuccess;
    if (!in || !in[0] || !in[1] || !out || !arg) return cudaErrorInvalidValue;
    size_t grid = ceil_div(n, 256);
    if (grid > 2147483647u) return cudaErrorInvalidValue;
    const float alpha = *(const float *)arg;   // read now, on the host
    BOOK_CLEAR_TO_LAUNCH();
    saxpy_stage_kernel<<<(unsigned)grid, 256, 0, s>>>(alpha, in[0], in[1],
                                                      out, n);
    return cudaGetLastError();
}

// alpha lives on this function's stack: enough, since each stage reads it
// while host_pipeline queues the chunk's launch, before it returns.
extern "C" cudaError_t host_saxpy_pipelined(host_pipe *p, float alpha,
                                            const float *x, const float *y,
                                            float *out, size_t n,
                                            cudaStream_t s0)
{
    const float *in[2] = {x, y};
    const host_kernel k = {host_saxpy_stage, &alpha, 2, 0};
    return host_pipeline(p, &k, in, out, n, s0);
}
