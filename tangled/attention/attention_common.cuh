// attention_common.cuh -- the constants and checks of every launcher.
#ifndef ATTENTION_COMMON_CUH
#define ATTENTION_COMMON_CUH
#include "common/book.h"
#include "common/carve.h"
#include "attention/attention.h"

// <<Attention launch constants and checks>>
static const size_t kAttnMaxGrid = 2147483647u;     // 2^31 - 1 blocks
static const float kLog2e = 1.4426950408889634f;

// r = x y, no overflow
static inline int mul_ok(size_t x, size_t y, size_t *r)
{
    if (y != 0 && x > SIZE_MAX / y) return 0;
    *r = x * y;
    return 1;
}
// Element counts of Q (and O), of K (and V) and of the scores; 0 when
// one of them, in bytes, would overflow.
static inline int attn_sizes(attn_dims a, size_t *nq, size_t *nk,
                             size_t *ns)
{
    size_t bh, rows, t;
    return a.D != 0 && mul_ok(a.B, a.H, &bh) && mul_ok(bh, a.Sq, &rows) &&
           mul_ok(rows, a.D, nq) && mul_ok(*nq, 4, &t) &&
           mul_ok(bh, a.Sk, &t) && mul_ok(t, a.D, nk) &&
           mul_ok(*nk, 4, &t) && mul_ok(rows, a.Sk, ns) &&
           mul_ok(*ns, 8, &t) && mul_ok(a.Sk, a.D, &t) &&
           mul_ok(t, 4, &t);           // one head's K^T, even with B H = 0
}
// The checks every launcher makes.
static inline cudaError_t attn_check(const float *q, const float *k,
                                     const float *v, const float *o,
                                     attn_dims a, size_t *nq,
                                     size_t *nk, size_t *ns)
{
    if (!q || !k || !v || !o || !attn_sizes(a, nq, nk, ns))
        return cudaErrorInvalidValue;
    size_t ob = *nq * 4, kb = *nk * 4;
    if (ranges_overlap(o, ob, q, ob) || ranges_overlap(o, ob, k, kb) ||
        ranges_overlap(o, ob, v, kb))
        return cudaErrorInvalidValue;
    return cudaSuccess;
}
#endif
