// exercises/method/hist-nbins.cu -- Exercise 6 of the method chapter:
// bytes into a chosen number of bins.  Write hist_nbins (declared, with
// its contract, in exercises.h); check it with
//   make exercise EX=method/hist-nbins
#include "common/book.h"
#include "method/hist.h"
#include "method/exercises.h"

extern "C" cudaError_t hist_nbins(const unsigned char *x, size_t n,
                                  int nbins, unsigned *bins,
                                  cudaStream_t stream)
{
    (void)x; (void)n; (void)nbins; (void)bins; (void)stream;
    // TODO: refuse bad arguments, zero the bins and launch your kernel,
    // both on stream.
    // Which bin does byte v go to, and how much shared memory is needed?
    return cudaErrorNotYetImplemented;
}
