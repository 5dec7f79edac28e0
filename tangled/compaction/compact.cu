// compact.cu -- stream compaction and find_repeats.
#include <limits.h>
#include "scan/scan.cuh"
#include "compaction/compact.h"

// <<Compaction constants and scratch>>
static const unsigned kCompactBlock = 256;

// Three-pass: flags and positions (n ints each), then the scan's status.
struct compact_scratch {
    int *flags, *pos;                 // the three passes only
    tile_status<int> st;
};
static compact_scratch compact_layout(book_carve *c, size_t n,
                                      bool three_pass)
{
    compact_scratch s = {};
    if (three_pass) {
        s.flags = (int *)book_carve_take(c, n * sizeof(int), 256);
        s.pos = (int *)book_carve_take(c, n * sizeof(int), 256);
    }
    s.st = lookback_layout<int>(c, n);
    return s;
}
static compact_scratch compact_at(void *scratch, size_t n, bool three_pass)
{
    book_carve c = {(char *)scratch, 0, 0};
    return compact_layout(&c, n, three_pass);
}
extern "C" size_t compact_scratch_bytes(size_t n)
{
    book_carve c = {NULL, 0, 0};
    compact_layout(&c, n, true);      // the single pass needs less
    return book_carve_size(&c);
}

static cudaError_t compact_check(const void *in, const void *out,
                                 size_t n, const size_t *count,
                                 const void *scratch, size_t bytes)
{
    if (!in || !out || !count || !scratch || !is_aligned(scratch, 256))
        return cudaErrorInvalidValue;
    if (n > INT_MAX || bytes < compact_scratch_bytes(n))
        return cudaErrorInvalidValue;
    return cudaSuccess;
}
// n = 0: nothing to scan, but the count is set to zero on the stream.
static cudaError_t compact_none(size_t *count, cudaStream_t stream)
{
    if (!count) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    return cudaMemsetAsync(count, 0, sizeof *count, stream);
}

// <<Three-pass compaction kernels>>
__global__ void compact_flags_kernel(const int *in, int *flags, size_t n,
                                     int threshold)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) flags[i] = in[i] > threshold;
}

__global__ void compact_scatter_kernel(const int *in, const int *flags,
                                       const int *pos, int *out, size_t n,
                                       size_t *count)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (flags[i]) out[pos[i]] = in[i];
    if (i == n - 1) *count = (size_t)pos[i] + flags[i];
}

// <<Three-pass compaction>>
extern "C" cudaError_t compact_gt_three_pass(const int *in, int *out,
                                             size_t n, int threshold,
                                             size_t *count, void *scratch,
                                             size_t bytes,
                                             cudaStream_t stream)
{
    if (n == 0) return compact_none(count, stream);
    BOOK_TRY(compact_check(in, out, n, count, scratch, bytes));
    const compact_scratch s = compact_at(scratch, n, true);
    int *flags = s.flags, *pos = s.pos;
    const unsigned grid = (unsigned)ceil_div(n, kCompactBlock);
    BOOK_CLEAR_TO_LAUNCH();
    compact_flags_kernel<<<grid, kCompactBlock, 0, stream>>>(in, flags, n,
                                                             threshold);
    BOOK_TRY(cudaGetLastError());
    BOOK_TRY(scan_lookback<int>(flags, pos, n, true, s.st, true, stream));
    compact_scatter_kernel<<<grid, kCompactBlock, 0, stream>>>(
        in, flags, pos, out, n, count);
    return cudaGetLastError();
}

// <<Single-pass compaction kernel>>
__global__ void __launch_bounds__(kDevThreads)
compact_gt_kernel(const int *in, int *out, size_t n, int threshold,
                  size_t *count, bool aligned, tile_ctx<int> c)
{
    constexpr int V = dev_tile<int>::vec;
    __shared__ unsigned long long tile_sh;
    if (threadIdx.x == 0) tile_sh = atomicAdd(c.st.next, 1ull);
    __syncthreads();
    const size_t tile = tile_sh, base = tile * dev_tile<int>::elems;
    const bool vec = aligned && base + dev_tile<int>::elems <= n;
    int x[kDevRounds][V], pos[kDevRounds][V];
    bool keep[kDevRounds][V];
    dev_load(in, n, base, vec, x, 0);
    // <<Flag the elements above the threshold>>
    #pragma unroll
    for (int r = 0; r < kDevRounds; r++)
    #pragma unroll
        for (int k = 0; k < V; k++) {
            keep[r][k] = dev_elem<int>(base, r) + k < n && x[r][k] > threshold;
            pos[r][k] = keep[r][k];
        }
    const int total = scan_tile<kPrefixLookBackPacked>(pos, tile, c, true);
    // <<Scatter the kept elements>>
    #pragma unroll
    for (int r = 0; r < kDevRounds; r++)
    #pragma unroll
        for (int k = 0; k < V; k++)
            if (keep[r][k]) out[pos[r][k]] = x[r][k];
    if (tile == gridDim.x - 1 && threadIdx.x == 0) *count = (size_t)total;
}

