// exercises/layernorm/warp-row.cu -- Exercise 2 of the layernorm chapter: a
// warp-per-row layer norm with the row cached in registers.  Write
// layernorm_warp (declared, with its contract, in exercises.h); check it
// with  make exercise EX=layernorm/warp-row
#include "common/book.h"
#include "layernorm/layernorm.h"
#include "layernorm/exercises.h"

extern "C" cudaError_t layernorm_warp(const float *x, const float *gamma,
                                      const float *beta, float *y,
                                      size_t rows, size_t cols, float eps,
                                      cudaStream_t stream)
{
    (void)x; (void)gamma; (void)beta; (void)y; (void)rows; (void)cols;
    (void)eps; (void)stream;
    // TODO: refuse bad arguments and launch a kernel on stream.  How many
    // values does a lane hold for cols = 1024, and must the array's indices
    // be known at compile time to stay in registers?
    return cudaErrorNotYetImplemented;
}
