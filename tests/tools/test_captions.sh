#!/bin/bash
# test_captions.sh -- a caption says what the table or figure shows, and
# the provenance follows on a small line of its own (BOOK-DESIGN.md §7):
#  - {{csvtable:FILE:COLS:HEADERS:FORMATS:CAPTION}} (tools/csv.awk) writes
#    the caption, then the data's provenance: GPU, driver, toolkit, date,
#    the commit and where a reader finds it (history.bundle in the source
#    archive), the file and its notes, escaped for pandoc; in LaTeX inside
#    \provenance, on the web after a line break in a span of class
#    provenance; without a caption, the provenance alone, as the caption;
#    a caption with a colon is an error;
#  - a figure's \caption{...\provenance{...}} becomes, on the web
#    (tools/html-pre.awk), the caption, a line break and the same span;
#  - pandoc's HTML keeps no \index mark and no \provenance;
#  - in a PDF set with tools/preamble.tex, the provenance of a table and of
#    a figure is a line below the caption's, in a smaller size.
# Output in cmocka's format for run-tests.sh.
cd "$(dirname "$0")/../.." || exit 1
fx=tests/tools/fixtures
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. tests/tools/kit.sh
has() { grep -qF -- "$2" "$1" || { echo "$1 lacks: $2"; return 1; }; }
prov='Measured on NVIDIA H200 (driver 580.159.04, CUDA 13.0), 2026-12-01 10:44 UTC, at commit abc1234 (git history: `history.bundle` in the book'"'"'s source archive). Data `tests/tools/fixtures/captions.csv`; device: NVIDIA H200, 132 SMs; one launch each on 2\^24 floats, smsp\_\_warps\_issue\_stalled\_REASON \[per issue\].'

echo "[ RUN      ] csvtable_caption_then_provenance_latex"
st=0
tools/weave.sh $fx/captions.nw > "$tmp/cap.md" 2> "$tmp/err" || { cat "$tmp/err"; st=1; }
has "$tmp/cap.md" ': Each variant at $2^{28}$ floats, against the copy `\provenance{`{=latex}'"$prov"'`}`{=latex}' || st=1
has "$tmp/cap.md" ": $prov" || st=1                 # no caption: the provenance alone
if command -v pandoc > /dev/null; then
  pandoc "$tmp/cap.md" -f markdown -t latex --wrap=none > "$tmp/cap.tex"
  has "$tmp/cap.tex" '\caption{Each variant at \(2^{28}\) floats, against the copy \provenance{Measured on NVIDIA H200' || st=1
  has "$tmp/cap.tex" 'Data \texttt{tests/tools/fixtures/captions.csv}; device: NVIDIA H200, 132 SMs; one launch each on 2\^{}24 floats, smsp\_\_warps\_issue\_stalled\_REASON {[}per issue{]}.}}' || st=1
fi
result csvtable_caption_then_provenance_latex $st

echo "[ RUN      ] csvtable_caption_then_provenance_html"
st=0
tools/weave.sh -v format=html $fx/captions.nw > "$tmp/cap.html.md" 2> "$tmp/err" || { cat "$tmp/err"; st=1; }
has "$tmp/cap.html.md" ": Each variant at \$2^{28}\$ floats, against the copy<br>[$prov]{.provenance}" || st=1
gawk -f tools/html-pre.awk -v figlist="$tmp/figs.list" -v macros="$tmp/macros.tex" "$tmp/cap.html.md" > "$tmp/pre.md" || st=1
has "$tmp/pre.md" '**Figure 1.1.** Bandwidth of each variant.<br>[Measured on the H200; data `figures/data/h200/reduce_2d.csv`.]{.provenance}' || st=1
if command -v pandoc > /dev/null; then
  tools/pandoc-html.sh "$tmp/pre.md" "$tmp/cap.html" || st=1
  # the whole caption on one line of HTML, as tools/html-site.awk reads it
  grep -q '^<caption>Each variant at .*against the copy<br><span class="provenance">Measured on NVIDIA H200 (driver 580.159.04, CUDA 13.0).*</span></caption>$' "$tmp/cap.html" ||
    { echo "no one-line <caption> with its provenance span"; st=1; }
  has "$tmp/cap.html" 'Bandwidth of each variant.<br><span class="provenance">Measured on the H200; data <code>figures/data/h200/reduce_2d.csv</code>.</span>' || st=1
  grep -n '\\index\|\\provenance\|{=latex}' "$tmp/cap.html" && { echo "pandoc's HTML keeps LaTeX (above)"; st=1; }
  has "$tmp/cap.html" 'The occupancy of an SM, and a padded tile.' || st=1
