// exercises/matmul/tiled16.cu -- Exercise 2 of the matmul chapter: the tiled
// kernel with 16 x 16 tiles.  Write matmul_tiled16 (declared, with its
// contract, in exercises.h); check it with
//   make exercise EX=matmul/tiled16
#include "common/book.h"
#include "matmul/matmul.h"
#include "matmul/exercises.h"

extern "C" cudaError_t matmul_tiled16(const float *A, const float *B,
                                      float *C, size_t M, size_t N, size_t K,
                                      cudaStream_t stream)
{
    (void)A; (void)B; (void)C; (void)M; (void)N; (void)K; (void)stream;
    // TODO: refuse bad arguments and launch a tiled kernel on stream.  How
    // many global loads does a tile of 16 make, by the 2MNK/d formula?
    return cudaErrorNotYetImplemented;
}
