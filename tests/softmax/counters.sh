#!/bin/bash
# counters.sh -- the softmax chapter's DRAM counts, run by `make bench` after
# the benchmarks.  Nsight Compute profiles one call of each whole-array
# launcher on 2^24 floats (build/softmax/bench --ncu VARIANT; the two kernels
# of softmax_whole are added up).  The bench empties the L2 once before the
# call, as in its cold runs, and ncu leaves the caches alone
# (--cache-control none: its default would flush them before each kernel,
# so that softmax_whole's second kernel could find nothing of the first's
# reads in the L2), replaying the whole program for each pass
# (--replay-mode application), so that every pass starts from the same L2.
# DRAM bytes read and written during the kernels, their time and warp
# instructions go to figures/data/$BOOK_GPU/softmax-ncu.csv.
set -o pipefail
. tools/ncu-lib.sh
ncu_start softmax softmax-ncu.csv || exit 1
metrics="dram__bytes_read.sum dram__bytes_write.sum gpu__time_duration.sum smsp__inst_executed.sum"
ncu_header "one call each on 2^24 floats, L2 emptied by the bench before the call, ncu --clock-control none --cache-control none --replay-mode application" \
  "variant,kernels,dram_read_mb,dram_write_mb,us,warp_inst_m" > "$tmp"
for v in whole whole-fused whole-resident whole-resident-fast; do
  ncu_profile "$v" softmax_ "$metrics" --cache-control none --replay-mode application -- \
    --ncu "$v" || exit 1
  # Sum each metric over the kernels profiled (one line a kernel and metric).
  awk -v v="$v" -F'","' '
    /^"ID"/ { for (i = 1; i <= NF; i++) { h = $i; gsub(/"/, "", h); col[h] = i }; next }
    col["Metric Name"] {
      name = $col["Metric Name"]; val = $col["Metric Value"]; gsub(/[",]/, "", val)
      sum[name] += val; ids[$col["ID"]] = 1
    }
    END {
      k = 0; for (i in ids) k++
      if (k == 0 || sum["gpu__time_duration.sum"] == 0) { print "counters: no kernel profiled" > "/dev/stderr"; exit 1 }
      printf "%s,%d,%.2f,%.2f,%.2f,%.2f\n", v, k, sum["dram__bytes_read.sum"] / 1e6,
        sum["dram__bytes_write.sum"] / 1e6, sum["gpu__time_duration.sum"] / 1e3,
        sum["smsp__inst_executed.sum"] / 1e6
    }' "$log" >> "$tmp" || { cat "$log"; exit 1; }
  echo "counters: $(tail -1 "$tmp")"
done
ncu_done
