/* ex_transpose-double.c -- exercise 4 of the transpose chapter,
 * transpose_double: exact (a transpose moves bits) on shapes around the
 * tile's side, one past and one short, tall and wide, and 4097 x 4099;
 * nothing written outside the output (poison at its end). */
#include "exkit.h"
#include "transpose/transpose.h"
#include "transpose/exercises.h"
#include <string.h>

static void transpose_double_arguments(void **s)
{
    (void)s;
    double *p = EX_FAKE(double, 4096), *q = EX_FAKE(double, 1 << 20);
    EX_REFUSED(transpose_double(NULL, q, 10, 10, 0));
    EX_REFUSED(transpose_double(p, NULL, 10, 10, 0));
    EX_REFUSED(transpose_double(p, p + 10, 10, 10, 0)); /* overlap */
    EX_REFUSED(transpose_double(p, q, (size_t)1 << 31, 1, 0));
    EX_REFUSED(transpose_double(p, q, 1, (size_t)1 << 31, 0));
    EX_CUDA(transpose_double(p, q, 0, 10, 0));          /* empty */
}

static void transpose_double_shapes(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    static const size_t side[] = {1, 17, 31, 32, 33, 64, 100, 1025};
    const size_t ns = sizeof side / sizeof side[0];
    uint64_t seed = tk_seed(1), st = seed;
    for (size_t i = 0; i <= ns; i++)
        for (size_t j = 0; j <= ns; j++) {
            size_t rows = i < ns ? side[i] : 4097, cols = j < ns ? side[j] : 4099;
            if ((i == ns) != (j == ns)) continue;
            size_t n = rows * cols;
            double *h = tk_malloc(n * sizeof *h), *got = tk_malloc((n + 4) * sizeof *got);
            for (size_t k = 0; k < n; k++) h[k] = tk_uniform(&st, -1.0, 1.0);
            double *din = tk_dev_bytes(n * sizeof *din);
            double *dout = tk_dev_bytes((n + 4) * sizeof *dout);
            tk_upload_bytes(din, h, n * sizeof *h);
            EX_CUDA(transpose_double(din, dout, rows, cols, 0));
            TK_CUDA(cudaDeviceSynchronize());
            tk_download_bytes(got, dout, (n + 4) * sizeof *got);
            size_t bad = 0;
            for (size_t r = 0; r < rows; r++)
                for (size_t c = 0; c < cols; c++)
                    if (memcmp(&got[c * rows + r], &h[r * cols + c], 8) != 0
                        && bad++ < 5)
                        print_error("%s %zu x %zu seed=%llu: out[%zu][%zu] = "
                                    "%.17g, want %.17g\n", EX_NAME, rows, cols,
                                    (unsigned long long)seed, c, r,
                                    got[c * rows + r], h[r * cols + c]);
            for (size_t k = n; k < n + 4; k++)
                if (got[k] == got[k] && bad++ < 5)
                    print_error("%s %zu x %zu: wrote past the output\n",
                                EX_NAME, rows, cols);
            tk_free(din); tk_free(dout);
            free(h); free(got);
            if (bad) fail();
        }
}

EX_MAIN(cmocka_unit_test(transpose_double_arguments),
        cmocka_unit_test(transpose_double_shapes))
