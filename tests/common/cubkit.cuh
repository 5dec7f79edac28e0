// cubkit.cuh -- the one way the benchmarks call CUB's radix sort, so that
// the sort and merge chapters quote one CUB number.
//
// cub::DeviceRadixSort takes the count as a template type, and the type
// picks CUB's offsets and with them its tuning: for 32-bit keys, an int
// count gives 32-bit offsets and Onesweep tiles of 384 threads x 20 items
// (pairs of 32-bit values: 384 x 23); a size_t count gives 64-bit offsets
// and 384 x 19 (pairs: 384 x 17), CCCL 3.0's
// cub/device/dispatch/tuning/tuning_radix_sort.cuh, OnesweepPolicyKey32:
// "KEYS_ONLY ? 20 - OFFSET_64BIT - FLOAT_KEYS".  CUB's own radix sort
// benchmarks use an int count (offset_t = std::int32_t in
// cub/benchmarks/bench/radix_sort/keys.cu), so the book does too:
// bk_cub_sort_keys and bk_cub_sort_pairs pass an int, and refuse
// n > INT_MAX with cudaErrorInvalidValue (every benchmark sorts at most
// 2^30).  The _wide forms pass a size_t, the other way; the sort benchmark
// times both and writes what the other way costs (sort-cub.csv).
//
// Out of place: keys_in (and vals_in) are read, keys_out (and vals_out)
// written.  temp == NULL asks for *bytes, as CUB does.  Everything is
// queued on stream; nothing waits, so these are fit for benchkit's held
// samples.
#ifndef CUBKIT_CUH
#define CUBKIT_CUH
#include <climits>
#include <cstddef>
#include <cub/device/device_radix_sort.cuh>

template <typename K>
static inline cudaError_t bk_cub_sort_keys(void *temp, size_t *bytes,
                                           const K *keys_in, K *keys_out,
                                           size_t n, cudaStream_t stream = 0)
{
    if (n > (size_t)INT_MAX) return cudaErrorInvalidValue;
    return cub::DeviceRadixSort::SortKeys(temp, *bytes, keys_in, keys_out,
                                          (int)n, 0, (int)sizeof(K) * 8,
                                          stream);
}

template <typename K, typename V>
static inline cudaError_t bk_cub_sort_pairs(void *temp, size_t *bytes,
                                            const K *keys_in, K *keys_out,
                                            const V *vals_in, V *vals_out,
                                            size_t n, cudaStream_t stream = 0)
{
    if (n > (size_t)INT_MAX) return cudaErrorInvalidValue;
    return cub::DeviceRadixSort::SortPairs(temp, *bytes, keys_in, keys_out,
                                           vals_in, vals_out, (int)n, 0,
                                           (int)sizeof(K) * 8, stream);
}

// The other way: a 64-bit count (64-bit offsets, CUB's other tuning).
template <typename K>
static inline cudaError_t bk_cub_sort_keys_wide(void *temp, size_t *bytes,
                                                const K *keys_in, K *keys_out,
                                                size_t n,
                                                cudaStream_t stream = 0)
{
    return cub::DeviceRadixSort::SortKeys(temp, *bytes, keys_in, keys_out, n,
                                          0, (int)sizeof(K) * 8, stream);
}

template <typename K, typename V>
static inline cudaError_t bk_cub_sort_pairs_wide(void *temp, size_t *bytes,
                                                 const K *keys_in, K *keys_out,
                                                 const V *vals_in, V *vals_out,
                                                 size_t n,
                                                 cudaStream_t stream = 0)
{
    return cub::DeviceRadixSort::SortPairs(temp, *bytes, keys_in, keys_out,
                                           vals_in, vals_out, n, 0,
                                           (int)sizeof(K) * 8, stream);
}
#endif
