#!/bin/bash
# codesum.sh -- two checksums that `make tangle` keeps in tangled/.codesum:
#   chapters SUM   over the code chunks of the book's chapters (their names
#                  and lines, in book order; prose does not count)
#   tangled SUM    over the files of tangled/ themselves
# Where noweb is missing, the build compares them with the chapters and with
# tangled/ to know that tangled/ still says what the chapters say and that
# nobody edited it by hand.
cd "$(dirname "$0")/.." || exit 1
printf 'chapters %s\n' "$(for c in $(tools/chapters.sh); do
  awk -v f="chapters/$c.nw" '
    /^<<.*>>=[ \t]*$/ { code = 1; print f ": " $0; next }
    /^@([ \t]|$)/      { code = 0; next }
    code               { print }' "chapters/$c.nw"
done | sha256sum | cut -d' ' -f1)"
printf 'tangled %s\n' "$(cd tangled 2>/dev/null && find . -type f ! -name .codesum | LC_ALL=C sort |
  while IFS= read -r f; do printf '%s ' "$f"; sha256sum < "$f"; done | sha256sum | cut -d' ' -f1)"
