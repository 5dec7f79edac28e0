# html-pre.awk -- the woven Markdown (nw2md.awk -v format=html) made ready
# for pandoc's HTML writer: the web edition's only departure from the PDF's
# path, and it adds no text of its own.
#
#   ... | gawk -f tools/html-pre.awk -v figlist=F -v macros=M > book.md
#
# - A raw LaTeX figure (\begin{figure} ... \input{figures/NAME.tex}
#   \caption{...}\label{...}) becomes an HTML <figure> with the SVG that
#   tools/html-figs.sh draws from the same TikZ source (fig/NAME.svg), its
#   number (chapter.k, as LaTeX counts them) and its caption in Markdown;
#   a \provenance{...} in it (where the measurement comes from) a line of
#   its own under the caption, a span of class provenance.
#   \IfFileExists on a data file behaves as in the PDF.  The figures' names
#   go to figlist, one a line, in order.
# - The other raw LaTeX blocks (the chapters' \newcommand lines, which the
#   figures use) go to macros, for the figures' document; pandoc would drop
#   them from HTML anyway.
# - \ref{label} in prose becomes a link whose text is the number LaTeX
#   prints: a chapter's, a section's (numbered as pandoc --number-sections
#   numbers them) or a figure's.  An unknown label is an error.
# Exit status 1 on any error.

function err(msg) { printf "html-pre: line %d: %s\n", ln, msg > "/dev/stderr"; errors++ }
function exists(path,    line, r) { r = (getline line < path); close(path); return r >= 0 }

# The figure in a raw LaTeX block: sets fig_name, fig_label, fig_caption,
# fig_show (0: left out, as \IfFileExists{missing}{figure}{} leaves it out;
# 1: drawn; 2: its data missing, shown as "not yet measured").
function parse_figure(s,    m, rest, depth, i, c) {
    fig_name = fig_label = fig_caption = ""; fig_show = 1
    if (match(s, /^[ \t]*\\IfFileExists\{[^}]*\}\{%?[ \t]*\\begin\{figure\}/)) {
        match(s, /\\IfFileExists\{[^}]*\}/); if (!exists(substr(s, RSTART + 14, RLENGTH - 15))) { fig_show = 0; return }
    } else if (match(s, /\\IfFileExists\{[^}]*\}\{\\input/)) {
        match(s, /\\IfFileExists\{[^}]*\}/); if (!exists(substr(s, RSTART + 14, RLENGTH - 15))) fig_show = 2
    }
    if (match(s, /\\input\{figures\/[^}]*\.tex\}/)) fig_name = substr(s, RSTART + 15, RLENGTH - 20)
    else err("a figure without \\input{figures/NAME.tex}")
    if (match(s, /\\label\{[^}]*\}/)) fig_label = substr(s, RSTART + 7, RLENGTH - 8)
    if ((i = index(s, "\\caption{")) == 0) { err("figure " fig_name " has no \\caption"); return }
    rest = substr(s, i + 9); depth = 1
    for (i = 1; i <= length(rest) && depth > 0; i++) {
        c = substr(rest, i, 1)
        if (c == "\\") { i++; continue }
        if (c == "{") depth++; else if (c == "}") depth--
    }
    fig_caption = substr(rest, 1, i - 2)
}

# A caption's \provenance{...} (tools/preamble.tex: where a measurement comes
# from, on a small line of its own) as a line break and a span of class
# provenance, after the caption's own text; the rest as tex2md writes it.
function caption2md(s,    i, rest, depth, k, c, prov, after) {
    if ((i = index(s, "\\provenance{")) == 0) return tex2md(s)
    rest = substr(s, i + 12); depth = 1
    for (k = 1; k <= length(rest) && depth > 0; k++) {
        c = substr(rest, k, 1)
        if (c == "\\") { k++; continue }
        if (c == "{") depth++; else if (c == "}") depth--
    }
    if (depth > 0) { err("\\provenance{ without its closing brace"); return tex2md(s) }
    prov = substr(rest, 1, k - 2); after = substr(rest, k)
    sub(/[ \t]+$/, "", prov); sub(/^[ \t]+/, "", after)
    if (index(after, "\\provenance{")) err("a caption with two \\provenance")
    s = substr(s, 1, i - 1); sub(/[ \t]+$/, "", s)
    return tex2md(s) (after == "" ? "" : " " tex2md(after)) (s == "" && after == "" ? "" : "<br>") "[" tex2md(prov) "]{.provenance}"
}
# LaTeX caption text to Markdown: math stays math; \texttt, \_, ~, \dots, \ref.
function tex2md(s,    out, parts, n, k, t) {
    n = split(s, parts, "$"); out = ""
    for (k = 1; k <= n; k++) {
        t = parts[k]
        if (k % 2 == 0) { out = out "$" t "$"; continue }
        while (match(t, /\\texttt\{[^}]*\}/)) {
            c = substr(t, RSTART + 8, RLENGTH - 9); gsub(/\\_/, "_", c)
            t = substr(t, 1, RSTART - 1) "`" c "`" substr(t, RSTART + RLENGTH)
        }
        gsub(/~/, "\302\240", t); gsub(/\\dots/, "\342\200\246", t); gsub(/\\%/, "%", t)
        out = out refs(t)
    }
    return out
}
function refs(s,    out, lab) {
    out = ""
    while (match(s, /\\ref\{[^}]*\}/)) {
        lab = substr(s, RSTART + 5, RLENGTH - 6)
        if (!(lab in num)) { err("\\ref{" lab "}: no such label"); out = out substr(s, 1, RSTART + RLENGTH - 1) }
        else out = out substr(s, 1, RSTART - 1) "[" num[lab] "](#" lab ")"
        s = substr(s, RSTART + RLENGTH)
    }
    return out s
}

