// welford.h -- Welford's running mean and M2, Chan's combine.
// Compiles as C (the tests) and as CUDA.
#ifndef WELFORD_H
#define WELFORD_H
#ifdef __CUDACC__
#define WF_FN __host__ __device__ static inline
#else
#define WF_FN static inline
#endif
// n values with mean `mean` and sum of squared deviations m2.
typedef struct { float n, mean, m2; } welford_t;

WF_FN welford_t welford_identity(void)
{
    welford_t w = {0.0f, 0.0f, 0.0f};
    return w;
}
WF_FN welford_t welford_push(welford_t w, float x)
{
    w.n += 1.0f;
    float delta = x - w.mean;
    w.mean += delta / w.n;
    w.m2 += delta * (x - w.mean);
    return w;
}

// <<Chan's combine of two Welford states>>
WF_FN welford_t welford_combine(welford_t a, welford_t b)
{
    float n = a.n + b.n;
    if (n == 0.0f) return a;             // two empty pieces
    float delta = b.mean - a.mean, fb = b.n / n;
    welford_t r = {n, a.mean + delta * fb,
                   a.m2 + b.m2 + delta * delta * a.n * fb};
    return r;
}
#endif
