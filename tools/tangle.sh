#!/bin/bash
# tangle.sh DEST [lines] -- write every file-named root chunk of the book's
# chapters under DEST (the name's leading "tangled/" replaced by DEST/).
# With "lines", the copies carry #line directives into the chapters (the
# build copies); without, they are the committed, readable tangled/ files.
# Files whose bytes do not change are not touched.
set -eo pipefail
dest=$1; lines=0; [ "${2:-}" = lines ] && lines=1
nws=$(tools/chapters.sh | sed 's|^|chapters/|; s|$|.nw|')
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
tools/noweb.sh markup $nws > "$tmp/stream"
gawk -f tools/tangle.awk -v mode=roots < "$tmp/stream" > "$tmp/roots"
while read -r root; do
  case $root in tangled/*) ;; *) echo "tangle: root <<$root>> must be a path under tangled/" >&2; exit 1 ;; esac
  out=$dest/${root#tangled/}
  mkdir -p "$(dirname "$out")"
  gawk -f tools/tangle.awk -v mode=tangle -v root="$root" -v lines=$lines < "$tmp/stream" > "$tmp/file"
  if ! cmp -s "$tmp/file" "$out" 2>/dev/null; then
    # Prose that only moved the #line directives changes no code: the file
    # keeps its time, so nothing that includes it is compiled again.
    if [ $lines = 1 ] && [ -f "$out" ] &&
       cmp -s <(grep -v '^#line ' "$tmp/file") <(grep -v '^#line ' "$out"); then
      touch -r "$out" "$tmp/file" && cp -p "$tmp/file" "$out"
    else
      cp "$tmp/file" "$out"
    fi
  fi
  echo "${root#tangled/}" >> "$tmp/written"
done < "$tmp/roots"
# Remove files in DEST that no chapter writes any more, but never on a
# stream that names no root at all (a failed markup must not empty tangled/).
[ -s "$tmp/written" ] || { echo "tangle: the chapters name no root chunk; nothing removed" >&2; exit 1; }
if [ -d "$dest" ]; then
  (cd "$dest" && find . -type f ! -name .codesum | sed 's|^\./||' | sort) > "$tmp/have"
  sort "$tmp/written" | comm -23 "$tmp/have" - | while read -r f; do rm -f "$dest/$f"; done
fi
