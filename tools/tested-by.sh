#!/bin/bash
# tested-by.sh [check] [SLUG...] -- which tests call which launchers.
#   (none)   SLUG<TAB>LAUNCHER<TAB>TEST TEST ... for every launcher that a
#            chapter header tangled/SLUG/*.h declares, with the registered
#            cmocka tests of tests/SLUG/test_*.c that reach it (through
#            helpers, tables of functions and macros); the weave reads this
#            (nw2md.awk -v testedby=FILE) to say "Tested by" under the
#            chunk that defines each launcher
#   check    FILE:LINE: launcher NAME is declared but no test in tests/SLUG
#            calls it, for each such launcher; exit status 1 if any
# The chapters are book.yaml's (tools/chapters.sh), or the SLUGs given.
# Only a chapter's own tests count, not those of the chapters that use
# it.  How a test reaches a launcher, and what the graph does not see:
# tools/tested-by.awk.  Needs gawk.
cd "$(dirname "$0")/.." || exit 1
mode=map
[ "${1:-}" = check ] && { mode=check; shift; }
[ $# -gt 0 ] && slugs=("$@") || mapfile -t slugs < <(tools/chapters.sh)
args=()
for s in "${slugs[@]}"; do
  for h in tangled/"$s"/*.h; do [ -f "$h" ] && args+=("$s:h:$h"); done
  for t in tests/"$s"/test_*.c; do [ -f "$t" ] && args+=("$s:t:$t"); done
done
[ ${#args[@]} -gt 0 ] || exit 0
exec gawk -f tools/tested-by.awk -v mode="$mode" "${args[@]}"
