/* ex_hs-double.c -- the scan chapter's exercise 1, scan_tiles_hs_double:
 * each tile of SCAN_TILE scanned on its own, inclusive and exclusive, on
 * the ladder of sizes up to 10^7 + 1: exact for inputs from {-1, 0, 1},
 * and for inputs in [-1, 1) within 2 log2(SCAN_TILE) u of the prefix's
 * sum of |x| (each output is a tree of at most log2(SCAN_TILE)
 * additions). */
#include "exkit.h"
#include "scan/scan.h"
#include "scan/exercises.h"
#include <math.h>

static void hs_double_arguments(void **s)
{
    (void)s;
    float *p = EX_FAKE(float, 256);
    EX_REFUSED(scan_tiles_hs_double(NULL, p, 10, SCAN_INCLUSIVE, 0));
    EX_REFUSED(scan_tiles_hs_double(p, NULL, 10, SCAN_INCLUSIVE, 0));
    EX_REFUSED(scan_tiles_hs_double(p, p, 10, (scan_kind)7, 0));
    EX_CUDA(scan_tiles_hs_double(p, p, 0, SCAN_EXCLUSIVE, 0));
}

static void hs_double_sizes(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    for (tk_sweep sw = tk_sweep_start(10000001, 0); tk_sweep_next(&sw);)
        for (int ternary = 0; ternary < 2; ternary++)
            for (int excl = 0; excl < 2; excl++) {
                size_t n = sw.n;
                uint64_t seed = sw.seed, st = seed;
                float *x = tk_malloc(n * sizeof *x), *got = tk_malloc(n * sizeof *got);
                if (ternary)
                    for (size_t i = 0; i < n; i++)
                        x[i] = (float)(int)(tk_next(&st) % 3) - 1.0f;
                else
                    tk_fill(x, n, -1.0, 1.0, &st);
                float *dx = tk_dev_floats(n), *dy = tk_dev_floats(n);
                tk_upload(dx, x, n);
                EX_CUDA(scan_tiles_hs_double(dx, dy, n, excl ? SCAN_EXCLUSIVE
                                                             : SCAN_INCLUSIVE,
                                             0));
                TK_CUDA(cudaDeviceSynchronize());
                tk_download(got, dy, n);
                size_t bad = 0;
                double sum = 0, abs_sum = 0;
                for (size_t i = 0; i < n; i++) {
                    if (i % SCAN_TILE == 0) sum = abs_sum = 0;
                    if (!excl) { sum += x[i]; abs_sum += fabs(x[i]); }
                    double tol = ternary ? 0 : 2 * 9 * 0x1p-24 * abs_sum;
                    if (!(fabs(got[i] - sum) <= tol) && bad++ < 5)
                        print_error("%s n=%zu %s%s seed=%llu: out[%zu] = "
                                    "%.9g, want %.9g\n", EX_NAME, n,
                                    excl ? "exclusive" : "inclusive",
                                    ternary ? " {-1,0,1}" : "",
                                    (unsigned long long)seed, i, got[i], sum);
                    if (excl) { sum += x[i]; abs_sum += fabs(x[i]); }
                }
                tk_free(dx); tk_free(dy);
                free(x); free(got);
                if (bad) fail();
            }
}

EX_MAIN(cmocka_unit_test(hs_double_arguments),
        cmocka_unit_test(hs_double_sizes))
