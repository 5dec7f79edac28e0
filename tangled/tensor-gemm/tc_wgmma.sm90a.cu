// tc_wgmma.sm90a.cu -- wgmma on tiles that TMA copies into swizzled
// shared memory: one warpgroup, then warp-specialized, then persistent.
#include "arch/sm90.cuh"
#include "common/book.h"
#include "tensor-gemm/tc_args.cuh"

namespace {

// <<The tensor maps of A and B>>
// A rows x cols row-major bf16 matrix, read in boxes of 64 columns by
// box_rows rows.  Elements outside the matrix arrive as zeros.
cudaError_t make_map(CUtensorMap *map, const book_bf16 *p, size_t rows,
                     size_t cols, unsigned box_rows)
{
    cuuint64_t dim[2] = {cols, rows}, stride[1] = {cols * 2};
    return tensor_map_bf16(map, p, 2, dim, stride, box_rows);
}
constexpr int TILE_K = 64;              // one 128-byte swizzle row of bf16

// <<Sizes and offsets in the tiles of A and B>>
// A is K-major, 64 columns of K in each 128-byte row; B is boxes of
// TILE_K rows of K by 64 columns of N (MN-major), one after the other.
using RowsA = swz_tile<64, TILE_K>;      // one warpgroup's rows of A
using BoxB = swz_tile<TILE_K, 64>;       // one box of B
constexpr int BOX_B = BoxB::bytes;       // 64 k x 64 n
constexpr int A_HALF = RowsA::bytes;     // to the next warpgroup's rows
constexpr int A_K16 = RowsA::cols(16);   // to the next 16 of K in A
constexpr int B_K16 = BoxB::rows(16);    // and in B
constexpr int ATOM = RowsA::atom;        // from 8 rows to the next 8

// <<Store a warpgroup's accumulators>>
// Thread t of the warpgroup holds, for each group j of 8 columns, the
// pair of columns 2 (t % 4) of row 16 (t / 32) + (t % 32) / 4 and 8 more.
template <int R>
__device__ __forceinline__ void wg_store(const float (&d)[R], void *C,
                                         tc_out out, int M, int N, int row0,
                                         int col0)
{
    const int t = threadIdx.x % 128;
    const int row = row0 + 16 * (t / 32) + (t % 32) / 4;
    const int col = col0 + 2 * (t % 4);
#pragma unroll
    for (int j = 0; j < R / 4; j++) {
        tc_store2(C, out, M, N, row, col + 8 * j, d[4 * j], d[4 * j + 1]);
        tc_store2(C, out, M, N, row + 8, col + 8 * j, d[4 * j + 2],
                  d[4 * j + 3]);
    }
}

// <<The one-warpgroup wgmma kernel>>
constexpr int WG_BM = 128, WG_BN = 128, WG_STAGES = 4;
constexpr int WG_A = swz_tile<WG_BM, TILE_K>::bytes;  // a stage of A
constexpr int WG_B = swz_tile<TILE_K, WG_BN>::bytes;  // and of B
constexpr int WG_SMEM = 1024 + WG_STAGES * (WG_A + WG_B) + 64;
// Where each step waits for its stage: before the wgmma read it, or
// after them (wrong on purpose); or before, keeping one group of wgmma
// in flight across the refill (the ablation of step 4).
enum class Wait { early, wrong_late, one_in_flight };

template <Wait W>
__global__ void __launch_bounds__(128)
wgmma_kernel(const __grid_constant__ CUtensorMap mapA,
             const __grid_constant__ CUtensorMap mapB, void *C, tc_out out,
             int M, int N, int K)
{
    extern __shared__ uint8_t raw[];
    uint8_t *As = align1024(raw), *Bs = As + WG_STAGES * WG_A;
    uint64_t *full = (uint64_t *)(Bs + WG_STAGES * WG_B);
    const int m0 = blockIdx.y * WG_BM, n0 = blockIdx.x * WG_BN;
    const int KT = (K + TILE_K - 1) / TILE_K;
    if (W == Wait::wrong_late) {
        // <<Wrong on purpose: fill the stages with NaNs>>
        // So that a read before the copy lands shows in C.  The fence orders
        // the generic stores before the copies of the async proxy.
        for (int i = threadIdx.x; i < WG_STAGES * (WG_A + WG_B) / 4; i += 128)
            ((uint32_t *)As)[i] = 0x7fc07fc0u;
        fence_proxy_async();
    }
    if (threadIdx.x == 0) {
        for (int s = 0; s < WG_STAGES; s++) bar_init(&full[s], 1);
        bar_init_fence();
    }
    __syncthreads();
    // <<Fill a stage of the one-warpgroup kernel>>
    auto load = [&](int kt) {
        int s = kt % WG_STAGES;
        bar_expect(&full[s], WG_A + WG_B);
        tma_load(As + s * WG_A, &mapA, &full[s], kt * TILE_K, m0);
        for (int i = 0; i < WG_BN / 64; i++)
            tma_load(Bs + s * WG_B + i * BOX_B, &mapB, &full[s],
                    n0 + 64 * i, kt * TILE_K);
    };
    if (threadIdx.x == 0)
        for (int kt = 0; kt < WG_STAGES && kt < KT; kt++) load(kt);
    float d0[64] = {}, d1[64] = {};
    for (int kt = 0; kt < KT; kt++) {
        const int s = kt % WG_STAGES, parity = (kt / WG_STAGES) & 1;
        if (W != Wait::wrong_late) bar_wait(&full[s], parity);
        // <<Multiply stage s with eight wgmma>>
        acc_fence(d0);
        acc_fence(d1);
        wgmma_fence();
        #pragma unroll
        for (int ks = 0; ks < TILE_K / 16; ks++) {
            uint64_t db = wgmma_desc(Bs + s * WG_B + ks * B_K16, BOX_B, ATOM);
            uint8_t *a = As + s * WG_A + ks * A_K16;
            wgmma_ss<128, 1>(d0, wgmma_desc(a, 16, ATOM), db, 1);
            wgmma_ss<128, 1>(d1, wgmma_desc(a + A_HALF, 16, ATOM), db, 1);
        }
        wgmma_commit();
        if (W == Wait::one_in_flight)
            wgmma_wait<1>();                     // only step kt - 1 is done
        else
            wgmma_wait<0>();                     // the tensor pipe drains
        acc_fence(d0);
        acc_fence(d1);
        if (W == Wait::wrong_late) {
            // <<Wrong on purpose: wait for the stage after reading it>>
            bar_wait(&full[s], parity);    // too late: the wgmma read it
        }
        __syncthreads();                 // every warp is done with stage s
        if (W == Wait::one_in_flight) {
            // <<Refill the stage of the step before>>
            if (threadIdx.x == 0 && kt >= 1 && kt - 1 + WG_STAGES < KT)
                load(kt - 1 + WG_STAGES);
        } else if (threadIdx.x == 0 && kt + WG_STAGES < KT) {
            load(kt + WG_STAGES);
        }
    }
    wgmma_wait<0>();
    acc_fence(d0);
    acc_fence(d1);
    wg_store(d0, C, out, M, N, m0, n0);
    wg_store(d1, C, out, M, N, m0 + 64, n0);
}

// <<The tile order for the L2>>
constexpr int WS_BM = 128, WS_BN = 256, WS_STAGES = 4, WS_GROUP = 8;
constexpr int WS_A = swz_tile<WS_BM, TILE_K>::bytes;  // a stage of A
// A stage of B, and the shared memory of a block, for tiles BN wide.
template <int BN> constexpr int ws_b = swz_tile<TILE_K, BN>::bytes;
template <int BN>
constexpr int ws_smem = 1024 + WS_STAGES * (WS_A + ws_b<BN>) + 128;
constexpr int WS_B = ws_b<WS_BN>, WS_SMEM = ws_smem<WS_BN>;
// One block per tile, or as many blocks as SMs, each looping over tiles.
enum class Grid { one_tile_per_block, persistent };

// Tile t: group rows of tiles at a time, column after column (group = 1:
// row after row).
__device__ __forceinline__ void ws_tile(int t, int tiles_m, int tiles_n,
                                        int group_rows, int *tm, int *tn)
{
    int group = t / (group_rows * tiles_n), first = group * group_rows;
    int rows = min(tiles_m - first, group_rows);
    int in = t % (group_rows * tiles_n);
    *tm = first + in % rows;
    *tn = in / rows;
}

// <<Set up the barriers of the stages>>
__device__ __forceinline__ void ws_init_bars(uint64_t *full,
                                             uint64_t *empty, int readers)
{
    if (threadIdx.x == 0) {
        for (int s = 0; s < WS_STAGES; s++) {
            bar_init(&full[s], 1);
            bar_init(&empty[s], readers);
        }
        bar_init_fence();
    }
}

// <<Consume the stages of one tile>>
// How a consumer warp gives a stage back: an arrival on its own block's
// empty barrier, or on that of both blocks of a cluster pair (from lane
// 0 of every warp, or from two threads of each warpgroup, one a block);
// or on its own as soon as the stage has landed (wrong on purpose).
enum class Release { local, pair, pair_per_warpgroup, wrong_early };
// Warpgroup c's 64 x BN part of a tile, d = A B over its KT stages.
template <Release R, int BN>
__device__ __forceinline__ void
ws_consume_tile(float (&d)[BN / 2], uint8_t *As, uint8_t *Bs,
                uint64_t *full, uint64_t *empty, int KT, int &it, int c,
                int lane)
{
    auto release = [&](int s) {
        const int t = threadIdx.x % 128;     // in the warpgroup
        if (R == Release::pair_per_warpgroup) {
            if (t < 2) bar_arrive_in(&empty[s], t);
        } else if (lane == 0) {
            if (R == Release::pair) {
                bar_arrive_in(&empty[s], 0);
                bar_arrive_in(&empty[s], 1);
            } else {
                bar_arrive(&empty[s]);
            }
        }
    };
#pragma unroll
    for (int i = 0; i < BN / 2; i++) d[i] = 0.0f;
    int prev = -1;
    for (int kt = 0; kt < KT; kt++, it++) {
        const int s = it % WS_STAGES;
        bar_wait(&full[s], (it / WS_STAGES) & 1);
        if (R == Release::wrong_early) {
            // <<Wrong on purpose: give the stage back before it is read>>
            release(s);                      // too early: nothing has read it yet
            __nanosleep(4000);               // the wgmma below wait behind others
        }
        acc_fence(d);
        wgmma_fence();
#pragma unroll
        for (int ks = 0; ks < TILE_K / 16; ks++)
            wgmma_ss<BN, 1>(
                d,
                wgmma_desc(As + s * WS_A + c * A_HALF + ks * A_K16, 16, ATOM),
                wgmma_desc(Bs + s * ws_b<BN> + ks * B_K16, BOX_B, ATOM), 1);
        wgmma_commit();
        wgmma_wait<1>();          // the step before this one is done
        acc_fence(d);
        if (R != Release::wrong_early && prev >= 0) release(prev);
        prev = s;
    }
    wgmma_wait<0>();
    acc_fence(d);
    if (R != Release::wrong_early && prev >= 0) release(prev);
}

// <<The warp-specialized kernel>>
// G: the grid; BN: the tile's width, 256 or 128 (an ablation); GROUP:
// the rows of tiles taken together; R: how a consumer gives a stage back.
template <Grid G, int BN, int GROUP, Release R>
__global__ void __launch_bounds__(384, 1)
ws_kernel(const __grid_constant__ CUtensorMap mapA,
          const __grid_constant__ CUtensorMap mapB, void *C, tc_out out,
          int M, int N, int K)
{
    extern __shared__ uint8_t raw[];
    uint8_t *As = align1024(raw), *Bs = As + WS_STAGES * WS_A;
    uint64_t *full = (uint64_t *)(Bs + WS_STAGES * ws_b<BN>);
    uint64_t *empty = full + WS_STAGES;
    const int KT = (K + TILE_K - 1) / TILE_K;
    const int tiles_m = (M + WS_BM - 1) / WS_BM;
    const int tiles_n = (N + BN - 1) / BN;
    const int tiles = tiles_m * tiles_n;
    const int step = G == Grid::persistent ? (int)gridDim.x : tiles;
    ws_init_bars(full, empty, 8);    // one arrival per consumer warp
    __syncthreads();
    if (threadIdx.x < 128) {
        setmaxnreg_dec<40>();
        if (threadIdx.x == 0) {
            // <<The producer: fill stages as they empty>>
            int it = 0;
            for (int t = blockIdx.x; t < tiles; t += step) {
                int tm, tn;
                ws_tile(t, tiles_m, tiles_n, GROUP, &tm, &tn);
                for (int kt = 0; kt < KT; kt++, it++) {
                    int s = it % WS_STAGES;
                    bar_wait(&empty[s], ((it / WS_STAGES) & 1) ^ 1);
                    bar_expect(&full[s], WS_A + ws_b<BN>);
                    tma_load(As + s * WS_A, &mapA, &full[s], kt * TILE_K,
                             tm * WS_BM);
                    for (int i = 0; i < BN / 64; i++)
                        tma_load(Bs + s * ws_b<BN> + i * BOX_B, &mapB,
                                &full[s], tn * BN + 64 * i, kt * TILE_K);
                }
            }
        }
        return;
    }
    setmaxnreg_inc<232>();
    // <<The consumers: multiply full stages, release them, store>>
    const int c = threadIdx.x / 128 - 1, lane = threadIdx.x % 32;
    int it = 0;
    for (int t = blockIdx.x; t < tiles; t += step) {
        int tm, tn;
        ws_tile(t, tiles_m, tiles_n, GROUP, &tm, &tn);
        float d[BN / 2];
        ws_consume_tile<R, BN>(d, As, Bs, full, empty, KT, it, c, lane);
        wg_store(d, C, out, M, N, tm * WS_BM + c * 64, tn * BN);
    }
}

// <<The cluster kernel>>
// R: Release::pair (every consumer warp arrives on both blocks) or
// Release::pair_per_warpgroup (each warpgroup once on each block).
template <Release R>
__global__ void __launch_bounds__(384, 1)
cluster_kernel(const __grid_constant__ CUtensorMap mapA,
               const __grid_constant__ CUtensorMap mapB, void *C,
               tc_out out, int M, int N, int K)
{
    extern __shared__ uint8_t raw[];
    uint8_t *As = align1024(raw), *Bs = As + WS_STAGES * WS_A;
    uint64_t *full = (uint64_t *)(Bs + WS_STAGES * WS_B);
    uint64_t *empty = full + WS_STAGES;
    const int KT = (K + TILE_K - 1) / TILE_K, rank = cluster_rank();
    const int tiles_m = (M + WS_BM - 1) / WS_BM;
    const int tiles_n = (N + WS_BN - 1) / WS_BN;
    int tm2, tn;                         // this pair's tile, in pairs of rows
    ws_tile(blockIdx.x / 2, (tiles_m + 1) / 2, tiles_n, WS_GROUP, &tm2,
            &tn);
    const int tm = 2 * tm2 + rank;       // past M for an odd count: zeros
    // Eight consumer warps, or two consumer warpgroups, per block.
    ws_init_bars(full, empty, R == Release::pair ? 16 : 4);
    cluster_sync();
    if (threadIdx.x < 128) {
        setmaxnreg_dec<40>();
        if (threadIdx.x == 0) {
            // <<The cluster's producer: its A, half of B to both>>
            for (int kt = 0; kt < KT; kt++) {
                int s = kt % WS_STAGES;
                bar_wait(&empty[s], ((kt / WS_STAGES) & 1) ^ 1);
                bar_expect(&full[s], WS_A + WS_B);
                tma_load(As + s * WS_A, &mapA, &full[s], kt * TILE_K,
                         tm * WS_BM);
                for (int i = 2 * rank; i < 2 * rank + 2; i++)
                    tma_load_multicast(Bs + s * WS_B + i * BOX_B, &mapB,
                                       &full[s], tn * WS_BN + 64 * i,
                                       kt * TILE_K, 0x3);
            }
        }
    } else {
        setmaxnreg_inc<232>();
        // <<The cluster's consumers: release to both blocks>>
        const int c = threadIdx.x / 128 - 1, lane = threadIdx.x % 32;
        float d[128];
        int it = 0;                          // one tile: it runs as kt
        ws_consume_tile<R, WS_BN>(d, As, Bs, full, empty, KT, it, c, lane);
        wg_store(d, C, out, M, N, tm * WS_BM + c * 64, tn * WS_BN);
    }
    cluster_sync();
}

// <<The Hopper launchers>>
cudaError_t hopper_args(const book_bf16 *A, const book_bf16 *B, void *C,
                        tc_out out, size_t M, size_t N, size_t K,
                        cudaStream_t stream, int *done, CUtensorMap *mapA,
                        CUtensorMap *mapB, unsigned box_m)
{
    cudaError_t err = tc_common_args(A, B, C, out, M, N, K, stream, done);
    if (*done) return err;
    *done = 1;
    if (!tc_rows_whole_chunks(N, K) || !is_aligned(A, 16) ||
        !is_aligned(B, 16) || !is_aligned(C, 16))
        return cudaErrorInvalidValue;
    if (book_device_cc() != 90) return cudaErrorNoKernelImageForDevice;
    if ((err = make_map(mapA, A, M, K, box_m)) != cudaSuccess) return err;
    if ((err = make_map(mapB, B, K, N, TILE_K)) != cudaSuccess) return err;
    *done = 0;
    return cudaSuccess;
}

template <Wait W>
cudaError_t wgmma_launch(const book_bf16 *A, const book_bf16 *B, void *C,
                         tc_out out, size_t M, size_t N, size_t K,
                         cudaStream_t stream)
{
    CUtensorMap mapA, mapB;
    int done;
    cudaError_t err = hopper_args(A, B, C, out, M, N, K, stream, &done,
                                  &mapA, &mapB, WG_BM);
    if (done) return err;
    dim3 grid((unsigned)((N + WG_BN - 1) / WG_BN),
              (unsigned)((M + WG_BM - 1) / WG_BM));
    if (grid.y > 65535) return cudaErrorInvalidValue;
    err = cudaFuncSetAttribute(wgmma_kernel<W>,
                               cudaFuncAttributeMaxDynamicSharedMemorySize,
                               WG_SMEM);
    if (err != cudaSuccess) return err;
    BOOK_CLEAR_TO_LAUNCH();
    wgmma_kernel<W><<<grid, 128, WG_SMEM, stream>>>(
        mapA, mapB, C, out, (int)M, (int)N, (int)K);
    return cudaGetLastError();
}

template <Release R>
cudaError_t cluster_launch(const book_bf16 *A, const book_bf16 *B, void *C,
                           tc_out out, size_t M, size_t N, size_t K,
                           cudaStream_t stream)
{
    CUtensorMap mapA, mapB;
    int done;
    cudaError_t err = hopper_args(A, B, C, out, M, N, K, stream, &done,
                                  &mapA, &mapB, WS_BM);
    if (done) return err;
    size_t pairs = ((M + 2 * WS_BM - 1) / (2 * WS_BM)) *
                   ((N + WS_BN - 1) / WS_BN);
    if (pairs > INT32_MAX / 2) return cudaErrorInvalidValue;
    err = cudaFuncSetAttribute(cluster_kernel<R>,
                               cudaFuncAttributeMaxDynamicSharedMemorySize,
                               WS_SMEM);
    if (err != cudaSuccess) return err;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = 2;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((unsigned)(2 * pairs));
    cfg.blockDim = dim3(384);
    cfg.dynamicSmemBytes = WS_SMEM;
    cfg.stream = stream;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    BOOK_CLEAR_TO_LAUNCH();
    return cudaLaunchKernelEx(&cfg, cluster_kernel<R>, mapA, mapB, C, out,
                              (int)M, (int)N, (int)K);
}

template <Grid G, int BN = WS_BN, int GROUP = WS_GROUP,
          Release R = Release::local>
cudaError_t ws_launch(const book_bf16 *A, const book_bf16 *B, void *C,
                      tc_out out, size_t M, size_t N, size_t K,
                      cudaStream_t stream)
{
    CUtensorMap mapA, mapB;
    int done;
    cudaError_t err = hopper_args(A, B, C, out, M, N, K, stream, &done,
                                  &mapA, &mapB, WS_BM);
    if (done) return err;
    size_t tiles = ((M + WS_BM - 1) / WS_BM) * ((N + BN - 1) / BN);
    if (tiles > INT32_MAX) return cudaErrorInvalidValue;
    unsigned grid = (unsigned)tiles;
    if (G == Grid::persistent) {
        int sms;
        if ((err = book_sm_count(&sms)) != cudaSuccess) return err;
        if (grid > (unsigned)sms) grid = (unsigned)sms;
    }
    err = cudaFuncSetAttribute(ws_kernel<G, BN, GROUP, R>,
                               cudaFuncAttributeMaxDynamicSharedMemorySize,
                               ws_smem<BN>);
    if (err != cudaSuccess) return err;
    BOOK_CLEAR_TO_LAUNCH();
    ws_kernel<G, BN, GROUP, R><<<grid, 384, ws_smem<BN>, stream>>>(
        mapA, mapB, C, out, (int)M, (int)N, (int)K);
    return cudaGetLastError();
}
} // namespace

