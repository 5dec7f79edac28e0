// exercises/scan/hs-double.cu -- the scan chapter's exercise 1: the
// Hillis-Steele tile scan on two shared arrays, one barrier a step.  Write
// scan_tiles_hs_double (declared, with its contract, in exercises.h);
// check it with  make exercise EX=scan/hs-double
#include "common/book.h"
#include "scan/scan.h"
#include "scan/exercises.h"

extern "C" cudaError_t scan_tiles_hs_double(const float *in, float *out,
                                            size_t n, scan_kind kind,
                                            cudaStream_t stream)
{
    (void)in; (void)out; (void)n; (void)kind; (void)stream;
    // TODO: refuse bad arguments and launch a kernel on stream, one block
    // a tile.
    // Why does one barrier a step suffice with two arrays?
    return cudaErrorNotYetImplemented;
}
