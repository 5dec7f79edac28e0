#!/bin/bash
# drift.sh DIR [lines] -- the one drift check: is the committed tangled/ what
# the chapters say?  DIR holds the chapters freshly tangled (tools/tangle.sh
# DIR, with "lines" when its files carry #line directives, which tangled/
# leaves out).  Every difference is reported as FILE:LINE: what is wrong;
# exits 1 if there is any.
cd "$(dirname "$0")/.." || exit 1
dir=$1; lines=${2:-}
body() { if [ "$lines" = lines ]; then grep -v '^#line ' "$1"; else cat "$1"; fi; }
status=0
for f in $(cd "$dir" && find . -type f ! -name .codesum | sed 's|^\./||' | sort); do
  if [ ! -f "tangled/$f" ]; then
    echo "tangled/$f:1: missing; the chapters write it (run make tangle)"; status=1
  elif ! body "$dir/$f" | cmp -s - "tangled/$f"; then
    l=$(body "$dir/$f" | cmp - "tangled/$f" 2>&1 | sed -n 's/.* line \([0-9]*\).*/\1/p')
    echo "tangled/$f:${l:-1}: differs from what the chapters say (edit the chapter, then make tangle)"; status=1
  fi
done
for f in $(cd tangled 2>/dev/null && find . -type f ! -name .codesum | sed 's|^\./||' | sort); do
  [ -f "$dir/$f" ] || { echo "tangled/$f:1: no chapter writes this file any more (run make tangle)"; status=1; }
done
[ "$(tools/codesum.sh)" = "$(cat tangled/.codesum 2>/dev/null)" ] ||
  { echo "tangled/.codesum:1: not the checksum of the chapters' code (run make tangle)"; status=1; }
exit $status
