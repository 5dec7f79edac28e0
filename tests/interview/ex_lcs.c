/* ex_lcs.c -- exercise 5 of the interview appendix, lcs_diagonals: exact
 * against a two-row CPU table on known answers, empty strings (either or
 * both), one against many, equal strings, and random pairs over alphabets
 * of 2 and 26 letters with lengths up to 3000 (either one the shorter),
 * into a poisoned result. */
#include "exkit.h"
#include <string.h>
#include "interview/editdist.h"
#include "interview/exercises.h"

/* CPU-side: bad arguments are refused before anything touches a device. */
static void lcs_bad_arguments_refused(void **s)
{
    (void)s;
    char *a = EX_FAKE(char, 256);
    int *w = EX_FAKE(int, 4096), *len = EX_FAKE(int, 8192);
    EX_REFUSED(lcs_diagonals(NULL, 3, a, 3, w, len, 0));
    EX_REFUSED(lcs_diagonals(a, 3, NULL, 3, w, len, 0));
    EX_REFUSED(lcs_diagonals(a, 3, a, 3, NULL, len, 0));
    EX_REFUSED(lcs_diagonals(a, 3, a, 3, w, NULL, 0));
    EX_REFUSED(lcs_diagonals(a, ED_MAX_LEN + 1, a, 3, w, len, 0));
    EX_REFUSED(lcs_diagonals(a, 3, a, ED_MAX_LEN + 1, w, len, 0));
}

static int lcs_ref(const char *a, size_t la, const char *b, size_t lb)
{
    int *prev = tk_malloc((lb + 1) * sizeof *prev);
    int *cur = tk_malloc((lb + 1) * sizeof *cur);
    for (size_t j = 0; j <= lb; j++) prev[j] = 0;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = 0;
        for (size_t j = 1; j <= lb; j++)
            cur[j] = a[i - 1] == b[j - 1] ? prev[j - 1] + 1
                   : prev[j] > cur[j - 1] ? prev[j] : cur[j - 1];
        int *t = prev; prev = cur; cur = t;
    }
    int r = prev[lb];
    free(prev); free(cur);
    return r;
}

static void check_lcs(const char *a, size_t la, const char *b, size_t lb,
                      int want, uint64_t seed)
{
    char *da = la ? tk_dev_bytes(la) : NULL, *db = lb ? tk_dev_bytes(lb) : NULL;
    int *work = tk_dev_ints(ED_WORK_INTS(la, lb)), *dlen = tk_dev_ints(1), got;
    if (la) tk_upload_bytes(da, a, la);
    if (lb) tk_upload_bytes(db, b, lb);
    EX_CUDA(lcs_diagonals(da, la, db, lb, work, dlen, 0));
    TK_CUDA(cudaDeviceSynchronize());
    tk_download_bytes(&got, dlen, sizeof got);
    tk_free(da); tk_free(db); tk_free(work); tk_free(dlen);
    if (got != want) {
        print_error("%s: la=%zu lb=%zu seed=%llu (\"%.20s\", \"%.20s\"): "
                    "%d, want %d\n", EX_NAME, la, lb,
                    (unsigned long long)seed, la ? a : "", lb ? b : "",
                    got, want);
        fail();
    }
}

static void lcs_known_and_edges(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    check_lcs("ABCBDAB", 7, "BDCABA", 6, 4, 0);
    check_lcs("AGGTAB", 6, "GXTXAYB", 7, 4, 0);
    check_lcs("", 0, "", 0, 0, 0);
    check_lcs("abc", 3, "", 0, 0, 0);
    check_lcs("", 0, "abc", 3, 0, 0);
    check_lcs("a", 1, "a", 1, 1, 0);
    check_lcs("a", 1, "b", 1, 0, 0);
    check_lcs("x", 1, "aaaaxaaaa", 9, 1, 0);
    check_lcs("kitten", 6, "kitten", 6, 6, 0);
}

static void lcs_random(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    static const size_t lens[][2] = {{1, 300}, {31, 33}, {257, 255},
                                     {1000, 17}, {1025, 2049}, {3000, 3000}};
    for (int round = 0; round < 2; round++) {
        uint64_t seed = tk_seed(round), st = seed;
        for (size_t k = 0; k < sizeof lens / sizeof *lens; k++)
            for (int alpha = 2; alpha <= 26; alpha += 24) {
                size_t la = lens[k][0], lb = lens[k][1];
                char *a = tk_malloc(la), *b = tk_malloc(lb);
                for (size_t i = 0; i < la; i++) a[i] = 'a' + tk_next(&st) % alpha;
                for (size_t i = 0; i < lb; i++) b[i] = 'a' + tk_next(&st) % alpha;
                check_lcs(a, la, b, lb, lcs_ref(a, la, b, lb), seed);
                free(a); free(b);
            }
    }
}

EX_MAIN(cmocka_unit_test(lcs_bad_arguments_refused),
        cmocka_unit_test(lcs_known_and_edges),
        cmocka_unit_test(lcs_random))
