// reduce2d.cu -- row sums, column sums and the dot product.
#include "common/book.h"
#include "common/reduce.cuh"
#include "reduce-2d/reduce2d.h"

// <<Two-dimensional reduction constants>>
static const unsigned kBlock2d = 256;          // threads per block
static const size_t kMaxBlocks2d = 2147483647u;
static const size_t kMaxChunkBlocks = 4096;    // column sums: row chunks
// Loads in flight a thread, and grids, of the in-flight variants.
static const unsigned kRowsInFlight = 2;       // rows a thread
static const size_t kRowWaves = 8;             // grid: waves of blocks
static const unsigned kFrontBlock = 1024;      // threads a column block
static const unsigned kFrontLoads = 4;         // rows a thread at a time
static const unsigned kWideLoads = 8;          // rows a thread at a time
// Threads an SM holds on the architecture compiled for: the blocks-an-SM
// argument of __launch_bounds__ may not ask for more.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
#define SM_THREADS 1024
#elif defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 860 || \
      __CUDA_ARCH__ == 870 || __CUDA_ARCH__ == 890 || __CUDA_ARCH__ >= 1200)
#define SM_THREADS 1536
#else
#define SM_THREADS 2048
#endif

static unsigned pow2_at_most_32(size_t units)  // lanes for `units' items
{
    unsigned p = 1;
    while (p < 32 && p < units) p *= 2;
    return p;
}

// <<Add a float or a float4>>
__device__ __forceinline__ float sum_of(float v) { return v; }
__device__ __forceinline__ float sum_of(float4 v)
{
    return (v.x + v.y) + (v.z + v.w);
}
template <class V> static size_t width_of() { return sizeof(V) / 4; }
__device__ __forceinline__ void add_to(float *acc, float v) { acc[0] += v; }
__device__ __forceinline__ void add_to(float *acc, float4 v)
{
    acc[0] += v.x; acc[1] += v.y; acc[2] += v.z; acc[3] += v.w;
}

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
                                   float *out, unsigned lanes)
{
    size_t rows_per_block = (kBlock2d / 32) * (32 / lanes);
    size_t grid = ceil_div(rows, rows_per_block);
    if (grid > kMaxBlocks2d) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    row_warp_kernel<V><<<(unsigned)grid, kBlock2d>>>(
        a, rows, cols / width_of<V>(), lanes, out);
    return cudaGetLastError();
}

extern "C" cudaError_t row_sums_warp(const float *a, size_t rows,
                                     size_t cols, float *out, void *work)
{
    (void)work;
    if (rows == 0) return cudaSuccess;
    if (!a || !out || cols == 0) return cudaErrorInvalidValue;
    return row_warp_launch<float>(a, rows, cols, out, 32);
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
                                    size_t cols, float *out)
{
    if (rows > kMaxBlocks2d) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    row_block_kernel<V><<<(unsigned)rows, kBlock2d>>>(
        a, cols / width_of<V>(), out);
    return cudaGetLastError();
}

extern "C" cudaError_t row_sums_block(const float *a, size_t rows,
                                      size_t cols, float *out, void *work)
{
    (void)work;
    if (rows == 0) return cudaSuccess;
    if (!a || !out || cols == 0) return cudaErrorInvalidValue;
    return row_block_launch<float>(a, rows, cols, out);
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
    return 4 * kMaxChunkBlocks;
}

template <class V>
static cudaError_t row_chunk_launch(const float *a, size_t rows,
                                    size_t cols, float *out, float *partial,
                                    size_t resident)
{
    size_t units = cols / width_of<V>();
    size_t chunks = 2 * resident / rows;
    if (chunks > ceil_div(units, 1024)) chunks = ceil_div(units, 1024);
    if (chunks * rows > kMaxChunkBlocks) chunks = kMaxChunkBlocks / rows;
    if (chunks < 1) chunks = 1;
    size_t chunk = ceil_div(units, chunks);
    BOOK_CLEAR_TO_LAUNCH();
    row_chunk_kernel<V><<<dim3((unsigned)chunks, (unsigned)rows),
                          kBlock2d>>>(a, units, chunk, partial);
    BOOK_TRY(cudaGetLastError());
    return row_warp_launch<float>(partial, rows, chunks, out,
                                  pow2_at_most_32(chunks));
}

