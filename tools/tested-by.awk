# tested-by.awk -- which registered cmocka tests reach which launchers.
#
#   gawk -f tools/tested-by.awk -v mode=map|check SLUG:h:HEADER... SLUG:t:TEST.c...
#
# (tools/tested-by.sh names the files.)  A launcher is a function declared
# at file scope in a chapter header (tangled/SLUG/*.h) with C linkage: a
# declaration ending in ';', not a macro, typedef, static or inline
# function, nor anything under #ifdef __cplusplus.  The tests are the
# chapter's own tests/SLUG/test_*.c.  Each test file's top-level
# definitions (functions, static tables and variables, #define macros;
# also those of the headers of tests/SLUG/ that it includes) are nodes of a
# graph with an edge from a definition to every identifier its text
# mentions; a launcher is reached by the tests registered in main
# (cmocka_unit_test(NAME) and its _setup, _teardown and _prestate forms,
# whose setup and teardown count as part of the test) from which it is
# reachable.  Only a chapter's own tests count: attention's tests call
# matmul's launchers, but matmul's launchers are tested by matmul's tests.
#
# The graph over-approximates: a table is one node, so a test that runs
# one entry of it (transpose's naive_all_shapes runs all_shapes(0), which
# indexes the table of variants) reaches every launcher in it; names are
# not scoped (a local variable named like a top-level definition is an
# edge to it); static definitions of the same name in two files of one
# chapter are one node.
# It does not expand macros: a test registered by a macro, or a launcher
# named by token pasting (matmul_ ## name), is not seen.
#
# mode=map (the default): SLUG<TAB>LAUNCHER<TAB>TEST TEST ..., one line a
# launcher in the book's order (chapters, headers, declarations), the tests
# in the order of their registration, empty when none reaches it.
# mode=check: FILE:LINE: launcher NAME is declared but no test in
# tests/SLUG calls it, for each such launcher; exit status 1 if any.

