// arch/sm90.cuh -- the Hopper instructions as inline PTX (sm_90a only):
// mbarriers, TMA loads and the tensor maps they read, wgmma with its
// descriptors, fences and groups, setmaxnreg, clusters.  Any chapter may
// include it; it includes no chapter's header.  Names as in
// arch/sm80.cuh, the PTX operation's without a prefix: bar_* (mbarrier),
// tma_load* (cp.async.bulk.tensor, one overload per rank), wgmma_*,
// setmaxnreg_*, cluster_*; acc_fence and reg_fence (for the compiler
// only), align1024, swz_tile and, on the host, tensor_map_* are the
// book's own;
// macros start with WGMMA_.
#ifndef ARCH_SM90_CUH
#define ARCH_SM90_CUH
#include "arch/sm80.cuh"
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>
#include <mutex>
#include <string.h>

// <<Barriers in shared memory>>
static __device__ __forceinline__ void bar_init(uint64_t *bar, int count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(
                     smem_addr(bar)), "r"(count) : "memory");
}
// Orders the initializations before later uses of the barriers by other
// threads and by the copies (release, at cluster scope).
static __device__ __forceinline__ void bar_init_fence(void)
{
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
// One arrival that also says how many bytes the phase must still receive.
static __device__ __forceinline__ void bar_expect(uint64_t *bar, int bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n"
                 ::"r"(smem_addr(bar)), "r"(bytes) : "memory");
}
static __device__ __forceinline__ void bar_arrive(uint64_t *bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(
                     smem_addr(bar)) : "memory");
}
// Waits until the phase of parity parity has completed.
static __device__ __forceinline__ void bar_wait(uint64_t *bar, int parity)
{
    uint32_t done;
    do {
        asm volatile("{\n.reg .pred p;\n"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     "selp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done) : "r"(smem_addr(bar)), "r"(parity)
                     : "memory");
    } while (!done);
}

// <<TMA loads of a box, by rank>>
// The box of map at (x, y[, z[, w[, v]]]), x the inner (contiguous)
// coordinate, into dst; its bytes count towards bar's phase.  One
// overload per rank, 2 to 5, that of the map, as CuTe's SM90_TMA_LOAD.
static __device__ __forceinline__ void
tma_load(void *dst, const CUtensorMap *map, uint64_t *bar, int x, int y)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile"
                 ".mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n"
                 ::"r"(smem_addr(dst)), "l"(map), "r"(x), "r"(y),
                 "r"(smem_addr(bar)) : "memory");
}
static __device__ __forceinline__ void tma_load(void *dst,
                                                const CUtensorMap *map,
                                                uint64_t *bar, int x, int y,
                                                int z)
{
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile"
                 ".mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3, %4}], [%5];\n"
                 ::"r"(smem_addr(dst)), "l"(map), "r"(x), "r"(y), "r"(z),
                 "r"(smem_addr(bar)) : "memory");
}
static __device__ __forceinline__ void tma_load(void *dst,
                                                const CUtensorMap *map,
                                                uint64_t *bar, int x, int y,
                                                int z, int w)
{
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile"
                 ".mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3, %4, %5}], [%6];\n"
                 ::"r"(smem_addr(dst)), "l"(map), "r"(x), "r"(y), "r"(z),
                 "r"(w), "r"(smem_addr(bar)) : "memory");
}
static __device__ __forceinline__ void tma_load(void *dst,
                                                const CUtensorMap *map,
                                                uint64_t *bar, int x, int y,
                                                int z, int w, int v)
{
    asm volatile("cp.async.bulk.tensor.5d.shared::cluster.global.tile"
                 ".mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3, %4, %5, %6}], [%7];\n"
                 ::"r"(smem_addr(dst)), "l"(map), "r"(x), "r"(y), "r"(z),
                 "r"(w), "r"(v), "r"(smem_addr(bar)) : "memory");
}

