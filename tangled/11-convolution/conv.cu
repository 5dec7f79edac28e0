// conv.cu -- chapter 11: convolution kernels and their launchers.
#include "common/book.h"
#include "11-convolution/conv.h"

// <<Checks shared by every convolution launcher>>
// x of xn floats, f of fn, y of yn: non-null, aligned, y overlapping
// neither.
static cudaError_t conv_args(const float *x, size_t xn, const float *f,
                             size_t fn, const float *y, size_t yn)
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
static cudaError_t conv1d_args(const float *x, size_t n, const float *w,
                               size_t k, const float *y, size_t maxk,
                               size_t *m)
{
    if (n == 0 || k == 0 || n > CONV_MAX_N || k > maxk)
        return cudaErrorInvalidValue;
    *m = k <= n ? n - k + 1 : 0;
    return conv_args(x, n, w, k, y, *m);
}

// <<The filter in constant memory>>
__constant__ float c_filter[CONV_MAX_TAPS];

// Copy taps floats of a device filter into c_filter, ordered on the
// default stream before the launch that follows.
static cudaError_t filter_to_constant(const float *w, size_t taps)
{
    return cudaMemcpyToSymbolAsync(c_filter, w, taps * sizeof(float), 0,
                                   cudaMemcpyDeviceToDevice, 0);
}

// <<1D: one output a thread, filter from global memory>>
static const unsigned kConvBlock = 256;

__global__ void conv1d_naive_kernel(const float *x, const float *w,
                                    size_t k, float *y, size_t m)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= m) return;
    float s = 0.0f;
    for (size_t j = 0; j < k; j++) s = fmaf(x[i + j], w[j], s);
    y[i] = s;
}

extern "C" cudaError_t conv1d_naive(const float *x, size_t n,
                                    const float *w, size_t k, float *y)
{
    size_t m;
    BOOK_TRY(conv1d_args(x, n, w, k, y, CONV_MAX_N, &m));
    if (m == 0) return cudaSuccess;
    BOOK_CLEAR_TO_LAUNCH();
    conv1d_naive_kernel<<<(unsigned)ceil_div(m, kConvBlock), kConvBlock>>>(
        x, w, k, y, m);
    return cudaGetLastError();
}

// <<1D: the filter in constant memory>>
__global__ void conv1d_const_kernel(const float *x, unsigned k, float *y,
                                    size_t m)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= m) return;
    float s = 0.0f;
    for (unsigned j = 0; j < k; j++) s = fmaf(x[i + j], c_filter[j], s);
    y[i] = s;
}

extern "C" cudaError_t conv1d_const(const float *x, size_t n,
                                    const float *w, size_t k, float *y)
{
    size_t m;
    BOOK_TRY(conv1d_args(x, n, w, k, y, CONV_MAX_TAPS, &m));
    if (m == 0) return cudaSuccess;
    BOOK_CLEAR_TO_LAUNCH();
    BOOK_TRY(filter_to_constant(w, k));
    conv1d_const_kernel<<<(unsigned)ceil_div(m, kConvBlock), kConvBlock>>>(
        x, (unsigned)k, y, m);
    return cudaGetLastError();
}

// <<1D: a lane-dependent tap order>>
__global__ void conv1d_rotated_kernel(const float *x, unsigned k, float *y,
                                      size_t m)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= m) return;
    unsigned j = (threadIdx.x % 32) % k;    // each lane starts elsewhere
    float s = 0.0f;
    for (unsigned t = 0; t < k; t++) {
        s = fmaf(x[i + j], c_filter[j], s);  // 32 addresses a warp
        if (++j == k) j = 0;
    }
    y[i] = s;
}

