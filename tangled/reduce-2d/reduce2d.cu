// reduce2d.cu -- row sums, column sums and the dot product.
#include "reduce-2d/reduce2d_parts.cuh"

// <<Row sums: a warp per row>>
template <class V>
__global__ void __launch_bounds__(kBlock2d)
row_warp_kernel(const float *a, size_t rows, size_t units, unsigned lanes,
                float *out)
{
    unsigned lane = threadIdx.x % 32, sub = lane % lanes;
    size_t warp = blockIdx.x * (size_t)(kBlock2d / 32) + threadIdx.x / 32;
    size_t row = warp * (32 / lanes) + lane / lanes;
    float acc = 0.0f;
    if (row < rows) {
        const V *r = reinterpret_cast<const V *>(a) + row * units;
#pragma unroll 4
        for (size_t c = sub; c < units; c += lanes) acc += sum_of(r[c]);
    }
    for (unsigned offset = lanes / 2; offset > 0; offset /= 2)
        acc += __shfl_xor_sync(0xffffffffu, acc, offset);  // in segment
    if (row < rows && sub == 0) out[row] = acc;
}
template <class V>
static cudaError_t row_warp_launch(const float *a, size_t rows, size_t cols,
                                   float *out, unsigned lanes,
                                   cudaStream_t stream)
{
    size_t rows_per_block = (kBlock2d / 32) * (32 / lanes);
    size_t grid = ceil_div(rows, rows_per_block);
    if (grid > kMaxBlocks2d) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    row_warp_kernel<V><<<(unsigned)grid, kBlock2d, 0, stream>>>(
        a, rows, cols / width_of<V>(), lanes, out);
    return cudaGetLastError();
}

extern "C" cudaError_t row_sums_warp(const float *a, size_t rows,
                                     size_t cols, float *out, void *work,
                                     cudaStream_t stream)
{
    (void)work;
    if (rows == 0) return cudaSuccess;
    if (!a || !out || cols == 0) return cudaErrorInvalidValue;
    return row_warp_launch<float>(a, rows, cols, out, 32, stream);
}

// <<Row sums: a block per row>>
template <class V>
__global__ void __launch_bounds__(kBlock2d)
row_block_kernel(const float *a, size_t units, float *out)
{
    const V *r = reinterpret_cast<const V *>(a) + blockIdx.x * units;
    float acc = 0.0f;
#pragma unroll 4
    for (size_t c = threadIdx.x; c < units; c += kBlock2d)
        acc += sum_of(r[c]);
    acc = block_sum<kBlock2d>(acc);
    if (threadIdx.x == 0) out[blockIdx.x] = acc;
}

template <class V>
static cudaError_t row_block_launch(const float *a, size_t rows,
                                    size_t cols, float *out,
                                    cudaStream_t stream)
{
    if (rows > kMaxBlocks2d) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    row_block_kernel<V><<<(unsigned)rows, kBlock2d, 0, stream>>>(
        a, cols / width_of<V>(), out);
    return cudaGetLastError();
}

extern "C" cudaError_t row_sums_block(const float *a, size_t rows,
                                      size_t cols, float *out, void *work,
                                      cudaStream_t stream)
{
    (void)work;
    if (rows == 0) return cudaSuccess;
    if (!a || !out || cols == 0) return cudaErrorInvalidValue;
    return row_block_launch<float>(a, rows, cols, out, stream);
}

// <<Row sums: several blocks per row>>
template <class V>
__global__ void __launch_bounds__(kBlock2d)
row_chunk_kernel(const float *a, size_t units, size_t chunk, float *partial)
{
    const V *r = reinterpret_cast<const V *>(a) + blockIdx.y * units;
    size_t begin = blockIdx.x * chunk;
    size_t end = begin + chunk < units ? begin + chunk : units;
    float acc = 0.0f;
#pragma unroll 4
    for (size_t c = begin + threadIdx.x; c < end; c += kBlock2d)
        acc += sum_of(r[c]);
    acc = block_sum<kBlock2d>(acc);
    if (threadIdx.x == 0)
        partial[blockIdx.y * (size_t)gridDim.x + blockIdx.x] = acc;
}
extern "C" size_t row_sums_workspace_bytes(void)
{
    book_carve c = {NULL, 0, 0};
    chunk_partials_layout(&c);
    return book_carve_size(&c);
}

