#!/bin/bash
# prose-refs.sh -- every test and file that the chapters' prose names exists.
#  - a test: a backticked name after "test" or "tests" (a list "`a`, `b` and
#    `c`" counts whole), or before "test"; it must be a cmocka test
#    (cmocka_unit_test(name)) of some tests/*/*.c;
#  - a file: a backticked path under tests/, tools/, tangled/, figures/ or
#    chapters/ (figures/data/$GPU/ read as book.yaml's GPU); names with
#    wildcards or placeholders (*, <, NN, CH) are patterns, not files.
# Messages are FILE:LINE: what is missing.
cd "$(dirname "$0")/.." || exit 1
gpu=$(tools/chapters.sh gpu)
known=$(grep -ho 'cmocka_unit_test[a-z_]*( *[A-Za-z0-9_]*' tests/*/*.c | sed 's/.*( *//' | sort -u)
status=0
for c in $(tools/chapters.sh); do
  f=chapters/$c.nw
  gawk -v known="$known" -v gpu="$gpu" -v file="$f" '
    BEGIN { n = split(known, k, "\n"); for (i = 1; i <= n; i++) istest[k[i]] = 1 }
    /^<<.*>>=[ \t]*$/ { code = 1; next }
    /^@([ \t]|$)/      { code = 0; next }
    code { next }
    {
      line = $0
      # Tests: "test `a`", "tests `a`, `b` and `c`", "`a` test".
      s = line
      while (match(s, /tests? `[a-z][a-z0-9_]*`((, | and |, and )`[a-z][a-z0-9_]*`)*/)) {
        m = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
        while (match(m, /`[a-z][a-z0-9_]*`/)) {
          name = substr(m, RSTART + 1, RLENGTH - 2); m = substr(m, RSTART + RLENGTH)
          if (name ~ /_/ && !(name in istest)) { printf "%s:%d: the prose names test %s, which no tests/*/*.c registers\n", file, FNR, name; bad = 1 }
        }
      }
      s = line
      while (match(s, /`[a-z][a-z0-9_]*` test/)) {
        name = substr(s, RSTART + 1, index(substr(s, RSTART + 1), "`") - 1); s = substr(s, RSTART + RLENGTH)
        if (name ~ /_/ && !(name in istest)) { printf "%s:%d: the prose names test %s, which no tests/*/*.c registers\n", file, FNR, name; bad = 1 }
      }
      # Files.
      s = line
      while (match(s, /(`|\\texttt\{)(tests|tools|tangled|figures|chapters)\/[^`} ]*/)) {
        p = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
        sub(/^(`|\\texttt\{)/, "", p); gsub(/\\_/, "_", p); gsub(/\$GPU/, gpu, p)
        if (p ~ /[*<>{}]|NN|\/CH\/|\.\.\./) continue
        if (p ~ /\/$/) { if (system("test -d \"" p "\"")) { printf "%s:%d: the prose names %s, which does not exist\n", file, FNR, p; bad = 1 } }
        else if (system("test -e \"" p "\"")) { printf "%s:%d: the prose names %s, which does not exist\n", file, FNR, p; bad = 1 }
      }
    }
    END { exit bad }' "$f" || status=1
done
exit $status