// <<Make a tensor map through the runtime>>
// The driver's cuTensorMapEncodeTiled, looked up through the runtime so
// that nothing links libcuda; nullptr where the driver has none.
static inline PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder(void)
{
    static PFN_cuTensorMapEncodeTiled_v12000 fn = nullptr;
    if (fn == nullptr) {
        void *p = nullptr;
        cudaDriverEntryPointQueryResult q;
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p,
                                             12000, cudaEnableDefault,
                                             &q) == cudaSuccess &&
            q == cudaDriverEntryPointSuccess)
            fn = (PFN_cuTensorMapEncodeTiled_v12000)p;
    }
    return fn;
}
// A bf16 array of rank 2 to 5 as a tensor map: dims[0] elements along
// the contiguous dimension, dims[i] along dimension i, strides[i - 1]
// bytes from one index of dimension i to the next.  It is read in boxes
// of 64 elements (128 bytes, the widest box the 128-byte swizzle takes)
// by box_rows of dimension 1 by 1 of each other one; elements outside
// the array arrive as zeros.  Encoded every time: tensor_map_bf16,
// below, remembers the maps it made.
static inline cudaError_t tensor_map_encode_bf16(CUtensorMap *map,
                                                 const void *p, int rank,
                                                 const cuuint64_t *dims,
                                                 const cuuint64_t *strides,
                                                 unsigned box_rows)
{
    if (rank < 2 || rank > 5) return cudaErrorInvalidValue;
    PFN_cuTensorMapEncodeTiled_v12000 encode = tensor_map_encoder();
    if (encode == nullptr) return cudaErrorNotSupported;
    cuuint32_t box[5] = {64, box_rows, 1, 1, 1}, step[5] = {1, 1, 1, 1, 1};
    CUresult r = encode(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
                        (cuuint32_t)rank, (void *)p, dims, strides, box,
                        step, CU_TENSOR_MAP_INTERLEAVE_NONE,
                        CU_TENSOR_MAP_SWIZZLE_128B,
                        CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}

// <<The memo's key and entries>>
// Every input of one tensor_map_encode_bf16 that varies: the memo's key.
struct tensor_map_key {
    const void *p;
    int rank;
    unsigned box_rows;
    cuuint64_t dims[5], strides[4];
};
struct tensor_map_memo {
    static constexpr int entries = 32;
    std::mutex lock;
    tensor_map_key key[entries];
    CUtensorMap map[entries];
    int used = 0, next = 0;          // next: the oldest, replaced next
};
inline tensor_map_memo &tensor_map_memo_of_program(void)
{
    static tensor_map_memo memo;
    return memo;
}

// <<Look up a map, or encode and remember it>>
// tensor_map_encode_bf16, remembered: the map of the same inputs if one
// of the last 32 encodes had them, else a new encode.
static inline cudaError_t tensor_map_bf16(CUtensorMap *map, const void *p,
                                          int rank, const cuuint64_t *dims,
                                          const cuuint64_t *strides,
                                          unsigned box_rows)
{
    if (rank < 2 || rank > 5) return cudaErrorInvalidValue;
    tensor_map_key k;
    memset(&k, 0, sizeof k);         // padding too: keys compare as bytes
    k.p = p;
    k.rank = rank;
    k.box_rows = box_rows;
    for (int i = 0; i < rank; i++) k.dims[i] = dims[i];
    for (int i = 0; i + 1 < rank; i++) k.strides[i] = strides[i];
    tensor_map_memo &m = tensor_map_memo_of_program();
    std::lock_guard<std::mutex> hold(m.lock);
    for (int i = 0; i < m.used; i++)
        if (memcmp(&m.key[i], &k, sizeof k) == 0) {
            *map = m.map[i];
            return cudaSuccess;
        }
    cudaError_t err =
        tensor_map_encode_bf16(map, p, rank, dims, strides, box_rows);
    if (err != cudaSuccess) return err;
    m.key[m.next] = k;
    m.map[m.next] = *map;
    m.next = (m.next + 1) % tensor_map_memo::entries;
    if (m.used < tensor_map_memo::entries) m.used++;
    return cudaSuccess;
}

// <<Align shared memory for the 128-byte swizzle>>
static __device__ __forceinline__ uint8_t *align1024(uint8_t *p)
{
    return (uint8_t *)(((uintptr_t)p + 1023) & ~(uintptr_t)1023);
}

// <<A swizzled tile's sizes and offsets>>
// A ROWS x COLS bf16 tile as TMA writes it with the 128-byte swizzle:
// COLS / 64 panels of ROWS rows of 128 bytes, one after the other.  Its
// bytes (what a copy of it delivers), a panel's, the 8 rows of the
// swizzle's period (a descriptor's stride byte offset), and the byte
// offsets of row r and of column c < 64 in a panel as a descriptor's
// start takes them, before the swizzle.
template <int ROWS, int COLS>
struct swz_tile {
    static_assert(ROWS % 8 == 0 && COLS % 64 == 0, "whole swizzle atoms");
    static constexpr int panel = ROWS * 128;
    static constexpr int bytes = COLS / 64 * panel;
    static constexpr int atom = 8 * 128;
    __host__ __device__ static constexpr int rows(int r) { return r * 128; }
    __host__ __device__ static constexpr int cols(int c) { return c * 2; }
};

// <<Matrix descriptors>>
// A shared-memory matrix for wgmma: its start, the leading and stride
// byte offsets, and the 128-byte swizzle (mode 1 in bits 62-63).
static __device__ __forceinline__ uint64_t wgmma_desc(const void *p,
                                                      uint32_t lbo,
                                                      uint32_t sbo)
{
    return (uint64_t)((smem_addr(p) & 0x3FFFF) >> 4) |
           (uint64_t)((lbo >> 4) & 0x3FFF) << 16 |
           (uint64_t)((sbo >> 4) & 0x3FFF) << 32 | 1ull << 62;
}

// <<The wgmma fences and groups>>
static __device__ __forceinline__ void wgmma_fence(void)
{
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
// Orders this thread's generic stores to shared memory before the reads
// of the async proxy (TMA, wgmma) that follow: each writer fences, then a
// barrier hands the data to the other threads.
static __device__ __forceinline__ void fence_proxy_async(void)
{
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}
static __device__ __forceinline__ void wgmma_commit(void)
{
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
// Waits until at most N committed groups of this warpgroup are pending.
template <int N> static __device__ __forceinline__ void wgmma_wait(void)
{
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
// Keeps the compiler from moving accumulator registers across the
// asynchronous wgmma: each is an operand of an empty asm.
template <int R>
static __device__ __forceinline__ void acc_fence(float (&d)[R])
{
#pragma unroll
    for (int i = 0; i < R; i++) asm volatile("" : "+f"(d[i])::"memory");
}

// <<Registers moved between warpgroups>>
template <int R>
static __device__ __forceinline__ void setmaxnreg_inc(void)
{
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(R));
}
template <int R>
static __device__ __forceinline__ void setmaxnreg_dec(void)
{
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(R));
}

// <<Clusters: multicast copies and remote arrivals>>
// The box of map at (x, y) into dst of every block of the cluster whose
// bit is set in mask, each copy counted by the barrier at bar's offset
// in that block.
static __device__ __forceinline__ void
tma_load_multicast(void *dst, const CUtensorMap *map, uint64_t *bar,
                   int x, int y, uint16_t mask)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile"
                 ".mbarrier::complete_tx::bytes.multicast::cluster"
                 " [%0], [%1, {%2, %3}], [%4], %5;\n"
                 ::"r"(smem_addr(dst)), "l"(map), "r"(x), "r"(y),
                 "r"(smem_addr(bar)), "h"(mask) : "memory");
}
// One arrival on the barrier at bar's offset in block rank of the cluster.
static __device__ __forceinline__ void bar_arrive_in(uint64_t *bar,
                                                     int rank)
{
    asm volatile("{\n.reg .b32 r;\n"
                 "mapa.shared::cluster.u32 r, %0, %1;\n"
                 "mbarrier.arrive.release.cluster.shared::cluster.b64"
                 " _, [r];\n"
                 "}\n" ::"r"(smem_addr(bar)), "r"(rank) : "memory");
}
static __device__ __forceinline__ int cluster_rank(void)
{
    int r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
    return r;
}
// Every thread of every block of the cluster arrives and waits.
static __device__ __forceinline__ void cluster_sync(void)
{
    asm volatile("barrier.cluster.arrive.release.aligned;\n"
                 "barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}

// <<wgmma of 64 x N x 16 from shared memory>>
// The accumulators d[0..N/2) of a 64 x N wgmma as asm operands,
// WGMMA_D8(i) for d[i] to d[i + 7], and the list that names them in the
// instruction, WGMMA_R32, _R64 and _R128 for %0 to %31, %63 and %127.
#define WGMMA_D8(i)                                                        \
    "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]),           \
        "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])