template <class V>
static cudaError_t row_chunk_launch(const float *a, size_t rows,
                                    size_t cols, float *out, float *partial,
                                    size_t resident, cudaStream_t stream)
{
    size_t units = cols / width_of<V>();
    size_t chunks = 2 * resident / rows;
    if (chunks > ceil_div(units, 1024)) chunks = ceil_div(units, 1024);
    if (chunks * rows > kMaxChunkBlocks) chunks = kMaxChunkBlocks / rows;
    if (chunks < 1) chunks = 1;
    size_t chunk = ceil_div(units, chunks);
    BOOK_CLEAR_TO_LAUNCH();
    row_chunk_kernel<V><<<dim3((unsigned)chunks, (unsigned)rows), kBlock2d,
                          0, stream>>>(a, units, chunk, partial);
    BOOK_TRY(cudaGetLastError());
    return row_warp_launch<float>(partial, rows, chunks, out,
                                  pow2_at_most_32(chunks), stream);
}

// <<Row sums: pick the mapping and the load width>>
extern "C" cudaError_t row_sums(const float *a, size_t rows, size_t cols,
                                float *out, void *work, cudaStream_t stream)
{
    if (rows == 0) return cudaSuccess;
    if (!a || !out || cols == 0) return cudaErrorInvalidValue;
    bool vec = cols % 4 == 0 && is_aligned(a, 16);
    unsigned lanes = pow2_at_most_32(vec ? cols / 4 : cols);
    if (cols <= 1024)
        return vec ? row_warp_launch<float4>(a, rows, cols, out, lanes,
                                             stream)
                   : row_warp_launch<float>(a, rows, cols, out, lanes,
                                            stream);
    // <<Use several blocks per row when there are few rows>>
    int sms, per_sm;
    BOOK_TRY(book_sm_count(&sms));
    BOOK_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, row_chunk_kernel<float4>, (int)kBlock2d, 0));
    size_t resident = (size_t)sms * (per_sm > 0 ? per_sm : 1);
    if (rows < resident && rows <= kMaxChunkBlocks / 2) {
        if (!work) return cudaErrorInvalidValue;
        book_carve c = {(char *)work, 0, 0};
        float *partial = chunk_partials_layout(&c);
        return vec ? row_chunk_launch<float4>(a, rows, cols, out, partial,
                                              resident, stream)
                   : row_chunk_launch<float>(a, rows, cols, out, partial,
                                             resident, stream);
    }
    return vec ? row_block_launch<float4>(a, rows, cols, out, stream)
               : row_block_launch<float>(a, rows, cols, out, stream);
}

// <<Column sums: a block per column>>
__global__ void __launch_bounds__(kBlock2d)
col_block_kernel(const float *a, size_t rows, size_t cols, float *out)
{
    size_t col = blockIdx.x;
    float acc = 0.0f;
    for (size_t r = threadIdx.x; r < rows; r += kBlock2d)
        acc += a[r * cols + col];             // lanes are cols apart
    acc = block_sum<kBlock2d>(acc);
    if (threadIdx.x == 0) out[col] = acc;
}

extern "C" cudaError_t col_sums_block_per_column(const float *a,
                                                 size_t rows, size_t cols,
                                                 float *out, void *work,
                                                 cudaStream_t stream)
{
    (void)work;
    if (cols == 0) return cudaSuccess;
    if (!a || !out || rows == 0 || cols > kMaxBlocks2d)
        return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    col_block_kernel<<<(unsigned)cols, kBlock2d, 0, stream>>>(a, rows, cols,
                                                              out);
    return cudaGetLastError();
}

