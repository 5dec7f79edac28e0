// exercises/reduce-2d/gemv.cu -- Exercise 5 of the reduce-2d chapter: y = A x
// as a row reduction.  Write gemv (declared, with its contract, in
// exercises.h); check it with  make exercise EX=reduce-2d/gemv
#include "common/book.h"
#include "reduce-2d/reduce2d.h"
#include "reduce-2d/exercises.h"

extern "C" cudaError_t gemv(const float *a, const float *x, size_t rows,
                            size_t cols, float *y, cudaStream_t stream)
{
    (void)a; (void)x; (void)rows; (void)cols; (void)y; (void)stream;
    // TODO: refuse bad arguments and launch, on stream, a kernel that
    // reduces each row of a[i][j] x[j].  Then compare with cublasSgemv.
    return cudaErrorNotYetImplemented;
}
