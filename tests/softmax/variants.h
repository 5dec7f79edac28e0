/* variants.h -- the softmax chapter's launchers, listed once for the test
 * and the bench: X(name, launcher), the name being the launcher's rows in
 * the bench's softmax.csv (SHAPE/name).  Compiles as C and as CUDA. */
#ifndef SOFTMAX_VARIANTS_H
#define SOFTMAX_VARIANTS_H
#include "softmax/softmax.h"

/* Softmax of each row: launcher(x, y, rows, cols, stream). */
typedef cudaError_t (*softmax_rows_fn)(const float *, float *, size_t,
                                       size_t, cudaStream_t);
#define SOFTMAX_ROW_VARIANTS(X)                                            \
    X("warp", softmax_rows_warp)                                           \
    X("block", softmax_rows_block)                                         \
    X("float4", softmax_rows_float4)                                       \
    X("cached", softmax_rows_cached)                                       \
    X("online", softmax_rows_online)

/* One distribution over a whole array: launcher(x, y, n, work, stream),
 * in the order of the chapter's table. */
typedef cudaError_t (*softmax_whole_fn)(const float *, float *, size_t,
                                        void *, cudaStream_t);
#define SOFTMAX_WHOLE_VARIANTS(X)                                          \
    X("whole-simple", softmax_whole_simple)                                \
    X("whole-u4", softmax_whole_u4)                                        \
    X("whole", softmax_whole)                                              \
    X("whole-fused-pairs", softmax_whole_fused_pairs)                      \
    X("whole-fused", softmax_whole_fused)                                  \
    X("whole-resident", softmax_whole_resident)                            \
    X("whole-resident-fast", softmax_whole_resident_fast)
#endif
