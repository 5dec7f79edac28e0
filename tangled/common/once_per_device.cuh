// once_per_device.cuh -- a value computed once per device, from any host
// thread.  Written by the softmax chapter; later chapters share it.
#ifndef BOOK_ONCE_PER_DEVICE_CUH
#define BOOK_ONCE_PER_DEVICE_CUH
#include <atomic>
#include <mutex>
#include "common/book.h"

constexpr int kMaxDevices = 64;
template <typename T> struct per_device {
    std::mutex lock;                          // held while computing
    std::atomic<bool> ready[kMaxDevices] = {};
    T value[kMaxDevices] = {};
};

// <<Get the current device's value, computing it the first time>>
template <typename T, typename F>
cudaError_t once_per_device(per_device<T> &c, F make, T *out)
{
    int dev;
    BOOK_TRY(cudaGetDevice(&dev));
    if (dev < 0 || dev >= kMaxDevices) return cudaErrorInvalidDevice;
    if (!c.ready[dev].load(std::memory_order_acquire)) {
        std::lock_guard<std::mutex> hold(c.lock);
        if (!c.ready[dev].load(std::memory_order_relaxed)) {
            T v;
            BOOK_TRY(make(&v));               // on failure: try next time
            c.value[dev] = v;
            c.ready[dev].store(true, std::memory_order_release);
        }
    }
    *out = c.value[dev];
    return cudaSuccess;
}
#endif
