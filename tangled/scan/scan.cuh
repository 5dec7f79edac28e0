// scan.cuh -- the device-wide scans as templates (used by
// the compaction chapter as well).  Include from CUDA C++ only.
#ifndef SCAN_CUH
#define SCAN_CUH
#include <cuda/atomic>
#include <cuda/std/type_traits>
#include <cuda_pipeline.h>
#include "common/book.h"
#include "common/per_device.cuh"
#include "scan/scan.h"

// <<Warp-shuffle inclusive scan>>
template <typename T>
__device__ __forceinline__ T scan_warp_inclusive(T x)
{
    const unsigned lane = threadIdx.x % 32;
#pragma unroll
    for (unsigned d = 1; d < 32; d *= 2) {
        T y = __shfl_up_sync(0xffffffffu, x, d);
        if (lane >= d) x += y;
    }
    return x;
}

// <<Warp-shuffle total>>
template <typename T>
__device__ __forceinline__ T scan_warp_total(T v)
{
#pragma unroll
    for (int d = 16; d > 0; d /= 2) v += __shfl_xor_sync(0xffffffffu, v, d);
    return v;
}

// <<Device-wide scan constants>>
constexpr int kDevThreads = 256;               // threads per tile
constexpr int kDevWarps = kDevThreads / 32;
constexpr int kDevRounds = 4;                  // 16-byte vectors a thread
static_assert(kDevWarps * kDevRounds == 32, "one warp scans warp totals");
static_assert(kDevThreads * kDevRounds * 16 == SCAN_DEVICE_TILE_BYTES,
              "the tile size the header promises");
template <typename T> struct dev_tile {
    static constexpr int vec = 16 / sizeof(T);   // elements a vector
    static constexpr size_t elems = (size_t)kDevThreads * kDevRounds * vec;
};
template <typename T> struct alignas(16) vec16 { T v[16 / sizeof(T)]; };
static const size_t kScanMaxGrid = 2147483647u;  // 2^31 - 1 blocks

// <<Load and store a tile of sixteen-byte vectors>>
// Index of element 0 of vector r of this thread, in the whole array.
template <typename T>
__device__ __forceinline__ size_t dev_elem(size_t base, int r)
{
    return base + ((size_t)r * kDevThreads + threadIdx.x) * dev_tile<T>::vec;
}

template <typename T, int V>
__device__ __forceinline__ void dev_load(const T *in, size_t n, size_t base,
                                         bool vec, T (&x)[kDevRounds][V],
                                         T fill)
{
#pragma unroll
    for (int r = 0; r < kDevRounds; r++) {
        const size_t i = dev_elem<T>(base, r);
        if (vec) {
            const vec16<T> q = *(const vec16<T> *)(in + i);
#pragma unroll
            for (int k = 0; k < V; k++) x[r][k] = q.v[k];
        } else {
#pragma unroll
            for (int k = 0; k < V; k++)
                x[r][k] = i + k < n ? in[i + k] : fill;
        }
    }
}

template <typename T, int V>
__device__ __forceinline__ void dev_store(T *out, size_t n, size_t base,
                                          bool vec,
                                          const T (&x)[kDevRounds][V])
{
#pragma unroll
    for (int r = 0; r < kDevRounds; r++) {
        const size_t i = dev_elem<T>(base, r);
        if (vec) {
            vec16<T> q;
#pragma unroll
            for (int k = 0; k < V; k++) q.v[k] = x[r][k];
            *(vec16<T> *)(out + i) = q;
        } else {
#pragma unroll
            for (int k = 0; k < V; k++)
                if (i + k < n) out[i + k] = x[r][k];
        }
    }
}

// <<Tile status for decoupled look-back>>
enum : unsigned { kTileInvalid = 0, kTileAggregate = 1, kTilePrefix = 2 };
template <typename T> struct tile_status {
    unsigned *flag;               // per tile; zeroed before every launch
    T *aggregate;                 // per tile: its own sum
    T *inclusive;                 // per tile: its sum and all before it
    unsigned long long *word;     // per tile, packed variant (see below)
    unsigned long long *next;     // the next tile number to hand out
};
template <typename U>
using dev_atomic = cuda::atomic_ref<U, cuda::thread_scope_device>;

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

