// render.cu -- the circle renderers.
#include "common/book.h"
#include "scan/scan.cuh"
#include "renderer/render.h"
#include "renderer/shade.h"

// <<Renderer constants and checks>>
constexpr int kTile = RENDER_TILE;
constexpr int kThreads = kTile * kTile;        // a block: one tile's pixels
static_assert(kThreads == 256, "the block scan below assumes 8 warps");
static cudaError_t render_check(const circle *c, size_t n, render_mode mode,
                                const rgba *img, int w, int h)
{
    if (w < 1 || h < 1 || w > RENDER_MAX_SIDE || h > RENDER_MAX_SIDE)
        return cudaErrorInvalidValue;
    if (!img || !is_aligned(img, 16) || n > RENDER_MAX_CIRCLES)
        return cudaErrorInvalidValue;
    if (n > 0 && (!c || !is_aligned(c, 16) ||
                  ranges_overlap(c, n * sizeof *c, img,
                                 (size_t)w * h * sizeof *img)))
        return cudaErrorInvalidValue;
    if (mode != RENDER_FLAT && mode != RENDER_SNOW)
        return cudaErrorInvalidValue;
    return cudaSuccess;
}
static dim3 tile_grid(int w, int h)
{
    return dim3((unsigned)ceil_div(w, kTile), (unsigned)ceil_div(h, kTile));
}

// <<Load a circle and store a pixel>>
__device__ __forceinline__ circle load_circle(const circle *c, size_t i)
{
    const float4 *p = reinterpret_cast<const float4 *>(c + i);
    const float4 a = __ldg(p), b = __ldg(p + 1);
    return circle{a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
}
__device__ __forceinline__ void store_pixel(rgba *img, int w, int x, int y,
                                            rgba p)
{
    reinterpret_cast<float4 *>(img)[(size_t)y * w + x] =
        make_float4(p.r, p.g, p.b, p.a);
}
// A circle into shared memory (16-byte aligned) as two 16-byte stores.
__device__ __forceinline__ void store_shared_circle(circle *s, circle c)
{
    float4 *q = reinterpret_cast<float4 *>(s);
    q[0] = make_float4(c.x, c.y, c.radius, c.alpha);
    q[1] = make_float4(c.red, c.green, c.blue, c.z);
}

// <<Wrong on purpose: a thread per circle>>
__global__ void clear_kernel(rgba *img, size_t pixels, rgba bg)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
         i < pixels; i += (size_t)gridDim.x * blockDim.x)
        reinterpret_cast<float4 *>(img)[i] =
            make_float4(bg.r, bg.g, bg.b, bg.a);
}
__global__ void per_circle_wrong_kernel(const circle *cs, size_t n,
                                        render_mode mode, rgba *img, int w,
                                        int h, float iw, float ih)
{
    const size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (k >= n) return;
    const circle c = load_circle(cs, k);
    const pixbox b = sh_box(&c, w, h);
    for (int y = b.y0; y < b.y1; y++)
        for (int x = b.x0; x < b.x1; x++) {
            rgba p = img[(size_t)y * w + x];              // read ...
            if (sh_blend(&c, mode, sh_centre(x, iw), sh_centre(y, ih), &p))
                store_pixel(img, w, x, y, p);             // ... race
        }
}
extern "C" cudaError_t render_per_circle_wrong(
    const circle *circles, size_t n, render_mode mode, rgba background,
    rgba *image, int width, int height, cudaStream_t stream)
{
    BOOK_TRY(render_check(circles, n, mode, image, width, height));
    BOOK_CLEAR_TO_LAUNCH();
    clear_kernel<<<1024, 256, 0, stream>>>(image, (size_t)width * height,
                                           background);
    const unsigned blocks = (unsigned)ceil_div(n, 256);
    if (n > 0)
        per_circle_wrong_kernel<<<blocks, 256, 0, stream>>>(
            circles, n, mode, image, width, height, 1.0f / (float)width,
            1.0f / (float)height);
    return cudaGetLastError();
}

// <<A thread per pixel>>
__global__ void per_pixel_kernel(const circle *cs, size_t n,
                                 render_mode mode, rgba bg, rgba *img,
                                 int w, int h, float iw, float ih)
{
    const int x = blockIdx.x * kTile + threadIdx.x % kTile;
    const int y = blockIdx.y * kTile + threadIdx.x / kTile;
    if (x >= w || y >= h) return;
    const float px = sh_centre(x, iw), py = sh_centre(y, ih);
    rgba p = bg;
    for (size_t k = 0; k < n; k++) {
        const circle c = load_circle(cs, k);      // the same for the warp
        sh_blend(&c, mode, px, py, &p);
    }
    store_pixel(img, w, x, y, p);
}
extern "C" cudaError_t render_per_pixel(const circle *circles, size_t n,
                                        render_mode mode, rgba background,
                                        rgba *image, int width, int height,
                                        cudaStream_t stream)
{
    BOOK_TRY(render_check(circles, n, mode, image, width, height));
    BOOK_CLEAR_TO_LAUNCH();
    per_pixel_kernel<<<tile_grid(width, height), kThreads, 0, stream>>>(
        circles, n, mode, background, image, width, height,
        1.0f / (float)width, 1.0f / (float)height);
    return cudaGetLastError();
}

