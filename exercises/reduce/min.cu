// exercises/reduce/min.cu -- Exercise 5 of the reduce chapter: the minimum.
// Write reduce_min (declared, with its contract, in exercises.h); check it
// with  make exercise EX=reduce/min
#include "common/book.h"
#include "reduce/reduce.h"
#include "reduce/exercises.h"

extern "C" cudaError_t reduce_min(const float *x, size_t n, float *out,
                                  void *work, cudaStream_t stream)
{
    (void)x; (void)n; (void)out; (void)work; (void)stream;
    // TODO: refuse bad arguments, then launch your kernels on stream.
    // Which value is the identity of min, and what does an empty input
    // give?
    return cudaErrorNotYetImplemented;
}
