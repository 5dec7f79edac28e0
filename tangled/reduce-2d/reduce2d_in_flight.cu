// reduce2d_in_flight.cu -- sums of narrow shapes, several rows in flight.
#include "reduce-2d/reduce2d_parts.cuh"

// <<Row sums: several rows a thread in flight>>
template <class V, unsigned R>
__global__ void __launch_bounds__(kBlock2d, SM_THREADS / kBlock2d)
row_flight_kernel(const float *a, size_t rows, size_t units, unsigned lanes,
                  float *out)
{
    const unsigned lane = threadIdx.x % 32, sub = lane % lanes;
    const size_t per = 32 / lanes;             // rows one warp reads at once
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
                                     size_t cols, float *out, size_t waves,
                                     cudaStream_t stream)
{
    size_t units = cols / width_of<V>(), resident;
    unsigned lanes = pow2_at_most_32(units);
    BOOK_TRY(resident_blocks(kBlock2d, &resident));
    size_t grid = ceil_div(rows, (kBlock2d / 32) * (32 / lanes) * R);
    if (grid > waves * resident) grid = waves * resident;
    BOOK_CLEAR_TO_LAUNCH();
    row_flight_kernel<V, R><<<(unsigned)grid, kBlock2d, 0, stream>>>(
        a, rows, units, lanes, out);
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
                                      float *out, size_t waves,
                                      cudaStream_t stream)
{
    size_t resident, grid = ceil_div(rows, kBlock2d);  // 32 rows per warp
    BOOK_TRY(resident_blocks(kBlock2d, &resident));
    if (grid > waves * resident) grid = waves * resident;
    BOOK_CLEAR_TO_LAUNCH();
    row_scatter_kernel<<<(unsigned)grid, kBlock2d, 0, stream>>>(
        reinterpret_cast<const float4 *>(a), rows, out);
    return cudaGetLastError();
}

// <<Row sums: pick the in-flight kernel>>
extern "C" cudaError_t row_sums_in_flight(const float *a, size_t rows,
                                          size_t cols, float *out,
                                          void *work, cudaStream_t stream)
{
    if (rows == 0) return cudaSuccess;
    if (!a || !out || cols == 0) return cudaErrorInvalidValue;
    if (cols > 1024) return row_sums(a, rows, cols, out, work, stream);
    if (cols == 32 && is_aligned(a, 16))
        return row_scatter_launch(a, rows, out, kRowWaves, stream);
    if (cols % 4 == 0 && is_aligned(a, 16))
        return row_flight_launch<float4, kRowsInFlight>(a, rows, cols, out,
                                                        kRowWaves, stream);
    return row_flight_launch<float, kRowsInFlight>(a, rows, cols, out,
                                                   kRowWaves, stream);
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
typedef struct {
    unsigned *counter;            // the last block's counter
    void *rest;                   // the front's partials, or col_sums' own
} col_front_work;
static col_front_work col_front_layout(book_carve *c, size_t rows,
                                       size_t cols)
{
    const size_t front = 4 * kMaxChunkBlocks * 128;
    const size_t other = col_sums_workspace_bytes(rows, cols);
    if (other == 0) c->overflow = 1;          // col_sums' size overflowed
    col_front_work w;
    w.counter = (unsigned *)book_carve_take(c, 256, 256);
    w.rest = book_carve_take(c, front > other ? front : other, 4);
    return w;
}
static col_front_work col_front_work_at(void *work, size_t rows,
                                        size_t cols)
{
    book_carve c = {(char *)work, 0, 0};
    return col_front_layout(&c, rows, cols);
}
template <class V, unsigned BLOCK, unsigned R, unsigned BX>
static cudaError_t col_front_start(const float *a, size_t rows, size_t cols,
                                  float *out, void *work, unsigned grid,
                                  cudaStream_t stream)
{
    const col_front_work w = col_front_work_at(work, rows, cols);
    col_front_kernel<V, BLOCK, R, BX><<<grid, BLOCK, 0, stream>>>(
        a, rows, cols, (float *)w.rest, w.counter, out);
    return cudaGetLastError();
}
template <class V, unsigned BLOCK, unsigned R>
static cudaError_t col_front_launch(const float *a, size_t rows, size_t cols,
                                   float *out, void *work, size_t grid,
                                   cudaStream_t stream)
{
    unsigned bx = pow2_at_most_32(cols / width_of<V>());
    if (grid > ceil_div(rows, BLOCK / bx)) grid = ceil_div(rows, BLOCK / bx);
    if (grid > kMaxChunkBlocks) grid = kMaxChunkBlocks;
    BOOK_CLEAR_TO_LAUNCH();
    cudaError_t (*start)(const float *, size_t, size_t, float *, void *,
                         unsigned, cudaStream_t);
    switch (bx) {                              // the width, a constant
    case 1:  start = col_front_start<V, BLOCK, R, 1>; break;
    case 2:  start = col_front_start<V, BLOCK, R, 2>; break;
    case 4:  start = col_front_start<V, BLOCK, R, 4>; break;
    case 8:  start = col_front_start<V, BLOCK, R, 8>; break;
    case 16: start = col_front_start<V, BLOCK, R, 16>; break;
    default: start = col_front_start<V, BLOCK, R, 32>; break;
    }
    return start(a, rows, cols, out, work, (unsigned)grid, stream);
}

extern "C" size_t col_sums_in_flight_workspace_bytes(size_t rows,
                                                     size_t cols)
{
    book_carve c = {NULL, 0, 0};
    col_front_layout(&c, rows, cols);
    return book_carve_size(&c);
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
                                   float *out, cudaStream_t stream)
{
    size_t units = cols / width_of<V>(), grid = ceil_div(units, kBlock2d);
    if (grid > kMaxBlocks2d) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    col_wide_kernel<V, R><<<(unsigned)grid, kBlock2d, 0, stream>>>(
        a, rows, units, out);
    return cudaGetLastError();
}

// <<Column sums: pick by shape>>
extern "C" cudaError_t col_sums_in_flight(const float *a, size_t rows,
                                          size_t cols, float *out,
                                          void *work, cudaStream_t stream)
{
    if (cols == 0) return cudaSuccess;
    if (!a || !out || !work || rows == 0) return cudaErrorInvalidValue;
    bool vec = cols % 4 == 0 && is_aligned(a, 16);
    size_t units = vec ? cols / 4 : cols;
    if (units <= 32) {
        size_t grid;                           // one wave of blocks
        BOOK_TRY(resident_blocks(kFrontBlock, &grid));
        return vec ? col_front_launch<float4, kFrontBlock, kFrontLoads>(
                         a, rows, cols, out, work, grid, stream)
                   : col_front_launch<float, kFrontBlock, kFrontLoads>(
                         a, rows, cols, out, work, grid, stream);
    }
    if (units >= 65536 && rows <= 64)
        return vec ? col_wide_launch<float4, kWideLoads>(a, rows, cols, out,
                                                         stream)
                   : col_wide_launch<float, kWideLoads>(a, rows, cols, out,
                                                        stream);
    void *rest = col_front_work_at(work, rows, cols).rest;
    return col_sums(a, rows, cols, out, rest, stream);
}
