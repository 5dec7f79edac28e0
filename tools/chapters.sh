#!/bin/sh
# chapters.sh [QUERY] -- the one reader of book.yaml.
#   (none)        the chapters, in book order (one slug a line)
#   needs SLUG    the chapters SLUG declares it needs (- SLUG: {needs: [a, b]})
#   uses SLUG     every chapter SLUG needs, directly or through another, in
#                 book order: whose objects its programs link, whose benches
#                 run before its own
#   check         exits 1, saying why, if a chapter needs one that is not in
#                 the book or does not come before it
#   textwidth     the page's text width, from geometry
#   KEY           a top-level value (title, geometry, mainfont, ...), or one
#                 under build: (code-width, archs, gpu)
cd "$(dirname "$0")/.." || exit 1
q=${1:-chapters}
awk -v q="$q" -v arg="$2" '
  function unq(s) { gsub(/^[ \t"]+|[ \t"]+$/, "", s); return s }
  /^chapters:[ \t]*$/  { inlist = 1; next }
  inlist && /^  - /    {
      s = $0; sub(/^  - */, "", s); name = s; sub(/:.*/, "", name); name = unq(name)
      n++; slug[n] = name; pos[name] = n
      if (s ~ /needs:/) {
          d = s; sub(/.*needs:[ \t]*\[/, "", d); sub(/\].*/, "", d)
          k = split(d, a, /,/)
          for (i = 1; i <= k; i++) if (unq(a[i]) != "") needs[name] = needs[name] " " unq(a[i])
      }
      next
  }
  inlist && /^[^ ]/    { inlist = 0 }
  /^build:/            { inbuild = 1; next }
  inbuild && /^  [a-z-]+:/ { k = $0; sub(/^  /, "", k); v = k; sub(/:.*/, "", k); sub(/^[^:]*:/, "", v); build[k] = unq(v); next }
  inbuild && /^[^ ]/   { inbuild = 0 }
  /^[a-z-]+:[ \t]*[^ \t]/ { k = $0; v = $0; sub(/:.*/, "", k); sub(/^[^:]*:/, "", v); top[k] = unq(v) }
  function closure(c,   m, i, x) {
      m = split(needs[c], x, " ")
      for (i = 1; i <= m; i++) if (!(x[i] in seen)) { seen[x[i]] = 1; closure(x[i]) }
  }
  END {
      if (q == "chapters") { for (i = 1; i <= n; i++) print slug[i]; exit }
      if (q == "needs") { if (!(arg in pos)) { print "chapters.sh: no chapter " arg " in book.yaml" > "/dev/stderr"; exit 1 }
                          m = split(needs[arg], x, " "); for (i = 1; i <= m; i++) print x[i]; exit }
      if (q == "uses") { if (!(arg in pos)) { print "chapters.sh: no chapter " arg " in book.yaml" > "/dev/stderr"; exit 1 }
                         closure(arg); for (i = 1; i <= n; i++) if (slug[i] in seen && slug[i] != arg) print slug[i]; exit }
      if (q == "check") {
          bad = 0
          for (i = 1; i <= n; i++) {
              m = split(needs[slug[i]], x, " ")
              for (j = 1; j <= m; j++)
                  if (!(x[j] in pos)) { printf "book.yaml: chapter %s needs %s, which is not a chapter of the book\n", slug[i], x[j]; bad = 1 }
                  else if (pos[x[j]] >= i) { printf "book.yaml: chapter %s needs %s, which must come before it\n", slug[i], x[j]; bad = 1 }
          }
          exit bad
      }
      if (q == "textwidth") { m = split(top["geometry"], x, /,/)
                              for (i = 1; i <= m; i++) if (x[i] ~ /^textwidth=/) { sub(/^textwidth=/, "", x[i]); print x[i] }
                              exit }
      if (q in build) { print build[q]; exit }
      if (q in top) { print top[q]; exit }
  }
' book.yaml
