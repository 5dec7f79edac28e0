// Solution to the scan chapter's exercise 4: scan-then-propagate with max.
// (1) Each block scans its tile of 1024 elements (Hillis-Steele on two
// arrays, INT_MIN, the identity, past n) and writes the tile's maximum to
// the scratch.  (2) One block turns the tile maxima into exclusive
// prefixes, each thread a contiguous chunk.  (3) Each element takes the
// max of its in-tile scan and its tile's prefix.  Only associativity is
// used; max is also idempotent, so step (3) needs no care at tile starts.
#include <limits.h>
#include "common/book.h"
#include "scan/scan.h"
#include "scan/exercises.h"

enum { kMaxTile = 1024 };

// Hillis-Steele max-scan of one value a thread over the block; returns the
// inclusive scan, puts the exclusive one in *excl and the total in *total.
__device__ int block_max_scan(int v, int *excl, int *total)
{
    __shared__ int buf[2][kMaxTile];
    const unsigned t = threadIdx.x;
    int p = 0;
    buf[0][t] = v;
    __syncthreads();
    for (unsigned d = 1; d < kMaxTile; d *= 2) {
        int x = buf[p][t];
        if (t >= d) x = max(x, buf[p][t - d]);
        buf[1 - p][t] = x;
        p = 1 - p;
        __syncthreads();
    }
    *excl = t == 0 ? INT_MIN : buf[p][t - 1];
    *total = buf[p][kMaxTile - 1];
    return buf[p][t];
}

__global__ void max_tiles_kernel(const int *in, int *out, size_t n,
                                 int exclusive, int *tile_max)
{
    size_t i = blockIdx.x * (size_t)kMaxTile + threadIdx.x;
    int excl, total;
    int incl = block_max_scan(i < n ? in[i] : INT_MIN, &excl, &total);
    if (i < n) out[i] = exclusive ? excl : incl;
    if (threadIdx.x == 0) tile_max[blockIdx.x] = total;
}

__global__ void max_prefixes_kernel(int *tile_max, size_t tiles)
{
    size_t chunk = (tiles + kMaxTile - 1) / kMaxTile;
    size_t lo = threadIdx.x * chunk, hi = lo + chunk < tiles ? lo + chunk : tiles;
    int m = INT_MIN;
    for (size_t k = lo; k < hi; k++) m = max(m, tile_max[k]);
    int excl, total;
    block_max_scan(m, &excl, &total);
    for (size_t k = lo; k < hi; k++) {        // exclusive prefixes in place
        int v = tile_max[k];
        tile_max[k] = excl;
        excl = max(excl, v);
    }
}

__global__ void max_add_prefix_kernel(int *out, size_t n, const int *prefix)
{
    size_t i = blockIdx.x * (size_t)kMaxTile + threadIdx.x;
    if (i < n) out[i] = max(out[i], prefix[blockIdx.x]);
}

extern "C" cudaError_t scan_max_i32(const int *in, int *out, size_t n,
                                    scan_kind kind, void *scratch,
                                    size_t bytes, cudaStream_t stream)
{
    if (kind != SCAN_INCLUSIVE && kind != SCAN_EXCLUSIVE)
        return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    if (!in || !out || !scratch || n >= ((size_t)1 << 31) ||
        bytes < scan_max_scratch_bytes(n))
        return cudaErrorInvalidValue;
    size_t tiles = ceil_div(n, kMaxTile);
    int *tile_max = (int *)scratch;
    BOOK_CLEAR_TO_LAUNCH();
    max_tiles_kernel<<<(unsigned)tiles, kMaxTile, 0, stream>>>(
        in, out, n, kind == SCAN_EXCLUSIVE, tile_max);
    BOOK_TRY(cudaGetLastError());
    max_prefixes_kernel<<<1, kMaxTile, 0, stream>>>(tile_max, tiles);
    BOOK_TRY(cudaGetLastError());
    max_add_prefix_kernel<<<(unsigned)tiles, kMaxTile, 0, stream>>>(
        out, n, tile_max);
    return cudaGetLastError();
}
