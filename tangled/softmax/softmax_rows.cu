// softmax_rows.cu -- softmax of rows: three passes, in registers, online.
#include "softmax/softmax_parts.cuh"

// <<Softmax: a warp per row, three passes>>
__global__ void softmax_warp_kernel(const float *x, float *y, size_t rows,
                                    size_t cols)
{
    size_t row = blockIdx.x * (size_t)kSmRowsPerBlock + threadIdx.x / 32;
    unsigned lane = threadIdx.x % 32;
    if (row >= rows) return;          // the whole warp leaves together
    const float *xr = x + row * cols;
    float *yr = y + row * cols;
    float m = -INFINITY;
    for (size_t j = lane; j < cols; j += 32) m = fmaxf(m, xr[j]);
    m = warp_max(m);
    float d = 0.0f;
    for (size_t j = lane; j < cols; j += 32) d += md_weight(xr[j], m);
    d = warp_sum(d);
    float inv = md_recip(d);
    for (size_t j = lane; j < cols; j += 32)
        yr[j] = md_weight(xr[j], m) * inv;
}

extern "C" cudaError_t softmax_rows_warp(const float *x, float *y,
                                         size_t rows, size_t cols,
                                         cudaStream_t stream)
{
    if (rows == 0 || cols == 0) return cudaSuccess;
    size_t grid = ceil_div(rows, kSmRowsPerBlock);
    BOOK_TRY(softmax_check(x, y, rows, cols, grid));
    BOOK_CLEAR_TO_LAUNCH();
    softmax_warp_kernel<<<(unsigned)grid, kSmBlock, 0, stream>>>(x, y, rows,
                                                                 cols);
    return cudaGetLastError();
}

// <<Softmax: a block per row, three passes>>
__global__ void softmax_block_kernel(const float *x, float *y, size_t cols,
                                     bool vec)
{
    const float *xr = x + blockIdx.x * cols;
    float *yr = y + blockIdx.x * cols;
    const float4 *xr4 = (const float4 *)xr;
    size_t c4 = vec ? cols / 4 : 0;   // float4s; the rest one by one
    float m = -INFINITY;
    for (size_t j = threadIdx.x; j < c4; j += kSmBlock)
        m = fmaxf(m, max4(xr4[j]));
    for (size_t j = 4 * c4 + threadIdx.x; j < cols; j += kSmBlock)
        m = fmaxf(m, xr[j]);
    m = block_max<kSmBlock>(m);
    // <<Sum the weights of a row over the block>>
    float d = 0.0f;
    for (size_t j = threadIdx.x; j < c4; j += kSmBlock)
        d += weight4(xr4[j], m);
    for (size_t j = 4 * c4 + threadIdx.x; j < cols; j += kSmBlock)
        d += md_weight(xr[j], m);
    d = block_sum<kSmBlock>(d);
    float inv = md_recip(d);
    for (size_t j = threadIdx.x; j < c4; j += kSmBlock)
        ((float4 *)yr)[j] = prob4(xr4[j], m, inv);
    for (size_t j = 4 * c4 + threadIdx.x; j < cols; j += kSmBlock)
        yr[j] = md_weight(xr[j], m) * inv;
}

// <<Softmax launchers for a block per row>>
extern "C" cudaError_t softmax_rows_block(const float *x, float *y,
                                          size_t rows, size_t cols,
                                          cudaStream_t stream)
{
    if (rows == 0 || cols == 0) return cudaSuccess;
    BOOK_TRY(softmax_check(x, y, rows, cols, rows));
    BOOK_CLEAR_TO_LAUNCH();
    softmax_block_kernel<<<(unsigned)rows, kSmBlock, 0, stream>>>(x, y, cols,
                                                                  false);
    return cudaGetLastError();
}

extern "C" cudaError_t softmax_rows_float4(const float *x, float *y,
                                           size_t rows, size_t cols,
                                           cudaStream_t stream)
{
    if (rows == 0 || cols == 0) return cudaSuccess;
    BOOK_TRY(softmax_check(x, y, rows, cols, rows));
    bool vec = cols % 4 == 0 && is_aligned(x, 16) && is_aligned(y, 16);
    BOOK_CLEAR_TO_LAUNCH();
    softmax_block_kernel<<<(unsigned)rows, kSmBlock, 0, stream>>>(x, y, cols,
                                                                  vec);
    return cudaGetLastError();
}

// <<Softmax: the row cached in registers>>
template <int V>
__device__ float cached_load_max(float4 (&v)[V], const float4 *xr,
                                 unsigned t, unsigned stride, unsigned c4)
{
    float m = -INFINITY;
#pragma unroll
    for (int k = 0; k < V; k++) {
        unsigned j = t + k * stride;
        v[k] = j < c4 ? xr[j] : neg_inf4();
        m = fmaxf(m, max4(v[k]));
    }
    return m;
}

// <<Sum and store a cached row>>
template <int V>
__device__ float cached_sum(const float4 (&v)[V], float m)
{
    float d = 0.0f;
#pragma unroll
    for (int k = 0; k < V; k++) d += weight4(v[k], m);
    return d;
}

template <int V>
__device__ void cached_store(float4 *yr, const float4 (&v)[V], unsigned t,
                             unsigned stride, unsigned c4, float m, float d)
{
    float inv = md_recip(d);
#pragma unroll
    for (int k = 0; k < V; k++) {
        unsigned j = t + k * stride;
        if (j < c4) yr[j] = prob4(v[k], m, inv);
    }
}