// <<Single-pass compaction launcher>>
extern "C" cudaError_t compact_gt(const int *in, int *out, size_t n,
                                  int threshold, size_t *count,
                                  void *scratch, size_t bytes,
                                  cudaStream_t stream)
{
    if (n == 0) return compact_none(count, stream);
    BOOK_TRY(compact_check(in, out, n, count, scratch, bytes));
    const size_t tiles = ceil_div(n, dev_tile<int>::elems);
    tile_ctx<int> c = {};
    c.st = compact_at(scratch, n, false).st;
    BOOK_CLEAR_TO_LAUNCH();
    BOOK_TRY(lookback_reset<int>(c.st, n, stream));
    compact_gt_kernel<<<(unsigned)tiles, kDevThreads, 0, stream>>>(
        in, out, n, threshold, count, is_aligned(in, 16), c);
    return cudaGetLastError();
}

// <<Staged compaction kernel>>
// Each kept element stored by its thread, or the tile packed in place and
// copied out with consecutive stores.
enum class Store { scatter, pack };
template <Store STORE>
__global__ void __launch_bounds__(kStThreads, 3)
compact_gt_staged_kernel(const int *in, int *out, size_t n, int threshold,
                         size_t *count, bool aligned, tile_status<int> st)
{
    constexpr int V = st_tile<int>::vec;
    vec16<int> *buf = st_buf<int>();
    const size_t tile = take_tile_number(st.next);
    const size_t base = tile * st_tile<int>::elems;
    st_load(in, n, base, aligned, buf);
    int pre[kStRounds];
    const auto keep = [=](int v, size_t i) {
        return int(i < n && v > threshold);
    };
    const st_sums<int> s =
        st_prefixes<Status::packed>(buf, base, tile, st, keep, pre);
    if (STORE == Store::pack) {
        // <<Pack the kept elements of a staged tile in place>>
        int *slot = (int *)buf;            // slot j: the tile's j-th kept element
        #pragma unroll
        for (int r = 0; r < kStRounds; r++) {
            const vec16<int> q = buf[r * kStThreads + threadIdx.x];
            const size_t i = st_elem<int>(base, r);
            __syncthreads();               // round r is read by every thread
            int p = pre[r] - s.prefix;
            for (int k = 0; k < V; k++)
                if (keep(q.v[k], i + k)) slot[p++] = q.v[k];
        }
        __syncthreads();
        // <<Copy the packed run out with consecutive stores>>
        const int kept = s.total - s.prefix;
        for (int j = threadIdx.x; j < kept; j += kStThreads)
            out[(size_t)s.prefix + j] = slot[j];
    } else {
        // <<Scatter the kept elements of a staged tile>>
        #pragma unroll
        for (int r = 0; r < kStRounds; r++) {
            const vec16<int> q = buf[r * kStThreads + threadIdx.x];
            const size_t i = st_elem<int>(base, r);
            int p = pre[r];
            for (int k = 0; k < V; k++)
                if (keep(q.v[k], i + k)) out[p++] = q.v[k];
        }
    }
    if (tile == gridDim.x - 1 && threadIdx.x == 0) *count = (size_t)s.total;
}

// <<Staged compaction launchers>>
template <Store STORE>
static cudaError_t launch_staged(const int *in, int *out, size_t n,
                                 int threshold, size_t *count,
                                 void *scratch, size_t bytes,
                                 cudaStream_t stream)
{
    if (n == 0) return compact_none(count, stream);
    BOOK_TRY(compact_check(in, out, n, count, scratch, bytes));
    const unsigned tiles = (unsigned)ceil_div(n, st_tile<int>::elems);
    const tile_status<int> st = compact_at(scratch, n, false).st;
    BOOK_TRY(st_opt_in<compact_gt_staged_kernel<STORE>>());
    BOOK_CLEAR_TO_LAUNCH();
    BOOK_TRY(lookback_reset<int>(st, n, stream));
    compact_gt_staged_kernel<STORE><<<tiles, kStThreads, kStBytes, stream>>>(
        in, out, n, threshold, count, is_aligned(in, 16), st);
    return cudaGetLastError();
}

