// exercises/interview/tree-levels.cu -- Exercise 3 of the interview
// appendix: the root-to-leaf sum level by level.  Write
// tree_path_sum_levels (declared, with its contract, in exercises.h);
// check it with  make exercise EX=interview/tree-levels
#include "common/book.h"
#include "interview/tree.h"
#include "interview/exercises.h"

extern "C" cudaError_t tree_path_sum_levels(const int *left,
                                            const int *right,
                                            const unsigned char *val,
                                            size_t n, void *work,
                                            unsigned long long *sum,
                                            cudaStream_t stream)
{
    (void)left; (void)right; (void)val; (void)n; (void)work; (void)sum;
    (void)stream;
    // TODO: refuse bad arguments, then a kernel a level, on stream.  Where
    // in the work do the two frontiers go, and what stops a malformed
    // tree?  The host learns a frontier's size from stream, not from the
    // whole device.
    return cudaErrorNotYetImplemented;
}
