// mdo.h -- the online-softmax triple (m, d, o), the softmax chapter's
// pair (m, d) with a running output o = sum_j w(s_j, m) v_j of D floats.
// Compiles as C (the tests) and as CUDA.
#ifndef MDO_H
#define MDO_H
#include <stddef.h>
#include "softmax/online_pair.h"

// <<Add one key to the triple>>
// s: the pair (m, d) of the keys so far; o: their weighted values;
// x: the new key's score; v: its D values.
MD_FN void mdo_push(md_t *s, float *o, size_t D, float x, const float *v)
{
    float m = fmaxf(s->m, x);
    float a = md_weight(s->m, m), p = md_weight(x, m);
    for (size_t i = 0; i < D; i++) o[i] = o[i] * a + p * v[i];
    s->d = s->d * a + p;
    s->m = m;
}

// <<Combine two triples>>
MD_FN void mdo_combine(md_t *s, float *o, md_t t, const float *ot,
                       size_t D)
{
    md_t r = md_combine(*s, t);
    float a = md_weight(s->m, r.m), b = md_weight(t.m, r.m);
    for (size_t i = 0; i < D; i++) o[i] = o[i] * a + ot[i] * b;
    *s = r;
}

// <<Finish a row of the output>>
// o / d, or zeros for a row that saw no key (d = 0).
MD_FN void mdo_finish(md_t s, float *o, size_t D)
{
    float r = md_recip(s.d);
    for (size_t i = 0; i < D; i++) o[i] *= r;
}
#endif
