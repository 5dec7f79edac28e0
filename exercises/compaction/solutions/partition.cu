// Solution to the compaction chapter's exercise 1: the stable partition.
// The same exclusive scan of the flags that compaction uses gives both
// halves: a kept element i goes to pos[i], the number of kept elements
// before it; a rejected one to count + (i - pos[i]), count being all the
// kept ones and i - pos[i] the rejected ones before it.  Flags, scan,
// scatter.
#include "common/book.h"
#include "scan/scan.h"
#include "compaction/compact.h"
#include "compaction/exercises.h"

__global__ void partition_flags_kernel(const int *in, size_t n,
                                       int threshold, int *flag)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) flag[i] = in[i] > threshold;
}

__global__ void partition_scatter_kernel(const int *in, size_t n,
                                         const int *flag, const int *pos,
                                         int *out, size_t *count)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t kept = (size_t)pos[n - 1] + flag[n - 1];
    if (i == 0) *count = kept;
    if (i >= n) return;
    size_t to = flag[i] ? (size_t)pos[i] : kept + (i - (size_t)pos[i]);
    out[to] = in[i];
}

__global__ void partition_empty_kernel(size_t *count) { *count = 0; }

extern "C" cudaError_t partition_gt(const int *in, int *out, size_t n,
                                    int threshold, size_t *count,
                                    void *scratch, size_t bytes,
                                    cudaStream_t stream)
{
    if (!in || !out || !count || !scratch || n >= ((size_t)1 << 31) ||
        bytes < partition_scratch_bytes(n) || !is_aligned(scratch, 256))
        return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    if (n == 0) {
        partition_empty_kernel<<<1, 1, 0, stream>>>(count);
        return cudaGetLastError();
    }
    int *flag = (int *)scratch;
    int *pos = (int *)((char *)scratch + ex_round256(4 * n));
    void *scan_scratch = (char *)scratch + 2 * ex_round256(4 * n);
    unsigned grid = (unsigned)ceil_div(n, 256);
    partition_flags_kernel<<<grid, 256, 0, stream>>>(in, n, threshold, flag);
    BOOK_TRY(cudaGetLastError());
    BOOK_TRY(scan_i32(flag, pos, n, SCAN_EXCLUSIVE, SCAN_PROPAGATE,
                      scan_scratch, scan_scratch_bytes(n, 4), stream));
    partition_scatter_kernel<<<grid, 256, 0, stream>>>(in, n, flag, pos, out,
                                                       count);
    return cudaGetLastError();
}
