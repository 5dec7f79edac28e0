#!/bin/bash
# gpu-extra.sh -- chapter 3's hardware counters, run by `make bench` after
# the benchmarks.  Nsight Compute profiles one launch of each transpose on a
# 4096 x 4096 matrix (build/03-transpose/bench --ncu VARIANT) and reads the
# shared-memory bank-conflict counters and the HBM bytes; the counts go to
# figures/data/$BOOK_GPU/03-transpose-ncu.csv.
set -o pipefail
gpu=${BOOK_GPU:-h200}
NCU=${NCU:-/usr/local/cuda/bin/ncu}
[ -x "$NCU" ] || NCU=$(command -v ncu) || { echo "gpu-extra: ncu not found"; exit 1; }
bench=build/03-transpose/bench
[ -x "$bench" ] || { echo "gpu-extra: $bench missing (make bench builds it)"; exit 1; }
ld=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
st=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
metrics=$ld,$st,dram__bytes_read.sum,dram__bytes_write.sum
out=figures/data/$gpu/03-transpose-ncu.csv
mkdir -p "$(dirname "$out")"
tmp=$out.tmp; log=$out.log
trap 'rm -f "$tmp" "$log"' EXIT
{
  echo "# gpu: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
  echo "# driver: $(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1)"
  echo "# tool: $("$NCU" --version 2>/dev/null | tail -1)"
  echo "# date: ${BOOK_DATE:-$(date -u '+%Y-%m-%d %H:%M UTC')}"
  echo "# commit: ${BOOK_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"
  echo "# one launch each on 4096 x 4096 floats, ncu --clock-control none"
  echo "variant,ld_conflicts,st_conflicts,dram_read_mb,dram_write_mb"
} > "$tmp"
for v in naive naive_colread tile tile_padded tile_swizzled tile64_padded; do
  if ! "$NCU" --clock-control none --kernel-name regex:transpose \
       --metrics "$metrics" --csv --print-units base "$bench" --ncu "$v" > "$log" 2>&1; then
    echo "gpu-extra: ncu failed for $v:"; cat "$log"; exit 1
  fi
  # ncu --csv: a header line starting "ID", then one line a metric with
  # quoted fields; numbers may carry thousands separators.
  awk -v v="$v" -v ld="$ld" -v st="$st" '
    function splitcsv(line, f,    n, i, ch, inq, cur) {
      n = 0; cur = ""; inq = 0
      for (i = 1; i <= length(line); i++) {
        ch = substr(line, i, 1)
        if (ch == "\"") { inq = !inq; continue }
        if (ch == "," && !inq) { f[++n] = cur; cur = ""; continue }
        cur = cur ch
      }
      f[++n] = cur
      return n
    }
    /^"ID"/ { n = splitcsv($0, h); for (i = 1; i <= n; i++) col[h[i]] = i; hdr = 1; next }
    hdr && col["Metric Value"] {
      n = splitcsv($0, f)
      if (n < col["Metric Value"]) next
      val = f[col["Metric Value"]]; gsub(/,/, "", val)
      m[f[col["Metric Name"]]] = val; got++
    }
    END {
      if (!got || m[ld] == "" || m[st] == "") {
        print "gpu-extra: no counters in the ncu output for " v > "/dev/stderr"; exit 1
      }
      printf "%s,%s,%s,%.3f,%.3f\n", v, m[ld], m[st],
             m["dram__bytes_read.sum"] / 1e6, m["dram__bytes_write.sum"] / 1e6
    }' "$log" >> "$tmp" || { cat "$log"; exit 1; }
  echo "gpu-extra: $(tail -1 "$tmp")"
done
mv "$tmp" "$out"
echo "gpu-extra: wrote $out"
