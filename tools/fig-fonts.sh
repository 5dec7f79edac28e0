#!/bin/bash
# fig-fonts.sh build/BOOK.tex -- no figure of the book prints text below
# 7 pt (make pdf runs it before the book's passes, and fails).
#
# The figures are typeset alone, each on a page of its own, from the
# book's own LaTeX (BOOK.tex: its preamble, so the same page, text width,
# fonts and macros; the chapters' \newcommand lines; each figure
# environment as written, inside a box of the text width, with the
# caption left out: captions are body text).  So a figure comes out at
# the size it prints at, whatever scales it (a scale= with transform
# shape, \resizebox, \scalebox, a width=\linewidth).  poppler's pdftohtml
# then gives the size of every run of text on every page as the PDF draws
# it: the font size times every scaling around it.
#
# A size is read as the LaTeX size it prints as: the book's fonts are
# scaled to look alike (fontspec's Scale: the sans and the math font to
# the main font's x-height, the monospace by book.yaml's Scale=0.85), so
# that \scriptsize is 7 pt in each; a first page of the same fonts at a
# known size measures each font's scale, and a run's size is divided by
# its font's.  The check:
#   - text is at least 7 pt (\scriptsize at the book's 10 pt);
#   - a sub- or superscript is at least 5 pt, as LaTeX sets the scripts
#     of 7 pt math: a run that touches one at the floor (or another
#     script), the one or the other in the math font (the a of m_a, the
#     "old" of m_{\text{old}}, the -m of e^{m_a - m}).
# pdftohtml rounds sizes to 1/3 bp (its largest zoom), so a run passes
# within 0.2 pt of the floor.  Messages are figures/NAME.tex: SIZE pt:
# the text, for each run below the floor (at most 6 a figure); exit 1
# when there is one.
#
# BOOK.tex is ROOT/build/BOOK.tex; the figures are typeset in ROOT/build,
# as make pdf typesets the book (TEXINPUTS ROOT and ROOT/figures), into
# ROOT/build/figfonts/ (figfonts-instructor/ for book-instructor.tex).
set -o pipefail
tex=${1:?usage: fig-fonts.sh build/BOOK.tex}
[ -f "$tex" ] || { echo "fig-fonts: no file $tex"; exit 1; }
for t in xelatex pdftohtml; do
  command -v $t > /dev/null || { echo "fig-fonts: needs $t (texlive-xetex, poppler-utils: make deps-pdf)"; exit 1; }
done
build=$(cd "$(dirname "$tex")" && pwd)
book=$(basename "$tex" .tex)
sub=figfonts${book#book}
mkdir -p "$build/$sub"
doc=$build/$sub/figs.tex

# ---- the figures alone ---------------------------------------------------
# Page 1 sets x in every family, shape and series, and in math, at 40 pt
# (the fonts' scales).  Then each figure environment becomes a box
# \linewidth wide on a page of its own, which writes "nwfig:PAGE:NAME:" to
# the log as the page is shipped out (a figure whose \IfFileExists is
# false makes no page and no line).
LC_ALL=C gawk '
  !body && /^\\begin\{document\}/ {
    print "\\makeatletter"
    print "\\renewenvironment{figure}[1][]{\\par\\clearpage\\noindent\\begin{minipage}{\\linewidth}%"
    print "  \\edef\\nwfig@write{\\noexpand\\write-1{nwfig:\\noexpand\\thepage:\\nwfig@name:}}\\nwfig@write}"
    print "  {\\end{minipage}\\par\\clearpage}"
    print "\\renewcommand{\\caption}[2][]{}"
    print "\\makeatother"
    print
    print "\\pagestyle{empty}\\pagenumbering{arabic}"
    print "\\noindent{\\fontsize{40}{60}\\selectfont"
    print "  \\def\\nwfigx{x \\textbf{x} \\textit{x} \\textbf{\\textit{x}} $x$ $\\mathbf{x}$ \\par}"
    print "  \\rmfamily\\nwfigx\\sffamily\\nwfigx\\ttfamily\\nwfigx}\\clearpage"
    body = 1; next }
  !body { print; next }
  # the chapters macros, which the figures use
  !infig && /^\\(newcommand|renewcommand|providecommand|def\\)/ { print; next }
  !infig && /\\begin\{figure\}/ {
    infig = 1; block = (prev ~ /^\\IfFileExists\{[^}]*\}\{%$/ ? prev "\n" : "")
  }
  infig {
    block = block $0 "\n"
    if (index($0, "\\end{figure}")) {
      name = "figure " (++k)
      if (match(block, /\\input\{figures\/[^}]*\}/)) name = substr(block, RSTART + 7, RLENGTH - 8)
      printf "\\makeatletter\\def\\nwfig@name{%s}\\makeatother\n%s", name, block
      infig = 0
    }
  }
  { prev = $0 }
  END { print "\\end{document}" }' "$tex" > "$doc" || exit 1
