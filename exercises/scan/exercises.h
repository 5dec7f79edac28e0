/* exercises.h -- the scan chapter's code exercises: the launchers a
 * student writes in exercises/scan/NAME.cu; tests/scan/ex_NAME.c tests
 * them.  Device pointers; n == 0 does nothing and succeeds; NULL pointers
 * or a kind other than SCAN_INCLUSIVE and SCAN_EXCLUSIVE:
 * cudaErrorInvalidValue.  Each launcher takes the stream its work is
 * queued on as its last argument (0: the default stream), and returns
 * without waiting for it. */
#ifndef EX_SCAN_H
#define EX_SCAN_H
#include <cuda_runtime_api.h>
#include <stddef.h>
#include "scan/scan.h"
#ifdef __cplusplus
extern "C" {
#endif
/* Exercise 1 (hs-double): like scan_tiles_f32 with
 * SCAN_TILE_HILLIS_STEELE: each tile of SCAN_TILE elements scanned on its
 * own (sum), by Hillis-Steele on two shared arrays, one barrier a step. */
cudaError_t scan_tiles_hs_double(const float *in, float *out, size_t n,
                                 scan_kind kind, cudaStream_t stream);
/* Exercise 4 (max-scan): the device-wide scan with max for +: out[i] =
 * the largest of in[0..i] (inclusive) or of in[0..i) (exclusive, INT_MIN
 * for i = 0, the identity).  n < 2^31 (else cudaErrorInvalidValue);
 * scratch of at least scan_max_scratch_bytes(n) bytes. */
static inline size_t scan_max_scratch_bytes(size_t n)
{
    return 4 * ((n + 1023) / 1024) + 4;
}
cudaError_t scan_max_i32(const int *in, int *out, size_t n, scan_kind kind,
                         void *scratch, size_t bytes, cudaStream_t stream);
#ifdef __cplusplus
}
#endif
#endif
