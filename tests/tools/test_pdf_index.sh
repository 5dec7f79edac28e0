#!/bin/bash
# test_pdf_index.sh -- the PDF's indexes give a page for every entry:
# tools/pdf-index-check.sh, which make pdf runs on every PDF it builds (and
# fails the build), passes a good index of chunks and identifiers and names
# each entry without a page in a faulty one (text fixtures, in the form
# pdftotext gives).  The subject index: a small book (fixtures/pdf/
# index-book.tex) set with the book's preamble and tools/pdf-passes.sh
# (xelatex, makeindex, xelatex) has an "Index" after the other two, in the
# contents and in the bookmarks, whose entries have their pages and link to
# them; the check passes it, and names an entry without a page and one with
# "??" when they are added to its book.ind.  Last, build/book.pdf passes
# where it has been built.  Output in cmocka's format for run-tests.sh.
cd "$(dirname "$0")/../.." || exit 1
fx=tests/tools/fixtures
tmp=${KEEP_TMP:-$(mktemp -d)}; [ -n "$KEEP_TMP" ] || trap 'rm -rf "$tmp"' EXIT
. tests/tools/kit.sh

echo "[ RUN      ] pdf_index_check_passes_pages"
tools/pdf-index-check.sh $fx/index-good.txt; result pdf_index_check_passes_pages $?

echo "[ RUN      ] pdf_index_check_names_entries_without_a_page"
st=0
if tools/pdf-index-check.sh $fx/index-missing.txt > "$tmp/out" 2>&1; then echo "passed an index with entries without a page"; st=1; fi
for e in '⟨Load a tile⟩: 3; used in' '⟨Store it⟩: 4 (p. 2); used in 1, 7' 'x_tile: defined in 3 (p. ??)' '3 of 4 index entries without a page'; do
  grep -qF "$e" "$tmp/out" || { echo "did not name: $e"; st=1; }
done
grep -qF 'y_tile' "$tmp/out" && { echo "named y_tile, which has its page"; st=1; }
[ $st = 0 ] || cat "$tmp/out"
result pdf_index_check_names_entries_without_a_page $st

# The small book, set in $tmp as make pdf sets the book in build/.
subject_book() {
  command -v xelatex > /dev/null && command -v makeindex > /dev/null && command -v pdftohtml > /dev/null ||
    { echo "skipped: needs xelatex, makeindex and pdftohtml (make deps-pdf)"; return 77; }
  mkdir -p "$tmp/s/tools" "$tmp/s/build" &&
  cp tools/preamble.tex tools/index.ist tools/pdf-passes.sh tools/pdf-index-check.sh "$tmp/s/tools/" &&
  cp $fx/pdf/index-book.tex "$tmp/s/build/book.tex" &&
  "$tmp/s/tools/pdf-passes.sh" book > "$tmp/s/passes.out" 2>&1 || { cat "$tmp/s/passes.out"; return 1; }
}
echo "[ RUN      ] pdf_subject_index_has_pages_and_links"
subject_book; st=$?
if [ $st = 0 ]; then
  b=$tmp/s/build/book.pdf
  tools/pdf-index-check.sh "$b" > "$tmp/out" 2>&1 || { cat "$tmp/out"; st=1; }
  grep -q 'subject index entries, each with its page' "$tmp/out" || { echo "the check read no subject index:"; cat "$tmp/out"; st=1; }
  pdftotext -f 1 -l 1 "$b" - | tr -s ' \n' ' ' | grep -q 'Index of identifiers [0-9]* Index [0-9]' || { echo "the contents do not list Index after the identifiers:"; pdftotext -f 1 -l 1 "$b" -; st=1; }
  pdftohtml -xml -q -stdout -f 1 -l 1 "$b" | grep -q '<item page="[0-9]*">Index</item>' || { echo "no bookmark Index"; st=1; }
  # the subject index page: its entries and their links to the pages
  last=$(pdfinfo "$b" | sed -n 's/^Pages: *//p')
  pdftohtml -xml -q -stdout -f "$last" -l "$last" "$b" > "$tmp/ix.xml"
  for e in 'occupancy, ' 'Little’s law, ' 'cp.async, ' 'padding, ' 'broadcast, ' 'butterfly, '; do
    grep -F "$e" "$tmp/ix.xml" | grep -q '<a href=' || { echo "no entry '$e' with a page link on the last page"; st=1; }
  done
  grep -q '>bank conflict<' "$tmp/ix.xml" || { echo "no heading entry 'bank conflict'"; st=1; }
fi
[ $st = 0 ] || [ $st = 77 ] || cat "$tmp/s/passes.out" 2>/dev/null | tail -5
result pdf_subject_index_has_pages_and_links $st

echo "[ RUN      ] pdf_subject_index_check_names_entries_without_a_page"
if [ ! -f "$tmp/s/build/book.pdf" ]; then echo "skipped: the small book was not built (above)"; st=77
else
  st=0
  # book.ind as makeindex wrote it, and two entries that lost their pages
  sed -i 's/^\\end{theindex}/\\item lost entry\n  \\item broken entry, ??\n\\end{theindex}/' "$tmp/s/build/book.ind"
  grep -q 'lost entry' "$tmp/s/build/book.ind" || { echo "could not edit book.ind"; st=1; }
  (cd "$tmp/s/build" && TEXINPUTS=..: xelatex -interaction=nonstopmode -halt-on-error book.tex > /dev/null 2>&1) || { echo "xelatex failed on the edited index"; st=1; }
  if tools/pdf-index-check.sh "$tmp/s/build/book.pdf" > "$tmp/out" 2>&1; then echo "passed an index with entries without a page"; st=1; fi
  for e in 'subject index entry without a page: lost entry' 'subject index entry without a page: broken entry, ??' '2 of '; do
    grep -qF "$e" "$tmp/out" || { echo "did not say: $e"; st=1; }
  done
  grep -E 'without a page: (bank conflict|occupancy|padding)' "$tmp/out" && { echo "named an entry that has its pages"; st=1; }
  [ $st = 0 ] || cat "$tmp/out"
fi
result pdf_subject_index_check_names_entries_without_a_page $st

echo "[ RUN      ] pdf_index_check_book"
if [ ! -f build/book.pdf ]; then echo "skipped: no build/book.pdf (make pdf checks it as it builds it)"; st=77
elif ! command -v pdftotext > /dev/null; then echo "skipped: needs pdftotext (poppler-utils)"; st=77
else tools/pdf-index-check.sh build/book.pdf; st=$?; fi
result pdf_index_check_book $st
