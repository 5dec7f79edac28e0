// interview_ref.h -- the CPU references, for the tests and the
// benchmark.  C and CUDA host code.
#ifndef INTERVIEW_REF_H
#define INTERVIEW_REF_H
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// <<Edit distance on the CPU, two rows>>
// Levenshtein distance of a[0..la) and b[0..lb); -1 if out of memory.
static inline int ed_ref(const char *a, size_t la, const char *b, size_t lb)
{
    int *prev = (int *)malloc((lb + 1) * sizeof(int));
    int *cur = (int *)malloc((lb + 1) * sizeof(int));
    if (!prev || !cur) { free(prev); free(cur); return -1; }
    for (size_t j = 0; j <= lb; j++) prev[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int up = prev[j] + 1, left = cur[j - 1] + 1;
            int diag = prev[j - 1] + (a[i - 1] != b[j - 1]);
            int v = up < left ? up : left;
            cur[j] = v < diag ? v : diag;
        }
        int *t = prev; prev = cur; cur = t;
    }
    int d = prev[lb];
    free(prev);
    free(cur);
    return d;
}

// <<Root-to-leaf sum on the CPU, with an explicit stack>>
// Sum over leaves of the number spelled root to leaf, mod 2^64.  Node 0
// is the root; a child index outside [1, n) means none.  Only the tree of
// node 0 counts: nodes it does not reach (other trees of a forest, a
// subtree cut off) add nothing.  A malformed tree (a node reached twice,
// a cycle) gives an unspecified sum: the stack holds at most n entries
// and the loop visits at most n nodes.
static inline uint64_t tree_ref(const int *left, const int *right,
                                const unsigned char *val, size_t n)
{
    if (n == 0) return 0;
    size_t *node = (size_t *)malloc(n * sizeof(size_t));
    uint64_t *num = (uint64_t *)malloc(n * sizeof(uint64_t)), sum = 0;
    size_t top = 0, visits = 0;
    if (!node || !num) { free(node); free(num); return 0; }
    node[top] = 0; num[top++] = val[0];
    while (top > 0 && visits++ < n) {
        size_t v = node[--top];
        uint64_t p = num[top];
        int c[2] = {left[v], right[v]}, leaf = 1;
        for (int k = 0; k < 2; k++)
            if (c[k] > 0 && (size_t)c[k] < n && top < n) {
                node[top] = (size_t)c[k];
                num[top++] = 10 * p + val[c[k]];
                leaf = 0;
            }
        if (leaf) sum += p;
    }
    free(node);
    free(num);
    return sum;
}
#endif
