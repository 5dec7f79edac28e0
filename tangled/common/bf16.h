// bf16.h -- book_bf16, one bf16 value: CUDA's __nv_bfloat16 in C++ and
// the same two bytes, __nv_bfloat16_raw, in C.
#ifndef BOOK_BF16_H
#define BOOK_BF16_H
#include <cuda_bf16.h>
#ifdef __cplusplus
typedef __nv_bfloat16 book_bf16;
#else
typedef __nv_bfloat16_raw book_bf16;  // the same two bytes, seen from C
#endif
#endif
