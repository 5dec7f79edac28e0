// flash_args.cuh -- what every bf16 attention launcher checks, the
// addresses of a head's rows in either layout, and the empty cases.
#pragma once
#include "common/book.h"
#include "flash/flash.h"
#include <math.h>
#include <stdint.h>

// <<Where a head's rows are>>
// The element offset of row 0 of head bh = b H + h of an array of S rows
// a head, and the elements from one row to the next.
static __host__ __device__ __forceinline__ size_t
flash_head(const flash_dims &a, size_t bh, size_t S)
{
    if (a.layout == FLASH_BHSD) return bh * S * a.D;
    return ((bh / a.H) * S * a.H + bh % a.H) * a.D;
}
static __host__ __device__ __forceinline__ size_t
flash_row_stride(const flash_dims &a)
{
    return a.layout == FLASH_BHSD ? a.D : a.H * a.D;
}

// <<Check what every bf16 attention launcher takes>>
// n = x y z w, or 0 where that overflows a size_t (or a factor is 0).
static inline size_t flash_mul4(size_t x, size_t y, size_t z, size_t w)
{
    size_t n = 1, f[4] = {x, y, z, w};
    for (int i = 0; i < 4; i++) {
        if (f[i] == 0 || n > SIZE_MAX / f[i]) return 0;
        n *= f[i];
    }
    return n;
}
static __global__ void flash_fill_kernel(float *p, size_t n, float x)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = x;
}
// cudaErrorInvalidValue for what no launcher takes (D must be one of the
// launcher's, 64 or 128); *done is set when nothing is left to do: the
// problem is empty, or Sk = 0 and the zeros (and lse = -inf) are written.
static inline cudaError_t flash_common_args(const book_bf16 *q,
                                            const book_bf16 *k,
                                            const book_bf16 *v,
                                            book_bf16 *o, float *lse,
                                            const flash_dims &a,
                                            cudaStream_t stream, int *done)
{
    *done = 1;
    const size_t lim = 2147483647u;
    if (a.layout != FLASH_BHSD && a.layout != FLASH_BSHD)
        return cudaErrorInvalidValue;
    if (a.D != 64 && a.D != 128) return cudaErrorInvalidValue;
    if (a.B > lim || a.H > lim || a.Sq > lim || a.Sk > lim)
        return cudaErrorInvalidValue;
    if (a.B == 0 || a.H == 0 || a.Sq == 0) return cudaSuccess;
    if (a.B * a.H > lim || a.B * a.H * ((a.Sq + 63) / 64) > lim)
        return cudaErrorInvalidValue;
    const size_t on = flash_mul4(a.B, a.H, a.Sq, a.D);
    const size_t kn = a.Sk ? flash_mul4(a.B, a.H, a.Sk, a.D) : 1;
    if (on == 0 || kn == 0 || on > SIZE_MAX / 2 || kn > SIZE_MAX / 2)
        return cudaErrorInvalidValue;
    if (o == NULL || (a.Sk > 0 && (q == NULL || k == NULL || v == NULL)))
        return cudaErrorInvalidValue;
    const void *ptrs[4] = {q, k, v, o};
    for (int i = 0; i < 4; i++)
        if ((uintptr_t)ptrs[i] % 16 != 0) return cudaErrorInvalidValue;
    if (lse != NULL && (uintptr_t)lse % 4 != 0) return cudaErrorInvalidValue;
    const size_t ob = 2 * on, kb = a.Sk ? 2 * kn : 0;
    const size_t lb = 4 * a.B * a.H * a.Sq;
    if (a.Sk > 0 && (ranges_overlap(o, ob, q, ob) ||
                     ranges_overlap(o, ob, k, kb) ||
                     ranges_overlap(o, ob, v, kb)))
        return cudaErrorInvalidValue;
    if (lse != NULL && (ranges_overlap(o, ob, lse, lb) ||
                        (a.Sk > 0 && (ranges_overlap(lse, lb, q, ob) ||
                                      ranges_overlap(lse, lb, k, kb) ||
                                      ranges_overlap(lse, lb, v, kb)))))
        return cudaErrorInvalidValue;
    if (a.Sk == 0) {
        BOOK_CLEAR_TO_LAUNCH();
        cudaError_t e = cudaMemsetAsync(o, 0, ob, stream);
        if (e != cudaSuccess || lse == NULL) return e;
        const size_t n = a.B * a.H * a.Sq;
        flash_fill_kernel<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(
            lse, n, -INFINITY);
        return cudaGetLastError();
    }
    *done = 0;
    return cudaSuccess;
}
