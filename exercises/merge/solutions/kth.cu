// Solution to the merge chapter's exercise 2: the k-th element of two
// sorted arrays.  The first k + 1 outputs hold i = co_rank(k + 1) of a's
// and k + 1 - i of b's; the last of them is the larger, in merge order,
// of a[i - 1] and b[k - i], whichever exist.  With ties to a, b's goes
// last when they are equal.  One thread, O(log(na + nb)) reads.
#include "common/book.h"
#include "merge/merge.cuh"
#include "merge/exercises.h"

__global__ void merge_kth_kernel(const uint32_t *a, size_t na,
                                 const uint32_t *b, size_t nb, size_t k,
                                 uint32_t *result)
{
    const size_t d = k + 1;
    const size_t i = co_rank<Tie::to_a>(d, a, na, b, nb, merge_less_u32());
    const size_t j = d - i;
    if (i == 0) *result = b[j - 1];
    else if (j == 0) *result = a[i - 1];
    else *result = b[j - 1] >= a[i - 1] ? b[j - 1] : a[i - 1];
}

extern "C" cudaError_t merge_kth_u32(const uint32_t *a, size_t na,
                                     const uint32_t *b, size_t nb, size_t k,
                                     uint32_t *result, cudaStream_t stream)
{
    if (na > MERGE_MAX_N || nb > MERGE_MAX_N || na + nb > MERGE_MAX_N ||
        k >= na + nb || !result || (na && !a) || (nb && !b))
        return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    merge_kth_kernel<<<1, 1, 0, stream>>>(a, na, b, nb, k, result);
    return cudaGetLastError();
}
