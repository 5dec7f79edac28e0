// tree.h -- the sum of root-to-leaf numbers on the GPU.
// left, right (int) and val (digits; any byte works) are device arrays of
// n nodes; node 0 is the root, a child index outside [1, n) means none.
// The sum of the leaves' numbers, mod 2^64, goes to *sum (device).  Only
// the tree of node 0 counts: a node that node 0 does not reach (another
// tree of a forest, a subtree cut off) adds nothing, as in tree_ref.
// 1 <= n < 2^31, every pointer non-null and work 8-byte aligned, else
// cudaErrorInvalidValue; work: TREE_WORK_BYTES(n) bytes of device memory.
// A malformed tree (a node with two parents, a cycle) gives an
// unspecified sum, never an access out of bounds.  The launcher takes the
// stream its work is queued on as its last argument (0: the default
// stream), and returns without waiting for it.
#ifndef TREE_H
#define TREE_H
#include <cuda_runtime_api.h>
#include <stddef.h>
#define TREE_WORK_BYTES(n) ((size_t)(n) * 40)
#ifdef __cplusplus
extern "C" {
#endif
cudaError_t tree_path_sum(const int *left, const int *right,
                          const unsigned char *val, size_t n, void *work,
                          unsigned long long *sum, cudaStream_t stream);
#ifdef __cplusplus
}
#endif
#endif
