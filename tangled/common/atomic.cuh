// atomic.cuh -- device-scope atomic access to plain memory.
// Written by the scan chapter; the sort chapter shares it.
#ifndef BOOK_ATOMIC_CUH
#define BOOK_ATOMIC_CUH
#include <cuda/atomic>

template <typename U>
using dev_atomic = cuda::atomic_ref<U, cuda::thread_scope_device>;
#endif
