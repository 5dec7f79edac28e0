#!/bin/bash
# pdf-index-check.sh BOOK.pdf|TEXT -- the PDF's index of chunks and index of
# identifiers give a page for every chunk number: each entry's "defined"
# part and its "used in" part end in a page, "(p. N)", and no page reads
# "??" (tools/preamble.tex's \nwpaged writes them).  Reads the text of the
# PDF (pdftotext) from the page that starts "Index of chunks" to the end,
# in the order it was set (-raw: one column, then the other), or a text
# file of that form (the test's fixtures).  Exit 1, naming each
# entry without a page (at most 10), or when there is no index at all.
f=${1:?usage: pdf-index-check.sh BOOK.pdf|TEXT}
[ -r "$f" ] || { echo "pdf-index-check: no file $f"; exit 1; }
case $f in
  *.pdf) command -v pdftotext > /dev/null || { echo "pdf-index-check: needs pdftotext (poppler-utils)"; exit 1; }
         text() { pdftotext -raw -enc UTF-8 "$f" -; } ;;
  *)     text() { cat "$f"; } ;;
esac
text | LC_ALL=C.UTF-8 awk -v file="$f" '
  BEGIN { RS = "\f" }
  # the index: from the first page whose first line is its title
  { n = split($0, L, "\n"); first = ""
    for (i = 1; i <= n; i++) if (L[i] ~ /[^ ]/) { first = L[i]; break }
    if (first == "Index of chunks") on = 1
    if (!on) next
    for (i = 1; i <= n; i++) line(L[i]) }
  function line(s) {
    sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s)
    if (s == "" || s ~ /^[0-9ivxlc]+$/ || s ~ /^(Index of (chunks|identifiers)|INDEX OF (CHUNKS|IDENTIFIERS))( +[0-9]+)?$/) return
    if (s ~ /^\342\237\250/ || s ~ /^[^ ]+: defined( in( |$)|$)/) { done(); e = s; return }
    if (e != "") e = e " " s
  }
  function done(   d, u, k) {
    if (e == "") return
    entries++
    k = index(e, "; used in ")
    d = k ? substr(e, 1, k - 1) : e; u = k ? substr(e, k + 10) : ""
    if (index(e, "??") || d !~ /\(p\. [0-9ivxlc]+\)$/ || (k && u !~ /\(p\. [0-9ivxlc]+\)$/)) {
      if (++bad <= 10) printf "%s: index entry without a page: %s\n", file, e
    }
    e = ""
  }
  END {
    done()
    if (!entries) { printf "%s: no index of chunks found (no page starting \"Index of chunks\")\n", file; exit 1 }
    if (bad) { printf "%s: %d of %d index entries without a page\n", file, bad, entries; exit 1 }
    printf "pdf-index-check: %s: %d index entries, each with its pages\n", file, entries
  }'
