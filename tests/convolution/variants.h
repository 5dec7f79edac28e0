/* variants.h -- the convolution chapter's launchers of one signature each,
 * listed once for its test and its benchmark:
 *     X(ID, name, launcher)
 * ID names the variant in the benchmark's enum of kinds, name is its
 * variant in convolution.csv.  A kind can have a 1D and a 2D launcher
 * (naive, tiled).  The separable filter, same and the wrong seed kernel
 * take other arguments and are not listed. */
#ifndef CONVOLUTION_VARIANTS_H
#define CONVOLUTION_VARIANTS_H
#include "convolution/conv.h"

#define CONV1D_VARIANTS(X)                                               \
    X(NAIVE, "naive", conv1d_naive)                                      \
    X(CONST, "const", conv1d_const)                                      \
    X(ROTATED, "const-rotated", conv1d_const_rotated)                    \
    X(TILED, "tiled", conv1d_tiled)                                      \
    X(WINDOW, "window", conv1d_window)
#define CONV2D_VARIANTS(X)                                               \
    X(NAIVE, "naive", conv2d_naive)                                      \
    X(TILED, "tiled", conv2d_tiled)                                      \
    X(BLOCKED, "blocked", conv2d_blocked)                                \
    X(ROWS, "rows", conv2d_rows)

typedef cudaError_t (*c1_fn)(const float *, size_t, const float *, size_t,
                             float *, cudaStream_t);
typedef cudaError_t (*c2_fn)(const float *, size_t, size_t, const float *,
                             size_t, size_t, float *, cudaStream_t);
#endif
