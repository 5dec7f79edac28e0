// reduce_parts.cuh -- block size, workspace layout, the one-value kernel.
#ifndef REDUCE_PARTS_CUH
#define REDUCE_PARTS_CUH
#include "common/book.h"
#include "common/carve.h"
#include "reduce/reduce.cuh"
#include "reduce/reduce.h"

// <<Reduction constants and workspace>>
static const unsigned kReduceBlock = 256;       // threads per block
static const size_t kReduceMaxGrid = 2147483647u;

typedef struct {
    unsigned *counter;            // the last-block-done counter
    float *a, *b;                 // the two arrays of block partials
} reduce_work;
static inline reduce_work reduce_work_layout(book_carve *c, size_t n)
{
    reduce_work w;
    w.counter = (unsigned *)book_carve_take(c, 256, 256);
    w.a = (float *)book_carve_take(c, 4 * (ceil_div(n, 256) + 1), 4);
    w.b = (float *)book_carve_take(c, 4 * (ceil_div(n, 65536) + 1), 4);
    return w;
}
static inline reduce_work reduce_work_at(void *work, size_t n)
{
    book_carve c = {(char *)work, 0, 0};
    return reduce_work_layout(&c, n);
}

// <<Write one value from the device>>
static __global__ void set_value_kernel(float *out, float v) { *out = v; }

static inline cudaError_t write_value(float *out, float v,
                                      cudaStream_t stream)
{
    BOOK_CLEAR_TO_LAUNCH();
    set_value_kernel<<<1, 1, 0, stream>>>(out, v);
    return cudaGetLastError();
}
#endif
