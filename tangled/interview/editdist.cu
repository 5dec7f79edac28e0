// editdist.cu -- the edit-distance wavefronts.
#include "common/book.h"
#include "interview/editdist.h"

// <<One entry of the edit-distance table>>
// D[i][j] on diagonal d = i + j, from diagonal d-1 (c1) and d-2 (c2),
// each indexed by i.
__device__ __forceinline__ int ed_cell(const char *a, const char *b, int i,
                                       int j, const int *c1, const int *c2)
{
    if (i == 0) return j;
    if (j == 0) return i;
    int up = c1[i - 1] + 1, left = c1[i] + 1;
    int diag = c2[i - 1] + (a[i - 1] != b[j - 1]);
    return min(min(up, left), diag);
}

// <<Check an edit distance's arguments>>
static cudaError_t ed_check(const char *a, size_t la, const char *b,
                            size_t lb, int *dist)
{
    if (!dist || (la && !a) || (lb && !b)) return cudaErrorInvalidValue;
    if (la > ED_MAX_LEN || lb > ED_MAX_LEN) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    return cudaSuccess;
}
__global__ void ed_set_kernel(int *dist, int v) { *dist = v; }
static cudaError_t ed_set(int *dist, int v, cudaStream_t stream)
{
    ed_set_kernel<<<1, 1, 0, stream>>>(dist, v);
    return cudaGetLastError();
}

// <<Compute one diagonal, one thread an entry>>
__global__ void ed_diagonal_kernel(const char *a, const char *b, int d,
                                   int lo, int hi, const int *c1,
                                   const int *c2, int *c0)
{
    int i = lo + (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i <= hi) c0[i] = ed_cell(a, b, i, d - i, c1, c2);
}

// <<Launch one kernel a diagonal>>
extern "C" cudaError_t ed_diagonals(const char *a, size_t la, const char *b,
                                    size_t lb, int *work, int *dist,
                                    cudaStream_t stream)
{
    if (!work) return cudaErrorInvalidValue;
    BOOK_TRY(ed_check(a, la, b, lb, dist));
    if (la > lb) {                               // a is the shorter
        const char *t = a; a = b; b = t;
        size_t u = la; la = lb; lb = u;
    }
    if (la == 0) return ed_set(dist, (int)lb, stream);
    int m = (int)la, n = (int)lb;
    int *c[3] = {work, work + m + 1, work + 2 * (m + 1)};
    for (int d = 0; d <= m + n; d++) {
        int lo = d - n > 0 ? d - n : 0, hi = d < m ? d : m;
        unsigned grid = (unsigned)ceil_div((size_t)(hi - lo + 1), 256);
        ed_diagonal_kernel<<<grid, 256, 0, stream>>>(a, b, d, lo, hi, c[1],
                                                     c[2], c[0]);
        int *t = c[2]; c[2] = c[1]; c[1] = c[0]; c[0] = t;
    }
    BOOK_TRY(cudaGetLastError());
    return cudaMemcpyAsync(dist, c[1] + m, sizeof(int),
                           cudaMemcpyDeviceToDevice, stream);
}

// <<Sweep the diagonals with a group of threads>>
// t: this thread's rank in a group of width threads; sync(): the group's
// barrier.  c0, c1, c2: three arrays of la + 1 ints.  la <= lb.
template <typename Sync>
__device__ int ed_sweep(const char *a, int la, const char *b, int lb,
                        int *c0, int *c1, int *c2, int t, int width,
                        Sync sync)
{
    for (int d = 0; d <= la + lb; d++) {
        int lo = d - lb > 0 ? d - lb : 0, hi = d < la ? d : la;
        for (int i = lo + t; i <= hi; i += width)
            c0[i] = ed_cell(a, b, i, d - i, c1, c2);
        sync();                                  // diagonal d is complete
        int *r = c2; c2 = c1; c1 = c0; c0 = r;   // d-2 is free to reuse
    }
    return c1[la];
}

// <<A block's barrier and a warp's>>
struct block_barrier {
    __device__ void operator()() const { __syncthreads(); }
};
struct warp_barrier {
    __device__ void operator()() const { __syncwarp(); }
};

