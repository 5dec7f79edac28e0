// sweep_tall.cu -- candidates for the tall (2^20 x 32) row and column sums,
// beside the chapter's launchers and the read of the same bytes, three
// repetitions (not built by make).  Its log goes to stderr, its table to
// stdout: reduce-2d-sweep.csv, headed by tools/provenance.sh's lines:
// nvcc -std=c++17 -O3 -arch=sm_90 -Ibuild/src -Itests/common -Itangled
//   -o sweep tests/reduce-2d/sweep_tall.cu
//   build/obj/reduce-2d/reduce2d.o build/obj/reduce-2d/reduce2d_in_flight.o
//   build/obj/benchkit.o
// tools/provenance.sh > reduce-2d-sweep.csv && ./sweep >> reduce-2d-sweep.csv
#include <cstdio>
#include <cstring>
#include <chrono>
#include "benchkit.h"
#include "common/book.h"
#include "reduce/reduce.cuh"
#include "reduce-2d/reduce2d.h"

__device__ __forceinline__ void add4(float *acc, float4 v)
{
    acc[0] += v.x; acc[1] += v.y; acc[2] += v.z; acc[3] += v.w;
}

static size_t resident(unsigned threads)
{
    int dev, sms, per;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    cudaDeviceGetAttribute(&per, cudaDevAttrMaxThreadsPerMultiProcessor, dev);
    return (size_t)sms * (per / threads);
}

// Row sums, width exactly 32 floats, 16-byte aligned.  A warp takes 32 rows
// an iteration: group g (8 lanes) rows 8g..8g+7, each lane float4 `sub' of
// each; B batches of 32 rows loaded before any is added.  Reduce-scatter
// butterfly: 7 shuffles for 8 rows, lane l ends with row l of the 32.
template <unsigned B, unsigned MINB = 1>
__global__ void __launch_bounds__(256, MINB)
row_bfly(const float4 *a, size_t rows, float *out)
{
    const unsigned lane = threadIdx.x % 32, sub = lane % 8, g = lane / 8;
    size_t warp = blockIdx.x * (size_t)8 + threadIdx.x / 32;
    size_t step = (size_t)gridDim.x * 8 * 32 * B;
    for (size_t base = warp * 32 * B; base < rows; base += step) {
        float4 x[B][8];
        const bool full = base + 32 * B <= rows;
#pragma unroll
        for (unsigned b = 0; b < B; b++)
#pragma unroll
            for (unsigned k = 0; k < 8; k++) {
                size_t row = base + b * 32 + 8 * g + k;
                x[b][k] = full || row < rows ? __ldg(&a[row * 8 + sub])
                                             : make_float4(0.f, 0.f, 0.f, 0.f);
            }
#pragma unroll
        for (unsigned b = 0; b < B; b++) {
            float v[8];
#pragma unroll
            for (unsigned k = 0; k < 8; k++)
                v[k] = (x[b][k].x + x[b][k].y) + (x[b][k].z + x[b][k].w);
            // step 1: partner sub^4; keep rows (sub&4 ? 4..7 : 0..3)
            bool h = sub & 4;
#pragma unroll
            for (unsigned k = 0; k < 4; k++) {
                float give = h ? v[k] : v[k + 4];
                float keep = h ? v[k + 4] : v[k];
                v[k] = keep + __shfl_xor_sync(0xffffffffu, give, 4);
            }
            h = sub & 2;                       // rows (h ? 2,3 : 0,1) of 4
#pragma unroll
            for (unsigned k = 0; k < 2; k++) {
                float give = h ? v[k] : v[k + 2];
                float keep = h ? v[k + 2] : v[k];
                v[k] = keep + __shfl_xor_sync(0xffffffffu, give, 2);
            }
            h = sub & 1;
            {
                float give = h ? v[0] : v[1];
                float keep = h ? v[1] : v[0];
                v[0] = keep + __shfl_xor_sync(0xffffffffu, give, 1);
            }
            // lane holds row 8g + (4*(sub>>2&1) + 2*(sub>>1&1) + (sub&1)) = 8g+sub
            size_t row = base + b * 32 + lane;
            if (row < rows) out[row] = v[0];
        }
    }
}

