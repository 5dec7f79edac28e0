// tc_args.cuh -- what every tensor-core launcher checks before it
// launches, and the guarded store of the results.
#pragma once
#include "common/book.h"
#include "tensor-gemm/tc_gemm.h"
#include <stdint.h>

// <<Check the arguments every launcher takes>>
// cudaErrorInvalidValue for what no launcher takes; *done is set when
// nothing is left to do: C is empty, or C = 0 (K = 0) was written here.
static inline cudaError_t tc_common_args(const book_bf16 *A,
                                         const book_bf16 *B, void *C,
                                         tc_out out, size_t M, size_t N,
                                         size_t K, cudaStream_t stream,
                                         int *done)
{
    *done = 1;
    if (out != TC_OUT_F32 && out != TC_OUT_BF16) return cudaErrorInvalidValue;
    if (M > TC_MAX_DIM || N > TC_MAX_DIM || K > TC_MAX_DIM)
        return cudaErrorInvalidValue;
    if (M == 0 || N == 0) return cudaSuccess;
    if (C == NULL || (K > 0 && (A == NULL || B == NULL)))
        return cudaErrorInvalidValue;
    // A misaligned store would fault and end the context: refuse it.
    if (!is_aligned(C, out == TC_OUT_F32 ? 4 : 2) ||
        (K > 0 && (!is_aligned(A, 2) || !is_aligned(B, 2))))
        return cudaErrorInvalidValue;
    if (K == 0) {
        BOOK_CLEAR_TO_LAUNCH();
        return cudaMemsetAsync(C, 0, M * N * (out == TC_OUT_F32 ? 4 : 2),
                               stream);
    }
    *done = 0;
    return cudaSuccess;
}

// <<The 16-byte rule>>
// cp.async and TMA copy 16 bytes at a time: rows of A (K elements) and
// of B (N elements) must be whole 16-byte chunks, and A, B, C start on
// 16-byte boundaries (is_aligned, common/book.h).
static inline int tc_rows_whole_chunks(size_t N, size_t K)
{
    return K % 8 == 0 && N % 8 == 0;
}

// <<Launch in slabs of rows>>
// launch(A, C, rows) for each slab of at most 65535 * BM rows of M, A
// and C moved to the slab's first row; stops at the first error.
template <typename F>
static inline cudaError_t tc_slabs(const book_bf16 *A, void *C, tc_out out,
                                   size_t M, size_t N, size_t K, size_t BM,
                                   F launch)
{
    const size_t slab = 65535 * BM, esz = out == TC_OUT_F32 ? 4 : 2;
    for (size_t m = 0; m < M; m += slab) {
        cudaError_t err = launch(A + m * K, (char *)C + m * N * esz,
                                 M - m < slab ? M - m : slab);
        if (err != cudaSuccess) return err;
    }
    return cudaSuccess;
}

// <<Store a pair of results, guarded>>
// Elements (row, col) and (row, col + 1) of C, M x N row-major of type
// out; those outside C are not written.
static __device__ __forceinline__ void tc_store2(void *C, tc_out out,
                                                 int M, int N, int row,
                                                 int col, float v0, float v1)
{
    if (row >= M) return;
    size_t i = (size_t)row * N + col;
    if (out == TC_OUT_F32) {
        float *c = (float *)C;
        if (col + 1 < N && (uintptr_t)(c + i) % 8 == 0) {
            *(float2 *)(c + i) = make_float2(v0, v1);
        } else {
            if (col < N) c[i] = v0;
            if (col + 1 < N) c[i + 1] = v1;
        }
    } else {
        __nv_bfloat16 *c = (__nv_bfloat16 *)C;
        if (col + 1 < N && (uintptr_t)(c + i) % 4 == 0) {
            *(__nv_bfloat162 *)(c + i) = __floats2bfloat162_rn(v0, v1);
        } else {
            if (col < N) c[i] = __float2bfloat16_rn(v0);
            if (col + 1 < N) c[i + 1] = __float2bfloat16_rn(v1);
        }
    }
}
