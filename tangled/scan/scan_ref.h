/* scan_ref.h -- the CPU reference scans (C). */
#ifndef SCAN_REF_H
#define SCAN_REF_H
#include <stddef.h>

// <<CPU reference scans>>
/* y[i] = x[0] + ... + x[i] (inclusive) or x[0] + ... + x[i-1]
 * (exclusive, y[0] = 0).  x and y may be the same array. */
static inline void scan_ref_i64(const long long *x, long long *y, size_t n,
                                int exclusive)
{
    long long s = 0;
    for (size_t i = 0; i < n; i++) {
        long long xi = x[i];
        y[i] = exclusive ? s : s + xi;
        s += xi;
    }
}
static inline void scan_ref_f64(const float *x, double *y, size_t n,
                                int exclusive)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) {
        y[i] = exclusive ? s : s + x[i];
        s += x[i];
    }
}
#endif
