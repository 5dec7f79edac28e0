#!/bin/bash
# test_deps.sh -- tools/deps.list is complete: every file that building the
# book (the PDF and the web edition) and building a chapter's test program
# read comes from a Debian package that the list accounts for
# (tools/deps-audit.sh says how).  The builds run in a copy of the book
# under strace.  Output in cmocka's format for run-tests.sh; where the
# tools it needs are missing, each test is reported as skipped with the
# reason.
cd "$(dirname "$0")/../.." || exit 1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

missing() {   # missing CMD...: the commands that are not here
  local c m=""; for c in "$@"; do command -v "$c" >/dev/null 2>&1 || m="$m $c"; done; echo "${m# }"
}
can_trace() { strace -f -qq -o /dev/null true 2>/dev/null; }
run() {   # run NAME NEEDS COMMAND...: skip unless NEEDS are here; the command must exit 0
  local name=$1 need=$2 m; shift 2
  echo "[ RUN      ] $name"
  m=$(missing dpkg-query apt-cache strace $need)
  if [ -z "$m" ] && ! can_trace; then m="a working strace (ptrace is not permitted here)"; fi
  if [ -n "$m" ]; then echo "skipped: needs $m"; echo "[  SKIPPED ] $name"; return; fi
  out=$("$@" 2>&1); rc=$?
  if [ $rc = 0 ]; then echo "[       OK ] $name"
  elif [ $rc = 77 ]; then echo "$out" | tail -3; echo "[  SKIPPED ] $name"
  else echo "$out" | tail -20; echo "[  FAILED  ] $name"; fi
}
# traced DIR TARGET DEPS: make TARGET in a fresh copy DIR of the book under
# strace; each absolute path it read or ran, a tab, and the program that
# read it (tools/trace-reads.awk), one a line, on stdout.  The packages of
# DEPS (a deps.list target) are brought in first, outside the trace, as the
# build itself would (tools/deps.sh), and the traced build installs nothing
# (DEPS_INSTALL=no): a package manager's run under the trace would read
# whatever its triggers touch (man-db reads every manual page, PostgreSQL's
# among them), and only on the first run, when something was missing.
traced() {
  local dir=$1 target=$2 deps=$3
  tools/deps.sh "$deps" >&2
  mkdir -p "$dir" && cp -r Makefile book.yaml chapters figures tools tangled tests "$dir/" || return 1
  [ -d .deps ] && cp -r .deps "$dir/"
  # One trace file a process (-ff): no call is split across lines.
  DEPS_INSTALL=no strace -ff -qq -e trace=execve,open,openat,clone,clone3,fork,vfork -o "$dir.trace" \
    make -C "$dir" -s "$target" > "$dir.log" 2>&1 || { tail -20 "$dir.log" >&2; return 1; }
  gawk -f tools/trace-reads.awk "$dir.trace".* > "$dir.reads" || return 1
  if grep -E '^/usr/bin/(apt-get|apt|dpkg|aptitude)'$'\t' "$dir.reads" >&2; then
    echo "the traced build of $target ran the package manager (above): it must install nothing" >&2; return 1
  fi
  cat "$dir.reads"
}
# from_debian CMD...: the commands come from Debian's packages (the audit
# speaks of Debian's packages; a TeX Live or toolkit installed otherwise is
# the reader's own affair, and the test is skipped, saying so).
from_debian() {
  local c f
  for c in "$@"; do
    f=$(readlink -f "$(command -v "$c")")
    dpkg -S "$f" >/dev/null 2>&1 || { echo "skipped: $c ($f) is not from a Debian package"; return 77; }
  done
}
t_pdf_build_reads_declared_packages() {
  from_debian xelatex pandoc notangle gawk || return
  traced "$tmp/pdf" build/book.pdf pdf > "$tmp/pdf.files" && test -s "$tmp/pdf.files" &&
  tools/deps-audit.sh tools/deps.list < "$tmp/pdf.files"
}
# The web edition: its figures (xelatex, pdftocairo), pandoc and gawk.
t_html_build_reads_declared_packages() {
  from_debian xelatex pandoc notangle gawk || return
  traced "$tmp/html" build/html/index.html html > "$tmp/html.files" && test -s "$tmp/html.files" &&
  tools/deps-audit.sh tools/deps.list < "$tmp/html.files"
}
t_test_build_reads_declared_packages() {
  from_debian notangle gawk gcc || return
  traced "$tmp/test" build/threads/test test > "$tmp/test.files" && test -s "$tmp/test.files" &&
  tools/deps-audit.sh tools/deps.list < "$tmp/test.files"
}
# The audit catches the fault that once broke every fresh machine: the list
# without texlive-fonts-recommended, whose ZapfDingbats hyperref loads; and
# it names the program that read the file.
t_audit_names_a_missing_package() {
  from_debian xelatex pandoc notangle gawk || return
  [ -s "$tmp/pdf.files" ] || traced "$tmp/pdf2" build/book.pdf pdf > "$tmp/pdf.files" || return 1
  grep -v '^texlive-fonts-recommended ' tools/deps.list > "$tmp/short.list"
  if tools/deps-audit.sh "$tmp/short.list" < "$tmp/pdf.files" > "$tmp/audit.out"; then
    echo "the audit passed a list without texlive-fonts-recommended"; return 1
  fi
  grep -E '/pzdr\.tfm: from package texlive-fonts-recommended, which .*; read by /usr/bin/[a-z]+ \[' "$tmp/audit.out" ||
    { echo "expected pzdr.tfm from texlive-fonts-recommended, and its reader, in:"; cat "$tmp/audit.out"; return 1; }
}
# And a file that no package owns, such as a tool installed by hand.
t_audit_names_an_unpackaged_file() {
  local f n; n=$(command -v "${NVCC:-nvcc}")
  f=$(find /usr/local/bin /usr/local/lib /opt -maxdepth 2 -type f ! -path "$n" 2>/dev/null | head -50 |
                 while read -r x; do dpkg -S "$x" >/dev/null 2>&1 || { echo "$x"; break; }; done)
  [ -n "$f" ] || { echo "skipped: no file outside Debian's packages on this machine to try"; return 77; }
  echo "$f" | tools/deps-audit.sh tools/deps.list > "$tmp/u.out" && { echo "passed $f"; return 1; }
  grep -qF "$f: not from any Debian package" "$tmp/u.out"
}

run pdf_build_reads_declared_packages "make xelatex pandoc notangle gawk" t_pdf_build_reads_declared_packages
run html_build_reads_declared_packages "make xelatex pandoc pdftocairo notangle gawk" t_html_build_reads_declared_packages
run test_build_reads_declared_packages "make gcc notangle gawk ${NVCC:-nvcc}" t_test_build_reads_declared_packages
run audit_names_a_missing_package "make xelatex pandoc notangle gawk" t_audit_names_a_missing_package
run audit_names_an_unpackaged_file "" t_audit_names_an_unpackaged_file
