// conv.h -- valid cross-correlation ("convolution"), fp32.
// Pointers are device pointers, aligned to 4 bytes; the output overlaps no
// input.  cudaErrorInvalidValue for: a null or misaligned pointer, an
// overlap, a zero size, an input of more than CONV_MAX_N elements (n in
// 1D, h * w in 2D), a filter above the variant's limit, a 2D output of
// more than CONV2D_MAX_ROWS rows or CONV2D_MAX_COLS columns.  A filter
// larger than its input (k > n, kh > h or kw > w) has no output: cudaSuccess,
// nothing launched or written.  Every launcher takes the stream its work is
// queued on as its last argument (0: the default stream), and returns
// without waiting for it.  Variants with the filter in constant memory copy
// it there on that stream, into one copy per .cu file: two calls of them
// must not run at the same time (on two streams, or from two host threads).
#ifndef CONV_H
#define CONV_H
#include <cuda_runtime_api.h>
#include <stddef.h>
#define CONV_MAX_N ((size_t)1 << 38)      // elements of an input
#define CONV_MAX_TAPS 8192                // 1D filters in constant memory
#define CONV2D_MAX_K 32                   // kh, kw of the 2D tiled kernels
#define CONV2D_MAX_ROWS (65535 * 8)       // output rows of a 2D launch
#define CONV2D_MAX_COLS ((size_t)1 << 35) // output columns of a 2D launch
#ifdef __cplusplus
extern "C" {
#endif

// <<Declarations of the 1D launchers>>
// y[i] = sum_{j<k} x[i + j] w[j] for i < n - k + 1.  naive: any k; the
// others k <= CONV_MAX_TAPS.  _rotated: lane L of a warp starts at tap
// L mod k (the same sum in another order; constant-cache replays).
cudaError_t conv1d_naive(const float *x, size_t n, const float *w, size_t k,
                         float *y, cudaStream_t stream);
cudaError_t conv1d_const(const float *x, size_t n, const float *w, size_t k,
                         float *y, cudaStream_t stream);
cudaError_t conv1d_const_rotated(const float *x, size_t n, const float *w,
                                 size_t k, float *y, cudaStream_t stream);
cudaError_t conv1d_tiled(const float *x, size_t n, const float *w, size_t k,
                         float *y, cudaStream_t stream);
cudaError_t conv1d_window(const float *x, size_t n, const float *w, size_t k,
                          float *y, cudaStream_t stream);
// Zero-padded "same": n outputs, y[i] = sum_j x[i + j - (k - 1) / 2] w[j],
// x = 0 outside [0, n); any k <= CONV_MAX_TAPS, also k > n.
cudaError_t conv1d_same(const float *x, size_t n, const float *w, size_t k,
                        float *y, cudaStream_t stream);

// <<Declarations of the 2D launchers>>
// x: h x w row-major; f: kh x kw; y: (h - kh + 1) x (w - kw + 1).
// naive: any kh, kw; tiled, blocked and rows: kh, kw <= CONV2D_MAX_K.
cudaError_t conv2d_naive(const float *x, size_t h, size_t w, const float *f,
                         size_t kh, size_t kw, float *y, cudaStream_t stream);
cudaError_t conv2d_tiled(const float *x, size_t h, size_t w, const float *f,
                         size_t kh, size_t kw, float *y, cudaStream_t stream);
cudaError_t conv2d_blocked(const float *x, size_t h, size_t w,
                           const float *f, size_t kh, size_t kw, float *y,
                           cudaStream_t stream);
// rows: the same arguments; any 4-byte-aligned x and y (float4 loads and
// stores where x, y are 16-byte aligned and w, w - kw + 1 multiples of 4).
cudaError_t conv2d_rows(const float *x, size_t h, size_t w, const float *f,
                        size_t kh, size_t kw, float *y, cudaStream_t stream);
// The filter fcol (kh taps) times frow (kw taps), as two passes: along
// the rows into work (h x (w - kw + 1) floats), then down its columns into
// y.  Any kh and kw: a pass of up to CONV2D_MAX_K taps runs the blocked
// kernel, a wider one the naive kernel.  work is a fifth pointer, checked
// like the others; y and work overlap none of the other four.  The first
// pass writes h rows: h above CONV2D_MAX_ROWS is refused even when the
// output (h - kh + 1 rows) would be short enough.
cudaError_t conv2d_separable(const float *x, size_t h, size_t w,
                             const float *fcol, size_t kh, const float *frow,
                             size_t kw, float *work, float *y,
                             cudaStream_t stream);
// Wrong on purpose, the tiled kernel of seed 000: square k <= 32,
// h * w <= INT32_MAX (int indices), at most 65535 rows of blocks of
// 33 - k output rows; its shared tile gets no bytes.
cudaError_t conv2d_tiled_seed(const float *x, size_t h, size_t w,
                              const float *f, size_t k, float *y,
                              cudaStream_t stream);
#ifdef __cplusplus
}
#endif
#endif
