// arch/sm80.cuh -- the Ampere instructions as inline PTX: cp.async,
// ldmatrix, mma.sync, and the 128-byte swizzle of a shared tile.
// Any chapter may include it; it includes no chapter's header.  Names
// are the PTX operation's, lower case, without a prefix: cp_async16,
// cp_async_commit, cp_async_wait<N>, ldmatrix_x4[_trans], mma_16816
// (m16n8k16); smem_addr (a shared-memory address as PTX takes it) and
// swz128 (the swizzle) are the book's own.
#ifndef ARCH_SM80_CUH
#define ARCH_SM80_CUH
#include <cuda_bf16.h>
#include <stdint.h>

// <<Asynchronous copies of 16 bytes>>
static __device__ __forceinline__ uint32_t smem_addr(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}
// 16 bytes from global to shared without passing through registers; when
// bytes is 0 nothing is read and the 16 bytes are zeros.
static __device__ __forceinline__ void cp_async16(uint32_t dst,
                                                  const void *src,
                                                  int bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst),
                 "l"(src), "r"(bytes) : "memory");
}
static __device__ __forceinline__ void cp_async_commit(void)
{
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}
// Waits until at most N of this thread's groups of copies are in flight.
template <int N> static __device__ __forceinline__ void cp_async_wait(void)
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

// <<Load fragments with ldmatrix>>
// Four 8 x 8 matrices of 16-bit elements; lane l gives the address of row
// l % 8 of matrix l / 8.  .trans hands each thread a column pair instead.
static __device__ __forceinline__ void ldmatrix_x4(uint32_t r[4],
                                                   uint32_t addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 "
                 "{%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}
static __device__ __forceinline__ void ldmatrix_x4_trans(uint32_t r[4],
                                                         uint32_t addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 "
                 "{%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

// <<One mma.sync of 16 x 8 x 16>>
// d += a b for a 16 x 16 tile of A and a 16 x 8 tile of B (bf16, fp32 d).
static __device__ __forceinline__ void mma_16816(float d[4],
                                                 const uint32_t a[4],
                                                 const uint32_t b[2])
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                 "{%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]),
                   "r"(b[1]));
}

// <<The 128-byte swizzle>>
// The byte offset of 16-byte chunk c (0..7) of row r in a tile of 128-byte
// rows, swizzled as TMA's 128-byte mode does it: chunk c ^ (r mod 8).
static __device__ __forceinline__ uint32_t swz128(int r, int c)
{
    return (uint32_t)(r * 128 + ((c ^ (r & 7)) << 4));
}
#endif
