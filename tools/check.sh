#!/bin/bash
# check.sh [drift] -- the book's lint: every message is FILE:LINE: what is wrong.
#  - a chunk used but never defined, defined but never used (noweb's noroots)
#  - a code line wider than the page (code-width in book.yaml)
#  - drift: tangled/ (and tangled/.codesum) differs from what the chapters say
#  - README's package table differs from tools/deps.list
#  - a test or file that the prose names does not exist (tools/prose-refs.sh)
# With "drift", only the drift check (the build runs it before compiling).
set -o pipefail
status=0
nws=$(tools/chapters.sh | sed 's|^|chapters/|; s|$|.nw|')
width=$(tools/chapters.sh code-width)
[ "${1:-}" = drift ] ||
  tools/noweb.sh markup $nws | gawk -f tools/tangle.awk -v mode=check -v width="${width:-78}" || status=1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
if tools/tangle.sh "$tmp/t" 2>"$tmp/err"; then
  for f in $(cd "$tmp/t" && find . -type f | sed 's|^\./||' | sort); do
    if [ ! -f "tangled/$f" ]; then
      echo "tangled/$f:1: missing; the chapters write it (run make tangle)"; status=1
    elif ! cmp -s "$tmp/t/$f" "tangled/$f"; then
      l=$(cmp "$tmp/t/$f" "tangled/$f" | sed -n 's/.* line \([0-9]*\).*/\1/p')
      echo "tangled/$f:${l:-1}: differs from what the chapters say (edit the chapter, then make tangle)"; status=1
    fi
  done
  for f in $(cd tangled 2>/dev/null && find . -type f ! -name .codesum | sed 's|^\./||' | sort); do
    [ -f "$tmp/t/$f" ] || { echo "tangled/$f:1: no chapter writes this file any more (run make tangle)"; status=1; }
  done
  [ "$(tools/codesum.sh)" = "$(cat tangled/.codesum 2>/dev/null)" ] ||
    { echo "tangled/.codesum:1: not the checksum of the chapters' code (run make tangle)"; status=1; }
else
  cat "$tmp/err"; status=1
fi
if [ "${1:-}" = drift ]; then
  [ $status = 0 ] || echo "build: the committed tangled/ is not what the chapters say; run make tangle, then build again"
  exit $status
fi
tools/readme-deps.sh check || status=1
tools/prose-refs.sh || status=1
tools/chapter-numbers.sh || status=1
[ $status = 0 ] && echo "check: chunks, widths, tangled/, README and the prose's references agree"
exit $status
