/* ex_row-max.c -- exercise 3 of the reduce-2d chapter, row_max: exact against
 * the CPU on many shapes, for inputs of both signs, all negative (an identity
 * of 0 shows), rows with infinities, and rows of no elements (-inf). */
#include "exkit.h"
#include "ex_shapes.h"
#include "reduce-2d/reduce2d.h"
#include "reduce-2d/exercises.h"
#include <math.h>

static void row_max_arguments(void **s)
{
    (void)s;
    float *p = EX_FAKE(float, 256);
    EX_REFUSED(row_max(NULL, 4, 4, p, 0));
    EX_REFUSED(row_max(p, 4, 4, NULL, 0));
    EX_REFUSED(row_max(p, (size_t)1 << 31, 4, p, 0));
    EX_REFUSED(row_max(p, 4, (size_t)1 << 31, p, 0));
    EX_CUDA(row_max(p, 0, 4, p, 0));
}

static void check(size_t rows, size_t cols, int kind, int round)
{
    uint64_t seed = tk_seed(round), st = seed;
    size_t n = rows * cols;
    float *a = tk_malloc((n + 1) * sizeof *a), *got = tk_malloc(rows * sizeof *got);
    tk_fill(a, n, kind == 1 ? -2.0 : -1.0, kind == 1 ? -1.0 : 1.0, &st);
    if (kind == 2 && n) {
        a[tk_next(&st) % n] = INFINITY;
        a[tk_next(&st) % n] = -INFINITY;
    }
    float *da = tk_dev_floats(n + 1), *dout = tk_dev_floats(rows);
    tk_upload(da, a, n);
    EX_CUDA(row_max(da, rows, cols, dout, 0));
    TK_CUDA(cudaDeviceSynchronize());
    tk_download(got, dout, rows);
    size_t bad = 0;
    for (size_t i = 0; i < rows; i++) {
        float m = -INFINITY;
        for (size_t j = 0; j < cols; j++)
            m = a[i * cols + j] > m ? a[i * cols + j] : m;
        if (!(got[i] == m) && bad++ < 5)
            print_error("%s %zu x %zu kind %d seed=%llu: row %zu got %.9g, "
                        "want %.9g\n", EX_NAME, rows, cols, kind,
                        (unsigned long long)seed, i, got[i], m);
    }
    tk_free(da); tk_free(dout);
    free(a); free(got);
    if (bad) fail();
}

static void row_max_shapes(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    for (size_t k = 0; k < EX_NSHAPES; k++) {
        size_t rows, cols;
        ex_shape(k, &rows, &cols);
        for (int kind = 0; kind < 3; kind++) check(rows, cols, kind, (int)(k % 2));
    }
    check(5, 0, 0, 0);                    /* empty rows: -inf */
}

EX_MAIN(cmocka_unit_test(row_max_arguments), cmocka_unit_test(row_max_shapes))
