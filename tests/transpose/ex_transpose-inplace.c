/* ex_transpose-inplace.c -- exercise 5 of the transpose chapter,
 * transpose_inplace: exact on sides around the tile's
 * (1, 31, 32, 33, ...) up to 4097, and twice in a row gives back the
 * input. */
#include "exkit.h"
#include "transpose/transpose.h"
#include "transpose/exercises.h"
#include <string.h>

static void transpose_inplace_arguments(void **s)
{
    (void)s;
    EX_REFUSED(transpose_inplace(NULL, 10, 0));
    EX_REFUSED(transpose_inplace(EX_FAKE(float, 256), (size_t)1 << 31, 0));
    EX_CUDA(transpose_inplace(EX_FAKE(float, 256), 0, 0));
}

static void transpose_inplace_sides(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    static const size_t side[] = {1, 2, 31, 32, 33, 63, 64, 65, 100, 1000,
                                  1025, 4097};
    for (int round = 0; round < 2; round++)
        for (size_t i = 0; i < sizeof side / sizeof side[0]; i++) {
            size_t n = side[i], nn = n * n;
            uint64_t seed = tk_seed(round), st = seed;
            float *h = tk_malloc(nn * sizeof *h), *got = tk_malloc(nn * sizeof *got);
            tk_fill(h, nn, -1.0, 1.0, &st);
            float *d = tk_dev_floats(nn);
            tk_upload(d, h, nn);
            EX_CUDA(transpose_inplace(d, n, 0));
            TK_CUDA(cudaDeviceSynchronize());
            tk_download(got, d, nn);
            size_t bad = 0;
            for (size_t r = 0; r < n; r++)
                for (size_t c = 0; c < n; c++)
                    if (memcmp(&got[c * n + r], &h[r * n + c], 4) != 0 &&
                        bad++ < 5)
                        print_error("%s n=%zu seed=%llu: a[%zu][%zu] = %.9g, "
                                    "want %.9g\n", EX_NAME, n,
                                    (unsigned long long)seed, c, r,
                                    got[c * n + r], h[r * n + c]);
            EX_CUDA(transpose_inplace(d, n, 0));        /* and back */
            TK_CUDA(cudaDeviceSynchronize());
            tk_download(got, d, nn);
            if (memcmp(got, h, nn * sizeof *h) != 0 && bad++ < 5)
                print_error("%s n=%zu: transposing twice did not give the "
                            "input back\n", EX_NAME, n);
            tk_free(d);
            free(h); free(got);
            if (bad) fail();
        }
}

EX_MAIN(cmocka_unit_test(transpose_inplace_arguments),
        cmocka_unit_test(transpose_inplace_sides))
