// tile_status.cuh -- tiles' status words and the decoupled look-back.
#ifndef SCAN_TILE_STATUS_CUH
#define SCAN_TILE_STATUS_CUH
#include <cuda/atomic>
#include <cuda/std/type_traits>
#include <stddef.h>
#include "common/atomic.cuh"
#include "scan/warp_scan.cuh"

// <<Tile status for decoupled look-back>>
enum : unsigned { kTileInvalid = 0, kTileAggregate = 1, kTilePrefix = 2 };
// A tile's flag and value apart, or packed: one word with the value for
// 32-bit values, a pair of words for 64-bit ones (both below).
enum class Status { apart, packed };
template <typename T> struct tile_status {
    unsigned *flag;               // per tile; zeroed before every launch
    T *aggregate;                 // per tile: its own sum
    T *inclusive;                 // per tile: its sum and all before it
    unsigned long long *word;     // per tile, packed variant (see below)
    unsigned long long *next;     // the next tile number to hand out
};
template <typename T>
__device__ void publish(const tile_status<T> &st, size_t tile, unsigned f,
                        T value)
{
    T *slot = f == kTilePrefix ? st.inclusive + tile : st.aggregate + tile;
    dev_atomic<T>(*slot).store(value, cuda::memory_order_relaxed);
    dev_atomic<unsigned>(st.flag[tile]).store(f, cuda::memory_order_release);
}

// <<Paired status words for 64-bit values>>
// Two relaxed 64-bit accesses at device scope in one 16-byte instruction
// (PTX ISA 9.0, "Memory Operations on Vector Data Types": a vector access
// is its elements' scalar accesses, in some order).  p: global memory,
// 16-byte aligned.
__device__ __forceinline__ void st_pair(unsigned long long *p,
                                        unsigned long long a,
                                        unsigned long long b)
{
    asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};"
                 :: "l"(__cvta_generic_to_global(p)), "l"(a), "l"(b)
                 : "memory");
}
__device__ __forceinline__ void ld_pair(const unsigned long long *p,
                                        unsigned long long &a,
                                        unsigned long long &b)
{
    asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];"
                 : "=l"(a), "=l"(b) : "l"(__cvta_generic_to_global(p))
                 : "memory");
}
// Word 2t: the flag, then the value's low half; word 2t + 1: the flag,
// then its high half.
template <typename T>
__device__ void publish_pair(const tile_status<T> &st, size_t tile,
                             unsigned f, T value)
{
    static_assert(sizeof(T) == 8, "paired words carry 64-bit values");
    // The casts here and in the wait convert values, not bits: a double
    // would be truncated, so only integers may take this path.
    static_assert(cuda::std::is_integral<T>::value,
                  "paired words carry 64-bit integers");
    const unsigned long long u = (unsigned long long)value;
    const unsigned long long flag = (unsigned long long)f << 32;
    st_pair(st.word + 2 * tile, flag | (u & 0xffffffffull), flag | (u >> 32));
}

// <<Packed status words for 32-bit values>>
__device__ __forceinline__ unsigned as_bits(float v)
{
    return __float_as_uint(v);
}
__device__ __forceinline__ unsigned as_bits(int v) { return (unsigned)v; }
__device__ __forceinline__ void from_bits(unsigned u, float &v)
{
    v = __uint_as_float(u);
}
__device__ __forceinline__ void from_bits(unsigned u, int &v) { v = (int)u; }

template <Status STATUS, typename T>
__device__ void publish_status(const tile_status<T> &st, size_t tile,
                               unsigned f, T value)
{
    if constexpr (STATUS == Status::packed && sizeof(T) == 8) {
        publish_pair(st, tile, f, value);       // section on paired words
    } else if constexpr (STATUS == Status::packed) {
        const unsigned long long w = f * 0x100000000ull + as_bits(value);
        dev_atomic<unsigned long long>(st.word[tile])
            .store(w, cuda::memory_order_relaxed);
    } else {
        publish(st, tile, f, value);
    }
}

// <<Look back for a tile's exclusive prefix>>
template <Status STATUS, typename T>
__device__ __forceinline__ T look_back(const tile_status<T> &st, size_t tile,
                                      T aggregate)
{
    const unsigned lane = threadIdx.x % 32;
    if (tile == 0) {
        if (lane == 0)
            publish_status<STATUS>(st, 0, kTilePrefix, aggregate);
        return T(0);
    }
    if (lane == 0)
        publish_status<STATUS>(st, tile, kTileAggregate, aggregate);
    T prefix = T(0);
    long long pred = (long long)tile - 1 - lane;   // the tile I inspect
    for (;;) {
        unsigned f = kTilePrefix;
        T v = T(0);
        if (pred >= 0) {
            // <<Wait for a predecessor's status and read its value>>
            if constexpr (STATUS == Status::packed && sizeof(T) == 8) {
                // <<Wait for a predecessor's paired status words>>
                unsigned long long a, b;
                ld_pair(st.word + 2 * pred, a, b);
                while (a < 0x100000000ull || (a >> 32) != (b >> 32)) {
                    __nanosleep(256);                 // let L2 serve the tiles' bytes
                    ld_pair(st.word + 2 * pred, a, b);
                }
                f = (unsigned)(a >> 32);
                v = (T)((a & 0xffffffffull) | (b << 32));  // T: an integer (publish_pair)
            } else if constexpr (STATUS == Status::packed) {
                // <<Wait for a predecessor's packed status word>>
                dev_atomic<unsigned long long> word(st.word[pred]);
                unsigned long long w;
                while ((w = word.load(cuda::memory_order_relaxed)) < 0x100000000ull) {
                }
                f = (unsigned)(w >> 32);
                from_bits((unsigned)w, v);
            } else {
                dev_atomic<unsigned> flag(st.flag[pred]);
                while ((f = flag.load(cuda::memory_order_acquire)) == kTileInvalid) {
                }
                T *src = f == kTilePrefix ? st.inclusive : st.aggregate;
                v = dev_atomic<T>(src[pred]).load(cuda::memory_order_relaxed);
            }
        }
        const unsigned done = __ballot_sync(0xffffffffu, f == kTilePrefix);
        const unsigned stop = done ? __ffs(done) - 1 : 31;
        prefix += scan_warp_total(lane <= stop ? v : T(0));
        if (done) break;
        pred -= 32;
    }
    if (lane == 0) publish_status<STATUS>(st, tile, kTilePrefix,
                                          prefix + aggregate);
    return prefix;
}
#endif
