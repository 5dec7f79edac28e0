#!/bin/bash
# prove-new-tests.sh -- on a GPU (9.0 for most), show that each test added
# for review 2026-12-07 fails on the code it guards against: for each case
# below, a copy of tangled/ in build/prove/src gets the old code back (or
# a bug planted on purpose), the chapter's test program is built from it
# (make SRC=build/prove/src) and the one test is run; it must FAIL.  Then
# the objects are removed, so that the next normal build is clean.
# Prints one line a case, "fails as it must" or "PASSED: cannot fail";
# exits 1 if any case passed.  OLD is the commit before the fixes.
cd "$(dirname "$0")/../.." || exit 1
OLD=${OLD:-62e7a31}
P=build/prove/src
status=0
clean() { rm -rf build/obj/tensor-gemm build/tensor-gemm/test build/tensor-gemm/*.o; }
# case NAME TEST EDIT...: EDIT is a shell command run in $P.
case_() {
  local name=$1 test=$2; shift 2
  rm -rf "$P"; mkdir -p "$P"; cp -r tangled/. "$P"
  (cd "$P" && eval "$@") || { echo "$name: the edit failed"; status=1; return; }
  clean
  if ! make -s SRC="$P" build/tensor-gemm/test >build/prove/$name.build 2>&1; then
    echo "$name: does not build (build/prove/$name.build)"; status=1; return
  fi
  if BOOK_FILTER="$test" build/tensor-gemm/test >build/prove/$name.log 2>&1; then
    echo "$name: $test PASSED: cannot fail (build/prove/$name.log)"; status=1
  else
    echo "$name: $test fails as it must (build/prove/$name.log)"
  fi
}
mkdir -p build/prove
old() { for f in "$@"; do git show "$OLD:tangled/$f" > "$f" || return 1; done; }
# 3.2: the old launchers refused C taller than 65535 tile rows.
case_ slabs tall_matrices_run_in_slabs \
  "$(declare -f old); OLD=$OLD old tensor-gemm/tc_wmma.sm80.cu tensor-gemm/tc_mma.sm80.cu tensor-gemm/tc_gemm.cu"
# 3.5: no check of the element alignment (shown on the CPU too).
case_ align misaligned_elements_refused \
  "perl -0pi -e 's/    \/\/ A misaligned store.*?return cudaErrorInvalidValue;\n//s' tensor-gemm/tc_args.cuh"
# Issue (a): a memo keyed by the pointer alone.
case_ memo gemm_same_pointers_new_shape \
  "perl -pi -e 's/memcmp\(&m\.key\[i\], &k, sizeof k\) == 0/m.key[i].p == k.p/' arch/sm90.cuh"
# 5.3: the old ceiling stored nothing that could be checked.
case_ peak peak_runs_and_computes \
  "$(declare -f old); OLD=$OLD old tensor-gemm/tc_peak.sm90a.cu && perl -pi -e 's/sink == NULL\)/sink == NULL || ((unsigned long)sink \& 3))/' tensor-gemm/tc_peak.sm90a.cu"
# 5.2 / 1.3: a kernel that leaves rows 1100 to 1107 unwritten; the old
# sampling of 64 rows of 2200 missed them about four times in five.
case_ rows 'persistent_edge_shapes' \
  "perl -pi -e 's/^    if \(row >= M\) return;/    if (row >= M || (row >= 1100 \&\& row < 1108)) return;/' tensor-gemm/tc_args.cuh"
# 5.5: a store to C[-1], which the old guard (after C only) did not see.
case_ guard 'wgmma_edge_shapes' \
  "perl -pi -e 's/^    if \(row >= M\) return;/    if (row >= M) return;\n    if (row == 0 \&\& col == 0 \&\& out == TC_OUT_F32) ((float *)C)[-1] = v0;/' tensor-gemm/tc_args.cuh"
clean; rm -rf build/prove/src
exit $status
