#!/bin/bash
# counters.sh -- the convolution chapter's hardware counters, run by
# `make bench` after the benchmarks.  Nsight Compute profiles one launch of
# the blocked and the patch (rows) kernels on the three 2D cases
# (build/convolution/bench --ncu CASE VARIANT) and reads the instructions
# issued, the FFMAs among them, the shared-memory loads and stores with
# their wavefronts and bank conflicts, the share of cycles that issued, the
# warps resident and the HBM bytes; the counts go to
# figures/data/$BOOK_GPU/convolution-ncu.csv.  Then the 1D kernels' stall
# reasons at 31 and 2047 taps (why the constant-memory kernels lose at
# 2047), to convolution-stalls.csv.
set -o pipefail
. tools/ncu-lib.sh
ncu_start convolution convolution-ncu.csv || exit 1
metrics="gpu__time_duration.sum smsp__inst_executed.sum
 smsp__sass_thread_inst_executed_op_ffma_pred_on.sum
 smsp__inst_executed_op_shared_ld.sum
 l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
 l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
 smsp__inst_executed_op_shared_st.sum
 l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
 l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
 smsp__issue_active.avg.pct_of_peak_sustained_active
 sm__warps_active.avg.pct_of_peak_sustained_active
 dram__bytes_read.sum dram__bytes_write.sum"
metrics=$(echo $metrics)
ncu_header "one launch each, ncu --clock-control none; inst and lds/sts counts are warp instructions, ffma thread instructions / 32" \
  "id,case,variant,us,inst,ffma,lds,lds_wavefronts,lds_conflicts,sts,sts_wavefronts,sts_conflicts,issue_pct,warps_pct,dram_read_mb,dram_write_mb" > "$tmp"
for c in 2d-3072-15x15 2d-8192-5x5 2d-8192-31x31; do
  for v in blocked rows; do
    ncu_measure "$c/$v" conv2d "$metrics" --ncu "$c" "$v" || exit 1
    echo "$c/$v,$c,$v,$vals" | awk -F, -v OFS=, '{
      printf "%s,%s,%s,%.1f,%d,%d,%d,%d,%d,%d,%d,%d,%.1f,%.1f,%.1f,%.1f\n",
        $1, $2, $3, $4 / 1e3, $5, $6 / 32, $7, $8, $9, $10, $11, $12, $13, $14,
        $15 / 1e6, $16 / 1e6 }' >> "$tmp"
    echo "counters: $(tail -1 "$tmp")"
  done
done
mv "$tmp" "$out"
echo "counters: wrote $out"

# The 1D kernels' stalls: warps waiting for each reason a cycle, per
# instruction issued (smsp__average_warps_issue_stalled_*_per_issue_active).
ncu_start convolution convolution-stalls.csv || exit 1
st=smsp__average_warps_issue_stalled
reasons="imc_miss lg_throttle long_scoreboard not_selected no_instruction wait"
metrics="gpu__time_duration.sum smsp__inst_executed.sum
 smsp__issue_active.avg.pct_of_peak_sustained_active
 $(for r in $reasons; do printf '%s_%s_per_issue_active.ratio ' $st $r; done)"
metrics=$(echo $metrics)
ncu_header "one launch each, ncu --clock-control none; a stall column is warps waiting for that reason a cycle, per instruction issued ($st""_REASON_per_issue_active.ratio)" \
  "id,case,variant,us,inst,issue_pct,${reasons// /,}" > "$tmp"
for cv in 1d-64M-k31/const 1d-64M-k31/naive 1d-16M-k2047/const 1d-16M-k2047/tiled \
          1d-16M-k2047/naive 1d-16M-k2047/window; do
  c=${cv%/*} v=${cv#*/}
  ncu_measure "$cv" conv1d "$metrics" --launch-count 1 -- --ncu "$c" "$v" || exit 1
  echo "$cv,$c,$v,$vals" | awk -F, -v OFS=, '{
    printf "%s,%s,%s,%.1f,%d,%.1f", $1, $2, $3, $4 / 1e3, $5, $6
    for (i = 7; i <= NF; i++) printf ",%.2f", $i; print "" }' >> "$tmp"
  echo "counters: $(tail -1 "$tmp")"
done
mv "$tmp" "$out"
