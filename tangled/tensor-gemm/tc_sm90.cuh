// tc_sm90.cuh -- the Hopper instructions as inline PTX: mbarriers, TMA
// loads, wgmma and its shared-memory descriptors (sm_90a only).
#pragma once
#include "arch/sm80.cuh"
#include <cuda.h>

// <<Barriers in shared memory>>
static __device__ __forceinline__ void tc_bar_init(uint64_t *bar, int count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(
                     smem_addr(bar)), "r"(count) : "memory");
}
// Orders the initializations before later uses of the barriers by other
// threads and by the copies (release, at cluster scope).
static __device__ __forceinline__ void tc_bar_init_fence(void)
{
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
// One arrival that also says how many bytes the phase must still receive.
static __device__ __forceinline__ void tc_bar_expect(uint64_t *bar, int bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n"
                 ::"r"(smem_addr(bar)), "r"(bytes) : "memory");
}
static __device__ __forceinline__ void tc_bar_arrive(uint64_t *bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(
                     smem_addr(bar)) : "memory");
}
// Waits until the phase of parity parity has completed.
static __device__ __forceinline__ void tc_bar_wait(uint64_t *bar, int parity)
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

// <<One TMA load of a box>>
// The box of map at (x, y), x the inner (contiguous) coordinate, into
// dst; its bytes count towards bar's phase.
static __device__ __forceinline__ void
tc_tma_load(void *dst, const CUtensorMap *map, uint64_t *bar, int x, int y)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile"
                 ".mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n"
                 ::"r"(smem_addr(dst)), "l"(map), "r"(x), "r"(y),
                 "r"(smem_addr(bar)) : "memory");
}

// <<Matrix descriptors>>
// A shared-memory matrix for wgmma: its start, the leading and stride
// byte offsets, and the 128-byte swizzle (mode 1 in bits 62-63).
static __device__ __forceinline__ uint64_t tc_desc(const void *p,
                                                   uint32_t lbo, uint32_t sbo)
{
    return (uint64_t)((smem_addr(p) & 0x3FFFF) >> 4) |
           (uint64_t)((lbo >> 4) & 0x3FFF) << 16 |
           (uint64_t)((sbo >> 4) & 0x3FFF) << 32 | 1ull << 62;
}

// <<The wgmma fences and groups>>
static __device__ __forceinline__ void tc_wgmma_fence(void)
{
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
static __device__ __forceinline__ void tc_wgmma_commit(void)
{
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
// Waits until at most N committed groups of this warpgroup are pending.
template <int N> static __device__ __forceinline__ void tc_wgmma_wait(void)
{
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
// Keeps the compiler from moving accumulator registers across the
// asynchronous wgmma: each is an operand of an empty asm.
template <int R>
static __device__ __forceinline__ void tc_acc_fence(float (&d)[R])
{
#pragma unroll
    for (int i = 0; i < R; i++) asm volatile("" : "+f"(d[i])::"memory");
}

// <<Registers moved between warpgroups>>
template <int R>
static __device__ __forceinline__ void tc_setmaxnreg_inc(void)
{
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(R));
}
template <int R>
static __device__ __forceinline__ void tc_setmaxnreg_dec(void)
{
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(R));
}

// <<Clusters: multicast copies and remote arrivals>>
// The box of map at (x, y) into dst of every block of the cluster whose
// bit is set in mask, each copy counted by the barrier at bar's offset
// in that block.
static __device__ __forceinline__ void
tc_tma_load_multicast(void *dst, const CUtensorMap *map, uint64_t *bar,
                      int x, int y, uint16_t mask)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile"
                 ".mbarrier::complete_tx::bytes.multicast::cluster"
                 " [%0], [%1, {%2, %3}], [%4], %5;\n"
                 ::"r"(smem_addr(dst)), "l"(map), "r"(x), "r"(y),
                 "r"(smem_addr(bar)), "h"(mask) : "memory");
}
// One arrival on the barrier at bar's offset in block rank of the cluster.
static __device__ __forceinline__ void tc_bar_arrive_in(uint64_t *bar,
                                                        int rank)
{
    asm volatile("{\n.reg .b32 r;\n"
                 "mapa.shared::cluster.u32 r, %0, %1;\n"
                 "mbarrier.arrive.release.cluster.shared::cluster.b64"
                 " _, [r];\n"
                 "}\n" ::"r"(smem_addr(bar)), "r"(rank) : "memory");
}
static __device__ __forceinline__ int tc_cluster_rank(void)
{
    int r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
    return r;
}
// Every thread of every block of the cluster arrives and waits.
static __device__ __forceinline__ void tc_cluster_sync(void)
{
    asm volatile("barrier.cluster.arrive.release.aligned;\n"
                 "barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}

// <<wgmma of 64 x 128 x 16 and of 64 x 256 x 16>>
#define TC_D8(i)                                                           \
    "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]),           \
        "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])
// d = A B + (scale_d ? d : 0) for one 64 x 128 x 16 step of a warpgroup:
// A and B from shared memory through their descriptors, B transposed
// (MN-major: B is row-major K x N).
static __device__ __forceinline__ void
tc_wgmma_n128(float d[64], uint64_t da, uint64_t db, int scale_d)
{
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, "
        "%10, %11, %12, %13, %14, %15, %16, %17, %18, %19, "
        "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, "
        "%30, %31, %32, %33, %34, %35, %36, %37, %38, %39, "
        "%40, %41, %42, %43, %44, %45, %46, %47, %48, %49, "
        "%50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
        "%60, %61, %62, %63"
        "}, %64, %65, p, 1, 1, 0, 1;\n}\n"
        : TC_D8(0),
        TC_D8(8),
        TC_D8(16),
        TC_D8(24),
        TC_D8(32),
        TC_D8(40),
        TC_D8(48),
        TC_D8(56)
        : "l"(da), "l"(db), "r"(scale_d));
}
// d = A B + (scale_d ? d : 0) for one 64 x 256 x 16 step of a warpgroup:
// A and B from shared memory through their descriptors, B transposed
// (MN-major: B is row-major K x N).
static __device__ __forceinline__ void
tc_wgmma_n256(float d[128], uint64_t da, uint64_t db, int scale_d)
{
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, "
        "%10, %11, %12, %13, %14, %15, %16, %17, %18, %19, "
        "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, "
        "%30, %31, %32, %33, %34, %35, %36, %37, %38, %39, "
        "%40, %41, %42, %43, %44, %45, %46, %47, %48, %49, "
        "%50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
        "%60, %61, %62, %63, %64, %65, %66, %67, %68, %69, "
        "%70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
        "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, "
        "%90, %91, %92, %93, %94, %95, %96, %97, %98, %99, "
        "%100, %101, %102, %103, %104, %105, %106, %107, %108, %109, "
        "%110, %111, %112, %113, %114, %115, %116, %117, %118, %119, "
        "%120, %121, %122, %123, %124, %125, %126, %127"
        "}, %128, %129, p, 1, 1, 0, 1;\n}\n"
        : TC_D8(0),
        TC_D8(8),
        TC_D8(16),
        TC_D8(24),
        TC_D8(32),
        TC_D8(40),
        TC_D8(48),
        TC_D8(56),
        TC_D8(64),
        TC_D8(72),
        TC_D8(80),
        TC_D8(88),
        TC_D8(96),
        TC_D8(104),
        TC_D8(112),
        TC_D8(120)
        : "l"(da), "l"(db), "r"(scale_d));
}
