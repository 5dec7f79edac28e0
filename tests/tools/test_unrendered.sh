#!/bin/bash
# test_unrendered.sh -- tools/unrendered-check.sh, which make pdf runs on
# the PDF and make html on the web pages (each fails on what it finds),
# passes text whose math is math and whose dollars are code's, and names a
# noweb quote left as [[sub]] and a dollar that TeX math left behind: in
# PDFs set from fixtures/pdf/unrendered-*.tex (a run in the monospace font
# is code) and in fixtures/pdf/unrendered-*.html (<pre>, <code>, <math>,
# scripts, styles and comments are not prose).  Then build/book.pdf and
# build/html/*.html where they have been built.  Output in cmocka's format
# for run-tests.sh.
cd "$(dirname "$0")/../.." || exit 1
fx=tests/tools/fixtures/pdf
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. tests/tools/kit.sh
pdf() {   # pdf NAME: fixtures/pdf/NAME.tex set into $tmp/NAME.pdf
  (cd "$tmp" && xelatex -interaction=nonstopmode -halt-on-error "$OLDPWD/$fx/$1.tex" > "$1.out" 2>&1) ||
    { tail -20 "$tmp/$1.out"; return 1; }
}
expect() {   # expect OUTFILE TEXT...: each TEXT said
  local f=$1 st=0; shift
  for e in "$@"; do grep -qF -- "$e" "$f" || { echo "did not say: $e"; st=1; }; done
  [ $st = 0 ] || cat "$f"; return $st
}

echo "[ RUN      ] unrendered_check_passes_a_clean_pdf"
if ! command -v xelatex > /dev/null || ! command -v pdftohtml > /dev/null; then echo "skipped: needs xelatex and pdftohtml (make deps-pdf)"; st=77
else pdf unrendered-good && tools/unrendered-check.sh "$tmp/unrendered-good.pdf"; st=$?; fi
result unrendered_check_passes_a_clean_pdf $st

echo "[ RUN      ] unrendered_check_names_faults_in_a_pdf"
if ! command -v xelatex > /dev/null || ! command -v pdftohtml > /dev/null; then echo "skipped: needs xelatex and pdftohtml (make deps-pdf)"; st=77
else
  st=0; pdf unrendered-bad || st=1
  if [ $st = 0 ]; then
    if tools/unrendered-check.sh "$tmp/unrendered-bad.pdf" > "$tmp/out" 2>&1; then echo "passed a PDF with [[sub]] and a stray \$"; st=1; fi
    expect "$tmp/out" 'page 1: [[...]] (noweb quoted code, not rendered): ' 'lane [[sub]] gets row' \
      'page 1: $ (TeX math not read as math): ' 'of the $6' || st=1
    grep -q 'metrics' "$tmp/out" && { echo "named the dollar of code"; st=1; }
  fi
fi
result unrendered_check_names_faults_in_a_pdf $st

echo "[ RUN      ] unrendered_check_passes_a_clean_page"
tools/unrendered-check.sh $fx/unrendered-good.html; result unrendered_check_passes_a_clean_page $?

echo "[ RUN      ] unrendered_check_names_faults_in_a_page"
st=0
if tools/unrendered-check.sh $fx/unrendered-bad.html > "$tmp/out" 2>&1; then echo "passed a page with [[sub]] and a stray \$"; st=1; fi
expect "$tmp/out" 'unrendered-bad.html: [[...]] (noweb quoted code, not rendered): ' 'lane [[sub]] gets row' \
  'unrendered-bad.html: $ (TeX math not read as math): ' '0.31 of the $6 = 792' || st=1
grep -q 'metrics' "$tmp/out" && { echo "named the dollar of code"; st=1; }
result unrendered_check_names_faults_in_a_page $st

echo "[ RUN      ] unrendered_check_book"
if [ ! -f build/book.pdf ] && [ ! -f build/html/index.html ]; then echo "skipped: neither build/book.pdf nor build/html/ (make pdf and make html check them as they build them)"; st=77
else tools/unrendered-check.sh $(ls build/book.pdf build/html/*.html 2>/dev/null); st=$?; fi
result unrendered_check_book $st
