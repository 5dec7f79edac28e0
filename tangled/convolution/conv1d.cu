// conv1d.cu -- the one-dimensional kernels and their launchers.
#include "convolution/conv_common.cuh"

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
                                    const float *w, size_t k, float *y,
                                    cudaStream_t stream)
{
    size_t m;
    BOOK_TRY(conv1d_args(x, n, w, k, y, CONV_MAX_N, &m));
    if (m == 0) return cudaSuccess;
    BOOK_CLEAR_TO_LAUNCH();
    unsigned grid = (unsigned)ceil_div(m, kConvBlock);
    conv1d_naive_kernel<<<grid, kConvBlock, 0, stream>>>(x, w, k, y, m);
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
                                    const float *w, size_t k, float *y,
                                    cudaStream_t stream)
{
    size_t m;
    BOOK_TRY(conv1d_args(x, n, w, k, y, CONV_MAX_TAPS, &m));
    if (m == 0) return cudaSuccess;
    BOOK_CLEAR_TO_LAUNCH();
    BOOK_TRY(filter_to_constant(w, k, stream));
    unsigned grid = (unsigned)ceil_div(m, kConvBlock);
    conv1d_const_kernel<<<grid, kConvBlock, 0, stream>>>(x, (unsigned)k, y,
                                                         m);
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
                                            float *y, cudaStream_t stream)
{
    size_t m;
    BOOK_TRY(conv1d_args(x, n, w, k, y, CONV_MAX_TAPS, &m));
    if (m == 0) return cudaSuccess;
    BOOK_CLEAR_TO_LAUNCH();
    BOOK_TRY(filter_to_constant(w, k, stream));
    unsigned grid = (unsigned)ceil_div(m, kConvBlock);
    conv1d_rotated_kernel<<<grid, kConvBlock, 0, stream>>>(x, (unsigned)k, y,
                                                           m);
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
                                   size_t k, float *y, cudaStream_t stream)
{
    size_t m;
    BOOK_TRY(conv1d_args(x, n, w, k, y, CONV_MAX_TAPS, &m));
    BOOK_TRY(conv_args(x, n, w, k, y, n));    // n outputs, not m
    BOOK_CLEAR_TO_LAUNCH();
    BOOK_TRY(filter_to_constant(w, k, stream));
    unsigned grid = (unsigned)ceil_div(n, kConvBlock);
    conv1d_same_kernel<<<grid, kConvBlock, 0, stream>>>(x, n, (unsigned)k, y);
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
                                    const float *w, size_t k, float *y,
                                    cudaStream_t stream)
{
    size_t m;
    BOOK_TRY(conv1d_args(x, n, w, k, y, CONV_MAX_TAPS, &m));
    if (m == 0) return cudaSuccess;
    BOOK_CLEAR_TO_LAUNCH();
    BOOK_TRY(filter_to_constant(w, k, stream));
    size_t bytes = (kConvBlock + k - 1) * sizeof(float);   // < 48 KB
    unsigned grid = (unsigned)ceil_div(m, kConvBlock);
    conv1d_tiled_kernel<<<grid, kConvBlock, bytes, stream>>>(
        x, n, (unsigned)k, y, m);
    return cudaGetLastError();
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
                                     const float *w, size_t k, float *y,
                                     cudaStream_t stream)
{
    size_t m;
    BOOK_TRY(conv1d_args(x, n, w, k, y, CONV_MAX_TAPS, &m));
    if (m == 0) return cudaSuccess;
    BOOK_CLEAR_TO_LAUNCH();
    BOOK_TRY(filter_to_constant(w, k, stream));
    size_t bytes = skew(kWinOut + (unsigned)k) * sizeof(float);  // < 48 KB
    unsigned grid = (unsigned)ceil_div(m, kWinOut);
    conv1d_window_kernel<<<grid, kWinBlock, bytes, stream>>>(
        x, n, (unsigned)k, y, m);
    return cudaGetLastError();
}
