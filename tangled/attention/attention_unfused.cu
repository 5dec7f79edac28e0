// attention_unfused.cu -- attention in three kernels, and on cuBLAS.
#include "attention/attention_common.cuh"
#include "transpose/transpose.h"
#include "matmul/matmul.h"
#include "softmax/softmax.h"
#include <limits.h>

// <<The workspace of the unfused forms>>
// Q scaled and one head's K^T (copies: the book's kernels), S and P.
struct attn_work {
    float *qs, *kt, *s, *p;
};
static attn_work attn_work_layout(book_carve *c, attn_dims a, bool copies)
{
    size_t nq, nk, ns;
    attn_work w = {};
    if (!attn_sizes(a, &nq, &nk, &ns)) {
        c->overflow = 1;
        return w;
    }
    // Each of nq and Sk D is below 2^62 and ns below 2^61: no wrap here.
    if (copies) {
        w.qs = (float *)book_carve_take(c, 4 * nq, 256);
        w.kt = (float *)book_carve_take(c, 4 * (a.Sk * a.D), 256);
    }
    w.s = (float *)book_carve_take(c, 4 * ns, 256);
    w.p = (float *)book_carve_take(c, 4 * ns, 256);
    return w;
}
extern "C" size_t attention_work_bytes(attn_dims a)
{
    book_carve c = {NULL, 0, 0};
    attn_work_layout(&c, a, true);
    return book_carve_size(&c);
}

// <<Scale a matrix and mask the scores>>
static const unsigned kAttnBlock = 256, kAttnGrid = 4096;
__global__ void attn_scale_kernel(const float *x, float *y, size_t n, float c)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        y[i] = x[i] * c;
}
// Scores of rows x Sk: query i = row % Sq loses key j > i + Sk - Sq.
__global__ void attn_mask_kernel(float *s, size_t n, attn_dims a)
{
    for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < n;
         e += (size_t)gridDim.x * blockDim.x) {
        long long i = (long long)(e / a.Sk % a.Sq), j = (long long)(e % a.Sk);
        if (j > i + (long long)a.Sk - (long long)a.Sq) s[e] = -INFINITY;
    }
}

// <<Attention in three kernels>>
extern "C" cudaError_t attention_three_kernel(const float *q,
    const float *k, const float *v, float *o, attn_dims a, void *work,
    cudaStream_t stream)
{
    size_t nq, nk, ns, bh = a.B * a.H;
    BOOK_TRY(attn_check(q, k, v, o, a, &nq, &nk, &ns));
    if (nq == 0) return cudaSuccess;
    if (!work || a.Sq > INT_MAX || a.Sk > INT_MAX || a.D > INT_MAX ||
        attention_work_bytes(a) == 0)
        return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    if (a.Sk == 0) return cudaMemsetAsync(o, 0, nq * sizeof(float), stream);
    book_carve c = {(char *)work, 0, 0};
    const attn_work w = attn_work_layout(&c, a, true);
    float *qs = w.qs, *kt = w.kt, *s = w.s, *p = w.p;
    attn_scale_kernel<<<kAttnGrid, kAttnBlock, 0, stream>>>(q, qs, nq,
        1.0f / sqrtf((float)a.D));
    BOOK_TRY(cudaGetLastError());
    // <<Scores of every head with the matmul chapter's kernel>>
    for (size_t h = 0; h < bh; h++) {                         // S = Q K^T
        BOOK_TRY(transpose_tile_padded(k + h * a.Sk * a.D, kt, a.Sk, a.D,
                                       stream));
        BOOK_TRY(matmul_double_buffered(qs + h * a.Sq * a.D, kt,
                                        s + h * a.Sq * a.Sk, a.Sq, a.Sk, a.D,
                                        stream));
    }
    if (a.causal) {
        attn_mask_kernel<<<kAttnGrid, kAttnBlock, 0, stream>>>(s, ns, a);
        BOOK_TRY(cudaGetLastError());
    }
    BOOK_TRY(softmax_rows_cached(s, p, bh * a.Sq, a.Sk, stream)); // softmax
    for (size_t h = 0; h < bh; h++)                            // O = P V
        BOOK_TRY(matmul_double_buffered(p + h * a.Sq * a.Sk,
                 v + h * a.Sk * a.D, o + h * a.Sq * a.D, a.Sq, a.D, a.Sk,
                 stream));
    return cudaSuccess;
}

// <<Attention on cuBLAS>>
#define ATTN_CUBLAS(call) \
    do {                                                                \
        if ((call) != CUBLAS_STATUS_SUCCESS) return cudaErrorUnknown;   \
    } while (0)

// <<Queue attention on cuBLAS on the handle's stream>>
static cudaError_t attn_cublas_queue(cublasHandle_t hd, const float *q,
    const float *k, const float *v, float *o, attn_dims a, void *work,
    size_t ns, cudaStream_t st)
{
    book_carve c = {(char *)work, 0, 0};
    const attn_work w = attn_work_layout(&c, a, false);
    float *s = w.s, *p = w.p;
    const size_t bh = a.B * a.H;
    int sq = (int)a.Sq, sk = (int)a.Sk, d = (int)a.D, n = (int)bh;
    const float scale = 1.0f / sqrtf((float)a.D), one = 1.0f, zero = 0.0f;
    // <<S = Q K^T scaled, as column-major S^T = K Q^T>>
    ATTN_CUBLAS(cublasSgemmStridedBatched(hd, CUBLAS_OP_T, CUBLAS_OP_N, sk, sq,
        d, &scale, k, d, (long long)sk * d, q, d, (long long)sq * d, &zero, s,
        sk, (long long)sq * sk, n));
    if (a.causal) {
        attn_mask_kernel<<<kAttnGrid, kAttnBlock, 0, st>>>(s, ns, a);
        BOOK_TRY(cudaGetLastError());
    }
    BOOK_TRY(softmax_rows_cached_async(s, p, bh * a.Sq, a.Sk, st)); // softmax
    // <<O = P V, as column-major O^T = V^T P^T>>
    ATTN_CUBLAS(cublasSgemmStridedBatched(hd, CUBLAS_OP_N, CUBLAS_OP_N, d, sq,
        sk, &one, v, d, (long long)sk * d, p, sk, (long long)sq * sk, &zero, o,
        d, (long long)sq * d, n));
    return cudaGetLastError();
}
extern "C" cudaError_t attention_cublas(cublasHandle_t hd, const float *q,
    const float *k, const float *v, float *o, attn_dims a, void *work,
    cudaStream_t stream)
{
    size_t nq, nk, ns, bh = a.B * a.H;
    BOOK_TRY(attn_check(q, k, v, o, a, &nq, &nk, &ns));
    if (nq == 0) return cudaSuccess;
    if (!hd || !work || a.Sq > INT_MAX || a.Sk > INT_MAX || a.D > INT_MAX ||
        bh > INT_MAX || attention_work_bytes(a) == 0)
        return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    if (a.Sk == 0) return cudaMemsetAsync(o, 0, nq * sizeof(float), stream);
    cudaStream_t was;                 // the handle's, given back after
    ATTN_CUBLAS(cublasGetStream(hd, &was));
    if (was != stream) ATTN_CUBLAS(cublasSetStream(hd, stream));
    cudaError_t e = attn_cublas_queue(hd, q, k, v, o, a, work, ns, stream);
    if (was != stream && cublasSetStream(hd, was) != CUBLAS_STATUS_SUCCESS &&
        e == cudaSuccess)
        e = cudaErrorUnknown;
    return e;
}
