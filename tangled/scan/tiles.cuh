// tiles.cuh -- the register, staged and raked tiles: layout, copy, scan.
#ifndef SCAN_TILES_CUH
#define SCAN_TILES_CUH
#include <cuda_pipeline.h>
#include "common/book.h"
#include "common/once_per_device.cuh"
#include "scan/scan.h"
#include "scan/tile_status.cuh"
#include "scan/warp_scan.cuh"

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
        } else if constexpr (MODE == kPrefixLookBackPacked) {
            prefix = look_back<Status::packed>(c.st, tile, aggregate);
        } else {
            prefix = look_back<Status::apart>(c.st, tile, aggregate);
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

template <Status STATUS, typename S, typename T, typename F>
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
        const S prefix = look_back<STATUS>(st, tile, aggregate);
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
#endif
