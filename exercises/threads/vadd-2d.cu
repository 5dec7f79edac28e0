// exercises/threads/vadd-2d.cu -- Exercise 2 of the threads chapter: vadd on
// a two-dimensional grid.  Write vadd_2d (declared, with its contract, in
// exercises.h); check it with  make exercise EX=threads/vadd-2d
#include "common/book.h"
#include "threads/threads.h"
#include "threads/exercises.h"

extern "C" cudaError_t vadd_2d(const float *a, const float *b, float *c,
                               size_t n, cudaStream_t stream)
{
    (void)a; (void)b; (void)c; (void)n; (void)stream;
    // TODO: refuse bad arguments, choose gridDim.x and gridDim.y, launch
    // a kernel on stream that computes its element's index in 64 bits.
    return cudaErrorNotYetImplemented;
}
