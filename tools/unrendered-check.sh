#!/bin/bash
# unrendered-check.sh FILE... -- no markup of the sources is left in what
# a reader reads: make pdf runs it on the PDF, make html on the web pages,
# and each fails on what it finds.
#   [[...]]   noweb's quoted code, which the weave turns into code; left
#             as it is (in a chunk's name, say), a reader sees the brackets
#   $...$     TeX math that pandoc did not read as math (an unclosed $, a
#             $ followed by a space), which prints the dollar signs
# FILE is a PDF (its text as poppler's pdftohtml reads it, run by run with
# each run's font) or an HTML page (its text, without the tags, comments,
# scripts and styles).  Code is code: a $ in a listing or a code span (a
# run in a monospace font; <pre>, <code>) is a shell's or make's, and is
# left alone; a [[ is looked for everywhere, as the book's code has no
# C++ attributes.  A dollar in prose that is meant (a price) needs a code
# span, or a word ("US dollars").  Messages are FILE: PDF page N: what: the
# text around it (at most 10 a file); exit 1 when there is one.
[ $# -gt 0 ] || { echo "usage: unrendered-check.sh FILE.pdf|FILE.html..."; exit 2; }
st=0
for f in "$@"; do
  [ -r "$f" ] || { echo "unrendered-check: no file $f"; st=1; continue; }
  case $f in
    *.pdf)
      command -v pdftohtml > /dev/null || { echo "unrendered-check: needs pdftohtml (poppler-utils)"; exit 1; }
      pdftohtml -xml -i -q -stdout "$f" | LC_ALL=C.UTF-8 gawk -v file="$f" '
        function attr(s, a) { return match(s, " " a "=\"[^\"]*\"") ? substr(s, RSTART + length(a) + 3, RLENGTH - length(a) - 4) : "" }
        /<page / { pg = attr($0, "number"); next }
        /<fontspec / { mono[attr($0, "id")] = (attr($0, "family") ~ /Mono|Courier|[Tt]ypewriter|Code/); next }
        /<text / {
          t = $0; sub(/^.*<text [^>]*>/, "", t); sub(/<\/text>.*$/, "", t); gsub(/<[^>]*>/, "", t)
          gsub(/&lt;/, "<", t); gsub(/&gt;/, ">", t); gsub(/&quot;/, "\"", t); gsub(/&amp;/, "\\&", t)
          what = ""
          if (t ~ /\[\[[^ \]]/) what = "[[...]] (noweb quoted code, not rendered)"
          else if (!mono[attr($0, "font")] && index(t, "$")) what = "$ (TeX math not read as math)"
          if (what != "" && ++bad <= 10) printf "%s: PDF page %d: %s: %s\n", file, pg, what, t
        }
        END { if (bad > 10) printf "%s: and %d more\n", file, bad - 10; exit bad > 0 }' || st=1 ;;
    *.htm|*.html)
      # One pass over the tags: the text between them, but inside what a
      # reader does not read as text (scripts, styles, comments) and
      # inside code and math (<pre>, <code>, <math>).
      LC_ALL=C.UTF-8 gawk -v file="$f" '
        { doc = doc $0 "\n" }
        function ent(t) {
          gsub(/&lt;/, "<", t); gsub(/&gt;/, ">", t); gsub(/&quot;/, "\"", t); gsub(/&#36;|&dollar;/, "$", t)
          gsub(/&#x27E8;/, "\342\237\250", t); gsub(/&#x27E9;/, "\342\237\251", t); gsub(/&amp;/, "\\&", t); return t
        }
        function report(t, what,   k) {
          k = (what ~ /^\[/) ? index(t, "[[") : index(t, "$")
          t = substr(t, k > 60 ? k - 60 : 1, 140); gsub(/[ \t\n]+/, " ", t)
          if (++bad <= 10) printf "%s: %s: ...%s...\n", file, what, t
        }
        END {
          gsub(/<!--([^-]|-[^-])*-->/, "", doc)
          n = split(doc, part, "<"); skip = 0; text = ent(part[1])
          for (i = 2; i <= n; i++) {
            p = part[i]; g = index(p, ">"); tag = tolower(substr(p, 1, g - 1)); sub(/[ \t\n\/].*$/, "", tag)
            if (tag ~ /^(script|style|pre|code|math)$/ && substr(p, 1, 1) != "/") skip++
            else if (tag == "" && substr(p, 1, 1) == "/") { tag = tolower(substr(p, 2, g - 2)); if (tag ~ /^(script|style|pre|code|math)$/ && skip > 0) skip-- }
            if (!skip) text = text " " ent(substr(p, g + 1))
          }
          while (match(text, /\[\[[^ \]]/)) { report(text, "[[...]] (noweb quoted code, not rendered)"); text = substr(text, RSTART + 2) }
          while ((k = index(text, "$"))) { report(text, "$ (TeX math not read as math)"); text = substr(text, k + 1) }
          if (bad > 10) printf "%s: and %d more\n", file, bad - 10
          exit bad > 0
        }' "$f" || st=1 ;;
    *) echo "unrendered-check: $f: neither a .pdf nor an .html file"; st=1 ;;
  esac
done
exit $st
