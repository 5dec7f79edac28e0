// attention.cu -- chapter 12: attention, unfused and fused.
#include "common/book.h"
#include "common/reduce.cuh"
#include "03-transpose/transpose.h"
#include "04-matmul/matmul.h"
#include "07-softmax/softmax.h"
#include "12-attention/mdo.h"
#include "12-attention/attention.h"
#include <limits.h>

// <<Attention launch constants and checks>>
static const size_t kAttnMaxGrid = 2147483647u;     // 2^31 - 1 blocks
static const float kLog2e = 1.4426950408889634f;

static int mul_ok(size_t x, size_t y, size_t *r)   // r = x y, no overflow
{
    if (y != 0 && x > SIZE_MAX / y) return 0;
    *r = x * y;
    return 1;
}
// Element counts of Q (and O), of K (and V) and of the scores; 0 when
// one of them, in bytes, would overflow.
static int attn_sizes(attn_dims a, size_t *nq, size_t *nk, size_t *ns)
{
    size_t bh, rows, t;
    return a.D != 0 && mul_ok(a.B, a.H, &bh) && mul_ok(bh, a.Sq, &rows) &&
           mul_ok(rows, a.D, nq) && mul_ok(*nq, 4, &t) &&
           mul_ok(bh, a.Sk, &t) && mul_ok(t, a.D, nk) &&
           mul_ok(*nk, 4, &t) && mul_ok(rows, a.Sk, ns) &&
           mul_ok(*ns, 8, &t);
}
// The checks every launcher makes.
static cudaError_t attn_check(const float *q, const float *k,
                              const float *v, const float *o, attn_dims a,
                              size_t *nq, size_t *nk, size_t *ns)
{
    if (!q || !k || !v || !o || !attn_sizes(a, nq, nk, ns))
        return cudaErrorInvalidValue;
    size_t ob = *nq * 4, kb = *nk * 4;
    if (ranges_overlap(o, ob, q, ob) || ranges_overlap(o, ob, k, kb) ||
        ranges_overlap(o, ob, v, kb))
        return cudaErrorInvalidValue;
    return cudaSuccess;
}
static size_t attn_round(size_t n) { return (n + 63) / 64 * 64; }
extern "C" size_t attention_work_bytes(attn_dims a)
{
    size_t nq, nk, ns;
    if (!attn_sizes(a, &nq, &nk, &ns)) return 0;
    size_t w = attn_round(nq) + attn_round(a.Sk * a.D);
    if (attn_round(ns) > (SIZE_MAX / 4 - w) / 2) return 0;
    return (w + 2 * attn_round(ns)) * 4;
}

// <<Scale a matrix and mask the scores>>
static const unsigned kAttnBlock = 256, kAttnGrid = 4096;
__global__ void attn_scale_kernel(const float *x, float *y, size_t n, float c)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        y[i] = x[i] * c;
}
// Scores of rows x Sk: query i = row % Sq loses key j > i + Sk - Sq.
__global__ void attn_mask_kernel(float *s, size_t n, attn_dims a)
{
    for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < n;
         e += (size_t)gridDim.x * blockDim.x) {
        long long i = (long long)(e / a.Sk % a.Sq), j = (long long)(e % a.Sk);
        if (j > i + (long long)a.Sk - (long long)a.Sq) s[e] = -INFINITY;
    }
}

