/* ex_partition.c -- the compaction chapter's exercise 1, partition_gt:
 * exact against the CPU's stable partition on the ladder of sizes up to
 * 10^7 + 1, at densities of kept elements 0, 1/2 and 1; out and count
 * poisoned before. */
#include "exkit.h"
#include "scan/scan.h"
#include "compaction/compact.h"
#include "compaction/exercises.h"

static void partition_arguments(void **s)
{
    (void)s;
    int *p = EX_FAKE(int, 256);
    size_t *c = EX_FAKE(size_t, 512);
    void *w = EX_FAKE(void, 4096);
    size_t b = partition_scratch_bytes(100);
    EX_REFUSED(partition_gt(NULL, p, 100, 0, c, w, b, 0));
    EX_REFUSED(partition_gt(p, NULL, 100, 0, c, w, b, 0));
    EX_REFUSED(partition_gt(p, p, 100, 0, NULL, w, b, 0));
    EX_REFUSED(partition_gt(p, p, 100, 0, c, NULL, b, 0));
    EX_REFUSED(partition_gt(p, p, 100, 0, c, w, b - 1, 0));
    EX_REFUSED(partition_gt(p, p, 100, 0, c, EX_FAKE(void, 4100), b, 0));
    EX_REFUSED(partition_gt(p, p, (size_t)1 << 31, 0, c, w,
                            partition_scratch_bytes((size_t)1 << 31), 0));
}

static void partition_sizes(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    static const int threshold[] = {1000, 0, -1000};   /* none, half, all */
    for (tk_sweep sw = tk_sweep_start(10000001, TK_SWEEP_ZERO);
         tk_sweep_next(&sw);) {
        size_t n = sw.n;
        uint64_t seed = sw.seed, st = sw.st;
        size_t sb = partition_scratch_bytes(n), count;
        int *x = tk_malloc((n + 1) * sizeof *x), *got = tk_malloc((n + 1) * sizeof *got);
        int *want = tk_malloc((n + 1) * sizeof *want);
        int *dx = tk_dev_ints(n + 1), *dy = tk_dev_ints(n + 1);
        size_t *dc = tk_dev_bytes(sizeof(size_t));
        void *scratch = tk_dev_bytes(sb);
        for (size_t i = 0; i < n; i++)
            x[i] = (int)(tk_next(&st) % 1999) - 999;  /* in (-1000, 1000) */
        tk_upload_bytes(dx, x, n * sizeof *x);
        for (int d = 0; d < 3; d++) {
            size_t kept = 0, j = 0;
            for (size_t i = 0; i < n; i++) if (x[i] > threshold[d]) want[j++] = x[i];
            kept = j;
            for (size_t i = 0; i < n; i++) if (!(x[i] > threshold[d])) want[j++] = x[i];
            tk_poison(dy, (n + 1) * sizeof(int));
            tk_poison(dc, sizeof(size_t));
            EX_CUDA(partition_gt(dx, dy, n, threshold[d], dc, scratch, sb,
                                 0));
            TK_CUDA(cudaDeviceSynchronize());
            tk_download_bytes(got, dy, (n + 1) * sizeof *got);
            tk_download_bytes(&count, dc, sizeof count);
            size_t bad = 0;
            if (count != kept && bad++ == 0)
                print_error("%s n=%zu threshold %d seed=%llu: count %zu, "
                            "want %zu\n", EX_NAME, n, threshold[d],
                            (unsigned long long)seed, count, kept);
            for (size_t i = 0; i < n; i++)
                if (got[i] != want[i] && bad++ < 5)
                    print_error("%s n=%zu threshold %d seed=%llu: out[%zu] "
                                "= %d, want %d\n", EX_NAME, n, threshold[d],
                                (unsigned long long)seed, i, got[i], want[i]);
            if (got[n] != -1 && bad++ < 5)
                print_error("%s n=%zu: wrote past the output\n", EX_NAME, n);
            if (bad) fail();
        }
        tk_free(dx); tk_free(dy); tk_free(dc); tk_free(scratch);
        free(x); free(got); free(want);
    }
}

EX_MAIN(cmocka_unit_test(partition_arguments),
        cmocka_unit_test(partition_sizes))
