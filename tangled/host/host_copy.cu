// host_copy.cu -- the pinned-memory check and the staged upload.
#include <string.h>
#include "host/host_parts.cuh"

// <<Is one byte pinned>>
static cudaError_t byte_is_pinned(const void *p, int *pinned)
{
    cudaPointerAttributes a;
    BOOK_TRY(cudaPointerGetAttributes(&a, p));
    *pinned = a.type == cudaMemoryTypeHost;
    return cudaSuccess;
}

// <<Is a range pinned>>
extern "C" cudaError_t host_is_pinned(const void *p, size_t bytes,
                                      int *pinned)
{
    if (!p || !pinned || bytes == 0) return cudaErrorInvalidValue;
    if (bytes - 1 > UINTPTR_MAX - (uintptr_t)p) return cudaErrorInvalidValue;
    int first, last;
    BOOK_TRY(byte_is_pinned(p, &first));
    BOOK_TRY(byte_is_pinned((const char *)p + (bytes - 1), &last));
    *pinned = first && last;
    return cudaSuccess;
}

// <<The staged upload's state>>
struct host_stage {
    size_t piece;               // bytes a bounce buffer holds
    void *buf[2];               // pinned
    cudaEvent_t done[2];        // the last copy out of buf[i] has ended
};

// <<Create a staged upload>>
extern "C" cudaError_t host_stage_create(host_stage **out, size_t piece)
{
    if (!out) return cudaErrorInvalidValue;
    *out = NULL;
    if (piece == 0) return cudaErrorInvalidValue;
    host_stage *st = (host_stage *)calloc(1, sizeof *st);
    if (!st) return cudaErrorMemoryAllocation;
    st->piece = piece;
    cudaError_t e = cudaSuccess;
    for (int i = 0; i < 2 && e == cudaSuccess; i++) {
        void *b = NULL;
        cudaEvent_t ev = NULL;
        e = cudaMallocHost(&b, piece);
        if (e == cudaSuccess) st->buf[i] = b;
        if (e == cudaSuccess)
            e = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
        if (e == cudaSuccess) st->done[i] = ev;
    }
    if (e != cudaSuccess) {
        host_stage_destroy(st);        // frees what was made
        return e;
    }
    *out = st;
    return cudaSuccess;
}

// <<Destroy a staged upload>>
extern "C" cudaError_t host_stage_destroy(host_stage *st)
{
    if (!st) return cudaSuccess;
    cudaError_t first = cudaSuccess;
    for (int i = 0; i < 2; i++) {
        if (st->done[i]) {
            keep_first(&first, cudaEventSynchronize(st->done[i]));
            keep_first(&first, cudaEventDestroy(st->done[i]));
        }
        if (st->buf[i]) keep_first(&first, cudaFreeHost(st->buf[i]));
    }
    free(st);
    return first;
}

// <<Upload through two bounce buffers>>
extern "C" cudaError_t host_upload_staged(host_stage *st, void *dst,
                                          const void *src, size_t bytes,
                                          cudaStream_t s)
{
    if (bytes == 0) return cudaSuccess;
    if (!st || !dst || !src) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    char *d = (char *)dst;
    const char *h = (const char *)src;
    size_t j = 0;
    for (size_t off = 0; off < bytes; off += st->piece, j++) {
        size_t len = bytes - off < st->piece ? bytes - off : st->piece;
        int b = (int)(j % 2);
        BOOK_TRY(cudaEventSynchronize(st->done[b]));  // buf[b] is free
        memcpy(st->buf[b], h + off, len);
        BOOK_TRY(cudaMemcpyAsync(d + off, st->buf[b], len,
                                 cudaMemcpyHostToDevice, s));
        BOOK_TRY(cudaEventRecord(st->done[b], s));
    }
    return cudaSuccess;
}

// <<Wrong on purpose: refill a bounce buffer before its copy is done>>
extern "C" cudaError_t host_upload_staged_wrong_reuse(host_stage *st,
                                                      void *dst,
                                                      const void *src,
                                                      size_t bytes,
                                                      cudaStream_t s)
{
    if (bytes == 0) return cudaSuccess;
    if (!st || !dst || !src) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    char *d = (char *)dst;
    const char *h = (const char *)src;
    size_t j = 0;
    for (size_t off = 0; off < bytes; off += st->piece, j++) {
        size_t len = bytes - off < st->piece ? bytes - off : st->piece;
        int b = (int)(j % 2);
        memcpy(st->buf[b], h + off, len);   // WRONG: its copy may not
        BOOK_TRY(cudaMemcpyAsync(d + off, st->buf[b], len,   // have run
                                 cudaMemcpyHostToDevice, s));
        BOOK_TRY(cudaEventRecord(st->done[b], s));
    }
    return cudaSuccess;
}
