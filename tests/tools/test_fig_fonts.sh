#!/bin/bash
# test_fig_fonts.sh -- tools/fig-fonts.sh, which make pdf runs before it
# sets the book (and fails), reads the size every figure's text prints at
# and holds it to the 7 pt floor (5 pt for sub- and superscripts).  On a
# small book (fixtures/figfonts/: pandoc's fonts, the chapters' macros in
# the body) it passes the figure at the floor, \scriptsize in each family
# with math scripts below it, and names the three below: \tiny labels, a
# figure shrunk by \resizebox, text scaled by TikZ's transform shape; a
# figure whose data is missing is not typeset.  Then the book's own
# figures, where build/book.tex has been made.  Output in cmocka's format
# for run-tests.sh.
cd "$(dirname "$0")/../.." || exit 1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. tests/tools/kit.sh
need() { command -v xelatex > /dev/null && command -v pdftohtml > /dev/null || { echo "skipped: needs xelatex and pdftohtml (make deps-pdf)"; return 77; }; }

echo "[ RUN      ] fig_fonts_names_figures_below_the_floor"
st=0; need || st=77
if [ $st = 0 ]; then
  cp -r tests/tools/fixtures/figfonts "$tmp/b"
  if tools/fig-fonts.sh "$tmp/b/build/book.tex" > "$tmp/out" 2>&1; then echo "passed figures with text below 7 pt"; st=1; fi
  for e in 'figures/fx-tiny.tex: 5.0 pt (below 7 pt): 0' 'figures/fx-wide.tex: ' 'a wide row of labels' \
           'figures/fx-shape.tex: 5.' 'scaled label' 'fig-fonts: 3 figure(s) print text below 7 pt'; do
    grep -qF -- "$e" "$tmp/out" || { echo "did not say: $e"; st=1; }
  done
  grep -q 'fx-ok\|fx-missing' "$tmp/out" && { echo "named a figure at the floor, or one never typeset"; st=1; }
  [ $st = 0 ] || cat "$tmp/out"
fi
result fig_fonts_names_figures_below_the_floor $st

echo "[ RUN      ] fig_fonts_passes_text_at_the_floor"
st=0; need || st=77
if [ $st = 0 ]; then
  cp -r tests/tools/fixtures/figfonts "$tmp/g"   # book-ok.tex: the figure at the floor alone
  tools/fig-fonts.sh "$tmp/g/build/book-ok.tex" > "$tmp/out" 2>&1 || st=1
  grep -q '^fig-fonts: 1 figures, [0-9]* runs of text, none below 7 pt$' "$tmp/out" || st=1
  [ $st = 0 ] || cat "$tmp/out"
fi
result fig_fonts_passes_text_at_the_floor $st

echo "[ RUN      ] fig_fonts_book"
if [ ! -f build/book.tex ]; then echo "skipped: no build/book.tex (make pdf checks the figures as it builds)"; st=77
elif ! need; then st=77
else tools/fig-fonts.sh build/book.tex; st=$?; fi
result fig_fonts_book $st
