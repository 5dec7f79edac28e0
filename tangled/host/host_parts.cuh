// host_parts.cuh -- what the host chapter's files share.
#ifndef HOST_PARTS_CUH
#define HOST_PARTS_CUH
#include "common/book.h"
#include "host/host.h"

// <<Keep the first error>>
static inline void keep_first(cudaError_t *first, cudaError_t e)
{
    if (*first == cudaSuccess) *first = e;
}

// <<Make an event>>
static inline cudaError_t new_event(cudaEvent_t *ev, unsigned flags)
{
    cudaEvent_t e;
    BOOK_TRY(cudaEventCreateWithFlags(&e, flags));
    *ev = e;
    return cudaSuccess;
}
#endif