// Column sums, 8 float4 units (32 columns), block BLOCK, guarded loads so
// the slab's last rows load in parallel.  MODE 0: last block finishes;
// MODE 1: partials only (a second kernel finishes); MODE 2: atomics.
template <unsigned BLOCK, unsigned R, int MODE>
__global__ void __launch_bounds__(BLOCK)
col_slab2(const float4 *a, size_t rows, float *partial, unsigned *counter,
          float *out)
{
    constexpr unsigned bx = 8, by = BLOCK / bx, cols = 32, ld = 33;
    __shared__ float s[BLOCK / 32 * ld > 2 * BLOCK ? BLOCK / 32 * ld : 2 * BLOCK];
    __shared__ bool last;
    const size_t per = rows / gridDim.x + (rows % gridDim.x != 0);
    const size_t first = blockIdx.x * per;
    const size_t end = first + per < rows ? first + per : rows;
    const unsigned tx = threadIdx.x % bx;
    float acc[4] = {};
    const float4 *p = a + tx;
    for (size_t r = first + threadIdx.x / bx; r < end; r += R * (size_t)by) {
        float4 x[R];
        const bool full = r + (R - 1) * (size_t)by < end;
#pragma unroll
        for (unsigned k = 0; k < R; k++) {
            size_t rr = r + k * by;
            x[k] = full || rr < end ? __ldg(&p[rr * 8])
                                    : make_float4(0.f, 0.f, 0.f, 0.f);
        }
#pragma unroll
        for (unsigned k = 0; k < R; k++) add4(acc, x[k]);
    }
    for (unsigned o = bx; o < 32; o *= 2)
#pragma unroll
        for (unsigned j = 0; j < 4; j++)
            acc[j] += __shfl_xor_sync(0xffffffffu, acc[j], o);
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane < bx)
        for (unsigned j = 0; j < 4; j++) s[warp * ld + lane * 4 + j] = acc[j];
    __syncthreads();
    for (unsigned c = warp; c < cols; c += BLOCK / 32) {
        float t = 0.f;
        for (unsigned q = lane; q < BLOCK / 32; q += 32) t += s[q * ld + c];
        t = warp_sum(t);
        if (lane == 0) {
            if (MODE == 2) atomicAdd(&out[c], t);
            else partial[blockIdx.x * cols + c] = t;
            if (MODE == 0) __threadfence();
        }
    }
    if (MODE != 0) return;
    __syncthreads();
    if (threadIdx.x == 0) last = atomicAdd(counter, 1u) == gridDim.x - 1;
    __syncthreads();
    if (!last) return;
    __threadfence();
    const unsigned groups = BLOCK / cols, col = threadIdx.x % cols;
    float t = 0.f;
#pragma unroll 8
    for (size_t k = threadIdx.x / cols; k < gridDim.x; k += groups)
        t += __ldcg(&partial[k * cols + col]);
    s[threadIdx.x / cols * ld + col] = t;
    __syncthreads();
    for (unsigned c = warp; c < cols; c += BLOCK / 32) {
        float u = 0.f;
        for (unsigned q = lane; q < groups; q += 32) u += s[q * ld + c];
        u = warp_sum(u);
        if (lane == 0) out[c] = u;
    }
    if (threadIdx.x == 0) *counter = 0;
}

// The finish as its own kernel: one block of 1024, n partial rows of 32.
__global__ void __launch_bounds__(1024)
col_finish(const float *partial, unsigned n, float *out)
{
    __shared__ float s[32 * 33];
    const unsigned col = threadIdx.x % 32, lane = threadIdx.x % 32,
                   warp = threadIdx.x / 32;
    float t = 0.f;
#pragma unroll 8
    for (unsigned k = threadIdx.x / 32; k < n; k += 32)
        t += partial[k * 32 + col];
    s[threadIdx.x / 32 * 33 + col] = t;
    __syncthreads();
    float u = s[lane * 33 + warp];
    u = warp_sum(u);
    if (lane == 0) out[warp] = u;
}

