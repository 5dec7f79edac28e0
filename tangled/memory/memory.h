// memory.h -- kernels that measure the memory hierarchy.
// All pointers are device pointers; sizes count floats (or particles).
// Every launcher takes the stream that its work is queued on as its last
// argument (0: the default stream), and returns without waiting for that
// work; mem_chase_cycle alone waits, for its stream only (below).
#ifndef MEMORY_H
#define MEMORY_H
#include <cuda_runtime_api.h>
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
// mem_copy: in and out must not overlap (cudaErrorInvalidValue if they do).
// Any float-aligned pair; unequal 16-byte offsets fall back to a scalar copy.
cudaError_t mem_copy(const float *in, float *out, size_t n,
                     cudaStream_t stream);
// mem_read_sum: in must be 16-byte aligned (else cudaErrorInvalidValue);
// it adds into *sum, which the caller clears first (before the call, or
// earlier on the same stream).
cudaError_t mem_read_sum(const float *in, size_t n, unsigned passes,
                         float *sum, cudaStream_t stream);
// mem_copy_strided: out[j] = in[j] for j = offset, offset + stride, ...
// below len; stride 0 gets cudaErrorInvalidValue.
cudaError_t mem_copy_strided(const float *in, float *out, size_t len,
                             size_t stride, size_t offset,
                             cudaStream_t stream);
cudaError_t fma_peak(float *out, size_t n, unsigned iters, float a,
                     float b, cudaStream_t stream);
// The pointer chase: next holds element indices.  mem_chase_cycle writes
// one random cycle through the nodes 0, stride, 2 stride, ... of a buffer
// of nodes * stride elements; mem_chase takes steps from *pos (device
// memory) and leaves the last index there.  cudaErrorInvalidValue:
// mem_chase_cycle for nodes or stride 0, or a buffer past SIZE_MAX bytes;
// mem_chase for len 0.  mem_chase_cycle draws the cycle on the host and
// copies it on stream; it waits for stream before it returns, because
// the host buffer that it copies from is freed then.
cudaError_t mem_chase_cycle(size_t *next, size_t nodes, size_t stride,
                            unsigned long long seed, cudaStream_t stream);
cudaError_t mem_chase(const size_t *next, size_t len, size_t steps,
                      size_t *pos, cudaStream_t stream);

// <<Particles as an array of structs and as a struct of arrays>>
struct particle {                 // 32 bytes: one sector a particle
    float x, y, z, vx, vy, vz, mass, charge;
};
struct particles {                // the same fields, one array each
    float *x, *y, *z, *vx, *vy, *vz, *mass, *charge;
};
cudaError_t drift_aos(struct particle *p, size_t n, float dt,
                      cudaStream_t stream);
cudaError_t drift_soa(struct particles p, size_t n, float dt,
                      cudaStream_t stream);
cudaError_t drift_soa4(struct particles p, size_t n, float dt,
                       cudaStream_t stream);
#ifdef __cplusplus
}
#endif
#endif
