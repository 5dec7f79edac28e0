/* ex_gemv.c -- exercise 5 of the reduce-2d chapter, gemv: y = A x within the
 * float dot product's bound, gamma_cols sum |a x| (twice it), on many shapes;
 * y poisoned before, so every element must be written. */
#include "exkit.h"
#include "ex_shapes.h"
#include "reduce-2d/reduce2d.h"
#include "reduce-2d/exercises.h"
#include <math.h>

static void gemv_arguments(void **s)
{
    (void)s;
    float *p = EX_FAKE(float, 256);
    EX_REFUSED(gemv(NULL, p, 4, 4, p, 0));
    EX_REFUSED(gemv(p, NULL, 4, 4, p, 0));
    EX_REFUSED(gemv(p, p, 4, 4, NULL, 0));
    EX_REFUSED(gemv(p, p, (size_t)1 << 31, 4, p, 0));
    EX_CUDA(gemv(p, p, 0, 4, p, 0));
}

static void gemv_shapes(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    for (size_t k = 0; k < EX_NSHAPES; k++) {
        size_t rows, cols;
        ex_shape(k, &rows, &cols);
        uint64_t seed = tk_seed((int)(k % 2)), st = seed;
        size_t n = rows * cols;
        float *a = tk_malloc(n * sizeof *a), *x = tk_malloc(cols * sizeof *x);
        float *got = tk_malloc(rows * sizeof *got);
        tk_fill(a, n, -1.0, 1.0, &st);
        tk_fill(x, cols, -1.0, 1.0, &st);
        float *da = tk_dev_floats(n), *dx = tk_dev_floats(cols);
        float *dy = tk_dev_floats(rows);
        tk_upload(da, a, n);
        tk_upload(dx, x, cols);
        EX_CUDA(gemv(da, dx, rows, cols, dy, 0));
        TK_CUDA(cudaDeviceSynchronize());
        tk_download(got, dy, rows);
        const double u = 0x1p-24, g = cols * u / (1 - cols * u);
        size_t bad = 0;
        for (size_t i = 0; i < rows; i++) {
            double r = 0, ab = 0;
            for (size_t j = 0; j < cols; j++) {
                r += (double)a[i * cols + j] * x[j];
                ab += fabs((double)a[i * cols + j] * x[j]);
            }
            if (!(isfinite(got[i]) && fabs(got[i] - r) <= 2 * g * ab) &&
                bad++ < 5)
                print_error("%s %zu x %zu seed=%llu: y[%zu] = %.9g, want "
                            "%.9g within %.3g\n", EX_NAME, rows, cols,
                            (unsigned long long)seed, i, got[i], r, 2 * g * ab);
        }
        tk_free(da); tk_free(dx); tk_free(dy);
        free(a); free(x); free(got);
        if (bad) fail();
    }
}

EX_MAIN(cmocka_unit_test(gemv_arguments), cmocka_unit_test(gemv_shapes))
