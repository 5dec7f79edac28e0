// scratch.cuh -- the caller's scratch buffer: tile totals, tile status.
#ifndef SCAN_SCRATCH_CUH
#define SCAN_SCRATCH_CUH
#include "common/book.h"
#include "common/carve.h"
#include "scan/tile_status.cuh"
#include "scan/tiles.cuh"

// <<Scratch layout of the device-wide scans>>
constexpr int kScanLevels = 8;    // 2048 or more elements a tile: 2^64
template <typename T> struct scan_levels {
    T *sums[kScanLevels];         // level k's tile totals
};
template <typename T>
void levels_layout(book_carve *c, size_t n, scan_levels<T> *l)
{
    for (int k = 0; n > dev_tile<T>::elems && k < kScanLevels; k++) {
        n = ceil_div(n, dev_tile<T>::elems);
        l->sums[k] = (T *)book_carve_take(c, n * sizeof(T), 256);
    }
}
// [next, 16 bytes | flags or packed words, 8 bytes a tile]
// [aggregates] [inclusive prefixes], each slice 256-byte aligned.
template <typename T>
tile_status<T> lookback_layout(book_carve *c, size_t n)
{
    const size_t tiles = ceil_div(n, dev_tile<T>::elems);
    tile_status<T> st;
    char *head = (char *)book_carve_take(c, 16 + 8 * tiles, 256);
    st.next = (unsigned long long *)head;
    st.word = (unsigned long long *)(head ? head + 16 : NULL);
    st.flag = (unsigned *)st.word;
    st.aggregate = (T *)book_carve_take(c, tiles * sizeof(T), 256);
    st.inclusive = (T *)book_carve_take(c, tiles * sizeof(T), 256);
    return st;
}
template <typename T> size_t scan_lookback_bytes(size_t n)
{
    book_carve c = {NULL, 0, 0};
    lookback_layout<T>(&c, n);
    return book_carve_size(&c);
}
// Every launch starts with tile number 0 and every status invalid: the
// reset is queued on the launch's stream, before its kernel.  The flags
// follow the counter: one memset clears both.
template <typename T>
cudaError_t lookback_reset(const tile_status<T> &st, size_t n,
                           cudaStream_t stream)
{
    const size_t tiles = ceil_div(n, dev_tile<T>::elems);
    return cudaMemsetAsync(st.next, 0, 16 + 8 * tiles, stream);
}
#endif
