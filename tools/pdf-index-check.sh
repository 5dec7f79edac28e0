#!/bin/bash
# pdf-index-check.sh BOOK.pdf|TEXT -- every entry of the PDF's indexes has
# its page.  make pdf runs it on every PDF it builds, and fails.
#
# The index of chunks and the index of identifiers: each entry's
# "defined" part and its "used in" part end in a page, "(p. N)", and no
# page reads "??" (tools/preamble.tex's \nwpaged writes them).  Read from
# the text of the PDF (pdftotext) from the page that starts "Index of
# chunks" to the end, in the order it was set (-raw: one column, then the
# other), or from a text file of that form (the test's fixtures).
#
# The subject index (a PDF only: the chapters' \index marks, makeindex,
# the chapter "Index"): each entry has a page, a link to it (hyperref's),
# or a "see" reference, unless it is a heading whose subentries have them;
# no page reads "??".  Read from poppler's pdftohtml, which gives each line
# with its place and its links: an entry starts at the column's left edge,
# a subentry 20 pt in (30 pt a sub-subentry), a continued line 40 pt in
# (book.cls's theindex).  A book without a subject index fails.
#
# Exit 1, naming each entry without a page (at most 10 an index), or when
# an index is missing.
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
    if (first ~ /^(Index|INDEX)( +[0-9ivxlc]+)?$/) { done(); on = 0 }   # the subject index: not this part
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
  }' || exit 1
case $f in *.pdf) ;; *) exit 0 ;; esac

# ---- the subject index ------------------------------------------------------
command -v pdftohtml > /dev/null || { echo "pdf-index-check: needs pdftohtml (poppler-utils)"; exit 1; }
pdftohtml -xml -q -stdout "$f" | LC_ALL=C.UTF-8 awk -v file="$f" '
  function attr(s, a) { return match(s, " " a "=\"[^\"]*\"") ? substr(s, RSTART + length(a) + 3, RLENGTH - length(a) - 4) : "" }
  /<page / { page(); pg = attr($0, "number") + 0; pw = attr($0, "width") + 0; n = 0; next }
  /<text / {
    t = $0; sub(/^.*<text [^>]*>/, "", t); sub(/<\/text>.*$/, "", t)
    link = index(t, "<a href") > 0
    gsub(/<[^>]*>/, "", t); gsub(/&lt;/, "<", t); gsub(/&gt;/, ">", t); gsub(/&quot;/, "\"", t); gsub(/&amp;/, "\\&", t)
    if (t ~ /^[ \t]*$/) next
    n++; tx[n] = t; lk[n] = link; x[n] = attr($0, "left") + 0; y[n] = attr($0, "top") + 0; w[n] = attr($0, "width") + 0
  }
  END { page(); last()
    if (!on) { printf "%s: no subject index (no page headed \"Index\"): make pdf prints one after the index of identifiers\n", file; exit 1 }
    if (bad) { printf "%s: %d of %d subject index entries without a page\n", file, bad, entries; exit 1 }
    printf "pdf-index-check: %s: %d subject index entries, each with its page\n", file, entries }
  # One page: is it the subject index (its top line, the title or the
  # running head, reads "Index")?  Then its lines, column by column.
  function page(   i, j, top, bot, mid, k, edge, c, key, nl, order, d, s) {
    if (!n) return
    top = y[1]; bot = y[1]
    for (i = 1; i <= n; i++) { if (y[i] < top) top = y[i]; if (y[i] > bot) bot = y[i] }
    head = 0
    for (i = 1; i <= n; i++) if (y[i] <= top + 2 && (tx[i] == "Index" || tx[i] == "INDEX")) head = 1
    if (!head) { if (on) { last(); on = 0; done_ = 1 }; return }
    if (done_) return          # a second index headed Index: not ours
    on = 1; mid = pw / 2
    # drop the title or running head (the top line), and a page number
    # alone at the foot
    for (i = 1; i <= n; i++) {
      drop[i] = (y[i] <= top + 2) || (y[i] >= bot - 2 && tx[i] ~ /^[0-9ivxlc]+$/ && (x[i] + w[i] / 2 > mid - 40 && x[i] + w[i] / 2 < mid + 40))
    }
    edge[0] = edge[1] = 1e9
    for (i = 1; i <= n; i++) if (!drop[i]) { c = (x[i] >= mid); if (x[i] < edge[c]) edge[c] = x[i] }
    # the lines: runs of one column at one height, joined left to right
    nl = 0; delete L
    for (i = 1; i <= n; i++) {
      if (drop[i]) continue
      c = (x[i] >= mid); key = c SUBSEP int(y[i] / 3)
      if (!(key in L)) { L[key] = ++nl; lc[nl] = c; ly[nl] = y[i]; lx[nl] = x[i]; lt[nl] = ""; ll[nl] = 0; lxs[nl] = x[i] }
      k = L[key]; if (x[i] < lx[k]) lx[k] = x[i]
      lt[k] = lt[k] (lt[k] == "" ? "" : " ") tx[i]; ll[k] = ll[k] || lk[i]
    }
    # reading order: the left column top to bottom, then the right
    for (i = 1; i <= nl; i++) order[i] = i
    for (i = 2; i <= nl; i++) { k = order[i]; for (j = i - 1; j >= 1 && (lc[order[j]] > lc[k] || (lc[order[j]] == lc[k] && ly[order[j]] > ly[k])); j--) order[j + 1] = order[j]; order[j + 1] = k }
    for (i = 1; i <= nl; i++) {
      k = order[i]; d = (lx[k] - edge[lc[k]]) * 72 / 72.27 / 1.5   # points in from the edge (zoom 1.5)
      s = lt[k]
      if (d < 10 && s ~ /^([A-Z]|Symbols|Numbers)$/) { last(); continue }   # a letter heading
      if (d >= 35) { ce = ce " " s; cl = cl || ll[k]; continue }               # a continued line
      entry(d < 10 ? 0 : d < 25 ? 1 : 2, s, ll[k])
    }
  }
  # An entry of level lev (0, 1 or 2) begins: the one before it is done.
  function entry(lev, s, link) { if (ce != "") judge(lev); cv = lev; ce = s; cl = link }
  function last() { if (ce != "") judge(-1); ce = "" }
  # The entry before: it needs a page, unless the one after is its subentry.
  function judge(next_lev) {
    entries++
    if (index(ce, "??") || (!cl && ce !~ /[Ss]ee( also)? / && !(next_lev > cv)))
      if (++bad <= 10) printf "%s: subject index entry without a page: %s\n", file, ce
    ce = ""
  }'
