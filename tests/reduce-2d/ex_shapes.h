/* ex_shapes.h -- the shapes the reduce-2d chapter's exercise drivers run:
 * rows and columns around a warp and a block, one long row, many short
 * rows. */
#include <stddef.h>
static const size_t ex_rows[] = {1, 7, 31, 32, 33, 1000, 1025};
static const size_t ex_cols[] = {1, 3, 31, 32, 33, 255, 257, 1000, 4097};
static const size_t ex_odd[][2] = {{1, 1000003}, {100003, 3}, {2049, 2049}};
#define EX_NROWS (sizeof ex_rows / sizeof ex_rows[0])
#define EX_NCOLS (sizeof ex_cols / sizeof ex_cols[0])
#define EX_NODD (sizeof ex_odd / sizeof ex_odd[0])
/* Shape k of EX_NROWS * EX_NCOLS + EX_NODD. */
static inline void ex_shape(size_t k, size_t *rows, size_t *cols)
{
    if (k < EX_NROWS * EX_NCOLS) {
        *rows = ex_rows[k / EX_NCOLS];
        *cols = ex_cols[k % EX_NCOLS];
    } else {
        *rows = ex_odd[k - EX_NROWS * EX_NCOLS][0];
        *cols = ex_odd[k - EX_NROWS * EX_NCOLS][1];
    }
}
#define EX_NSHAPES (EX_NROWS * EX_NCOLS + EX_NODD)
