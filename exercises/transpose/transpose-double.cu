// exercises/transpose/transpose-double.cu -- Exercise 4 of the transpose
// chapter: transpose a matrix of doubles.  Write transpose_double (declared,
// with its contract, in exercises.h); check it with
//   make exercise EX=transpose/transpose-double
#include "common/book.h"
#include "transpose/transpose.h"
#include "transpose/exercises.h"

extern "C" cudaError_t transpose_double(const double *in, double *out,
                                        size_t rows, size_t cols,
                                        cudaStream_t stream)
{
    (void)in; (void)out; (void)rows; (void)cols; (void)stream;
    // TODO: refuse bad arguments and launch a tiled kernel on stream.  With
    // eight-byte words, which layout of the tile is conflict-free?
    return cudaErrorNotYetImplemented;
}