template <bool PACKED, typename T>
__device__ void publish_status(const tile_status<T> &st, size_t tile,
                               unsigned f, T value)
{
    if constexpr (PACKED && sizeof(T) == 8) {
        publish_pair(st, tile, f, value);       // section on paired words
    } else if constexpr (PACKED) {
        const unsigned long long w = f * 0x100000000ull + as_bits(value);
        dev_atomic<unsigned long long>(st.word[tile])
            .store(w, cuda::memory_order_relaxed);
    } else {
        publish(st, tile, f, value);
    }
}

// <<Look back for a tile's exclusive prefix>>
template <bool PACKED, typename T>
__device__ __forceinline__ T look_back(const tile_status<T> &st, size_t tile,
                                      T aggregate)
{
    const unsigned lane = threadIdx.x % 32;
    if (tile == 0) {
        if (lane == 0)
            publish_status<PACKED>(st, 0, kTilePrefix, aggregate);
        return T(0);
    }
    if (lane == 0)
        publish_status<PACKED>(st, tile, kTileAggregate, aggregate);
    T prefix = T(0);
    long long pred = (long long)tile - 1 - lane;   // the tile I inspect
    for (;;) {
        unsigned f = kTilePrefix;
        T v = T(0);
        if (pred >= 0) {
            // <<Wait for a predecessor's status and read its value>>
            if constexpr (PACKED && sizeof(T) == 8) {
                // <<Wait for a predecessor's paired status words>>
                unsigned long long a, b;
                ld_pair(st.word + 2 * pred, a, b);
                while (a < 0x100000000ull || (a >> 32) != (b >> 32)) {
                    __nanosleep(256);                 // let L2 serve the tiles' bytes
                    ld_pair(st.word + 2 * pred, a, b);
                }
                f = (unsigned)(a >> 32);
                v = (T)((a & 0xffffffffull) | (b << 32));  // T: an integer (publish_pair)
            } else if constexpr (PACKED) {
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
    if (lane == 0) publish_status<PACKED>(st, tile, kTilePrefix,
                                          prefix + aggregate);
    return prefix;
}

// <<Scan one tile of the device-wide scan>>
enum { kPrefixNone, kPrefixSeeded, kPrefixLookBack, kPrefixLookBackPacked };
template <typename T> struct tile_ctx {
    T *sums;            // kPrefixNone: each tile's aggregate, or null
    const T *seeds;     // kPrefixSeeded: each tile's exclusive prefix
    tile_status<T> st;  // kPrefixLookBack: the tiles' published status
};

// Scans the tile in x (see dev_elem for the layout); returns the sum of
// the tile and everything before it.
template <int MODE, typename T, int V>
__device__ T scan_tile(T (&x)[kDevRounds][V], size_t tile,
                       const tile_ctx<T> &c, bool exclusive)
{
    __shared__ T sh[33];
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    T before[kDevRounds];        // this warp's lanes below mine, per round
    // <<Scan each vector and each warp>>
    #pragma unroll
    for (int r = 0; r < kDevRounds; r++) {
    #pragma unroll
        for (int k = 1; k < V; k++) x[r][k] += x[r][k - 1];
        const T w = scan_warp_inclusive(x[r][V - 1]);
        const T below = __shfl_up_sync(0xffffffffu, w, 1);
        before[r] = lane > 0 ? below : T(0);
        if (lane == 31) sh[r * kDevWarps + warp] = w;
    }
    __syncthreads();
    if (warp == 0) {
        // <<Scan the warp totals and find the tile's prefix>>
        const T mine = sh[lane];
        const T incl = scan_warp_inclusive(mine);
        const T aggregate = __shfl_sync(0xffffffffu, incl, 31);
        T prefix = T(0);
        if constexpr (MODE == kPrefixNone) {
            if (lane == 0 && c.sums) c.sums[tile] = aggregate;
        } else if constexpr (MODE == kPrefixSeeded) {
            prefix = c.seeds[tile];
        } else {
            prefix = look_back<MODE == kPrefixLookBackPacked>(c.st, tile, aggregate);
        }
        const T below = __shfl_up_sync(0xffffffffu, incl, 1);
        sh[lane] = lane > 0 ? prefix + below : prefix;
        if (lane == 0) sh[32] = prefix + aggregate;
    }
    __syncthreads();
    // <<Add the prefixes to each element>>
    #pragma unroll
    for (int r = 0; r < kDevRounds; r++) {
        const T p = sh[r * kDevWarps + warp] + before[r];
        if (exclusive) {
    #pragma unroll
            for (int k = V - 1; k > 0; k--) x[r][k] = p + x[r][k - 1];
            x[r][0] = p;
        } else {
    #pragma unroll
            for (int k = 0; k < V; k++) x[r][k] = p + x[r][k];
        }
    }
    return sh[32];
}

// <<Device-wide scan kernels>>
template <int MODE, typename T>
__global__ void __launch_bounds__(kDevThreads)
scan_device_kernel(const T *in, T *out, size_t n, bool exclusive,
                   bool aligned, tile_ctx<T> c)
{
    __shared__ unsigned long long tile_sh;
    size_t tile = blockIdx.x;
    if constexpr (MODE >= kPrefixLookBack) {
        if (threadIdx.x == 0) tile_sh = atomicAdd(c.st.next, 1ull);
        __syncthreads();
        tile = tile_sh;
    }
    const size_t base = tile * dev_tile<T>::elems;
    const bool vec = aligned && base + dev_tile<T>::elems <= n;
    T x[kDevRounds][dev_tile<T>::vec];
    dev_load(in, n, base, vec, x, T(0));
    scan_tile<MODE>(x, tile, c, exclusive);
    dev_store(out, n, base, vec, x);
}
template <typename T>
__global__ void __launch_bounds__(kDevThreads)
reduce_tiles_kernel(const T *in, size_t n, bool aligned, T *sums)
{
    __shared__ T warp_sums[kDevWarps];
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const size_t base = blockIdx.x * dev_tile<T>::elems;
    const bool vec = aligned && base + dev_tile<T>::elems <= n;
    T x[kDevRounds][dev_tile<T>::vec], s = T(0);
    dev_load(in, n, base, vec, x, T(0));
    for (int r = 0; r < kDevRounds; r++)
        for (int k = 0; k < dev_tile<T>::vec; k++) s += x[r][k];
    s = scan_warp_total(s);
    if (lane == 0) warp_sums[warp] = s;
    __syncthreads();
    if (warp == 0) {
        s = scan_warp_total(lane < kDevWarps ? warp_sums[lane] : T(0));
        if (lane == 0) sums[blockIdx.x] = s;
    }
}

template <typename T>
__global__ void __launch_bounds__(kDevThreads)
add_tile_prefix_kernel(T *out, size_t n, bool aligned, const T *prefix)
{
    if (blockIdx.x == 0) return;          // its prefix is zero
    const size_t base = blockIdx.x * dev_tile<T>::elems;
    const bool vec = aligned && base + dev_tile<T>::elems <= n;
    T x[kDevRounds][dev_tile<T>::vec];
    dev_load((const T *)out, n, base, vec, x, T(0));
    const T p = prefix[blockIdx.x];
    for (int r = 0; r < kDevRounds; r++)
        for (int k = 0; k < dev_tile<T>::vec; k++) x[r][k] += p;
    dev_store(out, n, base, vec, x);
}

// <<Hand out tile numbers in order, one ahead>>
// Calls process(tile) for tile numbers taken from *next in the order the
// blocks ask for them, until they pass `tiles`.  The number of the next
// tile is fetched while the current one is processed.
template <typename F>
__device__ void for_each_tile_in_order(unsigned long long *next,
                                       size_t tiles, F &&process)
{
    __shared__ unsigned long long id[2];
    if (threadIdx.x == 0) id[0] = atomicAdd(next, 1ull);
    __syncthreads();
    for (int b = 0;; b ^= 1) {
        const size_t tile = id[b];
        if (tile >= tiles) break;
        if (threadIdx.x == 0) id[b ^ 1] = atomicAdd(next, 1ull);
        process(tile);
        __syncthreads();      // id[b ^ 1] is visible; shared memory reusable
    }
}

// <<Single-pass scan with tile numbers fetched ahead>>

// <<Blocks an SM, capped by the threads the architecture holds>>
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
constexpr int kSmThreads = 1024;                       // sm_75
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ != 800 && __CUDA_ARCH__ < 900
constexpr int kSmThreads = 1536;                       // sm_86, sm_87, sm_89
#else
constexpr int kSmThreads = 2048;                       // sm_80, sm_90
#endif
constexpr int min_blocks(int threads, int want)
{
    return threads * want <= kSmThreads ? want : kSmThreads / threads;
}
template <typename T>
__global__ void __launch_bounds__(kDevThreads, min_blocks(kDevThreads, 6))
scan_ahead_kernel(const T *in, T *out, size_t n, bool exclusive,
                  bool aligned, tile_ctx<T> c)
{
    constexpr size_t E = dev_tile<T>::elems;
    const size_t tiles = n / E + (n % E != 0);
    for_each_tile_in_order(c.st.next, tiles, [&](size_t tile) {
        const size_t base = tile * E;
        const bool vec = aligned && base + E <= n;
        T x[kDevRounds][dev_tile<T>::vec];
        dev_load(in, n, base, vec, x, T(0));
        scan_tile<kPrefixLookBackPacked>(x, tile, c, exclusive);
        dev_store(out, n, base, vec, x);
    });
}

// <<Scratch layout of the device-wide scans>>
static inline size_t scan_align(size_t bytes)
{
    return ceil_div(bytes, 256) * 256;
}

// Bytes for the tile totals of every level of a recursive scan.
template <typename T> size_t scan_levels_bytes(size_t n)
{
    size_t bytes = 0;
    while (n > dev_tile<T>::elems) {
        n = ceil_div(n, dev_tile<T>::elems);
        bytes += scan_align(n * sizeof(T));
    }
    return bytes;
}
// [next, 16 bytes | flags or packed words, 8 bytes a tile]
// [aggregates] [inclusive prefixes], each slice 256-byte aligned.
template <typename T> size_t scan_lookback_bytes(size_t n)
{
    const size_t tiles = ceil_div(n, dev_tile<T>::elems);
    return scan_align(16 + 8 * tiles) + 2 * scan_align(tiles * sizeof(T));
}
template <typename T> tile_status<T> lookback_status(char *scratch,
                                                     size_t n)
{
    const size_t tiles = ceil_div(n, dev_tile<T>::elems);
    const size_t head = scan_align(16 + 8 * tiles);
    const size_t vals = scan_align(tiles * sizeof(T));
    tile_status<T> st;
    st.next = (unsigned long long *)scratch;
    st.flag = (unsigned *)(scratch + 16);
    st.word = (unsigned long long *)(scratch + 16);
    st.aggregate = (T *)(scratch + head);
    st.inclusive = (T *)(scratch + head + vals);
    return st;
}
// Every launch starts with tile number 0 and every status invalid.
template <typename T> cudaError_t lookback_reset(char *scratch, size_t n)
{
    const size_t tiles = ceil_div(n, dev_tile<T>::elems);
    return cudaMemsetAsync(scratch, 0, 16 + 8 * tiles);
}

// <<Device-wide scans on the host>>
template <typename T>
cudaError_t scan_propagate(const T *in, T *out, size_t n, bool exclusive,
                           char *scratch)
{
    const size_t tiles = ceil_div(n, dev_tile<T>::elems);
    const bool aligned = is_aligned(in, 16) && is_aligned(out, 16);
    tile_ctx<T> c = {};
    c.sums = tiles > 1 ? (T *)scratch : nullptr;
    BOOK_CLEAR_TO_LAUNCH();
    scan_device_kernel<kPrefixNone, T><<<(unsigned)tiles, kDevThreads>>>(
        in, out, n, exclusive, aligned, c);
    BOOK_TRY(cudaGetLastError());
    if (tiles == 1) return cudaSuccess;
    BOOK_TRY(scan_propagate<T>(c.sums, c.sums, tiles, true,
                               scratch + scan_align(tiles * sizeof(T))));
    add_tile_prefix_kernel<T><<<(unsigned)tiles, kDevThreads>>>(
        out, n, aligned, c.sums);
    return cudaGetLastError();
}

template <typename T>
cudaError_t scan_reduce_then_scan(const T *in, T *out, size_t n,
                                  bool exclusive, char *scratch)
{
    const size_t tiles = ceil_div(n, dev_tile<T>::elems);
    if (tiles == 1) return scan_propagate(in, out, n, exclusive, scratch);
    const bool aligned = is_aligned(in, 16) && is_aligned(out, 16);
    tile_ctx<T> c = {};
    T *sums = (T *)scratch;
    BOOK_CLEAR_TO_LAUNCH();
    reduce_tiles_kernel<T><<<(unsigned)tiles, kDevThreads>>>(in, n, aligned,
                                                             sums);
    BOOK_TRY(cudaGetLastError());
    char *rest = scratch + scan_align(tiles * sizeof(T));
    BOOK_TRY(scan_reduce_then_scan<T>(sums, sums, tiles, true, rest));
    c.seeds = sums;
    scan_device_kernel<kPrefixSeeded, T><<<(unsigned)tiles, kDevThreads>>>(
        in, out, n, exclusive, aligned, c);
    return cudaGetLastError();
}
template <typename T>
cudaError_t scan_lookback(const T *in, T *out, size_t n, bool exclusive,
                          char *scratch, bool packed)
{
    const unsigned tiles = (unsigned)ceil_div(n, dev_tile<T>::elems);
    tile_ctx<T> c = {};
    c.st = lookback_status<T>(scratch, n);
    BOOK_CLEAR_TO_LAUNCH();
    BOOK_TRY(lookback_reset<T>(scratch, n));
    const bool aligned = is_aligned(in, 16) && is_aligned(out, 16);
    (void)packed;                 // 64-bit values never fit the word
    if constexpr (sizeof(T) == 4) {
        if (packed) {
            auto k = scan_device_kernel<kPrefixLookBackPacked, T>;
            k<<<tiles, kDevThreads>>>(in, out, n, exclusive, aligned, c);
            return cudaGetLastError();
        }
    }
    scan_device_kernel<kPrefixLookBack, T><<<tiles, kDevThreads>>>(
        in, out, n, exclusive, aligned, c);
    return cudaGetLastError();
}

// <<Fill the GPU once with resident blocks>>
template <typename K>
cudaError_t resident_grid(K kernel, size_t tiles, unsigned *grid)
{
    int dev, sms, per_sm;
    BOOK_TRY(cudaGetDevice(&dev));
    BOOK_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount,
                                    dev));
    BOOK_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, kernel, kDevThreads, 0));
    const size_t g = (size_t)sms * (per_sm > 0 ? per_sm : 1);
    *grid = (unsigned)(g < tiles ? g : tiles);
    return cudaSuccess;
}

