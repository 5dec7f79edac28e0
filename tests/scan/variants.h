/* variants.h -- the scan chapter's variants, listed once: test_scan.c runs
 * them and bench_scan.cu times them under these names, the rows of
 * scan.csv (C and C++). */
#ifndef SCAN_VARIANTS_H
#define SCAN_VARIANTS_H
#include "scan/scan.h"

/* The correct tile scans, in the order of the benchmark's rows:
 * X(algorithm, row name). */
#define SCAN_TILE_VARIANTS(X)                                              \
    X(SCAN_TILE_HILLIS_STEELE, "tiles_hillis_steele")                      \
    X(SCAN_TILE_WARPS, "tiles_warps")                                      \
    X(SCAN_TILE_BLELLOCH_UNPADDED, "tiles_blelloch_unpadded")              \
    X(SCAN_TILE_BLELLOCH, "tiles_blelloch")                                \
    X(SCAN_TILE_BLELLOCH_GEMS, "tiles_blelloch_gems")

/* Element types, as bits of the masks below. */
enum { SCAN_TYPE_F32 = 1, SCAN_TYPE_I32 = 2, SCAN_TYPE_I64 = 4 };
#define SCAN_TYPES_ALL (SCAN_TYPE_F32 | SCAN_TYPE_I32 | SCAN_TYPE_I64)

/* Every device-wide algorithm, in the order of scan_device_algo:
 * X(algorithm, name, the types the benchmark times it on, 1 for the
 * 64 KiB tiles in shared memory).  The test runs every algorithm on every
 * type; the benchmark's row is the name and the type's suffix (_f32,
 * _i32, _i64). */
#define SCAN_DEVICE_VARIANTS(X)                                            \
    X(SCAN_PROPAGATE, "propagate", SCAN_TYPE_F32, 0)                       \
    X(SCAN_REDUCE_THEN_SCAN, "reduce_then_scan", SCAN_TYPE_F32, 0)         \
    X(SCAN_LOOKBACK, "lookback", SCAN_TYPES_ALL, 0)                        \
    X(SCAN_LOOKBACK_PACKED, "lookback_packed",                             \
      SCAN_TYPE_F32 | SCAN_TYPE_I32, 0)                                    \
    X(SCAN_LOOKBACK_AHEAD, "lookback_ahead",                               \
      SCAN_TYPE_F32 | SCAN_TYPE_I32, 0)                                    \
    X(SCAN_LOOKBACK_STAGED, "lookback_staged", SCAN_TYPES_ALL, 1)          \
    X(SCAN_LOOKBACK_PAIRED, "lookback_paired", SCAN_TYPE_I64, 1)           \
    X(SCAN_LOOKBACK_RAKED, "lookback_raked", SCAN_TYPES_ALL, 1)

typedef struct {
    scan_device_algo algo;
    const char *name;
    int bench_types;     /* SCAN_TYPE_ bits */
    int big_tile;        /* the staged, paired and raked tiles of 64 KiB */
} scan_device_variant;
#define SCAN_DEVICE_ROW(algo, name, types, big) {algo, name, types, big},
static const scan_device_variant scan_device_variants[] = {
    SCAN_DEVICE_VARIANTS(SCAN_DEVICE_ROW)};
#undef SCAN_DEVICE_ROW
#define SCAN_NDEVICE                                                       \
    (sizeof scan_device_variants / sizeof scan_device_variants[0])
#endif
