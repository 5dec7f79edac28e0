// flash_mma.sm80.cu -- FlashAttention-2 in bf16 on mma.sync: S = Q K^T
// and O += P V on the tensor cores, S and P in registers, K and V tiles
// double-buffered by cp.async.
#include "common/carve.h"
#include "flash/flash_args.cuh"
#include "arch/sm80.cuh"
#include "flash/flash_softmax.cuh"

namespace {
constexpr int FL_BN = 64;  // keys per tile
// Whether the running output is rescaled when a row's maximum grows (and
// the shares are weighed when merged), or not: wrong on purpose.
enum class Rescale { on, wrong_off };
// Whether a block takes all its tile's keys or its share of them.
enum class Keys { all, split };

// <<The offset of a chunk in a shared tile>>
// A tile of ROWS rows of D bf16 is stored as D / 64 panels of ROWS
// 128-byte rows, each swizzled: chunk c (16 bytes, 8 elements) of row r.
template <int ROWS>
__device__ __forceinline__ uint32_t fl_off(int r, int c)
{
    return (uint32_t)((c / 8) * (ROWS * 128)) + swz128(r, c % 8);
}

// <<Copy a tile of rows with cp.async>>
// Rows r < rows of src (rows stride elements apart) into the tile at
// dst; the rest of the tile gets zeros.
template <int ROWS, int D, int THREADS>
__device__ __forceinline__ void fl_load_tile(uint32_t dst,
                                             const __nv_bfloat16 *src,
                                             size_t stride, long long rows)
{
    constexpr int CH = D / 8;
#pragma unroll
    for (int q = 0; q < ROWS * CH / THREADS; q++) {
        int e = threadIdx.x + q * THREADS, r = e / CH, c = e % CH;
        bool ok = r < rows;
        cp_async16(dst + fl_off<ROWS>(r, c),
                   ok ? src + (size_t)r * stride + 8 * c : src,
                   ok ? 16 : 0);
    }
}

// <<Where the split blocks write their shares>>
// Share z of row r = bh Sq + i keeps its unnormalized output at
// o + (z R + r) D and its (m, l) at ml + 2 (z R + r), R = B H Sq; m is
// the base-2 maximum of the scaled scores, as the kernel keeps it.
struct fl_part {
    float *o = nullptr, *ml = nullptr;
    int splits = 1;
};

// <<The mma.sync attention kernel>>
template <int D, int WARPS, Rescale RESCALE, Keys KEYS>
__global__ void __launch_bounds__(WARPS * 32)
flash_mma_kernel(const __nv_bfloat16 *q, const __nv_bfloat16 *k,
                 const __nv_bfloat16 *v, __nv_bfloat16 *o, float *lse,
                 flash_dims a, float scale_log2, fl_part part)
{
    constexpr int BM = 16 * WARPS, BN = FL_BN, THREADS = WARPS * 32;
    constexpr int Q_BYTES = BM * D * 2, KV_BYTES = BN * D * 2;
    extern __shared__ __align__(128) uint8_t smem[];
    const uint32_t sq = smem_addr(smem), sk = sq + Q_BYTES;
    const uint32_t sv = sk + 2 * KV_BYTES;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    // <<Which heads and rows this block takes>>
    const size_t BH = a.B * a.H, ntiles = (a.Sq + BM - 1) / BM;
    const size_t bh = blockIdx.x % BH;
    size_t tile = blockIdx.x / BH;
    if (a.causal) tile = ntiles - 1 - tile;  // the longest rows first
    const long long Sq = (long long)a.Sq, Sk = (long long)a.Sk;
    const long long m0 = (long long)tile * BM, shift = Sk - Sq;
    const size_t rs = flash_row_stride(a);
    const __nv_bfloat16 *qh = q + flash_head(a, bh, a.Sq) + m0 * rs;
    long long kend = Sk;  // keys [0, kend) are seen by some row here
    if (a.causal) kend = max(0LL, min(Sk, m0 + BM + shift));
    int nkt = (int)((kend + BN - 1) / BN), kt0 = 0;  // tiles [kt0, kt0 + nkt)
    if constexpr (KEYS == Keys::split) {
        // <<Narrow the key tiles to this block's share>>
        const int per = (nkt + part.splits - 1) / part.splits;
        kt0 = min(nkt, (int)blockIdx.y * per);
        nkt = min(nkt - kt0, per);
    }
    const long long kbase = (long long)kt0 * BN;  // the first key here
    const __nv_bfloat16 *kh = k + flash_head(a, bh, a.Sk) + kbase * rs;
    const __nv_bfloat16 *vh = v + flash_head(a, bh, a.Sk) + kbase * rs;
    // <<Start the copies of Q and of the first keys and values>>
    fl_load_tile<BM, D, THREADS>(sq, qh, rs, Sq - m0);
    cp_async_commit();
    if (nkt > 0) {
        fl_load_tile<BN, D, THREADS>(sk, kh, rs, Sk - kbase);
        fl_load_tile<BN, D, THREADS>(sv, vh, rs, Sk - kbase);
    }
    cp_async_commit();
    cp_async_wait<1>();
    __syncthreads();
    // <<Q's fragments into registers>>
    uint32_t qf[D / 16][4];
    #pragma unroll
    for (int ks = 0; ks < D / 16; ks++)
        ldmatrix_x4(qf[ks], sq + fl_off<BM>(warp * 16 + (lane & 15),
                                             2 * ks + (lane >> 4)));

    float acc[D / 8][4] = {};            // O: 16 rows x D of this warp
    float mrow[2] = {-INFINITY, -INFINITY}, lrow[2] = {0.f, 0.f};
    const long long row0 = m0 + warp * 16 + lane / 4;  // and row0 + 8
    const bool live = m0 + warp * 16 < Sq;  // else this warp only copies
    for (int j = 0; j < nkt; j++) {
        // <<Prefetch the next tile, wait for this one>>
        if (j + 1 < nkt) {
            const uint32_t st = ((j + 1) & 1) * KV_BYTES;
            const size_t off = (size_t)(j + 1) * BN * rs;
            const long long left = Sk - kbase - (long long)(j + 1) * BN;
            fl_load_tile<BN, D, THREADS>(sk + st, kh + off, rs, left);
            fl_load_tile<BN, D, THREADS>(sv + st, vh + off, rs, left);
        }
        cp_async_commit();
        cp_async_wait<1>();
        __syncthreads();
        const uint32_t kt = sk + (j & 1) * KV_BYTES;
        const uint32_t vt = sv + (j & 1) * KV_BYTES;
        if (live) {
            // <<S = Q K^T for 16 rows and 64 keys>>
            float s[BN / 8][4] = {};
            #pragma unroll
            for (int ks = 0; ks < D / 16; ks++)
            #pragma unroll
                for (int np = 0; np < BN / 16; np++) {
                    uint32_t b[4];
                    int key = np * 16 + (lane & 7) + ((lane >> 4) << 3);
                    ldmatrix_x4(b, kt + fl_off<BN>(key, 2 * ks +
                                                           ((lane >> 3) & 1)));
                    mma_16816(s[2 * np], qf[ks], b);
                    mma_16816(s[2 * np + 1], qf[ks], b + 2);
                }
            auto score = [&](int nt, int e) -> float & { return s[nt][e]; };
            // <<Mask the keys past the end and above the diagonal>>
            flash_mask_tile<BN / 8>(score, kbase + (long long)j * BN, m0, row0, lane,
                                    Sk, a.causal, shift);
            // <<The online softmax on the fragments>>
            auto rescale_o = [&](int h, float alpha) {
                if (RESCALE == Rescale::on) {
            #pragma unroll
                    for (int dt = 0; dt < D / 8; dt++) {
                        acc[dt][2 * h] *= alpha;
                        acc[dt][2 * h + 1] *= alpha;
                    }
                }
            };
            flash_online_rows<BN / 8>(score, mrow, lrow, scale_log2, rescale_o);
            // <<O += P V, P from the accumulators of S>>
            #pragma unroll
            for (int kt2 = 0; kt2 < BN / 16; kt2++) {
                uint32_t p[4] = {flash_pack(s[2 * kt2][0], s[2 * kt2][1]),
                                 flash_pack(s[2 * kt2][2], s[2 * kt2][3]),
                                 flash_pack(s[2 * kt2 + 1][0], s[2 * kt2 + 1][1]),
                                 flash_pack(s[2 * kt2 + 1][2], s[2 * kt2 + 1][3])};
            #pragma unroll
                for (int dp = 0; dp < D / 16; dp++) {
                    uint32_t b[4];
                    int g = lane >> 3;
                    int key = kt2 * 16 + (g & 1) * 8 + (lane & 7);
                    ldmatrix_x4_trans(b, vt + fl_off<BN>(key,
                                                          2 * dp + (g >> 1)));
                    mma_16816(acc[2 * dp], p, b);
                    mma_16816(acc[2 * dp + 1], p, b + 2);
                }
            }
        }
        __syncthreads();  // the stage is free for the copy after next
    }
    cp_async_wait<0>();

    if constexpr (KEYS == Keys::split) {
        // <<Store this share's partial triple>>
        const size_t R = BH * a.Sq, z = blockIdx.y;
        #pragma unroll
        for (int h = 0; h < 2; h++) {
            const float l = flash_quad_sum(lrow[h]);
            const long long row = row0 + 8 * h;
            if (row >= Sq) continue;
            const size_t r = z * R + bh * a.Sq + (size_t)row;
            if (lane % 4 == 0)
                *(float2 *)(part.ml + 2 * r) = make_float2(mrow[h], l);
            float *po = part.o + r * D + 2 * (lane % 4);
        #pragma unroll
            for (int dt = 0; dt < D / 8; dt++)
                *(float2 *)(po + 8 * dt) =
                    make_float2(acc[dt][2 * h], acc[dt][2 * h + 1]);
        }
    } else {
        // <<Finish the rows and store them through shared memory>>
        float inv[2];
        flash_end_rows(mrow, lrow, inv, lse, bh * a.Sq, row0, Sq, lane);
        // This warp's 16 rows of the Q tile are its own and already read; the
        // __syncwarp orders those ldmatrix reads before these stores when no
        // key tile (and so no barrier) came between them.
        __syncwarp();
        #pragma unroll
        for (int dt = 0; dt < D / 8; dt++)
        #pragma unroll
            for (int h = 0; h < 2; h++) {
                uint32_t x = flash_pack(acc[dt][2 * h] * inv[h],
                                     acc[dt][2 * h + 1] * inv[h]);
                uint32_t at = sq + fl_off<BM>(warp * 16 + lane / 4 + 8 * h, dt) +
                              4 * (lane % 4);
                asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(at), "r"(x)
                             : "memory");
            }
        __syncwarp();
        constexpr int CH = D / 8;
        __nv_bfloat16 *oh = o + flash_head(a, bh, a.Sq);
        #pragma unroll
        for (int i = 0; i < 16 * CH / 32; i++) {
            int e = lane + 32 * i, r = e / CH, c = e % CH;
            long long row = m0 + warp * 16 + r;
            uint4 x;
            asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];\n"
                         : "=r"(x.x), "=r"(x.y), "=r"(x.z), "=r"(x.w)
                         : "r"(sq + fl_off<BM>(warp * 16 + r, c))
                         : "memory");
            if (row < Sq) *(uint4 *)(oh + (size_t)row * rs + 8 * c) = x;
        }
    }
}

