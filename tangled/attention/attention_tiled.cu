// attention_tiled.cu -- fused and tiled attention, FlashAttention-2 order.
#include "attention/attention_common.cuh"
#include "common/once_per_device.cuh"
#include "attention/mdo.h"
#include <cuda_pipeline.h>

// <<Tile shapes of the tiled kernel>>
// BR query rows and BC keys per tile; TX threads share a row, TY = BR / TM
// rows of threads, TM rows a thread; MINB blocks an SM (the registers).
template <int D_, int BR_, int BC_, int TM_, int TX_, int MINB_>
struct attn_shape {
    enum { D = D_, BR = BR_, BC = BC_, TM = TM_, TX = TX_, MINB = MINB_,
           TY = BR / TM, THREADS = TX * TY,
           TNS = BC / TX, TNO = D / TX,      // columns of S, of O a thread
           KP = D * BC > BC * BR ? D * BC : BC * BR,     // K^T, then P^T
           FLOATS = D * BR + KP + BC * D };              // Q^T, K^T|P^T, V
    static_assert(TM % 4 == 0 && TNS % 4 == 0 && TNO % 4 == 0, "float4");
    static_assert(TX % 8 == 0 && 32 % TX == 0 && TY % 8 == 0, "swizzle");
    static_assert(BR % 32 == 0 && BC % 32 == 0, "a warp's 32 rows");
};
template <int D> struct attn_tile;         // D, BR, BC, TM, TX, MINB
template <> struct attn_tile<32>  : attn_shape<32, 128, 64, 8, 8, 2> {};
template <> struct attn_tile<64>  : attn_shape<64, 128, 64, 8, 8, 2> {};
template <> struct attn_tile<128> : attn_shape<128, 128, 64, 8, 16, 1> {};
// Where a block cannot have the table's shared memory (99 KB on compute
// capability 8.6 and 8.9): D = 128 with 64 rows a block (two an SM where
// the SM has 194 KiB or more, one on 8.6 and 8.9).
struct attn_compact_128 : attn_shape<128, 64, 64, 8, 16, 2> {};

