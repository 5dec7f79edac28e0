// transpose.h -- matrix transpose and shared-memory banks.
// in is rows x cols, row-major; out is cols x rows, row-major; both are
// device pointers.  They must not overlap, rows is at most 2097120
// (65535 tiles of 32; transpose_tile64 keeps that limit) and rows * cols
// floats fit in SIZE_MAX bytes: else cudaErrorInvalidValue.  Every
// launcher takes the stream that its work is queued on as its last
// argument (0: the default stream), and returns without waiting for that
// work; tr_conflict_degree runs on the CPU and takes none.
#ifndef TRANSPOSE_H
#define TRANSPOSE_H
#include <cuda_runtime_api.h>
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
cudaError_t transpose_naive(const float *in, float *out, size_t rows,
                            size_t cols, cudaStream_t stream);
cudaError_t transpose_naive_colread(const float *in, float *out,
                                    size_t rows, size_t cols,
                                    cudaStream_t stream);
cudaError_t transpose_tile(const float *in, float *out, size_t rows,
                           size_t cols, cudaStream_t stream);
cudaError_t transpose_tile_padded(const float *in, float *out, size_t rows,
                                  size_t cols, cudaStream_t stream);
cudaError_t transpose_tile_swizzled(const float *in, float *out,
                                    size_t rows, size_t cols,
                                    cudaStream_t stream);
cudaError_t transpose_tile64(const float *in, float *out, size_t rows,
                             size_t cols, cudaStream_t stream);
// Wrong on purpose: the tile without its barrier.
cudaError_t transpose_tile_nobarrier(const float *in, float *out,
                                     size_t rows, size_t cols,
                                     cudaStream_t stream);
unsigned tr_conflict_degree(const unsigned word[32]);
#ifdef __cplusplus
}
#endif

// <<Tile sizes and shared-memory layouts>>
enum { TR_TILE = 32, TR_BLOCK_ROWS = 8 };
enum tr_layout { TR_PLAIN, TR_PADDED, TR_SWIZZLED };
#ifdef __CUDACC__
#define TR_HOST_DEVICE __host__ __device__
#else
#define TR_HOST_DEVICE
#endif
// The word of shared memory that holds tile element (r, c).
static inline TR_HOST_DEVICE unsigned tr_smem_index(int layout, unsigned r,
                                                    unsigned c)
{
    switch (layout) {
    case TR_PADDED: return r * (TR_TILE + 1) + c;    // rows of 33 words
    case TR_SWIZZLED: return r * TR_TILE + (c ^ r);  // columns permuted
    default: return r * TR_TILE + c;                 // rows of 32 words
    }
}

// <<The wide tile's size and layout>>
enum { TR_WIDE = 64 };              // side of the wide tile, in floats
// The word of the wide tile that holds element (r, c): rows of 65 words.
static inline TR_HOST_DEVICE unsigned tr_wide_index(unsigned r, unsigned c)
{
    return r * (TR_WIDE + 1) + c;
}
#endif
