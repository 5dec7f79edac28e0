// flash_wgmma.sm90a.cu -- FlashAttention-3 in bf16 on Hopper: TMA copies
// Q once and K, V in a ring of stages, one producer thread fills them,
// two consumer warpgroups of 64 query rows each compute S = Q K^T with
// wgmma from shared memory and O += P V with P from registers, the last
// tile's P V overlapping this tile's softmax.
#include "arch/sm90.cuh"
#include "flash/flash_args.cuh"
#include "flash/flash_softmax.cuh"

namespace {
constexpr int FW_BM = 128;      // query rows a block, 64 a consumer
constexpr int FW_BN = 128;      // keys per tile
constexpr int FW_STAGES = 2;    // K and V tiles in flight
constexpr int FW_PANEL_Q = swz_tile<FW_BM, 64>::bytes;   // 64 columns of Q
constexpr int FW_PANEL_KV = swz_tile<FW_BN, 64>::bytes;  // of a K or V tile

// <<The choices of the wgmma attention kernel>>
// Whether the softmax of tile j runs while P_{j-1} V_{j-1} is on the
// tensor cores (step 3), or each tile's products and softmax in turn.
enum class Overlap { on, off };
// Block x takes head x % BH and tile x / BH, or head x / tiles and tile
// x % tiles (a head's tiles run together).
enum class Order { heads_fastest, tiles_fastest };
// When a consumer gives V's stage back: after the wait for the P V that
// reads it, or, wrong on purpose, before that P V is issued.
enum class Release { after_wait, wrong_early };

// <<The warp-specialized attention kernel>>
// Shared memory, from a 1024-byte boundary: Q as D / 64 panels of 128
// rows of 128 bytes (128-byte swizzle), then FW_STAGES K tiles and
// FW_STAGES V tiles, each D / 64 panels of FW_BN rows, then the barriers.
template <int D>
struct FwSmem {
    using QT = swz_tile<FW_BM, D>;   // the tile of Q
    using KVT = swz_tile<FW_BN, D>;  // a tile of K or of V
    static constexpr int Q = QT::bytes, KV = KVT::bytes;
    static constexpr int BARS = 1 + 4 * FW_STAGES;
    static constexpr int BYTES = 1024 + Q + 2 * FW_STAGES * KV + 8 * BARS;
};

template <int D, Overlap OV, Order ORD, Release REL>
__global__ void __launch_bounds__(384, 1)
flash_wgmma_kernel(const __grid_constant__ CUtensorMap mapQ,
                   const __grid_constant__ CUtensorMap mapK,
                   const __grid_constant__ CUtensorMap mapV,
                   __nv_bfloat16 *o, float *lse, flash_dims a,
                   float scale_log2)
{
    using L = FwSmem<D>;
    constexpr int P = D / 64;  // 64-column panels
    extern __shared__ uint8_t raw[];
    uint8_t *Qs = align1024(raw);
    uint8_t *Ks = Qs + L::Q, *Vs = Ks + FW_STAGES * L::KV;
    uint64_t *qfull = (uint64_t *)(Vs + FW_STAGES * L::KV);
    uint64_t *kfull = qfull + 1, *kempty = kfull + FW_STAGES;
    uint64_t *vfull = kempty + FW_STAGES, *vempty = vfull + FW_STAGES;

    // <<Which head and rows this block takes, and which keys>>
    const size_t BH = a.B * a.H, ntiles = (a.Sq + FW_BM - 1) / FW_BM;
    size_t bh = blockIdx.x % BH, tile = blockIdx.x / BH;
    if constexpr (ORD == Order::tiles_fastest) {  // a head's tiles together
        bh = blockIdx.x / ntiles;
        tile = blockIdx.x % ntiles;
    }
    if (a.causal) tile = ntiles - 1 - tile;  // the longest rows first
    const long long Sq = (long long)a.Sq, Sk = (long long)a.Sk;
    const long long m0 = (long long)tile * FW_BM, shift = Sk - Sq;
    long long kend = Sk;  // keys [0, kend) are seen by some row here
    if (a.causal) kend = max(0LL, min(Sk, m0 + FW_BM + shift));
    const int nkt = (int)((kend + FW_BN - 1) / FW_BN);
    const int hh = (int)(bh % a.H), bb = (int)(bh / a.H);
    
    if (threadIdx.x == 0) {
        bar_init(qfull, 1);
        for (int s = 0; s < FW_STAGES; s++) {
            bar_init(&kfull[s], 1);
            bar_init(&vfull[s], 1);
            bar_init(&kempty[s], 8);  // one arrival per consumer warp
            bar_init(&vempty[s], 8);
        }
        bar_init_fence();
    }
    __syncthreads();
    
    if (threadIdx.x < 128) {
        setmaxnreg_dec<40>();
        // <<The producer: Q once, then K and V as their stages empty>>
        if (threadIdx.x == 0 && nkt > 0) {
            bar_expect(qfull, L::Q);
        #pragma unroll
            for (int p = 0; p < P; p++)
                tma_load(Qs + p * FW_PANEL_Q, &mapQ, qfull, 64 * p,
                         (int)m0, hh, bb);
            for (int j = 0; j < nkt; j++) {
                const int s = j % FW_STAGES;
                const int parity = ((j / FW_STAGES) & 1) ^ 1;
                bar_wait(&kempty[s], parity);
                bar_expect(&kfull[s], L::KV);
        #pragma unroll
                for (int p = 0; p < P; p++)
                    tma_load(Ks + s * L::KV + p * FW_PANEL_KV, &mapK,
                             &kfull[s], 64 * p, j * FW_BN, hh, bb);
                bar_wait(&vempty[s], parity);
                bar_expect(&vfull[s], L::KV);
        #pragma unroll
                for (int p = 0; p < P; p++)
                    tma_load(Vs + s * L::KV + p * FW_PANEL_KV, &mapV,
                             &vfull[s], 64 * p, j * FW_BN, hh, bb);
            }
        }
        return;
    }
    setmaxnreg_inc<232>();
    // <<The consumers>>
    const int c = threadIdx.x / 128 - 1, t = threadIdx.x % 128;
    const int lane = t % 32;
    const long long rowc = m0 + 64 * c;  // this warpgroup's first row
    const long long row0 = rowc + 16 * (t / 32) + lane / 4;  // and row0 + 8
    float acc[D / 2];     // O: 64 rows x D of this warpgroup
    float s[FW_BN / 2];   // S, then exp2 of it: 64 rows x FW_BN
    uint32_t pf[FW_BN / 16][4];  // P in bf16, A fragments of P V
    #pragma unroll
    for (int i = 0; i < D / 2; i++) acc[i] = 0.f;
    #pragma unroll
    for (int i = 0; i < FW_BN / 2; i++) s[i] = 0.f;
    #pragma unroll
    for (int i = 0; i < FW_BN / 16; i++)
    #pragma unroll
        for (int e = 0; e < 4; e++) pf[i][e] = 0u;
    float mrow[2] = {-INFINITY, -INFINITY}, lrow[2] = {0.f, 0.f};
    float alpha[2] = {0.f, 0.f};
    // <<Issue S = Q K_j^T from stage j>>
    auto issue_s = [&](int j) {
        const uint8_t *kt = Ks + (j % FW_STAGES) * L::KV;
        const uint8_t *qt = Qs + c * L::QT::rows(64);
    #pragma unroll
        for (int ks = 0; ks < D / 16; ks++) {
            const int p = ks / 4, w = L::QT::cols(16 * (ks % 4));
            acc_fence(s);
            wgmma_ss<128, 0>(s,
                             wgmma_desc(qt + p * FW_PANEL_Q + w, 16, L::QT::atom),
                             wgmma_desc(kt + p * FW_PANEL_KV + w, 16,
                                        L::KVT::atom),
                             ks > 0);
        }
        wgmma_commit();
    };
    // <<Issue O += P V_j from stage j>>
    auto issue_pv = [&](int j) {
        const uint8_t *vt = Vs + (j % FW_STAGES) * L::KV;
    #pragma unroll
        for (int kk = 0; kk < FW_BN / 16; kk++) {
            acc_fence(acc);
            wgmma_rs<D>(acc, pf[kk],
                        wgmma_desc(vt + L::KVT::rows(16 * kk), FW_PANEL_KV,
                                   L::KVT::atom));
        }
        wgmma_commit();
    };
    // <<Mask and softmax S of tile j: exp2 in s, new m and l, alpha>>
    auto softmax = [&](int j) {
        auto score = [&](int nt, int e) -> float & { return s[4 * nt + e]; };
        flash_mask_tile<FW_BN / 8>(score, (long long)j * FW_BN, rowc, row0,
                                   lane, Sk, a.causal, shift);
        flash_online_rows<FW_BN / 8>(score, mrow, lrow, scale_log2,
                                     [&](int h, float al) { alpha[h] = al; });
    };
    // <<Rescale O, then P = bf16 of s in the A-fragment order>>
    // The accumulator's columns 16 kk .. 16 kk + 15 are the A fragment of
    // key step kk: {row r, 2c}, {row r + 8, 2c}, {r, 8 + 2c}, {r + 8, 8 + 2c}.
    auto rescale_pack = [&]() {
    #pragma unroll
        for (int i = 0; i < D / 8; i++) {
            acc[4 * i] *= alpha[0];
            acc[4 * i + 1] *= alpha[0];
            acc[4 * i + 2] *= alpha[1];
            acc[4 * i + 3] *= alpha[1];
        }
    #pragma unroll
        for (int kk = 0; kk < FW_BN / 16; kk++)
    #pragma unroll
            for (int e = 0; e < 4; e++)
                pf[kk][e] = flash_pack(s[8 * kk + 2 * e], s[8 * kk + 2 * e + 1]);
    };
    
    if (nkt > 0 && OV == Overlap::off) {
        bar_wait(qfull, 0);
        // <<Without the overlap: S_j, its softmax, then P_j V_j>>
        for (int j = 0; j < nkt; j++) {
            const int sj = j % FW_STAGES, par = (j / FW_STAGES) & 1;
            bar_wait(&kfull[sj], par);
            wgmma_fence();
            issue_s(j);
            wgmma_wait<0>();
            acc_fence(s);
            if (lane == 0) bar_arrive(&kempty[sj]);
            softmax(j);
            rescale_pack();  // O is not in flight: P_{j-1} V_{j-1} was waited for
            bar_wait(&vfull[sj], par);
            wgmma_fence();
            issue_pv(j);
            wgmma_wait<0>();
            acc_fence(acc);
            reg_fence(pf);
            if (lane == 0) bar_arrive(&vempty[sj]);
        }
    } else if (nkt > 0) {
        bar_wait(qfull, 0);
        // <<The first tile: S_0, its softmax, P_0>>
        bar_wait(&kfull[0], 0);
        wgmma_fence();
        issue_s(0);
        wgmma_wait<0>();
        acc_fence(s);
        if (lane == 0) bar_arrive(&kempty[0]);
        softmax(0);
        rescale_pack();
        // <<S_j overlaps the softmax; P_{j-1} V_{j-1} runs meanwhile>>
        for (int j = 1; j < nkt; j++) {
            const int sj = j % FW_STAGES, sp = (j - 1) % FW_STAGES;
            bar_wait(&kfull[sj], (j / FW_STAGES) & 1);
            bar_wait(&vfull[sp], ((j - 1) / FW_STAGES) & 1);
            wgmma_fence();  // s, acc and pf were written since
            issue_s(j);
            if constexpr (REL == Release::wrong_early) {
                // <<Wrong on purpose: give V's stage back before the P V that reads it>>
                // Wrong on purpose: the P V that reads stage sp is not yet issued.  The
                // producer, waiting on vempty[sp], copies V_{j+1} into it; the pause
                // lets that copy land before the wgmma reads the stage.
                if (lane == 0) bar_arrive(&vempty[sp]);
                for (int i = 0; i < 4; i++) __nanosleep(10000);
            }
            issue_pv(j - 1);
            wgmma_wait<1>();  // S_j done, P V may still run
            acc_fence(s);
            if (lane == 0) bar_arrive(&kempty[sj]);
            softmax(j);
            wgmma_wait<0>();  // P_{j-1} V_{j-1} done
            acc_fence(acc);
            reg_fence(pf);
            if (REL == Release::after_wait && lane == 0) bar_arrive(&vempty[sp]);
            rescale_pack();
        }
        // <<The last P V>>
        const int sl = (nkt - 1) % FW_STAGES;
        bar_wait(&vfull[sl], ((nkt - 1) / FW_STAGES) & 1);
        wgmma_fence();
        issue_pv(nkt - 1);
        wgmma_wait<0>();
        acc_fence(acc);
        reg_fence(pf);
        if (lane == 0) bar_arrive(&vempty[sl]);
    }
    // <<Finish the rows and store them>>
    float inv[2];
    const size_t rs = flash_row_stride(a);
    __nv_bfloat16 *oh = o + flash_head(a, bh, a.Sq);
    flash_end_rows(mrow, lrow, inv, lse, bh * a.Sq, row0, Sq, lane);
    #pragma unroll
    for (int h = 0; h < 2; h++) {
        const long long row = row0 + 8 * h;
        if (row < Sq) {
            __nv_bfloat16 *orow = oh + (size_t)row * rs + 2 * (lane % 4);
    #pragma unroll
            for (int i = 0; i < D / 8; i++)
                *(uint32_t *)(orow + 8 * i) =
                    flash_pack(acc[4 * i + 2 * h] * inv[h],
                            acc[4 * i + 2 * h + 1] * inv[h]);
        }
    }
}

// <<Make a tensor map of a head-major or sequence-major array>>
// The array of B H heads of S rows of D bf16 as a 4-D tensor (D, S, H,
// B), in boxes of 64 columns (128 bytes, 128-byte swizzle) by box_rows
// rows of one head.  Rows past S arrive as zeros.
cudaError_t fw_make_map(CUtensorMap *map, const book_bf16 *p,
                        const flash_dims &a, size_t S, unsigned box_rows)
{
    const size_t D = a.D, H = a.H;
    cuuint64_t dim[4] = {D, S, H, a.B};
    cuuint64_t stride[3];
    if (a.layout == FLASH_BHSD) {
        stride[0] = D * 2;
        stride[1] = S * D * 2;
        stride[2] = H * S * D * 2;
    } else {
        stride[0] = H * D * 2;
        stride[1] = D * 2;
        stride[2] = S * H * D * 2;
    }
    return tensor_map_bf16(map, p, 4, dim, stride, box_rows);
}

// <<The attention launcher on wgmma>>
template <int D, Overlap OV, Order ORD, Release REL>
cudaError_t fw_launch_d(const book_bf16 *q, const book_bf16 *k,
                        const book_bf16 *v, book_bf16 *o, float *lse,
                        const flash_dims &a, cudaStream_t stream)
{
    constexpr int SMEM = FwSmem<D>::BYTES;
    const size_t blocks = a.B * a.H * ((a.Sq + FW_BM - 1) / FW_BM);
    if (blocks > 2147483647u) return cudaErrorInvalidValue;
    CUtensorMap mapQ, mapK, mapV;
    cudaError_t err;
    if ((err = fw_make_map(&mapQ, q, a, a.Sq, FW_BM)) != cudaSuccess ||
        (err = fw_make_map(&mapK, k, a, a.Sk, FW_BN)) != cudaSuccess ||
        (err = fw_make_map(&mapV, v, a, a.Sk, FW_BN)) != cudaSuccess)
        return err;
    auto kern = flash_wgmma_kernel<D, OV, ORD, REL>;
    err = cudaFuncSetAttribute(kern,
                               cudaFuncAttributeMaxDynamicSharedMemorySize,
                               SMEM);
    if (err != cudaSuccess) return err;
    const float scale_log2 = 1.44269504f / sqrtf((float)D);
    BOOK_CLEAR_TO_LAUNCH();
    kern<<<(unsigned)blocks, 384, SMEM, stream>>>(mapQ, mapK, mapV, o, lse,
                                                  a, scale_log2);
    return cudaGetLastError();
}
} // namespace