// <<Sweep one pair in one block>>
__global__ void ed_block_kernel(const char *a, int la, const char *b, int lb,
                                int *dist)
{
    extern __shared__ int diag[];
    int *c0 = diag, *c1 = diag + la + 1, *c2 = diag + 2 * (la + 1);
    int v = ed_sweep(a, la, b, lb, c0, c1, c2, threadIdx.x, blockDim.x,
                     block_barrier());
    if (threadIdx.x == 0) *dist = v;
}

// <<Launch one block for one pair>>
extern "C" cudaError_t ed_block(const char *a, size_t la, const char *b,
                                size_t lb, int *dist, cudaStream_t stream)
{
    if (la > lb) {                               // a is the shorter
        const char *t = a; a = b; b = t;
        size_t u = la; la = lb; lb = u;
    }
    if (la > ED_BLOCK_MAX) return cudaErrorInvalidValue;
    BOOK_TRY(ed_check(a, la, b, lb, dist));
    if (la == 0) return ed_set(dist, (int)lb, stream);
    size_t smem = 3 * (la + 1) * sizeof(int);    // at most 48012 bytes
    ed_block_kernel<<<1, 1024, smem, stream>>>(a, (int)la, b, (int)lb, dist);
    return cudaGetLastError();
}

// <<Sweep many pairs, one warp each>>
constexpr int kEdWarps = 8;
__global__ void ed_batch_kernel(const char *s, size_t nchars,
                                const size_t *off, size_t pairs, int *dist)
{
    __shared__ int diag[kEdWarps][3][ED_BATCH_MAX + 1];
    const int w = threadIdx.x / 32, lane = threadIdx.x % 32;
    const size_t k = (size_t)blockIdx.x * kEdWarps + w;
    if (k >= pairs) return;                      // the whole warp leaves
    size_t a0 = off[2 * k], b0 = off[2 * k + 1], e = off[2 * k + 2];
    if (a0 > b0 || b0 > e || e > nchars) {
        if (lane == 0) dist[k] = -1;
        return;
    }
    const char *a = s + a0, *b = s + b0;
    size_t la = b0 - a0, lb = e - b0;
    if (la > lb) {                               // a is the shorter
        const char *t = a; a = b; b = t;
        size_t u = la; la = lb; lb = u;
    }
    if (la > ED_BATCH_MAX || lb > ED_MAX_LEN) {
        if (lane == 0) dist[k] = -1;
        return;
    }
    int v = ed_sweep(a, (int)la, b, (int)lb, diag[w][0], diag[w][1],
                     diag[w][2], lane, 32, warp_barrier());
    if (lane == 0) dist[k] = v;
}

// <<Launch one warp a pair>>
extern "C" cudaError_t ed_batch(const char *s, size_t nchars,
                                const size_t *off, size_t pairs, int *dist,
                                cudaStream_t stream)
{
    if (!off || !dist || (nchars && !s)) return cudaErrorInvalidValue;
    if (pairs == 0) return cudaSuccess;
    size_t blocks = ceil_div(pairs, kEdWarps);
    if (blocks > 0x7fffffff) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    ed_batch_kernel<<<(unsigned)blocks, 32 * kEdWarps, 0, stream>>>(
        s, nchars, off, pairs, dist);
    return cudaGetLastError();
}

// <<A tile's edges and characters in shared memory>>
constexpr int kEdTile = ED_TILE, kEdTileWarps = 4;   // tiles a block
static_assert(kEdTile == 64, "the sweep gives each lane two rows");
struct ed_tile_edges {
    int top[kEdTile];       // D[i0][j0 + 1 + c]: the row above the tile
    int left[kEdTile + 1];  // D[i0 + r][j0], r = 0..T: corner, left column
    char a[kEdTile], b[kEdTile];                  // the tile's characters
};

