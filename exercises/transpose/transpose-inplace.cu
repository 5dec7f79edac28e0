// exercises/transpose/transpose-inplace.cu -- Exercise 5 of the transpose
// chapter: the in-place transpose of a square matrix.  Write
// transpose_inplace (declared, with its contract, in exercises.h); check
// it with
//   make exercise EX=transpose/transpose-inplace
#include "common/book.h"
#include "transpose/transpose.h"
#include "transpose/exercises.h"

extern "C" cudaError_t transpose_inplace(float *a, size_t n,
                                         cudaStream_t stream)
{
    (void)a; (void)n; (void)stream;
    // TODO: refuse bad arguments and launch a kernel on stream in which
    // each block swaps a tile above the diagonal with its mirror below.
    // What must a block have done before it writes anything?
    return cudaErrorNotYetImplemented;
}
