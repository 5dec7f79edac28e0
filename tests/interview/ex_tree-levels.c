/* ex_tree-levels.c -- exercise 3 of the interview appendix,
 * tree_path_sum_levels: exact (mod 2^64) against the appendix's CPU
 * reference on one node, a path of 3000 levels (left and zig-zag), a
 * complete tree of 2^20 - 1 nodes and random trees of up to 10^6 nodes,
 * random digits and random bytes, into a poisoned sum; and trees with
 * nodes that node 0 does not reach (they add nothing, as for
 * tree_path_sum): small forests known by hand, random trees with cut-off
 * subtrees, renamed so that children no longer follow their parents,
 * against the sum by index order of tree_cases.h. */
#include "exkit.h"
#include <string.h>
#include "interview/tree.h"
#include "interview/interview_ref.h"
#include "interview/exercises.h"
#include "tree_cases.h"

/* CPU-side: bad arguments are refused before anything touches a device:
 * every refusal of tree.h (tree_cases.h). */
static void levels_bad_arguments_refused(void **s)
{
    (void)s;
    int *d = EX_FAKE(int, 256);
    unsigned char *v = EX_FAKE(unsigned char, 4096);
    void *w = EX_FAKE(void, 8192);
    unsigned long long *sum = EX_FAKE(unsigned long long, 1 << 16);
    TC_REFUSALS(EX_REFUSED, tree_path_sum_levels, d, v, w, sum);
}

enum { T_LEFT, T_ZIGZAG, T_COMPLETE, T_RANDOM };
static const char *tname[] = {"left path", "zig-zag path", "complete",
                              "random"};

/* tree_path_sum_levels on the tree, into a poisoned sum. */
static uint64_t levels_gpu(const int *l, const int *r, const unsigned char *v,
                           size_t n)
{
    int *dl = tk_dev_ints(n), *dr = tk_dev_ints(n);
    unsigned char *dv = tk_dev_bytes(n);
    void *work = tk_dev_bytes(TREE_WORK_BYTES(n));
    unsigned long long *dsum = tk_dev_bytes(sizeof *dsum), got;  /* poisoned */
    tk_upload_bytes(dl, l, n * sizeof *l);
    tk_upload_bytes(dr, r, n * sizeof *r);
    tk_upload_bytes(dv, v, n);
    EX_CUDA(tree_path_sum_levels(dl, dr, dv, n, work, dsum, 0));
    TK_CUDA(cudaDeviceSynchronize());
    tk_download_bytes(&got, dsum, sizeof got);
    tk_free(dl); tk_free(dr); tk_free(dv); tk_free(work); tk_free(dsum);
    return got;
}

/* A tree of n nodes, children after their parents. */
static void make_tree(int shape, size_t n, int digits, int *l, int *r,
                      unsigned char *v, uint64_t *st)
{
    for (size_t i = 0; i < n; i++) {
        l[i] = r[i] = -1;
        v[i] = (unsigned char)(digits ? tk_next(st) % 10 : tk_next(st));
    }
    for (size_t i = 1; i < n; i++) {
        if (shape == T_LEFT) l[i - 1] = (int)i;
        else if (shape == T_ZIGZAG) *(i % 2 ? &l[i - 1] : &r[i - 1]) = (int)i;
        else if (shape == T_COMPLETE) *(i % 2 ? &l[(i - 1) / 2] : &r[(i - 1) / 2]) = (int)i;
        else {                           /* a random node with a free slot */
            for (;;) {
                size_t p = tk_next(st) % i;
                int *slot = tk_next(st) % 2 ? &l[p] : &r[p];
                if (*slot < 0) { *slot = (int)i; break; }
            }
        }
    }
}

static void check_tree(int shape, size_t n, int digits, int round)
{
    uint64_t seed = tk_seed(round), st = seed;
    int *l = tk_malloc(n * sizeof *l), *r = tk_malloc(n * sizeof *r);
    unsigned char *v = tk_malloc(n);
    make_tree(shape, n, digits, l, r, v, &st);
    if (shape == T_RANDOM && n > 2) {    /* some indices meaning "none" */
        if (l[0] < 0) l[0] = (int)n + 5;
        if (r[0] < 0) r[0] = 0;
    }
    uint64_t ref = tree_ref(l, r, v, n), got = levels_gpu(l, r, v, n);
    free(l); free(r); free(v);
    if (got != ref) {
        print_error("%s: %s n=%zu %s seed=%llu: sum %llu, want %llu\n",
                    EX_NAME, tname[shape], n, digits ? "digits" : "bytes",
                    (unsigned long long)seed, (unsigned long long)got,
                    (unsigned long long)ref);
        fail();
    }
}

/* The same with `cuts` links cut and the nodes renamed: the cut-off
 * subtrees add nothing (tree.h), against tree_cases.h's sum by index. */
static void check_detached(int shape, size_t n, size_t cuts, int round)
{
    uint64_t seed = tk_seed(round), st = seed;
    int *l = tk_malloc(n * sizeof *l), *r = tk_malloc(n * sizeof *r);
    unsigned char *v = tk_malloc(n);
    make_tree(shape, n, round, l, r, v, &st);
    tc_detach(l, r, n, cuts, &st);
    uint64_t want = tc_sum_by_index(l, r, v, n);
    tc_relabel(l, r, v, n, &st);
    uint64_t got = levels_gpu(l, r, v, n);
    free(l); free(r); free(v);
    if (got != want) {
        print_error("%s: %s n=%zu, %zu cuts, seed=%llu: sum %llu, want "
                    "%llu\n", EX_NAME, tname[shape], n, cuts,
                    (unsigned long long)seed, (unsigned long long)got,
                    (unsigned long long)want);
        fail();
    }
}

static void levels_paths_and_one_node(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    for (int digits = 0; digits < 2; digits++) {
        check_tree(T_LEFT, 1, digits, 0);
        check_tree(T_LEFT, 2, digits, 0);
        check_tree(T_LEFT, 3000, digits, 1);
        check_tree(T_ZIGZAG, 3000, digits, 1);
    }
}

static void levels_wide_trees(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    static const size_t sizes[] = {3, 7, 8, 1000, 65537, 1000000};
    for (int round = 0; round < 2; round++)
        for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
            check_tree(T_RANDOM, sizes[k], round, round);
            check_tree(T_COMPLETE, sizes[k], 1 - round, round);
        }
    check_tree(T_COMPLETE, ((size_t)1 << 20) - 1, 1, 1);
}

/* Nodes that node 0 does not reach: forests known by hand (two nodes and
 * no links among them), random trees with cut-off subtrees. */
static void levels_unreachable_nodes(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    tc_check_forests(levels_gpu, EX_NAME);
    static const size_t sizes[] = {2, 3, 33, 1000, 65537};
    for (int round = 0; round < 2; round++) {
        for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
            check_detached(T_RANDOM, sizes[k], sizes[k] / 10 + 1, round);
            check_detached(T_RANDOM, sizes[k], sizes[k], round);
        }
        check_detached(T_LEFT, 3000, 1, round);
        check_detached(T_COMPLETE, 65535, 100, round);
    }
}

EX_MAIN(cmocka_unit_test(levels_bad_arguments_refused),
        cmocka_unit_test(levels_paths_and_one_node),
        cmocka_unit_test(levels_wide_trees),
        cmocka_unit_test(levels_unreachable_nodes))
