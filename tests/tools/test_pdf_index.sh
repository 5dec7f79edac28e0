#!/bin/bash
# test_pdf_index.sh -- the PDF's indexes of chunks and identifiers give a
# page for every chunk: tools/pdf-index-check.sh, which make pdf runs on
# every PDF it builds (and fails the build), passes a good index and names
# each entry without a page in a faulty one (text fixtures, in the form
# pdftotext gives), and passes build/book.pdf where it has been built.
# Output in cmocka's format for run-tests.sh.
cd "$(dirname "$0")/../.." || exit 1
fx=tests/tools/fixtures
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
result() {   # result NAME STATUS: OK on 0, SKIPPED on 77, else FAILED
  case $2 in 0) echo "[       OK ] $1" ;; 77) echo "[  SKIPPED ] $1" ;; *) echo "[  FAILED  ] $1" ;; esac
}

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

echo "[ RUN      ] pdf_index_check_book"
if [ ! -f build/book.pdf ]; then echo "skipped: no build/book.pdf (make pdf checks it as it builds it)"; st=77
elif ! command -v pdftotext > /dev/null; then echo "skipped: needs pdftotext (poppler-utils)"; st=77
else tools/pdf-index-check.sh build/book.pdf; st=$?; fi
result pdf_index_check_book $st
