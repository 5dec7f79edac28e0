// exercises/reduce/argmax.cu -- Exercise 5 of the reduce chapter: argmax.
// Write reduce_argmax (declared, with its contract, in exercises.h); check
// it with  make exercise EX=reduce/argmax
#include "common/book.h"
#include "reduce/reduce.h"
#include "reduce/exercises.h"

extern "C" cudaError_t reduce_argmax(const float *x, size_t n, size_t *idx,
                                     void *work, cudaStream_t stream)
{
    (void)x; (void)n; (void)idx; (void)work; (void)stream;
    // TODO: refuse bad arguments, then launch your kernels on stream.
    // What pair does the reduction carry, what is its identity, and how
    // do ties resolve to the first maximum whatever the order of the
    // additions?
    return cudaErrorNotYetImplemented;
}