// The chapter's slab kernel as first measured (run-time width bx, every
// load guarded, the row index multiplied out a load), launched here with
// the grid computed once: against col_sums_in_flight it separates the
// launcher's three device queries from the kernel.
template <unsigned BLOCK, unsigned R>
__global__ void __launch_bounds__(BLOCK, 2048 / BLOCK)
col_slab_runtime_width(const float *a, size_t rows, size_t cols,
                       unsigned bx, float *partial, unsigned *counter,
                       float *out)
{
    __shared__ float s[BLOCK / 32 * 129 > 2 * BLOCK ? BLOCK / 32 * 129 : 2 * BLOCK];
    __shared__ bool last;
    const size_t units = cols / 4;
    const size_t per = rows / gridDim.x + (rows % gridDim.x != 0);
    const size_t first = blockIdx.x * per;
    const size_t end = first + per < rows ? first + per : rows;
    const unsigned tx = threadIdx.x % bx, by = BLOCK / bx;
    size_t r = first + threadIdx.x / bx;
    float acc[4] = {};
    if (tx < units) {
        const float4 *p = reinterpret_cast<const float4 *>(a) + tx;
        for (; r < end; r += R * (size_t)by) {
            float4 x[R];
#pragma unroll
            for (unsigned k = 0; k < R; k++) {
                size_t q = r + k * (size_t)by;
                x[k] = q < end ? __ldg(&p[q * units]) : make_float4(0.f, 0.f, 0.f, 0.f);
            }
#pragma unroll
            for (unsigned k = 0; k < R; k++) add4(acc, x[k]);
        }
    }
    for (unsigned o = bx; o < 32; o *= 2)
#pragma unroll
        for (unsigned j = 0; j < 4; j++)
            acc[j] += __shfl_xor_sync(0xffffffffu, acc[j], o);
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const unsigned cw = bx * 4, ld = cw + 1;
    if (lane < bx)
        for (unsigned j = 0; j < 4; j++) s[warp * ld + lane * 4 + j] = acc[j];
    __syncthreads();
    for (unsigned c = warp; c < cols; c += BLOCK / 32) {
        float t = 0.f;
        for (unsigned q = lane; q < BLOCK / 32; q += 32) t += s[q * ld + c];
        t = warp_sum(t);
        if (lane == 0) { partial[blockIdx.x * cols + c] = t; __threadfence(); }
    }
    __syncthreads();
    if (threadIdx.x == 0) last = atomicAdd(counter, 1u) == gridDim.x - 1;
    __syncthreads();
    if (!last) return;
    __threadfence();
    const unsigned groups = BLOCK / cw, col = threadIdx.x % cw;
    float t = 0.0f;
    if (col < cols)
#pragma unroll 8
        for (size_t k = threadIdx.x / cw; k < gridDim.x; k += groups)
            t += __ldcg(&partial[k * cols + col]);
    s[threadIdx.x / cw * ld + col] = t;
    __syncthreads();
    for (unsigned c = warp; c < cols; c += BLOCK / 32) {
        float u = 0.f;
        for (unsigned q = lane; q < groups; q += 32) u += s[q * ld + c];
        u = warp_sum(u);
        if (lane == 0) out[c] = u;
    }
    if (threadIdx.x == 0) *counter = 0;
}

