// warp_scan.cuh -- a warp's inclusive scan and total, by shuffles.
#ifndef SCAN_WARP_SCAN_CUH
#define SCAN_WARP_SCAN_CUH

// <<Warp-shuffle inclusive scan>>
template <typename T>
__device__ __forceinline__ T scan_warp_inclusive(T x)
{
    const unsigned lane = threadIdx.x % 32;
#pragma unroll
    for (unsigned d = 1; d < 32; d *= 2) {
        T y = __shfl_up_sync(0xffffffffu, x, d);
        if (lane >= d) x += y;
    }
    return x;
}

// <<Warp-shuffle total>>
template <typename T>
__device__ __forceinline__ T scan_warp_total(T v)
{
#pragma unroll
    for (int d = 16; d > 0; d /= 2) v += __shfl_xor_sync(0xffffffffu, v, d);
    return v;
}
#endif
