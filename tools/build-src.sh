#!/bin/bash
# build-src.sh -- what the build compiles, made ready before make decides
# what to rebuild (the Makefile runs it while it reads itself, so make -n
# tells the truth too):
#  - with noweb: tangle the chapters into build/src with #line directives
#    (files whose bytes do not change are not touched, so only what changed
#    is compiled again), then check that the committed tangled/ is the same
#    code without the #line lines; any difference is drift, reported as
#    FILE:LINE, and the build stops;
#  - without noweb: the build compiles tangled/ itself, after checking that
#    the chapters' code is what it was written from (tangled/.codesum).
# Prints one line saying which tree is compiled; exits 1 on drift.
cd "$(dirname "$0")/.." || exit 1
if ! { command -v notangle && command -v gawk; } >/dev/null 2>&1; then
  now=$(tools/codesum.sh)
  if [ "$(echo "$now" | grep '^chapters ')" != "$(grep '^chapters ' tangled/.codesum 2>/dev/null)" ]; then
    echo "tangled/.codesum:1: the chapters' code is not what tangled/ was written from, and noweb"
    echo "  is not here to tangle them: install noweb (make deps), or run make tangle where it is"
    exit 1
  fi
  if [ "$(echo "$now" | grep '^tangled ')" != "$(grep '^tangled ' tangled/.codesum 2>/dev/null)" ]; then
    echo "tangled/.codesum:2: the files of tangled/ are not what make tangle wrote (edited by hand?);"
    echo "  edit the chapters instead and make tangle where noweb is, or git checkout tangled"
    exit 1
  fi
  if [ "${SRC:-tangled}" = tangled ]; then
    echo "build: compiling the committed tangled/ (noweb is not installed)"
  else
    echo "build: compiling $SRC as given (SRC=); noweb is not installed here, and tangled/ matches the chapters' code"
  fi
  exit 0
fi
tools/tangle.sh build/src lines || exit 1
status=0
tools/drift.sh build/src lines || status=1
if [ $status = 0 ]; then echo "build: compiling the chapters (tangled into build/src)"
else echo "build: the committed tangled/ is not what the chapters say; run make tangle, then build again"; fi
exit $status
