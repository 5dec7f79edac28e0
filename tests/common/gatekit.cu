// gatekit.cu -- the gate of common/gate.cuh for the C tests (testkit.h's
// tk_gate_close and tk_gate_open call it): one kernel of one thread that
// holds stream s until *dflag != 0 or max_ns nanoseconds have passed.
#include "common/book.h"
#include "common/gate.cuh"

extern "C" cudaError_t tk_gate_launch(const int *dflag,
                                      unsigned long long max_ns,
                                      cudaStream_t s)
{
    if (!dflag) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    book_gate_kernel<<<1, 1, 0, s>>>(dflag, max_ns);
    return cudaGetLastError();
}
