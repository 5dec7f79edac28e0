// Solution to the compaction chapter's exercise 5: run-length encoding.
// Element i starts a run when i == 0 or in[i] != in[i - 1] (find_repeats'
// test, turned around); the exclusive scan of those flags numbers the
// runs, so a start i writes its value and its index to run pos[i]; the
// lengths are the differences of consecutive starts, the last run ending
// at n.
#include "common/book.h"
#include "scan/scan.h"
#include "compaction/compact.h"
#include "compaction/exercises.h"

__global__ void rle_heads_kernel(const int *in, size_t n, int *head)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) head[i] = i == 0 || in[i] != in[i - 1];
}

__global__ void rle_starts_kernel(const int *in, size_t n, const int *head,
                                  const int *pos, int *values, int *start,
                                  size_t *runs)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i == 0) *runs = (size_t)pos[n - 1] + head[n - 1];
    if (i >= n || !head[i]) return;
    values[pos[i]] = in[i];
    start[pos[i]] = (int)i;
}

__global__ void rle_lengths_kernel(size_t n, const int *head, const int *pos,
                                   const int *start, int *lengths)
{
    size_t r = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t runs = (size_t)pos[n - 1] + head[n - 1];
    if (r >= runs) return;
    size_t end = r + 1 < runs ? (size_t)start[r + 1] : n;
    lengths[r] = (int)(end - (size_t)start[r]);
}

__global__ void rle_empty_kernel(size_t *runs) { *runs = 0; }

extern "C" cudaError_t rle_i32(const int *in, size_t n, int *values,
                               int *lengths, size_t *runs, void *scratch,
                               size_t bytes, cudaStream_t stream)
{
    if (!in || !values || !lengths || !runs || !scratch ||
        n >= ((size_t)1 << 31) || bytes < rle_scratch_bytes(n) ||
        !is_aligned(scratch, 256))
        return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    if (n == 0) {
        rle_empty_kernel<<<1, 1, 0, stream>>>(runs);
        return cudaGetLastError();
    }
    size_t arr = ex_round256(4 * n);
    int *head = (int *)scratch;
    int *pos = (int *)((char *)scratch + arr);
    int *start = (int *)((char *)scratch + 2 * arr);
    void *scan_scratch = (char *)scratch + 3 * arr;
    unsigned grid = (unsigned)ceil_div(n, 256);
    rle_heads_kernel<<<grid, 256, 0, stream>>>(in, n, head);
    BOOK_TRY(cudaGetLastError());
    BOOK_TRY(scan_i32(head, pos, n, SCAN_EXCLUSIVE, SCAN_PROPAGATE,
                      scan_scratch, scan_scratch_bytes(n, 4), stream));
    rle_starts_kernel<<<grid, 256, 0, stream>>>(in, n, head, pos, values,
                                                start, runs);
    BOOK_TRY(cudaGetLastError());
    rle_lengths_kernel<<<grid, 256, 0, stream>>>(n, head, pos, start,
                                                 lengths);
    return cudaGetLastError();
}