// <<Launch the single pass with tile numbers fetched ahead>>
template <typename T>
cudaError_t scan_lookback_ahead(const T *in, T *out, size_t n,
                                bool exclusive, char *scratch)
{
    if constexpr (sizeof(T) != 4) {
        return scan_lookback(in, out, n, exclusive, scratch, false);
    } else {
        const size_t tiles = ceil_div(n, dev_tile<T>::elems);
        tile_ctx<T> c = {};
        c.st = lookback_status<T>(scratch, n);
        BOOK_CLEAR_TO_LAUNCH();
        BOOK_TRY(lookback_reset<T>(scratch, n));
        const bool aligned = is_aligned(in, 16) && is_aligned(out, 16);
        unsigned grid;
        BOOK_TRY(resident_grid(scan_ahead_kernel<T>, tiles, &grid));
        scan_ahead_kernel<T><<<grid, kDevThreads>>>(in, out, n, exclusive,
                                                    aligned, c);
        return cudaGetLastError();
    }
}

// <<Staged tile constants>>
constexpr int kStThreads = 256;               // threads per staged tile
constexpr int kStWarps = kStThreads / 32;
constexpr int kStRounds = 16;                 // 16-byte vectors a thread
constexpr int kStTotals = kStWarps * kStRounds;   // one a warp and round
constexpr int kStPer = kStTotals / 32;        // totals a lane of warp 0
static_assert(kStTotals % 32 == 0, "warp 0 scans kStPer totals a lane");
constexpr int kStBytes = kStThreads * kStRounds * 16;   // 64 KB
template <typename T> struct st_tile {
    static constexpr int vec = 16 / sizeof(T);
    static constexpr size_t elems = (size_t)kStThreads * kStRounds * vec;
};
extern __shared__ uint4 st_smem[];            // kStBytes at launch
template <typename T> __device__ __forceinline__ vec16<T> *st_buf()
{
    return reinterpret_cast<vec16<T> *>(st_smem);
}
// Every launch of a staged kernel asks for kStBytes of shared memory (or
// BYTES), a device that cannot give that much (sm_75 gives 64 KB in all)
// refuses it.
template <auto kernel, int BYTES = kStBytes> cudaError_t st_opt_in()
{
    static per_device<bool> done;
    bool ok;
    return once_per_device(done, [](bool *set) {
        int dev = 0, most = 0;
        cudaFuncAttributes a;
        BOOK_TRY(cudaGetDevice(&dev));
        BOOK_TRY(cudaDeviceGetAttribute(
            &most, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
        BOOK_TRY(cudaFuncGetAttributes(&a, kernel));
        if (a.sharedSizeBytes + BYTES > (size_t)most)
            return cudaErrorNotSupported;
        *set = true;
        return cudaFuncSetAttribute(
            kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, BYTES);
    }, &ok);
}
template <typename T>
__device__ __forceinline__ size_t st_elem(size_t base, int r)
{
    return base + ((size_t)r * kStThreads + threadIdx.x) * st_tile<T>::vec;
}

// <<Copy a tile into shared memory past the registers>>
template <typename T, int ROUNDS = kStRounds>
__device__ void st_load(const T *in, size_t n, size_t base, bool aligned,
                        vec16<T> *buf)
{
    const bool full = aligned && base + (size_t)ROUNDS * kStThreads *
                                                st_tile<T>::vec <= n;
#pragma unroll
    for (int r = 0; r < ROUNDS; r++) {
        const size_t i = st_elem<T>(base, r);
        vec16<T> *dst = buf + r * kStThreads + threadIdx.x;
        if (full) {
            __pipeline_memcpy_async(dst, in + i, 16);
        } else {
            vec16<T> q;
            for (int k = 0; k < st_tile<T>::vec; k++)
                q.v[k] = i + k < n ? in[i + k] : T(0);
            *dst = q;
        }
    }
    __pipeline_commit();
    __pipeline_wait_prior(0);
}

// <<Find each staged vector's prefix>>
template <typename S> struct st_sums { S prefix, total; };

template <bool PACKED, typename S, typename T, typename F>
__device__ st_sums<S> st_prefixes(const vec16<T> *buf, size_t base,
                                  size_t tile, const tile_status<S> &st,
                                  F f, S (&pre)[kStRounds])
{
    __shared__ S sh[kStTotals + 1];
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
#pragma unroll
    for (int r = 0; r < kStRounds; r++) {
        const vec16<T> q = buf[r * kStThreads + threadIdx.x];
        const size_t i = st_elem<T>(base, r);
        S t = S(0);
#pragma unroll
        for (int k = 0; k < st_tile<T>::vec; k++) t += f(q.v[k], i + k);
        const S w = scan_warp_inclusive(t);
        const S below = __shfl_up_sync(0xffffffffu, w, 1);
        pre[r] = lane > 0 ? below : S(0);
        if (lane == 31) sh[r * kStWarps + warp] = w;
    }
    __syncthreads();
    if (warp == 0) {
        // <<Scan the staged totals and look back>>
        S run[kStPer], s = S(0);
        #pragma unroll
        for (int j = 0; j < kStPer; j++) {
            s += sh[lane * kStPer + j];
            run[j] = s;
        }
        const S incl = scan_warp_inclusive(s);
        const S aggregate = __shfl_sync(0xffffffffu, incl, 31);
        const S prefix = look_back<PACKED>(st, tile, aggregate);
        const S below = __shfl_up_sync(0xffffffffu, incl, 1);
        const S first = prefix + (lane > 0 ? below : S(0));
        sh[lane * kStPer] = first;
        #pragma unroll
        for (int j = 1; j < kStPer; j++) sh[lane * kStPer + j] = first + run[j - 1];
        if (lane == 0) sh[kStTotals] = prefix + aggregate;
    }
    __syncthreads();
#pragma unroll
    for (int r = 0; r < kStRounds; r++) pre[r] += sh[r * kStWarps + warp];
    return st_sums<S>{sh[0], sh[kStTotals]};
}

// <<Single-pass scan of a staged tile>>
__device__ __forceinline__ size_t take_tile_number(unsigned long long *next)
{
    __shared__ unsigned long long id;
    if (threadIdx.x == 0) id = atomicAdd(next, 1ull);
    __syncthreads();
    return id;
}

template <typename T, bool PACKED>
__global__ void __launch_bounds__(kStThreads, 3)
scan_staged_kernel(const T *in, T *out, size_t n, bool exclusive,
                   bool aligned, tile_status<T> st)
{
    constexpr int V = st_tile<T>::vec;
    vec16<T> *buf = st_buf<T>();
    const size_t tile = take_tile_number(st.next);
    const size_t base = tile * st_tile<T>::elems;
    const bool full = aligned && base + st_tile<T>::elems <= n;
    st_load(in, n, base, aligned, buf);
    T pre[kStRounds];
    st_prefixes<PACKED>(buf, base, tile, st, [](T v, size_t) { return v; },
                        pre);
#pragma unroll
    for (int r = 0; r < kStRounds; r++) {
        vec16<T> q = buf[r * kStThreads + threadIdx.x];
        T p = pre[r];
#pragma unroll
        for (int k = 0; k < V; k++) {
            const T x = q.v[k];
            q.v[k] = exclusive ? p : p + x;
            p += x;
        }
        const size_t i = st_elem<T>(base, r);
        if (full) {
            *(vec16<T> *)(out + i) = q;
        } else {
            for (int k = 0; k < V; k++)
                if (i + k < n) out[i + k] = q.v[k];
        }
    }
}

// <<Launch the single pass on staged tiles>>
template <typename T, bool PACKED>
cudaError_t scan_lookback_staged(const T *in, T *out, size_t n,
                                 bool exclusive, char *scratch)
{
    const size_t tiles = ceil_div(n, st_tile<T>::elems);
    const tile_status<T> st = lookback_status<T>(scratch, n);
    BOOK_CLEAR_TO_LAUNCH();
    BOOK_TRY(lookback_reset<T>(scratch, n));
    const bool aligned = is_aligned(in, 16) && is_aligned(out, 16);
    constexpr auto kernel = scan_staged_kernel<T, PACKED>;
    BOOK_TRY(st_opt_in<kernel>());
    kernel<<<(unsigned)tiles, kStThreads, kStBytes>>>(in, out, n, exclusive,
                                                      aligned, st);
    return cudaGetLastError();
}

// <<Raked tile constants and layout>>
constexpr int kRkThreads = 512;               // threads per raked tile
constexpr int kRkWarps = kRkThreads / 32;
constexpr int kRkRun = 8;                     // 16-byte vectors a thread
static_assert(kRkThreads * kRkRun * 16 == kStBytes, "64 KB, as staged");
static_assert(kRkWarps <= 32, "one warp scans the warp totals");
template <typename T> struct rk_tile {
    static constexpr int vec = 16 / sizeof(T);
    static constexpr size_t elems = (size_t)kRkThreads * kRkRun * vec;
};
// The slot of vector g of the tile: row g / 8, rotated by the row number.
__device__ __forceinline__ int rk_slot(int g)
{
    const int s = g / kRkRun, j = g % kRkRun;
    return s * kRkRun + (j + s) % kRkRun;
}

// <<Single-pass scan of a raked tile>>
template <typename T>
__global__ void __launch_bounds__(kRkThreads, min_blocks(kRkThreads, 3))
scan_raked_kernel(const T *in, T *out, size_t n, bool exclusive,
                  bool aligned, tile_status<T> st)
{
    constexpr int V = rk_tile<T>::vec;
    __shared__ unsigned long long id;
    __shared__ T sh[kRkWarps];
    vec16<T> *buf = st_buf<T>();
    if (threadIdx.x == 0) id = atomicAdd(st.next, 1ull);
    __syncthreads();
    const size_t tile = id, base = tile * rk_tile<T>::elems;
    const bool full = aligned && base + rk_tile<T>::elems <= n;
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int t = threadIdx.x;
    // <<Copy a raked tile into shared memory>>
    #pragma unroll
    for (int r = 0; r < kRkRun; r++) {
        const int g = r * kRkThreads + t;
        const size_t i = base + (size_t)g * V;
        if (full) {
            __pipeline_memcpy_async(buf + rk_slot(g), in + i, 16);
        } else {
            vec16<T> q;
            for (int k = 0; k < V; k++) q.v[k] = i + k < n ? in[i + k] : T(0);
            buf[rk_slot(g)] = q;
        }
    }
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();                  // runs hold other threads' copies
    // <<Sum my run>>
    T s = T(0);
    #pragma unroll
    for (int j = 0; j < kRkRun; j++) {
        const vec16<T> q = buf[rk_slot(t * kRkRun + j)];
        T u = q.v[0];
    #pragma unroll
        for (int k = 1; k < V; k++) u += q.v[k];
        s += u;
    }
    // <<Scan the runs' sums and look back>>
    const T incl = scan_warp_inclusive(s);
    if (lane == 31) sh[warp] = incl;
    __syncthreads();
    if (warp == 0) {
        const T m = lane < kRkWarps ? sh[lane] : T(0);
        const T wi = scan_warp_inclusive(m);
        const T aggregate = __shfl_sync(0xffffffffu, wi, 31);
        const T prefix = look_back<true>(st, tile, aggregate);
        if (lane < kRkWarps) sh[lane] = prefix + (wi - m);
    }
    __syncthreads();
    // Exclusive by subtraction: exact for integers; for floats, a run or warp
    // much larger than those before it swamps their sum (exercise 9).
    T p = sh[warp] + (incl - s);      // the sum of everything before my run
    // <<Scan my run in place>>
    #pragma unroll
    for (int j = 0; j < kRkRun; j++) {
        vec16<T> &q = buf[rk_slot(t * kRkRun + j)];
        vec16<T> r = q;
    #pragma unroll
        for (int k = 0; k < V; k++) {
            const T x = r.v[k];
            r.v[k] = exclusive ? p : p + x;
            p += x;
        }
        q = r;
    }
    __syncthreads();
    // <<Store a raked tile from shared memory>>
    #pragma unroll
    for (int r = 0; r < kRkRun; r++) {
        const int g = r * kRkThreads + threadIdx.x;
        const vec16<T> q = buf[rk_slot(g)];
        const size_t i = base + (size_t)g * V;
        if (full) {
            *(vec16<T> *)(out + i) = q;
        } else {
            for (int k = 0; k < V; k++)
                if (i + k < n) out[i + k] = q.v[k];
        }
    }
}

// <<Launch the single pass on raked tiles>>
template <typename T>
cudaError_t scan_lookback_raked(const T *in, T *out, size_t n,
                                bool exclusive, char *scratch)
{
    const size_t tiles = ceil_div(n, rk_tile<T>::elems);
    const tile_status<T> st = lookback_status<T>(scratch, n);
    BOOK_CLEAR_TO_LAUNCH();
    BOOK_TRY(lookback_reset<T>(scratch, n));
    const bool aligned = is_aligned(in, 16) && is_aligned(out, 16);
    BOOK_TRY(st_opt_in<scan_raked_kernel<T>>());
    scan_raked_kernel<T><<<(unsigned)tiles, kRkThreads, kStBytes>>>(
        in, out, n, exclusive, aligned, st);
    return cudaGetLastError();
}
#endif
