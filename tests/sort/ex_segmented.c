/* ex_segmented.c -- the sort chapter's exercise 2, segmented_sort_u32:
 * exact against qsort of (segment, key) on the ladder of sizes up to
 * 10^7 + 1 and 0, with 1, 7 and n / 3 + 1 segments in random order;
 * output poisoned before, nothing written past it. */
#include "exkit.h"
#include "sort/sort.h"
#include "sort/exercises.h"
#include <string.h>

static int cmp_u64(const void *a, const void *b)
{
    unsigned long long x = *(const unsigned long long *)a;
    unsigned long long y = *(const unsigned long long *)b;
    return (x > y) - (x < y);
}

static void segmented_arguments(void **s)
{
    (void)s;
    unsigned *p = EX_FAKE(unsigned, 256), *q = EX_FAKE(unsigned, 0x100000);
    unsigned *o = EX_FAKE(unsigned, 0x200000);
    void *w = EX_FAKE(void, 0x400000);
    size_t b = segmented_temp_bytes(100);
    EX_REFUSED(segmented_sort_u32(NULL, q, o, 100, w, b, 0));
    EX_REFUSED(segmented_sort_u32(p, NULL, o, 100, w, b, 0));
    EX_REFUSED(segmented_sort_u32(p, q, NULL, 100, w, b, 0));
    EX_REFUSED(segmented_sort_u32(p, q, o, 100, NULL, b, 0));
    EX_REFUSED(segmented_sort_u32(p, q, o, 100, w, b - 1, 0));
    EX_REFUSED(segmented_sort_u32(p, q, o, 100, EX_FAKE(void, 0x400010), b,
                                  0));
    EX_REFUSED(segmented_sort_u32(p, q, o, SORT_MAX_N + 1, w, (size_t)-1, 0));
}

static void segmented_sizes(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    for (tk_sweep sw = tk_sweep_start(10000001, TK_SWEEP_ZERO);
         tk_sweep_next(&sw);) {
        const size_t n = sw.n, tb = segmented_temp_bytes(n);
        const size_t segs[3] = {1, 7, n / 3 + 1};
        unsigned *k = tk_malloc(n * 4 + 4), *g = tk_malloc(n * 4 + 4);
        unsigned *got = tk_malloc(n * 4 + 4);
        unsigned long long *want = tk_malloc(n * 8 + 8);
        unsigned *dk = tk_dev_bytes(n * 4 + 4), *dg = tk_dev_bytes(n * 4 + 4);
        unsigned *dout = tk_dev_bytes(n * 4 + 4);
        void *temp = tk_dev_bytes(tb ? tb : 1);
        for (int c = 0; c < 3; c++) {
            for (size_t i = 0; i < n; i++) {
                const uint64_t r = tk_next(&sw.st);
                k[i] = (unsigned)(r >> 32);
                g[i] = (unsigned)(r % segs[c]) * 2654435761u;
                want[i] = (unsigned long long)g[i] << 32 | k[i];
            }
            qsort(want, n, 8, cmp_u64);
            tk_upload_bytes(dk, k, n * 4);
            tk_upload_bytes(dg, g, n * 4);
            tk_poison(dout, n * 4 + 4);
            EX_CUDA(segmented_sort_u32(dk, dg, dout, n, temp, tb, 0));
            EX_CUDA(cudaDeviceSynchronize());
            tk_download_bytes(got, dout, n * 4 + 4);
            size_t wrong = 0;
            for (size_t i = 0; i < n; i++)
                if (got[i] != (unsigned)want[i] && wrong++ < 5)
                    print_error("n=%zu segments=%zu seed=%llu: [%zu] = %u, "
                                "want %u\n", n, segs[c],
                                (unsigned long long)sw.seed, i, got[i],
                                (unsigned)want[i]);
            assert_int_equal(wrong, 0);
            assert_int_equal(got[n], 0xffffffffu);
        }
        tk_free(dk); tk_free(dg); tk_free(dout); tk_free(temp);
        free(k); free(g); free(got); free(want);
    }
}

EX_MAIN(cmocka_unit_test(segmented_arguments),
        cmocka_unit_test(segmented_sizes))