#define WGMMA_D32 WGMMA_D8(0), WGMMA_D8(8), WGMMA_D8(16), WGMMA_D8(24)
#define WGMMA_D64                                                          \
    WGMMA_D32, WGMMA_D8(32), WGMMA_D8(40), WGMMA_D8(48), WGMMA_D8(56)
#define WGMMA_D128                                                         \
    WGMMA_D64, WGMMA_D8(64), WGMMA_D8(72), WGMMA_D8(80), WGMMA_D8(88),    \
        WGMMA_D8(96), WGMMA_D8(104), WGMMA_D8(112), WGMMA_D8(120)
#define WGMMA_R32                                                          \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, "                             \
    "%10, %11, %12, %13, %14, %15, %16, %17, %18, %19, "                   \
    "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define WGMMA_R64                                                          \
    WGMMA_R32 ", %32, %33, %34, %35, %36, %37, %38, %39, "                 \
              "%40, %41, %42, %43, %44, %45, %46, %47, %48, %49, "         \
              "%50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "         \
              "%60, %61, %62, %63"
#define WGMMA_R128                                                         \
    WGMMA_R64 ", %64, %65, %66, %67, %68, %69, "                           \
              "%70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "         \
              "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, "         \
              "%90, %91, %92, %93, %94, %95, %96, %97, %98, %99, "         \
              "%100, %101, %102, %103, %104, %105, %106, %107, %108, "     \
              "%109, %110, %111, %112, %113, %114, %115, %116, %117, "     \
              "%118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
