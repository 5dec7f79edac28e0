#!/bin/bash
# counters.sh -- the transpose chapter's hardware counters, run by
# `make bench` after the benchmarks.  Nsight Compute profiles one launch of
# each transpose (the benchmark lists them: bench --variants, from
# tests/transpose/variants.h) on a 4096 x 4096 matrix
# (build/transpose/bench --ncu VARIANT) and reads the shared-memory
# bank-conflict counters and the HBM bytes; the counts go to
# figures/data/$BOOK_GPU/transpose-ncu.csv.
set -o pipefail
. tools/ncu-lib.sh
ncu_start transpose transpose-ncu.csv || exit 1
ld=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
st=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
metrics="$ld $st dram__bytes_read.sum dram__bytes_write.sum"
ncu_header "one launch each on 4096 x 4096 floats, ncu --clock-control none" \
  "variant,ld_conflicts,st_conflicts,dram_read_mb,dram_write_mb" > "$tmp"
variants=$("$bench" --variants) && [ -n "$variants" ] ||
  { echo "counters: $bench --variants listed no transposes"; exit 1; }
for v in $variants; do
  ncu_measure "$v" transpose "$metrics" --ncu "$v" || exit 1
  echo "$v,$vals" | awk -F, '{ printf "%s,%s,%s,%.3f,%.3f\n", $1, $2, $3, $4 / 1e6, $5 / 1e6 }' >> "$tmp"
  echo "counters: $(tail -1 "$tmp")"
done
ncu_done
