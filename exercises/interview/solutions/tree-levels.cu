// Solution to exercise 3 of the interview appendix: the sum level by
// level.  The work holds two frontiers (node, number) of n entries and a
// counter; a kernel a level reads one frontier, adds its leaves' numbers
// to the sum and appends the children to the other with an atomic slot.
// The order within a frontier does not matter: the sum mod 2^64 is the
// same in any order.  A well-formed tree never has more than n nodes in a
// frontier nor more than n levels; the bounds only keep a malformed one
// in range.  Levels cost a launch and a round trip each: this favours
// wide, shallow trees (complete ones), not paths.  The round trip waits
// for the caller's stream only, never for the whole device.
#include "common/book.h"
#include "interview/tree.h"
#include "interview/exercises.h"

__global__ void level_kernel(const int *left, const int *right,
                             const unsigned char *val, unsigned n,
                             const int *node, const unsigned long long *num,
                             unsigned count, int *next_node,
                             unsigned long long *next_num, unsigned *next,
                             unsigned long long *sum)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    int v = node[i];
    unsigned long long p = num[i];
    int c[2] = {left[v], right[v]}, leaf = 1;
    for (int k = 0; k < 2; k++)
        if (c[k] > 0 && (unsigned)c[k] < n) {
            leaf = 0;
            unsigned slot = atomicAdd(next, 1u);
            if (slot < n) {
                next_node[slot] = c[k];
                next_num[slot] = 10 * p + val[c[k]];
            }
        }
    if (leaf) atomicAdd(sum, p);
}

__global__ void root_kernel(const unsigned char *val, int *node,
                            unsigned long long *num)
{
    node[0] = 0;
    num[0] = val[0];
}

extern "C" cudaError_t tree_path_sum_levels(const int *left,
                                            const int *right,
                                            const unsigned char *val,
                                            size_t n, void *work,
                                            unsigned long long *sum,
                                            cudaStream_t stream)
{
    if (!left || !right || !val || !work || !sum || n == 0 ||
        n >= ((size_t)1 << 31) || (uintptr_t)work % 8 != 0)
        return cudaErrorInvalidValue;
    int *node[2] = {(int *)work, (int *)work + n};            // 8n bytes
    unsigned long long *num[2] = {(unsigned long long *)((char *)work + 8 * n),
                                  (unsigned long long *)((char *)work + 16 * n)};
    unsigned *next = (unsigned *)((char *)work + 24 * n);     // <= 40n bytes
    BOOK_CLEAR_TO_LAUNCH();
    BOOK_TRY(cudaMemsetAsync(sum, 0, sizeof *sum, stream));
    root_kernel<<<1, 1, 0, stream>>>(val, node[0], num[0]);
    unsigned count = 1;
    for (size_t level = 0; count > 0 && level < n; level++) {
        int c = (int)(level % 2);
        BOOK_TRY(cudaMemsetAsync(next, 0, sizeof *next, stream));
        level_kernel<<<(unsigned)ceil_div(count, 256), 256, 0, stream>>>(
            left, right, val, (unsigned)n, node[c], num[c], count,
            node[1 - c], num[1 - c], next, sum);
        BOOK_TRY(cudaMemcpyAsync(&count, next, sizeof count,
                                 cudaMemcpyDeviceToHost, stream));
        BOOK_TRY(cudaStreamSynchronize(stream));   // count is the host's
        if (count > n) count = (unsigned)n;    // malformed: drop the rest
    }
    return cudaGetLastError();
}
