/* ex_fma-one-chain.c -- exercise 4 of the memory chapter, fma_one_chain:
 * every thread's result exact against the CPU's fmaf (correctly rounded, as
 * the GPU's), for several sizes, iteration counts and coefficients. */
#include "exkit.h"
#include "memory/memory.h"
#include "memory/exercises.h"
#include <math.h>

static void fma_one_chain_arguments(void **s)
{
    (void)s;
    EX_REFUSED(fma_one_chain(NULL, 10, 1, 1.0f, 0.0f, 0));
    EX_CUDA(fma_one_chain(NULL, 0, 10, 1.0f, 0.0f, 0));
}

static void fma_one_chain_exact(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    static const size_t ns[] = {1, 33, 1025, 4097, 100003};
    static const unsigned its[] = {0, 1, 7, 1000};
    static const float ab[][2] = {{0.999f, 0.001f}, {-1.0001f, 0.5f}};
    for (size_t a = 0; a < 2; a++)
        for (size_t q = 0; q < 4; q++)
            for (size_t k = 0; k < 5; k++) {
                size_t n = ns[k];
                float *d = tk_dev_floats(n), *got = tk_malloc(n * sizeof *got);
                EX_CUDA(fma_one_chain(d, n, its[q], ab[a][0], ab[a][1], 0));
                TK_CUDA(cudaDeviceSynchronize());
                tk_download(got, d, n);
                size_t bad = 0;
                for (size_t t = 0; t < n; t++) {
                    float x = (float)(t % 1024);
                    for (unsigned i = 0; i < its[q]; i++)
                        x = fmaf(x, ab[a][0], ab[a][1]);
                    if (!(got[t] == x) && bad++ < 5)
                        print_error("%s n=%zu iters=%u: thread %zu got %.9g, "
                                    "want %.9g\n", EX_NAME, n, its[q], t,
                                    got[t], x);
                }
                tk_free(d);
                free(got);
                if (bad) fail();
            }
}

EX_MAIN(cmocka_unit_test(fma_one_chain_arguments),
        cmocka_unit_test(fma_one_chain_exact))
