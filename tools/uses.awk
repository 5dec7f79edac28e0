# uses.awk -- after pandoc, the LaTeX of the book mended where pandoc's own
# output will not do:
#
# - Chunk uses inside highlighted code.  nw2md.awk writes a use as the
#   comment /*<name N>*/ (angle brackets are U+27E8/9), which the
#   highlighter leaves whole as \CommentTok{...}; this turns each into
#   \nwuse{name}{N}: the name in italics, N a hyperlink, noweb's quoted
#   code in the name, [[x]], as \nwcode{x} (as in the chunk's header).
# - Tables (pandoc's longtable) break across pages only where more than
#   one row goes on each side: a table of at most 6 rows does not break,
#   a longer one not after its first row nor before its last two (\\*
#   ends those rows).  A table row alone at the top or foot of a page is
#   a widow.
# - A longtable without a caption gives its number back
#   (\addtocounter{table}{-1}): longtable steps the table counter for every
#   table, so that the next captioned one would skip a number, and the
#   web edition, which numbers the captioned tables only, would differ.
function nwuses(s,    out, opn, cls, i, rest, j, body, n, name) {
    out = ""
    opn = "\\CommentTok{/*\342\237\250"; cls = "\342\237\251*/}"
    while ((i = index(s, opn)) > 0) {
        rest = substr(s, i + length(opn))
        j = index(rest, cls)
        if (!j) break
        body = substr(rest, 1, j - 1)              # "name N"
        n = body; sub(/.* /, "", n); name = body; sub(/ [0-9]+$/, "", name)
        while (match(name, /\[\[[^]]*\]\]/)) name = substr(name, 1, RSTART - 1) "\\nwcode{" substr(name, RSTART + 2, RLENGTH - 4) "}" substr(name, RSTART + RLENGTH)
        out = out substr(s, 1, i - 1) "\\nwuse{" name "}{" n "}"
        s = substr(rest, j + length(cls))
    }
    return out s
}
# A whole longtable, lines tl[1..ntl]: its body runs from after its last
# \endhead (or \endlastfoot; a table without a header, from after its
# \toprule) to its \bottomrule.
function flush_table(    k, from, to, r, nrow, rowend, captioned) {
    from = 0; to = ntl; captioned = 0
    for (k = 1; k <= ntl; k++) {
        if (tl[k] ~ /^\\end(head|lastfoot)[ \t]*$/) from = k
        if (tl[k] ~ /^\\bottomrule/) to = k
        if (tl[k] ~ /^\\caption/) captioned = 1
    }
    if (!from) for (k = 1; k <= ntl && !from; k++) if (tl[k] ~ /^\\toprule/) from = k
    nrow = 0
    for (k = from + 1; k < to; k++) if (tl[k] ~ /\\\\[ \t]*$/) rowend[++nrow] = k
    for (r = 1; r <= nrow; r++)
        if (nrow <= 6 || r == 1 || r >= nrow - 2) sub(/\\\\[ \t]*$/, "\\\\*", tl[rowend[r]])
    for (k = 1; k <= ntl; k++) print tl[k]
    if (!captioned) print "\\addtocounter{table}{-1}"
    ntl = 0
}
/^\\begin\{longtable\}/ { inlt = 1; ntl = 0 }
inlt { tl[++ntl] = nwuses($0); if ($0 ~ /^\\end\{longtable\}/) { flush_table(); inlt = 0 }; next }
{ print nwuses($0) }
