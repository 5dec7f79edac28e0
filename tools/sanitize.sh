#!/bin/bash
# sanitize.sh TEST... -- run each chapter's test program under
# compute-sanitizer's memcheck, racecheck, synccheck and initcheck, with the
# smaller sizes (BOOK_SMALL=1).  A run is clean when the tool reports no
# finding and the tests pass.  Tests of listings that race on purpose skip
# themselves in these runs (BOOK_SANITIZE=1); a file tests/CH/sanitize.expect
# names them, one "TOOL TEST" a line, and each is then run alone under that
# tool, where the finding must appear.
# SANITIZE_JOBS runs go at once (default 4), the longest first: the order
# is that of the last run's times (build/sanitize/*.sec), racecheck first
# where none is known; each run's time is printed with its result.
# Ends with: N passed, N failed, N skipped (runs, not tests).
CS=${COMPUTE_SANITIZER:-compute-sanitizer}
command -v "$CS" >/dev/null || CS=/usr/local/cuda/bin/compute-sanitizer
if ! [ -x "$(command -v "$CS")" ]; then
  echo "sanitize: compute-sanitizer not found (it comes with the CUDA toolkit)"; exit 1
fi
JOBS=${SANITIZE_JOBS:-4}
LIMIT=${SANITIZE_TIMEOUT:-600}
mkdir -p build/sanitize
# One job: run_one CH TOOL TEST [TESTNAME] writes build/sanitize/CH.TOOL[.TESTNAME].{log,rc}
run_one() {
  local ch=$1 tool=$2 t=$3 name=${4:-} tag=$1.$2${4:+.$4} t0=$SECONDS
  if [ -z "$name" ]; then
    BOOK_SMALL=1 BOOK_SANITIZE=1 timeout "$LIMIT" "$CS" --tool "$tool" --error-exitcode 86 "$t" \
      > "build/sanitize/$tag.log" 2>&1
  else
    BOOK_SMALL=1 BOOK_FILTER="$name" BOOK_EXPECT_FINDING=1 timeout "$LIMIT" "$CS" --tool "$tool" "$t" \
      > "build/sanitize/$tag.log" 2>&1
  fi
  echo $? > "build/sanitize/$tag.rc"
  echo $((SECONDS - t0)) > "build/sanitize/$tag.sec"
}
# est JOB: the seconds the job took last time, or a guess (racecheck is the
# slowest tool by far).
est() {
  set -- $1; local tag=$1.$2${4:+.$4}
  if [ -s "build/sanitize/$tag.sec" ]; then cat "build/sanitize/$tag.sec"
  elif [ "$2" = racecheck ]; then echo 1000; else echo 0; fi
}
jobs=()
for t in "$@"; do
  ch=$(basename "$(dirname "$t")")
  for tool in memcheck racecheck synccheck initcheck; do jobs+=("$ch $tool $t"); done
  exp=tests/$ch/sanitize.expect
  [ -f "$exp" ] && while read -r tool name; do
    case $tool in ''|'#'*) continue ;; esac
    jobs+=("$ch $tool $t $name")
  done < "$exp"
done
rm -f build/sanitize/*.rc
mapfile -t order < <(for j in "${jobs[@]}"; do printf '%s\t%s\n' "$(est "$j")" "$j"; done | sort -t "$(printf '\t')" -k1,1nr -s | cut -f2)
for j in "${order[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
  run_one $j &
done
wait
pass=0; fail=0; skipped=0
for j in "${jobs[@]}"; do
  set -- $j; ch=$1 tool=$2 name=${4:-}; tag=$ch.$tool${name:+.$name}
  log=build/sanitize/$tag.log; rc=$(cat "build/sanitize/$tag.rc" 2>/dev/null || echo 99)
  sec=" ($(cat "build/sanitize/$tag.sec" 2>/dev/null || echo '?') s)"
  summary=$(grep -E "(ERROR|RACECHECK) SUMMARY" "$log" | tail -1)
  if [ -z "$name" ]; then
    if grep -q "skipped: no CUDA device" "$log"; then
      echo "SKIP $ch $tool: no CUDA device"; skipped=$((skipped + 1))
    elif [ "$rc" -eq 0 ] && grep -Eq "SUMMARY: 0 (errors|hazards)" "$log"; then
      echo "ok   $ch $tool: $summary$sec"; pass=$((pass + 1))
    else
      echo "FAIL $ch $tool (exit $rc$([ "$rc" = 124 ] && echo ": out of its ${LIMIT} s")): ${summary:-no summary}; see $log$sec"; fail=$((fail + 1))
    fi
  else
    if grep -Eq "SUMMARY: [1-9][0-9]* (errors|hazards)" "$log"; then
      echo "ok   $ch $tool finds the bug in $name, as it should: $summary$sec"; pass=$((pass + 1))
    else
      echo "FAIL $ch $tool should report the bug in $name (exit $rc): ${summary:-no summary}; see $log"
      fail=$((fail + 1))
    fi
  fi
done
echo
echo "sanitize: $pass passed, $fail failed, $skipped skipped"
[ $fail -eq 0 ]
