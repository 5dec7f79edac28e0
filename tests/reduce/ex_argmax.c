/* ex_argmax.c -- exercise 5 of the reduce chapter, reduce_argmax: the index
 * of the first maximum, exact against the CPU on the book's ladder of sizes
 * up to 10^7 + 1, with ties (inputs from a few values), all -inf, the
 * maximum at either end, and a maximum of -0 before +0 (equal: the first
 * wins). */
#include "exkit.h"
#include "reduce/reduce.h"
#include "reduce/exercises.h"
#include <math.h>

static void argmax_bad_arguments_refused(void **s)
{
    (void)s;
    float *p = EX_FAKE(float, 256);
    size_t *i = EX_FAKE(size_t, 512);
    void *w = EX_FAKE(void, 4096);
    EX_REFUSED(reduce_argmax(NULL, 10, i, w, 0));
    EX_REFUSED(reduce_argmax(p, 10, NULL, w, 0));
    EX_REFUSED(reduce_argmax(p, 10, i, NULL, 0));
    EX_REFUSED(reduce_argmax(p, 0, i, w, 0));
    EX_REFUSED(reduce_argmax(p, (size_t)1 << 32, i, w, 0));
}

static size_t run_argmax(const float *h, size_t n)
{
    float *dx = tk_dev_floats(n);
    size_t *didx = tk_dev_bytes(sizeof(size_t)), got;
    void *work = tk_dev_bytes(reduce_workspace_bytes(n));
    tk_upload(dx, h, n);
    EX_CUDA(reduce_argmax(dx, n, didx, work, 0));
    TK_CUDA(cudaDeviceSynchronize());
    tk_download_bytes(&got, didx, sizeof got);
    tk_free(dx); tk_free(didx); tk_free(work);
    return got;
}

static void argmax_all_sizes(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    for (tk_sweep sw = tk_sweep_start(10000001, 0); tk_sweep_next(&sw);) {
        size_t n = sw.n;
        uint64_t seed = sw.seed, st = sw.st;
        float *x = tk_malloc(n * sizeof *x);
        for (int kind = 0; kind < 6; kind++) {
            for (size_t i = 0; i < n; i++)
                x[i] = kind == 0 ? (float)tk_uniform(&st, -1.0, 1.0)
                     : kind == 1 ? (float)(int)(tk_next(&st) % 5) - 4.0f
                     : kind == 2 ? -INFINITY
                                 : -1.0f;
            if (kind == 3) x[n - 1] = 1.0f;     /* at the end */
            if (kind == 4) x[0] = 1.0f;         /* at the start */
            if (kind == 5) {                    /* -0 == +0: the first */
                x[n / 3] = -0.0f;
                x[n - 1] = 0.0f;
            }
            size_t ref = 0;
            for (size_t i = 1; i < n; i++) if (x[i] > x[ref]) ref = i;
            size_t got = run_argmax(x, n);
            if (got != ref) {
                print_error("%s: kind %d n=%zu seed=%llu: got index %zu, "
                            "want %zu\n", EX_NAME, kind, n,
                            (unsigned long long)seed, got, ref);
                fail();
            }
        }
        free(x);
    }
}

EX_MAIN(cmocka_unit_test(argmax_bad_arguments_refused),
        cmocka_unit_test(argmax_all_sizes))
