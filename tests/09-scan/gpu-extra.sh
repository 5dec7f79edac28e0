#!/bin/bash
# gpu-extra.sh -- chapter 9's bank-conflict counts, run by `make bench` after
# the benchmarks.  Nsight Compute profiles one launch of each Blelloch tile
# scan on 2^20 floats (build/09-scan/bench --ncu VARIANT): unpadded, padded,
# and with the padding macro as printed in GPU Gems 3.  The shared-memory
# bank-conflict counters go to figures/data/$BOOK_GPU/09-scan-banks.csv.
set -o pipefail
. tools/ncu-lib.sh
ncu_start 09-scan 09-scan-banks.csv || exit 1
ld=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
st=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
ncu_header "one launch each on 2^20 floats (2048 tiles of 512), ncu --clock-control none" \
  "variant,ld_conflicts,st_conflicts" > "$tmp"
for v in unpadded padded gems; do
  if ! "$NCU" --clock-control none --kernel-name regex:tiles_blelloch \
       --metrics "$ld,$st" --csv --print-units base "$bench" --ncu "$v" > "$log" 2>&1; then
    echo "gpu-extra: ncu failed for $v:"; cat "$log"; exit 1
  fi
  vals=$(ncu_values "$log" $ld $st) || { cat "$log"; exit 1; }
  echo "blelloch_$v,$vals" >> "$tmp"
  echo "gpu-extra: $(tail -1 "$tmp")"
done
mv "$tmp" "$out"
echo "gpu-extra: wrote $out"
