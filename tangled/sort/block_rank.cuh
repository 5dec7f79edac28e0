// block_rank.cuh -- stable ranks of the digits of a tile of keys.
#ifndef SORT_BLOCK_RANK_CUH
#define SORT_BLOCK_RANK_CUH
#include "sort/policy.cuh"
#include "scan/warp_scan.cuh"

// <<Find the lanes that hold the same digit>>
// How a warp finds the lanes that hold the same digit: one match
// instruction, or nine ballots over the digit's bits.
enum class Peers { match, ballot };
// The mask of the warp's lanes whose d equals this lane's (d <= 256).
template <Peers HOW>
__device__ __forceinline__ unsigned digit_peers(unsigned d)
{
    if (HOW == Peers::match) return __match_any_sync(0xffffffffu, d);
    unsigned peers = 0xffffffffu;
#pragma unroll
    for (int b = 0; b <= kRadixBits; b++) {
        const unsigned on = __ballot_sync(0xffffffffu, (d >> b) & 1u);
        peers &= (d >> b) & 1u ? on : ~on;
    }
    return peers;
}

// <<Rank a warp's keys by their digits>>
// Item j's digit: (key >> shift) mod 256, or 256 when bit j of valid is
// clear (past the end: neither ranked nor counted).
template <typename U>
__device__ __forceinline__ unsigned key_digit(U key, unsigned shift,
                                              unsigned valid, int j)
{
    return (valid >> j) & 1u ? (unsigned)(key >> shift) % kRadix
                             : (unsigned)kRadix;
}
// rank[j] = the keys of item j's digit before item j in the warp's
// order 32 j + lane; count[d] (shared, zeroed) ends as the warp's count
// of d.
template <int ITEMS, Peers HOW, typename U>
__device__ __forceinline__ void warp_rank(const U (&key)[ITEMS],
                                          unsigned shift, unsigned valid,
                                          unsigned (&rank)[ITEMS],
                                          unsigned *count)
{
    const unsigned below = (1u << (threadIdx.x % 32)) - 1u;  // lower lanes
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        const unsigned d = key_digit(key[j], shift, valid, j);
        const unsigned peers = digit_peers<HOW>(d);
        const unsigned so_far = d < kRadix ? count[d] : 0u;
        rank[j] = so_far + __popc(peers & below);
        __syncwarp();
        if (d < kRadix && (peers & below) == 0)        // the lowest peer
            count[d] = so_far + __popc(peers);
        __syncwarp();
    }
}

// <<Rank a tile's keys by their digits>>
// Ranks in the tile, a permutation of 0 .. (keys in the tile) - 1;
// count[d] and start[d]: the tile's keys of digit d and where they start.
// warp_count: shared, WARPS x kRadix, zeroed.  THREADS >= kRadix.
template <int THREADS, int ITEMS, Peers HOW, typename U>
__device__ void tile_rank(const U (&key)[ITEMS], unsigned shift,
                          unsigned valid, unsigned (&rank)[ITEMS],
                          unsigned *warp_count, unsigned *count,
                          unsigned *start)
{
    static_assert(ITEMS <= 32 && THREADS >= kRadix && THREADS % 32 == 0,
                  "valid is a 32-bit mask; a thread a digit; whole warps");
    const unsigned t = threadIdx.x, warp = t / 32;
    unsigned *mine = warp_count + warp * kRadix;
    warp_rank<ITEMS, HOW>(key, shift, valid, rank, mine);
    __syncthreads();
    // <<Scan each digit's counts over the warps, then over the digits>>
    unsigned total = 0, inclusive = 0;
    if (t < kRadix) {
        for (int w = 0; w < THREADS / 32; w++) {       // warps' starts in t
            const unsigned c = warp_count[w * kRadix + t];
            warp_count[w * kRadix + t] = total;
            total += c;
        }
        count[t] = total;
        inclusive = scan_warp_inclusive(total);
        if (t % 32 == 31) start[t / 32] = inclusive;   // eight warps' totals
    }
    __syncthreads();
    unsigned before = 0;
    if (t < kRadix)
        for (unsigned w = 0; w < t / 32; w++) before += start[w];
    __syncthreads();
    if (t < kRadix) start[t] = before + inclusive - total;
    __syncthreads();
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        const unsigned d = key_digit(key[j], shift, valid, j);
        if (d < kRadix) rank[j] += start[d] + mine[d];
    }
}
#endif
