// digit_lookback.cuh -- 256 counts a tile, and the look-back over them.
#ifndef SORT_DIGIT_LOOKBACK_CUH
#define SORT_DIGIT_LOOKBACK_CUH
#include "scan/tile_status.cuh"

// <<A digit's status word>>
// Two flag bits, then 30 bits of count; 0: not yet published.
enum : unsigned { kDigitAggregate = 1u << 30, kDigitPrefix = 2u << 30,
                  kDigitCount = (1u << 30) - 1u };
#define SORT_PORTION ((size_t)1 << 28)    // keys of one look-back

// <<Look back for a digit's keys in the tiles before>>
// The keys of digit d in tiles 0 .. tile - 1 of status (tiles x
// kRadix words, zeroed); publishes tile's own count first, its prefix
// after.
__device__ __forceinline__ unsigned digit_lookback(unsigned *status,
                                                   unsigned tile,
                                                   unsigned d,
                                                   unsigned count)
{
    dev_atomic<unsigned> mine(status[(size_t)tile * kRadix + d]);
    if (tile == 0) {
        mine.store(kDigitPrefix | count, cuda::memory_order_relaxed);
        return 0;
    }
    mine.store(kDigitAggregate | count, cuda::memory_order_relaxed);
    unsigned before = 0;
    for (unsigned j = tile - 1;; j--) {
        dev_atomic<unsigned> w(status[(size_t)j * kRadix + d]);
        unsigned v;
        while ((v = w.load(cuda::memory_order_relaxed)) == 0) {
        }
        before += v & kDigitCount;
        if (v & kDigitPrefix) break;
    }
    mine.store(kDigitPrefix | (before + count), cuda::memory_order_relaxed);
    return before;
}
#endif
