#!/bin/bash
# check.sh -- the book's lint: every message is FILE:LINE: what is wrong.
#  - a chunk used but never defined, defined but never used (noweb's noroots)
#  - a code line wider than the page (code-width in book.yaml)
#  - drift: tangled/ differs from what the chapters say
#  - README's package table differs from tools/deps.list
set -o pipefail
status=0
nws=$(tools/chapters.sh | sed 's|^|chapters/|; s|$|.nw|')
width=$(tools/chapters.sh code-width)
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
  for f in $(cd tangled 2>/dev/null && find . -type f | sed 's|^\./||' | sort); do
    [ -f "$tmp/t/$f" ] || { echo "tangled/$f:1: no chapter writes this file any more"; status=1; }
  done
else
  cat "$tmp/err"; status=1
fi
tools/readme-deps.sh check || status=1
[ $status = 0 ] && echo "check: chunks, widths and tangled/ agree with the chapters"
exit $status
