// matmul_warp.cu -- warp tiles: double-buffered, unrolled and pipelined.
#include "matmul/matmul_regtile.cuh"

// <<Double-buffered matmul with warp tiles>>
// Lane (lm, ln) = (lane % 8, lane / 8) of warp w owns rows rm + i and
// rm + 32 + i, columns cn + j and cn + 16 + j (i, j < 4) of the block tile.
template <int Steps = kBK>   // the rows of the slices
__device__ __forceinline__ void mm_multiply_warp_tile(
    const float (*As)[kBM + kApad], const float (*Bs)[kBN], int rm, int cn,
    float (&acc)[8][8])
{
#pragma unroll
    for (int k = 0; k < Steps; k++) {
        const float4 a0 = *(const float4 *)&As[k][rm];
        const float4 a1 = *(const float4 *)&As[k][rm + 32];
        const float4 b0 = *(const float4 *)&Bs[k][cn];
        const float4 b1 = *(const float4 *)&Bs[k][cn + 16];
        const float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
        const float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
        for (int i = 0; i < 8; i++)
#pragma unroll
            for (int j = 0; j < 8; j++)
                acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
}

template <Edges EDGES>
__global__ void __launch_bounds__(kThreads, 2) mm_dbw_kernel(MM_ARGS)
{
    __shared__ __align__(16) float As[2][kBK][kBM + kApad];
    __shared__ __align__(16) float Bs[2][kBK][kBN];
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int rm = warp / 4 * 64 + lane % 8 * 4;
    const int cn = warp % 4 * 32 + lane / 8 * 4;
    const size_t m0 = blockIdx.y * (size_t)kBM, n0 = blockIdx.x * (size_t)kBN;
    float acc[8][8] = {};
    float4 ra, rb;
    mm_load_slices<EDGES>(A, B, M, N, K, m0, n0, 0, tid, ra, rb);
    mm_store_slices(As[0], Bs[0], tid, ra, rb);
    __syncthreads();
    int cur = 0;
    for (size_t k0 = 0; k0 < K; k0 += kBK) {
        const bool more = k0 + kBK < K;
        if (more)
            mm_load_slices<EDGES>(A, B, M, N, K, m0, n0, k0 + kBK, tid,
                                    ra, rb);
        mm_multiply_warp_tile(As[cur], Bs[cur], rm, cn, acc);
        if (more) mm_store_slices(As[cur ^ 1], Bs[cur ^ 1], tid, ra, rb);
        __syncthreads();
        cur ^= 1;
    }
    // <<Write a warp-tile lane's 8 by 8 results>>
    #pragma unroll
    for (int i = 0; i < 8; i++) {
        const size_t r = m0 + rm + i / 4 * 32 + i % 4;
    #pragma unroll
        for (int h = 0; h < 2; h++)
            mm_store4<EDGES>(C, r, n0 + cn + h * 16, M, N,
                               make_float4(acc[i][4 * h], acc[i][4 * h + 1],
                                           acc[i][4 * h + 2], acc[i][4 * h + 3]));
    }
}

extern "C" cudaError_t matmul_dbuf_warp(MM_LAUNCH_ARGS)
{
    return mm_launch_tile128(mm_dbw_kernel<Edges::exact>,
                             mm_dbw_kernel<Edges::checked>, kBK, A, B, C, M,
                             N, K, stream);
}

// <<Warp-tiled matmul, two slices of 16 a turn>>
constexpr int kBK2 = 16;   // the K slice of this kernel
// Thread t's share of a 128 x 16 slice of A and a 16 x 128 slice of B:
// float4 number e = t + 256 j (j < 2) of each; of A, row e / 4 and
// columns 4 (e % 4) onward; of B, row e / 32 and columns 4 (e % 32) onward.
// No checks: the launcher sends only shapes the tiles cover exactly.
__device__ __forceinline__ void mm_load_slices16(
    const float *A, const float *B, size_t N, size_t K, size_t m0,
    size_t n0, size_t k0, int tid, float4 (&ra)[2], float4 (&rb)[2])
{
#pragma unroll
    for (int j = 0; j < 2; j++) {
        const int e = tid + 256 * j;
        ra[j] = *(const float4 *)(A + (m0 + e / 4) * K + k0 + e % 4 * 4);
        rb[j] = *(const float4 *)(B + (k0 + e / 32) * N + n0 + e % 32 * 4);
    }
}
__device__ __forceinline__ void mm_store_slices16(float (*As)[kBM + kApad],
                                                  float (*Bs)[kBN], int tid,
                                                  const float4 (&ra)[2],
                                                  const float4 (&rb)[2])
{
#pragma unroll
    for (int j = 0; j < 2; j++) {
        const int e = tid + 256 * j, r = e / 4, c = e % 4 * 4;
        As[c + 0][r] = ra[j].x;
        As[c + 1][r] = ra[j].y;
        As[c + 2][r] = ra[j].z;
        As[c + 3][r] = ra[j].w;
        *(float4 *)&Bs[e / 32][e % 32 * 4] = rb[j];
    }
}
__global__ void __launch_bounds__(kThreads, 2) mm_unrolled_kernel(MM_ARGS)
{
    __shared__ __align__(16) float As[2][kBK2][kBM + kApad];
    __shared__ __align__(16) float Bs[2][kBK2][kBN];
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int rm = warp / 4 * 64 + lane % 8 * 4;
    const int cn = warp % 4 * 32 + lane / 8 * 4;
    const size_t m0 = blockIdx.y * (size_t)kBM, n0 = blockIdx.x * (size_t)kBN;
    float acc[8][8] = {};
    float4 ra[2], rb[2];
    mm_load_slices16(A, B, N, K, m0, n0, 0, tid, ra, rb);
    mm_store_slices16(As[0], Bs[0], tid, ra, rb);
    __syncthreads();
    for (size_t k0 = 0; k0 < K; k0 += 2 * kBK2) {
        // <<Multiply slice k0 from buffers 0, bring the next into 1>>
        mm_load_slices16(A, B, N, K, m0, n0, k0 + kBK2, tid, ra, rb);
        mm_multiply_warp_tile<kBK2>(As[0], Bs[0], rm, cn, acc);
        mm_store_slices16(As[1], Bs[1], tid, ra, rb);
        __syncthreads();
        // <<Multiply slice k0 + 16 from buffers 1, bring the next into 0>>
        {
            const bool more = k0 + 2 * kBK2 < K;
            if (more)
                mm_load_slices16(A, B, N, K, m0, n0, k0 + 2 * kBK2, tid, ra, rb);
            mm_multiply_warp_tile<kBK2>(As[1], Bs[1], rm, cn, acc);
            if (more) mm_store_slices16(As[0], Bs[0], tid, ra, rb);
            __syncthreads();
        }
    }
    constexpr Edges EDGES = Edges::exact;
    // <<Write a warp-tile lane's 8 by 8 results>>
    #pragma unroll
    for (int i = 0; i < 8; i++) {
        const size_t r = m0 + rm + i / 4 * 32 + i % 4;
    #pragma unroll
        for (int h = 0; h < 2; h++)
            mm_store4<EDGES>(C, r, n0 + cn + h * 16, M, N,
                               make_float4(acc[i][4 * h], acc[i][4 * h + 1],
                                           acc[i][4 * h + 2], acc[i][4 * h + 3]));
    }
}

extern "C" cudaError_t matmul_warp_unrolled(MM_LAUNCH_ARGS)
{
    // Shapes the unrolled kernel does not cover go to the pipelined kernel
    // on the same tile, whose checked path keeps to its registers.
    const bool covered = M % kBM == 0 && N % kBN == 0 &&
                         K % (2 * kBK2) == 0 && K > 0 && is_aligned(A, 16) &&
                         is_aligned(B, 16) && is_aligned(C, 16);
    if (!covered) return matmul_pipelined(A, B, C, M, N, K, stream);
    // Covered, so mm_launch_tile128 never takes its checked kernel.
    return mm_launch_tile128(mm_unrolled_kernel, mm_unrolled_kernel,
                             2 * kBK2, A, B, C, M, N, K, stream);
}

// <<Warp-tile configuration>>
template <int BM_, int BN_, int BK_, int LM_, int FM_, int FN_, int S_,
          int MinBlocks_>
struct MmWarpTile {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, LM = LM_, LN = 32 / LM;
    static constexpr int FM = FM_, FN = FN_, S = S_, MinBlocks = MinBlocks_;
    static constexpr int TM = 4 * FM, TN = 4 * FN;    // a thread's results
    static constexpr int WM = TM * LM, WN = TN * LN;  // a warp's tile
    static constexpr int WarpsN = BN / WN, Threads = 32 * (BM / WM) * WarpsN;
    static constexpr int AStride = BK + 4;            // As rows, padded
    static constexpr int AFloats = BM * AStride, Stage = AFloats + BK * BN;
    static constexpr int Smem = S * Stage * (int)sizeof(float);
    static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles cover the block");
    static_assert(BK % 4 == 0 && AStride % 8 == 4, "A rows: float4, banks");
};

// <<Copy to shared memory, asynchronously where the GPU can>>
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define MM_ASYNC 1
#else
#define MM_ASYNC 0
#endif
// Four bytes; when in is false, nothing is read and a zero is written.
// src is a generic address: PTX wants a global one, and on sm_80 and later
// the two coincide for global memory (CUTLASS passes it the same way).
__device__ __forceinline__ void mm_copy4(float *dst, const float *src,
                                         bool in)
{
#if MM_ASYNC
    unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(d),
                 "l"(src), "r"(in ? 4 : 0));
#else
    *dst = in ? *src : 0.0f;
#endif
}
// Sixteen bytes, both addresses multiples of 16.
__device__ __forceinline__ void mm_copy16(float *dst, const float *src)
{
#if MM_ASYNC
    unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(d),
                 "l"(src));
