# html-site.awk -- the web edition's pages from pandoc's HTML of the whole
# book (pandoc --wrap=none, no template):
#
#   gawk -f tools/html-site.awk -v out=build/html -v title=T -v subtitle=S \
#        -v edition=E -v lang=L -v textwidth=6.3in body.html
#
# (the Makefile passes book.yaml's values, read by tools/chapters.sh).
#
# The body is cut into pages where nw2md.awk marked a chapter file
# (<!-- nwfile chapters/SLUG.nw --> gives SLUG.html; the chunk and
# identifier indexes, <!-- nwfile index -->, give book-index.html).
# Every link #id goes to the page that holds id (a link to an id that no
# page holds is an error); a chunk used in code, the comment /*<name N>*/,
# becomes the name and a link to chunk N; headings get an anchor link;
# pages get the book's bar (title, search), previous / next links, and
# index.html holds the table of contents.  search-index.js lists section
# titles, chunk names and identifiers with their pages, for tools/html/book.js.
# A link to a heading whose text is a number (a \ref, numbered by
# html-pre.awk) must say the number pandoc gave the heading.
# Exit status 1 on a broken link or a wrong number.

function plain(s) {          # the text of an HTML fragment
    gsub(/<a class="anchor"[^>]*>[^<]*<\/a>/, "", s); gsub(/<[^>]*>/, "", s)
    gsub(/&#x27E8;/, "\342\237\250", s); gsub(/&#x27E9;/, "\342\237\251", s); gsub(/&#x2261;/, "\342\211\241", s)
    gsub(/&lt;/, "<", s); gsub(/&gt;/, ">", s); gsub(/&quot;/, "\"", s); gsub(/&#39;/, "'", s); gsub(/&amp;/, "\\&", s)
    return s
}
function letter_one(num,    k) {   # "13.4" -> "A.4" when chapter 13 is the first after the mark
    k = num; sub(/\..*/, "", k)
    if (k !~ /^[0-9]+$/) return num
    if (!app_from) app_from = k + 0
    if (k + 0 < app_from) return num
    return sprintf("%c", 65 + k - app_from) substr(num, length(k) + 1)
}
function letter_numbers(s,    out, v) {
    out = ""
    while (match(s, /(data-number="|header-section-number">)[0-9][0-9.]*/)) {
        v = substr(s, RSTART, RLENGTH); sub(/^[^0-9]*/, "", v)
        out = out substr(s, 1, RSTART + RLENGTH - 1 - length(v)) letter_one(v)
        s = substr(s, RSTART + RLENGTH)
    }
    return out s
}
function h(s) { gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s); gsub(/"/, "\\&quot;", s); return s }
function js(s) { gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); return "\"" s "\"" }
function entry(kind, text, url) { search = search (search == "" ? "" : ",\n") "[" js(kind) "," js(text) "," js(url) "]" }

# ---- pass 1: pages, ids, headings ----------------------------------------
/^<!-- nwfile .* -->$/ {
    f = $3; np++
    if (f == "index") { page[np] = "book-index.html" }
    else { sub(/.*\//, "", f); sub(/\.nw$/, "", f); page[np] = f ".html" }
    next
}
# After html-pre.awk's mark, chapters are lettered as in the PDF: pandoc's
# numbers N, N.k become A, A.k from the first chapter after the mark on.
/^<!-- appendix -->$/ { app_mark = 1; next }
app_mark && /data-number="|header-section-number">/ { $0 = letter_numbers($0) }
{
    if (!np) { print "html-site: text before the first <!-- nwfile --> mark" > "/dev/stderr"; exit 1 }
    L[np, ++nl[np]] = $0
    s = $0
    while (match(s, / id="[^"]+"/)) { idpage[substr(s, RSTART + 5, RLENGTH - 6)] = np; s = substr(s, RSTART + RLENGTH) }
    if (match($0, /^<h[1-3][ >]/) && match($0, / id="[^"]+"/)) {
        id = substr($0, RSTART + 5, RLENGTH - 6); lvl = substr($0, 3, 1)
        t = $0; sub(/^<h[1-6][^>]*>/, "", t); sub(/<\/h[1-6]>.*/, "", t)
        nh++; hpage[nh] = np; hlvl[nh] = lvl; hid[nh] = id; hhtml[nh] = t
        if (match($0, / data-number="[^"]+"/)) hnum[id] = substr($0, RSTART + 14, RLENGTH - 15)
        if (lvl == 1 && !(np in ptitle)) ptitle[np] = plain(t)
    }
}
# ---- pass 2: write -----------------------------------------------------------
END {
    if (!np) exit 1
    ptitle[0] = "Contents"; page[0] = "index.html"
    for (p = 1; p <= np; p++) {
        if (page[p] == "book-index.html") ptitle[p] = "Index of chunks and identifiers"
        write_page(p)
    }
    write_contents()
    # the search index: sections, chunks, identifiers
    for (i = 1; i <= nh; i++) entry("section", plain(hhtml[i]), page[hpage[i]] "#" hid[i])
    for (p = 1; p <= np; p++) for (k = 1; k <= nl[p]; k++) {
        s = L[p, k]
        if (match(s, /<div class="nwchunk" id="nw[0-9]+"><div class="nwhead">.*<\/div>/)) {
            id = s; sub(/.*<div class="nwchunk" id="/, "", id); sub(/".*/, "", id)
            t = s; sub(/.*<div class="nwhead">/, "", t); sub(/<\/div>.*/, "", t); sub(/ <span class="nwwrong">.*/, "", t)
            entry("chunk", plain(t), page[p] "#" id)
        }
        if (match(s, /^<li><code>[^<]*<\/code>: defined in <a href="#nw[0-9]+">/)) {
            t = s; sub(/^<li><code>/, "", t); sub(/<\/code>.*/, "", t)
            id = s; sub(/^[^#]*#/, "", id); sub(/".*/, "", id)
            entry("identifier", plain(t), page[idpage[id]] "#" id)
        }
    }
    pages = ""; for (p = 1; p <= np; p++) pages = pages (p > 1 ? ", " : "") js(page[p]) ": " js(ptitle_short(p))
    printf "// The web edition's search index (tools/html-site.awk): kind, text, page#anchor.\nvar BOOK_PAGES = { %s };\nvar BOOK_SEARCH = [\n%s\n];\n", pages, search > (out "/search-index.js")
    if (broken) { printf "html-site: %d broken links or wrong numbers\n", broken > "/dev/stderr"; exit 1 }
}

function head(p, file) {
    printf "<!DOCTYPE html>\n<html lang=\"%s\">\n<head>\n<meta charset=\"utf-8\">\n", (lang ? lang : "en") > file
    printf "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"color-scheme\" content=\"light dark\">\n" > file
    printf "<title>%s</title>\n", (p ? h(ptitle[p]) " \342\200\224 " : "") h(title) > file
    printf "<link rel=\"stylesheet\" href=\"book.css\">\n<script src=\"search-index.js\" defer></script>\n<script src=\"book.js\" defer></script>\n</head>\n<body>\n" > file
    printf "<header class=\"bar\"><a class=\"home\" href=\"index.html\">%s</a>\n", h(title) > file
    printf "<form class=\"search\" role=\"search\" onsubmit=\"return false\"><input id=\"search\" type=\"search\" placeholder=\"Search sections, chunks, identifiers\" aria-label=\"Search the book\" autocomplete=\"off\"><ol id=\"search-results\" hidden></ol></form></header>\n" > file
}
function prevnext(p, file) {
    printf "<nav class=\"prevnext\">" > file
    if (p > 0) printf "<a class=\"prev\" rel=\"prev\" href=\"%s\">\342\206\220\302\240%s</a>", page[p - 1], h(ptitle[p - 1]) > file
    if (p < np) printf "<a class=\"next\" rel=\"next\" href=\"%s\">%s\302\240\342\206\222</a>", page[p + 1], h(ptitle[p + 1]) > file
    printf "</nav>\n" > file
}
function write_page(p,    file, k, s, cap) {
    file = out "/" page[p]
    head(p, file)
    prevnext(p, file)
    pagetoc(p, file)
    printf "<main>\n" > file
    cap = ""
    for (k = 1; k <= nl[p]; k++) {
        s = fix(L[p, k], p)
        # a table scrolls sideways inside a figure whose caption stays on the page
        if (s ~ /^<table( [^>]*)?>$/) { print "<figure class=\"table\"><div class=\"scroll\">\n" s > file; continue }
        if (s ~ /^<caption>.*<\/caption>$/) { cap = s; gsub(/^<caption>|<\/caption>$/, "", cap); continue }
        if (s == "</table>") { print "</table>\n</div>" (cap != "" ? "<figcaption>" cap "</figcaption>" : "") "</figure>" > file; cap = ""; continue }
        print s > file
    }
    printf "</main>\n" > file
    prevnext(p, file)
    printf "</body>\n</html>\n" > file
    close(file)
}
# One line of a page: chunk uses in code, heading anchors, links across pages.
function fix(s, p,    out, body, n, name, id, i, j, opn, cls, src, t) {
    opn = "<span class=\"co\">/*\342\237\250"; cls = "\342\237\251*/</span>"
    while ((i = index(s, opn)) > 0) {
        body = substr(s, i + length(opn))
        if (!(j = index(body, cls))) break
        n = substr(body, 1, j - 1)                  # "name N"
        name = n; sub(/ [0-9]+$/, "", name); sub(/.* /, "", n)
        s = substr(s, 1, i - 1) "<span class=\"nwuse\">\342\237\250<span class=\"nwname\">" name "</span>\302\240<a href=\"#nw" n "\">" n "</a>\342\237\251</span>" substr(body, j + length(cls))
    }
    if (match(s, /^<h[1-4][^>]* id="[^"]+"/)) {
        id = s; sub(/^<h[1-4][^>]* id="/, "", id); sub(/".*/, "", id)
        sub(/<\/h[1-4]>/, "<a class=\"anchor\" href=\"#" id "\" aria-label=\"Link to this section\">#</a>&", s)
    }
    if (index(s, "<math display=\"inline\"")) s = widemath(s)
    if (match(s, /<img src="fig\/[^"]*\.svg"/)) {        # its size, so the page does not move as figures load
        i = RSTART + RLENGTH; src = substr(s, RSTART + 10, RLENGTH - 11)
        s = substr(s, 1, i - 1) svgsize(src) substr(s, i)
    }
    t = s                          # a \ref that html-pre.awk numbered says what pandoc numbered
    while (match(t, /<a href="#[^"]+">[0-9][0-9.]*<\/a>/)) {
        id = substr(t, RSTART + 10, RLENGTH - 10); n = id; sub(/".*/, "", id); sub(/^[^>]*>/, "", n); sub(/<.*/, "", n)
        if ((id in hnum) && hnum[id] != n) { printf "html-site: %s: a reference to #%s says %s, the heading is %s\n", page[p], id, n, hnum[id] > "/dev/stderr"; broken++ }
        t = substr(t, RSTART + RLENGTH)
    }
    out = ""
    while (match(s, /href="#[^"]*"/)) {
        id = substr(s, RSTART + 7, RLENGTH - 8)
        out = out substr(s, 1, RSTART - 1)
        if (!(id in idpage)) { printf "html-site: %s: link to #%s, which no page holds\n", page[p], id > "/dev/stderr"; broken++; out = out "href=\"#" id "\"" }
        else if (idpage[id] == p) out = out "href=\"#" id "\""
        else out = out "href=\"" page[idpage[id]] "#" id "\"" (id ~ /^nw[0-9]+$/ ? " title=\"" h(ptitle_short(idpage[id])) "\"" : "")
        s = substr(s, RSTART + RLENGTH)
    }
    return out s
}
function write_contents(    file, i, open2) {
    file = out "/index.html"
    head(0, file)
    printf "<main class=\"contents\">\n<h1 class=\"title\" id=\"top\">%s<a class=\"anchor\" href=\"#top\" aria-label=\"Link to this section\">#</a></h1>\n", h(title) > file
    if (subtitle) printf "<p class=\"subtitle\">%s</p>\n", h(subtitle) > file
    if (edition) printf "<p class=\"edition\">%s</p>\n", h(edition) > file
    printf "<nav class=\"toc\" aria-label=\"Table of contents\">\n<h2 id=\"contents\">Contents<a class=\"anchor\" href=\"#contents\" aria-label=\"Link to this section\">#</a></h2>\n<ol class=\"toc1\">\n" > file
    open2 = 0
    for (i = 1; i <= nh; i++) {
        if (hlvl[i] == 1) {
            if (open2) { printf "</ol>" > file; open2 = 0 }
            if (i > 1) printf "</li>\n" > file
            printf "<li><a href=\"%s#%s\">%s</a>", page[hpage[i]], hid[i], toc_text(hhtml[i]) > file
        } else if (hlvl[i] == 2) {
            if (!open2) { printf "\n<ol class=\"toc2\">\n" > file; open2 = 1 }
            printf "<li><a href=\"%s#%s\">%s</a></li>\n", page[hpage[i]], hid[i], toc_text(hhtml[i]) > file
        }
    }
    if (open2) printf "</ol>" > file
    printf "</li>\n<li><a href=\"book-index.html\">Index of chunks and identifiers</a></li>\n</ol>\n</nav>\n</main>\n" > file
    prevnext(0, file)
    printf "</body>\n</html>\n" > file
    close(file)
}
function toc_text(t) {      # a heading's HTML, its number kept as a span
    gsub(/<a [^>]*>|<\/a>/, "", t)
    return t
}
function points(len,   v) {              # a TeX length (in, cm, mm, pt) in pt
    v = len + 0
    if (len ~ /in$/) return v * 72; if (len ~ /cm$/) return v * 72 / 2.54
    if (len ~ /mm$/) return v * 72 / 25.4; if (len ~ /pt$/) return v * 72 / 72.27
    print "html-site.awk: textwidth=" len ": give it in in, cm, mm or pt" > "/dev/stderr"; exit 1
}
function svgsize(src,    f, l, w, hh) {   # width="Wpt" height="Hpt" of an SVG in build/html, as px
    f = out "/" src
    while ((getline l < f) > 0) if (l ~ /^<svg /) {
        if (match(l, / width="[0-9.]+pt"/)) w = substr(l, RSTART + 8, RLENGTH - 11)
        if (match(l, / height="[0-9.]+pt"/)) hh = substr(l, RSTART + 9, RLENGTH - 12)
        break
    }
    close(f)
    # its share of the column: the PDF's text width (textwidth, e.g. 6.3in =
    # 453.6 pt), plus the 3 pt borders
    col = points(textwidth) + 6
    return w == "" ? "" : sprintf(" width=\"%d\" height=\"%d\" style=\"--w: %.1f%%\"", w * 4 / 3 + 0.5, hh * 4 / 3 + 0.5, (w > col ? 100 : 100 * w / col))
}
function widemath(s,    out, i, rest, j, tex) {   # class="wide" on long inline formulas
    out = ""
    while ((i = index(s, "<math display=\"inline\"")) > 0) {
        rest = substr(s, i); j = index(rest, "</math>")
        tex = substr(rest, 1, j); sub(/.*<annotation encoding="application\/x-tex">/, "", tex); sub(/<\/annotation>.*/, "", tex)
        out = out substr(s, 1, i - 1) (j && length(tex) > 36 ? "<math class=\"wide\" display=\"inline\"" : "<math display=\"inline\"")
        s = substr(s, i + 22)
    }
    return out s
}
function ptitle_short(p,    i) {   # the page's first heading with its number: "5 Reduction"
    for (i = 1; i <= nh; i++) if (hpage[i] == p && hlvl[i] == 1) return plain(hhtml[i])
    return ptitle[p]
}
function pagetoc(p, file,    i, n) {   # "On this page": the page's sections, shown beside wide screens
    n = 0
    for (i = 1; i <= nh; i++) if (hpage[i] == p && hlvl[i] == 2) {
        if (!n++) printf "<nav class=\"pagetoc\" aria-label=\"On this page\"><p>On this page</p>\n<ol>\n" > file
        printf "<li><a href=\"#%s\">%s</a></li>\n", hid[i], toc_text(hhtml[i]) > file
    }
    if (n) printf "</ol></nav>\n" > file
}
