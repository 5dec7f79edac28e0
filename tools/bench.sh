#!/bin/bash
# bench.sh GPU "CH..." BENCH... -- make bench: run each benchmark program, in
# the order given (book order, so a chapter's benchmark runs after those of
# the chapters it links or reads that come before it, whose CSVs it may
# open: tools/chapters.sh before CH), then each chapter's
# tests/CH/counters.sh, writing figures/data/GPU/ (GPU empty: the GPU of
# this machine, tools/gpu-slug.sh).  Every CSV starts with the provenance
# lines of tools/provenance.sh, passed to the programs in BOOK_PROVENANCE.
# Exits non-zero if any program failed.
gpu=${1:-$(tools/gpu-slug.sh)} || exit 1
chs=$2; shift 2
export BOOK_GPU=$gpu BOOK_PROVENANCE
BOOK_PROVENANCE=$(tools/provenance.sh)
mkdir -p "figures/data/$gpu"
echo "bench: writing figures/data/$gpu/"
st=0
for b in "$@"; do
  "$b" || { echo "bench: $b failed"; st=1; }
done
for c in $chs; do
  [ -x "tests/$c/counters.sh" ] || continue
  "tests/$c/counters.sh" || { echo "bench: tests/$c/counters.sh failed"; st=1; }
done
exit $st
