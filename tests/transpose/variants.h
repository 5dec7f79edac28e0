/* variants.h -- the transpose chapter's transposes, one list for the test
 * (test_transpose.c), the benchmark (bench_transpose.cu: its rows, and
 * its --ncu VARIANT) and the counters (counters.sh takes the names from
 * bench --variants): X(name, launcher).  The listing that is wrong on
 * purpose, transpose_tile_nobarrier, is not one of them. */
#ifndef TRANSPOSE_VARIANTS_H
#define TRANSPOSE_VARIANTS_H
#define TRANSPOSE_VARIANTS(X)                                             \
    X("naive", transpose_naive)                                           \
    X("naive_colread", transpose_naive_colread)                           \
    X("tile", transpose_tile)                                             \
    X("tile_padded", transpose_tile_padded)                               \
    X("tile_swizzled", transpose_tile_swizzled)                           \
    X("tile64_padded", transpose_tile64)
#endif
