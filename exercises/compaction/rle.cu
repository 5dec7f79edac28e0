// exercises/compaction/rle.cu -- the compaction chapter's exercise 5:
// run-length encoding.  Write rle_i32 (declared, with its contract, in
// exercises.h); check it with  make exercise EX=compaction/rle
#include "common/book.h"
#include "scan/scan.h"
#include "compaction/compact.h"
#include "compaction/exercises.h"

extern "C" cudaError_t rle_i32(const int *in, size_t n, int *values,
                               int *lengths, size_t *runs, void *scratch,
                               size_t bytes, cudaStream_t stream)
{
    (void)in; (void)n; (void)values; (void)lengths; (void)runs;
    (void)scratch; (void)bytes; (void)stream;
    // TODO: refuse bad arguments and launch your kernels on stream
    // (scan_i32, from the scan chapter, is linked in).  Which elements
    // start a run, and which parts of find_repeats carry over?
    return cudaErrorNotYetImplemented;
}
