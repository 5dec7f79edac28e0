#!/bin/bash
# layer-check.sh -- the rules of the shared layer and of the launchers, on
# the committed tangled/ (and the tests and exercises that include it):
#  - tangled/common/ and tangled/arch/ (the shared layer) hold headers
#    only (.h, .cuh), which include only common/ and arch/ headers, never
#    a chapter's;
#  - a chapter's code, tests and exercises include another chapter's header
#    ("SLUG/file.h" or <SLUG/file.h>) only when book.yaml says the chapter
#    links SLUG, never by a relative path ("../SLUG/file.h"), and each
#    chapter it links is included somewhere (a stale links: entry links
#    objects for nothing);
#  - every extern "C" launcher of tangled/ (in an extern "C" block too)
#    that queues GPU work (a launch, an asynchronous copy or memset, a graph
#    launch, a CUB or cuBLAS call, or a call of a function that does) calls BOOK_CLEAR_TO_LAUNCH() or a function that does, so that
#    an earlier error is returned instead of launching (README, "How to add
#    a chapter", rule 3).
# Messages are FILE:LINE: what is wrong.  TANGLED=dir checks another tree.
cd "$(dirname "$0")/.." || exit 1
t=${TANGLED:-tangled}
status=0
chs=" $(tools/chapters.sh | tr '\n' ' ') "
# The shared layer includes no chapter.
# INC is the path of an #include line, quoted or in angle brackets.
INC='function inc(s,   p) { if (s !~ /^[ \t]*#[ \t]*include[ \t]*["<]/) return ""
       p = s; sub(/^[^"<]*["<]/, "", p); sub(/[">].*/, "", p); return p }'
for f in "$t"/common/* "$t"/arch/*; do
  [ -f "$f" ] || continue
  case $f in *.h|*.cuh) ;; *) echo "$f: the shared layer is headers only (.h, .cuh)"; status=1; continue ;; esac
  gawk "$INC"'{ p = inc($0); if (p == "") next
          if (p ~ /\// && p !~ /^(common|arch)\// && p !~ /^(cuda|cub|thrust|cute|cutlass)\//) { printf "%s:%d: the shared layer includes %s, a chapter'"'"'s header\n", FILENAME, FNR, p; bad = 1 } }
        END { exit bad }' "$f" || status=1
done
# A chapter includes the headers of the chapters it links, and no others.
for c in $(tools/chapters.sh); do
  links=" $(tools/chapters.sh links "$c" | tr '\n' ' ') "
  files=$(ls "$t/$c"/* tests/"$c"/*.c tests/"$c"/*.cu tests/"$c"/*.h exercises/"$c"/*.cu exercises/"$c"/*.h exercises/"$c"/solutions/*.cu 2>/dev/null)
  [ -n "$files" ] || continue
  # shellcheck disable=SC2086
  gawk -v self="$c" -v links="$links" -v chs="$chs" "$INC"'
    { p = inc($0); if (p == "") next
      if (p ~ /(^|\/)\.\.\//) { printf "%s:%d: includes %s by a relative path; write \"SLUG/file.h\"\n", FILENAME, FNR, p; bad = 1; next }
      if (p !~ /\//) next
      d = p; sub(/\/.*/, "", d)
      if (d == self || d == "common" || d == "arch" || index(chs, " " d " ") == 0) next
      used[d] = 1
      if (index(links, " " d " ") == 0) { printf "%s:%d: includes %s, but book.yaml does not say that %s links %s\n", FILENAME, FNR, p, self, d; bad = 1 } }
    END { n = split(links, l, " ")
          for (i = 1; i <= n; i++) if (!(l[i] in used)) { printf "book.yaml: %s links %s, but none of its files includes a header of %s\n", self, l[i], l[i]; bad = 1 }
          exit bad }' $files || status=1
