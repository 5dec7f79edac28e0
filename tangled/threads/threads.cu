// threads.cu -- element-wise kernels and their launchers.
#include "common/book.h"
#include "threads/threads.h"

// <<Launch constants>>
static const unsigned kBlock = 256;           // threads per block
static const size_t kMaxGridX = 2147483647u;  // 2^31 - 1 blocks

// <<Vector add kernel>>
__global__ void vadd_kernel(const float *a, const float *b, float *c,
                            size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

// <<Vector add launcher>>
extern "C" cudaError_t vadd(const float *a, const float *b, float *c,
                            size_t n, cudaStream_t stream)
{
    if (n == 0) return cudaSuccess;
    if (!a || !b || !c) return cudaErrorInvalidValue;
    size_t grid = ceil_div(n, kBlock);
    if (grid > kMaxGridX) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    vadd_kernel<<<(unsigned)grid, kBlock, 0, stream>>>(a, b, c, n);
    return cudaGetLastError();
}

// <<Matrix add on a 2D grid>>
__global__ void madd_kernel(const float *a, const float *b, float *c,
                            size_t rows, size_t cols)
{
    size_t col = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t row = blockIdx.y * (size_t)blockDim.y + threadIdx.y;
    if (row < rows && col < cols) {
        size_t i = row * cols + col;
        c[i] = a[i] + b[i];
    }
}

extern "C" cudaError_t madd(const float *a, const float *b, float *c,
                            size_t rows, size_t cols, cudaStream_t stream)
{
    if (rows == 0 || cols == 0) return cudaSuccess;
    if (!a || !b || !c) return cudaErrorInvalidValue;
    dim3 block(32, 8);                 // one warp across, eight rows down
    size_t gx = ceil_div(cols, block.x), gy = ceil_div(rows, block.y);
    if (gx > kMaxGridX || gy > 65535) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    madd_kernel<<<dim3((unsigned)gx, (unsigned)gy), block, 0, stream>>>(
        a, b, c, rows, cols);
    return cudaGetLastError();
}

// <<Vector add with float4 loads>>
__global__ void vadd_float4_kernel(const float4 *a, const float4 *b,
                                   float4 *c, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t n4 = n / 4;
    if (i < n4) {
        float4 x = a[i], y = b[i];
        c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
    // <<Add the tail elements one by one>>
    size_t tail = n % 4;
    if (i < tail) {
        const float *as = (const float *)a, *bs = (const float *)b;
        float *cs = (float *)c;
        cs[4 * n4 + i] = as[4 * n4 + i] + bs[4 * n4 + i];
    }
}

extern "C" cudaError_t vadd_float4(const float *a, const float *b, float *c,
                                   size_t n, cudaStream_t stream)
{
    if (n == 0) return cudaSuccess;
    if (!a || !b || !c) return cudaErrorInvalidValue;
    if (!is_aligned(a, 16) || !is_aligned(b, 16) || !is_aligned(c, 16))
        return vadd(a, b, c, n, stream);   // misaligned: the scalar kernel
    size_t grid = ceil_div(n / 4 > 0 ? n / 4 : 1, kBlock);
    if (grid > kMaxGridX) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    vadd_float4_kernel<<<(unsigned)grid, kBlock, 0, stream>>>(
        (const float4 *)a, (const float4 *)b, (float4 *)c, n);
    return cudaGetLastError();
}

// <<Matrix add with float4 loads on a 2D grid>>
__device__ __forceinline__ float add_of(float x, float y) { return x + y; }
__device__ __forceinline__ float4 add_of(float4 x, float4 y)
{
    return make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
}

template <class V, unsigned K>
__global__ void madd_wide_kernel(const V *a, const V *b, V *c, size_t rows,
                                 size_t units)   // blockDim.x == 32
{
    size_t u0 = blockIdx.x * (size_t)(32 * K) + threadIdx.x;
    for (size_t row = blockIdx.y * (size_t)blockDim.y + threadIdx.y;
         row < rows; row += (size_t)gridDim.y * blockDim.y) {
        const size_t base = row * units;
        V x[K] = {}, y[K] = {};
#pragma unroll
        for (unsigned k = 0; k < K; k++)       // every load first
            if (u0 + 32 * k < units) {
                x[k] = a[base + u0 + 32 * k];
                y[k] = b[base + u0 + 32 * k];
            }
#pragma unroll
        for (unsigned k = 0; k < K; k++)       // then every store
            if (u0 + 32 * k < units)
                c[base + u0 + 32 * k] = add_of(x[k], y[k]);
    }
}
template <class V, unsigned K>
static cudaError_t madd_wide_launch(const float *a, const float *b, float *c,
                                    size_t rows, size_t cols,
                                    cudaStream_t stream)
{
    const size_t units = cols / (sizeof(V) / 4);
    dim3 block(32, 8);                 // a warp along a row, eight rows
    size_t gx = ceil_div(units, 32 * K), gy = ceil_div(rows, block.y);
    if (gx > kMaxGridX) return cudaErrorInvalidValue;
    if (gy > 65535) gy = 65535;        // the loop walks the other rows
    BOOK_CLEAR_TO_LAUNCH();
    dim3 grid((unsigned)gx, (unsigned)gy);
    madd_wide_kernel<V, K><<<grid, block, 0, stream>>>(
        (const V *)a, (const V *)b, (V *)c, rows, units);
    return cudaGetLastError();
}

extern "C" cudaError_t madd_float4(const float *a, const float *b, float *c,
                                   size_t rows, size_t cols,
                                   cudaStream_t stream)
{
    if (rows == 0 || cols == 0) return cudaSuccess;
    if (!a || !b || !c || rows > SIZE_MAX / cols)
        return cudaErrorInvalidValue;
    if (!is_aligned(a, 4) || !is_aligned(b, 4) || !is_aligned(c, 4))
        return cudaErrorInvalidValue;  // not floats: refused, as mem_copy
    if (cols < 128)            // narrower than a warp's reach: its packed
        return vadd_float4(a, b, c, rows * cols, stream);   // rows, a vector
    if (cols % 4 == 0 && is_aligned(a, 16) && is_aligned(b, 16) &&
        is_aligned(c, 16))
        return madd_wide_launch<float4, 1>(a, b, c, rows, cols, stream);
    return madd_wide_launch<float, 4>(a, b, c, rows, cols, stream);
}

// <<Vector add with a grid-stride loop>>
__global__ void vadd_grid_stride_kernel(const float *a, const float *b,
                                        float *c, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += stride)
        c[i] = a[i] + b[i];
}

extern "C" cudaError_t vadd_grid_stride(const float *a, const float *b,
                                        float *c, size_t n,
                                        cudaStream_t stream)
{
    if (n == 0) return cudaSuccess;
    if (!a || !b || !c) return cudaErrorInvalidValue;
    int sms;
    BOOK_TRY(book_sm_count(&sms));
    size_t grid = ceil_div(n, kBlock);
    if (grid > (size_t)sms * 8) grid = (size_t)sms * 8;  // 8 blocks an SM
    BOOK_CLEAR_TO_LAUNCH();
    vadd_grid_stride_kernel<<<(unsigned)grid, kBlock, 0, stream>>>(
        a, b, c, n);
    return cudaGetLastError();
}

// <<SAXPY>>
__global__ void saxpy_kernel(float alpha, const float *x, float *y,
                             size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = alpha * x[i] + y[i];
}

extern "C" cudaError_t saxpy(float alpha, const float *x, float *y, size_t n,
                             cudaStream_t stream)
{
    if (n == 0) return cudaSuccess;
    if (!x || !y) return cudaErrorInvalidValue;
    size_t grid = ceil_div(n, kBlock);
    if (grid > kMaxGridX) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    saxpy_kernel<<<(unsigned)grid, kBlock, 0, stream>>>(alpha, x, y, n);
    return cudaGetLastError();
}

// <<Wrong on purpose: a grid rounded down>>
extern "C" cudaError_t vadd_wrong_floor(const float *a, const float *b,
                                        float *c, size_t n,
                                        cudaStream_t stream)
{
    if (!a || !b || !c) return cudaErrorInvalidValue;
    size_t grid = n / kBlock;          // WRONG: drops the partial block
    if (grid == 0) return cudaSuccess; // and with it every n < 256
    BOOK_CLEAR_TO_LAUNCH();
    vadd_kernel<<<(unsigned)grid, kBlock, 0, stream>>>(a, b, c, n);
    return cudaGetLastError();
}
