// conv2d_rows.cu -- the 2D kernel of several output rows a thread.
#include "convolution/conv_common.cuh"
#include <array>
#include <utility>

// <<2D: several output rows a thread>>

// <<The shape of a patch>>
static const unsigned kPx = 32, kPy = 4;    // threads of a block
static const int kPr = 4, kPg = 2;          // a thread: 4 rows, 2 groups
static const unsigned kProws = kPy * kPr;   // 16 output rows a block
static const unsigned kPcols = 4 * kPx * kPg; // 256 output columns

// float4 chunks of a tile row for a filter of kw columns: kPcols + kw - 1
// inputs, rounded up.
__host__ __device__ constexpr unsigned patch_chunks(unsigned kw)
{
    return (kPcols + kw - 1 + 3) / 4;
}

// Row pitch of the filter in constant memory: kw rounded up to even, so
// that every row starts 8-byte aligned and taps come in pairs.
__host__ __device__ constexpr unsigned patch_pitch(unsigned kw)
{
    return kw + (kw & 1);
}

// <<Load a tile with float4, no division>>
// Tile row q < rows holds image row r0 + q from column c0 on: nc float4
// chunks, zeros outside the image.  Thread (tx, ty) loads rows ty, ty + 4,
// ...: chunks tx and tx + 32 (its own columns) and, if tx < nc - 64, the
// halo chunk 64 + tx.  x 16-byte aligned, w a multiple of 4.
__device__ __forceinline__ void load_tile4(float4 *t, unsigned nc,
                                           unsigned rows, const float *x,
                                           size_t h, size_t w, size_t r0,
                                           size_t c0)
{
    const unsigned rin = h - r0 < rows ? (unsigned)(h - r0) : rows;
    const size_t win = w - c0;                  // image columns from c0
    for (unsigned q0 = threadIdx.y; q0 < rows; q0 += kPy * 4) {
        float4 v[4][kPg + 1];         // four rows: all loads, then stores
#pragma unroll
        for (int b = 0; b < 4; b++) {
            unsigned q = q0 + kPy * b;
            const float *p = x + (r0 + q) * w + c0;   // used if q < rin
#pragma unroll
            for (int g = 0; g <= kPg; g++) {
                unsigned c = threadIdx.x + kPx * g;   // g = kPg: the halo
                bool in = q < rin && c < nc && 4 * c < win;
                v[b][g] = in ? __ldg((const float4 *)(p + 4 * c))
                             : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            }
        }
#pragma unroll
        for (int b = 0; b < 4; b++)
#pragma unroll
            for (int g = 0; g <= kPg; g++) {
                unsigned q = q0 + kPy * b, c = threadIdx.x + kPx * g;
                if (q < rows && c < nc) t[q * nc + c] = v[b][g];
            }
    }
}
// The same tile, one float a lane: any x, w.
__device__ __forceinline__ void load_tile1(float4 *t, unsigned nc,
                                           unsigned rows, const float *x,
                                           size_t h, size_t w, size_t r0,
                                           size_t c0)
{
    const unsigned rin = h - r0 < rows ? (unsigned)(h - r0) : rows;
    const size_t win = w - c0;
    float *s = (float *)t;
    for (unsigned q = threadIdx.y; q < rows; q += kPy) {
        const float *p = x + (r0 + q) * w + c0;   // used only if q < rin
        for (unsigned i = threadIdx.x; i < 4 * nc; i += kPx)
            s[q * 4 * nc + i] = q < rin && i < win ? __ldg(p + i) : 0.0f;
    }
}

// <<Apply one input row to every output row that uses it>>
// acc[r][g][c] += sum over input rows q < kPr + kh - 1 of row q (float4
// chunks row[kPx g + m]) times filter row q - r, for the r with
// 0 <= q - r < kh.  Taps from c_filter, rows patch_pitch(KW) apart.
template <int KW>
__device__ __forceinline__ void patch_rows(float (&acc)[kPr][kPg][4],
                                           const float4 *row, unsigned nc,
                                           unsigned kh)
{
    constexpr int seg = (KW + 3 + 3) / 4;     // chunks a group reads
    constexpr int kp = patch_pitch(KW);
    for (unsigned q = 0; q < kPr + kh - 1; q++, row += nc) {
        float v[kPg][4 * seg];
#pragma unroll
        for (int g = 0; g < kPg; g++)
#pragma unroll
            for (int m = 0; m < seg; m++) {
                float4 u = row[kPx * g + m];
                v[g][4 * m] = u.x;
                v[g][4 * m + 1] = u.y;
                v[g][4 * m + 2] = u.z;
                v[g][4 * m + 3] = u.w;
            }
        // <<Run the filter rows that meet the input row>>
        const float *f = c_filter + q * kp;    // filter row q - r at f - r * kp
        #pragma unroll
        for (int r = 0; r < kPr; r++) {
            if (q - r >= kh) continue;         // unsigned: also q < r
        #pragma unroll
            for (int j = 0; j < KW; j++) {
                float tap = f[j - r * kp];
        #pragma unroll
                for (int g = 0; g < kPg; g++)
        #pragma unroll
                    for (int c = 0; c < 4; c++)
                        acc[r][g][c] = fmaf(v[g][c + j], tap, acc[r][g][c]);
            }
        }
    }
}