#else
    *(float4 *)dst = *(const float4 *)src;
#endif
}
__device__ __forceinline__ void mm_copy_commit()
{
#if MM_ASYNC
    asm volatile("cp.async.commit_group;\n" ::);
#endif
}
template <int N> __device__ __forceinline__ void mm_copy_wait()
{
#if MM_ASYNC
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
#endif
}

// <<Where each thread copies from>>
template <class T> struct MmCopyPlan {
    static constexpr int A16 = T::BM * T::BK / 4 / T::Threads;  // a thread
    static constexpr int B16 = T::BK * T::BN / 4 / T::Threads;
    static constexpr int A4 = 4 * A16, B4 = 4 * B16;
    static constexpr int ARows16 = T::Threads / (T::BK / 4);    // a round
    static constexpr int ARows4 = T::Threads / T::BK;
    static constexpr int BRows16 = T::Threads / (T::BN / 4);
    static constexpr int BRows4 = T::Threads / T::BN;
    static_assert(A16 * 4 * T::Threads == T::BM * T::BK &&
                      B16 * 4 * T::Threads == T::BK * T::BN,
                  "whole float4s a thread");
    static_assert(T::Threads % T::BK == 0 && T::Threads % T::BN == 0,
                  "whole rows a round");
};

// <<Copy one slice of A and B into a stage>>
template <class T, Edges EDGES>
__device__ __forceinline__ void mm_wt_copy_slice(
    float *stage, const float *A, const float *B, const float *ag,
    const float *bg, size_t N, size_t K, int krem, int arows, bool bcol,
    int tid)
{
    using P = MmCopyPlan<T>;
    float *As = stage, *Bs = stage + T::AFloats;
    if constexpr (EDGES == Edges::exact) {
        const int r = tid / (T::BK / 4), k = tid % (T::BK / 4) * 4;
#pragma unroll
        for (int j = 0; j < P::A16; j++)
            mm_copy16(As + (j * P::ARows16 + r) * T::AStride + k,
                      ag + j * P::ARows16 * K);
        // <<Copy the B slice in 16-byte pieces>>
        const int bk = tid / (T::BN / 4), bn = tid % (T::BN / 4) * 4;
        #pragma unroll
        for (int j = 0; j < P::B16; j++)
            mm_copy16(Bs + (j * P::BRows16 + bk) * T::BN + bn,
                      bg + j * P::BRows16 * N);
        (void)A; (void)B; (void)krem; (void)arows; (void)bcol;
    } else {
        // <<Copy the A and B slices a checked float at a time>>
        const int r = tid / T::BK, k = tid % T::BK;
        #pragma unroll
        for (int j = 0; j < P::A4; j++) {
            const bool in = j * P::ARows4 + r < arows && k < krem;
            mm_copy4(As + (j * P::ARows4 + r) * T::AStride + k,
                     in ? ag + j * P::ARows4 * K : A, in);
        }
        const int bk = tid / T::BN, bn = tid % T::BN;
        #pragma unroll
        for (int j = 0; j < P::B4; j++) {
            const bool in = bcol && j * P::BRows4 + bk < krem;
            mm_copy4(Bs + (j * P::BRows4 + bk) * T::BN + bn,
                     in ? bg + j * P::BRows4 * N : B, in);
        }
    }
}

