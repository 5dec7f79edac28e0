#!/bin/bash
# counters.sh -- the layernorm chapter's DRAM counts, run by `make bench`
# after the benchmarks.  Nsight Compute profiles one launch of rmsnorm,
# rmsnorm_cached and the cached layer norm on 8192 x 8192 floats
# (build/layernorm/bench --ncu VARIANT), caches flushed before each (its
# default): DRAM bytes read and written, time, occupancy and registers go to
# figures/data/$BOOK_GPU/layernorm-ncu.csv.
set -o pipefail
. tools/ncu-lib.sh
ncu_start layernorm layernorm-ncu.csv || exit 1
metrics="dram__bytes_read.sum dram__bytes_write.sum gpu__time_duration.sum sm__warps_active.avg.pct_of_peak_sustained_active launch__registers_per_thread"
ncu_header "one launch each on 8192 x 8192 floats, caches flushed, ncu --clock-control none" \
  "variant,dram_read_mb,dram_write_mb,us,warps_active_pct,registers" > "$tmp"
for v in rmsnorm rmsnorm_cached cached; do
  ncu_measure "$v" 'rmsnorm|layernorm' "$metrics" --ncu "$v" || exit 1
  echo "$v,$vals" | awk -F, '{ printf "%s,%.2f,%.2f,%.2f,%.1f,%d\n", $1, $2 / 1e6, $3 / 1e6, $4 / 1e3, $5, $6 }' >> "$tmp"
  echo "counters: $(tail -1 "$tmp")"
done
ncu_done
