#!/bin/bash
# counters.sh -- the method chapter's counters, run by `make bench` after the
# benchmarks.  Nsight Compute profiles one launch of each histogram on 2^28
# bytes, uniform and one repeated byte (build/method/bench --ncu): DRAM
# throughput, achieved occupancy, cycles between issues, and the stall
# reasons in cycles per issued instruction; the values go to
# figures/data/$BOOK_GPU/method-ncu.csv.
set -o pipefail
. tools/ncu-lib.sh
ncu_start method method-ncu.csv || exit 1
ncu_known   # metric names change between versions: ncu_pick, ncu_stall
metrics="dram__throughput.avg.pct_of_peak_sustained_elapsed
sm__warps_active.avg.pct_of_peak_sustained_active
$(ncu_pick smsp__average_warps_active_per_issue_active.ratio smsp__average_warp_latency_per_inst_issued.ratio)
$(ncu_stall lg_throttle) $(ncu_stall long_scoreboard) $(ncu_stall mio_throttle)
$(ncu_stall short_scoreboard) $(ncu_stall barrier)"
metrics=$(echo $metrics)
ncu_header "one launch each on 2^28 bytes, ncu --clock-control none; stalls in cycles per issued instruction" \
  "variant,dram_pct,occupancy_pct,cpi,lg_throttle,long_sb,mio_throttle,short_sb,barrier" > "$tmp"
# One process, ten launches (the five variants on uniform bytes, then on
# one repeated byte); the log is split by ncu's result ID.  The variants'
# names, in their order, come from the benchmark (tests/method/variants.h).
variants=$("$bench" --variants) && [ -n "$variants" ] ||
  { echo "counters: $bench --variants listed no histograms"; exit 1; }
ncu_profile "" hist_ "$metrics" --ncu || exit 1
names=()
for input in uniform same; do
  for v in $variants; do names+=("${v}_$input"); done
done
ncu_rows "$log" "$tmp" "$metrics" "${names[@]}" || exit 1
ncu_done
