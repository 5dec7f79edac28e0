// exercises/threads/float4-head.cu -- Exercise 3 of the threads chapter:
// float4 for pointers that are not 16-byte aligned, by peeling a short head.
// Write vadd_float4_head (declared, with its contract, in exercises.h);
// check it with  make exercise EX=threads/float4-head
#include "common/book.h"
#include "threads/threads.h"
#include "threads/exercises.h"

extern "C" cudaError_t vadd_float4_head(const float *a, const float *b,
                                        float *c, size_t n,
                                        cudaStream_t stream)
{
    (void)a; (void)b; (void)c; (void)n; (void)stream;
    // TODO: refuse bad arguments; how many elements come before the first
    // 16-byte boundary?  Add those, then float4s, then the tail.
    return cudaErrorNotYetImplemented;
}