// d = A B + (scale_d ? d : 0) for one 64 x N x 16 step of a warpgroup, N
// = 128 or 256: A and B from shared memory through their descriptors, A
// K-major, B transposed (MN-major, TRANS_B = 1: B is row-major K x N) or
// not (TRANS_B = 0: B[k][n] is row n's element k).
template <int N, int TRANS_B>
static __device__ __forceinline__ void
wgmma_ss(float (&d)[N / 2], uint64_t da, uint64_t db, int scale_d)
{
    static_assert(N == 128 || N == 256, "wgmma_ss: N is 128 or 256 here");
    if constexpr (N == 128)
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
                     "{" WGMMA_R64 "}, %64, %65, p, 1, 1, 0, %67;\n}\n"
                     : WGMMA_D64
                     : "l"(da), "l"(db), "r"(scale_d), "n"(TRANS_B));
    else
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 "
                     "{" WGMMA_R128 "}, %128, %129, p, 1, 1, 0, %131;\n}\n"
                     : WGMMA_D128
                     : "l"(da), "l"(db), "r"(scale_d), "n"(TRANS_B));
}

// <<wgmma of 64 x N x 16 with A from registers>>
// d += A B for 64 rows x N x 16, N = 64 or 128: A in four registers of
// bf16 pairs a thread (the m16n8k16 A fragment of each warp's 16 rows),
// B from shared memory through its descriptor, MN-major (transposed: B
// is row-major K x N).  The register form has no imm-trans-a.
template <int N>
static __device__ __forceinline__ void
wgmma_rs(float (&d)[N / 2], const uint32_t a[4], uint64_t db)
{
    static_assert(N == 64 || N == 128, "wgmma_rs: N is 64 or 128 here");
    if constexpr (N == 64)
        asm volatile("wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
                     "{" WGMMA_R32 "}, {%32, %33, %34, %35}, %36,"
                     " 1, 1, 1, 1;\n"
                     : WGMMA_D32
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));
    else
        asm volatile("wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
                     "{" WGMMA_R64 "}, {%64, %65, %66, %67}, %68,"
                     " 1, 1, 1, 1;\n"
                     : WGMMA_D64
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));
}
// Keeps registers read by a wgmma in flight (A fragments: R of four)
// alive and unmoved until the wgmma is known to be done.
template <int R>
static __device__ __forceinline__ void reg_fence(uint32_t (&r)[R][4])
{
#pragma unroll
    for (int i = 0; i < R; i++)
#pragma unroll
        for (int e = 0; e < 4; e++)
            asm volatile("" : "+r"(r[i][e])::"memory");
}
#endif
