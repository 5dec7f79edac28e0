// exercises/interview/lcs.cu -- Exercise 5 of the interview appendix:
// the longest common subsequence as a wavefront.  Write lcs_diagonals
// (declared, with its contract, in exercises.h); check it with
//   make exercise EX=interview/lcs
#include "common/book.h"
#include "interview/editdist.h"
#include "interview/exercises.h"

extern "C" cudaError_t lcs_diagonals(const char *a, size_t la, const char *b,
                                     size_t lb, int *work, int *len,
                                     cudaStream_t stream)
{
    (void)a; (void)la; (void)b; (void)lb; (void)work; (void)len;
    (void)stream;
    // TODO: refuse bad arguments, then a kernel a diagonal, on stream.
    // Which neighbours does an entry of the LCS table read?
    return cudaErrorNotYetImplemented;
}
