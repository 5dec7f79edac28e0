// textbook.cu -- the radix sort of three kernels a digit.
#include <limits.h>
#include "common/book.h"
#include "scan/scan.h"
#include "sort/sort.h"
#include "sort/block_rank.cuh"
#include "sort/temp.cuh"

// <<Count each tile's digits into the table>>
// table[d * tiles + b] = the keys of tile b whose digit at shift is d.
template <int THREADS, int ITEMS>
__global__ void __launch_bounds__(THREADS)
radix_count_kernel(const unsigned *keys, size_t n, unsigned shift,
                   int *table)
{
    __shared__ unsigned h[kRadix];
    for (unsigned i = threadIdx.x; i < kRadix; i += THREADS) h[i] = 0;
    __syncthreads();
    const size_t base = (size_t)blockIdx.x * THREADS * ITEMS;
    for (unsigned i = threadIdx.x; i < THREADS * ITEMS; i += THREADS)
        if (base + i < n) atomicAdd(&h[(keys[base + i] >> shift) & 255u], 1u);
    __syncthreads();
    for (unsigned d = threadIdx.x; d < kRadix; d += THREADS)
        table[(size_t)d * gridDim.x + blockIdx.x] = (int)h[d];
}

// <<Scatter a tile by its ranks and the scanned table>>
// Each key straight to its place, or staged in shared memory first.
enum class Scatter { direct, staged };
template <typename P, Scatter HOW>
__global__ void __launch_bounds__(P::THREADS)
radix_scatter_kernel(const unsigned *in, unsigned *out, size_t n,
                     unsigned shift, const int *offsets)
{
    enum { THREADS = P::THREADS, ITEMS = P::ITEMS };
    __shared__ unsigned keys[P::TILE > P::WARPS * kRadix
                                 ? P::TILE : P::WARPS * kRadix];
    __shared__ unsigned count[kRadix], start[kRadix];
    __shared__ long long base[kRadix];
    const size_t t0 = (size_t)blockIdx.x * P::TILE;
    unsigned key[ITEMS], rank[ITEMS], valid = 0;
    for (unsigned i = threadIdx.x; i < P::WARPS * kRadix; i += THREADS)
        keys[i] = 0;                       // the warps' counts, first
    // <<Load a tile warp-striped>>
    {
        const size_t run = t0 + (size_t)(threadIdx.x / 32) * 32 * ITEMS;
    #pragma unroll
        for (int j = 0; j < ITEMS; j++) {
            const size_t i = run + 32 * j + threadIdx.x % 32;
            key[j] = i < n ? in[i] : 0u;
            valid |= (unsigned)(i < n) << j;
        }
    }
    __syncthreads();
    tile_rank<THREADS, ITEMS, Peers::ballot>(key, shift, valid, rank, keys,
                                             count, start);
    for (unsigned d = threadIdx.x; d < kRadix; d += THREADS)
        base[d] = (long long)offsets[(size_t)d * gridDim.x + blockIdx.x] -
                  start[d];
    __syncthreads();                       // keys[] is free; base is set
    // <<Write the tile's keys to their places>>
    if (HOW == Scatter::direct) {
    #pragma unroll
        for (int j = 0; j < ITEMS; j++)
            if ((valid >> j) & 1u)
                out[base[(key[j] >> shift) & 255u] + rank[j]] = key[j];
    } else {
    #pragma unroll
        for (int j = 0; j < ITEMS; j++)
            if ((valid >> j) & 1u) keys[rank[j]] = key[j];
        __syncthreads();
        const size_t valid = n - t0 < (size_t)P::TILE ? n - t0 : P::TILE;
        for (unsigned i = threadIdx.x; i < valid; i += THREADS) {
            const unsigned k = keys[i];
            out[base[(k >> shift) & 255u] + i] = k;
        }
    }
}

// <<The textbook passes>>
template <Scatter HOW>
static cudaError_t textbook_sort(const unsigned *in, unsigned *out,
                                 size_t n, void *temp, size_t bytes,
                                 cudaStream_t s)
{
    typedef shape_256x16 P;
    sort_temp tmp;
    BOOK_TRY(sort_check(in, out, NULL, NULL, n, 4, 1, temp, bytes, &tmp));
    if (n > (size_t)INT_MAX) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    BOOK_CLEAR_TO_LAUNCH();
    const unsigned tiles = (unsigned)ceil_div(n, P::TILE);
    const size_t cells = (size_t)kRadix * tiles;
    for (int p = 0; p < 4; p++) {
        unsigned *buf = (unsigned *)tmp.keys;
        const unsigned *src = p == 0 ? in : p % 2 ? buf : out;
        unsigned *dst = p % 2 ? out : buf;
        radix_count_kernel<P::THREADS, P::ITEMS><<<tiles, P::THREADS, 0, s>>>(
            src, n, 8 * p, tmp.table);
        BOOK_TRY(cudaGetLastError());
        BOOK_TRY(scan_i32(tmp.table, tmp.table + cells, cells,
                          SCAN_EXCLUSIVE, SCAN_LOOKBACK_PACKED, tmp.scan,
                          tmp.scan_bytes, s));
        radix_scatter_kernel<P, HOW>
            <<<tiles, P::THREADS, 0, s>>>(src, dst, n, 8 * p,
                                          tmp.table + cells);
        BOOK_TRY(cudaGetLastError());
    }
    return cudaSuccess;
}
extern "C" cudaError_t sort_keys_u32_textbook_scattered(
    const unsigned *in, unsigned *out, size_t n, void *temp, size_t bytes,
    cudaStream_t s)
{
    return textbook_sort<Scatter::direct>(in, out, n, temp, bytes, s);
}
extern "C" cudaError_t sort_keys_u32_textbook(const unsigned *in,
    unsigned *out, size_t n, void *temp, size_t bytes, cudaStream_t s)
{
    return textbook_sort<Scatter::staged>(in, out, n, temp, bytes, s);
}
