#!/bin/bash
# pdf-passes.sh BOOK -- typeset build/BOOK.tex into build/BOOK.pdf (make pdf):
# xelatex, makeindex for the subject index (tools/index.ist; the book's
# \index marks, tools/preamble.tex), then xelatex again, and once more
# while LaTeX says a rerun would change cross-references, or the pass
# changed what the next one reads (.aux, .toc, .out: the contents and the
# bookmarks), three passes at most.  The log is build/xelatex-BOOK.log
# (xelatex.log for the student book, xelatex-instructor.log for the other).
# Fails on a TeX error, on an index entry that makeindex rejects or warns
# about, and on references still undefined at the end.
set -o pipefail
book=${1:?usage: pdf-passes.sh BOOK   (build/BOOK.tex)}
cd "$(dirname "$0")/../build" || exit 1
log=xelatex${book#book}.log
# What the next pass reads: labels, the contents, the bookmarks.  LaTeX
# says when labels changed, not when the contents did.
sums() { cat "$book.aux" "$book.toc" "$book.out" 2> /dev/null | md5sum; }
before=$(sums)
for pass in 1 2 3; do
  TEXINPUTS=..:../figures: xelatex -interaction=nonstopmode -halt-on-error "$book.tex" > "$log" 2>&1 ||
    { grep -A5 '^!' "$log"; echo "xelatex failed (pass $pass): see build/$log"; exit 1; }
  if [ $pass = 1 ]; then
    # The subject index, from the first pass's pages: the body's pages do
    # not move after it (the front matter is numbered apart).
    makeindex -q -s ../tools/index.ist -t "$book.ilg" "$book.idx" ||
      { cat "$book.ilg"; echo "makeindex failed: see build/$book.ilg"; exit 1; }
    if grep -Eq '[1-9][0-9]* rejected|[1-9][0-9]* warnings' "$book.ilg"; then
      grep -A2 -E '^(!!|##)' "$book.ilg"
      echo "pdf: makeindex rejected or warned about \\index entries (build/$book.ilg): see the lines above"; exit 1
    fi
  elif ! grep -q 'Rerun to get\|Rerun LaTeX\|may have changed' "$log" && [ "$(sums)" = "$before" ]; then
    break
  fi
  before=$(sums)
done
grep -q 'There were undefined references' "$log" && { grep 'LaTeX Warning: Reference' "$log" | head; echo "pdf: undefined references"; exit 1; }
exit 0