// <<Row sums: pick the mapping and the load width>>
extern "C" cudaError_t row_sums(const float *a, size_t rows, size_t cols,
                                float *out, void *work)
{
    if (rows == 0) return cudaSuccess;
    if (!a || !out || cols == 0) return cudaErrorInvalidValue;
    bool vec = cols % 4 == 0 && is_aligned(a, 16);
    unsigned lanes = pow2_at_most_32(vec ? cols / 4 : cols);
    if (cols <= 1024)
        return vec ? row_warp_launch<float4>(a, rows, cols, out, lanes)
                   : row_warp_launch<float>(a, rows, cols, out, lanes);
    // <<Use several blocks per row when there are few rows>>
    int dev, sms, per_sm;
    BOOK_TRY(cudaGetDevice(&dev));
    BOOK_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    BOOK_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, row_chunk_kernel<float4>, (int)kBlock2d, 0));
    size_t resident = (size_t)sms * (per_sm > 0 ? per_sm : 1);
    if (rows < resident && rows <= kMaxChunkBlocks / 2) {
        if (!work) return cudaErrorInvalidValue;
        return vec ? row_chunk_launch<float4>(a, rows, cols, out,
                                              (float *)work, resident)
                   : row_chunk_launch<float>(a, rows, cols, out,
                                             (float *)work, resident);
    }
    return vec ? row_block_launch<float4>(a, rows, cols, out)
               : row_block_launch<float>(a, rows, cols, out);
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
                                                 float *out, void *work)
{
    (void)work;
    if (cols == 0) return cudaSuccess;
    if (!a || !out || rows == 0 || cols > kMaxBlocks2d)
        return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    col_block_kernel<<<(unsigned)cols, kBlock2d>>>(a, rows, cols, out);
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
extern "C" size_t col_sums_workspace_bytes(size_t rows, size_t cols)
{
    size_t gx = ceil_div(cols, 4 * (size_t)32);       // the fewest blocks
    size_t gy = kMaxChunkBlocks / gx > 1 ? kMaxChunkBlocks / gx : 1;
    return 4 * cols * (gy < rows ? gy : rows) + 16;
}
template <class V>
static cudaError_t col_launch(const float *a, size_t rows, size_t cols,
                              float *out, float *partial)
{
    size_t units = cols / width_of<V>();
    unsigned bx = pow2_at_most_32(units), by = kBlock2d / bx;
    size_t gx = ceil_div(units, bx);
    int dev, sms, per_sm;
    BOOK_TRY(cudaGetDevice(&dev));
    BOOK_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount,
                                    dev));
    BOOK_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, col_partial_kernel<V>, (int)kBlock2d, 0));
    size_t resident = (size_t)sms * (per_sm > 0 ? per_sm : 1);
    if (resident > kMaxChunkBlocks) resident = kMaxChunkBlocks;
    size_t gy = resident / gx > 1 ? resident / gx : 1;
    if (gy > ceil_div(rows, by)) gy = ceil_div(rows, by);
    if (gx > kMaxBlocks2d) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    col_partial_kernel<V><<<dim3((unsigned)gx, (unsigned)gy),
                            dim3(bx, by)>>>(a, rows, units, partial);
    BOOK_TRY(cudaGetLastError());
    if (gy >= 64)
        col_finish_warp_kernel<<<(unsigned)ceil_div(cols, kBlock2d / 32),
                                 kBlock2d>>>(partial, gy, cols, out);
    else
        col_finish_kernel<<<(unsigned)ceil_div(cols, kBlock2d), kBlock2d>>>(
            partial, gy, cols, out);
    return cudaGetLastError();
}
extern "C" cudaError_t col_sums(const float *a, size_t rows, size_t cols,
                                float *out, void *work)
{
    if (cols == 0) return cudaSuccess;
    if (!a || !out || !work || rows == 0) return cudaErrorInvalidValue;
    if (cols % 4 == 0 && is_aligned(a, 16))
        return col_launch<float4>(a, rows, cols, out, (float *)work);
    return col_launch<float>(a, rows, cols, out, (float *)work);
}

