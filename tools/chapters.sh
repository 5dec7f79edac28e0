#!/bin/sh
# chapters.sh [QUERY] -- the one reader of book.yaml.
#   (none)        the chapters, in book order (one slug a line)
#   links SLUG    the chapters SLUG links (- SLUG: {links: [a, b]}): it
#                 includes their headers and links their objects
#   reads SLUG    the chapters whose measurements SLUG uses (reads: [c]):
#                 CSVs its benchmark opens or its prose quotes; nothing of
#                 theirs is linked
#   linked SLUG   the links closure, in book order: whose objects SLUG's
#                 programs link
#   before SLUG   the chapters whose benchmarks must run before SLUG's: the
#                 closure of links and of reads of earlier chapters, in
#                 book order (make bench runs in book order, which keeps it)
#   check         exits 1, saying why, if a chapter links one that is not in
#                 the book or does not come before it, reads one that is not
#                 in the book or is itself, or still says needs:
#   textwidth     the page's text width, from geometry
#   KEY           a top-level value (title, geometry, mainfont, ...), or one
#                 under build: (code-width, archs, gpu)
# The subset of YAML it reads: two-space indentation, a chapter as
# "  - slug" or "  - slug: {links: [a, b], reads: [c]}" on one line, or
# "  - slug:" followed by "      links: [a, b]" and "      reads: [c]".
cd "$(dirname "$0")/.." || exit 1
q=${1:-chapters}
awk -v q="$q" -v arg="$2" '
  function unq(s) { gsub(/^[ \t"]+|[ \t"]+$/, "", s); return s }
  function list(s, key, name,   d, k, a, i) {
      if (s !~ key ":") return
      d = s; sub(".*" key ":[ \t]*\\[", "", d); sub(/\].*/, "", d)
      k = split(d, a, /,/)
      for (i = 1; i <= k; i++) if (unq(a[i]) != "") rel[key, name] = rel[key, name] " " unq(a[i])
  }
  /^chapters:[ \t]*$/  { inlist = 1; next }
  inlist && /^  - /    {
      s = $0; sub(/^  - */, "", s); name = s; sub(/:.*/, "", name); name = unq(name)
      n++; slug[n] = name; pos[name] = n
      list(s, "links", name); list(s, "reads", name)
      if (s ~ /needs:/) old[name] = 1
      next
  }
  inlist && /^      [a-z]+:/ {
      list($0, "links", name); list($0, "reads", name)
      if ($0 ~ /needs:/) old[name] = 1
      next
  }
  inlist && /^[^ ]/    { inlist = 0 }
  /^build:/            { inbuild = 1; next }
  inbuild && /^  [a-z-]+:/ { k = $0; sub(/^  /, "", k); v = k; sub(/:.*/, "", k); sub(/^[^:]*:/, "", v); build[k] = unq(v); next }
  inbuild && /^[^ ]/   { inbuild = 0 }
  /^[a-z-]+:[ \t]*[^ \t]/ { k = $0; v = $0; sub(/:.*/, "", k); sub(/^[^:]*:/, "", v); top[k] = unq(v) }
  # The closure of c over links (and, with withreads, over the reads of
  # chapters that come before the one that reads them).
  function closure(c, withreads,   all, m, i, x) {
      all = rel["links", c] (withreads ? rel["reads", c] : "")
      m = split(all, x, " ")
      for (i = 1; i <= m; i++) {
          if (withreads && pos[x[i]] >= pos[c]) continue
          if (!(x[i] in seen)) { seen[x[i]] = 1; closure(x[i], withreads) }
      }
  }
  function need(c) { if (!(c in pos)) { print "chapters.sh: no chapter " c " in book.yaml" > "/dev/stderr"; exit 1 } }
  END {
      if (q == "chapters") { for (i = 1; i <= n; i++) print slug[i]; exit }
      if (q == "links" || q == "reads") { need(arg); m = split(rel[q, arg], x, " "); for (i = 1; i <= m; i++) print x[i]; exit }
      if (q == "linked" || q == "before") { need(arg); closure(arg, q == "before")
                         for (i = 1; i <= n; i++) if (slug[i] in seen && slug[i] != arg) print slug[i]; exit }
      if (q == "check") {
          bad = 0
          for (i = 1; i <= n; i++) {
              if (slug[i] in old) { printf "book.yaml: chapter %s says needs:, which is now links: (its code) and reads: (its measurements)\n", slug[i]; bad = 1 }
              m = split(rel["links", slug[i]], x, " ")
              for (j = 1; j <= m; j++)
                  if (!(x[j] in pos)) { printf "book.yaml: chapter %s links %s, which is not a chapter of the book\n", slug[i], x[j]; bad = 1 }
                  else if (pos[x[j]] >= i) { printf "book.yaml: chapter %s links %s, which must come before it\n", slug[i], x[j]; bad = 1 }
              m = split(rel["reads", slug[i]], x, " ")
              for (j = 1; j <= m; j++)
                  if (!(x[j] in pos)) { printf "book.yaml: chapter %s reads %s, which is not a chapter of the book\n", slug[i], x[j]; bad = 1 }
                  else if (x[j] == slug[i]) { printf "book.yaml: chapter %s reads itself\n", slug[i]; bad = 1 }
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
