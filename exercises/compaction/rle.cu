// exercises/compaction/rle.cu -- Exercise 5 of the compaction chapter: run-length
// encoding.  Write rle_i32 (declared, with its contract, in exercises.h);
// check it with  make exercise EX=compaction/rle
#include "common/book.h"
#include "scan/scan.h"
#include "compaction/compact.h"
#include "compaction/exercises.h"

extern "C" cudaError_t rle_i32(const int *in, size_t n, int *values,
                               int *lengths, size_t *runs, void *scratch,
                               size_t bytes)
{
    (void)in; (void)n; (void)values; (void)lengths; (void)runs;
    (void)scratch; (void)bytes;
    // TODO: refuse bad arguments and launch your kernels (the scan chapter's
    // scan_i32 is linked in).  Which elements start a run, and which
    // parts of find_repeats carry over?
    return cudaErrorNotYetImplemented;
}
