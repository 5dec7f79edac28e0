#!/bin/bash
# counters.sh -- the scan chapter's bank-conflict counts, which `make bench`
# runs after the benchmarks.  Nsight Compute profiles one launch of each
# Blelloch tile scan on 2^20 floats (build/scan/bench --ncu VARIANT):
# unpadded, padded, and with the padding macro as printed in GPU Gems 3.
# The shared-memory bank-conflict counters go to
# figures/data/$BOOK_GPU/scan-banks.csv.
# Then the 64-bit single passes and CUB's (see below), to
# figures/data/$BOOK_GPU/scan-lookback.csv.
# With the argument lookback it runs only the second part.
set -o pipefail
. tools/ncu-lib.sh
ncu_start scan scan-banks.csv || exit 1
ld=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
st=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
if [ "${1:-}" != lookback ]; then
ncu_header "one launch each on 2^20 floats (2048 tiles of 512), ncu --clock-control none" \
  "variant,ld_conflicts,st_conflicts" > "$tmp"
for v in unpadded padded gems; do
  ncu_measure "$v" tiles_blelloch "$ld $st" --ncu "$v" || exit 1
  echo "blelloch_$v,$vals" >> "$tmp"
  echo "counters: $(tail -1 "$tmp")"
done
ncu_done
fi

# The 64-bit single passes against CUB's (build/scan/bench --ncu i64: one
# launch each on 2^26 elements): DRAM throughput, cycles between a warp's
# instructions and the part of them spent at a barrier, warp instructions,
# grid size, and shared-memory bank conflicts, to scan-lookback.csv.
ncu_known
out2=figures/data/$gpu/scan-lookback.csv
tmp2=$out2.tmp
trap 'rm -f "$tmp" "$tmp2" "$log" "$log.one"' EXIT
m2="dram__throughput.avg.pct_of_peak_sustained_elapsed
$(ncu_pick smsp__average_warp_latency_per_inst_issued.ratio smsp__average_warps_active_per_issue_active.ratio)
$(ncu_stall barrier) smsp__inst_executed.sum launch__grid_size $ld $st"
m2=$(echo $m2)
ncu_header "one launch each on 2^26 64-bit integers, ncu --clock-control none; cpi and barrier in cycles per issued instruction" \
  "variant,dram_pct,cpi,barrier,inst,grid,ld_conflicts,st_conflicts" > "$tmp2"
ncu_profile "the 64-bit scans" 'scan_staged_kernel|scan_raked_kernel|DeviceScanKernel' \
  "$m2" --ncu i64 || exit 1
ncu_rows "$log" "$tmp2" "$m2" staged_i64 paired_i64 raked_i64 cub_i64 || exit 1
mv "$tmp2" "$out2"
echo "counters: wrote $out2"