// <<Store a patch>>
// Output rows r0 + r (r < kPr) of the thread, columns c0 + 4 (tx + kPx g)
// + c, those inside ho x wo; one float4 a group when vec (y 16-byte
// aligned, wo a multiple of 4).
__device__ __forceinline__ void store_patch(float *y, size_t ho, size_t wo,
                                            size_t r0, size_t c0, bool vec,
                                            const float (&acc)[kPr][kPg][4])
{
#pragma unroll
    for (int r = 0; r < kPr; r++) {
        if (r0 + r >= ho) break;
        float *yr = y + (r0 + r) * wo;
#pragma unroll
        for (int g = 0; g < kPg; g++) {
            size_t oc = c0 + 4 * (threadIdx.x + kPx * g);
            const float *a = acc[r][g];
            if (vec && oc + 4 <= wo)
                *(float4 *)(yr + oc) = make_float4(a[0], a[1], a[2], a[3]);
            else
                for (int c = 0; c < 4; c++)
                    if (oc + c < wo) yr[oc + c] = a[c];
        }
    }
}

// <<The patch kernel and its launcher>>
template <int KW>
__global__ void __maxnreg__(KW <= 10 ? 64 : 128)   // no spills (text)
conv2d_rows_kernel(const float *x, size_t h, size_t w, unsigned kh,
                   float *y, size_t ho, size_t wo, bool vin, bool vout)
{
    extern __shared__ float4 t[];   // kProws + kh - 1 rows of nc chunks
    constexpr unsigned nc = patch_chunks(KW);
    size_t r0 = blockIdx.y * (size_t)kProws, c0 = blockIdx.x * (size_t)kPcols;
    if (vin) load_tile4(t, nc, kProws + kh - 1, x, h, w, r0, c0);
    else load_tile1(t, nc, kProws + kh - 1, x, h, w, r0, c0);
    __syncthreads();
    float acc[kPr][kPg][4] = {};
    patch_rows<KW>(acc, t + threadIdx.y * kPr * nc + threadIdx.x, nc, kh);
    store_patch(y, ho, wo, r0 + threadIdx.y * kPr, c0, vout, acc);
}
// conv2d_rows_kernel<kw> for kw = 1 ... CONV2D_MAX_K, indexed by kw - 1.
typedef void (*rows_kernel_fn)(const float *, size_t, size_t, unsigned,
                               float *, size_t, size_t, bool, bool);
template <int... K>
constexpr std::array<rows_kernel_fn, sizeof...(K)>
rows_kernels_for(std::integer_sequence<int, K...>)
{
    return {{conv2d_rows_kernel<K + 1>...}};
}
static constexpr auto kRowsKernels =
    rows_kernels_for(std::make_integer_sequence<int, CONV2D_MAX_K>{});
// The kh x kw filter f into c_filter, rows pitch floats apart, on stream.
static cudaError_t filter_to_constant_2d(const float *f, size_t kh,
                                         size_t kw, size_t pitch,
                                         cudaStream_t stream)
{
    void *c;
    BOOK_TRY(cudaGetSymbolAddress(&c, c_filter));
    return cudaMemcpy2DAsync(c, pitch * sizeof(float), f, kw * sizeof(float),
                             kw * sizeof(float), kh,
                             cudaMemcpyDeviceToDevice, stream);
}

extern "C" cudaError_t conv2d_rows(const float *x, size_t h, size_t w,
                                   const float *f, size_t kh, size_t kw,
                                   float *y, cudaStream_t stream)
{
    size_t ho, wo;
    BOOK_TRY(conv2d_args(x, h, w, f, kh, kw, y, CONV2D_MAX_K, &ho, &wo));
    if (ho == 0) return cudaSuccess;
    BOOK_CLEAR_TO_LAUNCH();
    rows_kernel_fn k = kRowsKernels[kw - 1];
    size_t bytes = (kProws + kh - 1) * patch_chunks((unsigned)kw) * 16;
    if (bytes > 48 * 1024)
        BOOK_TRY(cudaFuncSetAttribute(
            k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
    BOOK_TRY(filter_to_constant_2d(f, kh, kw, patch_pitch((unsigned)kw),
                                   stream));
    bool vin = is_aligned(x, 16) && w % 4 == 0;
    bool vout = is_aligned(y, 16) && wo % 4 == 0;
    dim3 block(kPx, kPy);
    dim3 grid((unsigned)ceil_div(wo, kPcols), (unsigned)ceil_div(ho, kProws));
    k<<<grid, block, bytes, stream>>>(x, h, w, (unsigned)kh, y, ho, wo, vin,
                                      vout);
    return cudaGetLastError();
}
