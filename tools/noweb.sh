#!/bin/bash
# noweb.sh -- the front of every noweb pipeline in the book.
#   tools/noweb.sh markup FILE...   noweb's markup over the chapters, with CUDA
#                                   launches (<<<) escaped for noweb first
#   tools/noweb.sh weave FILE...    the same through finduses and noidx
# File names in messages stay the authors' own (chapters/SLUG.nw).
set -e
mode=$1; shift
NWLIB=${NWLIB:-}
for d in "$NWLIB" /usr/lib/noweb /usr/local/lib/noweb /usr/libexec/noweb; do
  [ -n "$d" ] && [ -x "$d/markup" ] && NWLIB=$d && break
done
[ -x "$NWLIB/markup" ] || { echo "noweb.sh: noweb not found; install it (apt-get install noweb) or set NWLIB" >&2; exit 1; }
# Each run its own copy of the chapters, so that runs in parallel (make -j)
# never read one another's half-written files.
base=${BUILD:-build}; case $base in /*) ;; *) base=$PWD/$base ;; esac
mkdir -p "$base"
pre=$(mktemp -d "$base/pre.XXXXXX")
trap 'rm -rf "$pre"' EXIT
for f in "$@"; do
  [ -f "$f" ] || { echo "$f:1: no such chapter file (listed in book.yaml?)" >&2; exit 1; }
  mkdir -p "$pre/$(dirname "$f")"
  # A launch kernel<<<g, b>>>(...) is not a chunk use: escape it as @<<<.
  sed 's/\(^\|[^@]\)<<</\1@<<</g' "$f" > "$pre/$f"
done
cd "$pre"
set -o pipefail
case $mode in
  markup) "$NWLIB/markup" "$@" ;;
  weave)  "$NWLIB/markup" "$@" | "$NWLIB/finduses" | "$NWLIB/noidx" ;;
  *) echo "noweb.sh: unknown mode $mode" >&2; exit 1 ;;
esac