extern "C" cudaError_t conv1d_const_rotated(const float *x, size_t n,
                                            const float *w, size_t k,
                                            float *y)
{
    size_t m;
    BOOK_TRY(conv1d_args(x, n, w, k, y, CONV_MAX_TAPS, &m));
    if (m == 0) return cudaSuccess;
    BOOK_CLEAR_TO_LAUNCH();
    BOOK_TRY(filter_to_constant(w, k));
    conv1d_rotated_kernel<<<(unsigned)ceil_div(m, kConvBlock),
                            kConvBlock>>>(x, (unsigned)k, y, m);
    return cudaGetLastError();
}

// <<1D: zero-padded same>>
__global__ void conv1d_same_kernel(const float *x, size_t n, unsigned k,
                                   float *y)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    size_t pad = (k - 1) / 2;
    float s = 0.0f;
    for (unsigned j = 0; j < k; j++) {
        size_t q = i + j;                   // x index q - pad
        if (q >= pad && q - pad < n) s = fmaf(x[q - pad], c_filter[j], s);
    }
    y[i] = s;
}

extern "C" cudaError_t conv1d_same(const float *x, size_t n, const float *w,
                                   size_t k, float *y)
{
    size_t m;
    BOOK_TRY(conv1d_args(x, n, w, k, y, CONV_MAX_TAPS, &m));
    BOOK_TRY(conv_args(x, n, w, k, y, n));    // n outputs, not m
    BOOK_CLEAR_TO_LAUNCH();
    BOOK_TRY(filter_to_constant(w, k));
    conv1d_same_kernel<<<(unsigned)ceil_div(n, kConvBlock), kConvBlock>>>(
        x, n, (unsigned)k, y);
    return cudaGetLastError();
}

// <<1D: a tile and its halo in shared memory>>
__global__ void conv1d_tiled_kernel(const float *x, size_t n, unsigned k,
                                    float *y, size_t m)
{
    extern __shared__ float s[];              // kConvBlock + k - 1 inputs
    size_t base = blockIdx.x * (size_t)kConvBlock;
    for (unsigned t = threadIdx.x; t < kConvBlock + k - 1; t += kConvBlock)
        s[t] = base + t < n ? x[base + t] : 0.0f;
    __syncthreads();
    size_t i = base + threadIdx.x;
    if (i >= m) return;
    float acc = 0.0f;
    for (unsigned j = 0; j < k; j++)
        acc = fmaf(s[threadIdx.x + j], c_filter[j], acc);
    y[i] = acc;
}

