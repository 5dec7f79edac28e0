// reduce_parts.cuh -- block size, workspace layout, the one-value kernel.
#ifndef REDUCE_PARTS_CUH
#define REDUCE_PARTS_CUH
#include "common/book.h"
#include "reduce/reduce.cuh"
#include "reduce/reduce.h"

// <<Reduction constants and workspace>>
static const unsigned kReduceBlock = 256;       // threads per block
static const size_t kReduceMaxGrid = 2147483647u;

static inline size_t partials_a_floats(size_t n)
{
    return ceil_div(n, 256) + 1;
}
static inline size_t partials_b_floats(size_t n)
{
    return ceil_div(n, 65536) + 1;
}
static inline unsigned *work_counter(void *w) { return (unsigned *)w; }
static inline float *work_a(void *w) { return (float *)((char *)w + 256); }
static inline float *work_b(void *w, size_t n)
{
    return work_a(w) + partials_a_floats(n);
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
