// merge.cuh -- the merge-path templates behind merge.h: any key type K,
// any comparator `less` (a strict weak order), 32-bit values or none.
#ifndef MERGE_CUH
#define MERGE_CUH
#include <stdint.h>
#include "common/book.h"
#include "common/carve.h"

// <<Merge constants>>
constexpr int kMergeThreads = 256;       // a block
constexpr int kMergeIpt = 8;             // items per thread, the default
constexpr size_t kMergeMinTile = kMergeThreads * 4;   // IPT 4: the smallest
// The templates' choices, named: who wins a tie (B is wrong on purpose:
// unstable), and keys alone or keys with their values.
enum class Tie { to_a, wrong_to_b };
enum class Data { keys, pairs };

// <<Comparators>>
struct merge_less_u32 {
    __host__ __device__ bool operator()(uint32_t x, uint32_t y) const
    {
        return x < y;
    }
};
struct merge_less_abs_f32 {
    __host__ __device__ bool operator()(float x, float y) const
    {
        return fabsf(x) < fabsf(y);
    }
};

// <<Does the element of A go first>>
// x from A goes before y from B: x <= y with ties to A, x < y with ties
// to B (wrong on purpose: unstable).
template <Tie TIE, class K, class Less>
__device__ __forceinline__ bool a_first(const K &x, const K &y, Less less)
{
    return TIE == Tie::to_a ? !less(y, x) : less(x, y);
}

// <<Co-rank by binary search on a cross diagonal>>
// How many of the first d outputs of merging A[0, la) and B[0, lb) are A's.
template <Tie TIE, class K, class Less>
__device__ size_t co_rank(size_t d, const K *A, size_t la, const K *B,
                          size_t lb, Less less)
{
    size_t lo = d > lb ? d - lb : 0, hi = d < la ? d : la;
    while (lo < hi) {
        const size_t i = lo + (hi - lo) / 2;
        if (a_first<TIE>(A[i], B[d - i - 1], less)) lo = i + 1;
        else hi = i;
    }
    return lo;
}

// <<Merge a thread's items sequentially>>
template <int IPT, Tie TIE, class K, class Less>
__device__ void merge_seq(const K *s, int la, int lb, int i, int j,
                          int count, K (&key)[IPT], int (&from)[IPT],
                          Less less)
{
    K x = i < la ? s[i] : K(), y = j < lb ? s[la + j] : K();
#pragma unroll
    for (int k = 0; k < IPT; k++) {
        if (k >= count) break;
        const bool take_a =
            j >= lb || (i < la && a_first<TIE>(x, y, less));
        key[k] = take_a ? x : y;
        from[k] = take_a ? i : la + j;
        if (take_a) { if (++i < la) x = s[i]; }
        else if (++j < lb) y = s[la + j];
    }
}

// <<Merge runs in shared memory>>
// The runs sk[ps, ps + la) and sk[ps + la, ps + la + lb) become one, in
// place; the thread's outputs are positions threadIdx.x * IPT on.
template <int IPT, Tie TIE, Data DATA, class K, class Less>
__device__ void merge_in_shared(K *sk, uint32_t *sv, int ps, int la, int lb,
                                Less less)
{
    const int d = (int)threadIdx.x * IPT - ps;
    const int count = min(IPT, la + lb - d);        // <= 0: idle
    K key[IPT];
    int from[IPT];
    uint32_t val[IPT];
    if (count > 0) {
        const int i = (int)co_rank<TIE>((size_t)d, sk + ps, la,
                                             sk + ps + la, lb, less);
        merge_seq<IPT, TIE>(sk + ps, la, lb, i, d - i, count, key,
                                 from, less);
    }
    // <<Gather the values and write the merged items back>>
    #pragma unroll
    for (int k = 0; k < IPT; k++)
        if (DATA == Data::pairs && k < count) val[k] = sv[ps + from[k]];
    __syncthreads();                   // every thread has read its inputs
    #pragma unroll
    for (int k = 0; k < IPT; k++)
        if (k < count) {
            sk[threadIdx.x * IPT + k] = key[k];
            if (DATA == Data::pairs) sv[threadIdx.x * IPT + k] = val[k];
        }
    __syncthreads();
}

