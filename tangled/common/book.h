// book.h -- what every chapter's code shares.
#ifndef BOOK_H
#define BOOK_H
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

// <<Return the first CUDA error to the caller>>
#define BOOK_TRY(call)                                                  \
    do {                                                                \
        cudaError_t book_err_ = (call);                                 \
        if (book_err_ != cudaSuccess) return book_err_;                 \
    } while (0)

// <<Stop the program on a CUDA error>>
#define BOOK_CHECK(call)                                                \
    do {                                                                \
        cudaError_t book_err_ = (call);                                 \
        if (book_err_ != cudaSuccess) {                                 \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__,      \
                    #call, cudaGetErrorString(book_err_));              \
            exit(EXIT_FAILURE);                                         \
        }                                                               \
    } while (0)

// <<Return an earlier error instead of launching>>
#define BOOK_CLEAR_TO_LAUNCH() BOOK_TRY(cudaGetLastError())

// <<Ceiling division>>
static inline size_t ceil_div(size_t n, size_t b)
{
    return n / b + (n % b != 0);
}

// <<Is a pointer aligned>>
static inline int is_aligned(const void *p, size_t bytes)
{
    return (uintptr_t)p % bytes == 0;
}

// <<Do two byte ranges overlap>>
static inline int ranges_overlap(const void *a, size_t abytes,
                                 const void *b, size_t bbytes)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    if (abytes > UINTPTR_MAX - x || bbytes > UINTPTR_MAX - y) return 1;
    return x < y + bbytes && y < x + abytes;
}

// <<How many SMs the current device has>>
static inline cudaError_t book_sm_count(int *sms)
{
    int dev;
    BOOK_TRY(cudaGetDevice(&dev));
    return cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, dev);
}

// <<The compute capability of the current device>>
// As 10 major + minor; 0 when there is no device.  A building block of
// the shared layer: it is tangled into common/book.h.
static inline int book_device_cc(void)
{
    int dev = 0, major = 0, minor = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) return 0;
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
    return 10 * major + minor;
}
#endif
