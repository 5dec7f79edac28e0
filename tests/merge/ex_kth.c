/* ex_kth.c -- the merge chapter's exercise 2, merge_kth_u32: every k of
 * small merges, and chosen k (first, middle, last) of large ones, against
 * the CPU's merge; (0, n), (n, 0), halves and (3, n). */
#include "exkit.h"
#include "merge/exercises.h"
#include <stdio.h>
#include <string.h>

static int u32_cmp(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return a < b ? -1 : a > b;
}

static void kth_arguments(void **s)
{
    (void)s;
    uint32_t *a = EX_FAKE(uint32_t, 0x10000000), *b = EX_FAKE(uint32_t, 0x20000000);
    uint32_t *r = EX_FAKE(uint32_t, 0x30000000);
    EX_REFUSED(merge_kth_u32(a, 10, b, 10, 20, r, 0));
    EX_REFUSED(merge_kth_u32(NULL, 10, b, 10, 3, r, 0));
    EX_REFUSED(merge_kth_u32(a, 10, NULL, 10, 3, r, 0));
    EX_REFUSED(merge_kth_u32(a, 10, b, 10, 3, NULL, 0));
    EX_REFUSED(merge_kth_u32(NULL, 0, NULL, 0, 0, r, 0));
    EX_REFUSED(merge_kth_u32(a, MERGE_MAX_N + 1, b, 0, 3, r, 0));
    EX_REFUSED(merge_kth_u32(a, 0, b, MERGE_MAX_N + 1, 3, r, 0));
    EX_REFUSED(merge_kth_u32(a, MERGE_MAX_N, b, 1, 3, r, 0));
    EX_REFUSED(merge_kth_u32(a, MERGE_MAX_N, b, MERGE_MAX_N, 3, r, 0));
}

static void kth_sizes(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    for (tk_sweep sw = tk_sweep_start(1000001, 0); tk_sweep_next(&sw);) {
        const size_t n = sw.n;
        const size_t sh[4][2] = {{0, n}, {n, 0}, {n / 2, n - n / 2}, {3, n}};
        for (int q = 0; q < 4; q++) {
            const size_t na = sh[q][0], nb = sh[q][1], m = na + nb;
            uint32_t *h = tk_malloc(m * 4), *want = tk_malloc(m * 4);
            for (size_t i = 0; i < m; i++) h[i] = (uint32_t)(tk_next(&sw.st) % 1000);
            qsort(h, na, 4, u32_cmp);
            qsort(h + na, nb, 4, u32_cmp);
            memcpy(want, h, m * 4);
            qsort(want, m, 4, u32_cmp);
            uint32_t *d = tk_dev_bytes(m * 4), *r = tk_dev_bytes(4), got;
            tk_upload_bytes(d, h, m * 4);
            const size_t ks[3] = {0, m / 2, m - 1};
            for (size_t t = 0; t < (m <= 300 ? m : 3); t++) {
                const size_t k = m <= 300 ? t : ks[t];
                tk_poison(r, 4);
                EX_CUDA(merge_kth_u32(d, na, d + na, nb, k, r, 0));
                tk_download_bytes(&got, r, 4);
                if (got != want[k]) {
                    print_error("%s (%zu, %zu) k %zu seed %llu: %u, want %u\n",
                                EX_NAME, na, nb, k,
                                (unsigned long long)sw.seed, got, want[k]);
                    fail();
                }
            }
            tk_free(d); tk_free(r);
            free(h); free(want);
        }
    }
}

EX_MAIN(cmocka_unit_test(kth_arguments), cmocka_unit_test(kth_sizes))