// <<The two runs an output tile merges>>
template <class K> struct merge_src {
    const K *a, *b;              // a sort pass: a == b, the whole array
    const uint32_t *av, *bv;     // values, or NULL
    size_t na, nb;               // two arrays (w == 0): their lengths
    size_t n, w;                 // a sort pass: n elements, runs of w
};
struct merge_span { size_t a_off, la, b_off, lb, d; };   // d: diagonal
template <class K>
__device__ merge_span span_of(const merge_src<K> &m, size_t start)
{
    if (m.w == 0) return {0, m.na, 0, m.nb, start};
    const size_t ps = start / (2 * m.w) * (2 * m.w);
    const size_t la = min(m.w, m.n - ps), lb = min(m.w, m.n - ps - la);
    return {ps, la, ps + la, lb, start - ps};
}

// <<Partition kernel>>
template <int T, Tie TIE, class K, class Less>
__global__ void merge_partition_kernel(merge_src<K> m, size_t tiles,
                                       uint32_t *cuts, Less less)
{
    const size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (t >= tiles) return;
    const merge_span s = span_of(m, t * T);
    cuts[t] = (uint32_t)co_rank<TIE>(s.d, m.a + s.a_off, s.la,
                                          m.b + s.b_off, s.lb, less);
}

// <<Tile merge kernel>>
template <int IPT, Tie TIE, Data DATA, class K, class Less>
__global__ void __launch_bounds__(kMergeThreads)
merge_tiles_kernel(merge_src<K> m, const uint32_t *cuts, K *out,
                   uint32_t *outv, Less less)
{
    constexpr int T = kMergeThreads * IPT;
    __shared__ K sk[T];
    __shared__ uint32_t sv[(DATA == Data::pairs) ? T : 1];
    const size_t start = blockIdx.x * (size_t)T;
    const merge_span s = span_of(m, start);
    const size_t end = min(s.d + T, s.la + s.lb);
    const size_t a0 = cuts[blockIdx.x], b0 = s.d - a0;
    size_t a1 = end < s.la + s.lb ? cuts[blockIdx.x + 1] : s.la;
    // An inconsistent comparator (NaN) or unsorted input can make cuts
    // non-monotone; clamp so that every index stays inside its run.
    a1 = max(a1, max(a0, end > s.lb ? end - s.lb : (size_t)0));
    a1 = min(a1, min(a0 + (end - s.d), s.la));
    const int cnt = (int)(end - s.d), na = (int)(a1 - a0);
    // <<Load the tile's pieces of A and B into shared memory>>
    const size_t ia = s.a_off + a0, ib = s.b_off + b0;
    K rk[IPT];
    uint32_t rv[IPT];
    #pragma unroll
    for (int k = 0; k < IPT; k++) {
        const int t = (int)threadIdx.x + k * kMergeThreads;
        rk[k] = K();
        rv[k] = 0;
        if (t < cnt) {
            rk[k] = t < na ? m.a[ia + t] : m.b[ib + t - na];
            if (DATA == Data::pairs)
                rv[k] = t < na ? m.av[ia + t] : m.bv[ib + t - na];
        }
    }
    // <<Store the registers into shared memory>>
    #pragma unroll
    for (int k = 0; k < IPT; k++) {
        const int t = (int)threadIdx.x + k * kMergeThreads;
        if (t < cnt) {
            sk[t] = rk[k];
            if (DATA == Data::pairs) sv[t] = rv[k];
        }
    }
    __syncthreads();
    merge_in_shared<IPT, TIE, DATA>(sk, sv, 0, na, cnt - na, less);
    for (int t = threadIdx.x; t < cnt; t += kMergeThreads) {
        out[start + t] = sk[t];
        if (DATA == Data::pairs) outv[start + t] = sv[t];
    }
}