// <<The entry point of the wgmma attention>>
template <Overlap OV, Order ORD, Release REL = Release::after_wait>
cudaError_t fw_launch(const book_bf16 *q, const book_bf16 *k,
                      const book_bf16 *v, book_bf16 *o, float *lse,
                      flash_dims a, cudaStream_t stream)
{
    int done;
    cudaError_t err = flash_common_args(q, k, v, o, lse, a, stream, &done);
    if (done) return err;
    if (book_device_cc() != 90) return cudaErrorNoKernelImageForDevice;
    if (a.D == 64)
        return fw_launch_d<64, OV, ORD, REL>(q, k, v, o, lse, a, stream);
    return fw_launch_d<128, OV, ORD, REL>(q, k, v, o, lse, a, stream);
}
extern "C" cudaError_t flash_wgmma(const book_bf16 *q, const book_bf16 *k,
                                   const book_bf16 *v, book_bf16 *o,
                                   float *lse, flash_dims a,
                                   cudaStream_t stream)
{
    return fw_launch<Overlap::on, Order::heads_fastest>(q, k, v, o, lse, a,
                                                        stream);
}

// <<The wgmma attention without the overlap, and in the other order>>
extern "C" cudaError_t flash_wgmma_serial(const book_bf16 *q,
                                          const book_bf16 *k,
                                          const book_bf16 *v, book_bf16 *o,
                                          float *lse, flash_dims a,
                                          cudaStream_t stream)
{
    return fw_launch<Overlap::off, Order::heads_fastest>(q, k, v, o, lse,
                                                         a, stream);
}
extern "C" cudaError_t flash_wgmma_tiles(const book_bf16 *q,
                                         const book_bf16 *k,
                                         const book_bf16 *v, book_bf16 *o,
                                         float *lse, flash_dims a,
                                         cudaStream_t stream)
{
    return fw_launch<Overlap::on, Order::tiles_fastest>(q, k, v, o, lse,
                                                        a, stream);
}

// <<Wrong on purpose: the wgmma attention that frees V's stage early>>
extern "C" cudaError_t flash_wgmma_early_release(const book_bf16 *q,
                                                 const book_bf16 *k,
                                                 const book_bf16 *v,
                                                 book_bf16 *o, float *lse,
                                                 flash_dims a,
                                                 cudaStream_t stream)
{
    return fw_launch<Overlap::on, Order::heads_fastest,
                     Release::wrong_early>(q, k, v, o, lse, a, stream);
}
