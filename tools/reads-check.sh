#!/bin/bash
# reads-check.sh [list] -- book.yaml's reads: are the measurements each
# chapter uses.  A chapter uses another's measurements when its prose
# ({{csv...}} directives), its figures (figures/SLUG-*.tex) or its benchmark
# and counter scripts (tests/SLUG/bench*.cu, tests/SLUG/*.sh) name a CSV of
# figures/data/GPU/ that the other chapter writes: OTHER.csv or
# OTHER-NAME.csv, OTHER the longest chapter slug that fits.  The device
# facts (build: device-facts:) are every chapter's, and need no entry.
# Fails, with FILE:LINE, on a CSV of a chapter neither in reads: nor in
# links:, and on a
# reads: entry that nothing uses.  With "list": each chapter and the
# chapters it uses, one line each (what book.yaml's reads: should say).
cd "$(dirname "$0")/.." || exit 1
facts=$(tools/chapters.sh device-facts)
chs=$(tools/chapters.sh | tr '\n' ' ')
status=0
for c in $(tools/chapters.sh); do
  files=()
  [ -f "chapters/$c.nw" ] && files+=("chapters/$c.nw")
  for f in figures/"$c"-*.tex tests/"$c"/bench*.cu tests/"$c"/*.sh; do [ -f "$f" ] && files+=("$f"); done
  [ ${#files[@]} -gt 0 ] || continue
  reads=" $(tools/chapters.sh reads "$c" | tr '\n' ' ') "
  declared="$reads$(tools/chapters.sh links "$c" | tr '\n' ' ') "
  used=$(gawk -v self="$c" -v chs="$chs" -v facts="$facts" '
    BEGIN { n = split(chs, s, " "); for (i = 1; i <= n; i++) slug[s[i]] = 1 }
    function owner(name,   best, i) {
      best = ""
      for (i in slug) if ((name == i || index(name, i "-") == 1) && length(i) > length(best)) best = i
      return best
    }
    # Prose: only the {{csv...}} directives; code and scripts: any CSV name.
    {
      line = $0
      if (FILENAME ~ /\.nw$/) { t = ""; while (match(line, /\{\{csv[^}]*\}\}/)) { t = t " " substr(line, RSTART, RLENGTH); line = substr(line, RSTART + RLENGTH) }; line = t }
      while (match(line, /[a-z0-9][a-z0-9-]*\.csv/)) {
        name = substr(line, RSTART, RLENGTH); line = substr(line, RSTART + RLENGTH)
        if (name == facts) continue
        sub(/\.csv$/, "", name); o = owner(name)
        if (o != "" && o != self) print o, FILENAME ":" FNR ": " name ".csv"
      }
    }' "${files[@]}")
  if [ "$1" = list ]; then
    echo "$c: $(echo "$used" | awk 'NF { print $1 }' | sort -u | tr '\n' ' ')"
    continue
  fi
  while read -r o where; do
    [ -n "$o" ] || continue
    case $declared in *" $o "*) ;; *) echo "$where is chapter $o's measurement: add $o to reads: of $c in book.yaml"; status=1 ;; esac
  done <<< "$(echo "$used" | sort -u -k1,1)"
  for r in $reads; do
    echo "$used" | awk -v r="$r" '$1 == r { f = 1 } END { exit !f }' ||
      { echo "book.yaml: $c reads $r, but nothing of $c names a CSV of $r"; status=1; }
  done
done
exit $status
