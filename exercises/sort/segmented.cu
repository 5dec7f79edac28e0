// exercises/sort/segmented.cu -- the sort chapter's exercise 2: sort the
// keys of every segment at once.  Write segmented_sort_u32 (declared,
// with its contract, in exercises.h); check it with
//   make exercise EX=sort/segmented
#include "common/book.h"
#include "sort/sort.h"
#include "sort/exercises.h"

extern "C" cudaError_t segmented_sort_u32(const unsigned *keys,
                                          const unsigned *seg,
                                          unsigned *out, size_t n,
                                          void *temp, size_t bytes,
                                          cudaStream_t stream)
{
    (void)keys; (void)seg; (void)out; (void)n; (void)temp; (void)bytes;
    (void)stream;
    // TODO: refuse bad arguments; then one sort of 64-bit keys does it,
    // with your kernels, on stream.  Which 64-bit key sorts in the order
    // of (segment, key)?
    return cudaErrorNotYetImplemented;
}
