// probe.cu -- the method: the empty kernel and the latency chains.
#include "common/book.h"
#include "method/probe.h"

// <<An empty kernel>>
__global__ void empty_kernel(void) {}

// <<Load a word from shared memory at a shared address>>
__device__ __forceinline__ unsigned ld_shared(unsigned addr)
{
    unsigned v;
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
    return v;
}

// <<Time a dependent chain on one warp>>
template <int OP>
__global__ void chain_kernel(unsigned steps, unsigned shift,
                             long long *ticks, unsigned *out)
{
    __shared__ unsigned s[32];
    const unsigned lane = threadIdx.x, src = (lane + shift) & 31u;
    const unsigned base = (unsigned)__cvta_generic_to_shared(s);
    s[lane] = base + 4 * src;       // the shared address of s[src]
    __syncwarp();
    unsigned v = OP == PROBE_SHARED ? base + 4 * lane : lane * 7u + 1u;
    long long t0 = clock64();
#pragma unroll 16
    for (unsigned k = 0; k < steps; k++) {
        if (OP == PROBE_SHFL) v = __shfl_sync(0xffffffffu, v, src);
        else if (OP == PROBE_SHARED) v = ld_shared(v);
        else v = v * v + shift;
    }
    if (OP == PROBE_SHARED) v = (v - base) / 4;   // back to an index
    out[lane] = v;                  // the clock waits for the chain's end
    long long t1 = clock64();
    if (lane == 0) *ticks = t1 - t0;
}

extern "C" cudaError_t probe_empty(unsigned grid, unsigned block,
                                   cudaStream_t stream)
{
    if (grid < 1 || block < 1 || block > 1024) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    empty_kernel<<<grid, block, 0, stream>>>();
    return cudaGetLastError();
}

extern "C" cudaError_t probe_chain(int op, unsigned steps, unsigned shift,
                                   long long *ticks, unsigned *out,
                                   cudaStream_t stream)
{
    void (*chain)(unsigned, unsigned, long long *, unsigned *) =
        op == PROBE_IMAD     ? chain_kernel<PROBE_IMAD>
        : op == PROBE_SHFL   ? chain_kernel<PROBE_SHFL>
        : op == PROBE_SHARED ? chain_kernel<PROBE_SHARED>
                             : nullptr;
    if (!ticks || !out || steps < 1 || !chain) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    chain<<<1, 32, 0, stream>>>(steps, shift, ticks, out);
    return cudaGetLastError();
}
