// conv_ref.h -- the CPU references, in double.
#ifndef CONV_REF_H
#define CONV_REF_H
#include <stddef.h>

// <<Valid and same cross-correlation in double>>
// y[i] = sum_j x[i + pad + j - pad...]: output i reads x[i - pad + j];
// pad = 0 is valid (n - k + 1 outputs), pad = (k - 1) / 2 with m = n is
// same.  a[i] = sum_j |x w| (a may be NULL).
static inline void conv1d_ref(const float *x, size_t n, const float *w,
                              size_t k, size_t pad, size_t m, double *y,
                              double *a)
{
    for (size_t i = 0; i < m; i++) {
        double s = 0, t = 0;
        for (size_t j = 0; j < k; j++) {
            size_t q = i + j;                   // x index q - pad
            if (q < pad || q - pad >= n) continue;
            double p = (double)x[q - pad] * w[j];
            s += p;
            t += p < 0 ? -p : p;
        }
        y[i] = s;
        if (a) a[i] = t;
    }
}

// <<Two-dimensional cross-correlation in double>>
// One output (r, c) of the valid correlation of an h x w image with a
// kh x kw filter; *a gets sum |x f|.
static inline double conv2d_ref_at(const float *x, size_t w, const float *f,
                                   size_t kh, size_t kw, size_t r, size_t c,
                                   double *a)
{
    double s = 0, t = 0;
    for (size_t i = 0; i < kh; i++)
        for (size_t j = 0; j < kw; j++) {
            double p = (double)x[(r + i) * w + c + j] * f[i * kw + j];
            s += p;
            t += p < 0 ? -p : p;
        }
    *a = t;
    return s;
}

// <<Convolution with the flip>>
// Signal-processing convolution, full length n + k - 1:
// z[i] = sum_j x[i - j] w[j] over the j where 0 <= i - j < n.
static inline void conv1d_flip_ref(const float *x, size_t n, const float *w,
                                   size_t k, double *z)
{
    for (size_t i = 0; i < n + k - 1; i++) {
        double s = 0;
        for (size_t j = 0; j < k; j++)
            if (j <= i && i - j < n) s += (double)x[i - j] * w[j];
        z[i] = s;
    }
}
#endif
