// exercises/scan/max-scan.cu -- the scan chapter's exercise 4: a
// device-wide scan with another associative operator, max.  Write
// scan_max_i32 (declared, with its contract, in exercises.h); check it with
//   make exercise EX=scan/max-scan
#include "common/book.h"
#include "scan/scan.h"
#include "scan/exercises.h"

extern "C" cudaError_t scan_max_i32(const int *in, int *out, size_t n,
                                    scan_kind kind, void *scratch,
                                    size_t bytes, cudaStream_t stream)
{
    (void)in; (void)out; (void)n; (void)kind; (void)scratch; (void)bytes;
    (void)stream;
    // TODO: refuse bad arguments and launch your kernels on stream.  What
    // is the identity of max on int, and which steps of the chapter's
    // scans relied on + rather than on any associative operator?
    return cudaErrorNotYetImplemented;
}
