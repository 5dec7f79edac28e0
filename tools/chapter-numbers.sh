#!/bin/bash
# chapter-numbers.sh -- no file names a chapter of this book by its number.
# A chapter's number is its place in book.yaml, so "chapter 9" goes stale
# when a chapter is inserted: prose writes chapter~\ref{ch:SLUG}, code and
# tests name the chapter (the scan chapter).  A citation of another book
# (", chapter 39") is not ours.  Messages are FILE:LINE: what is wrong.
# The files are the book's: git's list in a checkout; in an unpacked source
# archive (make dist: no .git) the list it carries, .book-files, and any
# file added there since; elsewhere every file under those folders.
cd "$(dirname "$0")/.." || exit 1
files() {
  if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
    git ls-files chapters tests exercises README.md
  else
    { [ -f .book-files ] && sed 's/^[0-9a-f]*  //' .book-files
      find chapters tests exercises README.md -type f 2>/dev/null; } |
      grep -E '^(chapters|tests|exercises)/|^README\.md$' | LC_ALL=C sort -u | while IFS= read -r p; do [ -f "$p" ] && echo "$p"; done
  fi
}
files | grep -v '^tests/tools/fixtures/' | xargs -d '\n' -r grep -nE '[Cc]hapters? [0-9]+' /dev/null |
  gawk -F: '{ line = $0; sub(/^[^:]*:[0-9]+:/, "", line)
              s = line; bad = 0
              while (match(s, /[Cc]hapters? [0-9]+/)) {
                  pre = substr(s, 1, RSTART - 1)
                  if (pre !~ /, $/) bad = 1
                  s = substr(s, RSTART + RLENGTH)
              }
              if (bad) { printf "%s:%s: names a chapter by number (write chapter~\\ref{ch:SLUG} in prose, the chapter'"'"'s name in code)\n", $1, $2; st = 1 } }
            END { exit st }'