done
# Every launcher goes through the launch-error macro.
# shellcheck disable=SC2046
gawk '
  function strip(s) { gsub(/extern[ \t]+"C"/, "extern_C", s); gsub(/"([^"\\]|\\.)*"/, "\"\"", s); sub(/\/\/.*/, "", s); return s }
  FNR == 1 { depth = 0; head = ""; infn = ""; ns = 0; ec = 0 }
  {
    raw = $0; s = strip(raw)
    if (depth == 0 && infn == "") {
      if (s ~ /^[ \t]*#/ ) next
      # Namespaces are transparent: their functions are at depth 0.
      # An extern "C" block makes every function in it extern "C".
      if (s ~ /^[ \t]*(extern_C[ \t]*|namespace[ \t]*[A-Za-z0-9_]*[ \t]*)\{[ \t]*$/) {
        kind[++ns] = (s ~ /extern_C/); ec += kind[ns]; head = ""; hline = 0; next }
      if (ns > 0 && s ~ /^[ \t]*\}[ \t;]*$/) { ec -= kind[ns--]; head = ""; hline = 0; next }
      head = head " " s
      hline = hline ? hline : FNR
      if (s ~ /\{[ \t]*$/ && head ~ /\(/) {
        h = head; sub(/\{[ \t]*$/, "", h)
        name = ""; rest = h
        while (match(rest, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)) {
          w = substr(rest, RSTART, RLENGTH); sub(/[ \t]*\($/, "", w)
          if (w !~ /^(__launch_bounds__|alignas|__align__|__attribute__|decltype)$/) { name = w; break }
          rest = substr(rest, RSTART + RLENGTH)
        }
        # The parameters of a template may say class; the head of a struct may not.
        hh = h; gsub(/template[ \t]*<[^>]*>/, "", hh)
        if (name != "" && hh !~ /(struct|class|union|enum|namespace)[ \t]/ && h !~ /=[ \t]*$/) {
          infn = FILENAME SUBSEP name; nm[infn] = name; file[infn] = FILENAME; line[infn] = hline
          launcher[infn] = ((ec > 0 || h ~ /extern_C/) && h ~ /cudaError_t/)
          shared[infn] = launcher[infn] || FILENAME ~ /\.(cuh|h)$/
        }
      }
      # A head ends at a statement, a blank line, a brace of its own or the
      # brace that opens what it heads (a function or not).
      if (s ~ /;[ \t]*$/ || s ~ /^[ \t]*$/ || s ~ /[{}][ \t]*$/) { head = ""; hline = 0 }
    }
    o = gsub(/\{/, "{", s); cl = gsub(/\}/, "}", s)
    if (infn != "") {
      body[infn] = body[infn] " " s
      depth += o - cl
      if (depth <= 0) { infn = ""; depth = 0; head = ""; hline = 0 }
    } else depth += o - cl
  }
  # f calls g: g in the same file, or in a header, or a launcher.
  function calls(f, g) {
    if (file[f] != file[g] && !shared[g]) return 0
    return body[f] ~ ("(^|[^A-Za-z0-9_])" nm[g] "[ \t]*(<[^;]*>)?[ \t]*\\(")
  }
  END {
    for (f in body) {
      direct_q[f] = body[f] ~ /<<<|cudaMemsetAsync|cudaMemcpy[A-Za-z0-9]*Async|cudaLaunch|cudaGraphLaunch|cub::Device|cublas[A-Za-z0-9_]*([Gg]emm|Matmul)/
      direct_c[f] = body[f] ~ /BOOK_CLEAR_TO_LAUNCH/
    }
    # Fixed points: queues(f) and clears(f), through the calls f makes.
    for (f in body) { q[f] = direct_q[f]; c[f] = direct_c[f] }
    do {
      changed = 0
      for (f in body) for (g in body) if (g != f && (!q[f] && q[g] || !c[f] && c[g]) && calls(f, g)) {
        if (!q[f] && q[g]) { q[f] = 1; changed = 1 }
        if (!c[f] && c[g]) { c[f] = 1; changed = 1 }
      }
    } while (changed)
    if (ENVIRON["LAYER_DEBUG"]) for (f in body) printf "%s %s launcher=%d queues=%d clears=%d\n", file[f], nm[f], launcher[f], q[f], c[f] > "/dev/stderr"
    for (f in body) if (launcher[f] && q[f] && !c[f]) {
      printf "%s:%d: launcher %s queues GPU work without BOOK_CLEAR_TO_LAUNCH() (README, How to add a chapter, rule 3)\n", file[f], line[f], nm[f]
      bad = 1
    }
    exit bad
  }' $(ls "$t"/*/*.cuh "$t"/*/*.h "$t"/*/*.cu 2>/dev/null) || status=1
exit $status
