// radix_key.cuh -- keys as bits that sort in the keys' order.
#ifndef SORT_RADIX_KEY_CUH
#define SORT_RADIX_KEY_CUH
enum sort_kind { KIND_U32, KIND_I32, KIND_F32, KIND_U64 };
template <typename U>
__device__ __forceinline__ U radix_in(U u, int kind)
{
    const U top = (U)1 << (8 * sizeof(U) - 1);
    if (kind == KIND_I32) return u ^ top;
    if (kind == KIND_F32) return u & top ? ~u : u | top;
    return u;
}
template <typename U>
__device__ __forceinline__ U radix_out(U u, int kind)
{
    const U top = (U)1 << (8 * sizeof(U) - 1);
    if (kind == KIND_I32) return u ^ top;
    if (kind == KIND_F32) return u & top ? u & ~top : ~u;
    return u;
}
#endif
