/* variants.h -- the reduce-2d chapter's row and column sums, listed once
 * for the test and the bench: X(name, launcher, by_rows, zeroed).  name:
 * the launcher's rows in the bench's reduce-2d.csv (name_SHAPE); by_rows:
 * row sums, else column sums; zeroed: the workspace must be set to zero
 * once (the launcher leaves it zero).  Compiles as C and as CUDA. */
#ifndef REDUCE2D_VARIANTS_H
#define REDUCE2D_VARIANTS_H
#include "reduce-2d/reduce2d.h"

#define REDUCE2D_VARIANTS(X)                                               \
    X("row_sums_warp", row_sums_warp, 1, 0)                                \
    X("row_sums_block", row_sums_block, 1, 0)                              \
    X("row_sums", row_sums, 1, 0)                                          \
    X("col_block_per_column", col_sums_block_per_column, 0, 0)             \
    X("col_sums", col_sums, 0, 0)                                          \
    X("row_sums_in_flight", row_sums_in_flight, 1, 0)                      \
    X("col_sums_in_flight", col_sums_in_flight, 0, 1)
#endif
