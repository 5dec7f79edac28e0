#!/bin/bash
# gpu-ncu.sh -- the attention chapter's counters, run by counters.sh
# (make bench).  Nsight Compute profiles one launch of the tiled kernel for
# each D (32, 64, 128; not causal) and one of its compact shapes at D = 128,
# at B2 H16 S4096 (build/attention/bench --ncu): the kernel's time (and an
# SM's cycles), registers, occupancy, the FMA pipe's and the issue slots'
# use, warp instructions and thread FFMAs, shared-memory loads and stores
# (instructions, wavefronts, bank conflicts), and the stall reasons in warps
# per issue; the values go to figures/data/$BOOK_GPU/attention-ncu.csv.
set -o pipefail
. tools/ncu-lib.sh
ncu_start attention attention-ncu.csv || exit 1
ncu_known   # metric names change between versions: ncu_pick, ncu_stall
sh=mem_shared
m=(gpu__time_duration.sum sm__cycles_elapsed.avg launch__registers_per_thread
   sm__warps_active.avg.pct_of_peak_sustained_active
   sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active
   smsp__issue_active.avg.pct_of_peak_sustained_active
   smsp__inst_executed.sum smsp__sass_thread_inst_executed_op_ffma_pred_on.sum
   smsp__inst_executed_op_shared_ld.sum l1tex__data_pipe_lsu_wavefronts_${sh}_op_ld.sum
   l1tex__data_bank_conflicts_pipe_lsu_${sh}_op_ld.sum
   smsp__inst_executed_op_shared_st.sum l1tex__data_pipe_lsu_wavefronts_${sh}_op_st.sum
   l1tex__data_bank_conflicts_pipe_lsu_${sh}_op_st.sum
   "$(ncu_stall barrier)" "$(ncu_stall long_scoreboard)" "$(ncu_stall short_scoreboard)"
   "$(ncu_stall mio_throttle)" "$(ncu_stall math_pipe_throttle)" "$(ncu_stall wait)"
   "$(ncu_stall not_selected)")
ncu_header "one launch each of the tiled kernel (and its compact shapes at D = 128), B2 H16 S4096, not causal, ncu --clock-control none; stalls in warps per issue" \
  "variant,ns,cycles,regs,occupancy_pct,fma_pct,issue_pct,inst,ffma,lds,lds_wavefronts,lds_conflicts,sts,sts_wavefronts,sts_conflicts,barrier,long_sb,short_sb,mio_throttle,math_throttle,wait,not_selected" > "$tmp"
# One process, four launches (D = 32, 64, 128, compact 128); the log is
# split by ID.
if ! "$NCU" --clock-control none --kernel-name regex:attn_tiled \
     --metrics "$(IFS=,; echo "${m[*]}")" --csv --print-units base "$bench" --ncu > "$log" 2>&1; then
  echo "gpu-ncu: ncu failed:"; cat "$log"; exit 1
fi
id=0
for d in 32 64 128 compact_d128; do
  awk -v id="\"$id\"" -F, '/^"ID"/ || $1 == id' "$log" > "$log.one"
  vals=$(ncu_values "$log.one" "${m[@]}") || { cat "$log"; exit 1; }
  case $d in compact*) name=$d ;; *) name=tiled_d$d ;; esac
  echo "$name,$vals" >> "$tmp"
  echo "gpu-ncu: $(tail -1 "$tmp")"
  id=$((id + 1))
done
mv "$tmp" "$out"
echo "gpu-ncu: wrote $out"
