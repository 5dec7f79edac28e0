#!/bin/bash
# counters.sh -- the bf16 attention chapter's counters and peers, run by
# `make bench` after the benchmark: first tests/flash/ncu.sh's profile,
# then PyTorch's scaled_dot_product_attention in bf16, its flash
# (FlashAttention-2), cuDNN and memory-efficient backends, on the bench's
# shapes; median of 20 timed runs after 3 warm-ups, CUDA events.  Beside
# each it puts the book's best launcher from flash.csv (flash_attention,
# or flash_split where the bench ran it and it was faster) and the ratio
# (torch ms / best ms: above 1 the book's kernel is faster), in
# figures/data/$BOOK_GPU/flash-torch.csv; then the targets in
# flash-targets.csv.  Without python3 and torch it says so and writes
# neither.
set -o pipefail
gpu=${BOOK_GPU:?run it through make bench, which sets BOOK_GPU}
# First the profile of the book's kernels (tests/flash/ncu.sh).
tests/flash/ncu.sh || echo "counters: the Nsight Compute counters failed"
py=$(command -v python3) || { echo "counters: no python3; PyTorch not measured"; exit 0; }
ours=figures/data/$gpu/flash.csv
out=figures/data/$gpu/flash-torch.csv
tmp=$out.tmp; trap 'rm -f "$tmp"' EXIT
echo "counters: importing torch" >&2
"$py" tools/torch-sdpa.py bf16 flash,cudnn,mem_efficient \
    d64:8:16:4096:4096:64 d128:4:16:4096:4096:128 \
    s512:32:16:512:512:128 s1024:16:16:1024:1024:128 s2048:8:16:2048:2048:128 \
    s4096:4:16:4096:4096:128 s8192:2:16:8192:8192:128 s16384:1:16:16384:16384:128 \
    long128:1:1:5000:5000:128 dec128:1:16:1:32768:128 dec64:4:16:16:8192:64 \
    dec128k:1:2:1:131072:128 | while IFS=, read -r case backend causal shape ms tf; do
  if [ "$case" = version ]; then
    { tools/provenance.sh "peer: PyTorch $backend scaled_dot_product_attention, bf16" \
        "ratio: torch ms / the book's best ms from flash.csv (same make bench): flash_attention's, or flash_split's where faster"
      echo "case,backend,causal,shape,ms,tflops,best_ms,ratio"; } > "$tmp"
    continue
  fi
  t=$(tools/csvget.sh "$ours" id="${case%%/*}/best" ms) || t=
  s=$(tools/csvget.sh "$ours" id="${case%%/*}/split" ms) || s=
  if [ -n "$s" ] && [ "$s" != - ] && { [ -z "$t" ] || [ "$t" = - ] ||
       awk -v a="$s" -v b="$t" 'BEGIN {exit !(a < b)}'; }; then t=$s; fi
  r=$( [ -n "$t" ] && [ "$t" != - ] && awk -v a="$ms" -v b="$t" 'BEGIN {printf "%.3f", a / b}' || echo -)
  echo "$case,$backend,$causal,$shape,$ms,$tf,${t:--},$r" | tee -a "$tmp"
done
st=$?
[ $st -eq 3 ] && { echo "counters: python3 cannot import torch with CUDA; PyTorch not measured"; exit 0; }
[ $st -eq 0 ] || { echo "counters: the PyTorch measurement failed"; exit 1; }
mv "$tmp" "$out" && echo "counters: wrote $out"
# The targets: the best at least SDPA flash on the four headline cases;
# 0.8 of cuDNN's the aim; every shape at least the memory-efficient one.
tg=figures/data/$gpu/flash-targets.csv
{ tools/provenance.sh "targets: ratios of flash-torch.csv (torch ms / best ms)"
  echo "id,value,target,met"
  for c in d64 d64c d128 d128c; do
    r=$(tools/csvget.sh "$out" case="$c/flash" ratio) || r=-
    awk -v c="$c" -v r="$r" 'BEGIN {printf "%s_of_flash2,%s,at least 1.0,%s\n", c, r, (r != "-" && r >= 1.0) ? "yes" : "no"}'
    r=$(tools/csvget.sh "$out" case="$c/cudnn" ratio) || r=-
    awk -v c="$c" -v r="$r" 'BEGIN {printf "%s_of_cudnn,%s,aim 0.8,%s\n", c, r, (r != "-" && r >= 0.8) ? "yes" : "no"}'
  done
  awk -F, '!/^#/ && $2 == "mem_efficient" && $8 != "-" && $8 != "ratio" {
      if (min == "" || $8 + 0 < min) { min = $8 + 0; at = $1 } }
      END { printf "worst_of_mem_efficient,%.3f,at least 1.0 (%s),%s\n", min, at, (min >= 1.0 ? "yes" : "no") }' "$out"
} > "$tg.tmp" && mv "$tg.tmp" "$tg" && echo "counters: wrote $tg" && cat "$tg"