// <<Row sums: several rows a thread in flight>>
template <class V, unsigned R>
__global__ void __launch_bounds__(kBlock2d, SM_THREADS / kBlock2d)
row_flight_kernel(const float *a, size_t rows, size_t units, unsigned lanes,
                  float *out)
{
    const unsigned lane = threadIdx.x % 32, sub = lane % lanes;
    const size_t per = 32 / lanes;             // rows a warp reads at once
    size_t warp = blockIdx.x * (size_t)(kBlock2d / 32) + threadIdx.x / 32;
    size_t step = (size_t)gridDim.x * (kBlock2d / 32) * per * R;
    const V *v = reinterpret_cast<const V *>(a);
    for (size_t first = warp * per * R; first < rows; first += step) {
        float acc[R] = {};
        for (size_t c = sub; c < units; c += lanes)
#pragma unroll
            for (unsigned k = 0; k < R; k++) {  // R loads, then the adds
                size_t row = first + k * per + lane / lanes;
                if (row < rows) acc[k] += sum_of(v[row * units + c]);
            }
        // <<Add each row's lanes and write its sum>>
        #pragma unroll
        for (unsigned k = 0; k < R; k++) {
            for (unsigned o = lanes / 2; o > 0; o /= 2)
                acc[k] += __shfl_xor_sync(0xffffffffu, acc[k], o);
            size_t row = first + k * per + lane / lanes;
            if (row < rows && sub == 0) out[row] = acc[k];
        }
    }
}
static cudaError_t resident_blocks(unsigned threads, size_t *blocks)
{
    int dev, sms, per_sm;
    BOOK_TRY(cudaGetDevice(&dev));
    BOOK_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount,
                                    dev));
    BOOK_TRY(cudaDeviceGetAttribute(
        &per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, dev));
    *blocks = (size_t)sms * (per_sm / threads > 0 ? per_sm / threads : 1);
    return cudaSuccess;
}

template <class V, unsigned R>
static cudaError_t row_flight_launch(const float *a, size_t rows,
                                     size_t cols, float *out, size_t waves)
{
    size_t units = cols / width_of<V>(), resident;
    unsigned lanes = pow2_at_most_32(units);
    BOOK_TRY(resident_blocks(kBlock2d, &resident));
    size_t grid = ceil_div(rows, (kBlock2d / 32) * (32 / lanes) * R);
    if (grid > waves * resident) grid = waves * resident;
    BOOK_CLEAR_TO_LAUNCH();
    row_flight_kernel<V, R><<<(unsigned)grid, kBlock2d>>>(a, rows, units,
                                                          lanes, out);
    return cudaGetLastError();
}

// <<Row sums: rows of 32, a reduce-scatter>>
// Rows of exactly 32 floats, 16-byte aligned: a warp takes 32 rows a
// pass, the 8 lanes of group g rows 8g..8g+7, a float4 of each row a lane.
__global__ void __launch_bounds__(kBlock2d)
row_scatter_kernel(const float4 *a, size_t rows, float *out)
{
    const unsigned lane = threadIdx.x % 32, sub = lane % 8, g = lane / 8;
    size_t warp = blockIdx.x * (size_t)(kBlock2d / 32) + threadIdx.x / 32;
    size_t step = (size_t)gridDim.x * (kBlock2d / 32) * 32;
    for (size_t base = warp * 32; base < rows; base += step) {
        float4 x[8];
#pragma unroll
        for (unsigned k = 0; k < 8; k++) {     // 8 loads, then the adds
            size_t row = base + 8 * g + k;
            x[k] = row < rows ? a[row * 8 + sub] : float4{};
        }
        float v[8];
#pragma unroll
        for (unsigned k = 0; k < 8; k++) v[k] = sum_of(x[k]);
        // <<Reduce-scatter the group's 8 rows: lane [[sub]] gets row [[sub]]>>
        #pragma unroll
        for (unsigned h = 4; h > 0; h /= 2) {
            const bool up = sub & h;
        #pragma unroll
            for (unsigned k = 0; k < h; k++) {
                float give = up ? v[k] : v[k + h];
                float keep = up ? v[k + h] : v[k];
                v[k] = keep + __shfl_xor_sync(0xffffffffu, give, h);
            }
        }
        size_t row = base + lane;              // 8g + sub
        if (row < rows) out[row] = v[0];
    }
}
static cudaError_t row_scatter_launch(const float *a, size_t rows,
                                      float *out, size_t waves)
{
    size_t resident, grid = ceil_div(rows, kBlock2d);  // 32 rows a warp
    BOOK_TRY(resident_blocks(kBlock2d, &resident));
    if (grid > waves * resident) grid = waves * resident;
    BOOK_CLEAR_TO_LAUNCH();
    row_scatter_kernel<<<(unsigned)grid, kBlock2d>>>(
        reinterpret_cast<const float4 *>(a), rows, out);
    return cudaGetLastError();
}

