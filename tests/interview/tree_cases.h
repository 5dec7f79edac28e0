/* tree_cases.h -- what the root-to-leaf tests share (test_interview.c and
 * ex_tree-levels.c): trees with nodes that node 0 does not reach, and a
 * reference for them that shares no code with tree_ref.
 *
 * tc_detach cuts the links to random nodes, so that their subtrees hang
 * from no parent: a forest of the root's tree and the cut-off ones.
 * tc_sum_by_index computes the sum over the leaves that node 0 reaches, in
 * index order, for trees whose children come after their parents (both
 * files build them so); tc_relabel then renames the nodes so that they do
 * not, and the sum must not change. */
#ifndef TREE_CASES_H
#define TREE_CASES_H
#include "testkit.h"
#include <limits.h>
#include <string.h>

/* An index that means "no child": one outside [1, n), each of the kinds
 * the header names (negative, 0, n and past it). */
static int tc_no_child(size_t n, uint64_t *st)
{
    switch (tk_next(st) % 6) {
    case 0: return -1;
    case 1: return 0;
    case 2: return INT_MIN;
    case 3: return (int)n;
    case 4: return n < (size_t)INT_MAX - 7 ? (int)n + 7 : INT_MAX;
    default: return INT_MAX;
    }
}

static int tc_is_child(int c, size_t n) { return c > 0 && (size_t)c < n; }

/* Cut the link to up to `cuts` random nodes other than the root: the
 * parent's slot gets an index that means none.  Each cut-off subtree stays
 * whole, with no parent. */
static void tc_detach(int *left, int *right, size_t n, size_t cuts,
                      uint64_t *st)
{
    if (n < 2) return;
    long *slot = tk_malloc(n * sizeof *slot);   /* 2 parent + side, or -1 */
    for (size_t v = 0; v < n; v++) slot[v] = -1;
    for (size_t p = 0; p < n; p++) {
        if (tc_is_child(left[p], n)) slot[left[p]] = 2 * (long)p;
        if (tc_is_child(right[p], n)) slot[right[p]] = 2 * (long)p + 1;
    }
    for (size_t k = 0; k < cuts; k++) {
        size_t c = 1 + tk_next(st) % (n - 1);
        if (slot[c] < 0) continue;                    /* no parent already */
        size_t p = (size_t)slot[c] / 2;
        *(slot[c] % 2 ? &right[p] : &left[p]) = tc_no_child(n, st);
        slot[c] = -1;
    }
    free(slot);
}

/* The sum mod 2^64 over the leaves that node 0 reaches, each spelling its
 * path from node 0.  Needs every child after its parent, so that a node's
 * number and whether node 0 reaches it are known when it is visited. */
static uint64_t tc_sum_by_index(const int *left, const int *right,
                                const unsigned char *val, size_t n)
{
    uint64_t *num = tk_malloc(n * sizeof *num), sum = 0;
    unsigned char *reached = tk_malloc(n);
    memset(num, 0, n * sizeof *num);
    memset(reached, 0, n);
    reached[0] = 1;
    num[0] = val[0];
    for (size_t p = 0; p < n; p++) {
        int c[2] = {left[p], right[p]}, leaf = 1;
        for (int k = 0; k < 2; k++) {
            if (!tc_is_child(c[k], n)) continue;
            assert_true((size_t)c[k] > p);            /* children after */
            leaf = 0;
            reached[c[k]] = reached[p];
            num[c[k]] = 10 * num[p] + val[c[k]];
        }
        if (leaf && reached[p]) sum += num[p];
    }
    free(num);
    free(reached);
    return sum;
}

/* Rename nodes 1 .. n-1 by a random permutation; node 0 stays the root,
 * and every index that means none stays as it was. */
