// scan.cu -- the tile scans, and the launchers of the device-wide scans
// (their templates: scan.cuh).
#include "scan/scan.cuh"

// <<Write a tile from its inclusive scan in shared memory>>
// s holds the tile's inclusive scan; the caller has passed a barrier.
template <typename T>
__device__ __forceinline__ void
write_tile_from_inclusive(const T *s, T *out, size_t i, size_t n,
                          bool exclusive)
{
    const unsigned t = threadIdx.x;
    if (i < n) out[i] = !exclusive ? s[t] : t > 0 ? s[t - 1] : T(0);
}

// <<Hillis-Steele tile scan>>
template <typename T>
__global__ void __launch_bounds__(SCAN_TILE)
tiles_hs_kernel(const T *in, T *out, size_t n, bool exclusive)
{
    __shared__ T s[SCAN_TILE];
    const unsigned t = threadIdx.x;
    const size_t i = blockIdx.x * (size_t)SCAN_TILE + t;
    s[t] = i < n ? in[i] : T(0);
    __syncthreads();
    for (unsigned d = 1; d < SCAN_TILE; d *= 2) {
        T left = t >= d ? s[t - d] : T(0);
        __syncthreads();             // every read of this step is done
        s[t] += left;
        __syncthreads();             // every write of this step is done
    }
    write_tile_from_inclusive(s, out, i, n, exclusive);
}

// <<Wrong on purpose: Hillis-Steele with one barrier a step>>
template <typename T>
__global__ void __launch_bounds__(SCAN_TILE)
tiles_hs_one_barrier_kernel(const T *in, T *out, size_t n, bool exclusive)
{
    __shared__ T s[SCAN_TILE];
    const unsigned t = threadIdx.x;
    const size_t i = blockIdx.x * (size_t)SCAN_TILE + t;
    s[t] = i < n ? in[i] : T(0);
    __syncthreads();
    for (unsigned d = 1; d < SCAN_TILE; d *= 2) {
        if (t >= d) s[t] += s[t - d];     // WRONG: s[t - d] may be new
        __syncthreads();
    }
    write_tile_from_inclusive(s, out, i, n, exclusive);
}

// <<Wrong on purpose: an element index in 32 bits>>
__device__ __forceinline__ size_t tile_index_32bit(void)
{
    unsigned i = blockIdx.x * SCAN_TILE + threadIdx.x;   // WRONG: wraps
    return i;
}

// <<Tile scan built from warp scans>>
// The global index in 64 bits, or in 32: wrong on purpose (a pitfall).
enum class Index { wide, wrong_32bit };
template <typename T, Index INDEX>
__global__ void __launch_bounds__(SCAN_TILE)
tiles_warps_kernel(const T *in, T *out, size_t n, bool exclusive)
{
    constexpr unsigned kWarps = SCAN_TILE / 32;
    __shared__ T warp_sums[kWarps];
    __shared__ T s[SCAN_TILE];
    const unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;
    const size_t i = INDEX == Index::wrong_32bit
                         ? tile_index_32bit()
                         : blockIdx.x * (size_t)SCAN_TILE + t;
    T x = scan_warp_inclusive(i < n ? in[i] : T(0));
    if (lane == 31) warp_sums[warp] = x;
    __syncthreads();
    if (warp == 0) {
        T w = scan_warp_inclusive(lane < kWarps ? warp_sums[lane] : T(0));
        if (lane < kWarps) warp_sums[lane] = w;
    }
    __syncthreads();
    s[t] = warp > 0 ? x + warp_sums[warp - 1] : x;
    __syncthreads();
    write_tile_from_inclusive(s, out, i, n, exclusive);
}

// <<Wrong on purpose: the padding macro as printed in GPU Gems 3>>
#define GEMS_NUM_BANKS 32
#define GEMS_LOG_NUM_BANKS 5
#define GEMS_CONFLICT_FREE_OFFSET(n) \
    ((n) >> GEMS_NUM_BANKS + (n) >> (2 * GEMS_LOG_NUM_BANKS))

// <<Choose a tile's padding>>
enum { kPadNone = 0, kPadRight = 1, kPadGems = 2 };
template <int PAD>
__device__ __forceinline__ unsigned bank_pad(unsigned i)
{
    return PAD == kPadRight  ? SCAN_CONFLICT_FREE_OFFSET(i)
           : PAD == kPadGems ? GEMS_CONFLICT_FREE_OFFSET(i)
                             : 0u;
}

