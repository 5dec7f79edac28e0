// probe.h -- the method: an empty kernel, and one warp timing a chain of
// dependent operations with clock64.  Both launchers take the stream
// their work is queued on as their last argument (0: the default stream),
// and return without waiting for it.
#ifndef PROBE_H
#define PROBE_H
#include <cuda_runtime_api.h>
#define PROBE_IMAD 0     // v = v v + shift: integer multiply-add
#define PROBE_SHFL 1     // v = v of lane (lane + shift) mod 32
#define PROBE_SHARED 2   // v = s[v], s[i] -> s[(i + shift) mod 32]
#ifdef __cplusplus
extern "C" {
#endif
// Launch an empty kernel of grid x block threads (grid >= 1, 1 <= block
// <= 1024, else cudaErrorInvalidValue); the status of the launch.
cudaError_t probe_empty(unsigned grid, unsigned block, cudaStream_t stream);
// One warp runs steps >= 1 dependent operations of kind op; out[32] (device)
// gets each lane's final v, *ticks (device) the SM clock cycles lane 0
// spent in the chain.  Null pointers or a bad op: cudaErrorInvalidValue.
cudaError_t probe_chain(int op, unsigned steps, unsigned shift,
                        long long *ticks, unsigned *out, cudaStream_t stream);
#ifdef __cplusplus
}
#endif
#endif
