// device_scan.cuh -- the kernels of the device-wide scans.
#ifndef SCAN_DEVICE_SCAN_CUH
#define SCAN_DEVICE_SCAN_CUH
#include <cuda_pipeline.h>
#include "scan/tile_status.cuh"
#include "scan/tiles.cuh"
#include "scan/warp_scan.cuh"

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

// <<Single-pass scan of a staged tile>>
__device__ __forceinline__ size_t take_tile_number(unsigned long long *next)
{
    __shared__ unsigned long long id;
    if (threadIdx.x == 0) id = atomicAdd(next, 1ull);
    __syncthreads();
    return id;
}

template <typename T, Status STATUS>
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
    st_prefixes<STATUS>(buf, base, tile, st, [](T v, size_t) { return v; },
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
        const T prefix = look_back<Status::packed>(st, tile, aggregate);
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
#endif
