// softmax_ref.h -- softmax on the CPU, for the tests.
#ifndef SOFTMAX_REF_H
#define SOFTMAX_REF_H
#include <math.h>
#include <stddef.h>

// <<Softmax of one row in double>>
static inline double softmax_ref_weight(double x, double m)
{
    if (x == -INFINITY) return 0.0;
    return x == m ? 1.0 : exp(x - m);
}

static inline void softmax_ref(const float *x, double *y, size_t n)
{
    double m = -INFINITY, d = 0.0;
    for (size_t i = 0; i < n; i++) if (x[i] > m) m = x[i];
    for (size_t i = 0; i < n; i++) d += softmax_ref_weight(x[i], m);
    for (size_t i = 0; i < n; i++)
        y[i] = d == 0.0 ? 0.0 : softmax_ref_weight(x[i], m) / d;
}

// <<Wrong on purpose: softmax without the maximum>>
static inline void softmax_naive_float(const float *x, float *y, size_t n)
{
    float d = 0.0f;
    for (size_t i = 0; i < n; i++) d += expf(x[i]);  // overflows past 88.7
    for (size_t i = 0; i < n; i++) y[i] = expf(x[i]) / d;
}
#endif
