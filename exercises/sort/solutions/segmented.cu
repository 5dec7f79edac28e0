// Solution to the sort chapter's exercise 2: a segmented sort by one sort
// of 64-bit keys.  The key (seg << 32) | key sorts by the segment first
// and by the key within it, and the radix sort's eight passes cost what
// they cost for any 64-bit key: no segment is too small or too large.
// Pack, sort, take the low halves.
#include "common/book.h"
#include "sort/sort.h"
#include "sort/exercises.h"

__global__ void segmented_pack_kernel(const unsigned *keys,
                                      const unsigned *seg, size_t n,
                                      unsigned long long *packed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        packed[i] = (unsigned long long)seg[i] << 32 | keys[i];
}
__global__ void segmented_unpack_kernel(const unsigned long long *packed,
                                        size_t n, unsigned *out)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = (unsigned)packed[i];
}

extern "C" cudaError_t segmented_sort_u32(const unsigned *keys,
                                          const unsigned *seg,
                                          unsigned *out, size_t n,
                                          void *temp, size_t bytes,
                                          cudaStream_t stream)
{
    if (n > SORT_MAX_N) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    if (!keys || !seg || !out || !temp || !is_aligned(temp, 256) ||
        bytes < segmented_temp_bytes(n))
        return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    unsigned long long *a = (unsigned long long *)temp;
    unsigned long long *b = (unsigned long long *)((char *)temp +
                                                   ex_round256(8 * n));
    void *rest = (char *)temp + 2 * ex_round256(8 * n);
    const unsigned grid = (unsigned)(ceil_div(n, 256) < 4096
                                         ? ceil_div(n, 256) : 4096);
    segmented_pack_kernel<<<grid, 256, 0, stream>>>(keys, seg, n, a);
    BOOK_TRY(cudaGetLastError());
    BOOK_TRY(sort_keys_u64(a, b, n, rest, sort_temp_bytes(n, 8, 0), stream));
    segmented_unpack_kernel<<<grid, 256, 0, stream>>>(b, n, out);
    return cudaGetLastError();
}
