// launch.cuh -- host templates that launch the device-wide scans.
#ifndef SCAN_LAUNCH_CUH
#define SCAN_LAUNCH_CUH
#include "common/book.h"
#include "scan/device_scan.cuh"
#include "scan/scratch.cuh"
#include "scan/tiles.cuh"

// <<Device-wide scans on the host>>
template <typename T>
cudaError_t scan_propagate(const T *in, T *out, size_t n, bool exclusive,
                           T *const *sums, cudaStream_t stream)
{
    const unsigned tiles = (unsigned)ceil_div(n, dev_tile<T>::elems);
    const bool aligned = is_aligned(in, 16) && is_aligned(out, 16);
    tile_ctx<T> c = {};
    c.sums = tiles > 1 ? sums[0] : nullptr;
    BOOK_CLEAR_TO_LAUNCH();
    scan_device_kernel<kPrefixNone, T><<<tiles, kDevThreads, 0, stream>>>(
        in, out, n, exclusive, aligned, c);
    BOOK_TRY(cudaGetLastError());
    if (tiles == 1) return cudaSuccess;
    BOOK_TRY(scan_propagate<T>(c.sums, c.sums, tiles, true, sums + 1,
                               stream));
    add_tile_prefix_kernel<T><<<tiles, kDevThreads, 0, stream>>>(
        out, n, aligned, c.sums);
    return cudaGetLastError();
}

template <typename T>
cudaError_t scan_reduce_then_scan(const T *in, T *out, size_t n,
                                  bool exclusive, T *const *level,
                                  cudaStream_t stream)
{
    const unsigned tiles = (unsigned)ceil_div(n, dev_tile<T>::elems);
    if (tiles == 1)
        return scan_propagate(in, out, n, exclusive, level, stream);
    const bool aligned = is_aligned(in, 16) && is_aligned(out, 16);
    tile_ctx<T> c = {};
    T *sums = level[0];
    BOOK_CLEAR_TO_LAUNCH();
    reduce_tiles_kernel<T><<<tiles, kDevThreads, 0, stream>>>(in, n, aligned,
                                                              sums);
    BOOK_TRY(cudaGetLastError());
    BOOK_TRY(scan_reduce_then_scan<T>(sums, sums, tiles, true, level + 1,
                                      stream));
    c.seeds = sums;
    scan_device_kernel<kPrefixSeeded, T><<<tiles, kDevThreads, 0, stream>>>(
        in, out, n, exclusive, aligned, c);
    return cudaGetLastError();
}
template <typename T>
cudaError_t scan_lookback(const T *in, T *out, size_t n, bool exclusive,
                          const tile_status<T> &st, bool packed,
                          cudaStream_t stream)
{
    const unsigned tiles = (unsigned)ceil_div(n, dev_tile<T>::elems);
    tile_ctx<T> c = {};
    c.st = st;
    BOOK_CLEAR_TO_LAUNCH();
    BOOK_TRY(lookback_reset<T>(st, n, stream));
    const bool aligned = is_aligned(in, 16) && is_aligned(out, 16);
    (void)packed;                 // 64-bit values never fit the word
    if constexpr (sizeof(T) == 4) {
        if (packed) {
            auto k = scan_device_kernel<kPrefixLookBackPacked, T>;
            k<<<tiles, kDevThreads, 0, stream>>>(in, out, n, exclusive,
                                                 aligned, c);
            return cudaGetLastError();
        }
    }
    scan_device_kernel<kPrefixLookBack, T><<<tiles, kDevThreads, 0, stream>>>(
        in, out, n, exclusive, aligned, c);
    return cudaGetLastError();
}

// <<Fill the GPU once with resident blocks>>
template <typename K>
cudaError_t resident_grid(K kernel, size_t tiles, unsigned *grid)
{
    int sms, per_sm;
    BOOK_TRY(book_sm_count(&sms));
    BOOK_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, kernel, kDevThreads, 0));
    const size_t g = (size_t)sms * (per_sm > 0 ? per_sm : 1);
    *grid = (unsigned)(g < tiles ? g : tiles);
    return cudaSuccess;
}

// <<Launch the single pass with tile numbers fetched ahead>>
template <typename T>
cudaError_t scan_lookback_ahead(const T *in, T *out, size_t n,
                                bool exclusive, const tile_status<T> &st,
                                cudaStream_t stream)
{
    if constexpr (sizeof(T) != 4) {
        return scan_lookback(in, out, n, exclusive, st, false, stream);
    } else {
        const size_t tiles = ceil_div(n, dev_tile<T>::elems);
        tile_ctx<T> c = {};
        c.st = st;
        BOOK_CLEAR_TO_LAUNCH();
        BOOK_TRY(lookback_reset<T>(st, n, stream));
        const bool aligned = is_aligned(in, 16) && is_aligned(out, 16);
        unsigned grid;
        BOOK_TRY(resident_grid(scan_ahead_kernel<T>, tiles, &grid));
        scan_ahead_kernel<T><<<grid, kDevThreads, 0, stream>>>(
            in, out, n, exclusive, aligned, c);
        return cudaGetLastError();
    }
}

// <<Launch the single pass on staged tiles>>
template <typename T, Status STATUS>
cudaError_t scan_lookback_staged(const T *in, T *out, size_t n,
                                 bool exclusive, const tile_status<T> &st,
                                 cudaStream_t stream)
{
    const size_t tiles = ceil_div(n, st_tile<T>::elems);
    constexpr auto kernel = scan_staged_kernel<T, STATUS>;
    BOOK_TRY(st_opt_in<kernel>());        // refused: nothing is queued
    BOOK_CLEAR_TO_LAUNCH();
    BOOK_TRY(lookback_reset<T>(st, n, stream));
    const bool aligned = is_aligned(in, 16) && is_aligned(out, 16);
    kernel<<<(unsigned)tiles, kStThreads, kStBytes, stream>>>(
        in, out, n, exclusive, aligned, st);
    return cudaGetLastError();
}

// <<Launch the single pass on raked tiles>>
template <typename T>
cudaError_t scan_lookback_raked(const T *in, T *out, size_t n,
                                bool exclusive, const tile_status<T> &st,
                                cudaStream_t stream)
{
    const size_t tiles = ceil_div(n, rk_tile<T>::elems);
    BOOK_TRY(st_opt_in<scan_raked_kernel<T>>());   // refused: nothing queued
    BOOK_CLEAR_TO_LAUNCH();
    BOOK_TRY(lookback_reset<T>(st, n, stream));
    const bool aligned = is_aligned(in, 16) && is_aligned(out, 16);
    scan_raked_kernel<T><<<(unsigned)tiles, kRkThreads, kStBytes, stream>>>(
        in, out, n, exclusive, aligned, st);
    return cudaGetLastError();
}
#endif
