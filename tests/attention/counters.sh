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
"$py" - <<'PY' | while IFS=, read -r case backend causal shape ms tf; do
import sys, time
t0 = time.monotonic()
def say(msg):
    print(f"counters: {time.monotonic() - t0:7.2f} s  {msg}", file=sys.stderr,
          flush=True)
try:
    import torch, statistics
    from torch.nn.attention import sdpa_kernel, SDPBackend
    assert torch.cuda.is_available()
except Exception:
    sys.exit(3)
say(f"torch {torch.__version__} imported")
print(f"version,{torch.__version__},,,,", flush=True)
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
# The headline shapes; one head of 5000 (the split keys' case); decoding.
for (tag, B, H, Sq, Sk, D) in (("d64", 8, 16, 4096, 4096, 64),
                               ("d128", 4, 16, 4096, 4096, 128),
                               ("long128", 1, 1, 5000, 5000, 128),
                               ("dec128", 1, 16, 1, 32768, 128),
                               ("dec64", 4, 16, 16, 8192, 64)):
    g = torch.Generator(device="cuda").manual_seed(1)
    q = torch.rand(B, H, Sq, D, device="cuda", generator=g) * 2 - 1
    k, v = (torch.rand(B, H, Sk, D, device="cuda", generator=g) * 2 - 1
            for _ in range(2))
    shape = f"B{B}H{H}S{Sq}D{D}" if Sq == Sk else f"B{B}H{H}Sq{Sq}Sk{Sk}D{D}"
    for causal in ((0, 1) if Sq == Sk else (0,)):
        for name, be in (("mem_efficient", SDPBackend.EFFICIENT_ATTENTION),
                         ("math", SDPBackend.MATH)):
            what = f"{shape} causal={causal} {name}"
            say(what + " ...")
            with sdpa_kernel(be):
                f = lambda: torch.nn.functional.scaled_dot_product_attention(
                    q, k, v, is_causal=bool(causal))
                for _ in range(3): f()
                ts = []
                for _ in range(20):
                    a = torch.cuda.Event(enable_timing=True)
                    b = torch.cuda.Event(enable_timing=True)
                    a.record(); f(); b.record(); b.synchronize()
                    ts.append(a.elapsed_time(b))
            ms = statistics.median(ts)
            say(f"{what}: {ms:.4f} ms a call, median of 20")
            pairs = Sq * (Sq + 1) / 2 if causal else Sq * Sk
            tf = 4.0 * B * H * D * pairs / (ms * 1e9)
            print(f"{tag}{'c' if causal else ''}/{name},{name},{causal},"
                  f"{shape},{ms:.4f},{tf:.2f}", flush=True)
            torch.cuda.empty_cache()
say("done")
PY
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