// <<Row sums: pick the in-flight kernel>>
extern "C" cudaError_t row_sums_in_flight(const float *a, size_t rows,
                                          size_t cols, float *out,
                                          void *work)
{
    if (rows == 0) return cudaSuccess;
    if (!a || !out || cols == 0) return cudaErrorInvalidValue;
    if (cols > 1024) return row_sums(a, rows, cols, out, work);
    if (cols == 32 && is_aligned(a, 16))
        return row_scatter_launch(a, rows, out, kRowWaves);
    if (cols % 4 == 0 && is_aligned(a, 16))
        return row_flight_launch<float4, kRowsInFlight>(a, rows, cols, out,
                                                        kRowWaves);
    return row_flight_launch<float, kRowsInFlight>(a, rows, cols, out,
                                                   kRowWaves);
}

// <<A column of a shared-memory table, added by one warp>>
// Column c of the n-row table s (row stride ld), added by one warp.
__device__ __forceinline__ float column_sum_warp(const float *s, unsigned n,
                                                 unsigned ld, unsigned c)
{
    float t = 0.0f;
    for (unsigned q = threadIdx.x % 32; q < n; q += 32) t += s[q * ld + c];
    return warp_sum(t);
}

// <<Column sums: one front of rows in registers, the last block finishes>>
template <class V, unsigned BLOCK, unsigned R, unsigned BX>
__global__ void __launch_bounds__(BLOCK, SM_THREADS / BLOCK)
col_front_kernel(const float *a, size_t rows, size_t cols, float *partial,
                 unsigned *counter, float *out)
{
    constexpr unsigned w = sizeof(V) / 4, bx = BX;  // bx lanes across
    constexpr unsigned by = BLOCK / bx;             // thread-rows down
    constexpr unsigned kTable = (BLOCK / 32 > BLOCK / (bx * w)
                                     ? BLOCK / 32 : BLOCK / (bx * w)) *
                                (bx * w + 1);
    __shared__ float s[kTable];                // see below
    __shared__ bool last;
    const size_t units = cols / w;
    const size_t G = (size_t)gridDim.x * by;   // thread-rows in the grid
    const unsigned tx = threadIdx.x % bx;
    size_t r = blockIdx.x * (size_t)by + threadIdx.x / bx;
    float acc[w] = {};
    if (tx < units && r < rows) {
        const size_t step = G * units;         // V's from a row to the next
        const V *p = reinterpret_cast<const V *>(a) + r * units + tx;
        size_t left = (rows - 1 - r) / G + 1;  // rows this thread-row takes
#pragma unroll 1                               // (unrolled: a spill)
        for (; left >= R; left -= R, p += R * step) {  // R loads, then adds
            V x[R];
#pragma unroll
            for (unsigned k = 0; k < R; k++) x[k] = __ldg(p + k * step);
#pragma unroll
            for (unsigned k = 0; k < R; k++) add_to(acc, x[k]);
        }
        if (left > 0) {                        // the last rows: loads
            V x[R];                            // together, zeros past them
#pragma unroll
            for (unsigned k = 0; k < R; k++)
                x[k] = k < left ? __ldg(p + k * step) : V{};
#pragma unroll
            for (unsigned k = 0; k < R; k++) add_to(acc, x[k]);
        }
    }
    // <<Add the block's thread-rows: shuffles, then shared memory>>
    for (unsigned o = bx; o < 32; o *= 2)
    #pragma unroll
        for (unsigned j = 0; j < w; j++)
            acc[j] += __shfl_xor_sync(0xffffffffu, acc[j], o);
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const unsigned cw = bx * w, ld = cw | 1;       // columns a warp, odd
    if (lane < bx)
        for (unsigned j = 0; j < w; j++) s[warp * ld + lane * w + j] = acc[j];
    __syncthreads();
    for (unsigned c = warp; c < cols; c += BLOCK / 32) {  // a warp a column
        float t = column_sum_warp(s, BLOCK / 32, ld, c);
        if (lane == 0) {
            partial[blockIdx.x * cols + c] = t;
            __threadfence();                       // the partial, then the count
        }
    }
    __syncthreads();
    // <<The last block done adds the blocks' partials>>
    if (threadIdx.x == 0) last = atomicAdd(counter, 1u) == gridDim.x - 1;
    __syncthreads();
    if (!last) return;                             // the whole block leaves
    __threadfence();                               // the count, then the reads
    const unsigned groups = BLOCK / cw, col = threadIdx.x % cw;
    float t = 0.0f;
    if (col < cols)
    #pragma unroll 8
        for (size_t k = threadIdx.x / cw; k < gridDim.x; k += groups)
            t += __ldcg(&partial[k * cols + col]);
    s[threadIdx.x / cw * ld + col] = t;
    __syncthreads();
    for (unsigned c = warp; c < cols; c += BLOCK / 32) {
        t = column_sum_warp(s, groups, ld, c);
        if (lane == 0) out[c] = t;
    }
    if (threadIdx.x == 0) *counter = 0;            // ready for the next call
}
template <class V, unsigned BLOCK, unsigned R, unsigned BX>
static cudaError_t col_front_start(const float *a, size_t rows, size_t cols,
                                  float *out, void *work, unsigned grid)
{
    col_front_kernel<V, BLOCK, R, BX><<<grid, BLOCK>>>(
        a, rows, cols, (float *)((char *)work + 256), (unsigned *)work, out);
    return cudaGetLastError();
}
template <class V, unsigned BLOCK, unsigned R>
static cudaError_t col_front_launch(const float *a, size_t rows, size_t cols,
                                   float *out, void *work, size_t grid)
{
    unsigned bx = pow2_at_most_32(cols / width_of<V>());
    if (grid > ceil_div(rows, BLOCK / bx)) grid = ceil_div(rows, BLOCK / bx);
    if (grid > kMaxChunkBlocks) grid = kMaxChunkBlocks;
    BOOK_CLEAR_TO_LAUNCH();
    cudaError_t (*start)(const float *, size_t, size_t, float *, void *,
                         unsigned);
    switch (bx) {                              // the width, a constant
    case 1:  start = col_front_start<V, BLOCK, R, 1>; break;
    case 2:  start = col_front_start<V, BLOCK, R, 2>; break;
    case 4:  start = col_front_start<V, BLOCK, R, 4>; break;
    case 8:  start = col_front_start<V, BLOCK, R, 8>; break;
    case 16: start = col_front_start<V, BLOCK, R, 16>; break;
    default: start = col_front_start<V, BLOCK, R, 32>; break;
    }
    return start(a, rows, cols, out, work, (unsigned)grid);
}

