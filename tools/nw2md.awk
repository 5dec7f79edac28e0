# nw2md.awk -- noweb backend that writes pandoc Markdown for the book.
#
#   markup chapters/*.nw | finduses | noidx | awk -f tools/nw2md.awk
#
# Documentation chunks pass through as Markdown.  Each code chunk becomes a
# raw header (number, <name>=, a wrong-on-purpose mark), a fenced CUDA code
# block in which uses read <name N>, and a raw footer with the identifiers
# it defines, "continued in" and "used in".  At the end come an index of
# chunks and an index of identifiers.  The raw parts are LaTeX, or HTML
# with -v format=html (the web edition); all else is format-neutral.
#
# Two directives in documentation draw measured data into the text:
#   {{csv:FILE:KEYCOL=KEY:COL:FORMAT}}          one value, inline
#   {{csvdiv:FILE:K=A:COL:K=B:COL:FORMAT}}      the ratio of two values, inline
#   {{csvmul:FILE:K=A:COL:FACTOR:FORMAT}}       a value times FACTOR (n or n/m;
#                                               n and m products a*b of numbers,
#                                               device facts such as sms, and
#                                               NAME.csv!K=A!COL of the same GPU)
#   {{csvtable:FILE:COLS:HEADERS:FORMATS}}      a whole table, on its own line
# (COLS, HEADERS and FORMATS are comma-separated; a FORMAT is printf's, or
# "s" for the text as written).  A missing file, row or column is an error.
#
# With -v draft=1 (make pdf DRAFT=1) a missing CSV file or row, or a column
# missing from a file that has the key column, is a warning and the text
# says "not yet measured" (a table leaves the column out); the default, for
# the real book, is an error.
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
function link(n) { return format == "html" ? "<a href=\"#nw" n "\">" n "</a>" : "\\hyperlink{nw" n "}{" n "}" }
function links(list,    a, k, i, out) {
    k = split(list, a, " "); out = ""
    for (i = 1; i <= k; i++) out = out (i > 1 ? ", " : "") link(a[i])
    return out
}
function minus(list, drop,    a, k, i, out) {   # list without the numbers in drop
    k = split(list, a, " "); out = ""
    for (i = 1; i <= k; i++) if ((" " drop " ") !~ (" " a[i] " ")) out = out (out == "" ? "" : " ") a[i]
    return out
}
function addto(arr, key, n) {     # append chunk number n once
    if ((" " arr[key] " ") !~ (" " n " ")) arr[key] = (arr[key] == "" ? n : arr[key] " " n)
}