// <<The attention launcher on mma.sync>>
template <int D, int WARPS, Rescale RESCALE, Keys KEYS = Keys::all>
cudaError_t fl_launch_d(const book_bf16 *q, const book_bf16 *k,
                        const book_bf16 *v, book_bf16 *o, float *lse,
                        const flash_dims &a, cudaStream_t stream,
                        fl_part part = fl_part())
{
    constexpr int BM = 16 * WARPS;
    constexpr int SMEM = BM * D * 2 + 4 * FL_BN * D * 2;
    const size_t blocks = a.B * a.H * ((a.Sq + BM - 1) / BM);
    if (blocks > 2147483647u) return cudaErrorInvalidValue;
    auto kern = flash_mma_kernel<D, WARPS, RESCALE, KEYS>;
    cudaError_t err = cudaFuncSetAttribute(
        kern, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM);
    if (err != cudaSuccess) return err;
    const float scale_log2 = 1.44269504f / sqrtf((float)D);
    const dim3 grid((unsigned)blocks,
                    KEYS == Keys::split ? (unsigned)part.splits : 1u);
    BOOK_CLEAR_TO_LAUNCH();
    kern<<<grid, WARPS * 32, SMEM, stream>>>(q, k, v, o, lse, a,
                                             scale_log2, part);
    return cudaGetLastError();
}
template <int WARPS, Rescale RESCALE>
cudaError_t fl_launch(const book_bf16 *q, const book_bf16 *k,
                      const book_bf16 *v, book_bf16 *o, float *lse,
                      flash_dims a, cudaStream_t stream)
{
    int done;
    cudaError_t err = flash_common_args(q, k, v, o, lse, a, stream, &done);
    if (done) return err;
    if (book_device_cc() < 80) return cudaErrorNoKernelImageForDevice;
    if (a.D == 64)
        return fl_launch_d<64, WARPS, RESCALE>(q, k, v, o, lse, a, stream);
    return fl_launch_d<128, WARPS, RESCALE>(q, k, v, o, lse, a, stream);
}