// <<Attention in three kernels>>
extern "C" cudaError_t attention_three_kernel(const float *q,
    const float *k, const float *v, float *o, attn_dims a, void *work)
{
    size_t nq, nk, ns, bh = a.B * a.H;
    BOOK_TRY(attn_check(q, k, v, o, a, &nq, &nk, &ns));
    if (nq == 0) return cudaSuccess;
    if (!work || a.Sq > INT_MAX || a.Sk > INT_MAX || a.D > INT_MAX)
        return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    if (a.Sk == 0) return cudaMemsetAsync(o, 0, nq * sizeof(float));
    float *qs = (float *)work, *kt = qs + attn_round(nq);
    float *s = kt + attn_round(a.Sk * a.D), *p = s + attn_round(ns);
    attn_scale_kernel<<<kAttnGrid, kAttnBlock>>>(q, qs, nq,
                                                1.0f / sqrtf((float)a.D));
    BOOK_TRY(cudaGetLastError());
    // <<Scores of every head with chapter 4's matmul>>
    for (size_t h = 0; h < bh; h++) {                         // S = Q K^T
        BOOK_TRY(transpose_tile_padded(k + h * a.Sk * a.D, kt, a.Sk, a.D));
        BOOK_TRY(matmul_double_buffered(qs + h * a.Sq * a.D, kt,
                                        s + h * a.Sq * a.Sk, a.Sq, a.Sk, a.D));
    }
    if (a.causal) {
        attn_mask_kernel<<<kAttnGrid, kAttnBlock>>>(s, ns, a);
        BOOK_TRY(cudaGetLastError());
    }
    BOOK_TRY(softmax_rows_cached(s, p, bh * a.Sq, a.Sk));      // chapter 7
    for (size_t h = 0; h < bh; h++)                            // O = P V
        BOOK_TRY(matmul_double_buffered(p + h * a.Sq * a.Sk,
                 v + h * a.Sk * a.D, o + h * a.Sq * a.D, a.Sq, a.D, a.Sk));
    return cudaSuccess;
}

// <<Attention on cuBLAS>>
#define ATTN_CUBLAS(call) \
    do {                                                                \
        if ((call) != CUBLAS_STATUS_SUCCESS) return cudaErrorUnknown;   \
    } while (0)
extern "C" cudaError_t attention_cublas(cublasHandle_t hd, const float *q,
    const float *k, const float *v, float *o, attn_dims a, void *work)
{
    size_t nq, nk, ns, bh = a.B * a.H;
    BOOK_TRY(attn_check(q, k, v, o, a, &nq, &nk, &ns));
    if (nq == 0) return cudaSuccess;
    if (!hd || !work || a.Sq > INT_MAX || a.Sk > INT_MAX || a.D > INT_MAX ||
        bh > INT_MAX)
        return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    if (a.Sk == 0) return cudaMemsetAsync(o, 0, nq * sizeof(float));
    float *s = (float *)work, *p = s + attn_round(ns);
    int sq = (int)a.Sq, sk = (int)a.Sk, d = (int)a.D, n = (int)bh;
    const float scale = 1.0f / sqrtf((float)a.D), one = 1.0f, zero = 0.0f;
    // <<S = Q K^T scaled, as column-major S^T = K Q^T>>
    ATTN_CUBLAS(cublasSgemmStridedBatched(hd, CUBLAS_OP_T, CUBLAS_OP_N, sk, sq,
        d, &scale, k, d, (long long)sk * d, q, d, (long long)sq * d, &zero, s,
        sk, (long long)sq * sk, n));
    if (a.causal) {
        attn_mask_kernel<<<kAttnGrid, kAttnBlock>>>(s, ns, a);
        BOOK_TRY(cudaGetLastError());
    }
    BOOK_TRY(softmax_rows_cached(s, p, bh * a.Sq, a.Sk));
    // <<O = P V, as column-major O^T = V^T P^T>>
    ATTN_CUBLAS(cublasSgemmStridedBatched(hd, CUBLAS_OP_N, CUBLAS_OP_N, d, sq,
        sk, &one, v, d, (long long)sk * d, p, sk, (long long)sq * sk, &zero, o,
        d, (long long)sq * d, n));
    return cudaGetLastError();
}

// <<The keys a query sees>>
// Keys 0 .. n-1 for query i: all Sk, or with the causal mask
// min(Sk, max(0, i + 1 + Sk - Sq)).
__device__ __forceinline__ long long attn_keys_seen(attn_dims a, size_t i)
{
    long long n = (long long)i + 1 + (long long)a.Sk - (long long)a.Sq;
    if (!a.causal || n > (long long)a.Sk) return (long long)a.Sk;
    return n < 0 ? 0 : n;
}