// <<Compute one tile with one warp>>
// Tile (ti, tj), ti + tj = k: entries (i0 + 1 + r, j0 + 1 + c), r and c in
// [0, ED_TILE).  row: D[i0][j0 + c], c = 0..T, its column of tiles' edge;
// col: D[i0 + 1 + r][j0], its row of tiles' edge.  Both are read, then
// overwritten with the tile's bottom row and right column.
__global__ void ed_tiled_kernel(const char *a, int m, const char *b, int n,
                                int k, int lo, int tiles, int *rows,
                                int *cols, int *dist)
{
    __shared__ ed_tile_edges sh[kEdTileWarps];
    const int w = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int t = (int)blockIdx.x * kEdTileWarps + w;
    if (t >= tiles) return;                      // the whole warp leaves
    const int ti = lo + t, tj = k - ti, i0 = ti * kEdTile, j0 = tj * kEdTile;
    int *row = rows + (size_t)tj * (kEdTile + 1);
    int *col = cols + (size_t)ti * kEdTile;
    ed_tile_edges &e = sh[w];
    // <<Load a tile's edges and characters>>
    for (int x = lane; x < kEdTile; x += 32) {
        e.top[x] = ti == 0 ? j0 + 1 + x : row[1 + x];
        e.left[1 + x] = tj == 0 ? i0 + 1 + x : col[x];
        e.a[x] = i0 + x < m ? a[i0 + x] : 0;       // past the end: any value
        e.b[x] = j0 + x < n ? b[j0 + x] : 0;
    }
    if (lane == 0) e.left[0] = ti == 0 ? j0 : row[0];
    __syncwarp();
    // <<Sweep the tile, two rows a lane>>
    // <<Start a lane's two rows>>
    // Lane l: rows 2l and 2l + 1, at columns ca = s - 2l and cb = ca - 1 at
    // step s.  va, vb: the rows' last entries (their left neighbours); da:
    // D[2l - 1][ca - 1]; pa: D[2l][cb - 1]; bp: b at column cb.
    const int l2 = 2 * lane;
    int va = e.left[l2 + 1], vb = e.left[l2 + 2], da = e.left[l2], pa = 0;
    const char a0 = e.a[l2], a1 = e.a[l2 + 1];
    char bp = 0;
    // D[m][n], in the last tile, at column ta of row 2l or tb of row 2l + 1
    const bool last = i0 + kEdTile >= m && j0 + kEdTile >= n;
    const int ta = last && l2 == m - 1 - i0 ? n - 1 - j0 : -1;
    const int tb = last && l2 + 1 == m - 1 - i0 ? n - 1 - j0 : -1;
    for (int s = 0; s < kEdTile + 63; s++) {
        // D[2l - 1][ca] from lane l - 1; lane 0's, the top row, from lane 31
        int send = lane == 31 ? e.top[s & (kEdTile - 1)] : vb;
        int up = __shfl_sync(0xffffffffu, send, (lane + 31) % 32);
        int ca = s - l2, cb = ca - 1;
        bool ona = ca >= 0 && ca < kEdTile, onb = cb >= 0 && cb < kEdTile;
        char bc = e.b[ca & (kEdTile - 1)];
        int nb = min(min(va, vb) + 1, pa + (a1 != bp));   // D[2l + 1][cb]
        int na = min(min(up, va) + 1, da + (a0 != bc));   // D[2l][ca]
        if (onb) vb = nb;
        if (ona) { pa = va; va = na; da = up; }
        if (onb && lane == 31) row[1 + cb] = vb;   // the tile's bottom row
        if (onb && cb == tb) *dist = vb;                 // D[m][n]
        if (ona && ca == ta) *dist = va;
        bp = bc;
    }
    // <<Store the tile's right column and next corner>>
    col[l2] = va;
    col[l2 + 1] = vb;
    if (lane == 0) row[0] = e.left[kEdTile];
}

// <<Launch a kernel a diagonal of tiles>>
extern "C" cudaError_t ed_tiled(const char *a, size_t la, const char *b,
                                size_t lb, int *work, int *dist,
                                cudaStream_t stream)
{
    if (!work) return cudaErrorInvalidValue;
    BOOK_TRY(ed_check(a, la, b, lb, dist));
    if (la == 0 || lb == 0) return ed_set(dist, (int)(la + lb), stream);
    int R = (int)ceil_div(la, kEdTile), C = (int)ceil_div(lb, kEdTile);
    int *rows = work, *cols = work + (size_t)C * (kEdTile + 1);
    for (int k = 0; k < R + C - 1; k++) {        // diagonals of tiles
        int lo = k - C + 1 > 0 ? k - C + 1 : 0, hi = k < R ? k : R - 1;
        unsigned grid = (unsigned)ceil_div((size_t)(hi - lo + 1),
                                           kEdTileWarps);
        ed_tiled_kernel<<<grid, 32 * kEdTileWarps, 0, stream>>>(
            a, (int)la, b, (int)lb, k, lo, hi - lo + 1, rows, cols, dist);
    }
    return cudaGetLastError();
}
