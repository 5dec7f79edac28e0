/* ex_max-scan.c -- the scan chapter's exercise 4, scan_max_i32: exact
 * against the CPU, inclusive and exclusive (INT_MIN first), on the ladder
 * of sizes up to 10^7 + 1, for random ints of the whole range, an
 * increasing sequence (every prefix changes) and a decreasing one (none
 * after the first). */
#include "exkit.h"
#include "scan/scan.h"
#include "scan/exercises.h"
#include <limits.h>

static void max_scan_arguments(void **s)
{
    (void)s;
    int *p = EX_FAKE(int, 256);
    void *w = EX_FAKE(void, 4096);
    size_t b = scan_max_scratch_bytes(1000);
    EX_REFUSED(scan_max_i32(NULL, p, 1000, SCAN_INCLUSIVE, w, b, 0));
    EX_REFUSED(scan_max_i32(p, NULL, 1000, SCAN_INCLUSIVE, w, b, 0));
    EX_REFUSED(scan_max_i32(p, p, 1000, SCAN_INCLUSIVE, NULL, b, 0));
    EX_REFUSED(scan_max_i32(p, p, 1000, SCAN_INCLUSIVE, w, 0, 0));
    EX_REFUSED(scan_max_i32(p, p, 1000, (scan_kind)7, w, b, 0));
    EX_REFUSED(scan_max_i32(p, p, (size_t)1 << 31, SCAN_INCLUSIVE, w,
                            scan_max_scratch_bytes((size_t)1 << 31), 0));
    EX_CUDA(scan_max_i32(p, p, 0, SCAN_INCLUSIVE, w, b, 0));
}

static void max_scan_sizes(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    for (tk_sweep sw = tk_sweep_start(10000001, 0); tk_sweep_next(&sw);) {
        size_t n = sw.n, sb = scan_max_scratch_bytes(n);
        uint64_t seed = sw.seed, st = sw.st;
        int *x = tk_malloc(n * sizeof *x), *got = tk_malloc(n * sizeof *got);
        int *dx = tk_dev_ints(n), *dy = tk_dev_ints(n);
        void *scratch = tk_dev_bytes(sb);
        for (int kind = 0; kind < 3; kind++)
            for (int excl = 0; excl < 2; excl++) {
                for (size_t i = 0; i < n; i++)
                    x[i] = kind == 0 ? (int)(uint32_t)tk_next(&st)
                         : kind == 1 ? (int)(i / 3) - 5 : -(int)(i / 3);
                tk_upload_bytes(dx, x, n * sizeof *x);
                tk_poison(dy, n * sizeof *dy);
                EX_CUDA(scan_max_i32(dx, dy, n, excl ? SCAN_EXCLUSIVE
                                     : SCAN_INCLUSIVE, scratch, sb, 0));
                TK_CUDA(cudaDeviceSynchronize());
                tk_download_bytes(got, dy, n * sizeof *got);
                size_t bad = 0;
                int m = INT_MIN;
                for (size_t i = 0; i < n; i++) {
                    if (!excl && x[i] > m) m = x[i];
                    if (got[i] != m && bad++ < 5)
                        print_error("%s n=%zu kind %d %s seed=%llu: out[%zu] "
                                    "= %d, want %d\n", EX_NAME, n, kind,
                                    excl ? "exclusive" : "inclusive",
                                    (unsigned long long)seed, i, got[i], m);
                    if (excl && x[i] > m) m = x[i];
                }
                if (bad) fail();
            }
        tk_free(dx); tk_free(dy); tk_free(scratch);
        free(x); free(got);
    }
}

EX_MAIN(cmocka_unit_test(max_scan_arguments), cmocka_unit_test(max_scan_sizes))
