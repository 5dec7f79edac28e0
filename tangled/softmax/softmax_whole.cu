// softmax_whole.cu -- a whole array in two kernels, or per block (wrong).
#include "softmax/softmax_parts.cuh"
#include "common/once_per_device.cuh"

// <<Fold a grid-stride share of the array into pairs>>
template <int U>
__global__ void softmax_partials_kernel(const float *x, size_t n, bool vec,
                                        md_t *part)
{
    size_t i = blockIdx.x * (size_t)kSmBlock + threadIdx.x;
    size_t stride = (size_t)gridDim.x * kSmBlock;
    size_t n4 = vec ? n / 4 : 0;
    const float4 *x4 = (const float4 *)x;
    md_t s = md_identity();
    for (size_t k = i; k < n4; k += U * stride) {
        float4 v[U];
#pragma unroll
        for (int u = 0; u < U; u++)          // U loads in flight
            v[u] = k + u * stride < n4 ? x4[k + u * stride] : neg_inf4();
#pragma unroll
        for (int u = 0; u < U; u++) s = md_combine(s, md_of4(v[u]));
    }
    for (size_t k = 4 * n4 + i; k < n; k += stride) s = md_push(s, x[k]);
    s = md_block_reduce<kSmBlock>(s);
    if (threadIdx.x == 0) part[blockIdx.x] = s;
}

// <<Normalize a whole array with the partial pairs>>
// The second pass walks the array from its front, or from its end.
enum class Walk { forward, backward };
template <int U, Walk WALK>
__global__ void softmax_normalize_kernel(const float *x, float *y, size_t n,
                                         bool vec, const md_t *part,
                                         unsigned parts)
{
    md_t s = md_identity();
    for (unsigned k = threadIdx.x; k < parts; k += kSmBlock)
        s = md_combine(s, part[k]);
    s = md_block_reduce<kSmBlock>(s);    // the same (m, d) in every block
    float inv = md_inv(s);
    size_t i = blockIdx.x * (size_t)kSmBlock + threadIdx.x;
    size_t stride = (size_t)gridDim.x * kSmBlock;
    size_t n4 = vec ? n / 4 : 0;
    const float4 *x4 = (const float4 *)x;
    float4 *y4 = (float4 *)y;
    for (size_t k = i; k < n4; k += U * stride) {
        float4 v[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            size_t j = WALK == Walk::backward ? n4 - 1 - (k + u * stride)
                                              : k + u * stride;
            v[u] = k + u * stride < n4 ? x4[j] : neg_inf4();
        }
        // <<Store U float4s of probabilities>>
        #pragma unroll
        for (int u = 0; u < U; u++) {
            size_t j = WALK == Walk::backward ? n4 - 1 - (k + u * stride)
                                              : k + u * stride;
            if (k + u * stride < n4) {
                if (WALK == Walk::backward) __stcs(y4 + j, prob4(v[u], s.m, inv));
                else y4[j] = prob4(v[u], s.m, inv);
            }
        }
    }
    for (size_t k = 4 * n4 + i; k < n; k += stride)
        y[k] = md_weight(x[k], s.m) * inv;
}

// <<Launch the whole-array softmax>>

// <<How many whole-array blocks fit at once>>
template <int U, Walk WALK>
static cudaError_t whole_wave(int *wave)
{
    int sms, a, b;
    BOOK_TRY(book_sm_count(&sms));
    BOOK_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &a, softmax_partials_kernel<U>, kSmBlock, 0));
    BOOK_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &b, softmax_normalize_kernel<U, WALK>, kSmBlock, 0));
    int fit = sms * (a < b ? a : b);
    *wave = fit < 1 ? 1 : fit > (int)kWholeBlocks ? (int)kWholeBlocks : fit;
    return cudaSuccess;
}
template <int U, Walk WALK>
static cudaError_t launch_whole(const float *x, float *y, size_t n,
                                void *work, cudaStream_t stream)
{
    if (n == 0) return cudaSuccess;
    if (!x || !y || !work || !is_aligned(work, 8) || !softmax_apart(x, y, n))
        return cudaErrorInvalidValue;
    bool vec = is_aligned(x, 16) && is_aligned(y, 16);
    static per_device<int> waves;     // blocks that fit at once, a device
    int wave;
    BOOK_TRY(once_per_device(waves, whole_wave<U, WALK>, &wave));
    size_t grid = ceil_div(n, 4 * (size_t)U * kSmBlock);
    if (grid > (size_t)wave) grid = (size_t)wave;
    md_t *part = whole_work_at(work);
    BOOK_CLEAR_TO_LAUNCH();
    softmax_partials_kernel<U><<<(unsigned)grid, kSmBlock, 0, stream>>>(
        x, n, vec, part);
    BOOK_TRY(cudaGetLastError());
    softmax_normalize_kernel<U, WALK>
        <<<(unsigned)grid, kSmBlock, 0, stream>>>(x, y, n, vec, part,
                                                  (unsigned)grid);
    return cudaGetLastError();
}

extern "C" cudaError_t softmax_whole_simple(const float *x, float *y,
                                            size_t n, void *work,
                                            cudaStream_t stream)
{
    return launch_whole<1, Walk::forward>(x, y, n, work, stream);
}

extern "C" cudaError_t softmax_whole_u4(const float *x, float *y, size_t n,
                                        void *work, cudaStream_t stream)
{
    return launch_whole<4, Walk::forward>(x, y, n, work, stream);
}

extern "C" cudaError_t softmax_whole(const float *x, float *y, size_t n,
                                     void *work, cudaStream_t stream)
{
    return launch_whole<4, Walk::backward>(x, y, n, work, stream);
}

extern "C" size_t softmax_work_bytes(void)
{
    book_carve c = {NULL, 0, 0};
    whole_work_layout(&c);
    return book_carve_size(&c);
}

// <<Wrong on purpose: softmax normalized per block>>
static const unsigned kChunk = 4 * kSmBlock;   // elements per block

__global__ void softmax_per_block_kernel(const float *x, float *y, size_t n)
{
    size_t base = blockIdx.x * (size_t)kChunk;
    md_t s = md_identity();
    for (size_t k = base + threadIdx.x; k < base + kChunk && k < n;
         k += kSmBlock)
        s = md_push(s, x[k]);
    s = md_block_reduce<kSmBlock>(s);   // WRONG: this block's chunk only
    float inv = md_inv(s);
    for (size_t k = base + threadIdx.x; k < base + kChunk && k < n;
         k += kSmBlock)
        y[k] = md_weight(x[k], s.m) * inv;
}

extern "C" cudaError_t softmax_whole_per_block(const float *x, float *y,
                                               size_t n, cudaStream_t stream)
{
    if (n == 0) return cudaSuccess;
    if (!x || !y || !softmax_apart(x, y, n)) return cudaErrorInvalidValue;
    size_t grid = ceil_div(n, kChunk);
    if (grid > kSmMaxGrid) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    softmax_per_block_kernel<<<(unsigned)grid, kSmBlock, 0, stream>>>(x, y,
                                                                      n);
    return cudaGetLastError();
}
