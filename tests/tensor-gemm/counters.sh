#!/bin/bash
# counters.sh -- the tensor-core chapter's counters, run by `make bench`
# after its benchmark: with Nsight Compute, one launch each of the wmma
# kernel, the mma.sync kernels (swizzled and not) and the seven wgmma ones at
# 4096^3 (build/tensor-gemm/bench --ncu VARIANT): the kernel's time, how
# busy the tensor pipe was (the HMMA pipe counts mma.sync and wgmma), the
# ldmatrix instructions, their shared-memory wavefronts and bank
# conflicts, the main stall reasons in cycles per issued instruction, and
# the bytes through the L2 and read from DRAM (what the cluster's
# multicast and the tile order should save).
# A metric this ncu does not know is written as "-".  Writes
# figures/data/$BOOK_GPU/tensor-gemm-ncu.csv.
set -o pipefail
. tools/ncu-lib.sh
ncu_start tensor-gemm tensor-gemm-ncu.csv || exit 1
ncu_known
cols="time_ns:gpu__time_duration.sum
tensor_pct:sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active
ldsm_inst:smsp__inst_executed_op_ldsm.sum
lds_wavefronts:l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
lds_conflicts:l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
issue_active_pct:smsp__issue_active.avg.pct_of_peak_sustained_active
stall_long_scoreboard:$(ncu_stall long_scoreboard)
stall_barrier:$(ncu_stall barrier)
stall_wait:$(ncu_stall wait)
stall_math_pipe:$(ncu_stall math_pipe_throttle)
stall_sleeping:$(ncu_stall sleeping)
l2_bytes:lts__t_bytes.sum
dram_read_bytes:dram__bytes_read.sum"
ncu_table "$cols" 'wmma_kernel|mma_kernel|wgmma_kernel|ws_kernel|cluster_kernel' \
  "one launch each at M = N = K = 4096, C in bf16, ncu --clock-control none; stalls in cycles per issued instruction" \
  wmma mma-unswizzled mma wgmma wgmma-in-flight ws-128 warp-specialized \
  ws-row-order persistent cluster cluster-wg-arrive
