#!/bin/bash
# gpu-extra.sh -- chapter 9's bank-conflict counts (run by make bench after
# the benchmarks).  Nsight Compute counts the shared-memory bank conflicts of
# the three Blelloch tile scans (unpadded, padded, padding as printed in GPU
# Gems 3), which `bench --ncu` runs once each on 2^20 floats, in that order.
# Writes figures/data/$BOOK_GPU/09-scan-banks.csv.
set -eo pipefail
gpu=${BOOK_GPU:-h200}
NCU=${NCU:-/usr/local/cuda/bin/ncu}
command -v "$NCU" >/dev/null || NCU=ncu
out=figures/data/$gpu/09-scan-banks.csv
raw=$(mktemp); trap 'rm -f "$raw"' EXIT
m=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op
"$NCU" --clock-control none --csv -k regex:tiles_blelloch_kernel \
  --metrics ${m}_ld.sum,${m}_st.sum build/09-scan/bench --ncu > "$raw"
commit=${BOOK_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
{
  echo "# gpu: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
  echo "# driver: $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)"
  echo "# tool: $("$NCU" --version | tail -1)"
  echo "# date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "# commit: $commit"
  echo "# n: 1048576 floats, tiles of 512; counts summed over the kernel"
  echo "variant,ld_conflicts,st_conflicts"
  # ncu --csv: one row per kernel and metric; the last two fields are
  # the unit and the value.  Kernels come in launch order.
  awk -F'","' -v m="$m" '
    NR > 1 && $0 ~ m {
      id = $1; gsub(/"/, "", id); v = $NF; gsub(/[",]/, "", v)
      if (!(id in seen)) { seen[id] = 1; ids[++k] = id }
      if ($0 ~ m "_ld.sum") ld[id] = v; else st[id] = v
    }
    END {
      split("blelloch_unpadded blelloch_padded blelloch_gems", name, " ")
      if (k != 3) { print "gpu-extra: expected 3 kernels, got " k > "/dev/stderr"; exit 1 }
      for (i = 1; i <= 3; i++) printf "%s,%s,%s\n", name[i], ld[ids[i]], st[ids[i]]
    }' "$raw"
} > "$out.tmp"
mv "$out.tmp" "$out"
echo "gpu-extra: wrote $out"
cat "$out"
