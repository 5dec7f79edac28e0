#!/bin/bash
# mutants.sh build SLUG... | run -- show that a test can fail: each line
# of tests/SLUG/mutants.txt names a mutant, "NAME TEST EDIT": EDIT, a shell
# command run in a copy of tangled/, puts back the bug that TEST guards
# against (the old code, or a bug planted on purpose).
#   build   makes build/mutants/SLUG.NAME, the chapter's test program built
#           from that copy (SRC=, in a copy of the book of its own, so that
#           the builds run at once and leave build/ as it was); on a machine
#           without a GPU too, and the programs carried to one.
#   run     runs each built program's TEST (BOOK_FILTER): it must FAIL.
#           One line a mutant, "fails as it must" or "PASSED: cannot fail";
#           exits 1 if any passed or did not run.
# OLD names the commit that "old FILE..." in an EDIT takes files from.
cd "$(dirname "$0")/.." || exit 1
M=${MUTANTS:-build/mutants}; mkdir -p "$M"
cases() {   # the mutants of the chapters named: SLUG NAME TEST EDIT
  for c in "$@"; do
    [ -f "tests/$c/mutants.txt" ] || continue
    grep -v '^[[:space:]]*\(#\|$\)' "tests/$c/mutants.txt" | sed "s|^|$c |"
  done
}
case ${1:-} in
build)
  shift; root=$PWD; status=0
  while read -r c name test edit; do
    (
      w=$(mktemp -d); trap 'rm -rf "$w"' EXIT
      tar cf - --exclude=./build --exclude=./.git --exclude=./.gpu-run . | tar xf - -C "$w"
      mkdir -p "$w/build/mutant" && cp -r tangled/. "$w/build/mutant"
      (cd "$w/build/mutant" && OLD=${OLD:-HEAD} ROOT=$root \
        bash -c 'old() { for f in "$@"; do git -C "$ROOT" show "$OLD:tangled/$f" > "$f" || return 1; done; }; '"$edit") ||
        { echo "$c.$name: the edit failed"; exit 1; }
      if make -C "$w" -s SRC=build/mutant ARCH="${ARCH:-sm_90}" "build/$c/test" > "$M/$c.$name.build" 2>&1; then
        cp "$w/build/$c/test" "$M/$c.$name" && echo "$c $name $test" > "$M/$c.$name.case" && echo "$c.$name: built"
      else echo "$c.$name: does not build ($M/$c.$name.build)"; exit 1; fi
    ) &
    while [ "$(jobs -rp | wc -l)" -ge "${JOBS:-4}" ]; do wait -n || status=1; done
  done < <(cases "$@")
  while [ "$(jobs -rp | wc -l)" -gt 0 ]; do wait -n || status=1; done
  exit $status ;;
run)
  status=0; n=0
  export LD_LIBRARY_PATH=$PWD/.deps/cmocka/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  for f in "$M"/*.case; do
    [ -f "$f" ] || continue
    read -r c name test < "$f"; n=$((n + 1))
    BOOK_FILTER="$test" timeout "${MUTANT_LIMIT:-300}" "$M/$c.$name" > "$M/$c.$name.log" 2>&1; rc=$?
    if [ $rc = 0 ]; then echo "PASSED: cannot fail: $c $name ($test)"; status=1
    elif grep -q '\[  FAILED  \]' "$M/$c.$name.log"; then echo "fails as it must: $c $name ($test)"
    else echo "did not run: $c $name ($test), exit $rc; see $M/$c.$name.log"; status=1; fi
  done
  echo "mutants: $n run"; exit $status ;;
*) echo "usage: tools/mutants.sh build SLUG... | run"; exit 2 ;;
esac
