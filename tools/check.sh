#!/bin/bash
# check.sh -- the book's lint: every message is FILE:LINE: what is wrong.
#  - a chunk used but never defined, defined but never used (noweb's noroots)
#  - a chunk defined in two chapters: noweb would join them silently
#  - a code line wider than the page (code-width in book.yaml)
#  - drift: tangled/ (and tangled/.codesum) differs from what the chapters say
#    (tools/drift.sh, which the build runs too)
#  - README's package table differs from tools/deps.list
#  - a test or file that the prose names does not exist (tools/prose-refs.sh)
#  - the shared layer includes a chapter, a chapter includes the header of
#    one it does not link, or a launcher skips BOOK_CLEAR_TO_LAUNCH
#    (tools/layer-check.sh)
#  - a chapter uses the measurements of one it does not read or link, or
#    reads one whose measurements it does not use (tools/reads-check.sh)
set -o pipefail
status=0
nws=$(tools/chapters.sh | sed 's|^|chapters/|; s|$|.nw|')
width=$(tools/chapters.sh code-width)
tools/noweb.sh markup $nws | gawk -f tools/tangle.awk -v mode=check -v width="${width:-78}" || status=1
# shellcheck disable=SC2086
gawk 'FNR == 1 { file = FILENAME }
     /^<<.*>>=[ \t]*$/ { name = $0; sub(/=[ \t]*$/, "", name)
       if ((name in first) && first[name] != file) {
         printf "%s:%d: chunk %s is also defined in %s\n", FILENAME, FNR, name, first[name]
         bad = 1
       }
       if (!(name in first)) first[name] = file }
     END { exit bad }' $nws || status=1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
if tools/tangle.sh "$tmp/t" 2>"$tmp/err"; then
  tools/drift.sh "$tmp/t" || status=1
else
  cat "$tmp/err"; status=1
fi
tools/chapters.sh check || status=1
tools/readme-deps.sh check || status=1
tools/prose-refs.sh || status=1
tools/tested-by.sh check || status=1   # a launcher that no test of its chapter calls
tools/chapter-numbers.sh || status=1
tools/layer-check.sh || status=1
tools/reads-check.sh || status=1
[ $status = 0 ] && echo "check: chunks, widths, tangled/, layers, links and reads, README and the prose's references agree"
exit $status
