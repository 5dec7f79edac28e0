#!/bin/bash
# counters.sh -- the sort chapter's counters, which `make bench` runs
# after the benchmarks.  Nsight Compute profiles one textbook sort and one
# Onesweep sort of the same shape (256 x 16) of 2^26 uniform keys
# (build/sort/bench --ncu): each launch's time, DRAM throughput, cycles
# between a warp's instructions (cycles per issued instruction) and the
# part of them stalled on a long scoreboard (global and L2 loads, which is
# where a look-back waits) and at a barrier, and the warps resident;
# then the stalls that shared memory causes (short scoreboard: waiting for
# a shared load or an atomic; MIO throttle: the shared-memory pipe's queue
# full) and the shared-memory bank conflicts of loads and stores, so that
# the chapter measures, not infers, where the rest of the cycles go; and
# the warp-level global load instructions, whose excess over the keys'
# n / 32 in an Onesweep pass is the look-back's reads (8 W a tile for each
# round of W words, plus reloads of a word still 0, plus 8 reads of the
# digits' starts), which bounds the rounds a tile takes;
# the values go to figures/data/$BOOK_GPU/sort-ncu.csv.  The scatter
# kernel of the textbook pass and the Onesweep pass do the same ranking
# and scatter; the second looks back instead of reading a table, so their
# times, with the warps each keeps resident, bound what the look-back
# costs.
set -o pipefail
. tools/ncu-lib.sh
ncu_start sort sort-ncu.csv || exit 1
ncu_known   # metric names change between versions: ncu_pick, ncu_stall
metrics="gpu__time_duration.sum dram__throughput.avg.pct_of_peak_sustained_elapsed
$(ncu_pick smsp__average_warp_latency_per_inst_issued.ratio smsp__average_warps_active_per_issue_active.ratio)
$(ncu_stall long_scoreboard) $(ncu_stall barrier) sm__warps_active.avg.pct_of_peak_sustained_active
$(ncu_stall short_scoreboard) $(ncu_stall mio_throttle)
$(ncu_pick l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum)
$(ncu_pick smsp__sass_inst_executed_op_global_ld.sum smsp__inst_executed_op_global_ld.sum)"
metrics=$(echo $metrics)
ncu_header "one sort each of 2^26 keys, ncu --clock-control none; time in ns; cpi and the stalls (long_scoreboard, barrier, short_scoreboard, mio_throttle) in cycles per issued instruction; smem_conflicts: shared-memory bank conflicts of the launch; global_ld_inst: warp-level global load instructions" \
  "launch,ns,dram_pct,cpi,long_scoreboard,barrier,warps_active_pct,short_scoreboard,mio_throttle,smem_conflicts,global_ld_inst" > "$tmp"
ncu_profile "" 'radix_count_kernel|radix_scatter_kernel|digit_hist_kernel|onesweep_kernel' \
  "$metrics" --ncu || exit 1
ncu_rows "$log" "$tmp" "$metrics" \
  textbook_count_0 textbook_scatter_0 textbook_count_1 textbook_scatter_1 \
  textbook_count_2 textbook_scatter_2 textbook_count_3 textbook_scatter_3 \
  onesweep_hist onesweep_pass_0 onesweep_pass_1 onesweep_pass_2 \
  onesweep_pass_3 || exit 1
ncu_done