// <<A block per tile, batches in shared memory>>
__global__ void tile_batch_kernel(const circle *cs, size_t n,
                                  render_mode mode, rgba bg, rgba *img,
                                  int w, int h, float iw, float ih)
{
    __shared__ __align__(16) circle batch[kThreads];
    __shared__ int hit[kThreads];
    const int t = threadIdx.x;
    const int tx = blockIdx.x * kTile, ty = blockIdx.y * kTile;
    const int x = tx + t % kTile, y = ty + t / kTile;
    const float px = sh_centre(x, iw), py = sh_centre(y, ih);
    rgba p = bg;
    for (size_t b = 0; b < n; b += kThreads) {
        const int m = (int)min((size_t)kThreads, n - b);
        if (t < m) {
            const circle c = load_circle(cs, b + t);
            store_shared_circle(&batch[t], c);
            hit[t] = sh_box_meets(sh_box(&c, w, h), tx, ty, tx + kTile,
                                  ty + kTile);
        }
        __syncthreads();
        for (int j = 0; j < m; j++)
            if (hit[j]) sh_blend(&batch[j], mode, px, py, &p);
        __syncthreads();
    }
    if (x < w && y < h) store_pixel(img, w, x, y, p);
}
extern "C" cudaError_t render_tile_batch(const circle *circles, size_t n,
                                         render_mode mode, rgba background,
                                         rgba *image, int width, int height,
                                         cudaStream_t stream)
{
    BOOK_TRY(render_check(circles, n, mode, image, width, height));
    BOOK_CLEAR_TO_LAUNCH();
    tile_batch_kernel<<<tile_grid(width, height), kThreads, 0, stream>>>(
        circles, n, mode, background, image, width, height,
        1.0f / (float)width, 1.0f / (float)height);
    return cudaGetLastError();
}

// <<Block-wide exclusive scan of hit flags>>
// Exclusive scan of v over the block's 256 threads; *total gets the sum.
// Contains two barriers; every thread of the block must call it.
__device__ __forceinline__ int block_exclusive_scan(int v, int *warp_sums,
                                                    int *total)
{
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int inc = scan_warp_inclusive(v);
    if (lane == 31) warp_sums[warp] = inc;
    __syncthreads();
    if (warp == 0) {
        int s = lane < kThreads / 32 ? warp_sums[lane] : 0;
        s = scan_warp_inclusive(s);
        if (lane < kThreads / 32) warp_sums[lane] = s;
    }
    __syncthreads();
    *total = warp_sums[kThreads / 32 - 1];
    return (warp ? warp_sums[warp - 1] : 0) + inc - v;
}

// <<Shade a tile from a run of circles, hits packed by a scan>>
__device__ __forceinline__ void shade_tile(
    const circle *cs, const int *list, size_t begin, size_t end,
    render_mode mode, rgba bg, rgba *img, int w, int h, float iw, float ih)
{
    __shared__ __align__(16) circle hits[kThreads];
    __shared__ int warp_sums[kThreads / 32];
    const int t = threadIdx.x;
    const int tx = blockIdx.x * kTile, ty = blockIdx.y * kTile;
    const int x = tx + t % kTile, y = ty + t / kTile;
    const float px = sh_centre(x, iw), py = sh_centre(y, ih);
    rgba p = bg;
    for (size_t b = begin; b < end; b += kThreads) {
        // <<Test one circle of the batch and pack the hits>>
        circle c = circle{};
        int hit = 0, count;
        if (b + t < end) {
            c = load_circle(cs, list ? (size_t)list[b + t] : b + t);
            hit = sh_box_meets(sh_box(&c, w, h), tx, ty, tx + kTile, ty + kTile);
        }
        const int slot = block_exclusive_scan(hit, warp_sums, &count);
        if (hit) store_shared_circle(&hits[slot], c);
        __syncthreads();
        for (int j = 0; j < count; j++) sh_blend(&hits[j], mode, px, py, &p);
        __syncthreads();
    }
    if (x < w && y < h) store_pixel(img, w, x, y, p);
}

// <<A block per tile, batches packed by a scan>>
__global__ void tile_scan_kernel(const circle *cs, size_t n,
                                 render_mode mode, rgba bg, rgba *img,
                                 int w, int h, float iw, float ih)
{
    shade_tile(cs, NULL, 0, n, mode, bg, img, w, h, iw, ih);
}
extern "C" cudaError_t render_tile_scan(const circle *circles, size_t n,
                                        render_mode mode, rgba background,
                                        rgba *image, int width, int height,
                                        cudaStream_t stream)
{
    BOOK_TRY(render_check(circles, n, mode, image, width, height));
    BOOK_CLEAR_TO_LAUNCH();
    tile_scan_kernel<<<tile_grid(width, height), kThreads, 0, stream>>>(
        circles, n, mode, background, image, width, height,
        1.0f / (float)width, 1.0f / (float)height);
    return cudaGetLastError();
}

