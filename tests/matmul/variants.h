/* variants.h -- the matmul chapter's launchers, listed once for its test
 * and its benchmark, in the order of the chapter and of matmul.csv's rows:
 *     X(name, launcher, flop_per_byte)
 * name is the variant's row in matmul.csv; flop_per_byte the FLOP per
 * byte of load requests of its block tile, 0 for matmul_warp_tiled, whose
 * tile the table picks at run time.  The 128 x 128 kernels, whose fast
 * path needs 16-byte aligned pointers, are those from vectorized on. */
#ifndef MATMUL_VARIANTS_H
#define MATMUL_VARIANTS_H
#include "matmul/matmul.h"

#define MATMUL_VARIANTS(X)                                               \
    X("naive", matmul_naive, 0.25)                                       \
    X("coalesced", matmul_coalesced, 0.25)                               \
    X("tiled", matmul_tiled, 8)                                          \
    X("1d-blocked", matmul_1d_blocked, 16)                               \
    X("2d-blocked", matmul_2d_blocked, 32)                               \
    X("vectorized", matmul_vectorized, 32)                               \
    X("double-buffered", matmul_double_buffered, 32)                     \
    X("dbuf-warp", matmul_dbuf_warp, 32)                                 \
    X("pipelined", matmul_pipelined, 32)                                 \
    X("unrolled", matmul_warp_unrolled, 32)                              \
    X("warp-tiled", matmul_warp_tiled, 0)

typedef cudaError_t (*mm_fn)(const float *, const float *, float *, size_t,
                             size_t, size_t, cudaStream_t);
#endif