extern "C" cudaError_t compact_gt_staged_scatter(const int *in, int *out,
                                                 size_t n, int threshold,
                                                 size_t *count,
                                                 void *scratch, size_t bytes,
                                                 cudaStream_t stream)
{
    return launch_staged<Store::scatter>(in, out, n, threshold, count,
                                         scratch, bytes, stream);
}

extern "C" cudaError_t compact_gt_staged(const int *in, int *out, size_t n,
                                         int threshold, size_t *count,
                                         void *scratch, size_t bytes,
                                         cudaStream_t stream)
{
    return launch_staged<Store::pack>(in, out, n, threshold, count,
                                      scratch, bytes, stream);
}

// <<Ballot compaction constants>>
constexpr int kBaRounds = 12;                       // vectors a thread
constexpr int kBaElems = kStThreads * kBaRounds * 4;    // 12,288 ints
constexpr int kBaBytes = kBaElems * 4;              // 48 KiB
constexpr int kBaTotals = kStWarps * kBaRounds;     // one a warp and round
constexpr int kBaPer = kBaTotals / 32;              // a lane of warp 0
constexpr int kBaChunk = 4;                         // rounds a barrier
static_assert(kBaTotals % 32 == 0 && kBaRounds % kBaChunk == 0, "layout");

// <<Ballot compaction kernel>>
__global__ void __launch_bounds__(kStThreads, 4)
compact_gt_ballot_kernel(const int *in, int *out, size_t n, int threshold,
                         size_t *count, bool aligned, bool aligned_out,
                         tile_status<int> st)
{
    __shared__ int tot[kBaTotals], sums[2];
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    vec16<int> *buf = st_buf<int>();
    const size_t tile = take_tile_number(st.next);
    const size_t base = tile * kBaElems;
    st_load<int, kBaRounds>(in, n, base, aligned, buf);
    const auto keep = [=](int v, size_t i) { return i < n && v > threshold; };
    int pre[kBaRounds];
    // <<Count a tile's kept elements with ballots>>
    const unsigned below = (1u << lane) - 1;        // the lanes under mine
    #pragma unroll
    for (int r = 0; r < kBaRounds; r++) {
        const vec16<int> q = buf[r * kStThreads + threadIdx.x];
        const size_t i = st_elem<int>(base, r);
        int mine = 0, all = 0;
    #pragma unroll
        for (int k = 0; k < 4; k++) {
            const unsigned b = __ballot_sync(0xffffffffu, keep(q.v[k], i + k));
            mine += __popc(b & below);
            all += __popc(b);
        }
        pre[r] = mine;
        if (lane == 0) tot[r * kStWarps + warp] = all;
    }
    __syncthreads();
    if (warp == 0) {
        // <<Scan the round totals and look back>>
        int run[kBaPer], s = 0;
        #pragma unroll
        for (int j = 0; j < kBaPer; j++) {
            run[j] = s;
            s += tot[lane * kBaPer + j];
        }
        const int incl = scan_warp_inclusive(s);
        const int aggregate = __shfl_sync(0xffffffffu, incl, 31);
        const int prefix = look_back<Status::packed>(st, tile, aggregate);
        #pragma unroll
        for (int j = 0; j < kBaPer; j++) tot[lane * kBaPer + j] = incl - s + run[j];
        if (lane == 0) {
            sums[0] = prefix;
            sums[1] = aggregate;
        }
    }
    __syncthreads();
    // <<Pack a ballot-counted tile in place>>
    int *slot = (int *)buf;
    #pragma unroll
    for (int r0 = 0; r0 < kBaRounds; r0 += kBaChunk) {
        vec16<int> q[kBaChunk];
    #pragma unroll
        for (int c = 0; c < kBaChunk; c++)
            q[c] = buf[(r0 + c) * kStThreads + threadIdx.x];
        __syncthreads();               // these rounds are read by every thread
    #pragma unroll
        for (int c = 0; c < kBaChunk; c++) {
            const size_t i = st_elem<int>(base, r0 + c);
            int p = pre[r0 + c] + tot[(r0 + c) * kStWarps + warp];
    #pragma unroll
            for (int k = 0; k < 4; k++)
                if (keep(q[c].v[k], i + k)) slot[p++] = q[c].v[k];
        }
    }
    __syncthreads();
    // <<Copy the packed run out with sixteen-byte stores>>
    const int kept = sums[1];
    int *dst = out + sums[0];
    int head = aligned_out ? (4 - (sums[0] & 3)) & 3 : kept;
    if (head > kept) head = kept;
    const int body = (kept - head) / 4;
    for (int j = threadIdx.x; j < head; j += kStThreads) dst[j] = slot[j];
    for (int v = threadIdx.x; v < body; v += kStThreads) {
        const int *w = slot + head + 4 * v;
        *(int4 *)(dst + head + 4 * v) = make_int4(w[0], w[1], w[2], w[3]);
    }
    for (int j = head + 4 * body + threadIdx.x; j < kept; j += kStThreads)
        dst[j] = slot[j];
    if (tile == gridDim.x - 1 && threadIdx.x == 0)
        *count = (size_t)sums[0] + (size_t)kept;
}