// As col_slab2 (MODE 0), but the rows dealt out grid-stride instead of in
// slabs: thread-row t of block b takes rows (b * by + t) + j * G, G =
// gridDim.x * by, R of them in flight, so that all blocks read one moving
// front of memory, as the read ceiling does.
// MINB: __launch_bounds__'s blocks an SM, by default as many as the SM's
// 2048 threads hold, as the chapter's kernel asks (for BLOCK = 1024 that
// caps the registers at 32); with MINB = 1 this kernel takes 36, and an SM
// then holds one block of 1024.
template <unsigned BLOCK, unsigned R, unsigned MINB = 2048 / BLOCK>
__global__ void __launch_bounds__(BLOCK, MINB)
col_stride2(const float4 *a, size_t rows, float *partial, unsigned *counter,
            float *out)
{
    constexpr unsigned bx = 8, by = BLOCK / bx, cols = 32, ld = 33;
    __shared__ float s[BLOCK / 32 * ld > 2 * BLOCK ? BLOCK / 32 * ld : 2 * BLOCK];
    __shared__ bool last;
    const size_t G = (size_t)gridDim.x * by;
    const unsigned tx = threadIdx.x % bx;
    float acc[4] = {};
    const float4 *p = a + tx;
    size_t r = blockIdx.x * (size_t)by + threadIdx.x / bx;
    for (; r + (R - 1) * G < rows; r += R * G) {
        float4 x[R];
#pragma unroll
        for (unsigned k = 0; k < R; k++) x[k] = __ldg(&p[(r + k * G) * 8]);
#pragma unroll
        for (unsigned k = 0; k < R; k++) add4(acc, x[k]);
    }
    if (r < rows) {
        float4 x[R];
#pragma unroll
        for (unsigned k = 0; k < R; k++)
            x[k] = r + k * G < rows ? __ldg(&p[(r + k * G) * 8])
                                    : make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
        for (unsigned k = 0; k < R; k++) add4(acc, x[k]);
    }
    for (unsigned o = bx; o < 32; o *= 2)
#pragma unroll
        for (unsigned j = 0; j < 4; j++)
            acc[j] += __shfl_xor_sync(0xffffffffu, acc[j], o);
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane < bx)
        for (unsigned j = 0; j < 4; j++) s[warp * ld + lane * 4 + j] = acc[j];
    __syncthreads();
    for (unsigned c = warp; c < cols; c += BLOCK / 32) {
        float t = 0.f;
        for (unsigned q = lane; q < BLOCK / 32; q += 32) t += s[q * ld + c];
        t = warp_sum(t);
        if (lane == 0) { partial[blockIdx.x * cols + c] = t; __threadfence(); }
    }
    __syncthreads();
    if (threadIdx.x == 0) last = atomicAdd(counter, 1u) == gridDim.x - 1;
    __syncthreads();
    if (!last) return;
    __threadfence();
    const unsigned groups = BLOCK / cols, col = threadIdx.x % cols;
    float t = 0.f;
#pragma unroll 8
    for (size_t k = threadIdx.x / cols; k < gridDim.x; k += groups)
        t += __ldcg(&partial[k * cols + col]);
    s[threadIdx.x / cols * ld + col] = t;
    __syncthreads();
    for (unsigned c = warp; c < cols; c += BLOCK / 32) {
        float u = 0.f;
        for (unsigned q = lane; q < groups; q += 32) u += s[q * ld + c];
        u = warp_sum(u);
        if (lane == 0) out[c] = u;
    }
    if (threadIdx.x == 0) *counter = 0;
}

struct ctx {
    const float *a; size_t rows, cols; float *out; void *work; int kind;
    size_t grid;
};

template <unsigned BLOCK, unsigned R, int MODE>
static cudaError_t launch_col(ctx *c)
{
    float *partial = (float *)((char *)c->work + 256);
    if (MODE == 2) cudaMemsetAsync(c->out, 0, 128);
    col_slab2<BLOCK, R, MODE><<<(unsigned)c->grid, BLOCK>>>(
        (const float4 *)c->a, c->rows, partial, (unsigned *)c->work, c->out);
    if (MODE == 1) col_finish<<<1, 1024>>>(partial, (unsigned)c->grid, c->out);
    return cudaGetLastError();
}

