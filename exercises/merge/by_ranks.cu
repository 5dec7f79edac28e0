// exercises/merge/by_ranks.cu -- the merge chapter's exercise 1: a merge
// in which every element computes its own output position.  Write
// merge_by_ranks_u32 (declared, with its contract, in exercises.h); check
// it with  make exercise EX=merge/by_ranks
#include "common/book.h"
#include "merge/exercises.h"

extern "C" cudaError_t merge_by_ranks_u32(const uint32_t *a, size_t na,
                                          const uint32_t *b, size_t nb,
                                          uint32_t *out, cudaStream_t stream)
{
    (void)a; (void)na; (void)b; (void)nb; (void)out; (void)stream;
    // TODO: refuse bad arguments, then one thread per element, launched on
    // stream: a[i] goes to i + (the number of b's that go before it).
    // Which comparison counts for a's element, and which for b's, so that
    // ties go to a?
    return cudaErrorNotYetImplemented;
}
