// host_gate.cu -- the gate that holds a stream, and the ticks.
#include "host/host_parts.cuh"

// <<Read the GPU's global timer>>
__device__ static unsigned long long global_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// <<The gate kernel>>
__global__ void host_gate_kernel(const volatile int *flag,
                                 unsigned long long max_ns)
{
    const unsigned long long t0 = global_ns();
    while (*flag == 0 && global_ns() - t0 < max_ns) __nanosleep(10000);
}

// <<The gate launcher>>
extern "C" cudaError_t host_gate(const int *dflag, unsigned long long max_ns,
                                 cudaStream_t s)
{
    if (!dflag) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    host_gate_kernel<<<1, 1, 0, s>>>(dflag, max_ns);
    return cudaGetLastError();
}

// <<The ticks>>
__global__ void host_tick_kernel(unsigned *counter) { *counter += 1; }

extern "C" cudaError_t host_ticks(cudaStream_t s, void *arg)
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