// <<Tiled kernel helpers>>
// ROWS rows of a [n][D] matrix on their way to shared memory, transposed
// (dst[d * ROWS + r]), held in registers between fetch and stash: N
// float4 a thread.  Thread t takes row t % ROWS, float4 t / ROWS + STEP i
// of it: a warp's 32 lanes take 32 consecutive rows.
template <int D, int ROWS, int THREADS> struct attn_rows {
    enum { STEP = THREADS / ROWS, N = D / 4 / STEP };
    static_assert(THREADS % ROWS == 0 && D / 4 % STEP == 0, "whole rows");
    float4 x[N];
    // Rows r0 .. r0+ROWS-1 (r0 < n) into registers; rows past n are zeros.
    __device__ __forceinline__ void fetch(const float *src, size_t r0,
                                          size_t n)
    {
        const size_t r = r0 + threadIdx.x % ROWS;
        const float4 *s = (const float4 *)(src + r * D) + threadIdx.x / ROWS;
#pragma unroll
        for (int i = 0; i < N; i++)
            x[i] = r < n ? s[STEP * i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }
    // Into shared memory, transposed, times c.
    __device__ __forceinline__ void stash(float *dst, float c) const
    {
        float *p = dst + 4 * (threadIdx.x / ROWS) * ROWS + threadIdx.x % ROWS;
#pragma unroll
        for (int i = 0; i < N; i++, p += 4 * STEP * ROWS) {
            p[0] = x[i].x * c; p[ROWS] = x[i].y * c;
            p[2 * ROWS] = x[i].z * c; p[3 * ROWS] = x[i].w * c;
        }
    }
};
// Rows r0 .. r0+BC-1 (r0 < n) of V into Vs, row-major, asynchronously:
// thread t copies float4 t + THREADS i, of row (t + THREADS i) / (D/4).
// Rows past n are zeros.
template <class L>
__device__ __forceinline__ void attn_copy_v(float *Vs, const float *v,
    size_t r0, size_t n)
{
    constexpr int D = L::D, N = L::BC * D / 4 / L::THREADS;
    constexpr int RSTEP = L::THREADS / (D / 4);       // rows a round
    static_assert(L::THREADS % (D / 4) == 0, "whole rows a round");
    const float *s = v + r0 * D + 4 * threadIdx.x;
    float *d = Vs + 4 * threadIdx.x;
    const size_t r = r0 + threadIdx.x / (D / 4);
#pragma unroll
    for (int i = 0; i < N; i++) {
        if (r + RSTEP * i < n)
            __pipeline_memcpy_async(d + 4 * L::THREADS * i,
                                    s + 4 * L::THREADS * i, 16);
        else
            *(float4 *)(d + 4 * L::THREADS * i) = make_float4(0.0f, 0.0f,
                                                              0.0f, 0.0f);
    }
    __pipeline_commit();
}
// A thread's n-th row (STEP = TY, t = ty) or column (STEP = TX, t = tx).
template <int STEP>
__device__ __forceinline__ int attn_idx(int n, int t)
{
    return 4 * STEP * (n / 4) + 4 * t + n % 4;
}
// N floats of a row of shared memory: the float4 at p, p + 4 STEP, ...
template <int N, int STEP>
__device__ __forceinline__ void attn_frag(float (&x)[N], const float *p)
{
#pragma unroll
    for (int g = 0; g < N / 4; g++) {
        float4 t = *(const float4 *)(p + 4 * STEP * g);
        x[4 * g] = t.x; x[4 * g + 1] = t.y;
        x[4 * g + 2] = t.z; x[4 * g + 3] = t.w;
    }
}
template <class L>
__device__ __forceinline__ void attn_scores(const float *Qt,
    const float *Kt, int tx, int ty, float (&s)[L::TM][L::TNS])
{
#pragma unroll
    for (int i = 0; i < L::TM; i++)
#pragma unroll
        for (int j = 0; j < L::TNS; j++) s[i][j] = 0.0f;
    const float *qp = Qt + 4 * ty, *kp = Kt + 4 * tx;
    float qa[2][L::TM], kb[2][L::TNS];         // step d's and step d+1's
    attn_frag<L::TM, L::TY>(qa[0], qp);
    attn_frag<L::TNS, L::TX>(kb[0], kp);
#pragma unroll 8
    for (int d = 0; d < L::D; d++) {
        const int c = d % 2;
        if (d + 1 < L::D) {                     // loaded one step ahead
            attn_frag<L::TM, L::TY>(qa[1 - c], qp + (d + 1) * L::BR);
            attn_frag<L::TNS, L::TX>(kb[1 - c], kp + (d + 1) * L::BC);
        }
#pragma unroll
        for (int i = 0; i < L::TM; i++)
#pragma unroll
            for (int j = 0; j < L::TNS; j++)
                s[i][j] = fmaf(qa[c][i], kb[c][j], s[i][j]);
    }
}
template <class L>
__device__ __forceinline__ void attn_mask_tile(float (&s)[L::TM][L::TNS],
    attn_dims a, long long q0, long long k0, long long shift, int tx,
    int ty)
{
#pragma unroll
    for (int i = 0; i < L::TM; i++)
#pragma unroll
        for (int j = 0; j < L::TNS; j++) {
            long long qi = q0 + attn_idx<L::TY>(i, ty);
            long long kj = k0 + attn_idx<L::TX>(j, tx);
            if (kj >= (long long)a.Sk || (a.causal && kj > qi + shift))
                s[i][j] = -INFINITY;
        }
}
template <class L>
__device__ __forceinline__ void attn_tile_update(float (&s)[L::TM][L::TNS],
    float (&m)[L::TM], float (&l)[L::TM], float (&acc)[L::TM][L::TNO])
{
#pragma unroll
    for (int i = 0; i < L::TM; i++) {
        float mx = s[i][0];
#pragma unroll
        for (int j = 1; j < L::TNS; j++) mx = fmaxf(mx, s[i][j]);
#pragma unroll
        for (int off = L::TX / 2; off > 0; off /= 2)   // the row's lanes
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, off));
        float mn = fmaxf(m[i], mx);
        float base = mn == -INFINITY ? 0.0f : mn;    // no key seen yet
        float c = exp2f(m[i] - base), sum = 0.0f;
#pragma unroll
        for (int j = 0; j < L::TNS; j++) {
            s[i][j] = exp2f(s[i][j] - base);          // now P
            sum += s[i][j];
        }
        l[i] = l[i] * c + sum;
#pragma unroll
        for (int t = 0; t < L::TNO; t++) acc[i][t] *= c;
        m[i] = mn;
    }
}
__device__ __forceinline__ int attn_p_group(int key, int ty)    // swizzled
{
    return 4 * (ty ^ (key / 4 % 8));
}
template <class L>
__device__ __forceinline__ void attn_store_p(float *Pt,
    const float (&s)[L::TM][L::TNS], int tx, int ty)
{
#pragma unroll
    for (int j = 0; j < L::TNS; j++) {
        int key = attn_idx<L::TX>(j, tx);
        float *row = Pt + key * L::BR + attn_p_group(key, ty);
#pragma unroll
        for (int g = 0; g < L::TM / 4; g++)
            *(float4 *)(row + 4 * L::TY * g) = make_float4(s[4 * g][j],
                s[4 * g + 1][j], s[4 * g + 2][j], s[4 * g + 3][j]);
    }
}
template <class L>
__device__ __forceinline__ void attn_pv(const float *Pt, const float *Vs,
    int tx, int ty, float (&acc)[L::TM][L::TNO])
{
    const float *vp = Vs + 4 * tx;
    float p[2][L::TM], vv[2][L::TNO];          // key j's and key j+1's
    attn_frag<L::TM, L::TY>(p[0], Pt + attn_p_group(0, ty));
    attn_frag<L::TNO, L::TX>(vv[0], vp);
#pragma unroll 8
    for (int j = 0; j < L::BC; j++) {
        const int c = j % 2;
        if (j + 1 < L::BC) {                    // loaded one key ahead
            attn_frag<L::TM, L::TY>(p[1 - c],
                Pt + (j + 1) * L::BR + attn_p_group(j + 1, ty));
            attn_frag<L::TNO, L::TX>(vv[1 - c], vp + (j + 1) * L::D);
        }
#pragma unroll
        for (int i = 0; i < L::TM; i++)
#pragma unroll
            for (int t = 0; t < L::TNO; t++)
                acc[i][t] = fmaf(p[c][i], vv[c][t], acc[i][t]);
    }
}

