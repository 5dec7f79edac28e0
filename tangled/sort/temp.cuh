// temp.cuh -- the sort's temporary storage, and its argument checks.
#ifndef SORT_TEMP_CUH
#define SORT_TEMP_CUH
#include <limits.h>
#include "common/book.h"
#include "scan/scan.h"
#include "scan/scratch.cuh"                 // scan_align: 256-byte rounding
#include "sort/policy.cuh"
#include "sort/digit_lookback.cuh"

// <<The regions of the sort's temporary storage>>
struct sort_temp {
    void *keys, *values;
    unsigned long long *hist;        // [passes][kRadix], and the
    size_t hist_bytes;               // counters after it, zeroed together
    unsigned long long *start;       // [portions][passes][kRadix]
    unsigned *counters;              // [portions][passes]
    unsigned *status;                // [tiles of a portion][kRadix]
    int *table;                      // textbook: counts, then their scan
    void *scan;                      // textbook: scan_i32's scratch
    size_t scan_bytes, total;
};

// <<Lay out the sort's temporary storage>>
static inline sort_temp sort_layout(uintptr_t base, size_t n, size_t kb,
                                    int values)
{
    sort_temp t;
    const size_t portions = ceil_div(n, SORT_PORTION), passes = kb;
    const size_t cells = portions * passes * kRadix;
    const size_t in_portion = n < SORT_PORTION ? n : SORT_PORTION;
    const size_t tile = kb == 4 ? (size_t)kSmallestTile4
                                : (size_t)kSmallestTile8;
    const size_t tiles = ceil_div(in_portion, tile);
    const size_t table = kb == 4 && !values && n <= INT_MAX
                             ? 2 * kRadix * ceil_div(n, tile) * 4 : 0;
    size_t at = 0;
    t.keys = (void *)(base + at);            at += scan_align(n * kb);
    t.values = (void *)(base + at);          at += scan_align(values ? 4 * n
                                                                   : 0);
    t.hist = (unsigned long long *)(base + at);
    t.counters = (unsigned *)(t.hist + passes * kRadix);
    t.hist_bytes = 8 * passes * kRadix + 4 * portions * passes;
    at += scan_align(t.hist_bytes);
    t.start = (unsigned long long *)(base + at);  at += scan_align(8 * cells);
    t.status = (unsigned *)(base + at);      at += scan_align(4 * kRadix *
                                                                   tiles);
    t.table = (int *)(base + at);            at += scan_align(table);
    t.scan = (void *)(base + at);
    t.scan_bytes = table ? scan_scratch_bytes(table / 8, 4) : 0;
    t.total = at + t.scan_bytes;
    return t;
}

// <<Check a radix sort's arguments>>
static inline cudaError_t sort_check(const void *kin, const void *kout,
                                     const void *vin, const void *vout,
                                     size_t n, size_t kb, void *temp,
                                     size_t bytes, sort_temp *t)
{
    if (n > SORT_MAX_N) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    const int pairs = vin != NULL;
    *t = sort_layout((uintptr_t)temp, n, kb, pairs);
    if (!kin || !kout || !temp || bytes < t->total ||
        !is_aligned(kin, kb) || !is_aligned(kout, kb) ||
        !is_aligned(temp, 256))
        return cudaErrorInvalidValue;
    const size_t kbytes = n * kb, vbytes = 4 * n;
    if ((kin != kout && ranges_overlap(kin, kbytes, kout, kbytes)) ||
        ranges_overlap(kin, kbytes, temp, bytes) ||
        ranges_overlap(kout, kbytes, temp, bytes))
        return cudaErrorInvalidValue;
    if (pairs && (!vout || !is_aligned(vin, 4) || !is_aligned(vout, 4) ||
                  (vin != vout &&
                   ranges_overlap(vin, vbytes, vout, vbytes)) ||
                  ranges_overlap(vin, vbytes, temp, bytes) ||
                  ranges_overlap(vout, vbytes, temp, bytes) ||
                  ranges_overlap(vin, vbytes, kin, kbytes) ||
                  ranges_overlap(vin, vbytes, kout, kbytes) ||
                  ranges_overlap(vout, vbytes, kin, kbytes) ||
                  ranges_overlap(vout, vbytes, kout, kbytes)))
        return cudaErrorInvalidValue;
    return cudaSuccess;
}
#endif
