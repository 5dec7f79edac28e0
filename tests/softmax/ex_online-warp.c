/* ex_online-warp.c -- exercise 1 of the softmax chapter,
 * softmax_rows_online_warp: every element within (cols / 32 + 40) 4u relative
 * of softmax_ref.h's double reference (a lane's sum, the shuffles, x - m and
 * expf), on shapes around a warp and for every kind of row in ex_rows.h;
 * y poisoned before, so every element must be written. */
#include "ex_rows.h"
#include "softmax/softmax.h"
#include "softmax/softmax_ref.h"
#include "softmax/exercises.h"
#include <stdio.h>

static void online_warp_arguments(void **s)
{
    (void)s;
    float *p = EX_FAKE(float, 256);
    EX_REFUSED(softmax_rows_online_warp(NULL, p, 4, 4, 0));
    EX_REFUSED(softmax_rows_online_warp(p, NULL, 4, 4, 0));
    EX_REFUSED(softmax_rows_online_warp(p, p, (size_t)1 << 31, 4, 0));
    EX_CUDA(softmax_rows_online_warp(p, p, 0, 4, 0));
    EX_CUDA(softmax_rows_online_warp(p, p, 4, 0, 0));
}

static void check(size_t rows, size_t cols, int kind, int round)
{
    uint64_t seed = tk_seed(round), st = seed;
    size_t n = rows * cols;
    float *x = tk_malloc(n * sizeof *x), *got = tk_malloc(n * sizeof *got);
    double *ref = tk_malloc(n * sizeof *ref);
    ex_fill_rows(x, rows, cols, kind, &st);
    for (size_t r = 0; r < rows; r++) softmax_ref(x + r * cols, ref + r * cols, cols);
    float *dx = tk_dev_floats(n), *dy = tk_dev_floats(n);
    tk_upload(dx, x, n);
    EX_CUDA(softmax_rows_online_warp(dx, dy, rows, cols, 0));
    TK_CUDA(cudaDeviceSynchronize());
    tk_download(got, dy, n);
    char what[128];
    snprintf(what, sizeof what, "%s %zu x %zu, %s rows", EX_NAME, rows, cols,
             ex_kind_name[kind]);
    size_t bad = tk_compare(what, got, ref, n, 1e-30,
                            (cols / 32.0 + 40) * 4 * 0x1p-24, seed);
    tk_free(dx); tk_free(dy);
    free(x); free(got); free(ref);
    if (bad) fail();
}

static void online_warp_all_rows(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    for (size_t i = 0; i < EX_NROWS; i++)
        for (size_t j = 0; j < EX_NCOLS; j++)
            for (int kind = 0; kind < EX_KINDS; kind++)
                check(ex_rows[i], ex_cols[j], kind, (int)((i + j) % 2));
    check(3, 100003, EX_RANDOM, 1);
    check(65536, 32, EX_RANDOM, 1);
}

EX_MAIN(cmocka_unit_test(online_warp_arguments),
        cmocka_unit_test(online_warp_all_rows))
