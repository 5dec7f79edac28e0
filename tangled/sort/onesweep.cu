// onesweep.cu -- the single-pass radix sort.
#include "common/book.h"
#include "sort/sort.h"
#include "sort/block_rank.cuh"
#include "sort/digit_lookback.cuh"
#include "sort/radix_key.cuh"
#include "sort/temp.cuh"

// <<Count every digit of the keys>>
// hist[p * kRadix + d] += the keys whose digit p is d (64-bit counts:
// one digit value may hold 2^32 keys or more; a block's stay below 2^31,
// as the launch gives each block at most 2^31 keys).
template <typename U>
__global__ void __launch_bounds__(512)
digit_hist_kernel(const U *keys, size_t n, int kind,
                  unsigned long long *hist)
{
    enum { PASSES = sizeof(U) };
    __shared__ unsigned h[PASSES * kRadix];
    for (unsigned i = threadIdx.x; i < PASSES * kRadix; i += blockDim.x)
        h[i] = 0;
    __syncthreads();
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const U u = radix_in(keys[i], kind);
#pragma unroll
        for (int p = 0; p < PASSES; p++)
            atomicAdd(&h[p * kRadix + (unsigned)(u >> (8 * p)) % kRadix], 1u);
    }
    __syncthreads();
    for (unsigned i = threadIdx.x; i < PASSES * kRadix; i += blockDim.x)
        if (h[i]) atomicAdd(&hist[i], (unsigned long long)h[i]);
}

// <<Where each digit starts in the output>>
// start[p * kRadix + d] = the keys of digits below d (pass p); block p.
__global__ void __launch_bounds__(kRadix)
digit_starts_kernel(const unsigned long long *hist,
                    unsigned long long *start)
{
    const unsigned d = threadIdx.x, p = blockIdx.x;
    __shared__ unsigned long long warp_total[kRadix / 32];
    const unsigned long long c = hist[p * kRadix + d];
    const unsigned long long inclusive = scan_warp_inclusive(c);
    if (d % 32 == 31) warp_total[d / 32] = inclusive;
    __syncthreads();
    unsigned long long at = inclusive - c;
    for (unsigned w = 0; w < d / 32; w++) at += warp_total[w];
    start[p * kRadix + d] = at;
}

// <<The arguments of one pass over one portion>>
template <typename U> struct sweep_args {
    const U *kin;
    U *kout;
    const unsigned *vin;               // NULL for keys alone
    unsigned *vout;
    size_t begin, end;                 // the portion
    unsigned shift;
    int kind, first, last;             // transform on load, undo on store
    const unsigned long long *start;   // [kRadix]: this portion's digits
    unsigned long long *next;          // [kRadix]: the next's, or NULL
    unsigned *status;                  // [tiles of the portion][kRadix]
    unsigned *next_tile;
};

// <<One pass over one tile>>
// Keys alone or keys with 32-bit values; the keys loaded warp-striped
// (stable), or each lane's run together (wrong on purpose: unstable).
enum class Items { keys, pairs };
enum class Load { striped, wrong_unstable };
template <typename U, typename P, Items WHAT>
struct sweep_smem {                    // byte offsets in dynamic memory
    enum { KEYS = P::TILE * (int)sizeof(U),
           WORDS = KEYS > P::WARPS * kRadix * 4 ? KEYS
                                                 : P::WARPS * kRadix * 4,
           VALS = WORDS,
           BASE = VALS + (WHAT == Items::pairs ? 4 * P::TILE : 0),
           COUNT = BASE + 8 * kRadix, START = COUNT + 4 * kRadix,
           TILE_ID = START + 4 * kRadix, BYTES = TILE_ID + 16 };
};
template <typename U, typename P, Items WHAT, Peers HOW, Load LOAD, int W>
__global__ void __launch_bounds__(P::THREADS, P::MINB)
onesweep_kernel(sweep_args<U> a)
{
    typedef sweep_smem<U, P, WHAT> M;
    enum { ITEMS = P::ITEMS, PAIRS = WHAT == Items::pairs };
    extern __shared__ __align__(16) unsigned char smem[];
    unsigned *words = (unsigned *)smem, *vals = (unsigned *)(smem + M::VALS);
    unsigned long long *base = (unsigned long long *)(smem + M::BASE);
    unsigned *count = (unsigned *)(smem + M::COUNT);
    unsigned *start = (unsigned *)(smem + M::START);
    U *keys = (U *)smem;
    // <<Take a tile number and zero the warps' counts>>
    unsigned *tile_s = (unsigned *)(smem + M::TILE_ID);
    if (threadIdx.x == 0)
        *tile_s = atomicAdd(a.next_tile, 1u);
    for (unsigned i = threadIdx.x; i < P::WARPS * kRadix; i += P::THREADS)
        words[i] = 0;
    __syncthreads();
    const unsigned tile = *tile_s;
    const size_t t0 = a.begin + (size_t)tile * P::TILE;
    U key[ITEMS];
    unsigned val[PAIRS ? ITEMS : 1], rank[ITEMS], valid = 0;
    // <<Load a pass's tile>>
    {
        const size_t run = t0 + (size_t)(threadIdx.x / 32) * 32 * ITEMS;
        const unsigned lane = threadIdx.x % 32;
    #pragma unroll
        for (int j = 0; j < ITEMS; j++) {
            const size_t i = LOAD == Load::wrong_unstable ? run + ITEMS * lane + j
                                                          : run + 32 * j + lane;
            const bool in = i < a.end;
            key[j] = in ? a.kin[i] : (U)0;
            if (a.first) key[j] = radix_in(key[j], a.kind);
            if (PAIRS) val[PAIRS ? j : 0] = in ? a.vin[i] : 0u;
            valid |= (unsigned)in << j;
        }
    }
    tile_rank<P::THREADS, ITEMS, HOW>(key, a.shift, valid, rank, words,
                                      count, start);
    // <<Look back and find where each digit goes>>
    for (unsigned d = threadIdx.x; d < kRadix; d += P::THREADS) {
        const unsigned before = digit_lookback<W>(a.status, tile, d, count[d]);
        base[d] = a.start[d] + before - start[d];
        if (a.next && tile == gridDim.x - 1)
            a.next[d] = a.start[d] + before + count[d];
    }
    __syncthreads();
    // <<Put the tile in order in shared memory and write it out>>
    #pragma unroll
    for (int j = 0; j < ITEMS; j++)
        if ((valid >> j) & 1u) {
            keys[rank[j]] = key[j];
            if (PAIRS) vals[rank[j]] = val[PAIRS ? j : 0];
        }
    __syncthreads();
    const size_t valid_keys = a.end - t0 < (size_t)P::TILE ? a.end - t0
                                                           : P::TILE;
    for (unsigned i = threadIdx.x; i < valid_keys; i += P::THREADS) {
        const U k = keys[i];
        const size_t to = base[(unsigned)(k >> a.shift) % kRadix] + i;
        a.kout[to] = a.last ? radix_out(k, a.kind) : k;
        if (PAIRS) a.vout[to] = vals[i];
    }
}