// <<Ballot compaction launcher>>
extern "C" cudaError_t compact_gt_ballot(const int *in, int *out, size_t n,
                                         int threshold, size_t *count,
                                         void *scratch, size_t bytes,
                                         cudaStream_t stream)
{
    if (n == 0) return compact_none(count, stream);
    BOOK_TRY(compact_check(in, out, n, count, scratch, bytes));
    const unsigned tiles = (unsigned)ceil_div(n, kBaElems);
    const tile_status<int> st = compact_at(scratch, n, false).st;
    BOOK_TRY((st_opt_in<compact_gt_ballot_kernel, kBaBytes>()));
    BOOK_CLEAR_TO_LAUNCH();
    BOOK_TRY(lookback_reset<int>(st, n, stream));
    compact_gt_ballot_kernel<<<tiles, kStThreads, kBaBytes, stream>>>(
        in, out, n, threshold, count, is_aligned(in, 16),
        is_aligned(out, 16), st);
    return cudaGetLastError();
}

// <<Find repeats kernel>>
__global__ void __launch_bounds__(kDevThreads)
find_repeats_kernel(const int *a, size_t n, size_t *idx, size_t *count,
                    bool aligned, tile_ctx<int> c)
{
    constexpr int V = dev_tile<int>::vec;
    __shared__ unsigned long long tile_sh;
    if (threadIdx.x == 0) tile_sh = atomicAdd(c.st.next, 1ull);
    __syncthreads();
    const size_t tile = tile_sh, base = tile * dev_tile<int>::elems;
    const bool vec = aligned && base + dev_tile<int>::elems <= n;
    int x[kDevRounds][V], pos[kDevRounds][V];
    bool keep[kDevRounds][V];
    dev_load(a, n, base, vec, x, 0);
    // <<Flag the elements equal to their successor>>
    const unsigned lane = threadIdx.x % 32;
    #pragma unroll
    for (int r = 0; r < kDevRounds; r++) {
        const size_t i = dev_elem<int>(base, r);
        int next = __shfl_down_sync(0xffffffffu, x[r][0], 1);
        if (lane == 31 && i + V < n) next = a[i + V];
    #pragma unroll
        for (int k = 0; k < V; k++) {
            const int succ = k + 1 < V ? x[r][k + 1] : next;
            keep[r][k] = i + k + 1 < n && x[r][k] == succ;
            pos[r][k] = keep[r][k];
        }
    }
    const int total = scan_tile<kPrefixLookBackPacked>(pos, tile, c, true);
    // <<Scatter the indices of repeats>>
    #pragma unroll
    for (int r = 0; r < kDevRounds; r++)
    #pragma unroll
        for (int k = 0; k < V; k++)
            if (keep[r][k]) idx[pos[r][k]] = dev_elem<int>(base, r) + k;
    if (tile == gridDim.x - 1 && threadIdx.x == 0) *count = (size_t)total;
}

// <<Find repeats launcher>>
extern "C" cudaError_t find_repeats(const int *a, size_t n, size_t *idx,
                                    size_t *count, void *scratch,
                                    size_t bytes, cudaStream_t stream)
{
    if (n == 0) return compact_none(count, stream);
    BOOK_TRY(compact_check(a, idx, n, count, scratch, bytes));
    const size_t tiles = ceil_div(n, dev_tile<int>::elems);
    tile_ctx<int> c = {};
    c.st = compact_at(scratch, n, false).st;
    BOOK_CLEAR_TO_LAUNCH();
    BOOK_TRY(lookback_reset<int>(c.st, n, stream));
    find_repeats_kernel<<<(unsigned)tiles, kDevThreads, 0, stream>>>(
        a, n, idx, count, is_aligned(a, 16), c);
    return cudaGetLastError();
}