// <<The cached kernels: a warp or a block per row>>
template <int V>
__global__ void softmax_cached_warp_kernel(const float *x, float *y,
                                           size_t rows, unsigned cols)
{
    size_t row = blockIdx.x * (size_t)kSmRowsPerBlock + threadIdx.x / 32;
    if (row >= rows) return;          // the whole warp leaves together
    unsigned lane = threadIdx.x % 32, c4 = cols / 4;
    float4 v[V];
    float m = warp_max(cached_load_max<V>(
        v, (const float4 *)(x + row * cols), lane, 32, c4));
    float d = warp_sum(cached_sum<V>(v, m));
    cached_store<V>((float4 *)(y + row * cols), v, lane, 32, c4, m, d);
}

template <int V>
__global__ void softmax_cached_block_kernel(const float *x, float *y,
                                            unsigned cols)
{
    size_t row = blockIdx.x;
    unsigned c4 = cols / 4;
    float4 v[V];
    float m = block_max<kSmBlock>(cached_load_max<V>(
        v, (const float4 *)(x + row * cols), threadIdx.x, kSmBlock, c4));
    float d = block_sum<kSmBlock>(cached_sum<V>(v, m));
    cached_store<V>((float4 *)(y + row * cols), v, threadIdx.x, kSmBlock,
                    c4, m, d);
}

// <<Softmax launcher for the cached row>>
template <int V>
static cudaError_t launch_cached_warp(const float *x, float *y,
                                      size_t rows, unsigned cols,
                                      cudaStream_t st)
{
    size_t grid = ceil_div(rows, kSmRowsPerBlock);
    if (grid > kSmMaxGrid) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    softmax_cached_warp_kernel<V><<<(unsigned)grid, kSmBlock, 0, st>>>(
        x, y, rows, cols);
    return cudaGetLastError();
}

template <int V>
static cudaError_t launch_cached_block(const float *x, float *y,
                                       size_t rows, unsigned cols,
                                       cudaStream_t st)
{
    BOOK_CLEAR_TO_LAUNCH();
    softmax_cached_block_kernel<V><<<(unsigned)rows, kSmBlock, 0, st>>>(
        x, y, cols);
    return cudaGetLastError();
}

extern "C" cudaError_t softmax_rows_cached(const float *x, float *y,
                                           size_t rows, size_t cols,
                                           cudaStream_t stream)
{
    if (rows == 0 || cols == 0) return cudaSuccess;
    BOOK_TRY(softmax_check(x, y, rows, cols, rows));
    if (cols % 4 != 0 || cols > 16384 || !is_aligned(x, 16) ||
        !is_aligned(y, 16))
        return softmax_rows_float4(x, y, rows, cols, stream);
    unsigned c = (unsigned)cols;
    if (c <= 128) return launch_cached_warp<1>(x, y, rows, c, stream);
    if (c <= 256) return launch_cached_warp<2>(x, y, rows, c, stream);
    if (c <= 512) return launch_cached_warp<4>(x, y, rows, c, stream);
    if (c <= 1024) return launch_cached_warp<8>(x, y, rows, c, stream);
    if (c <= 2048) return launch_cached_block<2>(x, y, rows, c, stream);
    if (c <= 4096) return launch_cached_block<4>(x, y, rows, c, stream);
    if (c <= 8192) return launch_cached_block<8>(x, y, rows, c, stream);
    return launch_cached_block<16>(x, y, rows, c, stream);
}
extern "C" cudaError_t softmax_rows_cached_async(const float *x, float *y,
                                                 size_t rows, size_t cols,
                                                 cudaStream_t stream)
{
    return softmax_rows_cached(x, y, rows, cols, stream);
}

// <<Softmax: a block per row, one pass for (m, d)>>
__global__ void softmax_online_kernel(const float *x, float *y, size_t cols,
                                      bool vec)
{
    const float *xr = x + blockIdx.x * cols;
    float *yr = y + blockIdx.x * cols;
    const float4 *xr4 = (const float4 *)xr;
    size_t c4 = vec ? cols / 4 : 0;
    md_t s = md_identity();
    for (size_t j = threadIdx.x; j < c4; j += kSmBlock) {
        float4 v = xr4[j];
        s = md_push(md_push(md_push(md_push(s, v.x), v.y), v.z), v.w);
    }
    for (size_t j = 4 * c4 + threadIdx.x; j < cols; j += kSmBlock)
        s = md_push(s, xr[j]);
    s = md_block_reduce<kSmBlock>(s);
    float inv = md_inv(s);
    for (size_t j = threadIdx.x; j < c4; j += kSmBlock)
        ((float4 *)yr)[j] = prob4(xr4[j], s.m, inv);
    for (size_t j = 4 * c4 + threadIdx.x; j < cols; j += kSmBlock)
        yr[j] = md_weight(xr[j], s.m) * inv;
}

extern "C" cudaError_t softmax_rows_online(const float *x, float *y,
                                           size_t rows, size_t cols,
                                           cudaStream_t stream)
{
    if (rows == 0 || cols == 0) return cudaSuccess;
    BOOK_TRY(softmax_check(x, y, rows, cols, rows));
    bool vec = cols % 4 == 0 && is_aligned(x, 16) && is_aligned(y, 16);
    BOOK_CLEAR_TO_LAUNCH();
    softmax_online_kernel<<<(unsigned)rows, kSmBlock, 0, stream>>>(
        x, y, cols, vec);
    return cudaGetLastError();
}