// <<Update the running triple with one key>>
// m and the score s are in base 2 (scaled by log2 e); a lane holds T of
// the D outputs and reads its T values of the key's row vr.
template <int T>
__device__ __forceinline__ void attn_push(float &m, float &l,
    float (&acc)[T], float s, const float *vr, unsigned lane)
{
    float mn = fmaxf(m, s);
    float c = exp2f(m - mn), p = exp2f(s - mn);   // first key: c = 0
    l = l * c + p;
#pragma unroll
    for (int t = 0; t < T; t++)
        acc[t] = fmaf(p, vr[lane + 32 * t], acc[t] * c);
    m = mn;
}

// <<Wrong on purpose: the update that forgets to rescale o>>
template <int T>
__device__ __forceinline__ void attn_push_no_rescale(float &m, float &l,
    float (&acc)[T], float s, const float *vr, unsigned lane)
{
    float mn = fmaxf(m, s);
    float c = exp2f(m - mn), p = exp2f(s - mn);
    l = l * c + p;
#pragma unroll
    for (int t = 0; t < T; t++)    // WRONG: old terms keep the old maximum
        acc[t] = fmaf(p, vr[lane + 32 * t], acc[t]);
    m = mn;
}

// <<Attention: a warp per query row>>
static const unsigned kWarpRows = 8;       // query rows (warps) a block
template <int D, bool Rescale>
__global__ void __launch_bounds__(256) attn_warp_kernel(const float *q,
    const float *k, const float *v, float *o, attn_dims a, float scale2)
{
    constexpr int T = D / 32;           // elements of q and o a lane holds
    const size_t row = blockIdx.x * (size_t)kWarpRows + threadIdx.x / 32;
    const unsigned lane = threadIdx.x % 32;
    if (row >= a.B * a.H * a.Sq) return;    // the whole warp leaves together
    const size_t bh = row / a.Sq;
    const float *kb = k + bh * a.Sk * D, *vb = v + bh * a.Sk * D;
    float qr[T], acc[T], m = -INFINITY, l = 0.0f;
    for (int t = 0; t < T; t++) {
        qr[t] = q[row * D + lane + 32 * t] * scale2;
        acc[t] = 0.0f;
    }
    const long long n = attn_keys_seen(a, row % a.Sq);
    for (long long j = 0; j < n; j++) {
        float s = 0.0f;
        for (int t = 0; t < T; t++)
            s = fmaf(qr[t], kb[j * D + lane + 32 * t], s);
        s = warp_sum(s);                    // every lane gets the score
        if (Rescale) attn_push<T>(m, l, acc, s, vb + j * D, lane);
        else attn_push_no_rescale<T>(m, l, acc, s, vb + j * D, lane);
    }
    float r = md_recip(l);                  // no key seen: zeros
    for (int t = 0; t < T; t++) o[row * D + lane + 32 * t] = acc[t] * r;
}
template <bool Rescale>
static cudaError_t attn_warp_launch(const float *q, const float *k,
    const float *v, float *o, attn_dims a)
{
    size_t nq, nk, ns;
    BOOK_TRY(attn_check(q, k, v, o, a, &nq, &nk, &ns));
    if (a.D != 32 && a.D != 64 && a.D != 128) return cudaErrorInvalidValue;
    if (nq == 0) return cudaSuccess;
    size_t grid = ceil_div(a.B * a.H * a.Sq, kWarpRows);
    if (grid > kAttnMaxGrid) return cudaErrorInvalidValue;
    float c = kLog2e / sqrtf((float)a.D);
    BOOK_CLEAR_TO_LAUNCH();
    unsigned g = (unsigned)grid;
    if (a.D == 32)
        attn_warp_kernel<32, Rescale><<<g, 256>>>(q, k, v, o, a, c);
    else if (a.D == 64)
        attn_warp_kernel<64, Rescale><<<g, 256>>>(q, k, v, o, a, c);
    else
        attn_warp_kernel<128, Rescale><<<g, 256>>>(q, k, v, o, a, c);
    return cudaGetLastError();
}
extern "C" cudaError_t attention_warp(const float *q, const float *k,
    const float *v, float *o, attn_dims a)
{
    return attn_warp_launch<true>(q, k, v, o, a);
}
extern "C" cudaError_t attention_warp_no_rescale(const float *q,
    const float *k, const float *v, float *o, attn_dims a)
{
    return attn_warp_launch<false>(q, k, v, o, a);
}

