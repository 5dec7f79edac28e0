// exercises/memory/fma-one-chain.cu -- Exercise 4 of the memory chapter: the
// peak-FMA kernel with one dependent chain.  Write fma_one_chain
// (declared, with its contract, in exercises.h); check it with
//   make exercise EX=memory/fma-one-chain
#include "common/book.h"
#include "memory/memory.h"
#include "memory/exercises.h"

extern "C" cudaError_t fma_one_chain(float *out, size_t n, unsigned iters,
                                     float a, float b, cudaStream_t stream)
{
    (void)out; (void)n; (void)iters; (void)a; (void)b; (void)stream;
    // TODO: refuse bad arguments and launch a kernel on stream.  Then
    // measure it: how many warps per SM does one chain need to reach the
    // peak?
    return cudaErrorNotYetImplemented;
}