extern "C" size_t col_sums_in_flight_workspace_bytes(size_t rows,
                                                     size_t cols)
{
    size_t front = 4 * kMaxChunkBlocks * 128;
    size_t other = col_sums_workspace_bytes(rows, cols);
    return 256 + (front > other ? front : other);
}

// <<Column sums: a thread down all rows of a column unit>>
template <class V, unsigned R>
__global__ void __launch_bounds__(kBlock2d)
col_wide_kernel(const float *a, size_t rows, size_t units, float *out)
{
    constexpr unsigned w = sizeof(V) / 4;
    size_t u = blockIdx.x * (size_t)kBlock2d + threadIdx.x;
    if (u >= units) return;
    const V *p = reinterpret_cast<const V *>(a) + u;
    float acc[w] = {};
    size_t r = 0;
    for (; r + R <= rows; r += R) {
        V x[R];
#pragma unroll
        for (unsigned k = 0; k < R; k++) x[k] = p[(r + k) * units];
#pragma unroll
        for (unsigned k = 0; k < R; k++) add_to(acc, x[k]);
    }
    for (; r < rows; r++) add_to(acc, p[r * units]);
#pragma unroll
    for (unsigned j = 0; j < w; j++) out[u * w + j] = acc[j];
}
template <class V, unsigned R>
static cudaError_t col_wide_launch(const float *a, size_t rows, size_t cols,
                                   float *out)
{
    size_t units = cols / width_of<V>(), grid = ceil_div(units, kBlock2d);
    if (grid > kMaxBlocks2d) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    col_wide_kernel<V, R><<<(unsigned)grid, kBlock2d>>>(a, rows, units, out);
    return cudaGetLastError();
}

