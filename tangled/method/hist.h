// hist.h -- the method: histograms of bytes, five ways.
// x: n bytes in device memory; bins: 256 unsigned counters in device
// memory, zeroed by the launcher, then counted into.  n < 2^32 (the counts
// are 32 bits) else cudaErrorInvalidValue, as for null pointers.  The
// _vec, _warp and _runs launchers read 16 bytes at a time and need x
// 16-byte aligned (cudaMalloc's pointers are), else cudaErrorInvalidValue.
// Every launcher takes the stream its work is queued on as its last
// argument (0: the default stream), and returns without waiting for it.
#ifndef HIST_H
#define HIST_H
#include <cuda_runtime_api.h>
#include <stddef.h>
#define HIST_BINS 256
#ifdef __cplusplus
extern "C" {
#endif
cudaError_t hist_global(const unsigned char *x, size_t n, unsigned *bins,
                        cudaStream_t stream);
cudaError_t hist_shared(const unsigned char *x, size_t n, unsigned *bins,
                        cudaStream_t stream);
cudaError_t hist_shared_vec(const unsigned char *x, size_t n,
                            unsigned *bins, cudaStream_t stream);
cudaError_t hist_warp(const unsigned char *x, size_t n, unsigned *bins,
                      cudaStream_t stream);
cudaError_t hist_runs(const unsigned char *x, size_t n, unsigned *bins,
                      cudaStream_t stream);
#ifdef __cplusplus
}
#endif
#endif