extern "C" cudaError_t conv1d_tiled(const float *x, size_t n,
                                    const float *w, size_t k, float *y)
{
    size_t m;
    BOOK_TRY(conv1d_args(x, n, w, k, y, CONV_MAX_TAPS, &m));
    if (m == 0) return cudaSuccess;
    BOOK_CLEAR_TO_LAUNCH();
    BOOK_TRY(filter_to_constant(w, k));
    size_t bytes = (kConvBlock + k - 1) * sizeof(float);   // < 48 KB
    conv1d_tiled_kernel<<<(unsigned)ceil_div(m, kConvBlock), kConvBlock,
                          bytes>>>(x, n, (unsigned)k, y, m);
    return cudaGetLastError();
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
// followed by b and wf points into c_filter.  kAll: cnt is 16.
template <bool kAll>
__device__ __forceinline__ void taps16(float (&acc)[16], const float (&a)[16],
                                       const float (&b)[16], const float *wf,
                                       unsigned cnt)
{
#pragma unroll
    for (int c = 0; c < 16; c++) {
        if (!kAll && c >= (int)cnt) break;
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
        taps16<true>(acc, a, b, c_filter + f + j, 16);
        load16(a, row, o + j + 32);
        taps16<true>(acc, b, a, c_filter + f + j + 16, 16);
    }
    if (j < k) {                             // 1 to 31 taps left
        unsigned left = k - j;
        load16(b, row, o + j + 16, left < 17 ? left - 1 : 16);
        taps16<false>(acc, a, b, c_filter + f + j, left);
        if (left > 16) {
            load16(a, row, o + j + 32, left - 17);
            taps16<false>(acc, b, a, c_filter + f + j + 16,
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

// <<1D: sixteen outputs a thread from a register window>>
static const unsigned kWinBlock = 128, kWinOut = kWinBlock * 16;

__global__ void __launch_bounds__(kWinBlock)
conv1d_window_kernel(const float *x, size_t n, unsigned k, float *y, size_t m)
{
    extern __shared__ float s[];           // skew(kWinOut + k) floats
    size_t base = blockIdx.x * (size_t)kWinOut;
    for (unsigned t = threadIdx.x; t < kWinOut + k; t += kWinBlock)
        s[skew(t)] = base + t < n ? x[base + t] : 0.0f;
    __syncthreads();
    float acc[16] = {};
    unsigned o = threadIdx.x * 16;
    window_row(acc, s, o, 0, k);
    store16(y, m, base + o, acc);
}

extern "C" cudaError_t conv1d_window(const float *x, size_t n,
                                     const float *w, size_t k, float *y)
{
    size_t m;
    BOOK_TRY(conv1d_args(x, n, w, k, y, CONV_MAX_TAPS, &m));
    if (m == 0) return cudaSuccess;
    BOOK_CLEAR_TO_LAUNCH();
    BOOK_TRY(filter_to_constant(w, k));
    size_t bytes = skew(kWinOut + (unsigned)k) * sizeof(float);  // < 48 KB
    conv1d_window_kernel<<<(unsigned)ceil_div(m, kWinOut), kWinBlock,
                           bytes>>>(x, n, (unsigned)k, y, m);
    return cudaGetLastError();
}

// <<2D: one output a thread>>
static const unsigned kRows2 = 8;            // output rows a block

static cudaError_t conv2d_args(const float *x, size_t h, size_t w,
                               const float *f, size_t kh, size_t kw,
                               const float *y, size_t maxk, size_t *ho,
                               size_t *wo)
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

__global__ void conv2d_naive_kernel(const float *x, size_t w, const float *f,
                                    size_t kh, size_t kw, float *y,
                                    size_t ho, size_t wo)
{
    size_t r = blockIdx.y * (size_t)blockDim.y + threadIdx.y;
    size_t c = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (r >= ho || c >= wo) return;
    float s = 0.0f;
    for (size_t i = 0; i < kh; i++)      // any filter: 64-bit taps
        for (size_t j = 0; j < kw; j++)
            s = fmaf(x[(r + i) * w + c + j], f[i * kw + j], s);
    y[r * wo + c] = s;
}
extern "C" cudaError_t conv2d_naive(const float *x, size_t h, size_t w,
                                    const float *f, size_t kh, size_t kw,
                                    float *y)
{
    size_t ho, wo;
    BOOK_TRY(conv2d_args(x, h, w, f, kh, kw, y, CONV_MAX_N, &ho, &wo));
    if (ho == 0) return cudaSuccess;
    BOOK_CLEAR_TO_LAUNCH();
    dim3 block(32, kRows2);
    dim3 grid((unsigned)ceil_div(wo, 32), (unsigned)ceil_div(ho, kRows2));
    conv2d_naive_kernel<<<grid, block>>>(x, w, f, kh, kw, y, ho, wo);
    return cudaGetLastError();
}

// <<2D: a tile and its halo in shared memory>>
__global__ void conv2d_tiled_kernel(const float *x, size_t h, size_t w,
                                    unsigned kh, unsigned kw, float *y,
                                    size_t ho, size_t wo)
{
    extern __shared__ float s[];     // (kRows2 + kh - 1) x (32 + kw - 1)
    unsigned rows = kRows2 + kh - 1, cols = 32 + kw - 1;
    size_t r0 = blockIdx.y * (size_t)kRows2, c0 = blockIdx.x * (size_t)32;
    for (unsigned i = threadIdx.y * 32 + threadIdx.x; i < rows * cols;
         i += 32 * kRows2) {
        size_t gr = r0 + i / cols, gc = c0 + i % cols;
        s[i] = gr < h && gc < w ? x[gr * w + gc] : 0.0f;
    }
    __syncthreads();
    size_t r = r0 + threadIdx.y, c = c0 + threadIdx.x;
    if (r >= ho || c >= wo) return;
    float acc = 0.0f;
    for (unsigned i = 0; i < kh; i++)
        for (unsigned j = 0; j < kw; j++)
            acc = fmaf(s[(threadIdx.y + i) * cols + threadIdx.x + j],
                       c_filter[i * kw + j], acc);
    y[r * wo + c] = acc;
}
extern "C" cudaError_t conv2d_tiled(const float *x, size_t h, size_t w,
                                    const float *f, size_t kh, size_t kw,
                                    float *y)
{
    size_t ho, wo;
    BOOK_TRY(conv2d_args(x, h, w, f, kh, kw, y, CONV2D_MAX_K, &ho, &wo));
    if (ho == 0) return cudaSuccess;
    BOOK_CLEAR_TO_LAUNCH();
    BOOK_TRY(filter_to_constant(f, kh * kw));
    size_t bytes = (kRows2 + kh - 1) * (32 + kw - 1) * sizeof(float);
    dim3 block(32, kRows2);
    dim3 grid((unsigned)ceil_div(wo, 32), (unsigned)ceil_div(ho, kRows2));
    conv2d_tiled_kernel<<<grid, block, bytes>>>(
        x, h, w, (unsigned)kh, (unsigned)kw, y, ho, wo);
    return cudaGetLastError();
}

// <<2D: sixteen outputs a thread, one filter row at a time>>
static const unsigned kBx = 16, kBcols = kBx * 16;   // 256 columns a block

__global__ void __launch_bounds__(kBx * kRows2)
conv2d_blocked_kernel(const float *x, size_t h, size_t w, unsigned kh,
                      unsigned kw, float *y, size_t ho, size_t wo,
                      unsigned pitch)
{
    extern __shared__ float s[];      // kRows2 + kh - 1 rows of pitch
    unsigned rows = kRows2 + kh - 1, cols = kBcols + kw;
    size_t r0 = blockIdx.y * (size_t)kRows2, c0 = blockIdx.x * (size_t)kBcols;
    for (unsigned i = threadIdx.y * kBx + threadIdx.x; i < rows * cols;
         i += kBx * kRows2) {
        unsigned tr = i / cols, tc = i % cols;
        size_t gr = r0 + tr, gc = c0 + tc;
        s[tr * pitch + skew(tc)] = gr < h && gc < w ? x[gr * w + gc] : 0.0f;
    }
    __syncthreads();
    float acc[16] = {};
    unsigned o = threadIdx.x * 16;
    for (unsigned i = 0; i < kh; i++)
        window_row(acc, s + (threadIdx.y + i) * pitch, o, i * kw, kw);
    size_t r = r0 + threadIdx.y;
    if (r < ho) store16(y + r * wo, wo, c0 + o, acc);
}
extern "C" cudaError_t conv2d_blocked(const float *x, size_t h, size_t w,
                                      const float *f, size_t kh, size_t kw,
                                      float *y)
{
    size_t ho, wo;
    BOOK_TRY(conv2d_args(x, h, w, f, kh, kw, y, CONV2D_MAX_K, &ho, &wo));
    if (ho == 0) return cudaSuccess;
    BOOK_CLEAR_TO_LAUNCH();
    unsigned pitch = ((skew(kBcols + (unsigned)kw) + 31) / 32) * 32 + 16;
    size_t bytes = (kRows2 + kh - 1) * pitch * sizeof(float);
    if (bytes > 48 * 1024)
        BOOK_TRY(cudaFuncSetAttribute(
            conv2d_blocked_kernel,
            cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
    BOOK_TRY(filter_to_constant(f, kh * kw));
    dim3 block(kBx, kRows2);
    dim3 grid((unsigned)ceil_div(wo, kBcols), (unsigned)ceil_div(ho, kRows2));
    conv2d_blocked_kernel<<<grid, block, bytes>>>(
        x, h, w, (unsigned)kh, (unsigned)kw, y, ho, wo, pitch);
    return cudaGetLastError();
}

// <<2D: a separable filter as two passes>>
extern "C" cudaError_t conv2d_separable(const float *x, size_t h, size_t w,
                                        const float *fcol, size_t kh,
                                        const float *frow, size_t kw,
                                        float *work, float *y)
{
    size_t ho, wo;
    BOOK_TRY(conv2d_args(x, h, w, frow, kh, kw, y, CONV2D_MAX_K, &ho, &wo));
    BOOK_TRY(conv_args(x, h * w, fcol, kh, y, ho * wo));
    if (ho == 0) return cudaSuccess;
    if (!work || !is_aligned(work, 4) ||
        ranges_overlap(work, h * wo * 4, x, h * w * 4) ||
        ranges_overlap(work, h * wo * 4, y, ho * wo * 4) ||
        ranges_overlap(work, h * wo * 4, fcol, kh * 4) ||
        ranges_overlap(work, h * wo * 4, frow, kw * 4))
        return cudaErrorInvalidValue;
    BOOK_TRY(conv2d_blocked(x, h, w, frow, 1, kw, work));    // along rows
    return conv2d_blocked(work, h, wo, fcol, kh, 1, y);      // down columns
}

// <<Wrong on purpose: the seed's tiled 2D kernel>>
static const int kSeedBlock = 32;

__global__ void conv2d_seed_kernel(const float *x, int h, int w,
                                   const float *f, int k, float *y)
{
    extern __shared__ float tile[];    // sized by the launch: 0 bytes
    int out = kSeedBlock - k + 1;      // outputs along a block edge
    int r0 = blockIdx.y * out, c0 = blockIdx.x * out;
    int ty = threadIdx.y, tx = threadIdx.x;
    tile[ty * kSeedBlock + tx] = r0 + ty < h && c0 + tx < w
                                     ? x[(r0 + ty) * w + c0 + tx] : 0.0f;
    __syncthreads();
    if (ty < out && tx < out && r0 + ty < h - k + 1 && c0 + tx < w - k + 1) {
        float s = 0.0f;
        for (int i = 0; i < k; i++)
            for (int j = 0; j < k; j++)
                s += tile[(ty + i) * kSeedBlock + tx + j] * f[i * k + j];
        y[(r0 + ty) * (w - k + 1) + c0 + tx] = s;
    }
}
extern "C" cudaError_t conv2d_tiled_seed(const float *x, size_t h,
                                         size_t w, const float *f, size_t k,
                                         float *y)
{
    size_t ho, wo;
    BOOK_TRY(conv2d_args(x, h, w, f, k, k, y, kSeedBlock, &ho, &wo));
    if (ho == 0) return cudaSuccess;
    if (h > INT32_MAX / w) return cudaErrorInvalidValue;   // int indices
    BOOK_CLEAR_TO_LAUNCH();
    unsigned out = kSeedBlock - (unsigned)k + 1;
    if (ceil_div(ho, out) > 65535) return cudaErrorInvalidValue;  // grid y
    dim3 block(kSeedBlock, kSeedBlock);
    dim3 grid((unsigned)ceil_div(wo, out), (unsigned)ceil_div(ho, out));
    // WRONG: the tile needs kSeedBlock * kSeedBlock floats, but no size
    // reaches the launch, which gives the extern array 0 bytes.
    conv2d_seed_kernel<<<grid, block>>>(x, (int)h, (int)w, f, (int)k, y);
    return cudaGetLastError();
}
