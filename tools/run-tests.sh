#!/bin/bash
# run-tests.sh PROGRAM... -- run test programs that speak cmocka's standard
# output, show their output, and end with one line over all of them:
#   N passed, N failed, N skipped
# A test counts as passed only on its "[       OK ]" line; "[  SKIPPED ]"
# is a skip, never a pass; a program that dies mid-test, or exits non-zero
# with nothing counted as failed, adds a failure.
pass=0; fail=0; skipped=0
for prog in "$@"; do
  echo "=== $prog"
  out=$(mktemp)
  if [ -x "$prog" ]; then "$prog" > "$out" 2>&1; rc=$?; else echo "missing test program $prog" > "$out"; rc=127; fi
  cat "$out"
  read -r p f s < <(awk '
    /^\[ RUN      \] /     { if (open) f++; open = 1; next }
    /^\[       OK \] /     { if (open) p++; open = 0; next }
    /^\[  SKIPPED \] /     { if (open) s++; open = 0; next }
    /^\[  (FAILED|ERROR) +\] / { if (open) f++; open = 0; next }
    END { if (open) f++; print p + 0, f + 0, s + 0 }' "$out")
  if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then f=1; echo "$prog: exited with status $rc"; fi
  echo "--- $prog: $p passed, $f failed, $s skipped"
  pass=$((pass + p)); fail=$((fail + f)); skipped=$((skipped + s))
  rm -f "$out"
done
echo
echo "$pass passed, $fail failed, $skipped skipped"
[ $fail -eq 0 ]