grep -q 'nwfig@name' "$doc" || { echo "fig-fonts: $tex has no figure environments"; exit 0; }
( cd "$build" && TEXINPUTS=..:../figures: xelatex -interaction=nonstopmode -halt-on-error -output-directory="$sub" "$sub/figs.tex" > "$sub/figs.out" 2>&1 ) ||
  { grep -A5 '^!' "$build/$sub/figs.out"; echo "fig-fonts: xelatex failed on the figures alone: see $build/$sub/figs.log"; exit 1; }

# ---- the sizes -----------------------------------------------------------
zoom=3
pdftohtml -xml -i -q -stdout -zoom $zoom "$build/$sub/figs.pdf" > "$build/$sub/figs.xml" ||
  { echo "fig-fonts: pdftohtml failed on $build/$sub/figs.pdf"; exit 1; }
# The log's nwfig lines, wrapped at 79 columns by TeX: joined first.
tr -d '\n' < "$build/$sub/figs.log" | grep -o 'nwfig:[0-9]*:[^:]*:' > "$build/$sub/pages"
LC_ALL=C gawk -v zoom=$zoom -v pages="$build/$sub/pages" '
  BEGIN {
    while ((getline l < pages) > 0) { split(l, pf, ":"); name[pf[2]] = name[pf[2]] (name[pf[2]] == "" ? "" : ", ") pf[3] }
    floor = 7; scriptfloor = 5; pt = 72 / 72.27 * zoom   # pdftohtml units a TeX point
    slack = 0.6                                          # its rounding, over the smallest scale
  }
  function attr(s, a) { return match(s, " " a "=\"[^\"]*\"") ? substr(s, RSTART + length(a) + 3, RLENGTH - length(a) - 4) : "" }
  # Page 1: each font family, its scale (what 40 pt came out as).
  function calibrate(   i) { for (i = 1; i <= nt; i++) if (!(fam[i] in scale)) scale[fam[i]] = sz[i] / (40 * pt); nt = 0 }
  function flush(   i, j, who, n, s, nom, ok, more) {
    if (!pg) return
    if (pg == 1) { calibrate(); return }
    n = 0; who = (pg in name) ? name[pg] : "figure page " pg
    for (i = 1; i <= nt; i++) {
      s = (fam[i] in scale) ? scale[fam[i]] : 1; nom[i] = sz[i] / s / pt
    }
    # ok: at the floor.  A script: at least at the scripts floor, and it
    # touches a run that is ok or a script, the one or the other in a math
    # font (m in m_a, the a in e^{m_a - m}, the "old" of m_{\text{old}}).
    for (i = 1; i <= nt; i++) ok[i] = nom[i] >= floor - slack / pt
    do {
      more = 0
      for (i = 1; i <= nt; i++) {
        if (ok[i] || nom[i] < scriptfloor - slack / pt) continue
        for (j = 1; j <= nt; j++) if (j != i && ok[j] && (math[i] || math[j]) &&
            x0[i] <= x1[j] + 1.5 && x0[j] <= x1[i] + 1.5 && y0[i] <= y1[j] && y0[j] <= y1[i]) { ok[i] = more = 1; break }
      }
    } while (more)
    for (i = 1; i <= nt; i++) if (!ok[i] && ++n <= 6)
      printf "%s: %.1f pt (below %d pt): %s\n", who, nom[i], floor, txt[i]
    if (n > 6) printf "%s: and %d more runs of text below the floor\n", who, n - 6
    if (n) figs++
    total += nt; nt = 0
  }
  /<page / { flush(); pg = attr($0, "number") + 0; next }
  /<fontspec / {
    id = attr($0, "id"); fsz[id] = attr($0, "size") + 0
    f = attr($0, "family"); sub(/^[A-Z][A-Z][A-Z][A-Z][A-Z][A-Z]\+/, "", f); ffam[id] = f; fmath[id] = (f ~ /[Mm]ath/); next
  }
  /<text / {
    t = $0; sub(/^.*<text [^>]*>/, "", t); sub(/<\/text>.*$/, "", t); gsub(/<[^>]*>/, "", t)
    gsub(/&lt;/, "<", t); gsub(/&gt;/, ">", t); gsub(/&quot;/, "\"", t); gsub(/&amp;/, "\\&", t)
    if (t ~ /^[ \t]*$/) next
    id = attr($0, "font"); nt++
    sz[nt] = fsz[id]; fam[nt] = ffam[id]; math[nt] = fmath[id]; txt[nt] = t
    x0[nt] = attr($0, "left") / zoom; x1[nt] = x0[nt] + attr($0, "width") / zoom
    y0[nt] = attr($0, "top") / zoom; y1[nt] = y0[nt] + attr($0, "height") / zoom
  }
  END {
    flush()
    if (figs) { printf "fig-fonts: %d figure(s) print text below %d pt (sub- and superscripts below %d pt): the runs above; set it at \\scriptsize or larger, and do not scale a figure down\n", figs, floor, scriptfloor; exit 1 }
    printf "fig-fonts: %d figures, %d runs of text, none below %d pt\n", length(name), total, floor
  }' "$build/$sub/figs.xml"
