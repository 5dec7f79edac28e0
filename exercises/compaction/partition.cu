// exercises/compaction/partition.cu -- the compaction chapter's exercise
// 1: a stable partition.  Write partition_gt (declared, with its contract,
// in exercises.h); check it with  make exercise EX=compaction/partition
#include "common/book.h"
#include "scan/scan.h"
#include "compaction/compact.h"
#include "compaction/exercises.h"

extern "C" cudaError_t partition_gt(const int *in, int *out, size_t n,
                                    int threshold, size_t *count,
                                    void *scratch, size_t bytes,
                                    cudaStream_t stream)
{
    (void)in; (void)out; (void)n; (void)threshold; (void)count;
    (void)scratch; (void)bytes; (void)stream;
    // TODO: refuse bad arguments and launch your kernels on stream
    // (scan_i32, from the scan chapter, is linked in).  Where does a
    // rejected element go, given the scan of the flags at its index?
    return cudaErrorNotYetImplemented;
}
