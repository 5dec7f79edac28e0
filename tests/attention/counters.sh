#!/bin/bash
# counters.sh -- the attention chapter's peer, run by `make bench` after the
# benchmarks: PyTorch's scaled_dot_product_attention in fp32 (TF32 off),
# memory-efficient and math backends, on the bench's shapes, causal and
# not; median of 20 timed runs after 3 warm-ups, CUDA events.  Beside each
# it puts the book's tiled kernel from attention.csv and the ratio
# (torch ms / tiled ms: above 1 the book's kernel is faster).  Writes
# figures/data/$BOOK_GPU/attention-torch.csv; without python3 and torch
# it says so and writes nothing.  One python process imports torch once
# (several seconds); it prints its progress to stderr with the elapsed
# seconds, and each row reaches the log as soon as it is measured.
set -o pipefail
gpu=${BOOK_GPU:?run it through make bench, which sets BOOK_GPU}
# First the tiled kernel's Nsight Compute counters (gpu-ncu.sh); if they
# fail, PyTorch is still measured and this script fails at the end.
tests/attention/gpu-ncu.sh; ncu_st=$?
py=$(command -v python3) || { echo "counters: no python3; PyTorch not measured"; exit $ncu_st; }
ours=figures/data/$gpu/attention.csv
out=figures/data/$gpu/attention-torch.csv
tmp=$out.tmp; trap 'rm -f "$tmp"' EXIT
echo "counters: importing torch" >&2
# The first line is the version, or the python exits 3 when torch or its
# GPU is missing; then a row a line.
"$py" tools/torch-sdpa.py fp32 mem_efficient,math \
    d64:8:16:4096:4096:64 d128:4:16:4096:4096:128 long128:1:1:5000:5000:128 \
    dec128:1:16:1:32768:128 dec64:4:16:16:8192:64 | while IFS=, read -r case backend causal shape ms tf; do
  if [ "$case" = version ]; then
    { tools/provenance.sh "peer: PyTorch $backend scaled_dot_product_attention, fp32, TF32 off" \
        "ratio: torch ms / the book's tiled ms from attention.csv (same make bench)"
      echo "case,backend,causal,shape,ms,tflops,tiled_ms,ratio"; } > "$tmp"
    continue
  fi
  t=$(tools/csvget.sh "$ours" case="${case%%/*}/tiled" ms) || t=
  r=$( [ -n "$t" ] && awk -v a="$ms" -v b="$t" 'BEGIN {printf "%.3f", a / b}' || echo -)
  echo "$case,$backend,$causal,$shape,$ms,$tf,${t:--},$r" | tee -a "$tmp"
done
st=$?
[ $st -eq 3 ] && { echo "counters: python3 cannot import torch with CUDA; PyTorch not measured"; exit $ncu_st; }
[ $st -eq 0 ] || { echo "counters: the PyTorch measurement failed"; exit 1; }
mv "$tmp" "$out" && echo "counters: wrote $out" && exit $ncu_st
