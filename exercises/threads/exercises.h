/* exercises.h -- the threads chapter's code exercises: the launchers a
 * student writes in exercises/threads/NAME.cu; tests/threads/ex_NAME.c tests
 * them.  Device pointers; c = a + b elementwise; n == 0 does nothing and
 * succeeds.  Like the chapter's, each launcher takes the stream that its
 * work is queued on as its last argument (0: the default stream), and
 * returns without waiting for that work. */
#ifndef EX_THREADS_H
#define EX_THREADS_H
#include <cuda_runtime_api.h>
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
/* Exercise 2 (vadd-2d): one element a thread, on a two-dimensional grid of
 * 256-thread blocks, each grid dimension at most 65535 blocks, so n up to
 * 65535 * 65535 * 256 (about 2^40); a larger n or a NULL pointer:
 * cudaErrorInvalidValue. */
#define VADD_2D_MAX_N ((size_t)65535 * 65535 * 256)
cudaError_t vadd_2d(const float *a, const float *b, float *c, size_t n,
                    cudaStream_t stream);
/* Exercise 3 (float4-head): float4 loads and stores for pointers that are
 * 4-byte aligned and have the same address modulo 16; a short scalar head
 * brings them to 16 bytes.  Pointers not 4-byte aligned, with different
 * addresses modulo 16, or NULL: cudaErrorInvalidValue. */
cudaError_t vadd_float4_head(const float *a, const float *b, float *c,
                             size_t n, cudaStream_t stream);
#ifdef __cplusplus
}
#endif
#endif
