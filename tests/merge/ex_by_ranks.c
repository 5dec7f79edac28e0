/* ex_by_ranks.c -- the merge chapter's exercise 1, merge_by_ranks_u32:
 * exact against the CPU's stable merge for (na, nb) of (0, n), (n, 0),
 * halves and (10, n), n on the ladder of sizes up to 10^6 + 1, keys with
 * many ties between a and b; out poisoned, one word past it checked. */
#include "exkit.h"
#include "merge/exercises.h"
#include <stdio.h>

static int u32_cmp(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return a < b ? -1 : a > b;
}

static void by_ranks_arguments(void **s)
{
    (void)s;
    uint32_t *a = EX_FAKE(uint32_t, 0x10000000), *b = EX_FAKE(uint32_t, 0x20000000);
    uint32_t *o = EX_FAKE(uint32_t, 0x30000000);
    EX_REFUSED(merge_by_ranks_u32(NULL, 10, b, 10, o, 0));
    EX_REFUSED(merge_by_ranks_u32(a, 10, NULL, 10, o, 0));
    EX_REFUSED(merge_by_ranks_u32(a, 10, b, 10, NULL, 0));
    EX_REFUSED(merge_by_ranks_u32(a, 10, b, 10, a + 5, 0));
    EX_REFUSED(merge_by_ranks_u32(a, MERGE_MAX_N, b, 1, o, 0));
}

static void by_ranks_sizes(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    for (tk_sweep sw = tk_sweep_start(1000001, 0); tk_sweep_next(&sw);) {
        const size_t n = sw.n;
        const size_t sh[4][2] = {{0, n}, {n, 0}, {n / 2, n - n / 2}, {10, n}};
        for (int q = 0; q < 4; q++) {
            const size_t na = sh[q][0], nb = sh[q][1], m = na + nb;
            uint32_t *h = tk_malloc(m * 4), *want = tk_malloc(m * 4);
            uint32_t *got = tk_malloc((m + 1) * 4);
            for (size_t i = 0; i < m; i++) h[i] = (uint32_t)(tk_next(&sw.st) % 64);
            qsort(h, na, 4, u32_cmp);
            qsort(h + na, nb, 4, u32_cmp);
            for (size_t i = 0, j = 0, k = 0; k < m; k++)
                want[k] = j >= nb || (i < na && h[i] <= h[na + j]) ? h[i++]
                                                                   : h[na + j++];
            uint32_t *d = tk_dev_bytes(m * 4 + 4), *o = tk_dev_bytes(m * 4 + 4);
            tk_upload_bytes(d, h, m * 4);
            EX_CUDA(merge_by_ranks_u32(d, na, d + na, nb, o, 0));
            tk_download_bytes(got, o, (m + 1) * 4);
            size_t bad = 0;
            for (size_t i = 0; i < m; i++)
                if (got[i] != want[i] && bad++ < 5)
                    print_error("%s (%zu, %zu) seed %llu: out[%zu] = %u, want "
                                "%u\n", EX_NAME, na, nb,
                                (unsigned long long)sw.seed, i, got[i], want[i]);
            if (got[m] != 0xffffffffu && bad++ < 5)
                print_error("%s: wrote past the output\n", EX_NAME);
            tk_free(d); tk_free(o);
            free(h); free(want); free(got);
            if (bad) fail();
        }
    }
}

EX_MAIN(cmocka_unit_test(by_ranks_arguments), cmocka_unit_test(by_ranks_sizes))
