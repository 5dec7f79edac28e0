// tc_peak.sm90a.cu -- the tensor cores' ceiling: wgmma and nothing else.
#include "tensor-gemm/tc_args.cuh"
#include "arch/sm90.cuh"

namespace {

// <<Store a warpgroup's accumulators>>
// Thread t of the warpgroup holds, for each group j of 8 columns, the
// pair of columns 2 (t % 4) of row 16 (t / 32) + (t % 32) / 4 and 8 more.
template <int R>
__device__ __forceinline__ void wg_store(const float (&d)[R], void *C,
                                         tc_out out, int M, int N, int row0,
                                         int col0)
{
    const int t = threadIdx.x % 128;
    const int row = row0 + 16 * (t / 32) + (t % 32) / 4;
    const int col = col0 + 2 * (t % 4);
#pragma unroll
    for (int j = 0; j < R / 4; j++) {
        tc_store2(C, out, M, N, row, col + 8 * j, d[4 * j], d[4 * j + 1]);
        tc_store2(C, out, M, N, row + 8, col + 8 * j, d[4 * j + 2],
                  d[4 * j + 3]);
    }
}
__global__ void __launch_bounds__(256, 1) peak_kernel(int iters, float *sink)
{
    __shared__ __align__(1024) uint8_t tiles[2 * 8192 + 32768];
    for (int i = threadIdx.x; i < (int)sizeof tiles / 2; i += 256)
        ((uint16_t *)tiles)[i] = tc_peak_bits((unsigned)i);
    // Each writer orders its generic stores before the reads of wgmma
    // (the async proxy), then the barrier hands them to the others.
    fence_proxy_async();
    __syncthreads();
    const int c = threadIdx.x / 128;
    const uint64_t da = wgmma_desc(tiles + c * 8192, 16, 1024);
    const uint64_t db = wgmma_desc(tiles + 16384, 8192, 1024);
    float d[128];
#pragma unroll
    for (int i = 0; i < 128; i++) d[i] = 0.0f;
    for (int it = 0; it < iters; it++) {
        acc_fence(d);
        wgmma_fence();
#pragma unroll
        for (int ks = 0; ks < 4; ks++)
            wgmma_ss<256, 1>(d, da + 2 * ks, db, 1);
        wgmma_commit();
        wgmma_wait<1>();
        acc_fence(d);
    }
    wgmma_wait<0>();
    acc_fence(d);
    if (blockIdx.x == 0)             // keeps the work alive, and checkable
        wg_store(d, sink + c * 64 * 256, TC_OUT_F32, 64, 256, 0, 0);
}
} // namespace

extern "C" cudaError_t tc_peak(int blocks, int iters, float *sink,
                               cudaStream_t stream)
{
    if (blocks <= 0 || iters <= 0 || sink == NULL ||
        !is_aligned(sink, 4))
        return cudaErrorInvalidValue;
    if (book_device_cc() != 90) return cudaErrorNoKernelImageForDevice;
    BOOK_CLEAR_TO_LAUNCH();
    peak_kernel<<<blocks, 256, 0, stream>>>(iters, sink);
    return cudaGetLastError();
}
