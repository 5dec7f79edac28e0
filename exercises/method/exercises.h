/* exercises.h -- the method chapter's code exercises: the launchers a
 * student writes in exercises/method/NAME.cu; tests/method/ex_NAME.c
 * tests them.  As in hist.h: x and bins in device memory, bins zeroed by
 * the launcher, then counted into; n < 2^32 (the counts are 32 bits); a
 * NULL pointer or a bigger n: cudaErrorInvalidValue, nothing launched.
 * x needs only its type's alignment.  Each launcher takes the stream its
 * work is queued on as its last argument (0: the default stream), and
 * returns without waiting for it. */
#ifndef EX_METHOD_H
#define EX_METHOD_H
#include <cuda_runtime_api.h>
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
/* Exercise 2 (hist16): 16-bit values into 65536 bins: bins[v] = how many
 * of x[0..n) equal v. */
#define HIST16_BINS 65536
cudaError_t hist_u16(const unsigned short *x, size_t n, unsigned *bins,
                     cudaStream_t stream);
/* Exercise 6 (hist-nbins): bytes into nbins bins, 1 <= nbins <= 256
 * (else cudaErrorInvalidValue): byte v counts in bin v * nbins / 256
 * (integer division); bins has nbins counters. */
cudaError_t hist_nbins(const unsigned char *x, size_t n, int nbins,
                       unsigned *bins, cudaStream_t stream);
#ifdef __cplusplus
}
#endif
#endif
