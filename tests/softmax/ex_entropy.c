/* ex_entropy.c -- exercise 4 of the softmax chapter, softmax_entropy_rows:
 * each row's entropy against a double reference, within (16 (cols / 32 + 8)
 * + 256) u (1 + max |x|), u = 2^-24: m and s / d cancel, so the error
 * grows with the size of the values.  Rows of
 * random values, with some -inf, and shifted by 1000. */
#include "ex_rows.h"
#include "softmax/softmax.h"
#include "softmax/softmax_ref.h"
#include "softmax/exercises.h"

static void entropy_arguments(void **s)
{
    (void)s;
    float *p = EX_FAKE(float, 256);
    EX_REFUSED(softmax_entropy_rows(NULL, p, 4, 4, 0));
    EX_REFUSED(softmax_entropy_rows(p, NULL, 4, 4, 0));
    EX_REFUSED(softmax_entropy_rows(p, p, 4, (size_t)1 << 31, 0));
    EX_CUDA(softmax_entropy_rows(p, p, 0, 4, 0));
}

static double entropy_ref(const float *x, size_t n)
{
    double *p = tk_malloc(n * sizeof *p), h = 0;
    softmax_ref(x, p, n);
    for (size_t i = 0; i < n; i++) if (p[i] > 0) h -= p[i] * log(p[i]);
    free(p);
    return h;
}

static void check(size_t rows, size_t cols, int kind, int round)
{
    uint64_t seed = tk_seed(round), st = seed;
    size_t n = rows * cols;
    float *x = tk_malloc(n * sizeof *x), *got = tk_malloc(rows * sizeof *got);
    ex_fill_rows(x, rows, cols, kind, &st);
    float *dx = tk_dev_floats(n), *dh = tk_dev_floats(rows);
    tk_upload(dx, x, n);
    EX_CUDA(softmax_entropy_rows(dx, dh, rows, cols, 0));
    TK_CUDA(cudaDeviceSynchronize());
    tk_download(got, dh, rows);
    size_t bad = 0;
    for (size_t r = 0; r < rows; r++) {
        double big = 0;
        for (size_t j = 0; j < cols; j++)
            if (isfinite(x[r * cols + j]) && fabs(x[r * cols + j]) > big)
                big = fabs(x[r * cols + j]);
        double want = entropy_ref(x + r * cols, cols);
        double tol = (16 * (cols / 32.0 + 8) + 256) * 0x1p-24 * (1 + big);
        if (!(fabs(got[r] - want) <= tol) && bad++ < 5)
            print_error("%s %zu x %zu, %s rows, seed=%llu: row %zu entropy "
                        "%.9g, want %.9g within %.3g\n", EX_NAME, rows, cols,
                        ex_kind_name[kind], (unsigned long long)seed, r,
                        got[r], want, tol);
    }
    tk_free(dx); tk_free(dh);
    free(x); free(got);
    if (bad) fail();
}

static void entropy_all_rows(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    static const int kinds[] = {EX_RANDOM, EX_SOME_NEG_INF, EX_SHIFTED};
    for (size_t i = 0; i < EX_NROWS; i++)
        for (size_t j = 0; j < EX_NCOLS; j++)
            for (int k = 0; k < 3; k++)
                check(ex_rows[i], ex_cols[j], kinds[k], (int)((i + j) % 2));
    check(3, 100003, EX_RANDOM, 1);
}

EX_MAIN(cmocka_unit_test(entropy_arguments),
        cmocka_unit_test(entropy_all_rows))
