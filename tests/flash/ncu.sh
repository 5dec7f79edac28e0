#!/bin/bash
# ncu.sh -- the bf16 attention chapter's counters, run by counters.sh:
# with Nsight Compute, one launch each of the mma.sync kernels (4 and 8
# warps) and the wgmma kernel at B4 H16 S4096 D128, not causal, and the
# wgmma kernel at B8 H16 S4096 D64 (row wgmma_d64; build/flash/bench
# --ncu VARIANT [d64]): the kernel's time, how busy the
# tensor pipe (HMMA counts mma.sync and wgmma) and the XU pipe (the
# special-function unit: exp2) were, the issue slots used, and the main
# stall reasons in cycles per issued instruction.  A metric this ncu does
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
stall_sleeping:$(ncu_stall sleeping)"
known() { local b=${1%%.*}; grep -qxF "$b" <<< "$NCU_KNOWN"; }
want=()
header=variant
for c in $cols; do
  header+=",${c%%:*}"
  known "${c#*:}" && want+=("${c#*:}")
done
ncu_header "one launch each at B4 H16 S4096 D128 (wgmma_d64: B8 H16 S4096 D64), not causal, ncu --clock-control none; stalls in cycles per issued instruction" \
  "$header" > "$tmp"
for v in mma64 mma wgmma wgmma_d64; do
  shape=; [ "$v" = wgmma_d64 ] && shape=d64
  if ! "$NCU" --clock-control none --kernel-name regex:'flash_mma_kernel|flash_wgmma_kernel' \
       --metrics "$(IFS=,; echo "${want[*]}")" --csv --print-units base \
       "$bench" --ncu "${v%_d64}" $shape > "$log" 2>&1; then
    echo "counters: ncu failed for $v:"; cat "$log"; exit 1
  fi
  vals=$(ncu_values "$log" "${want[@]}") || { cat "$log"; exit 1; }
  row=$v; i=0
  IFS=, read -r -a got <<< "$vals"
  for c in $cols; do
    if known "${c#*:}"; then row+=",${got[$i]}"; i=$((i + 1)); else row+=",-"; fi
  done
  echo "$row" >> "$tmp"
  echo "counters: $row"
done
mv "$tmp" "$out"
echo "counters: wrote $out"