// <<Blelloch tile scan>>
template <typename T, int PAD>
__global__ void __launch_bounds__(SCAN_TILE / 2)
tiles_blelloch_kernel(const T *in, T *out, size_t n, bool exclusive)
{
    __shared__ T s[SCAN_TILE + SCAN_TILE / SCAN_NUM_BANKS];
    const unsigned t = threadIdx.x;
    const size_t base = blockIdx.x * (size_t)SCAN_TILE;
    const unsigned ai = t, bi = t + SCAN_TILE / 2;
    const T xa = base + ai < n ? in[base + ai] : T(0);
    const T xb = base + bi < n ? in[base + bi] : T(0);
    s[ai + bank_pad<PAD>(ai)] = xa;
    s[bi + bank_pad<PAD>(bi)] = xb;
    // <<Blelloch up-sweep>>
    unsigned offset = 1;
    for (unsigned d = SCAN_TILE / 2; d > 0; d /= 2) {
        __syncthreads();
        if (t < d) {
            unsigned a = offset * (2 * t + 1) - 1, b = offset * (2 * t + 2) - 1;
            s[b + bank_pad<PAD>(b)] += s[a + bank_pad<PAD>(a)];
        }
        offset *= 2;
    }
    // <<Blelloch down-sweep>>
    if (t == 0) s[SCAN_TILE - 1 + bank_pad<PAD>(SCAN_TILE - 1)] = T(0);
    for (unsigned d = 1; d < SCAN_TILE; d *= 2) {
        offset /= 2;
        __syncthreads();
        if (t < d) {
            unsigned a = offset * (2 * t + 1) - 1, b = offset * (2 * t + 2) - 1;
            a += bank_pad<PAD>(a);
            b += bank_pad<PAD>(b);
            T left = s[a];
            s[a] = s[b];
            s[b] += left;
        }
    }
    __syncthreads();
    const T ya = s[ai + bank_pad<PAD>(ai)], yb = s[bi + bank_pad<PAD>(bi)];
    if (base + ai < n) out[base + ai] = exclusive ? ya : ya + xa;
    if (base + bi < n) out[base + bi] = exclusive ? yb : yb + xb;
}

