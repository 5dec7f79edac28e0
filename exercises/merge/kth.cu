// exercises/merge/kth.cu -- the merge chapter's exercise 2: the k-th
// element of two sorted arrays.  Write merge_kth_u32 (declared, with its
// contract, in exercises.h); check it with  make exercise EX=merge/kth
#include "common/book.h"
#include "merge/exercises.h"

extern "C" cudaError_t merge_kth_u32(const uint32_t *a, size_t na,
                                     const uint32_t *b, size_t nb, size_t k,
                                     uint32_t *result, cudaStream_t stream)
{
    (void)a; (void)na; (void)b; (void)nb; (void)k; (void)result;
    (void)stream;
    // TODO: refuse bad arguments; one thread, launched on stream, finds
    // i = the co-rank of diagonal k + 1.  Is the element at position k
    // then a[i - 1] or b[k - i]?
    return cudaErrorNotYetImplemented;
}
