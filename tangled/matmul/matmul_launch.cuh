// matmul_launch.cuh -- the arguments and launch checks of every launcher.
#ifndef MATMUL_LAUNCH_CUH
#define MATMUL_LAUNCH_CUH
#include "common/book.h"
#include "matmul/matmul.h"

#define MM_ARGS const float *A, const float *B, float *C, size_t M, \
                size_t N, size_t K
// A launcher's arguments: a kernel's, then the stream to queue it on.
#define MM_LAUNCH_ARGS MM_ARGS, cudaStream_t stream

// <<Matmul launch checks>>
static inline int mm_launch_ok(const float *A, const float *B,
                               const float *C, size_t gx, size_t gy)
{
    return A && B && C && gx <= 2147483647u && gy <= 65535u;
}
#endif
