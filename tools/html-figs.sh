#!/bin/bash
# html-figs.sh SRC OUT -- the web edition's figures: every figure that
# SRC/figs.list names (tools/html-pre.awk writes it, in the book's order),
# typeset from the same TikZ/pgfplots source (figures/NAME.tex) and the
# same measured data as in the PDF, with the PDF's preamble, fonts, text
# width and the chapters' macros (SRC/macros.tex), one page each, in one
# xelatex run; pdftocairo turns each page into OUT/NAME.svg.
set -eo pipefail
cd "$(dirname "$0")/.."
src=$1 out=$2
mkdir -p "$out"; rm -f "$out"/*.svg
width=$(tools/chapters.sh textwidth)
[ -n "$width" ] || { echo "html-figs: book.yaml's geometry gives no textwidth"; exit 1; }
{
  echo '\documentclass[multi=nwfigpage,border=3pt]{standalone}'
  echo '\usepackage{amsmath,amssymb}\usepackage{unicode-math}\usepackage{varwidth}'
  # The PDF's fonts and text width (book.yaml).
  echo "\\setmainfont{$(tools/chapters.sh mainfont)}\\setsansfont{$(tools/chapters.sh sansfont)}\\setmonofont[$(tools/chapters.sh monofontoptions)]{$(tools/chapters.sh monofont)}"
  echo '\providecommand{\mainmatter}{}\providecommand{\hyperlink}[2]{#2}\providecommand{\hypertarget}[2]{#2}'
  echo '\input{tools/preamble.tex}'
  echo '\input{build/gpu.tex}'
  echo "\\input{$src/macros.tex}"
  echo '\begin{document}'
  # Each figure in a box at most the PDF's text width (book.yaml's
  # geometry), which is \linewidth inside, so that the figures that size
  # themselves by \linewidth come out as in the book; the page is as wide
  # as the figure, and html-site.awk sizes it against the same width.
  while read -r f; do
    echo "\\begin{nwfigpage}\\begin{varwidth}{$width}\\centering\\input{figures/$f.tex}\\end{varwidth}\\end{nwfigpage}"
  done < "$src/figs.list"
  echo '\end{document}'
} > "$src/figs.tex"
TEXINPUTS=.:figures: xelatex -interaction=nonstopmode -halt-on-error -output-directory="$src" "$src/figs.tex" > "$src/figs.log" 2>&1 ||
  { grep -A5 '^!' "$src/figs.log"; echo "html-figs: xelatex failed, see $src/figs.log"; exit 1; }
i=0
while read -r f; do
  i=$((i + 1))
  pdftocairo -svg -f $i -l $i "$src/figs.pdf" "$out/$f.svg"
done < "$src/figs.list"
echo "html: $i figures as SVG in $out"