// <<Where split blocks write their partial triples>>
// Share z's unnormalized outputs at o + z B H Sq D, their (m, d) at
// ml + 2 z B H Sq; splits: the shares of each query tile.
struct attn_part {
    float *o, *ml;
    int splits;
};

// <<Attention: tiled, FlashAttention-2 loop order>>
// Whether a block takes all its tile's keys or its share of them.
enum class Keys { all, split };
template <class L, Keys KEYS>
__global__ void __launch_bounds__(L::THREADS, L::MINB)
attn_tiled_kernel(const float *q, const float *k, const float *v, float *o,
                  attn_dims a, float scale2, attn_part part)
{
    constexpr int D = L::D;
    extern __shared__ float4 attn_smem[];
    float *Qt = (float *)attn_smem, *Kt = Qt + L::BR * D, *Pt = Kt;
    float *Vs = Kt + L::KP;
    const int tx = threadIdx.x % L::TX, ty = threadIdx.x / L::TX;
    const size_t bh = blockIdx.x;   // below: the last query tiles go first
    const long long q0 = (long long)(gridDim.y - 1 - blockIdx.y) * L::BR;
    const float *kb = k + bh * a.Sk * D, *vb = v + bh * a.Sk * D;
    attn_rows<D, L::BR, L::THREADS> qr;               // Q^T, scaled, once
    qr.fetch(q + bh * a.Sq * D, q0, a.Sq);
    qr.stash(Qt, scale2);
    float acc[L::TM][L::TNO] = {}, m[L::TM], l[L::TM];
    for (int i = 0; i < L::TM; i++) { m[i] = -INFINITY; l[i] = 0.0f; }
    const long long shift = (long long)a.Sk - (long long)a.Sq;
    long long kend = (long long)a.Sk;               // keys this tile needs
    if (a.causal && q0 + L::BR + shift < kend) kend = q0 + L::BR + shift;
    long long kbeg = 0;
    if constexpr (KEYS == Keys::split) {
        // <<Narrow the keys to this block's share>>
        if (kend < 0) kend = 0;            // causal rows that see no key
        const long long tiles = (kend + L::BC - 1) / L::BC;
        const long long per = (tiles + part.splits - 1) / part.splits;
        kbeg = (long long)blockIdx.z * per * L::BC;
        if (kbeg + per * L::BC < kend) kend = kbeg + per * L::BC;
    }
    attn_rows<D, L::BC, L::THREADS> kr;                // the next tile's K
    if (kbeg < kend) kr.fetch(kb, kbeg, a.Sk);
    for (long long k0 = kbeg; k0 < kend; k0 += L::BC) {
        // <<Multiply one tile of keys into the running output>>
        __syncthreads();                       // the last tile's P and V are read
        kr.stash(Kt, 1.0f);                    // K^T, fetched during the last PV
        attn_copy_v<L>(Vs, vb, k0, a.Sk);      // V, on its way during the scores
        __syncthreads();
        float s[L::TM][L::TNS];
        attn_scores<L>(Qt, Kt, tx, ty, s);
        if (k0 + L::BC > (long long)a.Sk ||
            (a.causal && k0 + L::BC - 1 > q0 + shift))    // the same for the block
            attn_mask_tile<L>(s, a, q0, k0, shift, tx, ty);
        attn_tile_update<L>(s, m, l, acc);
        __pipeline_wait_prior(0);              // this thread's copies of V
        __syncthreads();                       // K^T is read; P^T takes its place
        attn_store_p<L>(Pt, s, tx, ty);
        if (k0 + L::BC < kend) kr.fetch(kb, k0 + L::BC, a.Sk);   // the next K
        __syncthreads();
        attn_pv<L>(Pt, Vs, tx, ty, acc);
    }
    if constexpr (KEYS == Keys::split) {
        // <<Store the tile's partial triples>>
        const size_t rows = (size_t)gridDim.x * a.Sq;       // B H Sq
        float *po = part.o + (size_t)blockIdx.z * rows * D;
        float *pml = part.ml + 2 * (size_t)blockIdx.z * rows;
        #pragma unroll
        for (int i = 0; i < L::TM; i++) {
        #pragma unroll
            for (int off = L::TX / 2; off > 0; off /= 2)
                l[i] += __shfl_xor_sync(0xffffffffu, l[i], off);
            long long row = q0 + attn_idx<L::TY>(i, ty);
            if (row >= (long long)a.Sq) continue;
            const size_t r = bh * a.Sq + row;
        #pragma unroll
            for (int g = 0; g < L::TNO / 4; g++)
                *(float4 *)(po + r * D + 4 * tx + 4 * L::TX * g) = make_float4(
                    acc[i][4 * g], acc[i][4 * g + 1], acc[i][4 * g + 2],
                    acc[i][4 * g + 3]);
            if (tx == 0) *(float2 *)(pml + 2 * r) = make_float2(m[i], l[i]);
        }
    } else {
        // <<Normalize and store the tile's output rows>>
        #pragma unroll
        for (int i = 0; i < L::TM; i++) {
        #pragma unroll
            for (int off = L::TX / 2; off > 0; off /= 2)
                l[i] += __shfl_xor_sync(0xffffffffu, l[i], off);
            float r = md_recip(l[i]);                      // no key seen: zeros
            long long row = q0 + attn_idx<L::TY>(i, ty);
            if (row < (long long)a.Sq)
        #pragma unroll
                for (int g = 0; g < L::TNO / 4; g++)
                    *(float4 *)(o + (bh * a.Sq + row) * D + 4 * tx + 4 * L::TX * g) =
                        make_float4(acc[i][4 * g] * r, acc[i][4 * g + 1] * r,
                                    acc[i][4 * g + 2] * r, acc[i][4 * g + 3] * r);
        }
    }
}

