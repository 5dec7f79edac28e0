# nw2md.awk -- noweb backend that writes pandoc Markdown for the book.
#
#   markup chapters/*.nw | finduses | noidx \
#     | gawk -f tools/csv.awk -f tools/nw2md.awk [-v testedby=FILE]
#
# Documentation chunks pass through as Markdown, with the {{csv}}
# directives expanded (csv_directives, tools/csv.awk, which must be loaded
# first).  Each code chunk becomes a raw header (number, <name>=, a
# wrong-on-purpose mark), a fenced CUDA code block in which uses read
# <name N>, and a raw footer with the identifiers it defines, "continued
# in", "used in" and, for a chunk that defines a launcher, "Tested by" and
# the tests that call it; a list of more than MAXUSES uses gives the first
# few, the count of the rest and a link to the index entry.  noweb's
# quoted code in a chunk's name, [[x]], is set as code.  At the end come
# an index of chunks and an index of identifiers.  The raw parts are
# LaTeX, or HTML with -v format=html (the web edition); all else is
# format-neutral.
#
# -v testedby=FILE: the lines SLUG<TAB>LAUNCHER<TAB>TEST TEST... of
# tools/tested-by.sh.  A chunk of chapters/SLUG.nw (any folder, the file's
# base name) defines LAUNCHER when a line of it begins with the return type
# and LAUNCHER( and a { follows the parameter list.  Without the variable,
# or with an empty FILE, no chunk says "Tested by"; a FILE that cannot be
# read is an error.
# Exit status: 2 on @fatal in the stream, 1 on any other error.

function err(msg) { printf "%s:%d: %s\n", file, lineno, msg > "/dev/stderr"; errors++ }

