/* ex_rle.c -- the compaction chapter's exercise 5, rle_i32: exact against
 * the CPU's encoding on the ladder of sizes up to 10^7 + 1, for runs of
 * random lengths (1 to 8), all distinct values (n runs of 1) and one value
 * (one run of n); outputs poisoned before. */
#include "exkit.h"
#include "scan/scan.h"
#include "compaction/compact.h"
#include "compaction/exercises.h"

static void rle_arguments(void **s)
{
    (void)s;
    int *p = EX_FAKE(int, 256);
    size_t *c = EX_FAKE(size_t, 512);
    void *w = EX_FAKE(void, 4096);
    size_t b = rle_scratch_bytes(100);
    EX_REFUSED(rle_i32(NULL, 100, p, p, c, w, b, 0));
    EX_REFUSED(rle_i32(p, 100, NULL, p, c, w, b, 0));
    EX_REFUSED(rle_i32(p, 100, p, NULL, c, w, b, 0));
    EX_REFUSED(rle_i32(p, 100, p, p, NULL, w, b, 0));
    EX_REFUSED(rle_i32(p, 100, p, p, c, NULL, b, 0));
    EX_REFUSED(rle_i32(p, 100, p, p, c, w, b - 1, 0));
    EX_REFUSED(rle_i32(p, (size_t)1 << 31, p, p, c, w,
                       rle_scratch_bytes((size_t)1 << 31), 0));
}

static void rle_sizes(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    for (tk_sweep sw = tk_sweep_start(10000001, TK_SWEEP_ZERO);
         tk_sweep_next(&sw);) {
        size_t n = sw.n;
        uint64_t seed = sw.seed, st = sw.st;
        size_t sb = rle_scratch_bytes(n), runs;
        int *x = tk_malloc((n + 1) * sizeof *x);
        int *wv = tk_malloc((n + 1) * sizeof *wv), *wl = tk_malloc((n + 1) * sizeof *wl);
        int *gv = tk_malloc((n + 1) * sizeof *gv), *gl = tk_malloc((n + 1) * sizeof *gl);
        int *dx = tk_dev_ints(n + 1), *dv = tk_dev_ints(n + 1), *dl = tk_dev_ints(n + 1);
        size_t *dr = tk_dev_bytes(sizeof(size_t));
        void *scratch = tk_dev_bytes(sb);
        for (int kind = 0; kind < 3; kind++) {
            int v = (int)(tk_next(&st) % 100);
            for (size_t i = 0; i < n;) {
                size_t len = kind == 0 ? 1 + tk_next(&st) % 8 : kind == 1 ? 1 : n;
                v += kind == 0 ? 1 + (int)(tk_next(&st) % 3) : 1;
                for (size_t j = 0; j < len && i < n; j++) x[i++] = v % 7 - 3;
            }
            size_t want = 0;
            for (size_t i = 0; i < n; i++) {
                if (i == 0 || x[i] != x[i - 1]) { wv[want] = x[i]; wl[want++] = 0; }
                wl[want - 1]++;
            }
            tk_upload_bytes(dx, x, n * sizeof *x);
            tk_poison(dv, (n + 1) * sizeof(int));
            tk_poison(dl, (n + 1) * sizeof(int));
            tk_poison(dr, sizeof(size_t));
            EX_CUDA(rle_i32(dx, n, dv, dl, dr, scratch, sb, 0));
            TK_CUDA(cudaDeviceSynchronize());
            tk_download_bytes(&runs, dr, sizeof runs);
            tk_download_bytes(gv, dv, (n + 1) * sizeof *gv);
            tk_download_bytes(gl, dl, (n + 1) * sizeof *gl);
            size_t bad = 0;
            if (runs != want) {
                print_error("%s n=%zu kind %d seed=%llu: %zu runs, want "
                            "%zu\n", EX_NAME, n, kind,
                            (unsigned long long)seed, runs, want);
                fail();
            }
            for (size_t r = 0; r < want; r++)
                if ((gv[r] != wv[r] || gl[r] != wl[r]) && bad++ < 5)
                    print_error("%s n=%zu kind %d seed=%llu: run %zu is "
                                "(%d, %d), want (%d, %d)\n", EX_NAME, n,
                                kind, (unsigned long long)seed, r, gv[r],
                                gl[r], wv[r], wl[r]);
            if ((gv[want] != -1 || gl[want] != -1) && bad++ < 5)
                print_error("%s n=%zu: wrote past the last run\n", EX_NAME, n);
            if (bad) fail();
        }
        tk_free(dx); tk_free(dv); tk_free(dl); tk_free(dr); tk_free(scratch);
        free(x); free(wv); free(wl); free(gv); free(gl);
    }
}

EX_MAIN(cmocka_unit_test(rle_arguments), cmocka_unit_test(rle_sizes))
