// exercises/matmul/sgemm.cu -- Exercise 7 of the matmul chapter: the BLAS
// form C = alpha A B + beta C.  Write sgemm_tiled (declared, with its
// contract, in exercises.h); check it with  make exercise EX=matmul/sgemm
#include "common/book.h"
#include "matmul/matmul.h"
#include "matmul/exercises.h"

extern "C" cudaError_t sgemm_tiled(const float *A, const float *B, float *C,
                                   size_t M, size_t N, size_t K, float alpha,
                                   float beta, cudaStream_t stream)
{
    (void)A; (void)B; (void)C; (void)M; (void)N; (void)K; (void)alpha;
    (void)beta; (void)stream;
    // TODO: refuse bad arguments and launch a tiled kernel on stream.  What
    // does the kernel do with C when beta is 0?
    return cudaErrorNotYetImplemented;
}
