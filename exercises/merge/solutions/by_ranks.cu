// Solution to the merge chapter's exercise 1: merge by ranks.  a[i] goes
// to i + (the number of b's strictly less than a[i]): a lower bound in b.
// b[j] goes to j + (the number of a's less than or equal to b[j]): an
// upper bound in a.  Ties therefore go to a, and the positions of all
// na + nb elements are distinct.  Each element reads log2 of the other
// array's length words at random: far more traffic than the merge path's
// tiles, which read each word once.
#include "common/book.h"
#include "merge/exercises.h"

// The first index in x[0, n) whose element is > v (upper) or >= v.
__device__ size_t bound_u32(const uint32_t *x, size_t n, uint32_t v,
                            bool upper)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        const size_t m = lo + (hi - lo) / 2;
        if (upper ? x[m] <= v : x[m] < v) lo = m + 1;
        else hi = m;
    }
    return lo;
}

__global__ void merge_by_ranks_kernel(const uint32_t *a, size_t na,
                                      const uint32_t *b, size_t nb,
                                      uint32_t *out)
{
    const size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (t < na) out[t + bound_u32(b, nb, a[t], false)] = a[t];
    else if (t < na + nb) {
        const size_t j = t - na;
        out[j + bound_u32(a, na, b[j], true)] = b[j];
    }
}

extern "C" cudaError_t merge_by_ranks_u32(const uint32_t *a, size_t na,
                                          const uint32_t *b, size_t nb,
                                          uint32_t *out, cudaStream_t stream)
{
    if (na > MERGE_MAX_N || nb > MERGE_MAX_N || na + nb > MERGE_MAX_N)
        return cudaErrorInvalidValue;
    const size_t n = na + nb;
    if (n == 0) return cudaSuccess;
    if ((na && !a) || (nb && !b) || !out ||
        (na && ranges_overlap(out, 4 * n, a, 4 * na)) ||
        (nb && ranges_overlap(out, 4 * n, b, 4 * nb)))
        return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    merge_by_ranks_kernel<<<(unsigned)ceil_div(n, 256), 256, 0, stream>>>(
        a, na, b, nb, out);
    return cudaGetLastError();
}