static void tc_relabel(int *left, int *right, unsigned char *val, size_t n,
                       uint64_t *st)
{
    size_t *to = tk_malloc(n * sizeof *to);
    int *l = tk_malloc(n * sizeof *l), *r = tk_malloc(n * sizeof *r);
    unsigned char *v = tk_malloc(n);
    for (size_t i = 0; i < n; i++) to[i] = i;
    for (size_t i = n - 1; i > 1; i--) {              /* Fisher-Yates on 1.. */
        size_t j = 1 + tk_next(st) % i, t = to[i];
        to[i] = to[j];
        to[j] = t;
    }
    for (size_t i = 0; i < n; i++) {
        v[to[i]] = val[i];
        l[to[i]] = tc_is_child(left[i], n) ? (int)to[left[i]] : left[i];
        r[to[i]] = tc_is_child(right[i], n) ? (int)to[right[i]] : right[i];
    }
    memcpy(left, l, n * sizeof *l);
    memcpy(right, r, n * sizeof *r);
    memcpy(val, v, n);
    free(to);
    free(l);
    free(r);
    free(v);
}

/* Small forests whose sums are known by hand: node 0's tree and others
 * beside it, some of them before it in index order.  Case k (0 <= k <
 * TC_FORESTS) fills left, right and val (room for 8 nodes), returns n and
 * puts the sum in *sum. */
#define TC_FORESTS 6
static size_t tc_forest(int k, int *left, int *right, unsigned char *val,
                        uint64_t *sum)
{
    for (int i = 0; i < 8; i++) {
        left[i] = right[i] = -1;
        val[i] = (unsigned char)(i + 1);
    }
    switch (k) {
    case 0: *sum = 1; return 2;            /* two nodes, no links: 1 */
    case 1: left[0] = 0; right[0] = 2;     /* both mean none */
            *sum = 1; return 2;
    case 2: left[0] = 1; *sum = 12; return 2;
    case 3: left[0] = 1; right[0] = 2;     /* 12 + 13; 3 -> 4 -> 5 apart */
            left[3] = 4; right[4] = 5;
            *sum = 25; return 6;
    case 4: left[0] = 4; right[0] = 5;     /* 15 + 16; apart, and before */
            left[1] = 2; left[2] = 3;      /* them in index order, the    */
            *sum = 15 + 16; return 6;      /* path 1 -> 2 -> 3            */
    default:                               /* a root alone, and 1 -> ... 7 */
        for (int i = 1; i < 7; i++) left[i] = i + 1;
        *sum = 1; return 8;
    }
}

/* The forests of tc_forest through sum (a GPU's or the reference's
 * root-to-leaf sum), each against its known sum; name says whose, in the
 * message of a failure. */
typedef uint64_t (*tc_sum_fn)(const int *, const int *,
                              const unsigned char *, size_t);
static void tc_check_forests(tc_sum_fn sum, const char *name)
{
    for (int k = 0; k < TC_FORESTS; k++) {
        int l[8], r[8];
        unsigned char v[8];
        uint64_t want;
        size_t n = tc_forest(k, l, r, v, &want);
        uint64_t got = sum(l, r, v, n);
        if (got != want)
            print_error("%s: forest %d of %zu nodes: sum %llu, want %llu\n",
                        name, k, n, (unsigned long long)got,
                        (unsigned long long)want);
        assert_true(got == want);
    }
}

/* Every refusal of tree.h, for FN: tree_path_sum, or the exercise's
 * tree_path_sum_levels, which keeps its contract.  Each is asserted with
 * REFUSED (TK_REFUSED; EX_REFUSED in the exercise's driver) on the
 * pointers given: d the children (left and right), v the values, w the
 * work (8-byte aligned, with 8 bytes to spare) and sum. */
#define TC_REFUSALS(REFUSED, FN, d, v, w, sum)                             \
    do {                                                                   \
        REFUSED(FN(NULL, d, v, 4, w, sum, 0));                             \
        REFUSED(FN(d, NULL, v, 4, w, sum, 0));                             \
        REFUSED(FN(d, d, NULL, 4, w, sum, 0));                             \
        REFUSED(FN(d, d, v, 4, NULL, sum, 0));                             \
        REFUSED(FN(d, d, v, 4, w, NULL, 0));                               \
        REFUSED(FN(d, d, v, 0, w, sum, 0));                                \
        REFUSED(FN(d, d, v, (size_t)1 << 31, w, sum, 0));                  \
        REFUSED(FN(d, d, v, SIZE_MAX, w, sum, 0));                         \
        for (int o_ = 1; o_ < 8; o_++)     /* work not 8-byte aligned */   \
            REFUSED(FN(d, d, v, 4, (char *)(w) + o_, sum, 0));             \
    } while (0)
#endif
