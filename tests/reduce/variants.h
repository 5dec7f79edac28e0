/* variants.h -- the reduce chapter's sums, listed once for the test and
 * the bench.  Compiles as C and as CUDA. */
#ifndef REDUCE_VARIANTS_H
#define REDUCE_VARIANTS_H
#include "reduce/reduce.h"

/* The ladder, step by step: X(name, label, launcher, sequential).  name
 * and label are the step's row in the bench's reduce.csv; sequential: one
 * chain of n - 1 additions, for which the tests' error bound is void. */
#define REDUCE_LADDER(X)                                                   \
    X("atomic", "0 atomic", reduce_atomic, 1)                              \
    X("interleaved_divergent", "1 divergent",                              \
      reduce_interleaved_divergent, 0)                                     \
    X("interleaved_strided", "2 strided", reduce_interleaved_strided, 0)   \
    X("sequential", "3 sequential", reduce_sequential, 0)                  \
    X("first_add", "4 first add", reduce_first_add, 0)                     \
    X("warp_shuffle", "5 shuffle", reduce_warp_shuffle, 0)                 \
    X("unrolled", "6 unrolled", reduce_unrolled, 0)                        \
    X("float4", "7 float4", reduce_float4, 0)

/* The sums built on step 7's loop that end otherwise than with its second
 * kernel: the three cross-block finishes and the compensated sum.
 * X(name, launcher), name the row in the bench's reduce-finish.csv. */
#define REDUCE_OTHER_FINISHES(X)                                           \
    X("atomic_partials", reduce_finish_atomic)                             \
    X("last_block", reduce_last_block)                                     \
    X("grid_sync", reduce_grid_sync)                                       \
    X("compensated", reduce_compensated)
#endif
