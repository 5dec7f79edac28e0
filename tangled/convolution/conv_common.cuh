// conv_common.cuh -- checks, constant filter, register window: shared.
#ifndef CONV_COMMON_CUH
#define CONV_COMMON_CUH
#include "common/book.h"
#include "convolution/conv.h"

// <<Checks shared by every convolution launcher>>
// x of xn floats, f of fn, y of yn: non-null, aligned, y overlapping
// neither.
static inline cudaError_t conv_args(const float *x, size_t xn,
                                    const float *f, size_t fn,
                                    const float *y, size_t yn)
{
    if (!x || !f || !y) return cudaErrorInvalidValue;
    if (!is_aligned(x, 4) || !is_aligned(f, 4) || !is_aligned(y, 4))
        return cudaErrorInvalidValue;
    if (ranges_overlap(y, yn * 4, x, xn * 4) ||
        ranges_overlap(y, yn * 4, f, fn * 4))
        return cudaErrorInvalidValue;
    return cudaSuccess;
}

// 1D: sizes in range; *m = n - k + 1 outputs, 0 when k > n.
static inline cudaError_t conv1d_args(const float *x, size_t n,
                                      const float *w, size_t k,
                                      const float *y, size_t maxk,
                                      size_t *m)
{
    if (n == 0 || k == 0 || n > CONV_MAX_N || k > maxk)
        return cudaErrorInvalidValue;
    *m = k <= n ? n - k + 1 : 0;
    return conv_args(x, n, w, k, y, *m);
}

// <<The filter in constant memory>>
static __constant__ float c_filter[CONV_MAX_TAPS];   // a copy in each .cu

// Copy taps floats of a device filter into c_filter, ordered on stream
// before the launch that follows.
static inline cudaError_t filter_to_constant(const float *w, size_t taps,
                                             cudaStream_t stream)
{
    return cudaMemcpyToSymbolAsync(c_filter, w, taps * sizeof(float), 0,
                                   cudaMemcpyDeviceToDevice, stream);
}

// <<The register window>>

// <<Skew a shared row against bank conflicts>>
__host__ __device__ __forceinline__ unsigned skew(unsigned q)
{
    return q + (q >> 4);
}

// <<Load sixteen inputs of a skewed row>>
// v[r] = row[skew(q + r)] for r < cnt; q is a multiple of 16, so the 16
// values are contiguous.
__device__ __forceinline__ void load16(float (&v)[16], const float *row,
                                       unsigned q, unsigned cnt = 16)
{
    const float *p = row + skew(q);
#pragma unroll
    for (int r = 0; r < 16; r++)
        if (r < (int)cnt) v[r] = p[r];
}

// <<Sixteen taps into sixteen accumulators>>
// acc[r] += win[r + c] * wf[c] for c < cnt, where the window win is a
// followed by b and wf points into c_filter.  Taps::all: cnt is 16.
enum class Taps { all, counted };
template <Taps TAPS>
__device__ __forceinline__ void taps16(float (&acc)[16], const float (&a)[16],
                                       const float (&b)[16], const float *wf,
                                       unsigned cnt)
{
#pragma unroll
    for (int c = 0; c < 16; c++) {
        if (TAPS == Taps::counted && c >= (int)cnt) break;
        float wc = wf[c];              // c_filter + constant offset
#pragma unroll
        for (int r = 0; r < 16; r++)
            acc[r] = fmaf(r + c < 16 ? a[r + c] : b[r + c - 16], wc, acc[r]);
    }
}

// <<Slide the window along one row>>
// acc[r] += sum_{j<k} row[skew(o + j + r)] * c_filter[f + j].  Reads the
// row up to index o + k + 15.
__device__ __forceinline__ void window_row(float (&acc)[16], const float *row,
                                           unsigned o, unsigned f, unsigned k)
{
    float a[16], b[16];
    load16(a, row, o);
    unsigned j = 0;
    for (; j + 32 <= k; j += 32) {           // whole chunks
        load16(b, row, o + j + 16);
        taps16<Taps::all>(acc, a, b, c_filter + f + j, 16);
        load16(a, row, o + j + 32);
        taps16<Taps::all>(acc, b, a, c_filter + f + j + 16, 16);
    }
    if (j < k) {                             // 1 to 31 taps left
        unsigned left = k - j;
        load16(b, row, o + j + 16, left < 17 ? left - 1 : 16);
        taps16<Taps::counted>(acc, a, b, c_filter + f + j, left);
        if (left > 16) {
            load16(a, row, o + j + 32, left - 17);
            taps16<Taps::counted>(acc, b, a, c_filter + f + j + 16,
                                  left - 16);
        }
    }
}

// <<Store sixteen outputs>>
// y[i + r] = acc[r] for i + r < m.
__device__ __forceinline__ void store16(float *y, size_t m, size_t i,
                                        const float (&acc)[16])
{
#pragma unroll
    for (int r = 0; r < 16; r++)
        if (i + r < m) y[i + r] = acc[r];
}

// <<2D: rows a block and the size checks>>
static const unsigned kRows2 = 8;            // output rows a block

static inline cudaError_t conv2d_args(const float *x, size_t h,
                                      size_t w, const float *f,
                                      size_t kh, size_t kw,
                                      const float *y, size_t maxk,
                                      size_t *ho, size_t *wo)
{
    if (!h || !w || !kh || !kw || kh > maxk || kw > maxk ||
        h > CONV_MAX_N / w)
        return cudaErrorInvalidValue;
    *ho = kh <= h ? h - kh + 1 : 0;
    *wo = kw <= w ? w - kw + 1 : 0;
    if (*ho == 0 || *wo == 0) *ho = *wo = 0;
    if (*ho > CONV2D_MAX_ROWS || *wo > CONV2D_MAX_COLS)
        return cudaErrorInvalidValue;
    return conv_args(x, h * w, f, kh * kw, y, *ho * *wo);
}
#endif
