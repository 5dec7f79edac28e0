#!/bin/bash
# counters.sh -- the interview appendix's counters, run by `make bench`
# after the benchmark.  Nsight Compute profiles one launch of
# ed_tiled_kernel, the diagonal of tiles 300 (301 tiles of 64 x 64, one
# warp each) of a pair of 20000 characters (ED_TILED_PROFILE=1
# build/interview/bench), and writes
# figures/data/$BOOK_GPU/interview-ncu.csv: the kernel's time, cycles and
# warp instructions, the warps a scheduler holds and has eligible, the
# cycles an instruction and the stall reasons in cycles per issued
# instruction.  One row a metric: metric,value,unit.
set -o pipefail
. tools/ncu-lib.sh
ncu_start interview interview-ncu.csv || exit 1
ncu_known   # metric names change between versions: ncu_pick, ncu_stall
# name, metric, unit, scale (the value times scale)
rows="kernel_us gpu__time_duration.sum us 0.001
cycles sm__cycles_elapsed.max cycles 1
inst_executed smsp__inst_executed.sum inst 1
registers launch__registers_per_thread registers/thread 1
active_warps_per_scheduler smsp__warps_active.avg.per_cycle_active warps 1
eligible_warps_per_scheduler smsp__warps_eligible.avg.per_cycle_active warps 1
cpi $(ncu_pick smsp__average_warps_active_per_issue_active.ratio smsp__average_warp_latency_per_inst_issued.ratio) cycles 1
stall_selected $(ncu_stall selected) cycles 1
stall_wait $(ncu_stall wait) cycles 1
stall_short_scoreboard $(ncu_stall short_scoreboard) cycles 1
stall_long_scoreboard $(ncu_stall long_scoreboard) cycles 1
stall_no_instruction $(ncu_stall no_instruction) cycles 1
stall_branch_resolving $(ncu_stall branch_resolving) cycles 1"
metrics=$(awk '{ print $2 }' <<< "$rows" | paste -sd,)
# The pair of 20000 has 313 tiles a side; diagonal d (from 0) holds
# min(d, 312) - max(0, d - 312) + 1 tiles: 301 for d = 300.
ncu_header "one launch: diagonal of tiles 300 of ed_tiled on a pair of 20000 characters (ED_TILED_PROFILE=1), ncu --clock-control none --launch-skip 300; stalls in cycles per issued instruction" \
  "metric,value,unit" > "$tmp"
if ! ED_TILED_PROFILE=1 "$NCU" --clock-control none --kernel-name regex:ed_tiled_kernel \
     --launch-skip 300 --launch-count 1 --metrics "$metrics" --csv --print-units base \
     "$bench" > "$log" 2>&1; then
  echo "counters: ncu failed:"; cat "$log"; exit 1
fi
vals=$(ncu_values "$log" $(tr , ' ' <<< "$metrics")) || { cat "$log"; exit 1; }
IFS=, read -r -a v <<< "$vals"
i=0
while read -r name metric unit scale; do
  awk -v n="$name" -v x="${v[$i]}" -v s="$scale" -v u="$unit" \
    'BEGIN { printf "%s,%.10g,%s\n", n, x * s, u }' >> "$tmp"
  i=$((i + 1))
done <<< "$rows"
echo "warps,301,warps (the tiles of the diagonal; one warp each)" >> "$tmp"
cat "$tmp" | sed 's/^/counters: /'
mv "$tmp" "$out"
echo "counters: wrote $out"
