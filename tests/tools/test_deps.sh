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
# traced DIR TARGET: make TARGET in a fresh copy DIR of the book under strace;
# the absolute paths of the files it read or ran, one a line, on stdout.
traced() {
  local dir=$1 target=$2
  mkdir -p "$dir" && cp -r Makefile book.yaml chapters figures tools tangled tests "$dir/" || return 1
  [ -d .deps ] && cp -r .deps "$dir/"
  # One trace file a process (-ff): no call is split across lines.
  strace -ff -qq -e trace=execve,open,openat -o "$dir.trace" make -C "$dir" -s "$target" > "$dir.log" 2>&1 ||
    { tail -20 "$dir.log"; return 1; }
  cat "$dir.trace".* | sed -n -E 's/^(execve|open|openat)\((AT_FDCWD, )?"(\/[^"]*)".*\) = [0-9]+.*$/\3/p' | sort -u
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
  traced "$tmp/pdf" build/book.pdf > "$tmp/pdf.files" && test -s "$tmp/pdf.files" &&
  tools/deps-audit.sh tools/deps.list < "$tmp/pdf.files"
}
# The web edition: its figures (xelatex, pdftocairo), pandoc and gawk.
t_html_build_reads_declared_packages() {
  from_debian xelatex pandoc notangle gawk || return
  traced "$tmp/html" build/html/index.html > "$tmp/html.files" && test -s "$tmp/html.files" &&
  tools/deps-audit.sh tools/deps.list < "$tmp/html.files"
}
t_test_build_reads_declared_packages() {
  from_debian notangle gawk gcc || return
  traced "$tmp/test" build/01-threads/test > "$tmp/test.files" && test -s "$tmp/test.files" &&
  tools/deps-audit.sh tools/deps.list < "$tmp/test.files"
}
# The audit catches the fault that once broke every fresh machine: the list
# without texlive-fonts-recommended, whose ZapfDingbats hyperref loads.
t_audit_names_a_missing_package() {
  from_debian xelatex pandoc notangle gawk || return
  [ -s "$tmp/pdf.files" ] || traced "$tmp/pdf2" build/book.pdf > "$tmp/pdf.files" || return 1
  grep -v '^texlive-fonts-recommended ' tools/deps.list > "$tmp/short.list"
  if tools/deps-audit.sh "$tmp/short.list" < "$tmp/pdf.files" > "$tmp/audit.out"; then
    echo "the audit passed a list without texlive-fonts-recommended"; return 1
  fi
  grep -E '/pzdr\.tfm: from package texlive-fonts-recommended, which' "$tmp/audit.out" ||
    { echo "expected pzdr.tfm from texlive-fonts-recommended in:"; cat "$tmp/audit.out"; return 1; }
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