// <<Block sort kernel>>
template <int IPT, Data DATA, class K, class Less>
__global__ void __launch_bounds__(kMergeThreads)
merge_block_sort_kernel(const K *in, const uint32_t *inv, K *out,
                        uint32_t *outv, size_t n, Less less)
{
    constexpr int T = kMergeThreads * IPT;
    __shared__ K sk[T];
    __shared__ uint32_t sv[(DATA == Data::pairs) ? T : 1];
    const size_t base = blockIdx.x * (size_t)T;
    const int cnt = (int)min((size_t)T, n - base);
    // <<Load a tile with IPT loads in flight per thread>>
    K rk[IPT];
    uint32_t rv[IPT];
    #pragma unroll
    for (int k = 0; k < IPT; k++) {
        const int t = (int)threadIdx.x + k * kMergeThreads;
        rk[k] = t < cnt ? in[base + t] : K();
        rv[k] = DATA == Data::pairs && t < cnt ? inv[base + t] : 0;
    }
    // <<Store the registers into shared memory>>
    #pragma unroll
    for (int k = 0; k < IPT; k++) {
        const int t = (int)threadIdx.x + k * kMergeThreads;
        if (t < cnt) {
            sk[t] = rk[k];
            if (DATA == Data::pairs) sv[t] = rv[k];
        }
    }
    __syncthreads();
    // <<Sort each thread's items in registers>>
    {
        const int me = (int)threadIdx.x * IPT, m = max(0, min(IPT, cnt - me));
        K key[IPT];
        uint32_t val[IPT];
    #pragma unroll
        for (int k = 0; k < IPT; k++) {
            key[k] = k < m ? sk[me + k] : K();
            val[k] = DATA == Data::pairs && k < m ? sv[me + k] : 0;
        }
    #pragma unroll
        for (int r = 0; r < IPT; r++)
    #pragma unroll
            for (int k = r & 1; k + 1 < IPT; k += 2)
                if (k + 1 < m && less(key[k + 1], key[k])) {
                    const K t = key[k];
                    key[k] = key[k + 1];
                    key[k + 1] = t;
                    const uint32_t u = val[k];
                    val[k] = val[k + 1];
                    val[k + 1] = u;
                }
    #pragma unroll
        for (int k = 0; k < m && k < IPT; k++) {
            sk[me + k] = key[k];
            if (DATA == Data::pairs) sv[me + k] = val[k];
        }
        __syncthreads();
    }
    for (int w = IPT; w < T; w *= 2) {
        const int ps = (int)threadIdx.x * IPT / (2 * w) * (2 * w);
        const int la = max(0, min(w, cnt - ps));
        const int lb = max(0, min(w, cnt - ps - w));
        merge_in_shared<IPT, Tie::to_a, DATA>(sk, sv, ps, la, lb, less);
    }
    for (int t = threadIdx.x; t < cnt; t += kMergeThreads) {
        out[base + t] = sk[t];
        if (DATA == Data::pairs) outv[base + t] = sv[t];
    }
}

// <<Lay out a merge sort's workspace>>
// A buffer of keys, one of values (pairs only), then the cuts of one
// pass, for tiles of `tile` keys.
struct merge_sort_space {
    void *keys;
    uint32_t *vals, *cuts;
};
static inline merge_sort_space merge_sort_layout(book_carve *c, size_t n,
                                                 size_t key_bytes,
                                                 bool pairs, size_t tile)
{
    merge_sort_space w;
    w.keys = book_carve_take(c, n * key_bytes, 256);
    w.vals = pairs ? (uint32_t *)book_carve_take(c, 4 * n, 256) : nullptr;
    w.cuts = (uint32_t *)book_carve_take(c, 4 * ceil_div(n, tile), 4);
    return w;
}

// <<Merge sort driver>>
template <int IPT, Data DATA, class K, class Less>
cudaError_t merge_sort_t(K *keys, uint32_t *vals, size_t n, void *temp,
                         cudaStream_t stream, Less less)
{
    constexpr size_t T = kMergeThreads * IPT;
    const size_t tiles = ceil_div(n, T);
    int passes = 0;
    for (size_t w = T; w < n; w *= 2) passes++;
    // <<Lay out the workspace: keys, values, cuts>>
    book_carve c = {(char *)temp, 0, 0};
    const merge_sort_space ws =
        merge_sort_layout(&c, n, sizeof(K), DATA == Data::pairs, T);
    K *tk = (K *)ws.keys;
    uint32_t *tv = ws.vals, *cuts = ws.cuts;
    K *dst = passes % 2 ? tk : keys;
    uint32_t *dstv = passes % 2 ? tv : vals;
    BOOK_CLEAR_TO_LAUNCH();
    merge_block_sort_kernel<IPT, DATA><<<(unsigned)tiles, kMergeThreads, 0,
                                          stream>>>(keys, vals, dst, dstv, n,
                                                    less);
    BOOK_TRY(cudaGetLastError());
    for (size_t w = T; w < n; w *= 2) {
        // <<Merge one pass of runs of w>>
        const K *src = dst;
        const uint32_t *srcv = dstv;
        dst = src == keys ? tk : keys;
        dstv = src == keys ? tv : vals;
        const merge_src<K> m = {src, src, srcv, srcv, 0, 0, n, w};
        merge_partition_kernel<T, Tie::to_a><<<(unsigned)ceil_div(tiles, 256), 256, 0,
                                          stream>>>(m, tiles, cuts, less);
        BOOK_TRY(cudaGetLastError());
        merge_tiles_kernel<IPT, Tie::to_a, DATA><<<(unsigned)tiles, kMergeThreads, 0,
                                               stream>>>(m, cuts, dst, dstv, less);
        BOOK_TRY(cudaGetLastError());
    }
    return cudaSuccess;
}
#endif
