#!/bin/bash
# codesum.sh -- one checksum over the code chunks of the book's chapters (their
# names and lines, in book order; prose does not count).  `make tangle` keeps
# it in tangled/.codesum; where noweb is missing, the build compares it with
# the chapters to know that tangled/ still says what they say.
cd "$(dirname "$0")/.." || exit 1
for c in $(tools/chapters.sh); do
  awk -v f="chapters/$c.nw" '
    /^<<.*>>=[ \t]*$/ { code = 1; print f ": " $0; next }
    /^@([ \t]|$)/      { code = 0; next }
    code               { print }' "chapters/$c.nw"
done | sha256sum | cut -d' ' -f1
