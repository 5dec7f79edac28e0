// flash_softmax.cuh -- the device math of both attention kernels: a
// tile of scores, held as m16n8 accumulator fragments, masked and folded
// into each row's online softmax; bf16 pairs; the end of a row.
#pragma once
#include <cuda_bf16.h>
#include <math.h>
#include <stdint.h>

// <<Two floats as a bf16 pair>>
// Round to nearest even; lo goes to the low half, the lower column.
static __device__ __forceinline__ uint32_t flash_pack(float lo, float hi)
{
    __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
    return *(uint32_t *)&h;
}

// <<A row's sum and log-sum-exp>>
// The sum of a quad's four parts of a row sum (every lane gets it), and
// the natural log-sum-exp of a row of base-2 maximum m and sum l: -inf
// for a row that saw no key (l = 0).
static __device__ __forceinline__ float flash_quad_sum(float l)
{
    l += __shfl_xor_sync(0xffffffffu, l, 1);
    return l + __shfl_xor_sync(0xffffffffu, l, 2);
}
static __device__ __forceinline__ float flash_lse(float m, float l)
{
    return l > 0.f ? (m + log2f(l)) * 0.69314718f : -INFINITY;
}

// <<End a lane's two rows>>
// inv[h] = 1 / l of row row0 + 8 h, the quad's sum of l[h] (0 for a row
// that saw no key); the row's log-sum-exp, of maximum m[h], goes to
// lse[lse0 + row] when lse is not NULL and the row is before Sq.
static __device__ __forceinline__ void
flash_end_rows(const float (&m)[2], const float (&l)[2], float (&inv)[2],
               float *lse, size_t lse0, long long row0, long long Sq,
               int lane)
{
#pragma unroll
    for (int h = 0; h < 2; h++) {
        const float sum = flash_quad_sum(l[h]);
        inv[h] = sum > 0.f ? 1.f / sum : 0.f;
        const long long row = row0 + 8 * h;
        if (lse != nullptr && lane % 4 == 0 && row < Sq)
            lse[lse0 + (size_t)row] = flash_lse(m[h], sum);
    }
}

// <<Mask a tile of scores past the end and above the diagonal>>
// Sets to -inf the scores of NT fragments S(nt, e) in the m16n8 layout
// (element e of fragment nt: row row0 + 8 (e / 2), key key0 + 8 nt +
// 2 (lane % 4) + e % 2) whose key is past Sk or, causal, above the
// diagonal: key > row + shift.  first is the group's first row; a tile
// that no row of the group crosses is left alone.
template <int NT, class Frag>
static __device__ __forceinline__ void
flash_mask_tile(Frag &&S, long long key0, long long first, long long row0,
                int lane, long long Sk, int causal, long long shift)
{
    constexpr int BN = 8 * NT;  // keys in the tile
    if (key0 + BN > Sk || (causal && key0 + BN - 1 > first + shift)) {
#pragma unroll
        for (int nt = 0; nt < NT; nt++)
#pragma unroll
            for (int e = 0; e < 4; e++) {
                long long key = key0 + nt * 8 + 2 * (lane % 4) + (e & 1);
                long long row = row0 + (e >> 1) * 8;
                if (key >= Sk || (causal && key > row + shift))
                    S(nt, e) = -INFINITY;
            }
    }
}

// <<Fold a tile of scores into the rows' online softmax>>
// The online softmax of a tile on NT fragments S(nt, e) of this lane's
// rows row0 (h = 0: elements 0, 1) and row0 + 8 (h = 1: elements 2, 3),
// scores scaled into base 2 by scale_log2.  m[h] is the row's running
// maximum, l[h] this lane's part of its sum; S becomes the weights
// 2^(s c - m).  on_alpha(h, alpha) gets each row's factor for what was
// accumulated before the tile.
template <int NT, class Frag, class OnAlpha>
static __device__ __forceinline__ void
flash_online_rows(Frag &&S, float (&m)[2], float (&l)[2], float scale_log2,
                  OnAlpha &&on_alpha)
{
#pragma unroll
    for (int h = 0; h < 2; h++) {  // rows row0 and row0 + 8
        float mx = m[h];
#pragma unroll
        for (int nt = 0; nt < NT; nt++)
            mx = fmaxf(mx, fmaxf(S(nt, 2 * h), S(nt, 2 * h + 1)) *
                               scale_log2);
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
        const float mu = mx == -INFINITY ? 0.f : mx;
        const float alpha = exp2f(m[h] - mu);
        float sum = 0.f;
#pragma unroll
        for (int nt = 0; nt < NT; nt++)
#pragma unroll
            for (int e = 2 * h; e < 2 * h + 2; e++) {
                S(nt, e) = exp2f(fmaf(S(nt, e), scale_log2, -mu));
                sum += S(nt, e);
            }
        l[h] = l[h] * alpha + sum;
        m[h] = mx;
        on_alpha(h, alpha);
    }
}