// <<The Onesweep passes>>
template <typename U, typename P, Items WHAT, Peers HOW, Load LOAD,
          int W = 4>
static cudaError_t onesweep(const U *kin, U *kout, const unsigned *vin,
                            unsigned *vout, size_t n, int kind, void *temp,
                            size_t bytes, cudaStream_t s)
{
    const int passes = (int)sizeof(U);
    sort_temp t;
    BOOK_TRY(sort_check(kin, kout, vin, vout, n, sizeof(U), 0, temp, bytes,
                        &t));
    if (n == 0) return cudaSuccess;
    BOOK_CLEAR_TO_LAUNCH();
    auto kernel = onesweep_kernel<U, P, WHAT, HOW, LOAD, W>;
    const int smem = sweep_smem<U, P, WHAT>::BYTES;
    BOOK_TRY(cudaFuncSetAttribute(
        kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    const int portions = (int)ceil_div(n, SORT_PORTION);
    BOOK_TRY(cudaMemsetAsync(t.hist, 0, t.hist_bytes, s));
    int sms;
    BOOK_TRY(book_sm_count(&sms));
    const size_t fewest = ceil_div(n, (size_t)1 << 31);  // counts < 2^31
    const size_t blocks = 2 * (size_t)sms > fewest ? 2 * (size_t)sms : fewest;
    digit_hist_kernel<U><<<(unsigned)blocks, 512, 0, s>>>(kin, n, kind,
                                                         t.hist);
    digit_starts_kernel<<<passes, kRadix, 0, s>>>(t.hist, t.start);
    BOOK_TRY(cudaGetLastError());
    // <<Run every pass over every portion>>
    U *kbuf = (U *)t.keys;
    unsigned *vbuf = (unsigned *)t.values;
    for (int p = 0; p < passes; p++) {
        sweep_args<U> a = {p == 0 ? kin : p % 2 ? kbuf : kout,
                           p % 2 ? kout : kbuf,
                           p == 0 ? vin : p % 2 ? vbuf : vout,
                           p % 2 ? vout : vbuf, 0, 0, (unsigned)(8 * p), kind,
                           p == 0, p == passes - 1, NULL, NULL, t.status, NULL};
        for (int q = 0; q < portions; q++) {
            a.begin = q * SORT_PORTION;
            a.end = n - a.begin < SORT_PORTION ? n : a.begin + SORT_PORTION;
            a.start = t.start + ((size_t)q * passes + p) * kRadix;
            a.next = q + 1 < portions ? (unsigned long long *)a.start +
                                            (size_t)passes * kRadix
                                      : NULL;
            a.next_tile = t.counters + q * passes + p;
            const unsigned tiles = (unsigned)ceil_div(a.end - a.begin, P::TILE);
            BOOK_TRY(cudaMemsetAsync(t.status, 0, (size_t)tiles * kRadix * 4, s));
            kernel<<<tiles, P::THREADS, smem, s>>>(a);
            BOOK_TRY(cudaGetLastError());
        }
    }
    return cudaSuccess;
}

// <<The Onesweep launchers>>
typedef shape_384x23 shape4;            // 32-bit keys (Measured)
// Keys of type K sorted as the bits U, with the form's template choices.
template <typename U, typename P, Peers HOW, Load LOAD, int W, typename K>
static cudaError_t sort_keys(const K *in, K *out, size_t n, int kind,
                             void *temp, size_t bytes, cudaStream_t s)
{
    return onesweep<U, P, Items::keys, HOW, LOAD, W>(
        (const U *)in, (U *)out, NULL, NULL, n, kind, temp, bytes, s);
}
template <typename U, typename P, typename K>
static cudaError_t sort_pairs(const K *kin, K *kout, const unsigned *vin,
                              unsigned *vout, size_t n, int kind, void *temp,
                              size_t bytes, cudaStream_t s)
{
    if (n && (!vin || !vout)) return cudaErrorInvalidValue;
    return onesweep<U, P, Items::pairs, Peers::ballot, Load::striped>(
        (const U *)kin, (U *)kout, vin, vout, n, kind, temp, bytes, s);
}
extern "C" cudaError_t sort_keys_u32(const unsigned *in,
    unsigned *out, size_t n, void *temp, size_t bytes, cudaStream_t s)
{
    return sort_keys<unsigned, shape4, Peers::ballot, Load::striped, 4>(
        in, out, n, KIND_U32, temp, bytes, s);
}
extern "C" cudaError_t sort_keys_u32_window1(const unsigned *in,
    unsigned *out, size_t n, void *temp, size_t bytes, cudaStream_t s)
{
    return sort_keys<unsigned, shape4, Peers::ballot, Load::striped, 1>(
        in, out, n, KIND_U32, temp, bytes, s);
}
extern "C" cudaError_t sort_keys_u32_match(const unsigned *in,
    unsigned *out, size_t n, void *temp, size_t bytes, cudaStream_t s)
{
    return sort_keys<unsigned, shape4, Peers::match, Load::striped, 4>(
        in, out, n, KIND_U32, temp, bytes, s);
}
extern "C" cudaError_t sort_keys_u32_256x16(const unsigned *in,
    unsigned *out, size_t n, void *temp, size_t bytes, cudaStream_t s)
{
    return sort_keys<unsigned, shape_256x16, Peers::ballot, Load::striped,
                     4>(
        in, out, n, KIND_U32, temp, bytes, s);
}
extern "C" cudaError_t sort_keys_u32_512x12(const unsigned *in,
    unsigned *out, size_t n, void *temp, size_t bytes, cudaStream_t s)
{
    return sort_keys<unsigned, shape_512x12, Peers::ballot, Load::striped,
                     4>(
        in, out, n, KIND_U32, temp, bytes, s);
}
extern "C" cudaError_t sort_keys_u32_wrong_unstable(const unsigned *in,
    unsigned *out, size_t n, void *temp, size_t bytes, cudaStream_t s)
{
    return sort_keys<unsigned, shape4, Peers::ballot, Load::wrong_unstable,
                     4>(
        in, out, n, KIND_U32, temp, bytes, s);
}
extern "C" cudaError_t sort_keys_i32(const int *in,
    int *out, size_t n, void *temp, size_t bytes, cudaStream_t s)
{
    return sort_keys<unsigned, shape4, Peers::ballot, Load::striped, 4>(
        in, out, n, KIND_I32, temp, bytes, s);
}
extern "C" cudaError_t sort_keys_f32(const float *in,
    float *out, size_t n, void *temp, size_t bytes, cudaStream_t s)
{
    return sort_keys<unsigned, shape4, Peers::ballot, Load::striped, 4>(
        in, out, n, KIND_F32, temp, bytes, s);
}
extern "C" cudaError_t sort_keys_u64(const unsigned long long *in,
    unsigned long long *out, size_t n, void *temp, size_t bytes,
    cudaStream_t s)
{
    return sort_keys<unsigned long long, shape_256x12, Peers::ballot,
                     Load::striped, 4>(
        in, out, n, KIND_U64, temp, bytes, s);
}
extern "C" cudaError_t sort_pairs_u32(const unsigned *kin,
    unsigned *kout, const unsigned *vin, unsigned *vout, size_t n,
    void *temp, size_t bytes, cudaStream_t s)
{
    return sort_pairs<unsigned, shape_384x16>(
        kin, kout, vin, vout, n, KIND_U32, temp, bytes, s);
}
extern "C" cudaError_t sort_pairs_f32(const float *kin,
    float *kout, const unsigned *vin, unsigned *vout, size_t n,
    void *temp, size_t bytes, cudaStream_t s)
{
    return sort_pairs<unsigned, shape_384x16>(
        kin, kout, vin, vout, n, KIND_F32, temp, bytes, s);
}
extern "C" cudaError_t sort_pairs_u64(const unsigned long long *kin,
    unsigned long long *kout, const unsigned *vin, unsigned *vout, size_t n,
    void *temp, size_t bytes, cudaStream_t s)
{
    return sort_pairs<unsigned long long, shape_256x12>(
        kin, kout, vin, vout, n, KIND_U64, temp, bytes, s);
}