// <<Column sums: consecutive threads own consecutive columns>>
template <class V>
__global__ void __launch_bounds__(kBlock2d)
col_partial_kernel(const float *a, size_t rows, size_t units,
                   float *partial)
{
    __shared__ float s[kBlock2d * (sizeof(V) / 4)];
    const unsigned w = sizeof(V) / 4, bx = blockDim.x, by = blockDim.y;
    unsigned tx = threadIdx.x, ty = threadIdx.y;
    size_t u = blockIdx.x * (size_t)bx + tx;      // this thread's unit
    float acc[sizeof(V) / 4] = {};
    if (u < units) {
        const V *p = reinterpret_cast<const V *>(a) + u;
        size_t step = (size_t)gridDim.y * by;
#pragma unroll 4
        for (size_t r = blockIdx.y * (size_t)by + ty; r < rows; r += step)
            add_to(acc, p[r * units]);
    }
    // <<Add the block's thread-rows in shared memory>>
    for (unsigned k = 0; k < w; k++) s[(ty * bx + tx) * w + k] = acc[k];
    __syncthreads();
    for (unsigned h = by / 2; h > 0; h /= 2) {
        if (ty < h)
            for (unsigned k = 0; k < w; k++)
                s[(ty * bx + tx) * w + k] += s[((ty + h) * bx + tx) * w + k];
        __syncthreads();
    }
    if (ty == 0 && u < units) {
        float *dst = partial + blockIdx.y * units * w + u * w;
        for (unsigned k = 0; k < w; k++) dst[k] = s[tx * w + k];
    }
}
__global__ void col_finish_kernel(const float *partial, size_t chunks,
                                  size_t cols, float *out)
{
    size_t c = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (c >= cols) return;
    float acc = 0.0f;
    for (size_t k = 0; k < chunks; k++) acc += partial[k * cols + c];
    out[c] = acc;
}
__global__ void __launch_bounds__(kBlock2d)
col_finish_warp_kernel(const float *partial, size_t chunks, size_t cols,
                       float *out)
{
    size_t c = blockIdx.x * (size_t)(kBlock2d / 32) + threadIdx.x / 32;
    unsigned lane = threadIdx.x % 32;
    if (c >= cols) return;                        // the whole warp
    float acc = 0.0f;
    for (size_t k = lane; k < chunks; k += 32) acc += partial[k * cols + c];
    acc = warp_sum(acc);
    if (lane == 0) out[c] = acc;
}

// <<Column sums: the launcher>>
static float *col_layout(book_carve *c, size_t rows, size_t cols)
{
    size_t gx = ceil_div(cols, 4 * (size_t)32);       // the fewest blocks
    size_t gy = kMaxChunkBlocks / gx > 1 ? kMaxChunkBlocks / gx : 1;
    size_t chunks = gy < rows ? gy : rows;
    if (chunks && cols > SIZE_MAX / 4 / chunks) c->overflow = 1;
    float *partial = (float *)book_carve_take(c, 4 * cols * chunks, 4);
    book_carve_take(c, 16, 4);                        // 16 bytes of slack
    return partial;
}
extern "C" size_t col_sums_workspace_bytes(size_t rows, size_t cols)
{
    book_carve c = {NULL, 0, 0};
    col_layout(&c, rows, cols);
    return book_carve_size(&c);
}
template <class V>
static cudaError_t col_launch(const float *a, size_t rows, size_t cols,
                              float *out, float *partial, cudaStream_t stream)
{
    size_t units = cols / width_of<V>();
    unsigned bx = pow2_at_most_32(units), by = kBlock2d / bx;
    size_t gx = ceil_div(units, bx);
    int sms, per_sm;
    BOOK_TRY(book_sm_count(&sms));
    BOOK_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, col_partial_kernel<V>, (int)kBlock2d, 0));
    size_t resident = (size_t)sms * (per_sm > 0 ? per_sm : 1);
    if (resident > kMaxChunkBlocks) resident = kMaxChunkBlocks;
    size_t gy = resident / gx > 1 ? resident / gx : 1;
    if (gy > ceil_div(rows, by)) gy = ceil_div(rows, by);
    if (gx > kMaxBlocks2d) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    col_partial_kernel<V><<<dim3((unsigned)gx, (unsigned)gy), dim3(bx, by),
                            0, stream>>>(a, rows, units, partial);
    BOOK_TRY(cudaGetLastError());
    if (gy >= 64)
        col_finish_warp_kernel<<<(unsigned)ceil_div(cols, kBlock2d / 32),
                                 kBlock2d, 0, stream>>>(partial, gy, cols,
                                                        out);
    else
        col_finish_kernel<<<(unsigned)ceil_div(cols, kBlock2d), kBlock2d, 0,
                            stream>>>(partial, gy, cols, out);
    return cudaGetLastError();
}
extern "C" cudaError_t col_sums(const float *a, size_t rows, size_t cols,
                                float *out, void *work, cudaStream_t stream)
{
    if (cols == 0) return cudaSuccess;
    if (!a || !out || !work || rows == 0) return cudaErrorInvalidValue;
    book_carve c = {(char *)work, 0, 0};
    float *partial = col_layout(&c, rows, cols);
    if (cols % 4 == 0 && is_aligned(a, 16))
        return col_launch<float4>(a, rows, cols, out, partial, stream);
    return col_launch<float>(a, rows, cols, out, partial, stream);
}

