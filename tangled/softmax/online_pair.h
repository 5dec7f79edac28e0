// online_pair.h -- the weight of a score and the online-softmax pair
// (m, d) with its operator.  Compiles as C (the tests) and as CUDA.
#ifndef ONLINE_PAIR_H
#define ONLINE_PAIR_H
#include <math.h>
#ifdef __CUDACC__
#define MD_FN __host__ __device__ static inline
#else
#define MD_FN static inline
#endif

// <<The weight of a score>>
// w(x, m): 0 for x = -inf, 1 for x = m (also +inf), else e^(x - m).
MD_FN float md_weight(float x, float m)
{
    if (x == -INFINITY) return 0.0f;
    return x == m ? 1.0f : expf(x - m);
}
// 1/d, or 0 for a row without mass (d = 0); NaN stays NaN.
MD_FN float md_recip(float d) { return d == 0.0f ? 0.0f : 1.0f / d; }

// <<The pair (m, d), its identity and its operator>>
// The summary of a piece of a row: its maximum m and the sum d of
// e^(x - m) over its scores.  A valid pair with m = -inf has d = 0.
typedef struct { float m, d; } md_t;

MD_FN md_t md_identity(void) { md_t r = {-INFINITY, 0.0f}; return r; }
MD_FN md_t md_of(float x) { md_t r = {x, md_weight(x, x)}; return r; }

MD_FN md_t md_combine(md_t a, md_t b)
{
    md_t r;
    r.m = fmaxf(a.m, b.m);
    r.d = a.d * md_weight(a.m, r.m) + b.d * md_weight(b.m, r.m);
    return r;
}

// <<Add one score to a pair>>
MD_FN md_t md_push(md_t s, float x)
{
    if (x > s.m) {
        s.d = s.d * md_weight(s.m, x) + 1.0f;
        s.m = x;
    } else {
        s.d += md_weight(x, s.m);
    }
    return s;
}
MD_FN float md_inv(md_t s) { return md_recip(s.d); }
#endif