// <<Load a lane's fragments>>
template <class T>
__device__ __forceinline__ void mm_wt_load_a(const float *As, int g, int wm,
                                             float4 (&a)[T::TM])
{
#pragma unroll
    for (int i = 0; i < T::TM; i++)
        a[i] = *(const float4 *)(As + (wm + i * T::LM) * T::AStride + 4 * g);
}
template <class T>
__device__ __forceinline__ void mm_wt_load_b(const float *Bs, int k, int wn,
                                             float (&b)[T::TN])
{
#pragma unroll
    for (int j = 0; j < T::FN; j++) {
        const float4 v =
            *(const float4 *)(Bs + k * T::BN + wn + j * 4 * T::LN);
        b[4 * j] = v.x; b[4 * j + 1] = v.y; b[4 * j + 2] = v.z;
        b[4 * j + 3] = v.w;
    }
}
__device__ __forceinline__ float mm_lane(float4 v, int q)
{
    return q == 0 ? v.x : q == 1 ? v.y : q == 2 ? v.z : v.w;
}

// <<Warp-tiled matmul with a pipeline of stages>>
template <class T, Edges EDGES>
__global__ void __launch_bounds__(T::Threads, T::MinBlocks)
    mm_wt_kernel(MM_ARGS)
{
    extern __shared__ __align__(16) float mm_stages[];
    // <<Place a warp-tiled thread and its copy sources>>
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int wm = warp / T::WarpsN * T::WM + lane % T::LM;
    const int wn = warp % T::WarpsN * T::WN + lane / T::LM * 4;
    const size_t m0 = blockIdx.y * (size_t)T::BM, n0 = blockIdx.x * (size_t)T::BN;
    const size_t slices = (K + T::BK - 1) / T::BK;
    constexpr bool checked = EDGES == Edges::checked;
    const int ar = checked ? tid / T::BK : tid / (T::BK / 4);
    const int ak = checked ? tid % T::BK : tid % (T::BK / 4) * 4;
    const int arows = (int)(M - m0 < (size_t)T::BM ? M - m0 : T::BM);
    const float *ag = A + (ar < arows ? m0 + ar : 0) * K + ak;
    const int bk = checked ? tid / T::BN : tid / (T::BN / 4);
    const int bn = checked ? tid % T::BN : tid % (T::BN / 4) * 4;
    const bool bcol = n0 + bn < N;
    const float *bg = B + bk * N + (bcol ? n0 + bn : 0);
    // On the checked path ag and bg advance a slice at a time even where they
    // copy nothing (rows past M or K); they may then point past the matrices,
    // but such copies have source size 0 and read from A or B instead.
    float acc[T::TM][T::TN] = {};
    // <<Start the copies of the first S - 1 slices>>
    #pragma unroll
    for (int p = 0; p < T::S - 1; p++) {
        if ((size_t)p < slices) {
            const size_t left = K - p * (size_t)T::BK;
            mm_wt_copy_slice<T, EDGES>(
                mm_stages + p * T::Stage, A, B, ag, bg, N, K,
                (int)(left < T::BK ? left : T::BK), arows, bcol, tid);
            ag += T::BK;
            bg += T::BK * N;
        }
        mm_copy_commit();
    }
    int rd = 0, wr = T::S - 1;  // the stages read and written next
    for (size_t s = 0; s < slices; s++) {
        mm_copy_wait<T::S - 2>();   // slice s has landed, here
        __syncthreads();            // and in every thread; s - 1 is read
        // <<Start copying slice s + S - 1 into the stage of slice s - 1>>
        const size_t next = (s + T::S - 1) * T::BK;
        if (next < K) {
            const size_t left = K - next;
            mm_wt_copy_slice<T, EDGES>(mm_stages + wr * T::Stage, A, B, ag, bg,
                                         N, K, (int)(left < T::BK ? left : T::BK),
                                         arows, bcol, tid);
            ag += T::BK;
            bg += T::BK * N;
        }
        mm_copy_commit();
        wr = wr == T::S - 1 ? 0 : wr + 1;
        // <<Multiply the slice in stage rd>>
        const float *As = mm_stages + rd * T::Stage, *Bs = As + T::AFloats;
        float4 a[T::TM];
        float b[2][T::TN];
        mm_wt_load_b<T>(Bs, 0, wn, b[0]);
        #pragma unroll
        for (int k = 0; k < T::BK; k++) {
            if (k % 4 == 0) mm_wt_load_a<T>(As, k / 4, wm, a);
            if (k + 1 < T::BK) mm_wt_load_b<T>(Bs, k + 1, wn, b[(k + 1) % 2]);
        #pragma unroll
            for (int i = 0; i < T::TM; i++)
        #pragma unroll
                for (int j = 0; j < T::TN; j++)
                    acc[i][j] = fmaf(mm_lane(a[i], k % 4), b[k % 2][j], acc[i][j]);
        }
        rd = rd == T::S - 1 ? 0 : rd + 1;
    }
    // <<Write a warp-tiled thread's results>>
    #pragma unroll
    for (int i = 0; i < T::TM; i++) {
        const size_t r = m0 + wm + i * T::LM;
    #pragma unroll
        for (int j = 0; j < T::FN; j++)
            mm_store4<EDGES>(C, r, n0 + wn + j * 4 * T::LN, M, N,
                               make_float4(acc[i][4 * j], acc[i][4 * j + 1],
                                           acc[i][4 * j + 2],
                                           acc[i][4 * j + 3]));
    }
}

