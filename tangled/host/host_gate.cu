// host_gate.cu -- the gate that holds a stream, and the ticks.
#include "host/host_parts.cuh"
#include "common/gate.cuh"

// <<The gate launcher>>
extern "C" cudaError_t host_gate(const int *dflag, unsigned long long max_ns,
                                 cudaStream_t s)
{
    if (!dflag) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    book_gate_kernel<<<1, 1, 0, s>>>(dflag, max_ns);
    return cudaGetLastError();
}

// <<The ticks>>
__global__ void host_tick_kernel(unsigned *counter) { *counter += 1; }

extern "C" cudaError_t host_ticks(void *arg, cudaStream_t s)
{
    const host_ticks_arg *t = (const host_ticks_arg *)arg;
    if (!t || !t->counter || t->count < 0) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    for (int i = 0; i < t->count; i++) {
        host_tick_kernel<<<1, 1, 0, s>>>(t->counter);
        BOOK_TRY(cudaGetLastError());
    }
    return cudaSuccess;
}