// <<Global binning: flags of circles against bins>>
struct bins { int side, nx, ny; };       // bin side in pixels, bins a row
static bins make_bins(int w, int h)
{
    const int tiles = (int)ceil_div(w > h ? w : h, kTile);
    const int side = (int)ceil_div(tiles, 8) * kTile;
    return bins{side, (int)ceil_div(w, side), (int)ceil_div(h, side)};
}
__global__ void bin_flags_kernel(const circle *cs, size_t n, bins g,
                                 int *flags, int w, int h)
{
    const size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (k >= n) return;
    const circle c = load_circle(cs, k);
    const pixbox b = sh_box(&c, w, h);
    for (int by = 0; by < g.ny; by++)
        for (int bx = 0; bx < g.nx; bx++)
            flags[(size_t)(by * g.nx + bx) * n + k] = sh_box_meets(
                b, bx * g.side, by * g.side, (bx + 1) * g.side,
                (by + 1) * g.side);
}

// <<Global binning: scatter circle indices into bin lists>>
__global__ void bin_scatter_kernel(const int *flags, const int *pos,
                                   size_t n, int *lists)
{
    const size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const size_t e = blockIdx.y * n + k;          // blockIdx.y: the bin
    if (k < n && flags[e]) lists[pos[e]] = (int)k;
}

// <<Global binning: shade each tile from its bin's list>>
__global__ void bin_shade_kernel(const circle *cs, const int *flags,
                                 const int *pos, const int *lists, size_t n,
                                 bins g, render_mode mode, rgba bg,
                                 rgba *img, int w, int h, float iw, float ih)
{
    const int bin = (int)(blockIdx.y * kTile / g.side) * g.nx +
                    (int)(blockIdx.x * kTile / g.side);
    const size_t last = (size_t)g.nx * g.ny * n - 1;
    const size_t begin = (size_t)pos[(size_t)bin * n];
    const size_t end = bin + 1 < g.nx * g.ny
                           ? (size_t)pos[(size_t)(bin + 1) * n]
                           : (size_t)(pos[last] + flags[last]);
    shade_tile(cs, lists, begin, end, mode, bg, img, w, h, iw, ih);
}

// <<Global binning: the launcher>>
struct bin_scratch {
    int *flags, *pos, *lists;         // e = bins x n ints each
    tile_status<int> st;              // the scan of the flags
};
static bin_scratch bin_layout(book_carve *c, size_t e)
{
    bin_scratch s;
    s.flags = (int *)book_carve_take(c, e * sizeof(int), 256);
    s.pos = (int *)book_carve_take(c, e * sizeof(int), 256);
    s.lists = (int *)book_carve_take(c, e * sizeof(int), 256);
    s.st = lookback_layout<int>(c, e);
    return s;
}
extern "C" size_t render_binned_scratch_bytes(size_t n, int width,
                                              int height)
{
    if (n < RENDER_BIN_MIN || n > RENDER_MAX_CIRCLES || width < 1 ||
        height < 1 || width > RENDER_MAX_SIDE || height > RENDER_MAX_SIDE)
        return 0;
    const bins g = make_bins(width, height);
    book_carve c = {NULL, 0, 0};
    bin_layout(&c, (size_t)g.nx * g.ny * n);
    return book_carve_size(&c);
}

// <<Global binning: check, bin, scan, scatter, shade>>
extern "C" cudaError_t render_binned(const circle *circles, size_t n,
                                     render_mode mode, rgba background,
                                     rgba *image, int width, int height,
                                     void *scratch, size_t bytes,
                                     cudaStream_t stream)
{
    if (n < RENDER_BIN_MIN)
        return render_tile_scan(circles, n, mode, background, image, width,
                                height, stream);
    BOOK_TRY(render_check(circles, n, mode, image, width, height));
    const size_t need = render_binned_scratch_bytes(n, width, height);
    if (!scratch || !is_aligned(scratch, 256) || bytes < need)
        return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    // <<Run the four passes of the binned renderer>>
    const bins g = make_bins(width, height);
    const size_t e = (size_t)g.nx * g.ny * n;
    book_carve c = {(char *)scratch, 0, 0};
    const bin_scratch s = bin_layout(&c, e);
    int *flags = s.flags, *pos = s.pos, *lists = s.lists;
    const unsigned blocks = (unsigned)ceil_div(n, 256);
    bin_flags_kernel<<<blocks, 256, 0, stream>>>(circles, n, g, flags, width,
                                                 height);
    BOOK_TRY(cudaGetLastError());
    BOOK_TRY(scan_lookback<int>(flags, pos, e, true, s.st, true, stream));
    const dim3 scatter(blocks, (unsigned)(g.nx * g.ny));   // y: the bin
    bin_scatter_kernel<<<scatter, 256, 0, stream>>>(flags, pos, n, lists);
    BOOK_TRY(cudaGetLastError());
    bin_shade_kernel<<<tile_grid(width, height), kThreads, 0, stream>>>(
        circles, flags, pos, lists, n, g, mode, background, image, width,
        height, 1.0f / (float)width, 1.0f / (float)height);
    return cudaGetLastError();
}
