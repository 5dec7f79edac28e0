/* ex_hist-nbins.c -- exercise 6 of the method chapter, hist_nbins: exact
 * against a CPU count for 1, 2, 3, 64, 100, 255 and 256 bins on the book's
 * ladder of sizes up to 10^7 + 1, uniform bytes and one value only, into
 * poisoned bins with a guard counter after the last that must survive. */
#include "exkit.h"
#include <string.h>
#include "method/hist.h"
#include "method/exercises.h"

/* CPU-side: bad arguments are refused before anything touches a device. */
static void nbins_bad_arguments_refused(void **s)
{
    (void)s;
    unsigned char *x = EX_FAKE(unsigned char, 256);
    unsigned *b = EX_FAKE(unsigned, 1 << 20);
    EX_REFUSED(hist_nbins(NULL, 10, 64, b, 0));
    EX_REFUSED(hist_nbins(x, 10, 64, NULL, 0));
    EX_REFUSED(hist_nbins(x, 10, 0, b, 0));
    EX_REFUSED(hist_nbins(x, 10, -1, b, 0));
    EX_REFUSED(hist_nbins(x, 10, 257, b, 0));
    EX_REFUSED(hist_nbins(x, (size_t)1 << 32, 64, b, 0));
}

static void check_nbins(const unsigned char *x, size_t n, int nbins,
                        int kind, uint64_t seed)
{
    unsigned ref[256] = {0}, got[257];
    for (size_t i = 0; i < n; i++) ref[(unsigned)x[i] * nbins / 256]++;
    unsigned char *dx = tk_dev_bytes(n ? n : 1);
    unsigned *db = tk_dev_bytes((nbins + 1) * sizeof *db);     /* poisoned */
    if (n) tk_upload_bytes(dx, x, n);
    EX_CUDA(hist_nbins(dx, n, nbins, db, 0));
    TK_CUDA(cudaDeviceSynchronize());
    tk_download_bytes(got, db, (nbins + 1) * sizeof *got);
    size_t bad = 0;
    for (int v = 0; v < nbins; v++)
        if (got[v] != ref[v] && bad++ < 3)
            print_error("%s: %d bins, kind %d n=%zu seed=%llu: bin %d has "
                        "%u, want %u\n", EX_NAME, nbins, kind, n,
                        (unsigned long long)seed, v, got[v], ref[v]);
    if (got[nbins] != 0xffffffffu) {          /* the poison after the last */
        print_error("%s: %d bins, n=%zu: wrote bins[%d], past the last\n",
                    EX_NAME, nbins, n, nbins);
        bad++;
    }
    tk_free(dx); tk_free(db);
    if (bad) fail();
}

static void nbins_all_sizes(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    static const int nb[] = {1, 2, 3, 64, 100, 255, 256};
    for (tk_sweep w = tk_sweep_start(10000001, 0); tk_sweep_next(&w);) {
        size_t n = w.n;
        uint64_t seed = w.seed, st = w.st;
        unsigned char *x = tk_malloc(n);
        for (int kind = 0; kind < 2; kind++) {
            unsigned char one = (unsigned char)tk_next(&st);
            for (size_t i = 0; i < n; i++)
                x[i] = kind == 0 ? (unsigned char)tk_next(&st) : one;
            for (size_t j = 0; j < sizeof nb / sizeof *nb; j++)
                check_nbins(x, n, nb[j], kind, seed);
        }
        free(x);
    }
}

static void nbins_empty_zeroes(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    check_nbins(NULL, 0, 64, 0, 0);
    check_nbins(NULL, 0, 256, 0, 0);
}

EX_MAIN(cmocka_unit_test(nbins_bad_arguments_refused),
        cmocka_unit_test(nbins_empty_zeroes),
        cmocka_unit_test(nbins_all_sizes))
