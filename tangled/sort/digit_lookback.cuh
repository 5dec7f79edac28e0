// digit_lookback.cuh -- 256 counts a tile, and the look-back over them.
#ifndef SORT_DIGIT_LOOKBACK_CUH
#define SORT_DIGIT_LOOKBACK_CUH
#include "common/atomic.cuh"
#include "sort/policy.cuh"

// <<A digit's status word>>
// Two flag bits, then 30 bits of count; 0: not yet published.
enum : unsigned { kDigitAggregate = 1u << 30, kDigitPrefix = 2u << 30,
                  kDigitCount = (1u << 30) - 1u };
#define SORT_PORTION ((size_t)1 << 28)    // keys of one look-back

// <<Look back for a digit's keys in the tiles before>>
// The keys of digit d in tiles 0 .. tile - 1 of status (tiles x
// kRadix words, zeroed); publishes tile's own count first, its prefix
// after.  Reads the words of W tiles at once.
template <int W>
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
    bool done = false;
    for (long long j = (long long)tile - 1; !done; j -= W) {
        unsigned v[W];
#pragma unroll
        for (int w = 0; w < W; w++)          // tile 0's prefix stops us
            v[w] = j - w < 0 ? kDigitPrefix : dev_atomic<unsigned>(
                status[(size_t)(j - w) * kRadix + d]).load(
                cuda::memory_order_relaxed);
#pragma unroll
        for (int w = 0; w < W; w++) {
            if (done) break;
            dev_atomic<unsigned> word(status[(size_t)(j - w) * kRadix + d]);
            while (v[w] == 0) v[w] = word.load(cuda::memory_order_relaxed);
            before += v[w] & kDigitCount;
            done = (v[w] & kDigitPrefix) != 0;
        }
    }
    mine.store(kDigitPrefix | (before + count), cuda::memory_order_relaxed);
    return before;
}
#endif