// <<Merge the partial triples of the shares>>
template <int D, Rescale RESCALE>
__global__ void flash_merge_kernel(fl_part part, __nv_bfloat16 *o,
                                   float *lse, flash_dims a)
{
    const size_t R = a.B * a.H * a.Sq, quads = R * (D / 4);
    const size_t rs = flash_row_stride(a);
    const float2 *ml = (const float2 *)part.ml;
    const float4 *po = (const float4 *)part.o;
    for (size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
         t < quads; t += (size_t)gridDim.x * blockDim.x) {
        const size_t r = t / (D / 4), c = t % (D / 4);
        float mx = -INFINITY;
        for (int z = 0; z < part.splits; z++)
            mx = fmaxf(mx, ml[z * R + r].x);
        float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
        float l = 0.f;
        for (int z = 0; z < part.splits && mx != -INFINITY; z++) {
            const float2 p = ml[z * R + r];
            const float w = RESCALE == Rescale::on ? exp2f(p.x - mx) : 1.f;
            const float4 x = po[(z * R + r) * (D / 4) + c];
            l += w * p.y;
            acc.x += w * x.x;
            acc.y += w * x.y;
            acc.z += w * x.z;
            acc.w += w * x.w;
        }
        const float inv = l > 0.f ? 1.f / l : 0.f;
        const size_t bh = r / a.Sq, i = r % a.Sq;
        const uint2 y = {flash_pack(acc.x * inv, acc.y * inv),
                         flash_pack(acc.z * inv, acc.w * inv)};
        *(uint2 *)(o + flash_head(a, bh, a.Sq) + i * rs + 4 * c) = y;
        if (lse != nullptr && c == 0)
            lse[r] = flash_lse(mx, l);
    }
}

