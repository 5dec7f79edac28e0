#!/bin/bash
# gpu-run.sh [CH...] -- (GPU_STEPS="test bench sanitize" picks steps) everything the GPU machine is for, in one go:
# build, make test, make bench, make sanitize (in parallel jobs); logs and
# the measured CSVs land in $OUT (default build/gpu-out) as one tarball,
# and a short summary is printed last.  Runs from the committed tangled/,
# or, with GPU_MAKE_ARGS=SRC=build/src, from the build copies compiled on
# another machine and carried in build/ (tools/build-src.sh has checked both).
set -o pipefail
OUT=${OUT:-build/gpu-out}; mkdir -p "$OUT" build/logs
export BOOK_COMMIT=${BOOK_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || cat .book-commit 2>/dev/null || echo unknown)}
chs=(); [ $# -gt 0 ] && chs=("CH=$*")
read -r -a margs <<< "${GPU_MAKE_ARGS:-}"; chs+=("${margs[@]}")
{ nvidia-smi; nvcc --version; } > build/logs/machine.txt 2>&1
targets=$(for c in ${*:-$(tools/chapters.sh)}; do [ -d tangled/$c ] && echo build/$c/test; done)
make -j16 -k -s "${chs[@]}" $targets > build/logs/build.log 2>&1 || echo "build: some targets failed, see build.log"
steps=${GPU_STEPS:-test bench sanitize}
if [[ $steps == *test* ]]; then
  make -s test "${chs[@]}" > build/logs/test.log 2>&1
  grep -E "^---|passed,.*failed" build/logs/test.log
fi
if [[ $steps == *bench* ]]; then
  make -s -k bench "${chs[@]}" > build/logs/bench.log 2>&1; echo "bench exit $?"
  grep -E "failed" build/logs/bench.log
fi
if [[ $steps == *sanitize* ]]; then
  SANITIZE_JOBS=${SANITIZE_JOBS:-6} make -s sanitize "${chs[@]}" > build/logs/sanitize.log 2>&1
  grep -E "^FAIL|sanitize:" build/logs/sanitize.log
fi
cp build/sanitize/*.log build/logs/ 2>/dev/null
tar czf "$OUT/results.tgz" figures/data build/logs
