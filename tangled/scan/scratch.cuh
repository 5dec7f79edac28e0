// scratch.cuh -- the caller's scratch buffer: tile totals, tile status.
#ifndef SCAN_SCRATCH_CUH
#define SCAN_SCRATCH_CUH
#include "common/book.h"
#include "scan/tile_status.cuh"
#include "scan/tiles.cuh"

// <<Scratch layout of the device-wide scans>>
static inline size_t scan_align(size_t bytes)
{
    return ceil_div(bytes, 256) * 256;
}

// Bytes for the tile totals of every level of a recursive scan.
template <typename T> size_t scan_levels_bytes(size_t n)
{
    size_t bytes = 0;
    while (n > dev_tile<T>::elems) {
        n = ceil_div(n, dev_tile<T>::elems);
        bytes += scan_align(n * sizeof(T));
    }
    return bytes;
}
// [next, 16 bytes | flags or packed words, 8 bytes a tile]
// [aggregates] [inclusive prefixes], each slice 256-byte aligned.
template <typename T> size_t scan_lookback_bytes(size_t n)
{
    const size_t tiles = ceil_div(n, dev_tile<T>::elems);
    return scan_align(16 + 8 * tiles) + 2 * scan_align(tiles * sizeof(T));
}
template <typename T> tile_status<T> lookback_status(char *scratch,
                                                     size_t n)
{
    const size_t tiles = ceil_div(n, dev_tile<T>::elems);
    const size_t head = scan_align(16 + 8 * tiles);
    const size_t vals = scan_align(tiles * sizeof(T));
    tile_status<T> st;
    st.next = (unsigned long long *)scratch;
    st.flag = (unsigned *)(scratch + 16);
    st.word = (unsigned long long *)(scratch + 16);
    st.aggregate = (T *)(scratch + head);
    st.inclusive = (T *)(scratch + head + vals);
    return st;
}
// Every launch starts with tile number 0 and every status invalid: the
// reset is queued on the launch's stream, before its kernel.
template <typename T>
cudaError_t lookback_reset(char *scratch, size_t n, cudaStream_t stream)
{
    const size_t tiles = ceil_div(n, dev_tile<T>::elems);
    return cudaMemsetAsync(scratch, 0, 16 + 8 * tiles, stream);
}
#endif