static cudaError_t run(void *p)
{
    ctx *c = (ctx *)p;
    switch (c->kind) {
    case 0: return row_sums_in_flight(c->a, c->rows, c->cols, c->out, c->work, 0);
    case 1: return col_sums_in_flight(c->a, c->rows, c->cols, c->out, c->work, 0);
    case 10: row_bfly<1><<<(unsigned)c->grid, 256>>>((const float4 *)c->a, c->rows, c->out); return cudaGetLastError();
    case 12: row_bfly<1, 8><<<(unsigned)c->grid, 256>>>((const float4 *)c->a, c->rows, c->out); return cudaGetLastError();
    case 11: row_bfly<2><<<(unsigned)c->grid, 256>>>((const float4 *)c->a, c->rows, c->out); return cudaGetLastError();
    case 20: return launch_col<1024, 4, 0>(c);
    case 21: return launch_col<1024, 8, 0>(c);
    case 22: return launch_col<1024, 4, 1>(c);
    case 23: return launch_col<1024, 8, 1>(c);
    case 24: return launch_col<1024, 4, 2>(c);
    case 25: return launch_col<1024, 8, 2>(c);
    case 26: return launch_col<512, 8, 0>(c);
    case 27: return launch_col<512, 8, 1>(c);
    case 28: return launch_col<256, 8, 0>(c);
    case 29: return launch_col<256, 8, 1>(c);
    case 30: return launch_col<256, 4, 0>(c);
    case 41: case 42: case 43: {
        float *partial = (float *)((char *)c->work + 256);
        if (c->kind == 41)
            col_stride2<1024, 4, 1><<<(unsigned)c->grid, 1024>>>((const float4 *)c->a, c->rows, partial, (unsigned *)c->work, c->out);
        else if (c->kind == 42)
            col_stride2<1024, 8><<<(unsigned)c->grid, 1024>>>((const float4 *)c->a, c->rows, partial, (unsigned *)c->work, c->out);
        else
            col_stride2<512, 4><<<(unsigned)c->grid, 512>>>((const float4 *)c->a, c->rows, partial, (unsigned *)c->work, c->out);
        return cudaGetLastError();
    }
    case 44:
        col_stride2<1024, 4><<<(unsigned)c->grid, 1024>>>(
            (const float4 *)c->a, c->rows, (float *)((char *)c->work + 256),
            (unsigned *)c->work, c->out);
        return cudaGetLastError();
    case 40:
        col_slab_runtime_width<1024, 4><<<(unsigned)c->grid, 1024>>>(
            c->a, c->rows, c->cols, 8, (float *)((char *)c->work + 256),
            (unsigned *)c->work, c->out);
        return cudaGetLastError();
    }
    return cudaErrorInvalidValue;
}