# ---- reading C: comments, strings and preprocessor lines -----------------
# lex(path, kind, slug): the tokens of a file into tk[], tkline[], tkfile[]
# (identifiers, numbers, "" for a string, '' for a character, operators);
# a #define is a token "#define" followed by its name and body, ended by
# a token "#end"; #include "x.h" of a file in tests/SLUG/ is read in its
# place (once a chapter).  In a header, what #ifdef __cplusplus guards is
# left out.
function lex(path, kind, slug,    line, more, n, ln, cpp, depth, d, i, stack, inc, dir) {
    ln = 0; depth = 0; incomment = 0
    dir = path; sub(/[^\/]*$/, "", dir)
    while ((getline line < path) > 0) {
        ln++
        if (!incomment && line ~ /^[ \t]*#/) {
            while (line ~ /\\$/ && (getline more < path) > 0) { ln++; line = substr(line, 1, length(line) - 1) " " more }
            inc = line; line = strip(line)
            d = line; sub(/^[ \t]*#[ \t]*/, "", d)
            if (d ~ /^if/) {
                depth++
                stack[depth] = d ~ /^(ifdef[ \t]+__cplusplus|if[ \t]+(defined[ \t]*\(?[ \t]*)?__cplusplus)([^A-Za-z0-9_]|$)/ ? "cpp" : \
                               d ~ /^(ifndef[ \t]+__cplusplus|if[ \t]+![ \t]*(defined[ \t]*\(?[ \t]*)?__cplusplus)([^A-Za-z0-9_]|$)/ ? "notcpp" : "other"
            } else if (d ~ /^else/) {
                if (stack[depth] == "cpp") stack[depth] = "notcpp"; else if (stack[depth] == "notcpp") stack[depth] = "cpp"
            } else if (d ~ /^elif/) {
                stack[depth] = "other"
            } else if (d ~ /^endif/) {
                if (depth > 0) depth--
            } else if (kind == "h") {
                continue
            } else if (d ~ /^define[ \t]/) {
                sub(/^define[ \t]+/, "", d)
                tok("#define", ln, path); tokens(d, ln, path); tok("#end", ln, path)
            } else if (d ~ /^include[ \t]*"/) {
                sub(/^[ \t]*#[ \t]*include[ \t]*"/, "", inc); sub(/".*/, "", inc)   # the line before strip
                inc = dir inc
                if (!((slug, inc) in included) && (getline more < inc) >= 0) {
                    close(inc); included[slug, inc] = 1
                    lex(inc, "i", slug)
                }
            }
            continue
        }
        line = strip(line)
        cpp = 0
        for (i = 1; i <= depth; i++) if (stack[i] == "cpp") cpp = 1
        if (kind == "h" && cpp) continue
        tokens(line, ln, path)
    }
    close(path)
    incomment = 0
}
# The line without comments (a block comment may go on: incomment), its
# strings as "" and its character constants as ''.
function strip(s,    out, c, i, n, q) {
    out = ""; n = length(s); i = 1
    while (i <= n) {
        if (incomment) {
            if (substr(s, i, 2) == "*/") { incomment = 0; i += 2; out = out " " } else i++
            continue
        }
        c = substr(s, i, 1)
        if (substr(s, i, 2) == "/*") { incomment = 1; i += 2; continue }
        if (substr(s, i, 2) == "//") break
        if (c == "\"" || c == "'") {
            q = c; i++
            while (i <= n && substr(s, i, 1) != q) i += substr(s, i, 1) == "\\" ? 2 : 1
            i++; out = out " " q q " "
            continue
        }
        out = out c; i++
    }
    return out
}
function tok(t, ln, path) { ntk++; tk[ntk] = t; tkline[ntk] = ln; tkfile[ntk] = path }
function tokens(s, ln, path,    t) {
    while (match(s, /[^ \t\r\f\v]/)) {
        s = substr(s, RSTART)
        if (match(s, /^[A-Za-z_][A-Za-z_0-9]*/) || match(s, /^\.?[0-9]([eEpP][-+]|[A-Za-z0-9_.])*/) ||
            match(s, /^(""|''|->|\+\+|--|<<=|>>=|<<|>>|<=|>=|==|!=|&&|\|\||[-+*\/%&|^]=|##|\.\.\.)/) || match(s, /^./))
            { t = substr(s, 1, RLENGTH); s = substr(s, RLENGTH + 1); tok(t, ln, path) }
    }
}
function isident(t) { return t ~ /^[A-Za-z_][A-Za-z_0-9]*$/ && !(t in keyword) }
BEGIN {
    split("auto break case char const continue default do double else enum extern float for goto if inline int long " \
          "register restrict return short signed sizeof static struct switch typedef union unsigned void volatile while " \
          "_Bool _Alignas _Alignof _Atomic _Noreturn _Static_assert _Thread_local __attribute__ __inline __inline__ " \
          "__restrict __restrict__ __declspec __host__ __device__ __forceinline__ defined", kw, " ")
    for (i in kw) keyword[kw[i]] = 1
    split("__attribute__ __declspec __align__ _Alignas alignas", kw, " ")
    for (i in kw) attribute[kw[i]] = 1
}

# ---- top-level items -----------------------------------------------------
# items(from, to): split tk[from..to] into top-level items: a #define
# (wherever it stands), a declaration ending in ';' at brace depth 0, or a function definition
# ending with the '}' of its body.  Each is passed to item(a, b, isfn).
function items(from, to,    i, a, a0, depth, fnbody, eq, par, linkage) {
    a = from; depth = 0; fnbody = 0; eq = 0; par = 0; linkage = 0
    for (i = from; i <= to; i++) {
        if (tk[i] == "#define") {
            a0 = i; while (i <= to && tk[i] != "#end") i++
            # One inside a function body is also part of the function.
            item(a0 + 1, i - 1, "macro"); if (depth == 0) a = i + 1; continue
        }
        if (depth == 0) {
            if (tk[i] == "(") par++
            else if (tk[i] == ")") par--
            else if (tk[i] == "=" && par == 0) eq = 1
            else if (tk[i] == ";" && par == 0) { item(a, i, "decl"); a = i + 1; eq = 0; continue }
            else if (tk[i] == "{" && i == a + 2 && tk[a] == "extern" && tk[a + 1] == "\"\"") { linkage++; a = i + 1; continue }
            else if (tk[i] == "}" && linkage > 0 && i == a) { linkage--; a = i + 1; continue }
            if (tk[i] == "{") { fnbody = !eq && fn_name(a, i - 1) != ""; depth = 1; continue }
        } else if (tk[i] == "{") depth++
        else if (tk[i] == "}" && --depth == 0 && fnbody) { item(a, i, "fn"); a = i + 1; eq = 0; fnbody = 0 }
    }
}
# The name of the function that tk[a..b] declares or defines: the
# identifier before the first '(' at depth 0 that is not an attribute's,
# with a type before it and no '*' after it (that is a pointer to one).
function fn_name(a, b,    i, p) {
    p = 0
    for (i = a; i <= b; i++) {
        if (tk[i] == "{" || tk[i] == "=" || tk[i] == "[") return ""
        if (tk[i] != "(") continue
        if (i > a && tk[i - 1] in attribute) { p = 1; while (++i <= b && p > 0) p += (tk[i] == "(") - (tk[i] == ")"); i--; continue }
        if (i - 1 > a && isident(tk[i - 1]) && tk[i + 1] != "*" && tk[i + 1] != "^") return tk[i - 1]
        return ""
    }
    return ""
}
# The names a declaration tk[a..b] (';' included) defines: a prototype's
# function, each declarator's variable, a struct's tag or a typedef's name.
function decl_names(a, b,    i, s, depth, par, names, f) {
    if ((f = fn_name(a, b)) != "") return f
    names = ""; s = a; depth = 0; par = 0
    for (i = a; i <= b; i++) {
        if (tk[i] == "{") depth++
        else if (tk[i] == "}") depth--
        else if (tk[i] == "(") par++
        else if (tk[i] == ")") par--
        else if (depth == 0 && par == 0 && (tk[i] == "," || tk[i] == ";")) { f = declarator(s, i - 1); if (f != "") names = names " " f; s = i + 1 }
    }
    return names
}
function declarator(a, b,    i, depth, par, last) {
    depth = 0; par = 0; last = ""
    for (i = a; i <= b; i++) {
        if (tk[i] == "{") { depth++; continue }
        if (tk[i] == "}") { depth--; continue }
        if (depth > 0) continue
        if (tk[i] == "(" && tk[i + 1] == "*") { i += 2; while (i <= b && !isident(tk[i])) i++; return tk[i] }
        if (tk[i] == "(") par++
        if (tk[i] == ")") par--
        if (par == 0 && (tk[i] == "=" || tk[i] == "[")) return last
        if (par == 0 && isident(tk[i])) last = tk[i]
    }
    return last
}

# One item: in a header, a launcher if it is a declaration of a function
# that is neither static nor inline nor a typedef; in a test, a node.
function item(a, b, kind,    i, names, n, nm, k, p) {
    if (a > b) return
    if (cur_kind == "h") {
        if (kind != "decl" || tk[a] == "typedef") return
        for (i = a; i <= b; i++) if (tk[i] == "static" || tk[i] ~ /^(__)?inline(__)?$/ || tk[i] == "__forceinline__" || tk[i] == "{") return
        if ((nm = fn_name(a, b)) == "" || (cur_slug, nm) in launcher) return
        for (i = a; tk[i] != nm; i++) ;
        launcher[cur_slug, nm] = tkfile[i] ":" tkline[i]
        nlaunch[cur_slug]++; launch_at[cur_slug, nlaunch[cur_slug]] = nm
        return
    }
    names = kind == "macro" ? tk[a] : kind == "fn" ? fn_name(a, b) : decl_names(a, b)
    n = split(names, nmv, " ")
    for (k = 1; k <= n; k++)
        for (i = a; i <= b; i++) if (isident(tk[i])) mention[cur_slug, nmv[k]] = mention[cur_slug, nmv[k]] " " tk[i]
    if (kind == "macro") return
    # Registered tests: cmocka_unit_test*(NAME, SETUP, TEARDOWN) anywhere.
    for (i = a; i < b; i++)
        if (tk[i] ~ /^cmocka_unit_test/ && tk[i + 1] == "(") {
            p = 1; nm = ""; roots = ""
            for (k = i + 2; k <= b && p > 0; k++) {
                p += (tk[k] == "(") - (tk[k] == ")")
                if (isident(tk[k])) { if (nm == "") nm = tk[k]; roots = roots " " tk[k] }
            }
            if (nm != "" && !((cur_slug, nm) in test_roots)) {
                test_roots[cur_slug, nm] = roots
                ntest[cur_slug]++; test_at[cur_slug, ntest[cur_slug]] = nm
            }
        }
}

# ---- the closure ---------------------------------------------------------
function reach(slug, t,    queue, head, tail, seen, x, m, v, i) {
    delete reached
    head = 1; tail = 0
    m = split(test_roots[slug, t], v, " ")
    for (i = 1; i <= m; i++) if (!(v[i] in seen)) { seen[v[i]] = 1; queue[++tail] = v[i] }
    while (head <= tail) {
        x = queue[head++]
        if ((slug, x) in launcher) reached[x] = 1
        m = split(mention[slug, x], v, " ")
        for (i = 1; i <= m; i++) if (!(v[i] in seen)) { seen[v[i]] = 1; queue[++tail] = v[i] }
    }
}

BEGIN {
    for (i = 1; i < ARGC; i++) {
        split(ARGV[i], f, ":"); slug = f[1]
        if (!(slug in known)) { known[slug] = 1; order[++nslug] = slug }
        ntk = 0; delete tk; delete tkline; delete tkfile
        cur_slug = slug; cur_kind = f[2]
        path = substr(ARGV[i], length(f[1]) + length(f[2]) + 3)
        if ((getline line < path) < 0) { print "tested-by: cannot read " path > "/dev/stderr"; exit 2 }
        close(path)
        lex(path, f[2], slug)
        items(1, ntk)
    }
    bad = 0
    for (s = 1; s <= nslug; s++) {
        slug = order[s]
        for (t = 1; t <= ntest[slug]; t++) {
            reach(slug, test_at[slug, t])
            for (x in reached) by[slug, x] = by[slug, x] (by[slug, x] == "" ? "" : " ") test_at[slug, t]
        }
        for (l = 1; l <= nlaunch[slug]; l++) {
            x = launch_at[slug, l]
            if (mode == "check") {
                if (by[slug, x] == "") { printf "%s: launcher %s is declared but no test in tests/%s calls it\n", launcher[slug, x], x, slug; bad = 1 }
            } else printf "%s\t%s\t%s\n", slug, x, by[slug, x]
        }
    }
    exit bad
}