// <<Check the split's arguments and workspace>>
// The workspace: the shares' outputs, then their pairs (m, l) (a row of
// D floats is 256 or 512 bytes, so the pairs start aligned); false where
// there is nothing to split or a size overflows.
bool fl_split_layout(book_carve *c, const flash_dims &a, int splits,
                     fl_part *part)
{
    const size_t R = flash_mul4(a.B, a.H, a.Sq, 1);
    if (splits < 2 || splits > FLASH_MAX_SPLITS || R == 0 || a.Sk == 0 ||
        (a.D != 64 && a.D != 128))
        return false;
    const size_t po = flash_mul4(R, a.D, (size_t)splits, 4);
    const size_t ml = flash_mul4(R, (size_t)splits, 8, 1);
    part->o = (float *)book_carve_take(c, po, 16);
    part->ml = (float *)book_carve_take(c, ml, 8);
    part->splits = splits;
    return po != 0 && ml != 0 && !c->overflow;
}
template <int D, Rescale RESCALE>
cudaError_t fl_split_d(const book_bf16 *q, const book_bf16 *k,
                       const book_bf16 *v, book_bf16 *o, float *lse,
                       const flash_dims &a, fl_part part,
                       cudaStream_t stream)
{
    cudaError_t err = fl_launch_d<D, 4, Rescale::on, Keys::split>(
        q, k, v, o, lse, a, stream, part);
    if (err != cudaSuccess) return err;
    const size_t quads = a.B * a.H * a.Sq * (D / 4);
    const size_t grid = (quads + 255) / 256 < 8192 ? (quads + 255) / 256
                                                   : 8192;
    flash_merge_kernel<D, RESCALE><<<(unsigned)grid, 256, 0, stream>>>(
        part, o, lse, a);
    return cudaGetLastError();
}
template <Rescale RESCALE>
cudaError_t fl_split(const book_bf16 *q, const book_bf16 *k,
                     const book_bf16 *v, book_bf16 *o, float *lse,
                     flash_dims a, int splits, void *work,
                     size_t work_bytes, cudaStream_t stream)
{
    if (splits < 1 || splits > FLASH_MAX_SPLITS) return cudaErrorInvalidValue;
    int done;
    cudaError_t err = flash_common_args(q, k, v, o, lse, a, stream, &done);
    if (done) return err;
    if (book_device_cc() < 80) return cudaErrorNoKernelImageForDevice;
    if (splits == 1)
        return a.D == 64
                   ? fl_launch_d<64, 4, Rescale::on>(q, k, v, o, lse, a,
                                                     stream)
                   : fl_launch_d<128, 4, Rescale::on>(q, k, v, o, lse, a,
                                                      stream);
    fl_part part;
    book_carve c = {(char *)work, 0, 0};
    if (!fl_split_layout(&c, a, splits, &part) || work == NULL ||
        work_bytes < c.used || (uintptr_t)work % 16 != 0)
        return cudaErrorInvalidValue;
    const size_t R = a.B * a.H * a.Sq, qb = 2 * R * a.D;
    const size_t kb = 2 * a.B * a.H * a.Sk * a.D, wb = c.used;
    if (ranges_overlap(work, wb, q, qb) || ranges_overlap(work, wb, k, kb) ||
        ranges_overlap(work, wb, v, kb) || ranges_overlap(work, wb, o, qb) ||
        (lse != NULL && ranges_overlap(work, wb, lse, 4 * R)))
        return cudaErrorInvalidValue;
    if (a.D == 64)
        return fl_split_d<64, RESCALE>(q, k, v, o, lse, a, part, stream);
    return fl_split_d<128, RESCALE>(q, k, v, o, lse, a, part, stream);
}
} // namespace