int main()
{
    const size_t rows = 1u << 20, cols = 32, n = rows * cols;
    float *a, *out, *ref;
    void *work;
    BOOK_CHECK(cudaMalloc(&a, n * 4));
    BOOK_CHECK(cudaMalloc(&out, rows * 4));
    BOOK_CHECK(cudaMalloc(&ref, rows * 4));
    BOOK_CHECK(cudaMalloc(&work, 1 << 22));
    BOOK_CHECK(cudaMemset(work, 0, 1 << 22));
    bk_fill_random(a, n, -1.0f, 1.0f, 11);
    size_t bytes = n * 4;
    size_t r256 = resident(256), r1024 = resident(1024), r512 = resident(512);
    struct { const char *name; int kind; size_t grid; bool row; } c[] = {
        {"row_sums_in_flight", 0, 0, true},
        {"bfly1_full_32reg", 12, rows / 256, true},
        {"bfly1_w1", 10, r256, true}, {"bfly1_w2", 10, 2 * r256, true},
        {"bfly1_w4", 10, 4 * r256, true}, {"bfly1_full", 10, rows / 256, true},
        {"bfly2_w1", 11, r256, true}, {"bfly2_w2", 11, 2 * r256, true},
        {"bfly2_full", 11, rows / 512, true},
        {"col_sums_in_flight", 1, 0, false},
        {"slab_runtime_width", 40, r1024, false},
        {"stride_b1024_r4_last", 44, r1024, false},
        {"stride_b1024_r4_last_minb1", 41, r1024, false},
        {"stride_b1024_r4_last_half", 44, r1024 / 2, false},
        {"stride_b1024_r4_last_2w", 44, 2 * r1024, false},
        {"stride_b1024_r8_last", 42, r1024, false},
        {"stride_b512_r4_last", 43, r512, false},
        {"slab_b1024_r4_last", 20, r1024, false},
        {"slab_b1024_r8_last", 21, r1024, false},
        {"slab_b1024_r4_2k", 22, r1024, false},
        {"slab_b1024_r8_2k", 23, r1024, false},
        {"slab_b1024_r4_atom", 24, r1024, false},
        {"slab_b1024_r8_atom", 25, r1024, false},
        {"slab_b512_r8_last", 26, r512, false},
        {"slab_b512_r8_2k", 27, r512, false},
        {"slab_b1024_r8_last_2w", 21, 2 * r1024, false},
        {"slab_b1024_r8_2k_2w", 23, 2 * r1024, false},
        {"slab_b256_r8_last", 28, r256, false},
        {"slab_b256_r8_2k", 29, r256, false},
        {"slab_b256_r4_last", 30, r256, false},
        {"slab_b256_r4_last_2w", 30, 2 * r256, false},
    };
    // references
    ctx cr = {a, rows, cols, ref, work, 0, 0};
    run(&cr);
    float href[1 << 5], hrow[8];
    float *hr = (float *)malloc(rows * 4), *ho = (float *)malloc(rows * 4);
    BOOK_CHECK(cudaMemcpy(hr, ref, rows * 4, cudaMemcpyDeviceToHost));
    cr.kind = 1; run(&cr);
    BOOK_CHECK(cudaMemcpy(href, ref, 128, cudaMemcpyDeviceToHost));
    (void)hrow;
    const int kReps = 3;
    const size_t nc = sizeof c / sizeof c[0];
    double queries_us = 0, read_us_of[kReps], us_of[sizeof c / sizeof c[0]][kReps];
    {
        auto t0 = std::chrono::steady_clock::now();
        size_t sink = 0;
        for (int i = 0; i < 100000; i++) sink += resident(1024);
        double us = std::chrono::duration<double, std::micro>(
                        std::chrono::steady_clock::now() - t0).count() / 1e5;
        fprintf(stderr, "device queries: %.3f us a call (%zu)\n", us,
                sink % 7);
        queries_us = us;
    }
    for (int rep = 0; rep < kReps; rep++) {
        double read = bk_read_gbps(bytes);
        double read_us = bytes / (read * 1e3);
        read_us_of[rep] = read_us;
        fprintf(stderr, "rep %d read %.2f us (%.1f GB/s)\n", rep, read_us, read);
        for (size_t i = 0; i < nc; i++) {
            auto &x = c[i];
            ctx cc = {a, rows, cols, out, work, x.kind, x.grid};
            BOOK_CHECK(cudaMemset(out, 0xff, rows * 4));
            run(&cc);
            cudaError_t e = cudaDeviceSynchronize();
            double maxerr = 0;
            size_t m = x.row ? rows : 32;
            BOOK_CHECK(cudaMemcpy(ho, out, m * 4, cudaMemcpyDeviceToHost));
            for (size_t j = 0; j < m; j++) {
                double d = fabs((double)ho[j] - (x.row ? hr[j] : href[j]));
                if (!(d <= maxerr)) maxerr = d;
            }
            double us = 1e3 * bk_median_ms(run, &cc, 30);
            us_of[i][rep] = us;
            fprintf(stderr, "%-24s grid %6zu %7.2f us  of_read %.3f  err %.2g %s\n",
                    x.name, x.grid, us, read_us / us, maxerr,
                    e ? cudaGetErrorString(e) : "");
        }
    }
    printf("# program: tests/reduce-2d/sweep_tall.cu, linked with the "
           "chapter code of the commit above\n");
    printf("# shape: 1048576x32 floats, float4 loads; read_us: bk_read_gbps "
           "of the same bytes, once a repetition; of_read = read_us / us; "
           "device_queries_host: the host time of one launcher's three "
           "device queries (us, 10^5 calls)\n");
    printf("variant,grid");
    for (int r = 0; r < kReps; r++) printf(",us_rep%d,of_read_rep%d", r, r);
    for (int r = 0; r < kReps; r++) printf(",read_us_rep%d", r);
    printf("\n");
    for (size_t i = 0; i < nc; i++) {
        printf("%s,%zu", c[i].name, c[i].grid);
        for (int r = 0; r < kReps; r++)
            printf(",%.2f,%.3f", us_of[i][r], read_us_of[r] / us_of[i][r]);
        for (int r = 0; r < kReps; r++) printf(",%.2f", read_us_of[r]);
        printf("\n");
    }
    printf("device_queries_host,0,%.3f,--,--,--,--,--,--,--,--\n", queries_us);
    return 0;
}
