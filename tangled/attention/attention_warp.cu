// attention_warp.cu -- fused attention, a warp per query row.
#include "attention/attention_common.cuh"
#include "reduce/reduce.cuh"
#include "attention/mdo.h"

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
// Whether the running output is rescaled when a row's maximum grows, or
// not: wrong on purpose.
enum class Rescale { on, wrong_off };
template <int D, Rescale RESCALE>
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
        if (RESCALE == Rescale::on)
            attn_push<T>(m, l, acc, s, vb + j * D, lane);
        else attn_push_no_rescale<T>(m, l, acc, s, vb + j * D, lane);
    }
    float r = md_recip(l);                  // no key seen: zeros
    for (int t = 0; t < T; t++) o[row * D + lane + 32 * t] = acc[t] * r;
}
template <Rescale RESCALE>
static cudaError_t attn_warp_launch(const float *q, const float *k,
    const float *v, float *o, attn_dims a, cudaStream_t stream)
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
        attn_warp_kernel<32, RESCALE>
            <<<g, 256, 0, stream>>>(q, k, v, o, a, c);
    else if (a.D == 64)
        attn_warp_kernel<64, RESCALE>
            <<<g, 256, 0, stream>>>(q, k, v, o, a, c);
    else
        attn_warp_kernel<128, RESCALE>
            <<<g, 256, 0, stream>>>(q, k, v, o, a, c);
    return cudaGetLastError();
}
extern "C" cudaError_t attention_warp(const float *q, const float *k,
    const float *v, float *o, attn_dims a, cudaStream_t stream)
{
    return attn_warp_launch<Rescale::on>(q, k, v, o, a, stream);
}
extern "C" cudaError_t attention_warp_no_rescale(const float *q,
    const float *k, const float *v, float *o, attn_dims a,
    cudaStream_t stream)
{
    return attn_warp_launch<Rescale::wrong_off>(q, k, v, o, a, stream);
}
