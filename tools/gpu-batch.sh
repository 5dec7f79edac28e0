#!/bin/bash
# gpu-batch.sh -- on the GPU machine, the programs tools/gpu-pack.sh packed
# into .gpu-run/: every test program and solution at once, then the
# benchmarks one after another (timing wants the GPU alone), then the
# sanitizer, several runs at once.  GPU_STEPS picks steps (default "test
# bench sanitize").  Each step has a time limit, so one slow step cannot
# starve the next: TEST_LIMIT, BENCH_LIMIT, SANITIZE_LIMIT seconds
# (defaults 120, 300, 180).  Logs and the CSVs made go into one tarball,
# $OUT/results.tgz (default build/gpu-out; the device tool returns a
# limited number of files), refreshed after each step; a summary is
# printed last.  GPU_TOGETHER=1 runs the tests and the sanitizer at once.
cd "$(dirname "$0")/.." || exit 1
[ -f .gpu-run/programs ] || { echo "gpu-batch: no .gpu-run/programs (run tools/gpu-pack.sh, and carry .gpu-run)"; exit 1; }
OUT=${OUT:-build/gpu-out}; mkdir -p "$OUT"
cp -rp .gpu-run/build . && { [ -d .gpu-run/.deps ] && cp -rp .gpu-run/.deps . || true; }
export LD_LIBRARY_PATH=$PWD/.deps/cmocka/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export BOOK_COMMIT; BOOK_COMMIT=$(cat .gpu-run/commit)
# The programs of each kind (test, bench, solution), as make programs listed them.
prog() { awk -v k="$1" '$1 == k { print $2 }' .gpu-run/programs; }
mapfile -t T < <(prog test); mapfile -t S < <(prog solution); mapfile -t B < <(prog bench)
chs=$(printf '%s\n' "${T[@]}" | sed 's|^build/||; s|/test$||')
gpu=${GPU:-$(tools/gpu-slug.sh)} || exit 1
steps=${GPU_STEPS:-test bench sanitize}
L=build/logs; mkdir -p "$L"
t0=$(date +%s); el() { echo "$(( $(date +%s) - t0 )) s"; }
pack() { tar czf "$OUT/results.tgz" "$L" $(ls -d figures/data/"$gpu" 2>/dev/null); }
{ nvidia-smi; nvcc --version; date -u; } > "$L/machine.txt" 2>&1
# The tests, or with GPU_TOGETHER=1 the tests beside the sanitizer (both
# check correctness only, so they may share the GPU; never the benchmarks).
run_tests() {
  rm -f "$L"/test.*.log
  for t in "${T[@]}" "${S[@]}"; do
    ( timeout "${TEST_LIMIT:-120}" tools/run-tests.sh "$t" > "$L/test.$(echo "$t" | tr / _).log" 2>&1 ) &
  done
  wait
  grep -h "^--- " "$L"/test.*.log | tee "$L/test-summary.txt"
  awk '{ p += $(NF-5); f += $(NF-3); s += $(NF-1) } END { print "tests:", p + 0, "passed,", f + 0, "failed,", s + 0, "skipped" }' \
    "$L/test-summary.txt"
  echo "tests done, $(el)"; pack
}
tests_pid=
export BOOK_GPU=$gpu   # tests that write a CSV (flash-tests.csv) write it for this GPU
if [[ $steps == *test* ]]; then
  if [ "${GPU_TOGETHER:-0}" = 1 ] && [[ $steps == *sanitize* ]]; then run_tests & tests_pid=$!
  else run_tests; fi
fi
if [[ $steps == *bench* ]]; then
  [ -n "$tests_pid" ] && wait "$tests_pid" && tests_pid=
  timeout "${BENCH_LIMIT:-300}" tools/bench.sh "$gpu" "$chs" "${B[@]}" > "$L/bench.log" 2>&1
  echo "bench: exit $? (124: out of time), $(el)"; grep -E "failed" "$L/bench.log"; pack
fi
if [[ $steps == *sanitize* ]]; then
  SANITIZE_JOBS=${SANITIZE_JOBS:-$(nproc)} SANITIZE_TIMEOUT=${SANITIZE_LIMIT:-180} \
    timeout "$(( ${SANITIZE_LIMIT:-180} + 10 ))" tools/sanitize.sh "${T[@]}" > "$L/sanitize.log" 2>&1
  echo "sanitize: exit $?, $(el)"; cp build/sanitize/*.log "$L/" 2>/dev/null
  grep -v "^ok" "$L/sanitize.log" | tail -12; pack
fi
[ -n "$tests_pid" ] && wait "$tests_pid"
pack; echo "results: $OUT/results.tgz"