// <<Launch the tiled kernel>>
template <class L> constexpr size_t attn_bytes()   // dynamic shared memory
{
    return L::FLOATS * sizeof(float);
}
extern "C" int attention_tiled_shape(size_t D, size_t optin_bytes)
{
    size_t full = D == 32  ? attn_bytes<attn_tile<32>>()
                : D == 64  ? attn_bytes<attn_tile<64>>()
                : D == 128 ? attn_bytes<attn_tile<128>>() : 0;
    if (full == 0) return ATTN_SHAPE_INVALID;
    if (full <= optin_bytes) return ATTN_SHAPE_FULL;
    if (D == 128 && attn_bytes<attn_compact_128>() <= optin_bytes)
        return ATTN_SHAPE_COMPACT;
    return ATTN_SHAPE_NONE;
}
static cudaError_t attn_optin_query(int *v)
{
    int dev;
    BOOK_TRY(cudaGetDevice(&dev));
    return cudaDeviceGetAttribute(v,
        cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
}
static cudaError_t attn_optin(size_t *bytes)   // the device's, asked once
{
    static per_device<int> optin;
    int b = 0;
    BOOK_TRY(once_per_device(optin, attn_optin_query, &b));
    *bytes = (size_t)b;
    return cudaSuccess;
}
template <class L, Keys KEYS = Keys::all>
static cudaError_t attn_tiled_launch(const float *q, const float *k,
    const float *v, float *o, attn_dims a, size_t optin, cudaStream_t stream,
    attn_part part = attn_part())
{
    size_t bytes = attn_bytes<L>(), tiles = ceil_div(a.Sq, L::BR);
    if (a.B * a.H > kAttnMaxGrid || tiles > 65535)
        return cudaErrorInvalidValue;
    if (bytes > optin) return cudaErrorNotSupported;
    BOOK_TRY(cudaFuncSetAttribute(attn_tiled_kernel<L, KEYS>,
             cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
    dim3 grid((unsigned)(a.B * a.H), (unsigned)tiles,
              KEYS == Keys::split ? (unsigned)part.splits : 1u);
    attn_tiled_kernel<L, KEYS><<<grid, L::THREADS, bytes, stream>>>(q, k,
        v, o, a, kLog2e / sqrtf((float)L::D), part);
    return cudaGetLastError();
}
static cudaError_t attn_tiled_check(const float *q, const float *k,
    const float *v, const float *o, attn_dims a, size_t *nq)
{
    size_t nk, ns;
    BOOK_TRY(attn_check(q, k, v, o, a, nq, &nk, &ns));
    if (a.D != 32 && a.D != 64 && a.D != 128) return cudaErrorInvalidValue;
    if (a.B * a.H > kAttnMaxGrid || ceil_div(a.Sq, 64) > 65535)
        return cudaErrorInvalidValue;           // whichever shape runs
    if (!is_aligned(q, 16) || !is_aligned(k, 16) || !is_aligned(v, 16) ||
        !is_aligned(o, 16))
        return cudaErrorInvalidValue;
    return cudaSuccess;
}
extern "C" cudaError_t attention_tiled_compact(const float *q,
    const float *k, const float *v, float *o, attn_dims a,
    cudaStream_t stream)
{
    size_t nq, optin;
    BOOK_TRY(attn_tiled_check(q, k, v, o, a, &nq));
    if (nq == 0) return cudaSuccess;
    if (a.D != 128) return attention_tiled(q, k, v, o, a, stream); // same
    BOOK_CLEAR_TO_LAUNCH();
    BOOK_TRY(attn_optin(&optin));
    return attn_tiled_launch<attn_compact_128>(q, k, v, o, a, optin, stream);
}
// The shape attention_tiled_shape picks, launched (D checked).
template <Keys KEYS>
static cudaError_t attn_tiled_pick(const float *q, const float *k,
    const float *v, float *o, attn_dims a, cudaStream_t stream,
    attn_part part = attn_part())
{
    size_t optin;
    BOOK_TRY(attn_optin(&optin));
    switch (attention_tiled_shape(a.D, optin)) {
    case ATTN_SHAPE_FULL:
        if (a.D == 32)
            return attn_tiled_launch<attn_tile<32>, KEYS>(q, k, v, o, a,
                                                   optin, stream, part);
        if (a.D == 64)
            return attn_tiled_launch<attn_tile<64>, KEYS>(q, k, v, o, a,
                                                   optin, stream, part);
        return attn_tiled_launch<attn_tile<128>, KEYS>(q, k, v, o, a,
                                                optin, stream, part);
    case ATTN_SHAPE_COMPACT:                             // 99 KB a block
        return attn_tiled_launch<attn_compact_128, KEYS>(q, k, v, o, a,
                                                  optin, stream, part);
    default:                                     // D checked: nothing fits
        return cudaErrorNotSupported;
    }
}
extern "C" cudaError_t attention_tiled(const float *q, const float *k,
    const float *v, float *o, attn_dims a, cudaStream_t stream)
{
    size_t nq;
    BOOK_TRY(attn_tiled_check(q, k, v, o, a, &nq));
    if (nq == 0) return cudaSuccess;
    BOOK_CLEAR_TO_LAUNCH();
    return attn_tiled_pick<Keys::all>(q, k, v, o, a, stream);
}

// <<Merge the partial triples of the split keys>>
__global__ void attn_merge_kernel(const float *po, const float *pml,
                                  float *o, size_t rows, int D, int splits)
{
    const size_t quads = rows * (size_t)(D / 4);
    for (size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
         t < quads; t += (size_t)gridDim.x * blockDim.x) {
        const size_t r = t / (D / 4), c = t % (D / 4);
        float mx = -INFINITY;
        for (int z = 0; z < splits; z++)
            mx = fmaxf(mx, pml[2 * (z * rows + r)]);
        float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        float d = 0.0f;
        if (mx != -INFINITY)
            for (int z = 0; z < splits; z++) {
                const float w = exp2f(pml[2 * (z * rows + r)] - mx);
                const float4 x = ((const float4 *)po)[(z * rows + r) *
                                                      (D / 4) + c];
                d += w * pml[2 * (z * rows + r) + 1];
                acc.x += w * x.x; acc.y += w * x.y;
                acc.z += w * x.z; acc.w += w * x.w;
            }
        const float inv = md_recip(d);                  // d = 0: zeros
        ((float4 *)o)[r * (D / 4) + c] = make_float4(acc.x * inv,
            acc.y * inv, acc.z * inv, acc.w * inv);
    }
}

// <<Split the keys among blocks>>
// The shares' outputs (nq splits floats), then their pairs (m, d):
// false where a size overflows.
static bool split_layout(book_carve *c, attn_dims a, int splits,
                         attn_part *part)
{
    size_t nq, nk, ns, rows, po, ml;
    if (splits < 2 || splits > ATTN_MAX_SPLITS ||
        !attn_sizes(a, &nq, &nk, &ns) || !mul_ok(a.B * a.H, a.Sq, &rows))
        return false;
    if (!mul_ok(nq, (size_t)splits * 4, &po) ||
        !mul_ok(rows, (size_t)splits * 8, &ml) || po > SIZE_MAX / 2)
        return false;
    part->o = (float *)book_carve_take(c, po, 256);
    part->ml = (float *)book_carve_take(c, ml, 8);
    part->splits = splits;
    return !c->overflow;
}
extern "C" size_t attention_split_work_bytes(attn_dims a, int splits)
{
    book_carve c = {NULL, 0, 0};
    attn_part part = {};
    return split_layout(&c, a, splits, &part) ? book_carve_size(&c) : 0;
}
extern "C" int attention_split_count(attn_dims a, int sms)
{
    const size_t load = a.D == 128 ? 1 : 2;           // blocks an SM holds
    const size_t slots = load * (size_t)(sms > 0 ? sms : 1);
    size_t bh, blocks;
    if (!mul_ok(a.B, a.H, &bh) || !mul_ok(bh, ceil_div(a.Sq, 128), &blocks))
        return 1;
    if (blocks == 0 || blocks >= slots) return 1;
    size_t p = ceil_div(2 * slots, blocks), most = ceil_div(a.Sk, 256);
    if (p > most) p = most;
    if (p > ATTN_MAX_SPLITS) p = ATTN_MAX_SPLITS;
    return p < 1 ? 1 : (int)p;
}
extern "C" cudaError_t attention_split(const float *q, const float *k,
    const float *v, float *o, attn_dims a, int splits, void *work,
    size_t work_bytes, cudaStream_t stream)
{
    size_t nq;
    BOOK_TRY(attn_tiled_check(q, k, v, o, a, &nq));
    if (splits < 1 || splits > ATTN_MAX_SPLITS) return cudaErrorInvalidValue;
    if (splits == 1) return attention_tiled(q, k, v, o, a, stream);
    const size_t need = attention_split_work_bytes(a, splits);
    if (nq == 0) return cudaSuccess;                  // nothing to write
    if (need == 0 || !work || work_bytes < need || !is_aligned(work, 16))
        return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    const size_t rows = a.B * a.H * a.Sq;
    attn_part part = {};
    book_carve c = {(char *)work, 0, 0};
    split_layout(&c, a, splits, &part);
    BOOK_TRY(attn_tiled_pick<Keys::split>(q, k, v, o, a, stream, part));
    const size_t quads = rows * (a.D / 4);
    const unsigned grid = (unsigned)(ceil_div(quads, 256) < 8192
                                         ? ceil_div(quads, 256) : 8192);
    attn_merge_kernel<<<grid, 256, 0, stream>>>(part.o, part.ml, o, rows,
                                                (int)a.D, splits);
    return cudaGetLastError();
}