# A chapter's number as LaTeX prints it: after \appendix, A, B, ...
function chapter_name(k) { return (app_from && k >= app_from) ? sprintf("%c", 64 + k - app_from + 1) : k }
# ---- pass 1: read everything; number chapters, sections and figures -------
{ line[++nl] = $0 }
END {
    fence = ""
    for (ln = 1; ln <= nl; ln++) {
        s = line[ln]
        if (fence == "" && match(s, /^(```+|~~~+)/)) {
            fence = substr(s, 1, RLENGTH); kind[ln] = (s ~ /^```\{=latex\}/) ? "latex" : "code"
            start = ln; body = ""; continue
        }
        if (fence != "") {
            if (s ~ ("^" fence "[ \t]*$")) {
                if (kind[start] == "latex") { blockend[start] = ln; rawtex[start] = body }
                # \appendix: later chapters are lettered A, B, ... as LaTeX does
                if (kind[start] == "latex" && body ~ /^[ \t]*\\appendix[ \t]*$/) app_from = sec[1] + 1
                fence = ""
                if (kind[start] == "latex" && index(body, "\\begin{figure}")) {
                    parse_figure(body)
                    if (fig_show) { nfig++; figno = (chapter ? chapter "." (++figk) : ++figk); figat[start] = figno
                                    if (fig_label != "") num[fig_label] = figno }
                    else figat[start] = "none"
                }
            } else body = body (body == "" ? "" : " ") s
            continue
        }
        if (match(s, /^#+ /)) {
            lvl = RLENGTH - 1
            unnum = s ~ /\{([^}]* )?(-|\.unnumbered)( [^}]*)?\}[ \t]*$/
            if (!unnum) {
                sec[lvl]++; for (k = lvl + 1; k <= 6; k++) sec[k] = 0
                if (lvl == 1) { chapter = chapter_name(sec[1]); figk = 0 }
                n = chapter_name(sec[1]); for (k = 2; k <= lvl; k++) n = n "." sec[k]
            } else { n = ""; if (lvl == 1) { chapter = 0; figk = 0 } }
            if (match(s, /\{#[^ }]+/)) { lab = substr(s, RSTART + 2, RLENGTH - 2); if (n != "") num[lab] = n }
        }
    }
    if (fence != "") err("unterminated fence opened at line " start)

# ---- pass 2: write ----------------------------------------------------------
    fence = ""
    for (ln = 1; ln <= nl; ln++) {
        s = line[ln]
        if (ln in blockend) {
            b = rawtex[ln]
            if (ln in figat) {
                if (figat[ln] != "none") {
                    parse_figure(b)
                    printf "```{=html}\n<figure class=\"nwfig\"%s>\n", (fig_label != "" ? " id=\"" fig_label "\"" : "")
                    if (fig_show == 1) { printf "<a class=\"figlink\" href=\"fig/%s.svg\" title=\"The figure alone, to zoom\"><img src=\"fig/%s.svg\" alt=\"Figure %s\"></a>\n", fig_name, fig_name, figat[ln]; print fig_name > figlist }
                    else printf "<p class=\"nwmissing\">[not yet measured]</p>\n"
                    printf "<figcaption>\n```\n\n**Figure %s.** %s\n\n```{=html}\n</figcaption>\n</figure>\n```\n", figat[ln], caption2md(fig_caption)
                }
            } else if (b ~ /^[ \t]*\\appendix[ \t]*$/) {
                # tells html-site.awk to letter the chapters from here on
                printf "```{=html}\n<!-- appendix -->\n```\n"
            } else if (b ~ /\\newcommand/) {
                for (k = ln + 1; k < blockend[ln]; k++) print line[k] > macros
            }
            ln = blockend[ln]; continue
        }
        if (fence == "" && match(s, /^(```+|~~~+)/)) { fence = substr(s, 1, RLENGTH); print s; continue }
        if (fence != "") { if (s ~ ("^" fence "[ \t]*$")) fence = ""; print s; continue }
        print (index(s, "\\ref{") ? refs(s) : s)
    }
    if (figlist != "") close(figlist)
    if (macros != "") close(macros)
    exit errors ? 1 : 0
}
