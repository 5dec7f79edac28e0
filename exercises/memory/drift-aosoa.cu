// exercises/memory/drift-aosoa.cu -- Exercise 3 of the memory chapter: the
// drift kernel for an array of structs of 32 particles each (AoSoA).  Write
// drift_aosoa (declared, with its contract and the struct, in exercises.h);
// check it with  make exercise EX=memory/drift-aosoa
#include "common/book.h"
#include "memory/memory.h"
#include "memory/exercises.h"

extern "C" cudaError_t drift_aosoa(struct particle_block *p, size_t n,
                                   float dt, cudaStream_t stream)
{
    (void)p; (void)n; (void)dt; (void)stream;
    // TODO: refuse bad arguments and launch a kernel on stream.  Which
    // bytes does a warp read, and how many sectors is that?
    return cudaErrorNotYetImplemented;
}
