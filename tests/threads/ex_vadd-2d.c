/* ex_vadd-2d.c -- exercise 2 of the threads chapter, vadd_2d: exact on the
 * book's ladder of sizes up to 10^7 + 1, then past one row of 65535 blocks (a
 * second and a fourth row of the grid), the limit refused. */
#include "ex_vadd.h"
#include "threads/threads.h"
#include "threads/exercises.h"

static void vadd_2d_arguments(void **s)
{
    (void)s;
    float *p = EX_FAKE(float, 256);
    EX_REFUSED(vadd_2d(NULL, p, p, 10, 0));
    EX_REFUSED(vadd_2d(p, NULL, p, 10, 0));
    EX_REFUSED(vadd_2d(p, p, NULL, 10, 0));
    EX_REFUSED(vadd_2d(p, p, p, VADD_2D_MAX_N + 1, 0));
    EX_CUDA(vadd_2d(p, p, p, 0, 0));       /* nothing to do: success */
}

static void vadd_2d_all_sizes(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    for (tk_sweep w = tk_sweep_start(10000001, 0); tk_sweep_next(&w);)
        ex_vadd_check(vadd_2d, w.n, 0, 0, 0, w.round);
    /* One block past a full first row of blocks, and one element more. */
    ex_vadd_check(vadd_2d, (size_t)65535 * 256 + 1, 0, 0, 0, 1);
    ex_vadd_check(vadd_2d, (size_t)65535 * 256 * 3 + 257, 1, 2, 3, 1);
}

EX_MAIN(cmocka_unit_test(vadd_2d_arguments),
        cmocka_unit_test(vadd_2d_all_sizes))
