#!/bin/bash
# chapter-numbers.sh -- no file names a chapter of this book by its number.
# A chapter's number is its place in book.yaml, so "chapter 9" goes stale
# when a chapter is inserted: prose writes chapter~\ref{ch:SLUG}, code and
# tests name the chapter (the scan chapter).  A citation of another book
# (", chapter 39") is not ours.  Messages are FILE:LINE: what is wrong.
cd "$(dirname "$0")/.." || exit 1
git ls-files chapters tests exercises README.md 2>/dev/null |
  grep -v '^tests/tools/fixtures/' | xargs -r grep -nE '[Cc]hapters? [0-9]+' /dev/null |
  gawk -F: '{ line = $0; sub(/^[^:]*:[0-9]+:/, "", line)
              s = line; bad = 0
              while (match(s, /[Cc]hapters? [0-9]+/)) {
                  pre = substr(s, 1, RSTART - 1)
                  if (pre !~ /, $/) bad = 1
                  s = substr(s, RSTART + RLENGTH)
              }
              if (bad) { printf "%s:%s: names a chapter by number (write chapter~\\ref{ch:SLUG} in prose, the chapter'"'"'s name in code)\n", $1, $2; st = 1 } }
            END { exit st }'
