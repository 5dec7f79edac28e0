# csv.awk -- the book's one reader of its measurement CSVs (figures/data/<gpu>/
# *.csv: '#' provenance lines, a column line, then rows; no quoted commas),
# and the {{csv}} directives that draw them into the prose.  A library:
# weave.sh loads it before nw2md.awk, csvget.sh on its own.  POSIX awk.
#
# The reader:
#   csv_load(path)   1 when the file has a column line; its rows in
#                    csvcell[path, row, col], csvcol[path, name] = col,
#                    csvrows[path], and the provenance in csvprov[path]
#                    (its # lines joined by "; "), each line also in
#                    csvprovline[path, 1..csvprovn[path]]
#   csv_find(path, keycol, key, col)   the row whose keycol is key, or 0;
#                    csv_status says why not: "col" (no such column), "row"
#
# The directives: csv_directives(s) is the line s of documentation with
# each directive replaced by what it stands for:
#   {{csv:FILE:KEYCOL=KEY:COL:FORMAT}}          one value, inline
#   {{csvdiv:FILE:K=A:COL:K=B:COL:FORMAT}}      the ratio of two values, inline
#   {{csvmul:FILE:K=A:COL:FACTOR:FORMAT}}       a value times FACTOR (n or n/m;
#                                               n and m products a*b of numbers,
#                                               device facts such as sms, and
#                                               NAME.csv!K=A!COL of the same GPU)
#   {{csvtable:FILE:COLS:HEADERS:FORMATS:CAPTION}}  a whole table, on its own
#                                               line, captioned (CAPTION, no colon,
#                                               Markdown and $math$, may be left out)
# (COLS, HEADERS and FORMATS are comma-separated; a FORMAT is printf's, or
# "s" for the text as written).  The table's caption is CAPTION, then the
# provenance of FILE on a small line of its own (csv_provenance): in the
# PDF the LaTeX \provenance{...} of tools/preamble.tex, on the web (-v
# format=html) a line break and a span of class "provenance".  figures/data/$GPU/ in FILE is the GPU the
# book shows (-v gpu=SLUG).  A missing file, row or column is an error: a
# message FILE:LINE: ... on stderr, where file and lineno are the caller's
# (the chapter and line being woven), and errors counted in errors.
# With -v draft=1 (make pdf DRAFT=1) a missing CSV file or row, or a column
# missing from a file that has the key column, is a warning and the text
# says "not yet measured" (a table leaves the column out); the default, for

