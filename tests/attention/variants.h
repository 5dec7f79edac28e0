/* variants.h -- the attention chapter's launchers, listed once for its
 * test and its benchmark:
 *     X(ID, name, call)
 * ID is the launcher's number (in this order: the unfused forms, then the
 * fused), name its variant in attention.csv, call how attn_launch calls
 * it.  The split form takes the unfused forms' workspace, which is never
 * smaller than its own at the rule's count.  The fused launchers are those from WARP on, the tiled ones those
 * from TILED on. */
#ifndef ATTENTION_VARIANTS_H
#define ATTENTION_VARIANTS_H
#include "attention/attention.h"
#include "common/book.h"

/* The split rule's count for this GPU (for 132 SMs where there is none:
 * the refusal tests run without one). */
static inline int attn_split_rule(attn_dims a)
{
    int sms = 0;
    if (book_sm_count(&sms) != cudaSuccess) {
        (void)cudaGetLastError();
        sms = 132;
    }
    return attention_split_count(a, sms);
}

#define ATTENTION_VARIANTS(X)                                            \
    X(THREE, "three_kernel",                                             \
      attention_three_kernel(q, k, v, o, a, work, s))                    \
    X(CUBLAS, "cublas", attention_cublas(h, q, k, v, o, a, work, s))     \
    X(WARP, "warp", attention_warp(q, k, v, o, a, s))                    \
    X(TILED, "tiled", attention_tiled(q, k, v, o, a, s))                 \
    X(COMPACT, "tiled_compact",                                          \
      attention_tiled_compact(q, k, v, o, a, s))                         \
    X(SPLIT, "tiled_split",                                              \
      attention_split(q, k, v, o, a, attn_split_rule(a), work,          \
                      attention_work_bytes(a), s))

#define ATTN_ID(id, name, call) id,
enum { ATTENTION_VARIANTS(ATTN_ID) NLAUNCH };
#undef ATTN_ID

static inline const char *attn_variant_name(int which)
{
#define ATTN_NAME(id, name, call) if (which == id) return name;
    ATTENTION_VARIANTS(ATTN_NAME)
#undef ATTN_NAME
    return "?";
}

/* Launcher WHICH on these arguments (h and work only where it takes them),
 * queued on stream s.  cudaErrorInvalidValue for a WHICH outside the
 * list. */
static inline cudaError_t attn_launch(int which, cublasHandle_t h,
                                      const float *q, const float *k,
                                      const float *v, float *o,
                                      attn_dims a, void *work,
                                      cudaStream_t s)
{
    (void)h; (void)work; (void)s;
#define ATTN_CALL(id, name, call) if (which == id) return call;
    ATTENTION_VARIANTS(ATTN_CALL)
#undef ATTN_CALL
    return cudaErrorInvalidValue;
}
#endif
