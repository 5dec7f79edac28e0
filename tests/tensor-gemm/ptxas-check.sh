#!/bin/bash
# ptxas-check.sh [FILE.sm90a.cu...] -- the check that the wgmma fences
# did their job: compile each sm_90a listing (default: the tensor-gemm
# chapter's and flash's) with -Xptxas -v and fail when ptxas says that it
# serialized wgmma ("wgmma.mma_async instructions are serialized due to
# ...": it could not prove the accumulator or fragment registers untouched
# while a wgmma was in flight), or when a kernel spills.  Prints one line a
# kernel: registers and spill bytes.  Needs nvcc only (no GPU); exits 0
# with a note where there is none.
cd "$(dirname "$0")/../.." || exit 1
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$NVCC" ] || { echo "ptxas-check: no nvcc here, nothing checked"; exit 0; }
files=("$@")
[ ${#files[@]} = 0 ] && files=(tangled/tensor-gemm/*.sm90a.cu tangled/flash/*.sm90a.cu)
status=0
for f in "${files[@]}"; do
  out=$("$NVCC" -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a \
        -Itangled -Itests/common -Xptxas -v -c "$f" -o /dev/null 2>&1) || {
    echo "$f: does not compile"; echo "$out"; status=1; continue; }
  if echo "$out" | grep -q "serialized"; then
    echo "$out" | grep "serialized" | sed "s|^|$f: |"; status=1
  fi
  echo "$out" | awk -v f="$f" '
    /Compiling entry function/ { k = $0; sub(/.*function .?/, "", k); sub(/.? for .*/, "", k) }
    /bytes spill stores/ { st = $5; ld = $9 }
    /Used [0-9]+ registers/ { match($0, /Used [0-9]+/); r = substr($0, RSTART + 5, RLENGTH - 5)
      printf "%s: %s: %s registers, %s/%s spill bytes\n", f, k, r, st, ld
      if (st + ld > 0) bad = 1 }
    END { exit bad }' || status=1
done
[ $status = 0 ] && echo "ptxas-check: no serialized wgmma, no spills"
exit $status
