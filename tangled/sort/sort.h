/* sort.h -- radix sort of 32- and 64-bit keys, alone or with 32-bit
 * values.  Device pointers.  keys_out may equal keys_in (and values_out
 * values_in): the sort is then in place; any other overlap among the
 * inputs, the outputs and temp is refused.  Pointers aligned to their
 * element; temp 256-byte aligned, of sort_temp_bytes(n, ...) bytes.
 * n up to SORT_MAX_N.  Bad arguments: cudaErrorInvalidValue, nothing
 * launched.  n = 0 launches nothing.  All work on stream s, in order. */
#ifndef SORT_H
#define SORT_H
#include <cuda_runtime_api.h>
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif

// <<Sort limits and temporary storage>>
#define SORT_MAX_N ((size_t)1 << 36)
/* Bytes of temp any launcher below needs for n keys of key_bytes (4 or
 * 8), with values (1) or without (0); 0 when n > SORT_MAX_N or
 * key_bytes is neither.  It includes the textbook sorts' table and scan
 * scratch (32-bit keys alone, n <= INT_MAX: 2 x 256 x ceil(n / 4096)
 * words, 128 MiB at 2^28 keys), which the Onesweep launchers never
 * touch; sort_onesweep_temp_bytes is their size alone, a prefix of the
 * same layout (all but the two textbook launchers). */
size_t sort_temp_bytes(size_t n, size_t key_bytes, int values);
size_t sort_onesweep_temp_bytes(size_t n, size_t key_bytes, int values);

// <<Sort launchers>>
/* The Onesweep sort, ascending.  Floats in IEEE total order: -NaN, -inf,
 * ..., -0.0, +0.0, ..., +inf, +NaN (negative NaNs in descending payload
 * order, positive ones in ascending order, as IEEE 754 totalOrder).
 * Stable: equal keys keep their input order, and so do their values. */
cudaError_t sort_keys_u32(const unsigned *in, unsigned *out, size_t n,
                          void *temp, size_t temp_bytes, cudaStream_t s);
/* The same, its peers found by __match_any_sync instead of ballots; and
 * with tiles of 256 x 16 and 512 x 12 keys instead of 384 x 23. */
cudaError_t sort_keys_u32_match(const unsigned *in, unsigned *out,
                                size_t n, void *temp, size_t temp_bytes,
                                cudaStream_t s);
cudaError_t sort_keys_u32_256x16(const unsigned *in, unsigned *out,
                                 size_t n, void *temp, size_t temp_bytes,
                                 cudaStream_t s);
cudaError_t sort_keys_u32_512x12(const unsigned *in, unsigned *out,
                                 size_t n, void *temp, size_t temp_bytes,
                                 cudaStream_t s);
/* The same with a look-back that reads one word at a time, not four. */
cudaError_t sort_keys_u32_window1(const unsigned *in, unsigned *out,
                                  size_t n, void *temp, size_t temp_bytes,
                                  cudaStream_t s);
cudaError_t sort_keys_i32(const int *in, int *out, size_t n, void *temp,
                          size_t temp_bytes, cudaStream_t s);
cudaError_t sort_keys_f32(const float *in, float *out, size_t n,
                          void *temp, size_t temp_bytes, cudaStream_t s);
cudaError_t sort_keys_u64(const unsigned long long *in,
                          unsigned long long *out, size_t n, void *temp,
                          size_t temp_bytes, cudaStream_t s);
cudaError_t sort_pairs_u32(const unsigned *keys_in, unsigned *keys_out,
                           const unsigned *values_in, unsigned *values_out,
                           size_t n, void *temp, size_t temp_bytes,
                           cudaStream_t s);
cudaError_t sort_pairs_f32(const float *keys_in, float *keys_out,
                           const unsigned *values_in, unsigned *values_out,
                           size_t n, void *temp, size_t temp_bytes,
                           cudaStream_t s);
cudaError_t sort_pairs_u64(const unsigned long long *keys_in,
                           unsigned long long *keys_out,
                           const unsigned *values_in, unsigned *values_out,
                           size_t n, void *temp, size_t temp_bytes,
                           cudaStream_t s);
/* The textbook sort, three kernels per digit, unsigned keys, n below
 * 2^31, on stream s like the others (the scan it calls takes the stream
 * too): larger n, cudaErrorInvalidValue.  Scattered from registers, and
 * staged in shared memory first. */
cudaError_t sort_keys_u32_textbook_scattered(const unsigned *in,
                                             unsigned *out, size_t n,
                                             void *temp, size_t temp_bytes,
                                             cudaStream_t s);
cudaError_t sort_keys_u32_textbook(const unsigned *in, unsigned *out,
                                   size_t n, void *temp, size_t temp_bytes,
                                   cudaStream_t s);
/* Wrong on purpose: Onesweep that ranks a tile's keys out of order. */
cudaError_t sort_keys_u32_wrong_unstable(const unsigned *in, unsigned *out,
                                         size_t n, void *temp,
                                         size_t temp_bytes, cudaStream_t s);
#ifdef __cplusplus
}
#endif
#endif