// <<Tile shapes of the tiled kernel>>
// BR query rows and BC keys a tile; a thread owns TM rows (ty + TR i) and,
// of S, TNS columns (tx + 16 j); of O, TNO columns (groups of W).
template <int D> struct attn_tile;
template <> struct attn_tile<32>  { enum { BR = 128, BC = 64, TM = 8 }; };
template <> struct attn_tile<64>  { enum { BR = 128, BC = 64, TM = 8 }; };
template <> struct attn_tile<128> { enum { BR = 64, BC = 64, TM = 4 }; };
template <int D> struct attn_layout {
    enum { BR = attn_tile<D>::BR, BC = attn_tile<D>::BC,
           TM = attn_tile<D>::TM, TR = BR / TM, THREADS = 16 * TR,
           TNS = BC / 16, TNO = D / 16, W = TNO < 4 ? TNO : 4,
           KS = D + 4,                 // K row stride: conflict-free float4
           PS = BC + 16,               // P row stride: two rows a warp
           KP = BC * KS > BR * PS ? BC * KS : BR * PS,   // K, then P
           FLOATS = BR * D + KP + BC * D };
};

// <<Tiled kernel helpers>>
// Rows r0 .. r0+ROWS-1 of a [n][D] matrix into shared memory with row
// stride STRIDE, times c; rows past n are zeros.
template <int D, int ROWS, int STRIDE, int THREADS>
__device__ __forceinline__ void attn_load_rows(float *dst, const float *src,
    size_t r0, size_t n, float c)
{
    for (int e = threadIdx.x; e < ROWS * D / 4; e += THREADS) {
        int r = e / (D / 4), c4 = e % (D / 4);
        float4 x = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        if (r0 + r < n) x = ((const float4 *)(src + (r0 + r) * D))[c4];
        x.x *= c; x.y *= c; x.z *= c; x.w *= c;
        *(float4 *)(dst + r * STRIDE + 4 * c4) = x;
    }
}
// The output column of a thread's c-th accumulator.
template <int D>
__device__ __forceinline__ int attn_col(int c, int tx)
{
    constexpr int W = attn_layout<D>::W;
    return c / W * 16 * W + W * tx + c % W;
}
template <int D>
__device__ __forceinline__ void attn_scores(const float *Qs,
    const float *Ks, int tx, int ty,
    float (&s)[attn_layout<D>::TM][attn_layout<D>::TNS])
{
    using L = attn_layout<D>;
#pragma unroll
    for (int i = 0; i < L::TM; i++)
#pragma unroll
        for (int j = 0; j < L::TNS; j++) s[i][j] = 0.0f;
#pragma unroll
    for (int d = 0; d < D; d += 4) {
        float4 qa[L::TM], kb[L::TNS];
#pragma unroll
        for (int i = 0; i < L::TM; i++)
            qa[i] = *(const float4 *)(Qs + (ty + L::TR * i) * D + d);
#pragma unroll
        for (int j = 0; j < L::TNS; j++)
            kb[j] = *(const float4 *)(Ks + (tx + 16 * j) * L::KS + d);
#pragma unroll
        for (int i = 0; i < L::TM; i++)
#pragma unroll
            for (int j = 0; j < L::TNS; j++)
                s[i][j] = fmaf(qa[i].w, kb[j].w, fmaf(qa[i].z, kb[j].z,
                          fmaf(qa[i].y, kb[j].y, fmaf(qa[i].x, kb[j].x,
                                                      s[i][j]))));
    }
}
template <int D>
__device__ __forceinline__ void attn_mask_tile(
    float (&s)[attn_layout<D>::TM][attn_layout<D>::TNS], attn_dims a,
    long long q0, long long k0, long long shift, int tx, int ty)
{
    using L = attn_layout<D>;
#pragma unroll
    for (int i = 0; i < L::TM; i++)
#pragma unroll
        for (int j = 0; j < L::TNS; j++) {
            long long qi = q0 + ty + L::TR * i, kj = k0 + tx + 16 * j;
            if (kj >= (long long)a.Sk || (a.causal && kj > qi + shift))
                s[i][j] = -INFINITY;
        }
}
template <int D>
__device__ __forceinline__ void attn_tile_update(
    float (&s)[attn_layout<D>::TM][attn_layout<D>::TNS],
    float (&m)[attn_layout<D>::TM], float (&l)[attn_layout<D>::TM],
    float (&acc)[attn_layout<D>::TM][attn_layout<D>::TNO])
{
    using L = attn_layout<D>;
#pragma unroll
    for (int i = 0; i < L::TM; i++) {
        float mx = s[i][0];
#pragma unroll
        for (int j = 1; j < L::TNS; j++) mx = fmaxf(mx, s[i][j]);
        for (int off = 8; off > 0; off /= 2)         // the half-warp's row
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
template <int D>
__device__ __forceinline__ void attn_pv(const float *Ps, const float *Vs,
    int tx, int ty, float (&acc)[attn_layout<D>::TM][attn_layout<D>::TNO])
{
    using L = attn_layout<D>;
#pragma unroll 2
    for (int j = 0; j < L::BC; j += 4) {
        float4 p4[L::TM];
#pragma unroll
        for (int i = 0; i < L::TM; i++)
            p4[i] = *(const float4 *)(Ps + (ty + L::TR * i) * L::PS + j);
#pragma unroll
        for (int jj = 0; jj < 4; jj++) {
            float vv[L::TNO];
            // <<Read a thread's values of one row of V>>
            const float *vr = Vs + (j + jj) * D;
            #pragma unroll
            for (int g = 0; g < L::TNO / L::W; g++) {
                if constexpr (L::W == 4) {
                    float4 x = *(const float4 *)(vr + attn_col<D>(4 * g, tx));
                    vv[4 * g] = x.x; vv[4 * g + 1] = x.y;
                    vv[4 * g + 2] = x.z; vv[4 * g + 3] = x.w;
                } else {
                    float2 x = *(const float2 *)(vr + attn_col<D>(2 * g, tx));
                    vv[2 * g] = x.x; vv[2 * g + 1] = x.y;
                }
            }
#pragma unroll
            for (int i = 0; i < L::TM; i++) {
                float p = jj == 0 ? p4[i].x : jj == 1 ? p4[i].y
                        : jj == 2 ? p4[i].z : p4[i].w;
#pragma unroll
                for (int t = 0; t < L::TNO; t++)
                    acc[i][t] = fmaf(p, vv[t], acc[i][t]);
            }
        }
    }
}

// <<Attention: tiled, FlashAttention-2 loop order>>
template <int D>
__global__ void __launch_bounds__(attn_layout<D>::THREADS, 2)
attn_tiled_kernel(const float *q, const float *k, const float *v, float *o,
                  attn_dims a, float scale2)
{
    using L = attn_layout<D>;
    extern __shared__ float4 attn_smem[];
    float *Qs = (float *)attn_smem, *Ks = Qs + L::BR * D, *Ps = Ks;
    float *Vs = Ks + L::KP;
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    const size_t bh = blockIdx.x;   // below: the last query tiles go first
    const long long q0 = (long long)(gridDim.y - 1 - blockIdx.y) * L::BR;
    const float *kb = k + bh * a.Sk * D, *vb = v + bh * a.Sk * D;
    attn_load_rows<D, L::BR, D, L::THREADS>(Qs, q + bh * a.Sq * D, q0, a.Sq,
                                            scale2);
    float acc[L::TM][L::TNO] = {}, m[L::TM], l[L::TM];
    for (int i = 0; i < L::TM; i++) { m[i] = -INFINITY; l[i] = 0.0f; }
    const long long shift = (long long)a.Sk - (long long)a.Sq;
    long long kend = (long long)a.Sk;               // keys this tile needs
    if (a.causal && q0 + L::BR + shift < kend) kend = q0 + L::BR + shift;
    for (long long k0 = 0; k0 < kend; k0 += L::BC) {
        // <<Multiply one tile of keys into the running output>>
        __syncthreads();                       // the last tile's P and V are read
        attn_load_rows<D, L::BC, L::KS, L::THREADS>(Ks, kb, k0, a.Sk, 1.0f);
        attn_load_rows<D, L::BC, D, L::THREADS>(Vs, vb, k0, a.Sk, 1.0f);
        __syncthreads();
        float s[L::TM][L::TNS];
        attn_scores<D>(Qs, Ks, tx, ty, s);
        if (k0 + L::BC > (long long)a.Sk ||
            (a.causal && k0 + L::BC - 1 > q0 + shift))    // the same for the block
            attn_mask_tile<D>(s, a, q0, k0, shift, tx, ty);
        attn_tile_update<D>(s, m, l, acc);
        __syncthreads();                       // K is read; P takes its place
        #pragma unroll
        for (int i = 0; i < L::TM; i++)
        #pragma unroll
            for (int j = 0; j < L::TNS; j++)
                Ps[(ty + L::TR * i) * L::PS + tx + 16 * j] = s[i][j];
        __syncthreads();
        attn_pv<D>(Ps, Vs, tx, ty, acc);
    }
    // <<Normalize and store the tile's output rows>>
    #pragma unroll
    for (int i = 0; i < L::TM; i++) {
        for (int off = 8; off > 0; off /= 2)
            l[i] += __shfl_xor_sync(0xffffffffu, l[i], off);
        float r = md_recip(l[i]);                      // no key seen: zeros
        long long row = q0 + ty + L::TR * i;
        if (row < (long long)a.Sq)
    #pragma unroll
            for (int t = 0; t < L::TNO; t++)
                o[(bh * a.Sq + row) * D + attn_col<D>(t, tx)] = acc[i][t] * r;
    }
}

// <<Launch the tiled kernel>>
template <int D>
static cudaError_t attn_tiled_launch(const float *q, const float *k,
    const float *v, float *o, attn_dims a)
{
    using L = attn_layout<D>;
    size_t bytes = L::FLOATS * sizeof(float), tiles = ceil_div(a.Sq, L::BR);
    if (a.B * a.H > kAttnMaxGrid || tiles > 65535)
        return cudaErrorInvalidValue;
    int dev, optin;
    BOOK_TRY(cudaGetDevice(&dev));
    BOOK_TRY(cudaDeviceGetAttribute(&optin,
             cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    if (bytes > (size_t)optin) return cudaErrorNotSupported;
    BOOK_TRY(cudaFuncSetAttribute(attn_tiled_kernel<D>,
             cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
    dim3 grid((unsigned)(a.B * a.H), (unsigned)tiles);
    attn_tiled_kernel<D><<<grid, L::THREADS, bytes>>>(q, k, v, o, a,
        kLog2e / sqrtf((float)D));
    return cudaGetLastError();
}
extern "C" cudaError_t attention_tiled(const float *q, const float *k,
    const float *v, float *o, attn_dims a)
{
    size_t nq, nk, ns;
    BOOK_TRY(attn_check(q, k, v, o, a, &nq, &nk, &ns));
    if (a.D != 32 && a.D != 64 && a.D != 128) return cudaErrorInvalidValue;
    if (!is_aligned(q, 16) || !is_aligned(k, 16) || !is_aligned(v, 16) ||
        !is_aligned(o, 16))
        return cudaErrorInvalidValue;
    if (nq == 0) return cudaSuccess;
    BOOK_CLEAR_TO_LAUNCH();
    if (a.D == 32) return attn_tiled_launch<32>(q, k, v, o, a);
    if (a.D == 64) return attn_tiled_launch<64>(q, k, v, o, a);
    return attn_tiled_launch<128>(q, k, v, o, a);
}
