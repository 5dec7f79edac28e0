#!/bin/bash
# sanitize.sh TEST... -- run each chapter's test program under
# compute-sanitizer's memcheck, racecheck, synccheck and initcheck, with the
# smaller sizes (BOOK_SMALL=1).  A run is clean when the tool reports no
# finding and the tests pass.  Tests of listings that race on purpose skip
# themselves in these runs (BOOK_SANITIZE=1); a file tests/CH/sanitize.expect
# names them, one "TOOL TEST" a line, and each is then run alone under that
# tool, where the finding must appear.
# Ends with: N passed, N failed, N skipped (runs, not tests).
CS=${COMPUTE_SANITIZER:-compute-sanitizer}
command -v "$CS" >/dev/null || CS=/usr/local/cuda/bin/compute-sanitizer
if ! [ -x "$(command -v "$CS")" ]; then
  echo "sanitize: compute-sanitizer not found (it comes with the CUDA toolkit)"; exit 1
fi
pass=0; fail=0; skipped=0
for t in "$@"; do
  ch=$(basename "$(dirname "$t")")
  for tool in memcheck racecheck synccheck initcheck; do
    log=build/$ch/sanitize-$tool.log
    BOOK_SMALL=1 BOOK_SANITIZE=1 "$CS" --tool "$tool" --error-exitcode 86 "$t" > "$log" 2>&1
    rc=$?
    summary=$(grep -E "(ERROR|RACECHECK) SUMMARY" "$log" | tail -1)
    if grep -q "skipped: no CUDA device" "$log"; then
      echo "SKIP $ch $tool: no CUDA device"; skipped=$((skipped + 1))
    elif [ $rc -eq 0 ] && grep -Eq "SUMMARY: 0 (errors|hazards)" "$log"; then
      echo "ok   $ch $tool: $summary"; pass=$((pass + 1))
    else
      echo "FAIL $ch $tool (exit $rc): ${summary:-no summary}; see $log"; fail=$((fail + 1))
    fi
  done
  exp=tests/$ch/sanitize.expect
  [ -f "$exp" ] || continue
  while read -r tool name; do
    case $tool in ''|'#'*) continue ;; esac
    log=build/$ch/expect-$tool-$name.log
    BOOK_SMALL=1 BOOK_FILTER="$name" BOOK_EXPECT_FINDING=1 "$CS" --tool "$tool" "$t" > "$log" 2>&1
    summary=$(grep -E "(ERROR|RACECHECK) SUMMARY" "$log" | tail -1)
    if grep -Eq "SUMMARY: [1-9][0-9]* (errors|hazards)" "$log"; then
      echo "ok   $ch $tool finds the bug in $name, as it should: $summary"; pass=$((pass + 1))
    else
      echo "FAIL $ch $tool should report the bug in $name: ${summary:-no summary}; see $log"; fail=$((fail + 1))
    fi
  done < "$exp"
done
echo
echo "sanitize: $pass passed, $fail failed, $skipped skipped"
[ $fail -eq 0 ]
