/* scan.h -- prefix sums.  All pointers are device pointers; n counts
 * elements and may exceed 2^32.  Every launcher takes the stream its work
 * is queued on as its last argument (0: the default stream), and returns
 * without waiting for it. */
#ifndef SCAN_H
#define SCAN_H
#include <cuda_runtime_api.h>
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif

// <<Scan kinds and algorithms>>
typedef enum { SCAN_INCLUSIVE = 0, SCAN_EXCLUSIVE = 1 } scan_kind;
/* Block-level algorithms, each scanning tiles of SCAN_TILE elements. */
#define SCAN_TILE 512
typedef enum {
    SCAN_TILE_HILLIS_STEELE,
    SCAN_TILE_WARPS,             /* a block scan built from warp scans */
    SCAN_TILE_BLELLOCH,          /* with conflict-free padding */
    SCAN_TILE_BLELLOCH_UNPADDED,
    SCAN_TILE_BLELLOCH_GEMS,     /* wrong on purpose: padding as printed */
    SCAN_TILE_HS_ONE_BARRIER,    /* wrong on purpose: a race */
    SCAN_TILE_WARPS_32BIT_INDEX  /* wrong on purpose: wraps past 2^32 */
} scan_tile_algo;
/* Whole-array algorithms; their tiles hold SCAN_DEVICE_TILE_BYTES. */
#define SCAN_DEVICE_TILE_BYTES 16384
typedef enum {
    SCAN_PROPAGATE,              /* scan tiles, scan sums, add */
    SCAN_REDUCE_THEN_SCAN,       /* reduce tiles, scan sums, scan */
    SCAN_LOOKBACK,               /* single pass, decoupled look-back */
    SCAN_LOOKBACK_PACKED,        /* the same, flag and value in one word */
    SCAN_LOOKBACK_AHEAD,         /* packed, next tile number fetched early */
    SCAN_LOOKBACK_STAGED,        /* packed, tiles staged in shared memory */
    SCAN_LOOKBACK_PAIRED,        /* staged; 64-bit values in paired words */
    SCAN_LOOKBACK_RAKED          /* paired; each thread scans its own run */
} scan_device_algo;
/* The last three need 64 KB of shared memory a block and a few hundred
 * bytes more; where the GPU gives less (sm_75), the launchers return
 * cudaErrorNotSupported and launch nothing.  SCAN_LOOKBACK_RAKED finds
 * its exclusive prefixes by subtraction: exact for integers (they wrap),
 * but for floats a prefix can lose its earlier part when later values
 * are much larger; its float results are tested only on inputs of
 * similar magnitude. */

// <<Bank-conflict-free padding>>
#define SCAN_NUM_BANKS 32
#define SCAN_LOG_NUM_BANKS 5
/* One unused word after every 32: word i is stored at i + pad(i). */
#define SCAN_CONFLICT_FREE_OFFSET(i) ((i) >> SCAN_LOG_NUM_BANKS)

// <<Scan launchers>>
cudaError_t scan_tiles_f32(const float *in, float *out, size_t n,
                           scan_tile_algo algo, scan_kind kind,
                           cudaStream_t stream);
cudaError_t scan_tiles_i32(const int *in, int *out, size_t n,
                           scan_tile_algo algo, scan_kind kind,
                           cudaStream_t stream);
/* Scratch bytes any device-wide algorithm needs for n elements of
 * elem_bytes (4 or 8) each; scratch must be 256-byte aligned. */
size_t scan_scratch_bytes(size_t n, size_t elem_bytes);
cudaError_t scan_f32(const float *in, float *out, size_t n, scan_kind kind,
                     scan_device_algo algo, void *scratch, size_t bytes,
                     cudaStream_t stream);
cudaError_t scan_i32(const int *in, int *out, size_t n, scan_kind kind,
                     scan_device_algo algo, void *scratch, size_t bytes,
                     cudaStream_t stream);
cudaError_t scan_i64(const long long *in, long long *out, size_t n,
                     scan_kind kind, scan_device_algo algo, void *scratch,
                     size_t bytes, cudaStream_t stream);
#ifdef __cplusplus
}
#endif
#endif
