#!/bin/bash
# counters.sh -- the tensor-core chapter's counters, run by `make bench`
# after its benchmark: with Nsight Compute, one launch each of the wmma
# kernel, the mma.sync kernels (swizzled and not) and the four wgmma ones at
# 4096^3 (build/tensor-gemm/bench --ncu VARIANT): the kernel's time, how
# busy the tensor pipe was (the HMMA pipe counts mma.sync and wgmma), the
# ldmatrix instructions, their shared-memory wavefronts and bank
# conflicts, and the main stall reasons in cycles per issued instruction.
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
stall_sleeping:$(ncu_stall sleeping)"
# The metrics this ncu knows: the base name, without .avg/.sum and the
# suffixes after it, in its list.
known() { local b=${1%%.*}; grep -qxF "$b" <<< "$NCU_KNOWN"; }
want=()
header=variant
for c in $cols; do
  header+=",${c%%:*}"
  known "${c#*:}" && want+=("${c#*:}")
done
ncu_header "one launch each at M = N = K = 4096, C in bf16, ncu --clock-control none; stalls in cycles per issued instruction" \
  "$header" > "$tmp"
for v in wmma mma-unswizzled mma wgmma warp-specialized persistent cluster; do
  if ! "$NCU" --clock-control none --kernel-name regex:'wmma_kernel|mma_kernel|wgmma_kernel|ws_kernel|cluster_kernel' \
       --metrics "$(IFS=,; echo "${want[*]}")" --csv --print-units base \
       "$bench" --ncu "$v" > "$log" 2>&1; then
    echo "counters: ncu failed for $v:"; cat "$log"; exit 1
  fi
  vals=$(ncu_values "$log" "${want[@]}") || { cat "$log"; exit 1; }
  # The known metrics' values in their columns, "-" in the others.
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