fi
result csvtable_caption_then_provenance_html $st

echo "[ RUN      ] csvtable_caption_with_a_colon_fails"
st=0
if tools/weave.sh $fx/captions-colon.nw > /dev/null 2> "$tmp/err"; then echo "wove a caption with a colon"; st=1; fi
has "$tmp/err" "$fx/captions-colon.nw:1: csvtable: a colon in the caption" || st=1
result csvtable_caption_with_a_colon_fails $st

echo "[ RUN      ] pdf_provenance_small_line_of_its_own"
if ! command -v pandoc > /dev/null || ! command -v xelatex > /dev/null || ! command -v pdftohtml > /dev/null; then
  echo "skipped: needs pandoc, xelatex and pdftohtml (make deps-pdf)"; st=77
else
  st=0; mkdir -p "$tmp/p/figures"
  echo '\begin{tikzpicture}\draw (0,0) rectangle (4,1);\end{tikzpicture}' > "$tmp/p/figures/fx-caption.tex"
  pandoc "$tmp/cap.md" -f markdown -t latex -s -V documentclass=book -V mainfont="DejaVu Serif" -V monofont="DejaVu Sans Mono" \
    --top-level-division=chapter --number-sections -H tools/preamble.tex > "$tmp/p/cap.tex" &&
  (cd "$tmp/p" && TEXINPUTS=".:$OLDPWD:" xelatex -interaction=nonstopmode -halt-on-error cap.tex > cap.out 2>&1) || { tail -20 "$tmp/p/cap.out"; st=1; }
  if [ $st = 0 ]; then
    pdftohtml -xml -i -q -stdout "$tmp/p/cap.pdf" > "$tmp/p/cap.xml"
    # the caption's run and the provenance's first run: top, font size
    gawk -v out="$tmp/p/pairs" '
      function attr(s, a) { return match(s, " " a "=\"[^\"]*\"") ? substr(s, RSTART + length(a) + 3, RLENGTH - length(a) - 4) : "" }
      /<fontspec / { sz[attr($0, "id")] = attr($0, "size") }
      /<text / { t = $0; gsub(/<[^>]*>/, "", t)
        if (t ~ /Each variant at|Bandwidth of each variant/ && !cap) { cap = 1; ct = attr($0, "top"); cs = sz[attr($0, "font")] }
        if (t ~ /^Measured on/ && cap) { printf "%s %s %s %s\n", ct, cs, attr($0, "top"), sz[attr($0, "font")] > out; cap = 0 } }' "$tmp/p/cap.xml"
    [ "$(wc -l < "$tmp/p/pairs" 2>/dev/null)" = 2 ] || { echo "found not two captions followed by their provenance:"; cat "$tmp/p/pairs"; st=1; }
    while read -r ct cs pt ps; do
      [ "$pt" -gt "$ct" ] && [ "$ps" -lt "$cs" ] || { echo "a provenance not on a line below its caption, smaller: caption top $ct size $cs, provenance top $pt size $ps"; st=1; }
    done < "$tmp/p/pairs"
  fi
fi
result pdf_provenance_small_line_of_its_own $st