// <<Tile scan launchers>>
template <typename T>
static cudaError_t scan_tiles(const T *in, T *out, size_t n,
                              scan_tile_algo algo, scan_kind kind,
                              cudaStream_t stream)
{
    if (n == 0) return cudaSuccess;
    if (!in || !out) return cudaErrorInvalidValue;
    if (kind != SCAN_INCLUSIVE && kind != SCAN_EXCLUSIVE)
        return cudaErrorInvalidValue;
    if ((unsigned)algo > SCAN_TILE_WARPS_32BIT_INDEX)
        return cudaErrorInvalidValue;
    const size_t grid = ceil_div(n, SCAN_TILE);
    if (grid > kScanMaxGrid) return cudaErrorInvalidValue;
    const unsigned g = (unsigned)grid, b = SCAN_TILE, h = SCAN_TILE / 2;
    const bool ex = kind == SCAN_EXCLUSIVE;
    // Every tile kernel takes the same arguments: g blocks of b or h.
    const auto launch = [&](auto kernel, unsigned threads) {
        kernel<<<g, threads, 0, stream>>>(in, out, n, ex);
    };
    BOOK_CLEAR_TO_LAUNCH();
    switch (algo) {
    case SCAN_TILE_HILLIS_STEELE: launch(tiles_hs_kernel<T>, b); break;
    case SCAN_TILE_WARPS:
        launch(tiles_warps_kernel<T, Index::wide>, b); break;
    case SCAN_TILE_BLELLOCH:
        launch(tiles_blelloch_kernel<T, kPadRight>, h); break;
    case SCAN_TILE_BLELLOCH_UNPADDED:
        launch(tiles_blelloch_kernel<T, kPadNone>, h); break;
    case SCAN_TILE_BLELLOCH_GEMS:
        launch(tiles_blelloch_kernel<T, kPadGems>, h); break;
    case SCAN_TILE_HS_ONE_BARRIER:
        launch(tiles_hs_one_barrier_kernel<T>, b); break;
    case SCAN_TILE_WARPS_32BIT_INDEX:
        launch(tiles_warps_kernel<T, Index::wrong_32bit>, b); break;
    default: return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

extern "C" cudaError_t scan_tiles_f32(const float *in, float *out, size_t n,
                                      scan_tile_algo algo, scan_kind kind,
                                      cudaStream_t stream)
{
    return scan_tiles(in, out, n, algo, kind, stream);
}
extern "C" cudaError_t scan_tiles_i32(const int *in, int *out, size_t n,
                                      scan_tile_algo algo, scan_kind kind,
                                      cudaStream_t stream)
{
    return scan_tiles(in, out, n, algo, kind, stream);
}

// <<Device-wide scan launchers>>
template <typename T> struct scan_scratch {
    scan_levels<T> levels;        // the recursive scans
    tile_status<T> st;            // the look-backs
};
template <typename T>
static void scan_layout(book_carve *c, size_t n, bool lookback,
                        scan_scratch<T> *s)
{
    if (lookback) s->st = lookback_layout<T>(c, n);
    else levels_layout<T>(c, n, &s->levels);
}
template <typename T> static size_t scratch_for(size_t n)
{
    scan_scratch<T> s = {};
    book_carve a = {NULL, 0, 0}, b = {NULL, 0, 0};
    scan_layout<T>(&a, n, false, &s);
    scan_layout<T>(&b, n, true, &s);
    const size_t x = book_carve_size(&a), y = book_carve_size(&b);
    if (a.overflow || b.overflow) return 0;
    return x > y ? x : y;
}
extern "C" size_t scan_scratch_bytes(size_t n, size_t elem_bytes)
{
    return elem_bytes == 8 ? scratch_for<long long>(n) : scratch_for<int>(n);
}

template <typename T>
static cudaError_t scan_device(const T *in, T *out, size_t n,
                               scan_kind kind, scan_device_algo algo,
                               void *scratch, size_t bytes,
                               cudaStream_t st)
{
    if (n == 0) return cudaSuccess;
    if (!in || !out || !scratch || !is_aligned(scratch, 256))
        return cudaErrorInvalidValue;
    if (kind != SCAN_INCLUSIVE && kind != SCAN_EXCLUSIVE)
        return cudaErrorInvalidValue;
    if (bytes < scratch_for<T>(n)) return cudaErrorInvalidValue;
    if (ceil_div(n, dev_tile<T>::elems) > kScanMaxGrid)
        return cudaErrorInvalidValue;
    const bool ex = kind == SCAN_EXCLUSIVE;
    const bool lookback = algo != SCAN_PROPAGATE &&
                          algo != SCAN_REDUCE_THEN_SCAN;
    scan_scratch<T> s = {};
    book_carve c = {(char *)scratch, 0, 0};
    scan_layout<T>(&c, n, lookback, &s);
    T *const *l = s.levels.sums;
    switch (algo) {
    case SCAN_PROPAGATE: return scan_propagate(in, out, n, ex, l, st);
    case SCAN_REDUCE_THEN_SCAN:
        return scan_reduce_then_scan(in, out, n, ex, l, st);
    case SCAN_LOOKBACK:
        return scan_lookback(in, out, n, ex, s.st, false, st);
    case SCAN_LOOKBACK_PACKED:
        return scan_lookback(in, out, n, ex, s.st, true, st);
    case SCAN_LOOKBACK_AHEAD:
        return scan_lookback_ahead(in, out, n, ex, s.st, st);
    case SCAN_LOOKBACK_STAGED: {        // packed for 32-bit values only
        constexpr Status how =
            sizeof(T) == 4 ? Status::packed : Status::apart;
        return scan_lookback_staged<T, how>(in, out, n, ex, s.st, st);
    }
    case SCAN_LOOKBACK_PAIRED:
        return scan_lookback_staged<T, Status::packed>(in, out, n, ex, s.st,
                                                       st);
    case SCAN_LOOKBACK_RAKED:
        return scan_lookback_raked(in, out, n, ex, s.st, st);
    default: return cudaErrorInvalidValue;
    }
}

extern "C" cudaError_t scan_f32(const float *in, float *out, size_t n,
                                scan_kind kind, scan_device_algo algo,
                                void *scratch, size_t bytes,
                                cudaStream_t stream)
{
    return scan_device(in, out, n, kind, algo, scratch, bytes, stream);
}
extern "C" cudaError_t scan_i32(const int *in, int *out, size_t n,
                                scan_kind kind, scan_device_algo algo,
                                void *scratch, size_t bytes,
                                cudaStream_t stream)
{
    return scan_device(in, out, n, kind, algo, scratch, bytes, stream);
}
extern "C" cudaError_t scan_i64(const long long *in, long long *out,
                                size_t n, scan_kind kind,
                                scan_device_algo algo, void *scratch,
                                size_t bytes, cudaStream_t stream)
{
    return scan_device(in, out, n, kind, algo, scratch, bytes, stream);
}
