#!/bin/bash
# gpu-run.sh [CH...] -- everything the GPU machine is for, in one go:
# build, make test, make sanitize, make bench; logs and the measured CSVs
# land in $OUT (default build/gpu-out) as one tarball, and a short table
# is printed last.  Runs from the committed tangled/ (no noweb needed).
set -o pipefail
OUT=${OUT:-build/gpu-out}; mkdir -p "$OUT" build/logs
export BOOK_COMMIT=${BOOK_COMMIT:-$(cat .book-commit 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)}
chs=${*:+CH="$*"}
{ nvidia-smi; nvcc --version; } > build/logs/machine.txt 2>&1
make -j8 -s $chs $(for c in $*; do echo build/$c/test; done) > build/logs/build.log 2>&1
make -s test $chs 2>&1 | tee build/logs/test.log | grep -E "^(---|\[  FAILED|.*passed,)" ; t=$?
make -s sanitize $chs > build/logs/sanitize.log 2>&1; s=$?
grep -E "^(ok|FAIL|SKIP)|sanitize:" build/logs/sanitize.log
make -s bench $chs > build/logs/bench.log 2>&1; b=$?
cp -r build/*/sanitize-*.log build/*/expect-*.log build/logs/ 2>/dev/null
tar czf "$OUT/results.tgz" figures/data build/logs
echo "== summary: test $(tail -1 build/logs/test.log) | sanitize $(tail -1 build/logs/sanitize.log) | bench exit $b"
for f in figures/data/*/*.csv; do echo "== $f"; grep -v '^#' "$f" | head -40; done
