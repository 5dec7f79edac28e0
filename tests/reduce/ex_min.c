/* ex_min.c -- exercise 5 of the reduce chapter, reduce_min: exact against the
 * CPU on the book's ladder of sizes up to 10^7 + 1 (past the 1024 blocks of
 * 256, so the grid-stride loop turns; 2^28 would cost seconds of CPU
 * time), for inputs of both signs, all negative, with infinities, and
 * empty (+inf). */
#include "exkit.h"
#include "reduce/reduce.h"
#include "reduce/exercises.h"
#include <math.h>

/* CPU-side: bad arguments are refused before anything touches a device. */
static void min_bad_arguments_refused(void **s)
{
    (void)s;
    float *p = EX_FAKE(float, 256);
    void *w = EX_FAKE(void, 4096);
    EX_REFUSED(reduce_min(NULL, 10, p, w, 0));
    EX_REFUSED(reduce_min(p, 10, NULL, w, 0));
    EX_REFUSED(reduce_min(p, 10, p, NULL, 0));
}

static float run_min(const float *h, size_t n)
{
    float *dx = tk_dev_floats(n ? n : 1), *dout = tk_dev_floats(1), got;
    void *work = tk_dev_bytes(reduce_workspace_bytes(n));
    if (n) tk_upload(dx, h, n);
    EX_CUDA(reduce_min(dx, n, dout, work, 0));
    TK_CUDA(cudaDeviceSynchronize());
    tk_download(&got, dout, 1);
    tk_free(dx); tk_free(dout); tk_free(work);
    return got;
}

static void min_all_sizes(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    for (tk_sweep sw = tk_sweep_start(10000001, 0); tk_sweep_next(&sw);) {
        size_t n = sw.n;
        uint64_t seed = sw.seed, st = sw.st;
        float *x = tk_malloc(n * sizeof *x);
        for (int kind = 0; kind < 3; kind++) {
            if (kind == 0) tk_fill(x, n, -1.0, 1.0, &st);
            if (kind == 1) tk_fill(x, n, 1.0, 2.0, &st);   /* min > 0 */
            if (kind == 2) {
                tk_fill(x, n, -1.0, 1.0, &st);
                x[tk_next(&st) % n] = INFINITY;
                x[tk_next(&st) % n] = -INFINITY;
            }
            float ref = INFINITY;
            for (size_t i = 0; i < n; i++) ref = x[i] < ref ? x[i] : ref;
            float got = run_min(x, n);
            if (!(got == ref)) {
                print_error("%s: kind %d n=%zu seed=%llu: got %.9g, want "
                            "%.9g\n", EX_NAME, kind, n,
                            (unsigned long long)seed, got, ref);
                fail();
            }
        }
        free(x);
    }
}

static void min_of_nothing_is_inf(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    float got = run_min(NULL, 0);
    if (!(got == INFINITY)) {
        print_error("%s: n = 0 gave %.9g, want +inf (the identity)\n",
                    EX_NAME, got);
        fail();
    }
}

EX_MAIN(cmocka_unit_test(min_bad_arguments_refused),
        cmocka_unit_test(min_all_sizes),
        cmocka_unit_test(min_of_nothing_is_inf))
