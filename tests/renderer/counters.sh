#!/bin/bash
# counters.sh -- the renderer chapter's counters, which `make bench` runs
# after the benchmark.  Nsight Compute profiles one launch of step 3
# (tile_batch) and one of step 4 (tile_scan) on rand100k at 1024 x 1024
# (build/renderer/bench --ncu batch|scan): warp instructions executed,
# shared-memory wavefronts, the share of branches whose threads all went
# one way, the average active threads an instruction, and the kernel's
# time.  Output: figures/data/$BOOK_GPU/renderer-ncu.csv.
set -o pipefail
. tools/ncu-lib.sh
ncu_start renderer renderer-ncu.csv || exit 1
m=(smsp__inst_executed.sum l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
   smsp__sass_average_branch_targets_threads_uniform.pct
   smsp__thread_inst_executed_per_inst_executed.ratio gpu__time_duration.sum)
ncu_header "one launch each, rand100k at 1024x1024, ncu --clock-control none" \
  "variant,inst,shared_wavefronts,branch_uniform_pct,threads_per_inst,ns" > "$tmp"
for v in batch scan; do
  ncu_measure "$v" tile_ "${m[*]}" --launch-count 1 -- --ncu "$v" || exit 1
  echo "tile_$v,$vals" >> "$tmp"
  echo "counters: $(tail -1 "$tmp")"
done
# Step 3 over step 4, column by column.
awk -F, '/^tile_batch,/ { for (i = 2; i <= NF; i++) b[i] = $i }
         /^tile_scan,/  { n = NF; for (i = 2; i <= NF; i++) c[i] = $i }
         END { printf "batch_over_scan"
               for (i = 2; i <= n; i++) printf ",%.4g", b[i] / c[i]
               print "" }' "$tmp" >> "$tmp.ratio" && cat "$tmp.ratio" >> "$tmp"
rm -f "$tmp.ratio"
mv "$tmp" "$out"
