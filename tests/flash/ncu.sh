#!/bin/bash
# ncu.sh -- the bf16 attention chapter's counters, run by counters.sh:
# with Nsight Compute, one launch each of the mma.sync kernels (4 and 8
# warps) and the wgmma kernel at B4 H16 S4096 D128, not causal, and the
# wgmma kernel at B8 H16 S4096 D64 (row wgmma_d64; build/flash/bench
# --ncu VARIANT [d64]); the same for the wgmma kernel without step 3's
# overlap (wgmma_serial, wgmma_serial_d64) and in the other block order
# (wgmma_tiles, wgmma_tiles_d64): the kernel's time, how busy the
# tensor pipe (HMMA counts mma.sync and wgmma) and the XU pipe (the
# special-function unit: exp2) were, the issue slots used, the main
# stall reasons in cycles per issued instruction, and the bytes read
# from DRAM with the L2's hit rate (what the block order changes).  A metric this ncu does
# not know is written as "-".  Writes figures/data/$BOOK_GPU/flash-ncu.csv.
set -o pipefail
. tools/ncu-lib.sh
ncu_start flash flash-ncu.csv || exit 1
ncu_known
cols="time_ns:gpu__time_duration.sum
tensor_pct:sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active
xu_pct:sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active
issue_active_pct:smsp__issue_active.avg.pct_of_peak_sustained_active
stall_long_scoreboard:$(ncu_stall long_scoreboard)
stall_short_scoreboard:$(ncu_stall short_scoreboard)
stall_barrier:$(ncu_stall barrier)
stall_wait:$(ncu_stall wait)
stall_math_pipe:$(ncu_stall math_pipe_throttle)
stall_sleeping:$(ncu_stall sleeping)
dram_read_bytes:dram__bytes_read.sum
l2_hit_pct:lts__t_sector_hit_rate.pct"
# NAME_d64: the variant NAME on the D = 64 shape.
ncu_args() { case $1 in *_d64) echo --ncu "${1%_d64}" d64 ;; *) echo --ncu "$1" ;; esac; }
ncu_table "$cols" 'flash_mma_kernel|flash_wgmma_kernel' \
  "one launch each at B4 H16 S4096 D128 (NAME_d64: B8 H16 S4096 D64), not causal, ncu --clock-control none; stalls in cycles per issued instruction" \
  mma64 mma wgmma wgmma_d64 wgmma_serial wgmma_serial_d64 wgmma_tiles \
  wgmma_tiles_d64
