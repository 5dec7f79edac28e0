/* exercises.h -- the memory chapter's code exercises: the launchers a student
 * writes in exercises/memory/NAME.cu; tests/memory/ex_NAME.c tests
 * them.  Device pointers; n == 0 does nothing and succeeds.  Like the
 * chapter's, each launcher takes the stream that its work is queued on as
 * its last argument (0: the default stream), and returns without waiting
 * for that work. */
#ifndef EX_MEMORY_H
#define EX_MEMORY_H
#include <cuda_runtime_api.h>
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
/* Exercise 3 (drift-aosoa): particles in the hybrid layout, an array of
 * blocks of 32 particles, each block a struct of arrays; particle i is
 * lane i % 32 of block i / 32.  x += vx * dt (one fmaf) for i < n, nothing
 * else written.  A NULL p: cudaErrorInvalidValue. */
struct particle_block {                  /* 1 KiB: 32 particles */
    float x[32], y[32], z[32], vx[32], vy[32], vz[32], mass[32], charge[32];
};
cudaError_t drift_aosoa(struct particle_block *p, size_t n, float dt,
                        cudaStream_t stream);
/* Exercise 4 (fma-one-chain): fma_peak with one chain instead of eight:
 * thread t starts from x = (float)(t % 1024), applies x = fmaf(x, a, b)
 * iters times and writes out[t] = x, for t < n.  A NULL out:
 * cudaErrorInvalidValue. */
cudaError_t fma_one_chain(float *out, size_t n, unsigned iters, float a,
                          float b, cudaStream_t stream);
#ifdef __cplusplus
}
#endif
#endif
