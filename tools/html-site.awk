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
# pages get the book's bar (the chapters' menu button, title, search, the
# PDF and the source archive when the Makefile passes pdf= and src=), the
# chapter sidebar, previous / next links, and index.html holds the table of
# contents.  search-index.js lists section titles, chunk names and
# identifiers with their pages, search-text.js the words of the prose by
# section, for tools/html/book.js.  Runs of Chinese get lang="zh-Hans".
# A link to a heading whose text is a number (a \ref, numbered by
# html-pre.awk) must say the number pandoc gave the heading.  A table with
# a caption gets its number, "Table 5.1", as the PDF counts them; a chunk
# name's quoted code, [[x]], in a use becomes <code>; names in math
# (pandoc's mstyle of one-letter <mi>s, for \mathrm) become one upright
# <mi>.
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
        if (match(s, /^<li( id="[^"]*")?><code>[^<]*<\/code>: defined in <a href="#nw[0-9]+">/)) {
            t = s; sub(/^<li( id="[^"]*")?><code>/, "", t); sub(/<\/code>.*/, "", t)
            id = s; sub(/^[^#]*#/, "", id); sub(/".*/, "", id)
            entry("identifier", plain(t), page[idpage[id]] "#" id)
        }
    }
    write_text_index()
    pages = ""; for (p = 1; p <= np; p++) pages = pages (p > 1 ? ", " : "") js(page[p]) ": " js(ptitle_short(p))
    printf "// The web edition's search index (tools/html-site.awk): kind, text, page#anchor.\nvar BOOK_PAGES = { %s };\nvar BOOK_SEARCH = [\n%s\n];\n", pages, search > (out "/search-index.js")
    if (broken) { printf "html-site: %d broken links or wrong numbers\n", broken > "/dev/stderr"; exit 1 }
}

function head(p, file) {
    printf "<!DOCTYPE html>\n<html lang=\"%s\">\n<head>\n<meta charset=\"utf-8\">\n", (lang ? lang : "en") > file
    printf "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"color-scheme\" content=\"light dark\">\n" > file
    printf "<title>%s</title>\n", (p ? h(ptitle[p]) " \342\200\224 " : "") h(title) > file
    printf "<link rel=\"stylesheet\" href=\"book.css\">\n<script src=\"search-index.js\" defer></script>\n<script src=\"book.js\" defer></script>\n</head>\n<body>\n" > file
    printf "<header class=\"bar\"><button class=\"menu\" type=\"button\" aria-controls=\"sidebar\" aria-expanded=\"false\" aria-label=\"Chapters\">\342\230\260</button>" > file
    printf "<a class=\"home\" href=\"index.html\">%s</a>\n", h(title) > file
    printf "<form class=\"search\" role=\"search\" onsubmit=\"return false\"><input id=\"search\" type=\"search\" placeholder=\"Search the book\" aria-label=\"Search the book: its text, sections, chunks, identifiers\" autocomplete=\"off\"><ol id=\"search-results\" hidden></ol></form>\n" > file
    printf "%s</header>\n", getlinks("get") > file
    printf "%s", sidebar(p) > file
}
# The PDF and the source archive, as the Makefile passed them (pdf, src:
# file names in build/html; pdfpages, srckib, commit), for the bar and the
# sidebar.  What is not shipped is not linked.
function getlinks(cls,    s) {
    if (pdf == "" && src == "") return ""
    s = "<nav class=\"" cls "\" aria-label=\"Downloads\">"
    if (pdf != "") s = s "<a class=\"pdf\" href=\"" pdf "\" title=\"The book as one PDF" (pdfpages ? ", " pdfpages " pages" : "") "\">PDF</a>"
    if (src != "") s = s "<a class=\"src\" href=\"" src "\" title=\"The book's source: chapters, code, tests, tools" (commit ? ", commit " commit : "") (srckib ? ", " srckib " KiB" : "") "\">Source</a>"
    return s "</nav>"
}
# The chapters, on every page: a column on the left of a wide screen, the
# menu of the bar's button on a narrow one (tools/html/book.js).  The
# current page's chapters are marked, with their sections under them.
function sidebar(p,    s, i, j, k, cur, first) {
    s = "<nav class=\"sidebar\" id=\"sidebar\" aria-label=\"Chapters\">\n<ol class=\"chapters\">\n"
    s = s "<li" (p == 0 ? " class=\"current\"" : "") "><a href=\"index.html\"" (p == 0 ? " aria-current=\"page\"" : "") ">Contents</a></li>\n"
    first = 1
    for (i = 1; i <= nh; i++) if (hlvl[i] == 1) {
        cur = (hpage[i] == p)
        s = s "<li" (cur ? " class=\"current\"" : "") "><a href=\"" page[hpage[i]] "#" hid[i] "\"" (cur && first ? " aria-current=\"page\"" : "") ">" toc_text(hhtml[i]) "</a>"
        if (cur) {
            first = 0; j = 0
            for (k = i + 1; k <= nh && hlvl[k] != 1; k++) if (hlvl[k] == 2)
                s = s (j++ ? "" : "\n<ol class=\"sections\">") "\n<li><a href=\"#" hid[k] "\">" toc_text(hhtml[k]) "</a></li>"
            if (j) s = s "\n</ol>"
        }
        s = s "</li>\n"
    }
    s = s "</ol>\n"
    if (pdf != "" || src != "") {
        s = s "<p class=\"sidebar-get\">"
        if (pdf != "") s = s "<a href=\"" pdf "\">The book as a PDF</a>" (pdfpages ? " (" pdfpages " pages)" : "")
        if (pdf != "" && src != "") s = s "<br>"
        if (src != "") s = s "<a href=\"" src "\">The source, .tar.gz</a>" (srckib ? " (" srckib " KiB" (commit ? ", commit " commit : "") ")" : "")
        s = s "</p>\n"
    }
    return s "</nav>\n"
}
function prevnext(p, file) {
    printf "<nav class=\"prevnext\">" > file
    if (p > 0) printf "<a class=\"prev\" rel=\"prev\" href=\"%s\">\342\206\220\302\240%s</a>", page[p - 1], h(ptitle[p - 1]) > file
    if (p < np) printf "<a class=\"next\" rel=\"next\" href=\"%s\">%s\302\240\342\206\222</a>", page[p + 1], h(ptitle[p + 1]) > file
    printf "</nav>\n" > file
}
# A table with a caption is numbered as LaTeX numbers it: chapter.k, k
# counting the captioned tables from the chapter's numbered heading on
# (an unnumbered chapter goes on with the count before it; tools/uses.awk
# makes the PDF skip the tables without a caption, as this does).
function write_page(p,    file, k, s, cap, incap) {
    file = out "/" page[p]
    head(p, file)
    prevnext(p, file)
    pagetoc(p, file)
    printf "<main>\n" > file
    cap = ""; incap = 0
    for (k = 1; k <= nl[p]; k++) {
        if (page[p] != "book-index.html") textindex(L[p, k], p)
        s = fix(L[p, k], p)
        if (match(s, /^<h1[^>]* data-number="[^"]+"/)) { tabchap = s; sub(/^<h1[^>]* data-number="/, "", tabchap); sub(/".*/, "", tabchap); tabk = 0 }
        # a table scrolls sideways inside a figure whose caption stays on the page
        if (s ~ /^<table( [^>]*)?>$/) { print "<figure class=\"table\"><div class=\"scroll\">\n" s > file; continue }
        if (s ~ /^<caption>/ || incap) {
            cap = cap (incap ? "\n" : "") s; incap = (s !~ /<\/caption>$/)
            if (!incap) { sub(/^<caption>/, "", cap); sub(/<\/caption>$/, "", cap) }
            continue
        }
        if (s == "</table>") {
            if (cap != "") cap = "<span class=\"tabnum\">Table " (tabchap == "" ? 0 : tabchap) "." (++tabk) ".</span> " cap
            print "</table>\n</div>" (cap != "" ? "<figcaption>" cap "</figcaption>" : "") "</figure>" > file; cap = ""; continue
        }
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
        while (match(name, /\[\[[^]]*\]\]/)) name = substr(name, 1, RSTART - 1) "<code>" substr(name, RSTART + 2, RLENGTH - 4) "</code>" substr(name, RSTART + RLENGTH)
        s = substr(s, 1, i - 1) "<span class=\"nwuse\">\342\237\250<span class=\"nwname\">" name "</span>\302\240<a href=\"#nw" n "\">" n "</a>\342\237\251</span>" substr(body, j + length(cls))
    }
    if (match(s, /^<h[1-4][^>]* id="[^"]+"/)) {
        id = s; sub(/^<h[1-4][^>]* id="/, "", id); sub(/".*/, "", id)
        sub(/<\/h[1-4]>/, "<a class=\"anchor\" href=\"#" id "\" aria-label=\"Link to this section\">#</a>&", s)
    }
    if (index(s, "<math display=\"inline\"")) s = widemath(s)
    if (index(s, "<mstyle mathvariant=\"normal\">")) s = upright(s)
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
    s = out s
    if (s ~ /[\343-\351]|\357[\274-\277]/) s = zh(s)
    return s
}
function write_contents(    file, i, open2) {
    file = out "/index.html"
    head(0, file)
    printf "<main class=\"contents\">\n<h1 class=\"title\" id=\"top\">%s<a class=\"anchor\" href=\"#top\" aria-label=\"Link to this section\">#</a></h1>\n", h(title) > file
    if (subtitle) printf "<p class=\"subtitle\">%s</p>\n", h(subtitle) > file
    if (edition) printf "<p class=\"edition\">%s</p>\n", h(edition) > file
    getit(file)
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
# Upright names in MathML: pandoc writes \mathrm{val} as an mstyle whose
# mathvariant="normal" holds one <mi> a letter, which Chromium sets in
# italics (MathML Core honours mathvariant on <mi> alone).  Each run of
# such <mi>s becomes one <mi mathvariant="normal">: a name, upright in
# every browser; an mstyle left with that alone is dropped.
function upright(s,    out, i, rest, j, inner, t, run) {
    out = ""
    while ((i = index(s, "<mstyle mathvariant=\"normal\">")) > 0) {
        rest = substr(s, i + 29); j = index(rest, "</mstyle>")
        inner = substr(rest, 1, j - 1)
        if (!j || index(inner, "<mstyle")) { out = out substr(s, 1, i + 28); s = rest; continue }
        t = ""
        while (match(inner, /(<mi>[^<]*<\/mi>)+/)) {
            run = substr(inner, RSTART, RLENGTH); gsub(/<\/?mi>/, "", run)
            t = t substr(inner, 1, RSTART - 1) "<mi mathvariant=\"normal\">" run "</mi>"
            inner = substr(inner, RSTART + RLENGTH)
        }
        t = t inner
        out = out substr(s, 1, i - 1) (t ~ /^<mi mathvariant="normal">[^<]*<\/mi>$/ ? t : "<mstyle mathvariant=\"normal\">" t "</mstyle>")
        s = substr(rest, j + 9)
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
# Chinese (the glossary's): every run of CJK characters, their punctuation
# and full-width forms, in the text of a line (never inside a tag), gets
# lang="zh-Hans", so that the browser sets it in a Chinese font (book.css)
# and not in whatever its fallback finds first.  The bytes are UTF-8's;
# the site is cut with LC_ALL=C.
function zh(s,    out, t) {
    out = ""
    while (match(s, /<[^>]*>/)) {
        t = substr(s, 1, RSTART - 1)
        gsub(/(\343[\200-\277][\200-\277]|[\344-\351][\200-\277][\200-\277]|\357[\274-\277][\200-\277])+/, "<span lang=\"zh-Hans\">&</span>", t)
        out = out t substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
    }
    gsub(/(\343[\200-\277][\200-\277]|[\344-\351][\200-\277][\200-\277]|\357[\274-\277][\200-\277])+/, "<span lang=\"zh-Hans\">&</span>", s)
    return out s
}

# ---- the full-text index ----------------------------------------------------
# search-text.js: every word of the prose (paragraphs, lists, tables,
# captions, headings; not code blocks, chunk headers and footers, or
# formulas; not the index page), by section, with how often it occurs
# there.  book.js loads it when a reader first uses the search box.  A word
# is a run of letters, digits and _ (leading and trailing _ dropped,
# "__syncthreads" is "syncthreads"), or a run of other letters (accented,
# Greek, CJK), lower case, two characters or more, not a number alone, not
# one of the stop words, which book.js drops from a query too.
function textindex(s, p,    t, n, i, w, a, id) {
    if (p != tx_page) { tx_page = p; tx_sec = 0; tx_pre = 0; tx_math = 0 }
    if (match(s, /^<h[1-3][ >]/) && match(s, / id="[^"]+"/)) {
        id = substr(s, RSTART + 5, RLENGTH - 6)
        t = s; sub(/^<h[1-6][^>]*>/, "", t); sub(/<\/h[1-6]>.*/, "", t)
        tx_sec = ++nsec; securl[nsec] = page[p] "#" id; sectitle[nsec] = plain(t); secpage[nsec] = p
    }
    # code blocks and display formulas run over several lines
    if (tx_pre) { if (!(i = index(s, "</pre>"))) return; s = substr(s, i + 6); tx_pre = 0 }
    if (tx_math) { if (!(i = index(s, "</math>"))) return; s = substr(s, i + 7); tx_math = 0 }
    while ((i = index(s, "<pre"))) {
        t = substr(s, i); if (!(n = index(t, "</pre>"))) { tx_pre = 1; s = substr(s, 1, i - 1); break }
        s = substr(s, 1, i - 1) " " substr(t, n + 6)
    }
    while ((i = index(s, "<math"))) {
        t = substr(s, i); if (!(n = index(t, "</math>"))) { tx_math = 1; s = substr(s, 1, i - 1); break }
        s = substr(s, 1, i - 1) " " substr(t, n + 7)
    }
    gsub(/<div class="nw(head|foot)">.*<\/div>/, " ", s)
    gsub(/<[^>]*>/, " ", s)
    if (s !~ /[A-Za-z\200-\377]/) return
    gsub(/&#[xX]?[0-9A-Fa-f]+;|&[a-z]+;/, " ", s)
    # punctuation, symbols and spaces outside ASCII: U+0080-00BF, U+2000-2FFF,
    # U+3000-303F, U+FF00-FF0F and the full-width punctuation after it
    gsub(/\302[\200-\277]|\342[\200-\277][\200-\277]|\343\200[\200-\277]|\357\274[\200-\217]|\357\274[\232-\240]|\357\275[\233-\245]/, " ", s)
    s = tolower(s)
    n = split(s, a, /[^a-z0-9_\200-\377]+/)
    if (!tx_sec) { tx_sec = ++nsec; securl[nsec] = page[p]; sectitle[nsec] = ptitle_short(p); secpage[nsec] = p }
    for (i = 1; i <= n; i++) {
        w = a[i]; gsub(/^_+|_+$/, "", w)
        if (length(w) < 2 || w ~ /^[0-9]+$/ || (w in stopword)) continue
        if (!((w, tx_sec) in wcount)) { if (w in wseen) wsecs[w] = wsecs[w] "," tx_sec; else { wseen[w] = 1; wsecs[w] = tx_sec } }
        wcount[w, tx_sec]++
    }
}
function write_text_index(    f, i, w, a, n, k, sep, line) {
    f = out "/search-text.js"
    printf "// The web edition's full-text index (tools/html-site.awk): for each word of\n// the prose, the sections it occurs in and how often: [section, count, ...].\n" > f
    printf "var BOOK_STOP = %s;\nvar BOOK_SECTIONS = [\n", js(STOPWORDS) > f
    for (i = 1; i <= nsec; i++) printf "[%s,%s,%s]%s\n", js(securl[i]), js(sectitle[i]), js(ptitle_short(secpage[i])), (i < nsec ? "," : "") > f
    printf "];\nvar BOOK_TEXT = {\n" > f
    sep = ""
    PROCINFO["sorted_in"] = "@ind_str_asc"
    for (w in wseen) {
        n = split(wsecs[w], a, ","); line = ""
        for (k = 1; k <= n; k++) line = line (k > 1 ? "," : "") (a[k] - 1) "," wcount[w, a[k]]
        printf "%s%s:[%s]", sep, js(w), line > f; sep = ",\n"
    }
    delete PROCINFO["sorted_in"]
    printf "\n};\n" > f
    close(f)
}
BEGIN {
    STOPWORDS = "a an and are as at be but by for from has have if in into is it its not of on or so than that the then there these this those to was were which with"
    n = split(STOPWORDS, a_, " "); for (i_ = 1; i_ <= n; i_++) stopword[a_[i_]] = 1
}
# The contents page's pointer to the PDF and the code: the two files, and
# the preface's section on getting the code and running it (its heading's
# id is getting-the-code), where the book says what to install and run.
function getit(file,    i, howto) {
    for (i = 1; i <= nh; i++) if (hid[i] == "getting-the-code") howto = page[hpage[i]] "#" hid[i]
    if (pdf == "" && src == "" && howto == "") return
    printf "<section class=\"getit\" aria-label=\"The book and its code\">\n<p>" > file
    if (pdf != "") printf "<a href=\"%s\">The book as a PDF</a>%s. ", pdf, (pdfpages ? " (" pdfpages " pages)" : "") > file
    if (src != "") printf "<a href=\"%s\">Its source</a>%s: the chapters, every listing, its tests and the tools that build the book. ", src, \
        (srckib ? " (a .tar.gz of " srckib " KiB" (commit ? ", commit " commit : "") ")" : "") > file
    if (howto != "") printf "<a href=\"%s\">Getting the code and running it</a> says what to install and how to run <code>make test</code>.", howto > file
    printf "</p>\n</section>\n" > file
}
