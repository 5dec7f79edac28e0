#!/bin/bash
# counters.sh -- the compaction chapter's counters, which `make bench` runs
# after the benchmarks.  Nsight Compute profiles one launch each of the
# staged and the ballot compaction at 1% and 99% on 2^26 ints
# (build/compaction/bench --ncu): DRAM throughput, cycles between a warp's
# instructions and the part of them spent at a barrier (cycles per issued
# instruction), and warp instructions; the values go to
# figures/data/$BOOK_GPU/compaction-ncu.csv.
set -o pipefail
. tools/ncu-lib.sh
ncu_start compaction compaction-ncu.csv || exit 1
ncu_known   # metric names change between versions: ncu_pick, ncu_stall
metrics="dram__throughput.avg.pct_of_peak_sustained_elapsed
$(ncu_pick smsp__average_warp_latency_per_inst_issued.ratio smsp__average_warps_active_per_issue_active.ratio)
$(ncu_stall barrier) smsp__inst_executed.sum launch__grid_size"
metrics=$(echo $metrics)
ncu_header "one launch each on 2^26 ints, ncu --clock-control none; cpi and barrier in cycles per issued instruction" \
  "variant,dram_pct,cpi,barrier,inst,grid" > "$tmp"
ncu_profile "" 'compact_gt_staged_kernel|compact_gt_ballot_kernel' "$metrics" --ncu || exit 1
ncu_rows "$log" "$tmp" "$metrics" staged_1 ballot_1 staged_99 ballot_99 || exit 1
ncu_done
