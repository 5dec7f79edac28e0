// Solution to the scan chapter's exercise 1: Hillis-Steele on two arrays.
// Step d reads only array p and writes only array 1 - p, so no thread can
// overwrite a value another thread has yet to read in the same step: the
// one barrier a step separates a step's writes from the next step's reads.
// One element a thread, SCAN_TILE threads a block, one block a tile.
#include "common/book.h"
#include "scan/scan.h"
#include "scan/exercises.h"

__global__ void hs_double_kernel(const float *in, float *out, size_t n,
                                 int exclusive)
{
    __shared__ float buf[2][SCAN_TILE];
    const unsigned t = threadIdx.x;
    const size_t i = blockIdx.x * (size_t)SCAN_TILE + t;
    int p = 0;
    buf[0][t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned d = 1; d < SCAN_TILE; d *= 2) {
        float x = buf[p][t];
        if (t >= d) x += buf[p][t - d];
        buf[1 - p][t] = x;
        p = 1 - p;
        __syncthreads();
    }
    if (i < n) out[i] = !exclusive ? buf[p][t] : t == 0 ? 0.0f : buf[p][t - 1];
}

extern "C" cudaError_t scan_tiles_hs_double(const float *in, float *out,
                                            size_t n, scan_kind kind,
                                            cudaStream_t stream)
{
    if (kind != SCAN_INCLUSIVE && kind != SCAN_EXCLUSIVE)
        return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    if (!in || !out) return cudaErrorInvalidValue;
    size_t grid = ceil_div(n, SCAN_TILE);
    if (grid > 2147483647u) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    hs_double_kernel<<<(unsigned)grid, SCAN_TILE, 0, stream>>>(
        in, out, n, kind == SCAN_EXCLUSIVE);
    return cudaGetLastError();
}