# ---- measured data -------------------------------------------------------
function loadcsv(path) {           # csv_load (tools/csv.awk), with the book's messages
    if (csv_load(path)) return 1
    if (draft) { printf "%s:%d: warning: no data in %s yet (draft)\n", file, lineno, path > "/dev/stderr"; return 0 }
    err("no data in " path " (run make bench on a GPU, or restore the file)"); return 0
}
BEGIN { unmeasured = "[not yet measured]" }   # what a draft shows instead
function fmt(f, v) { return f == "s" || f == "" || v == "-" ? v : sprintf(f, v) }   # "-": not applicable, printed as is
function csvvalue(spec,    a, kv, r) {
    split(spec, a, ":")               # file, key=value, column, format
    if (!loadcsv(a[1])) return "[not yet measured]"
    split(a[2], kv, "=")
    if ((r = csv_find(a[1], kv[1], kv[2], a[3]))) return fmt(a[4], csvcell[a[1], r, csvcol[a[1], a[3]]])
    if (csv_status == "col") {
        if (draft && csvcol[a[1], kv[1]]) {   # a column the next run adds
            printf "%s:%d: warning: no column %s in %s yet (draft)\n", file, lineno, a[3], a[1] > "/dev/stderr"
            return "[not yet measured]"
        }
        err("no column " (csvcol[a[1], kv[1]] ? a[3] : kv[1]) " in " a[1]); return "??"
    }
    if (draft) {      # a row not measured yet: a warning in a draft
        printf "%s:%d: warning: no row %s in %s yet (draft)\n", file, lineno, a[2], a[1] > "/dev/stderr"
        return "[not yet measured]"
    }
    err("no row " a[2] " in " a[1]); return "??"
}
function csvdiv(spec,    a, x, y) {       # FILE:K=A:COL:K=B:COL:FORMAT
    split(spec, a, ":")
    x = csvvalue(a[1] ":" a[2] ":" a[3] ":s"); y = csvvalue(a[1] ":" a[4] ":" a[5] ":s")
    if (x == unmeasured || y == unmeasured) return unmeasured   # draft only
    if (x !~ /^[-+0-9.eE]+$/ || y !~ /^[-+0-9.eE]+$/ || y + 0 == 0) {
        err("csvdiv: no ratio of " x " and " y); return "??"
    }
    return fmt(a[6], x / y)
}
# A product of factors a*b*c, each a number, the name of a fact of the
# GPU's device file (figures/data/GPU/memory-device.csv, e.g. sms), so
# that a per-SM figure does not type the SM count, or a value of another
# file of the same GPU written NAME.csv!KEYCOL=KEY!COL.
function product(t,    p, k, i, v, r) {
    k = split(t, p, "*"); v = 1
    for (i = 1; i <= k; i++) {
        if (p[i] ~ /^[A-Za-z_][A-Za-z_0-9]*$/)
            p[i] = csvvalue("figures/data/" gpu "/memory-device.csv:fact=" p[i] ":value:s")
        else if (split(p[i], r, "!") == 3)
            p[i] = csvvalue("figures/data/" gpu "/" r[1] ":" r[2] ":" r[3] ":s")
        if (p[i] == unmeasured) return unmeasured
        if (p[i] !~ /^[-+0-9.eE]+$/) { err("csvmul: factor " p[i] " is not a number"); return unmeasured }
        v *= p[i]
    }
    return v
}
function csvmul(spec,    a, x, q, n, m) {  # FILE:K=A:COL:FACTOR:FORMAT, FACTOR n or n/m
    split(spec, a, ":")
    x = csvvalue(a[1] ":" a[2] ":" a[3] ":s")
    if (x == unmeasured) return unmeasured                      # draft only
    split(a[4], q, "/"); n = product(q[1]); m = q[2] == "" ? 1 : product(q[2])
    if (n == unmeasured || m == unmeasured) return unmeasured
    if (x !~ /^[-+0-9.eE]+$/) { err("csvmul: " x " is not a number"); return "??" }
    return fmt(a[5], x * n / m)
}
function longest_word(h,    p, k, m) { m = 0; k = split(h, p, " "); while (k > 0) { if (length(p[k]) > m) m = length(p[k]); k-- }; return m }
function dashes(k,    d) { d = ""; while (k-- > 0) d = d "-"; return d }
function csvtable(spec,    a, cols, hdrs, fmts, n, i, r, c, out, sep, w, v, body, lw, sp, len, fixed, wide, k) {
    split(spec, a, ":")
    if (!loadcsv(a[1])) return "*[Table not yet measured: " a[1] "]*\n"
    n = split(a[2], cols, ","); split(a[3], hdrs, ","); split(a[4], fmts, ",")
    out = ""; sep = ""
    for (i = 1; i <= n; i++) {
        if (!csvcol[a[1], cols[i]]) {
            if (draft && i > 1) {     # a column the next run adds: left out
                printf "%s:%d: warning: no column %s in %s yet (draft)\n", file, lineno, cols[i], a[1] > "/dev/stderr"
                continue
            }
            err("no column " cols[i] " in " a[1]); return ""
        }
        out = out "| " hdrs[i] " "; w[i] = lw[i] = longest_word(hdrs[i]); sp[i] = 0
    }
    # A wide table wraps to the text width with column widths in proportion
    # to the dashes of its separator line (pandoc): as many as the widest cell.
    body = ""
    for (r = 1; r <= csvrows[a[1]]; r++) {
        for (i = 1; i <= n; i++) {
            if (!(c = csvcol[a[1], cols[i]])) continue
            v = fmt(fmts[i], csvcell[a[1], r, c]); if (length(v) > w[i]) w[i] = length(v)
            if (longest_word(v) > lw[i]) lw[i] = longest_word(v)
            if (index(v, " ")) sp[i] = 1
            body = body "| " v " "
        }
        body = body "|\n"
    }
    # Too wide for the text (about 74 characters of the separator line, what
    # pandoc wraps past 72): the columns whose cells have spaces wrap, the
    # others (numbers) keep their widest cell and a character to spare, as a
    # header word such as "upload" prints wider than as many digits; a
    # wrapping column keeps at least its longest word.  All doubled, so that
    # the line stays past 72 and pandoc keeps the proportions.
    len = 1; fixed = 0; wide = 0; k = 0
    for (i = 1; i <= n; i++) if (csvcol[a[1], cols[i]]) { len += w[i] + 2; if (sp[i]) wide += w[i]; else fixed += w[i] + 2; k++ }
    if (len > 72 && wide > 0) {
        for (i = 1; i <= n; i++) {
            if (!csvcol[a[1], cols[i]]) continue
            if (!sp[i]) w[i] = 2 * (w[i] + 1)
            else { v = int(w[i] * (74 - fixed - k) / wide); w[i] = 2 * (v > lw[i] + 1 ? v : lw[i] + 1) }
        }
    }
    for (i = 1; i <= n; i++) {
        if (!csvcol[a[1], cols[i]]) continue
        sep = sep (i == 1 ? "|:" : "|") dashes(w[i] < 3 ? 3 : w[i]) (i == 1 ? "" : ":")
    }
    out = out "|\n" sep "|\n" body
    return out "\n: Measured: " csvprov[a[1]] ". Source: `" a[1] "`.\n"
}
function directives(s,    out, i, j, d) {
    gsub(/figures\/data\/\$GPU\//, "figures/data/" gpu "/", s)   # the GPU the book shows (make pdf GPU=)
    out = ""
    while ((i = index(s, "{{csv")) > 0) {
        j = index(substr(s, i), "}}")
        if (!j) { err("unterminated {{csv directive"); break }
        d = substr(s, i + 2, j - 3)
        out = out substr(s, 1, i - 1)
        if (d ~ /^csvtable:/) out = out csvtable(substr(d, 10))
        else if (d ~ /^csv:/) out = out csvvalue(substr(d, 5))
        else if (d ~ /^csvdiv:/) out = out csvdiv(substr(d, 8))
        else if (d ~ /^csvmul:/) out = out csvmul(substr(d, 8))
        else err("unknown directive {{" d "}}")
        s = substr(s, i + j + 1)
    }
    return out s
}

# ---- pass 1: read the whole stream, number the chunks --------------------
{ tok[++ntok] = $0 }
$1 == "@fatal" { print "noweb: " substr($0, 8) > "/dev/stderr"; fatal = 1 }
$1 == "@begin" && $2 == "code" { nchunks++ ; incode = 1 }
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

# ---- pass 2: write Markdown ----------------------------------------------
END {
    if (fatal) exit 2
    n = 0; incode = 0; out = ""
    for (t = 1; t <= ntok; t++) {
        $0 = tok[t]
        if ($1 == "@file") {
            if (docline != "") { print directives(docline); docline = "" }
            if (file != "") printf "\n"     # a chapter's first heading needs a blank line
            if (format == "html") printf "%s", raw("<!-- nwfile " substr($0, 7) " -->")   # where the web edition starts a page
            file = substr($0, 7); lineno = 1; continue
        }
        if ($1 == "@nl" || ($1 == "@index" && $2 == "nl")) {
            if ($1 == "@nl") {
                if (incode && skipnl) skipnl = 0
                else if (incode) printf "\n"
                else { printf "%s\n", directives(docline); docline = "" }
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
            else docline = docline "\342\237\250" u " " first[u] "\342\237\251"
            continue
        }
    }
    if (docline != "") print directives(docline)
    write_indexes()
    exit errors ? 1 : 0
}

function begin_chunk(k, name,    wrong, sign) {
    wrong = name ~ /^Wrong on purpose/
    if (format == "html")
        printf "%s\n~~~~~~~~ {.cuda}\n", raw("<div class=\"nwchunk\" id=\"nw" k "\"><div class=\"nwhead\"><a class=\"nwnum\" href=\"#nw" k "\">" k "</a> &#x27E8;" (first[name] == k ? html(name) : "<a href=\"#nw" first[name] "\">" html(name) "</a>") "&#x27E9;" \
               (first[name] == k ? "&#x2261;" : "+&#x2261;") (wrong ? " <span class=\"nwwrong\">WRONG ON PURPOSE</span>" : "") "</div>")
    else
        printf "%s\n~~~~~~~~ {.cuda}\n", raw("\\nwbegin{" k "}{" tex(name) "}{" (first[name] == k ? "\\nwdefsign" : "\\nwplussign") "}{" (wrong ? "\\nwwrong" : "") "}")
}
function end_chunk(k,    name, foot, a, m, i) {
    name = cnum[k]
    foot = ""
    if (chunkdefs[k] != "") {
        m = split(chunkdefs[k], a, " ")
        for (i = 1; i <= m; i++)
            foot = foot (i > 1 ? ", " : "Defines ") code(a[i]) (minus(iduse[a[i]], iddef[a[i]]) != "" ? " (used in " links(minus(iduse[a[i]], iddef[a[i]])) ")" : "")
        foot = foot ". "
    }
    if (cont[k] != "") foot = foot "Continued in " links(cont[k]) ". "
    if (first[name] == k && usedin[name] != "") foot = foot "Used in " links(usedin[name]) ". "
    if (first[name] == k && usedin[name] == "" && name ~ /\//) foot = foot "Root chunk: the file " code(name) ". "
    printf "~~~~~~~~\n%s\n", raw(format == "html" ? "<div class=\"nwfoot\">" foot "</div></div>" : "\\nwend{" foot "}")
}
function write_indexes(    i, k, names, ids, m, out) {
    m = 0; for (nm in first) names[++m] = nm
    asort(names)
    out = format == "html" ? "<!-- nwfile index -->\n<h1 id=\"index-of-chunks\">Index of chunks</h1>\n<ul class=\"nwindex\">" : "\\nwindexchunks"
    for (i = 1; i <= m; i++)
        out = out "\n" (format == "html" ? "<li>&#x27E8;" html(names[i]) "&#x27E9;: " links(defs[names[i]]) (usedin[names[i]] == "" ? "" : "; used in " links(usedin[names[i]])) "</li>" \
                                           : "\\nwchunkentry{" tex(names[i]) "}{" links(defs[names[i]]) "}{" (usedin[names[i]] == "" ? "" : links(usedin[names[i]])) "}")
    out = out "\n" (format == "html" ? "</ul>\n<h1 id=\"index-of-identifiers\">Index of identifiers</h1>\n<ul class=\"nwindex\">" : "\\nwindexidents")
    m = 0; for (k in idlist) ids[++m] = k
    asort(ids)
    for (i = 1; i <= m; i++)
        out = out "\n" (format == "html" ? "<li>" code(ids[i]) ": defined in " links(iddef[ids[i]]) (minus(iduse[ids[i]], iddef[ids[i]]) == "" ? "" : "; used in " links(minus(iduse[ids[i]], iddef[ids[i]]))) "</li>" \
                                           : "\\nwidentry{" tex(ids[i]) "}{" links(iddef[ids[i]]) "}{" links(minus(iduse[ids[i]], iddef[ids[i]])) "}")
    out = out "\n" (format == "html" ? "</ul>" : "\\nwindexend")
    printf "%s", raw(out)
}