// <<The entry points of the mma.sync attention>>
extern "C" cudaError_t flash_mma64(const book_bf16 *q, const book_bf16 *k,
                                   const book_bf16 *v, book_bf16 *o,
                                   float *lse, flash_dims a,
                                   cudaStream_t stream)
{
    return fl_launch<4, Rescale::on>(q, k, v, o, lse, a, stream);
}
extern "C" cudaError_t flash_mma(const book_bf16 *q, const book_bf16 *k,
                                 const book_bf16 *v, book_bf16 *o,
                                 float *lse, flash_dims a,
                                 cudaStream_t stream)
{
    return fl_launch<8, Rescale::on>(q, k, v, o, lse, a, stream);
}

// <<Wrong on purpose: the mma.sync attention without the rescale>>
extern "C" cudaError_t flash_mma_no_rescale(const book_bf16 *q,
                                            const book_bf16 *k,
                                            const book_bf16 *v,
                                            book_bf16 *o, float *lse,
                                            flash_dims a,
                                            cudaStream_t stream)
{
    return fl_launch<8, Rescale::wrong_off>(q, k, v, o, lse, a, stream);
}

// <<The entry points of the split keys>>
extern "C" size_t flash_split_work_bytes(flash_dims a, int splits)
{
    book_carve c = {NULL, 0, 0};
    fl_part part;
    return fl_split_layout(&c, a, splits, &part) ? book_carve_size(&c) : 0;
}
extern "C" int flash_split_count(flash_dims a, int sms)
{
    const size_t load = a.D == 128 ? 2 : 3;  // blocks an SM holds
    const size_t slots = load * (size_t)(sms > 0 ? sms : 1);
    const size_t blocks = flash_mul4(a.B, a.H, (a.Sq + 63) / 64, 1);
    if (blocks == 0 || blocks >= slots) return 1;
    size_t p = (2 * slots + blocks - 1) / blocks;
    const size_t most = (a.Sk + 255) / 256;  // 256 keys a share at least
    if (p > most) p = most;
    if (p > FLASH_MAX_SPLITS) p = FLASH_MAX_SPLITS;
    if (p <= 1) return 1;
    // As many shares as the tiles of keys need at ceil(tiles / p) each.
    const size_t tiles = (a.Sk + 63) / 64, per = (tiles + p - 1) / p;
    return (int)((tiles + per - 1) / per);
}
extern "C" cudaError_t flash_split(const book_bf16 *q, const book_bf16 *k,
                                   const book_bf16 *v, book_bf16 *o,
                                   float *lse, flash_dims a, int splits,
                                   void *work, size_t work_bytes,
                                   cudaStream_t stream)
{
    return fl_split<Rescale::on>(q, k, v, o, lse, a, splits, work,
                                 work_bytes, stream);
}

// <<Wrong on purpose: the split keys merged without the rescale>>
extern "C" cudaError_t flash_split_no_rescale(const book_bf16 *q,
                                              const book_bf16 *k,
                                              const book_bf16 *v,
                                              book_bf16 *o, float *lse,
                                              flash_dims a, int splits,
                                              void *work,
                                              size_t work_bytes,
                                              cudaStream_t stream)
{
    return fl_split<Rescale::wrong_off>(q, k, v, o, lse, a, splits, work,
                                        work_bytes, stream);
}
