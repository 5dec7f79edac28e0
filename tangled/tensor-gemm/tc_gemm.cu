// tc_gemm.cu -- the chapter's best launcher: the fastest kernel that takes
// the arguments on this device, falling back in a stated order.
#include "tensor-gemm/tc_args.cuh"

extern "C" cudaError_t tc_gemm(const book_bf16 *A, const book_bf16 *B,
                               void *C, tc_out out, size_t M, size_t N,
                               size_t K, cudaStream_t stream)
{
    int done;
    cudaError_t err = tc_common_args(A, B, C, out, M, N, K, stream, &done);
    if (done) return err;
    const int cc = book_device_cc();
    const int aligned = tc_rows_whole_chunks(N, K) && is_aligned(A, 16) &&
                        is_aligned(B, 16) && is_aligned(C, 16);
    if (cc == 90 && aligned) {
        // It refuses only more tiles than an int counts; mma takes them.
        err = tc_gemm_ws(A, B, C, out, M, N, K, stream);
        if (err != cudaErrorInvalidValue) return err;
    }
    if (cc >= 80 && aligned)
        return tc_gemm_mma(A, B, C, out, M, N, K, stream);
    return tc_gemm_wmma(A, B, C, out, M, N, K, stream);
}
