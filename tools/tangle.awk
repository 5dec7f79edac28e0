# tangle.awk -- the book's tangler, reading noweb's markup stream.
#
#   markup chapters/*.nw | awk -f tools/tangle.awk -v mode=MODE [-v root=R]
#                                             [-v lines=1] [-v width=W]
#
# MODE is one of
#   roots   print every root chunk whose name is a file path, one a line
#   tangle  write root R to standard output; with lines=1, add #line
#           directives so that compiler messages name the chapter line
#   check   report, as FILE:LINE: message, every chunk used but never
#           defined, every chunk defined but never used (file roots
#           excepted), and every code line wider than W columns
#
# Every expanded chunk in a C-family file is preceded by a comment that
# names it, so the tangled file reads well on its own.
# The exit status is 1 after any error, 2 on a @fatal in the stream.

function fail(where, msg) { printf "%s: %s\n", where, msg > "/dev/stderr"; errors++ }
function isfile(name) { return name ~ /^[A-Za-z0-9_.\/-]+\.[A-Za-z]+$/ && name ~ /\// }

# Append a token (T text, U use) to the current chunk part, with its line.
function addtok(k, v) {
    ntok[part]++; kind[part, ntok[part]] = k; val[part, ntok[part]] = v
    src[part, ntok[part]] = lineno; srcf[part] = file
}

BEGIN { lineno = 0; incode = 0; nparts = 0; errors = 0 }

$1 == "@fatal" { print "noweb: " substr($0, 8) > "/dev/stderr"; fatal = 1; exit 2 }
$1 == "@file"  { file = substr($0, 7); lineno = 1; next }
$1 == "@begin" && $2 == "code" { incode = 1; cur = ""; curlen = 0; next }
$1 == "@end"   && $2 == "code" { incode = 0; next }
$1 == "@defn" {
    name = substr($0, 7)
    defined[name] = 1
    if (!(name in firstdef)) { firstdef[name] = file ":" lineno; order[++nnames] = name }
    part = ++nparts
    nparts_of[name]++
    partlist[name, nparts_of[name]] = part
    ntok[part] = 0
    next
}
$1 == "@text" && incode { t = substr($0, 7); addtok("T", t); curlen += length(t); next }
$1 == "@use" && incode {
    u = substr($0, 6)
    addtok("U", u)
    used[u] = 1
    if (!(u in firstuse)) firstuse[u] = file ":" lineno
    curlen += length(u) + 4
    next
}
$1 == "@nl" {
    if (incode && part) {
        if (ntok[part] == 0 && !(part in headdone)) { headdone[part] = 1; lineno++; next }
        ntok[part]++; kind[part, ntok[part]] = "N"; src[part, ntok[part]] = lineno
        if (mode == "check" && curlen > width + 0 && width + 0 > 0)
            fail(file ":" lineno, "code line is " curlen " columns wide, the page holds " width)
        curlen = 0
    }
    lineno++
    next
}
$1 == "@index" && $2 == "nl" { lineno++; next }

# Emit one finished output line, with a #line directive when the source
# position does not simply continue from the line before.
function emit(text, sfile, sline) {
    if (lines && sfile != "" && (sfile != lastf || sline != lastl + 1))
        printf "#line %d \"%s\"\n", sline, sfile
    print text
    lastout = text; nout++
    if (sfile != "") { lastf = sfile; lastl = sline }
}

# Is the use at token I of part P the only thing on its line?
function alone(p, i,    j) {
    for (j = i + 1; j <= ntok[p] && kind[p, j] != "N"; j++)
        if (kind[p, j] != "T" || val[p, j] !~ /^[ \t]*$/) return 0
    return 1
}

# Expand chunk NAME; PREFIX is the indentation that every line after the
# first inherits; the text of the current output line is in `line'.
function expand(name, prefix, depth,    p, i, k, t, n, last, pi) {
    if (!(name in defined)) return
    if (depth > 50) { fail(firstdef[name], "chunk <<" name ">> uses itself"); return }
    n = nparts_of[name]
    for (pi = 1; pi <= n; pi++) {
        p = partlist[name, pi]
        for (i = 1; i <= ntok[p]; i++) {
            k = kind[p, i]
            if (pi == n && i == ntok[p] && k == "N") break   # the final newline belongs to the user
            if (k == "T") {
                if (linef == "") { linef = srcf[p]; linel = src[p, i] }
                line = line val[p, i]
            } else if (k == "N") {
                emit(line, linef, linel); line = prefix; linef = ""
            } else if (k == "U") {
                t = val[p, i]
                if (!(t in defined)) continue
                if (line ~ /^[ \t]*$/) linef = ""    # the line's position comes from the use
                if (comments && line ~ /^[ \t]*$/ && alone(p, i)) {
                    if (line == "" && lastout != "" && nout > 0) emit("", "", 0)
                    emit(line "// " "<<" t ">>", "", 0)
                    lastl = -10        # force a #line before the next real line
                }
                expand(t, line ~ /^[ \t]*$/ ? line : sprintf("%*s", length(line), ""), depth + 1)
            }
        }
    }
}

END {
    if (fatal) exit 2
    for (u in used) if (!(u in defined)) fail(firstuse[u], "chunk <<" u ">> is used but never defined")
    if (mode == "roots") {
        for (i = 1; i <= nnames; i++) if (!(order[i] in used) && isfile(order[i])) print order[i]
    } else if (mode == "check") {
        for (i = 1; i <= nnames; i++)
            if (!(order[i] in used) && !isfile(order[i]))
                fail(firstdef[order[i]], "chunk <<" order[i] ">> is defined but never used")
    } else if (mode == "tangle") {
        if (!(root in defined)) { fail("tangle", "no chunk named <<" root ">>"); exit 1 }
        comments = (root ~ /\.(cu|cuh|h|c|cpp|hpp)$/)
        line = ""; linef = ""
        expand(root, "", 0)
        if (line != "") emit(line, linef, linel)
    }
    exit errors ? 1 : 0
}