// <<Column sums: pick by shape>>
extern "C" cudaError_t col_sums_in_flight(const float *a, size_t rows,
                                          size_t cols, float *out,
                                          void *work)
{
    if (cols == 0) return cudaSuccess;
    if (!a || !out || !work || rows == 0) return cudaErrorInvalidValue;
    bool vec = cols % 4 == 0 && is_aligned(a, 16);
    size_t units = vec ? cols / 4 : cols;
    if (units <= 32) {
        size_t grid;                           // one wave of blocks
        BOOK_TRY(resident_blocks(kFrontBlock, &grid));
        return vec ? col_front_launch<float4, kFrontBlock, kFrontLoads>(
                         a, rows, cols, out, work, grid)
                   : col_front_launch<float, kFrontBlock, kFrontLoads>(
                         a, rows, cols, out, work, grid);
    }
    if (units >= 65536 && rows <= 64)
        return vec ? col_wide_launch<float4, kWideLoads>(a, rows, cols, out)
                   : col_wide_launch<float, kWideLoads>(a, rows, cols, out);
    return col_sums(a, rows, cols, out, (char *)work + 256);
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

extern "C" size_t dot_workspace_bytes(void) { return 4 * kMaxChunkBlocks; }
template <class V>
static cudaError_t dot_launch(const float *x, const float *y, size_t n,
                              float *out, float *partial)
{
    int dev, sms, per_sm;
    BOOK_TRY(cudaGetDevice(&dev));
    BOOK_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount,
                                    dev));
    BOOK_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, dot_kernel<V>, (int)kBlock2d, 0));
    size_t g = (size_t)sms * (per_sm > 0 ? per_sm : 1);
    size_t useful = ceil_div(n, 4 * (size_t)kBlock2d);
    if (g > useful) g = useful;
    if (g > kMaxChunkBlocks) g = kMaxChunkBlocks;
    BOOK_CLEAR_TO_LAUNCH();
    dot_kernel<V><<<(unsigned)g, kBlock2d>>>(x, y, n, partial);
    BOOK_TRY(cudaGetLastError());
    dot_finish_kernel<<<1, 1024>>>(partial, (unsigned)g, out);
    return cudaGetLastError();
}

extern "C" cudaError_t dot(const float *x, const float *y, size_t n,
                           float *out, void *work)
{
    if (!x || !y || !out || !work) return cudaErrorInvalidValue;
    if (n == 0) return cudaMemsetAsync(out, 0, sizeof(float));
    if (is_aligned(x, 16) && is_aligned(y, 16))
        return dot_launch<float4>(x, y, n, out, (float *)work);
    return dot_launch<float>(x, y, n, out, (float *)work);
}
