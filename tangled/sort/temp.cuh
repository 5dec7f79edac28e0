// temp.cuh -- the sort's temporary storage, and its argument checks.
#ifndef SORT_TEMP_CUH
#define SORT_TEMP_CUH
#include <limits.h>
#include "common/book.h"
#include "common/carve.h"
#include "scan/scan.h"
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
// textbook != 0: with the textbook sorts' table and scan scratch, last,
// so that the layout without them is a prefix of the layout with them.
static inline sort_temp sort_layout(book_carve *c, size_t n, size_t kb,
                                    int values, int textbook)
{
    sort_temp t;
    const size_t portions = ceil_div(n, SORT_PORTION), passes = kb;
    const size_t cells = portions * passes * kRadix;
    const size_t in_portion = n < SORT_PORTION ? n : SORT_PORTION;
    const size_t tile = kb == 4 ? (size_t)kSmallestTile4
                                : (size_t)kSmallestTile8;
    const size_t tiles = ceil_div(in_portion, tile);
    const size_t table = textbook && kb == 4 && !values && n <= INT_MAX
                             ? 2 * kRadix * ceil_div(n, tile) * 4 : 0;
    t.keys = book_carve_take(c, n * kb, 256);
    t.values = book_carve_take(c, values ? 4 * n : 0, 256);
    t.hist_bytes = 8 * passes * kRadix + 4 * portions * passes;
    t.hist = (unsigned long long *)book_carve_take(c, t.hist_bytes, 256);
    t.counters = t.hist ? (unsigned *)(t.hist + passes * kRadix) : NULL;
    t.start = (unsigned long long *)book_carve_take(c, 8 * cells, 256);
    t.status = (unsigned *)book_carve_take(c, 4 * kRadix * tiles, 256);
    t.table = (int *)book_carve_take(c, table, 256);
    t.scan_bytes = table ? scan_scratch_bytes(table / 8, 4) : 0;
    t.scan = book_carve_take(c, t.scan_bytes, 256);
    t.total = book_carve_size(c);
    return t;
}

// <<Check a radix sort's arguments>>
static inline cudaError_t sort_check(const void *kin, const void *kout,
                                     const void *vin, const void *vout,
                                     size_t n, size_t kb, int textbook,
                                     void *temp, size_t bytes, sort_temp *t)
{
    if (n > SORT_MAX_N) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    const int pairs = vin != NULL;
    book_carve c = {(char *)temp, 0, 0};
    *t = sort_layout(&c, n, kb, pairs, textbook);
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
