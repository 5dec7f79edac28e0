// flash.cu -- the launcher that picks the best bf16 attention for the GPU.
#include "flash/flash_args.cuh"

// <<The best bf16 attention>>
extern "C" cudaError_t flash_attention(const book_bf16 *q,
                                       const book_bf16 *k,
                                       const book_bf16 *v, book_bf16 *o,
                                       float *lse, flash_dims a,
                                       cudaStream_t stream)
{
    if (book_device_cc() == 90)
        return flash_wgmma(q, k, v, o, lse, a, stream);
    return flash_mma(q, k, v, o, lse, a, stream);
}
