/* variants.h -- the tensor-core chapter's launchers, listed once for its
 * test and its benchmark, in the order of the chapter and of
 * tensor-gemm.csv's rows:
 *     X(name, launcher, listing, cc, aligned)
 * name is the row in tensor-gemm.csv; listing the file its kernel is in;
 * cc the compute capability its code needs (80: 8.0 or later; 90: sm_90a
 * code, 9.0 only); aligned 1 when it takes only the 16-byte rule's sizes
 * (K and N multiples of 8, 16-byte aligned pointers). */
#ifndef TENSOR_GEMM_VARIANTS_H
#define TENSOR_GEMM_VARIANTS_H
#include "tensor-gemm/tc_gemm.h"

#define TC_VARIANTS(X)                                                    \
    X("wmma", tc_gemm_wmma, "tc_wmma.sm80.cu", 80, 0)                     \
    X("mma-unswizzled", tc_gemm_mma_unswizzled, "tc_mma.sm80.cu", 80, 1)  \
    X("mma", tc_gemm_mma, "tc_mma.sm80.cu", 80, 1)                        \
    X("wgmma", tc_gemm_wgmma, "tc_wgmma.sm90a.cu", 90, 1)                 \
    X("wgmma-in-flight", tc_gemm_wgmma_in_flight, "tc_wgmma.sm90a.cu", 90, \
      1)                                                                  \
    X("ws-128", tc_gemm_ws_128, "tc_wgmma.sm90a.cu", 90, 1)               \
    X("warp-specialized", tc_gemm_ws, "tc_wgmma.sm90a.cu", 90, 1)         \
    X("ws-row-order", tc_gemm_ws_row_order, "tc_wgmma.sm90a.cu", 90, 1)   \
    X("persistent", tc_gemm_persistent, "tc_wgmma.sm90a.cu", 90, 1)       \
    X("cluster", tc_gemm_cluster, "tc_wgmma.sm90a.cu", 90, 1)             \
    X("cluster-wg-arrive", tc_gemm_cluster_wg_arrive, "tc_wgmma.sm90a.cu", \
      90, 1)                                                              \
    X("best", tc_gemm, "tc_gemm.cu", 80, 0)
#endif
