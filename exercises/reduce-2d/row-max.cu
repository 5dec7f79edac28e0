// exercises/reduce-2d/row-max.cu -- Exercise 3 of the reduce-2d chapter: row
// maxima.  Write row_max (declared, with its contract, in exercises.h);
// check it with  make exercise EX=reduce-2d/row-max
#include "common/book.h"
#include "reduce-2d/reduce2d.h"
#include "reduce-2d/exercises.h"

extern "C" cudaError_t row_max(const float *a, size_t rows, size_t cols,
                               float *out, cudaStream_t stream)
{
    (void)a; (void)rows; (void)cols; (void)out; (void)stream;
    // TODO: refuse bad arguments and launch a kernel on stream: change the
    // operator of a row sum.  What is the identity of max?
    return cudaErrorNotYetImplemented;
}
