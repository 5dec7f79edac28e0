// editdist.h -- the Levenshtein distance on the GPU.
// Strings are bytes in device memory (a pointer may be null where its
// length is 0); lengths at most ED_MAX_LEN, else cudaErrorInvalidValue.
// The distance goes to *dist, one int in device memory.  Every launcher
// takes the stream its work is queued on as its last argument (0: the
// default stream), and returns without waiting for it.
#ifndef EDITDIST_H
#define EDITDIST_H
#include <cuda_runtime_api.h>
#include <stddef.h>
#define ED_MAX_LEN (((size_t)1 << 30) - 1)   // m + n + 1 fits an int
#define ED_BLOCK_MAX 4000   // ed_block: the shorter string's limit
#define ED_BATCH_MAX 256    // ed_batch: each pair's shorter string's limit
// Work for ed_diagonals: ints, device memory.
#define ED_WORK_INTS(la, lb) (3 * (((la) < (lb) ? (la) : (lb)) + 1))
#define ED_TILE 64          // ed_tiled: a tile is ED_TILE x ED_TILE entries
// Work for ed_tiled: ints, device memory; a row of ED_TILE + 1 for each
// column of tiles (lb), a column of ED_TILE for each row of tiles (la):
// O(la + lb).
#define ED_TILED_WORK_INTS(la, lb)                                        \
    (((lb) + ED_TILE - 1) / ED_TILE * (ED_TILE + 1) +                     \
     ((la) + ED_TILE - 1) / ED_TILE * ED_TILE)
#ifdef __cplusplus
extern "C" {
#endif
// One kernel a diagonal: any lengths; work holds ED_WORK_INTS ints.
cudaError_t ed_diagonals(const char *a, size_t la, const char *b, size_t lb,
                         int *work, int *dist, cudaStream_t stream);
// A kernel a diagonal of ED_TILE x ED_TILE tiles, a warp a tile: any
// lengths; work holds ED_TILED_WORK_INTS(la, lb) ints (any contents, all
// overwritten).
cudaError_t ed_tiled(const char *a, size_t la, const char *b, size_t lb,
                     int *work, int *dist, cudaStream_t stream);
// One block sweeping the diagonals in shared memory: min(la, lb) <=
// ED_BLOCK_MAX, else cudaErrorInvalidValue.
cudaError_t ed_block(const char *a, size_t la, const char *b, size_t lb,
                     int *dist, cudaStream_t stream);
// Many pairs, one warp each.  Pair k is the strings s[off[2k], off[2k+1])
// and s[off[2k+1], off[2k+2]); off has 2 pairs + 1 entries (device), s has
// nchars bytes.  dist[k] is the distance, or -1 where the pair's offsets
// decrease, pass nchars, or its shorter string exceeds ED_BATCH_MAX (its
// longer, ED_MAX_LEN).  pairs at most 8 (2^31 - 1), else
// cudaErrorInvalidValue; none, nothing is done.
cudaError_t ed_batch(const char *s, size_t nchars, const size_t *off,
                     size_t pairs, int *dist, cudaStream_t stream);
#ifdef __cplusplus
}
#endif
#endif
