// gate.cuh -- a kernel of one thread that holds its stream until a flag
// in mapped host memory opens, or a time limit passes.  Written by the
// host chapter; every chapter's stream-order tests use it.
#ifndef COMMON_GATE_CUH
#define COMMON_GATE_CUH

// <<Read the GPU's global timer>>
static __device__ unsigned long long book_global_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// <<The gate kernel>>
static __global__ void book_gate_kernel(const volatile int *flag,
                                        unsigned long long max_ns)
{
    const unsigned long long t0 = book_global_ns();
    while (*flag == 0 && book_global_ns() - t0 < max_ns)
        __nanosleep(10000);
}
#endif