// <<Dot product>>
__device__ __forceinline__ float dot_of(float a, float b) { return a * b; }
__device__ __forceinline__ float dot_of(float4 a, float4 b)
{
    return fmaf(a.x, b.x, fmaf(a.y, b.y, fmaf(a.z, b.z, a.w * b.w)));
}

template <class V>
__global__ void __launch_bounds__(kBlock2d)
dot_kernel(const float *x, const float *y, size_t n, float *partial)
{
    const V *xv = reinterpret_cast<const V *>(x);
    const V *yv = reinterpret_cast<const V *>(y);
    size_t units = n / (sizeof(V) / 4), stride = (size_t)gridDim.x * kBlock2d;
    size_t g = blockIdx.x * (size_t)kBlock2d + threadIdx.x;
    float acc = 0.0f;
#pragma unroll 4
    for (size_t i = g; i < units; i += stride)
        acc += dot_of(__ldg(&xv[i]), __ldg(&yv[i]));
    size_t done = units * (sizeof(V) / 4);          // the float4 tail
    if (g < n - done) acc = fmaf(x[done + g], y[done + g], acc);
    acc = block_sum<kBlock2d>(acc);
    if (threadIdx.x == 0) partial[blockIdx.x] = acc;
}
__global__ void __launch_bounds__(1024)
dot_finish_kernel(const float *partial, unsigned g, float *out)
{
    float acc = 0.0f;
    for (unsigned i = threadIdx.x; i < g; i += 1024) acc += partial[i];
    acc = block_sum<1024>(acc);
    if (threadIdx.x == 0) *out = acc;
}

extern "C" size_t dot_workspace_bytes(void)
{
    book_carve c = {NULL, 0, 0};
    chunk_partials_layout(&c);
    return book_carve_size(&c);
}
template <class V>
static cudaError_t dot_launch(const float *x, const float *y, size_t n,
                              float *out, float *partial, cudaStream_t stream)
{
    int sms, per_sm;
    BOOK_TRY(book_sm_count(&sms));
    BOOK_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, dot_kernel<V>, (int)kBlock2d, 0));
    size_t g = (size_t)sms * (per_sm > 0 ? per_sm : 1);
    size_t useful = ceil_div(n, 4 * (size_t)kBlock2d);
    if (g > useful) g = useful;
    if (g > kMaxChunkBlocks) g = kMaxChunkBlocks;
    BOOK_CLEAR_TO_LAUNCH();
    dot_kernel<V><<<(unsigned)g, kBlock2d, 0, stream>>>(x, y, n, partial);
    BOOK_TRY(cudaGetLastError());
    dot_finish_kernel<<<1, 1024, 0, stream>>>(partial, (unsigned)g, out);
    return cudaGetLastError();
}

extern "C" cudaError_t dot(const float *x, const float *y, size_t n,
                           float *out, void *work, cudaStream_t stream)
{
    if (!x || !y || !out || !work) return cudaErrorInvalidValue;
    if (n == 0) {
        BOOK_CLEAR_TO_LAUNCH();
        return cudaMemsetAsync(out, 0, sizeof(float), stream);
    }
    book_carve c = {(char *)work, 0, 0};
    float *partial = chunk_partials_layout(&c);
    if (is_aligned(x, 16) && is_aligned(y, 16))
        return dot_launch<float4>(x, y, n, out, partial, stream);
    return dot_launch<float>(x, y, n, out, partial, stream);
}
