/* ex_hist16.c -- exercise 2 of the method chapter, hist_u16: exact
 * against a CPU count on the book's ladder of sizes up to 10^7 + 1, for
 * uniform values, one value only (every count in one bin), and a few
 * values near the ends (0 and 65535), into poisoned bins. */
#include "exkit.h"
#include <string.h>
#include "method/hist.h"
#include "method/exercises.h"

/* CPU-side: bad arguments are refused before anything touches a device. */
static void hist16_bad_arguments_refused(void **s)
{
    (void)s;
    unsigned short *x = EX_FAKE(unsigned short, 256);
    unsigned *b = EX_FAKE(unsigned, 1 << 20);
    EX_REFUSED(hist_u16(NULL, 10, b, 0));
    EX_REFUSED(hist_u16(x, 10, NULL, 0));
    EX_REFUSED(hist_u16(x, (size_t)1 << 32, b, 0));
}

static void check_hist16(const unsigned short *x, size_t n, int kind,
                         uint64_t seed)
{
    unsigned *ref = tk_malloc(HIST16_BINS * sizeof *ref);
    unsigned *got = tk_malloc(HIST16_BINS * sizeof *got);
    memset(ref, 0, HIST16_BINS * sizeof *ref);
    for (size_t i = 0; i < n; i++) ref[x[i]]++;
    unsigned short *dx = tk_dev_bytes((n ? n : 1) * sizeof *dx);
    unsigned *db = tk_dev_bytes(HIST16_BINS * sizeof *db);     /* poisoned */
    if (n) tk_upload_bytes(dx, x, n * sizeof *x);
    EX_CUDA(hist_u16(dx, n, db, 0));
    TK_CUDA(cudaDeviceSynchronize());
    tk_download_bytes(got, db, HIST16_BINS * sizeof *got);
    size_t bad = 0;
    for (int v = 0; v < HIST16_BINS; v++)
        if (got[v] != ref[v] && bad++ < 3)
            print_error("%s: kind %d n=%zu seed=%llu: bin %d has %u, want "
                        "%u\n", EX_NAME, kind, n, (unsigned long long)seed,
                        v, got[v], ref[v]);
    tk_free(dx); tk_free(db); free(ref); free(got);
    if (bad) fail();
}

static void hist16_all_sizes(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    for (tk_sweep w = tk_sweep_start(10000001, 0); tk_sweep_next(&w);) {
        size_t n = w.n;
        uint64_t seed = w.seed, st = w.st;
        unsigned short *x = tk_malloc(n * sizeof *x);
        for (int kind = 0; kind < 3; kind++) {
            unsigned short one = (unsigned short)tk_next(&st);
            for (size_t i = 0; i < n; i++) {
                uint64_t r = tk_next(&st);
                x[i] = kind == 0 ? (unsigned short)r
                     : kind == 1 ? one
                     : (unsigned short)(r & 1 ? r % 4 : 65535 - r % 4);
            }
            check_hist16(x, n, kind, seed);
        }
        free(x);
    }
}

static void hist16_empty_zeroes(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    check_hist16(NULL, 0, 0, 0);          /* n = 0: all bins zeroed */
}

EX_MAIN(cmocka_unit_test(hist16_bad_arguments_refused),
        cmocka_unit_test(hist16_empty_zeroes),
        cmocka_unit_test(hist16_all_sizes))