# LaTeX-escape text for the raw headers and indexes.
function tex(s) {
    gsub(/\\/, "\001", s)
    gsub(/[{}_&%#$]/, "\\\\&", s)
    gsub(/\^/, "\\^{}", s); gsub(/~/, "\\textasciitilde{}", s)
    gsub(/\001/, "\\textbackslash{}", s)
    return s
}
# The chunk markup in the output format (-v format=latex, the default, or
# html): everything else the backend writes is plain pandoc Markdown, so
# the same weave serves the PDF and the web edition.
function html(s) { gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s); gsub(/"/, "\\&quot;", s); return s }
function esc(s) { return format == "html" ? html(s) : tex(s) }
function code(s) { return format == "html" ? "<code>" html(s) "</code>" : "\\texttt{" tex(s) "}" }
function raw(s) { return "\n```{=" (format == "html" ? "html" : "latex") "}\n" s "\n```\n" }
# A chunk name: noweb's quoted code, [[x]], as code; the rest escaped.
function cname(s,    out, i, j) {
    out = ""
    while ((i = index(s, "[[")) > 0 && (j = index(substr(s, i + 2), "]]")) > 0) {
        out = out esc(substr(s, 1, i - 1)) (format == "html" ? "<code>" html(substr(s, i + 2, j - 1)) "</code>" : "\\nwcode{" tex(substr(s, i + 2, j - 1)) "}")
        s = substr(s, i + j + 3)
    }
    return out esc(s)
}
function link(n) { return format == "html" ? "<a href=\"#nw" n "\">" n "</a>" : "\\hyperlink{nw" n "}{" n "}" }
function links(list,    a, k, i, out) {
    k = split(list, a, " "); out = ""
    for (i = 1; i <= k; i++) out = out (i > 1 ? ", " : "") link(a[i])
    return out
}
# A long list of uses, as a footer gives it: the first few, then how many
# more, with a link to the entry (anchor) of the index that lists them all.
function uses(list, anchor,    a, k, i, out) {
    k = split(list, a, " ")
    if (k <= MAXUSES) return links(list)
    out = ""
    for (i = 1; i <= SHOWUSES; i++) out = out (i > 1 ? ", " : "") link(a[i])
    return out " and " (k - SHOWUSES) " more, see " (format == "html" ? "<a href=\"#" anchor "\">the index</a>" : "\\hyperlink{" anchor "}{the index}")
}
function minus(list, drop,    a, k, i, out) {   # list without the numbers in drop
    k = split(list, a, " "); out = ""
    for (i = 1; i <= k; i++) if ((" " drop " ") !~ (" " a[i] " ")) out = out (out == "" ? "" : " ") a[i]
    return out
}
function addto(arr, key, n) {     # append chunk number n once
    if ((" " arr[key] " ") !~ (" " n " ")) arr[key] = (arr[key] == "" ? n : arr[key] " " n)
}

# ---- pass 1: read the whole stream, number the chunks --------------------
{ tok[++ntok] = $0 }
$1 == "@fatal" { print "noweb: " substr($0, 8) > "/dev/stderr"; fatal = 1 }
$1 == "@file" { slug = substr($0, 7); sub(/.*\//, "", slug); sub(/\.nw$/, "", slug) }   # chapters/SLUG.nw
$1 == "@begin" && $2 == "code" { nchunks++ ; incode = 1; chunkslug[nchunks] = slug }
$1 == "@end" && $2 == "code" { incode = 0 }
$1 == "@defn" {
    name = substr($0, 7); cnum[nchunks] = name
    if (!(name in first)) first[name] = nchunks
    else addto(cont, prevpart[name], nchunks)
    prevpart[name] = nchunks
    addto(defs, name, nchunks)
}
$1 == "@use" && incode { addto(usedin, substr($0, 6), nchunks) }
$1 == "@index" && $2 == "defn" { id = $3; addto(iddef, id, nchunks); idlist[id] = 1; chunkdefs[nchunks] = chunkdefs[nchunks] (chunkdefs[nchunks] == "" ? "" : " ") id }
$1 == "@index" && $2 == "use" && incode { addto(iduse, $3, nchunks) }
# The code of each chunk as text, a use as \001, for the launchers it defines.
incode && $1 == "@text" { ctext[nchunks] = ctext[nchunks] substr($0, 7) }
incode && $1 == "@nl" { ctext[nchunks] = ctext[nchunks] "\n" }
incode && $1 == "@use" { ctext[nchunks] = ctext[nchunks] "\001" }

# ---- pass 2: write Markdown ----------------------------------------------
# A footer lists at most MAXUSES uses of an identifier or a chunk; a longer
# list shows its first SHOWUSES and the count of the others, and links to
# the entry of the index that has them all (nwidK, nwchK: the K-th
# identifier, the K-th chunk name, in the index's order).
BEGIN { MAXUSES = 6; SHOWUSES = 4 }
END {
    if (fatal) exit 2
    nnames = 0; for (nm in first) names[++nnames] = nm
    asort(names); for (i = 1; i <= nnames; i++) nameno[names[i]] = i
    nids = 0; for (k in idlist) ids[++nids] = k
    asort(ids); for (i = 1; i <= nids; i++) idno[ids[i]] = i
    if (testedby != "") read_testedby(testedby)
    n = 0; incode = 0; out = ""
    for (t = 1; t <= ntok; t++) {
        $0 = tok[t]
        if ($1 == "@file") {
            if (docline != "") { print csv_directives(docline); docline = "" }
            if (file != "") printf "\n"     # a chapter's first heading needs a blank line
            if (format == "html") printf "%s", raw("<!-- nwfile " substr($0, 7) " -->")   # where the web edition starts a page
            file = substr($0, 7); lineno = 1; continue
        }
        if ($1 == "@nl" || ($1 == "@index" && $2 == "nl")) {
            if ($1 == "@nl") {
                if (incode && skipnl) skipnl = 0
                else if (incode) printf "\n"
                else { printf "%s\n", csv_directives(docline); docline = "" }
            }
            lineno++; continue
        }
        if ($1 == "@begin" && $2 == "code") { n++; incode = 1; skipnl = 1; continue }
        if ($1 == "@defn") { begin_chunk(n, substr($0, 7)); continue }
        if ($1 == "@end" && $2 == "code") { end_chunk(n); incode = 0; continue }
        if ($1 == "@text") { if (incode) printf "%s", substr($0, 7); else docline = docline substr($0, 7); continue }
        if ($1 == "@quote") { docline = docline "`"; continue }
        if ($1 == "@endquote") { docline = docline "`"; continue }
        if ($1 == "@use") {
            u = substr($0, 6)
            if (!(u in first)) { err("chunk <<" u ">> is used but never defined"); continue }
            if (incode) printf "/*\342\237\250%s %d\342\237\251*/", u, first[u]
            else { t2 = u; gsub(/\[\[/, "`", t2); gsub(/\]\]/, "`", t2); docline = docline "\342\237\250" t2 " " first[u] "\342\237\251" }
            continue
        }
    }
    if (docline != "") print csv_directives(docline)
    write_indexes()
    exit errors ? 1 : 0
}

# The header of chunk k.  In the PDF, \nwlines{L} first: the chunk's L
# lines of code, for \nwbegin to keep the header with the first of them
# (or with all of a short chunk) on its page.
function begin_chunk(k, name,    wrong, sign, lines) {
    wrong = name ~ /^Wrong on purpose/
    if (format == "html")
        printf "%s\n~~~~~~~~ {.cuda}\n", raw("<div class=\"nwchunk\" id=\"nw" k "\"><div class=\"nwhead\"><a class=\"nwnum\" href=\"#nw" k "\">" k "</a> &#x27E8;" (first[name] == k ? cname(name) : "<a href=\"#nw" first[name] "\">" cname(name) "</a>") "&#x27E9;" \
               (first[name] == k ? "&#x2261;" : "+&#x2261;") (wrong ? " <span class=\"nwwrong\">WRONG ON PURPOSE</span>" : "") "</div>")
    else {
        lines = gsub(/\n/, "&", ctext[k]) - (substr(ctext[k], 1, 1) == "\n") + (ctext[k] ~ /[^\n]$/)
        printf "%s\n~~~~~~~~ {.cuda}\n", raw("\\nwlines{" lines "}\\nwbegin{" k "}{" cname(name) "}{" (first[name] == k ? "\\nwdefsign" : "\\nwplussign") "}{" (wrong ? "\\nwwrong" : "") "}")
    }
}
function end_chunk(k,    name, foot, a, m, i, t) {
    name = cnum[k]
    foot = ""
    if (chunkdefs[k] != "") {
        m = split(chunkdefs[k], a, " ")
        for (i = 1; i <= m; i++)
            foot = foot (i > 1 ? ", " : "Defines ") code(a[i]) (minus(iduse[a[i]], iddef[a[i]]) != "" ? " (used in " uses(minus(iduse[a[i]], iddef[a[i]]), "nwid" idno[a[i]]) ")" : "")
        foot = foot ". "
    }
    if (cont[k] != "") foot = foot "Continued in " links(cont[k]) ". "
    if (first[name] == k && usedin[name] != "") foot = foot "Used in " uses(usedin[name], "nwch" nameno[name]) ". "
    if (first[name] == k && usedin[name] == "" && name ~ /\//) foot = foot "Root chunk: the file " code(name) ". "
    # The note on a line of its own; in the PDF the footer then runs ragged
    # right, as a justified line of a few long test names overflows.
    if (testedby != "" && (t = tested_note(k)) != "")
        foot = format == "html" ? foot (foot == "" ? "" : "<br>") t : "\\raggedright " foot (foot == "" ? "" : "\\newline ") t
    printf "~~~~~~~~\n%s\n", raw(format == "html" ? "<div class=\"nwfoot\">" foot "</div></div>" : "\\nwend{" foot "}")
}
# ---- Tested by -----------------------------------------------------------
# read_testedby(FILE): testsof[SLUG, LAUNCHER] = "TEST TEST ..." from the
# lines SLUG<TAB>LAUNCHER<TAB>TESTS of tools/tested-by.sh.  A FILE that
# cannot be read leaves the chunks without the notes, with a warning.
function read_testedby(path,    line, f, r) {
    while ((r = (getline line < path)) > 0)
        if (split(line, f, "\t") >= 3 && f[3] != "") testsof[f[1], f[2]] = f[3]
    if (r < 0) printf "nw2md.awk: warning: cannot read %s; no \"Tested by\" notes\n", path > "/dev/stderr"
    close(path)
}
# The launchers that chunk k defines, in order: a line that begins with a
# return type and NAME(, where a { follows the parameter list, and where
# NAME is a launcher of the chunk's chapter.
function launchers_in(k,    s, line, m, i, name, pre, p, c, depth, found) {
    s = ctext[k]; found = ""
    while (s != "") {
        i = index(s, "\n"); line = i ? substr(s, 1, i - 1) : s; s = i ? substr(s, i + 1) : ""
        if (!match(line, /^(extern "C"[ \t]+)?([A-Za-z_][A-Za-z_0-9]*[ \t*]+)+[A-Za-z_][A-Za-z_0-9]*[ \t]*\(/)) continue
        pre = substr(line, 1, RLENGTH - 1); sub(/[ \t]+$/, "", pre)
        name = pre; sub(/.*[^A-Za-z_0-9]/, "", name)
        if (!((chunkslug[k], name) in testsof) || pre ~ /^(return|else|case|goto)[ \t*]/) continue
        # The parameter list, to its ), then blanks and comments: a {?
        p = substr(line, RLENGTH) "\n" s; depth = 0
        for (i = 1; i <= length(p); i++) {
            c = substr(p, i, 1)
            if (c == "(") depth++
            else if (c == ")" && --depth == 0) break
        }
        p = substr(p, i + 1)
        while (p ~ /^([ \t\n]|\/\/|\/\*)/) {
            if (p ~ /^[ \t\n]/) p = substr(p, 2)
            else if (p ~ /^\/\//) p = (i = index(p, "\n")) ? substr(p, i) : ""
            else p = (i = index(p, "*/")) ? substr(p, i + 2) : ""
        }
        if (substr(p, 1, 1) == "{" && (" " found " ") !~ (" " name " ")) found = found (found == "" ? "" : " ") name
    }
    return found
}
function testlist(list,    a, k, i, out) {
    k = split(list, a, " "); out = ""
    for (i = 1; i <= k; i++) out = out (i > 1 ? ", " : "") code(a[i])
    return out
}
# "Tested by a, b." for a chunk that defines one launcher; for several, a
# line each: "f tested by a, b." and "g tested by c."
function tested_note(k,    l, m, i, out) {
    m = split(launchers_in(k), l, " ")
    if (m == 1) return "Tested by " testlist(testsof[chunkslug[k], l[1]]) "."
    out = ""
    for (i = 1; i <= m; i++) out = out (i > 1 ? (format == "html" ? "<br>" : "\\newline ") : "") code(l[i]) " tested by " testlist(testsof[chunkslug[k], l[i]]) "."
    return out
}
function write_indexes(    i, out) {
    out = format == "html" ? "<!-- nwfile index -->\n<h1 id=\"index-of-chunks\">Index of chunks</h1>\n<ul class=\"nwindex\">" : "\\nwindexchunks"
    for (i = 1; i <= nnames; i++)
        out = out "\n" (format == "html" ? "<li id=\"nwch" i "\">&#x27E8;" cname(names[i]) "&#x27E9;: " links(defs[names[i]]) (usedin[names[i]] == "" ? "" : "; used in " links(usedin[names[i]])) "</li>" \
                                           : "\\nwanchor{nwch" i "}\\nwchunkentry{" cname(names[i]) "}{" links(defs[names[i]]) "}{" (usedin[names[i]] == "" ? "" : links(usedin[names[i]])) "}")
    out = out "\n" (format == "html" ? "</ul>\n<h1 id=\"index-of-identifiers\">Index of identifiers</h1>\n<ul class=\"nwindex\">" : "\\nwindexidents")
    for (i = 1; i <= nids; i++)
        out = out "\n" (format == "html" ? "<li id=\"nwid" i "\">" code(ids[i]) ": defined in " links(iddef[ids[i]]) (minus(iduse[ids[i]], iddef[ids[i]]) == "" ? "" : "; used in " links(minus(iduse[ids[i]], iddef[ids[i]]))) "</li>" \
                                           : "\\nwanchor{nwid" i "}\\nwidentry{" tex(ids[i]) "}{" links(iddef[ids[i]]) "}{" links(minus(iduse[ids[i]], iddef[ids[i]])) "}")
    out = out "\n" (format == "html" ? "</ul>" : "\\nwindexend")
    printf "%s", raw(out)
}