// <<The Hopper entry points>>
extern "C" cudaError_t tc_gemm_wgmma(const book_bf16 *A, const book_bf16 *B,
                                     void *C, tc_out out, size_t M, size_t N,
                                     size_t K, cudaStream_t stream)
{
    return wgmma_launch<Wait::early>(A, B, C, out, M, N, K, stream);
}
extern "C" cudaError_t tc_gemm_wrong_late_wait(const book_bf16 *A,
                                               const book_bf16 *B, void *C,
                                               tc_out out, size_t M, size_t N,
                                               size_t K, cudaStream_t stream)
{
    return wgmma_launch<Wait::wrong_late>(A, B, C, out, M, N, K, stream);
}
extern "C" cudaError_t tc_gemm_ws(const book_bf16 *A, const book_bf16 *B,
                                  void *C, tc_out out, size_t M, size_t N,
                                  size_t K, cudaStream_t stream)
{
    return ws_launch<Grid::one_tile_per_block>(A, B, C, out, M, N, K,
                                               stream);
}
extern "C" cudaError_t tc_gemm_persistent(const book_bf16 *A,
                                          const book_bf16 *B, void *C,
                                          tc_out out, size_t M, size_t N,
                                          size_t K, cudaStream_t stream)
{
    return ws_launch<Grid::persistent>(A, B, C, out, M, N, K, stream);
}
extern "C" cudaError_t tc_gemm_wgmma_in_flight(const book_bf16 *A,
                                               const book_bf16 *B, void *C,
                                               tc_out out, size_t M, size_t N,
                                               size_t K, cudaStream_t stream)
{
    return wgmma_launch<Wait::one_in_flight>(A, B, C, out, M, N, K, stream);
}
extern "C" cudaError_t tc_gemm_ws_128(const book_bf16 *A, const book_bf16 *B,
                                      void *C, tc_out out, size_t M,
                                      size_t N, size_t K,
                                      cudaStream_t stream)
{
    return ws_launch<Grid::one_tile_per_block, 128>(A, B, C, out, M, N, K,
                                                    stream);
}
extern "C" cudaError_t tc_gemm_ws_row_order(const book_bf16 *A,
                                            const book_bf16 *B, void *C,
                                            tc_out out, size_t M, size_t N,
                                            size_t K, cudaStream_t stream)
{
    return ws_launch<Grid::one_tile_per_block, WS_BN, 1>(A, B, C, out, M, N,
                                                         K, stream);
}
extern "C" cudaError_t tc_gemm_wrong_early_release(const book_bf16 *A,
                                                   const book_bf16 *B,
                                                   void *C, tc_out out,
                                                   size_t M, size_t N,
                                                   size_t K,
                                                   cudaStream_t stream)
{
    return ws_launch<Grid::one_tile_per_block, WS_BN, WS_GROUP,
                     Release::wrong_early>(A, B, C, out, M, N, K, stream);
}
extern "C" cudaError_t tc_gemm_cluster(const book_bf16 *A, const book_bf16 *B,
                                       void *C, tc_out out, size_t M,
                                       size_t N, size_t K,
                                       cudaStream_t stream)
{
    return cluster_launch<Release::pair>(A, B, C, out, M, N, K, stream);
}
extern "C" cudaError_t tc_gemm_cluster_wg_arrive(const book_bf16 *A,
                                                 const book_bf16 *B, void *C,
                                                 tc_out out, size_t M,
                                                 size_t N, size_t K,
                                                 cudaStream_t stream)
{
    return cluster_launch<Release::pair_per_warpgroup>(A, B, C, out, M, N,
                                                       K, stream);
}
