/* ex_rows.h -- the inputs the softmax chapter's exercise drivers run: shapes
 * around a warp and a block and one long row; rows of random values, rows
 * with some -inf, rows of -inf only, huge values, and a +inf. */
#include "exkit.h"
#include <math.h>
static const size_t ex_rows[] = {1, 7, 33, 1000};
static const size_t ex_cols[] = {1, 2, 31, 32, 33, 1000, 1025, 4097};
#define EX_NROWS (sizeof ex_rows / sizeof ex_rows[0])
#define EX_NCOLS (sizeof ex_cols / sizeof ex_cols[0])
enum { EX_RANDOM, EX_SOME_NEG_INF, EX_ALL_NEG_INF, EX_HUGE, EX_POS_INF,
       EX_SHIFTED, EX_KINDS };
static const char *const ex_kind_name[] = {"random", "some -inf",
    "all -inf", "huge", "+inf", "shifted by 1000"};
/* Fill a rows x cols matrix with inputs of one kind. */
static void ex_fill_rows(float *x, size_t rows, size_t cols, int kind,
                         uint64_t *st)
{
    size_t n = rows * cols;
    tk_fill(x, n, -10.0, 10.0, st);
    for (size_t i = 0; i < n; i++) {
        if (kind == EX_SOME_NEG_INF && tk_next(st) % 4 == 0) x[i] = -INFINITY;
        if (kind == EX_ALL_NEG_INF) x[i] = -INFINITY;
        if (kind == EX_HUGE) x[i] *= 1e37f;
        if (kind == EX_SHIFTED) x[i] += 1000.0f;
    }
    if (kind == EX_POS_INF)
        for (size_t r = 0; r < rows; r++) x[r * cols + tk_next(st) % cols] = INFINITY;
    if (kind == EX_SOME_NEG_INF)       /* at least one finite value a row */
        for (size_t r = 0; r < rows; r++) x[r * cols] = 1.0f;
}