# ---- the reader ------------------------------------------------------------
# the real book, is an error.
function csv_load(path,    line, n, k, i, hdr, f) {
    if (path in csvrows) return 1
    n = 0; hdr = 0; csvprov[path] = ""; csvprovn[path] = 0
    while ((getline line < path) > 0) {
        if (line ~ /^#/) {
            sub(/^# */, "", line); csvprov[path] = csvprov[path] (csvprov[path] == "" ? "" : "; ") line
            csvprovline[path, ++csvprovn[path]] = line; continue
        }
        if (line ~ /^[ \t]*$/) continue
        k = split(line, f, ",")
        if (!hdr) { hdr = 1; for (i = 1; i <= k; i++) csvcol[path, f[i]] = i; continue }
        n++; for (i = 1; i <= k; i++) csvcell[path, n, i] = f[i]
    }
    close(path)
    if (!hdr) return 0
    csvrows[path] = n
    return 1
}
function csv_find(path, keycol, key, col,    r, kc) {
    kc = csvcol[path, keycol]; csv_status = ""
    if (!kc || !csvcol[path, col]) { csv_status = "col"; return 0 }
    for (r = 1; r <= csvrows[path]; r++) if (csvcell[path, r, kc] == key) return r
    csv_status = "row"; return 0
}

# ---- the directives --------------------------------------------------------
function csv_err(msg) { printf "%s:%d: %s\n", file, lineno, msg > "/dev/stderr"; errors++ }
function csv_need(path) {           # csv_load (tools/csv.awk), with the book's messages
    if (csv_load(path)) return 1
    if (draft) { printf "%s:%d: warning: no data in %s yet (draft)\n", file, lineno, path > "/dev/stderr"; return 0 }
    csv_err("no data in " path " (run make bench on a GPU, or restore the file)"); return 0
}
BEGIN { csv_unmeasured = "[not yet measured]" }   # what a draft shows instead
function csv_fmt(f, v) { return f == "s" || f == "" || v == "-" ? v : sprintf(f, v) }   # "-": not applicable, printed as is
function csv_value(spec,    a, kv, r) {
    split(spec, a, ":")               # file, key=value, column, format
    if (!csv_need(a[1])) return "[not yet measured]"
    split(a[2], kv, "=")
    if ((r = csv_find(a[1], kv[1], kv[2], a[3]))) return csv_fmt(a[4], csvcell[a[1], r, csvcol[a[1], a[3]]])
    if (csv_status == "col") {
        if (draft && csvcol[a[1], kv[1]]) {   # a column the next run adds
            printf "%s:%d: warning: no column %s in %s yet (draft)\n", file, lineno, a[3], a[1] > "/dev/stderr"
            return "[not yet measured]"
        }
        csv_err("no column " (csvcol[a[1], kv[1]] ? a[3] : kv[1]) " in " a[1]); return "??"
    }
    if (draft) {      # a row not measured yet: a warning in a draft
        printf "%s:%d: warning: no row %s in %s yet (draft)\n", file, lineno, a[2], a[1] > "/dev/stderr"
        return "[not yet measured]"
    }
    csv_err("no row " a[2] " in " a[1]); return "??"
}
function csv_div(spec,    a, x, y) {       # FILE:K=A:COL:K=B:COL:FORMAT
    split(spec, a, ":")
    x = csv_value(a[1] ":" a[2] ":" a[3] ":s"); y = csv_value(a[1] ":" a[4] ":" a[5] ":s")
    if (x == csv_unmeasured || y == csv_unmeasured) return csv_unmeasured   # draft only
    if (x !~ /^[-+0-9.eE]+$/ || y !~ /^[-+0-9.eE]+$/ || y + 0 == 0) {
        csv_err("csvdiv: no ratio of " x " and " y); return "??"
    }
    return csv_fmt(a[6], x / y)
}
# A product of factors a*b*c, each a number, the name of a fact of the
# GPU's device file (figures/data/GPU/FACTS, FACTS from book.yaml's
# build: device-facts, passed by tools/weave.sh as -v facts=; e.g. sms), so
# that a per-SM figure does not type the SM count, or a value of another
# file of the same GPU written NAME.csv!KEYCOL=KEY!COL.
function csv_product(t,    p, k, i, v, r) {
    k = split(t, p, "*"); v = 1
    for (i = 1; i <= k; i++) {
        if (p[i] ~ /^[A-Za-z_][A-Za-z_0-9]*$/)
            p[i] = csv_value("figures/data/" gpu "/" facts ":fact=" p[i] ":value:s")
        else if (split(p[i], r, "!") == 3)
            p[i] = csv_value("figures/data/" gpu "/" r[1] ":" r[2] ":" r[3] ":s")
        if (p[i] == csv_unmeasured) return csv_unmeasured
        if (p[i] !~ /^[-+0-9.eE]+$/) { csv_err("csvmul: factor " p[i] " is not a number"); return csv_unmeasured }
        v *= p[i]
    }
    return v
}
function csv_mul(spec,    a, x, q, n, m) {  # FILE:K=A:COL:FACTOR:FORMAT, FACTOR n or n/m
    split(spec, a, ":")
    x = csv_value(a[1] ":" a[2] ":" a[3] ":s")
    if (x == csv_unmeasured) return csv_unmeasured                      # draft only
    split(a[4], q, "/"); n = csv_product(q[1]); m = q[2] == "" ? 1 : csv_product(q[2])
    if (n == csv_unmeasured || m == csv_unmeasured) return csv_unmeasured
    if (x !~ /^[-+0-9.eE]+$/) { csv_err("csvmul: " x " is not a number"); return "??" }
    return csv_fmt(a[5], x * n / m)
}
function csv_longest_word(h,    p, k, m) { m = 0; k = split(h, p, " "); while (k > 0) { if (length(p[k]) > m) m = length(p[k]); k-- }; return m }
function csv_dashes(k,    d) { d = ""; while (k-- > 0) d = d "-"; return d }
function csv_table(spec,    a, cols, hdrs, fmts, n, i, r, c, out, sep, w, v, body, lw, sp, len, fixed, wide, k) {
    if (split(spec, a, ":") > 5) { csv_err("csvtable: a colon in the caption (FILE:COLS:HEADERS:FORMATS:CAPTION; write the caption without one)"); return "" }
    if (!csv_need(a[1])) return "*[Table not yet measured: " a[1] "]*\n"
    n = split(a[2], cols, ","); split(a[3], hdrs, ","); split(a[4], fmts, ",")
    out = ""; sep = ""
    for (i = 1; i <= n; i++) {
        if (!csvcol[a[1], cols[i]]) {
            if (draft && i > 1) {     # a column the next run adds: left out
                printf "%s:%d: warning: no column %s in %s yet (draft)\n", file, lineno, cols[i], a[1] > "/dev/stderr"
                continue
            }
            csv_err("no column " cols[i] " in " a[1]); return ""
        }
        out = out "| " hdrs[i] " "; w[i] = lw[i] = csv_longest_word(hdrs[i]); sp[i] = 0
    }
    # A wide table wraps to the text width with column widths in proportion
    # to the dashes of its separator line (pandoc): as many as the widest cell.
    body = ""
    for (r = 1; r <= csvrows[a[1]]; r++) {
        for (i = 1; i <= n; i++) {
            if (!(c = csvcol[a[1], cols[i]])) continue
            v = csv_fmt(fmts[i], csvcell[a[1], r, c]); if (length(v) > w[i]) w[i] = length(v)
            if (csv_longest_word(v) > lw[i]) lw[i] = csv_longest_word(v)
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
        sep = sep (i == 1 ? "|:" : "|") csv_dashes(w[i] < 3 ? 3 : w[i]) (i == 1 ? "" : ":")
    }
    out = out "|\n" sep "|\n" body
    return out "\n: " csv_caption(a[5], csv_provenance(a[1])) "\n"
}
# The caption of a table: CAPTION (Markdown, as written), then PROV on a
# line of its own, small: in LaTeX through \provenance (raw LaTeX around
# Markdown, so that pandoc still escapes PROV); in HTML after a line break,
# in a span of class provenance (a raw <br>: pandoc's own line break would
# start a new line of HTML inside the <caption>).  Without a CAPTION (allowed until every
# table has one), PROV is the caption, as it was before captions.
function csv_caption(cap, prov) {
    sub(/^[ \t]+/, "", cap); sub(/[ \t]+$/, "", cap)
    if (cap == "") return prov
    if (format == "html") return cap "<br>[" prov "]{.provenance}"
    return cap " `\\provenance{`{=latex}" prov "`}`{=latex}"
}
# Markdown text that pandoc prints as written: its punctuation escaped.
function csv_md(s) { gsub(/[][\\`*_{}<>#|$^~@]/, "\\\\&", s); return s }
# The provenance of a data file, from its # lines (tools/provenance.sh
# writes them): the GPU, driver and toolkit, the date, the commit and where
# a reader finds that commit, the file, then the file's other lines (the
# device, the tool, notes) as they are.  Markdown.
function csv_provenance(path,    i, k, v, p, g, rest) {
    delete p; rest = ""
    for (i = 1; i <= csvprovn[path]; i++) {
        v = csvprovline[path, i]
        if (match(v, /^[a-z_]+: /) && (k = substr(v, 1, RLENGTH - 2)) ~ /^(gpu|driver|cuda|date|commit)$/ && !(k in p))
            p[k] = substr(v, RLENGTH + 1)
        else rest = rest "; " csv_md(v)
    }
    g = "Measured"
    if ("gpu" in p) g = g " on " csv_md(p["gpu"])
    if ("driver" in p || "cuda" in p)
        g = g " (" ("driver" in p ? "driver " csv_md(p["driver"]) : "") ("driver" in p && "cuda" in p ? ", " : "") ("cuda" in p ? "CUDA " csv_md(p["cuda"]) : "") ")"
    if ("date" in p) g = g ", " csv_md(p["date"])
    if ("commit" in p) g = g ", at commit " csv_md(p["commit"]) " (git history: `history.bundle` in the book's source archive)"
    return g ". Data `" path "`" rest "."
}
function csv_directives(s,    out, i, j, d) {
    gsub(/figures\/data\/\$GPU\//, "figures/data/" gpu "/", s)   # the GPU the book shows (make pdf GPU=)
    out = ""
    while ((i = index(s, "{{csv")) > 0) {
        j = index(substr(s, i), "}}")
        if (!j) { csv_err("unterminated {{csv directive"); break }
        d = substr(s, i + 2, j - 3)
        out = out substr(s, 1, i - 1)
        if (d ~ /^csvtable:/) out = out csv_table(substr(d, 10))
        else if (d ~ /^csv:/) out = out csv_value(substr(d, 5))
        else if (d ~ /^csvdiv:/) out = out csv_div(substr(d, 8))
        else if (d ~ /^csvmul:/) out = out csv_mul(substr(d, 8))
        else csv_err("unknown directive {{" d "}}")
        s = substr(s, i + j + 1)
    }
    return out s
}