// <<Launch one warp-tile configuration>>
template <class T> static cudaError_t mm_wt_launch(MM_LAUNCH_ARGS)
{
    if (M == 0 || N == 0) return cudaSuccess;
    size_t gx = ceil_div(N, T::BN), gy = ceil_div(M, T::BM);
    if (!mm_launch_ok(A, B, C, gx, gy)) return cudaErrorInvalidValue;
    bool exact = M % T::BM == 0 && N % T::BN == 0 && K % T::BK == 0 &&
                 K > 0 && is_aligned(A, 16) && is_aligned(B, 16) &&
                 is_aligned(C, 16);
    mm_kernel_fn k = exact ? mm_wt_kernel<T, Edges::exact>
                           : mm_wt_kernel<T, Edges::checked>;
    BOOK_CLEAR_TO_LAUNCH();
    if (T::Smem > 48 * 1024)  // beyond what a block gets without asking
        BOOK_TRY(cudaFuncSetAttribute(
            k, cudaFuncAttributeMaxDynamicSharedMemorySize, T::Smem));
    k<<<dim3((unsigned)gx, (unsigned)gy), T::Threads, T::Smem, stream>>>(
        A, B, C, M, N, K);
    return cudaGetLastError();
}

// <<Launch the pipelined kernel on 128 by 128 tiles>>
extern "C" cudaError_t matmul_pipelined(MM_LAUNCH_ARGS)
{
    return mm_wt_launch<MmWarpTile<128, 128, 16, 8, 2, 2, 3, 2>>(A, B, C, M,
                                                                N, K, stream);
}

// <<Launch the pipelined kernel on 64 by 64 tiles>>
cudaError_t mm_pipelined_64(MM_LAUNCH_ARGS)
{
    return mm_wt_launch<MmWarpTile<64, 64, 16, 8, 1, 2, 3, 5>>(A, B, C, M,
                                                              N, K, stream);
}
