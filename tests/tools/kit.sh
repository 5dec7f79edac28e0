# kit.sh -- what the toolchain tests (tests/tools/test_*.sh) share: their
# output in cmocka's format for run-tests.sh, and the failures they expect.
# Source it from bash at the top of the book, once $tmp is set:
# . tests/tools/kit.sh

# result NAME STATUS: OK on 0, SKIPPED on 77, else FAILED.
result() {
  case $2 in 0) echo "[       OK ] $1" ;; 77) echo "[  SKIPPED ] $1" ;; *) echo "[  FAILED  ] $1" ;; esac
}

# expect_fail PATTERN COMMAND...: the command fails and says PATTERN (its
# output is in $tmp/out).
expect_fail() {
  local pat=$1; shift
  if "$@" > "$tmp/out" 2>&1; then echo "expected a failure, got success"; return 1; fi
  grep -q -- "$pat" "$tmp/out" || { echo "expected '$pat' in:"; cat "$tmp/out"; return 1; }
}

# nvcc_here: the nvcc a build here would find ($NVCC, the PATH's, or CUDA's
# own); nothing where there is none.
nvcc_here() {
  echo "${NVCC:-$(command -v nvcc || { [ -x /usr/local/cuda/bin/nvcc ] && echo /usr/local/cuda/bin/nvcc; })}"
}

# run_unless NAME WHY LINES COMMAND...: the test NAME, skipped saying
# "needs WHY" where WHY is not empty; else the command: OK on 0 (showing
# its "timing:" lines), SKIPPED on 77 (its last 2 lines), else FAILED
# with its last LINES lines.
run_unless() {
  local name=$1 why=$2 lines=$3 out rc; shift 3
  echo "[ RUN      ] $name"
  if [ -n "$why" ]; then echo "skipped: needs $why"; echo "[  SKIPPED ] $name"; return; fi
  out=$("$@" 2>&1); rc=$?
  if [ $rc = 0 ]; then echo "$out" | grep "^timing:"; echo "[       OK ] $name"
  elif [ $rc = 77 ]; then echo "$out" | tail -2; echo "[  SKIPPED ] $name"
  else echo "$out" | tail -"$lines"; echo "[  FAILED  ] $name"; fi
}
