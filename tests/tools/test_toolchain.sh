#!/bin/bash
# test_toolchain.sh -- the book's own machinery on fixtures, in cmocka's
# output format so that run-tests.sh counts it with the chapters' tests.
# Needs noweb and gawk; without them each test is reported as skipped.
cd "$(dirname "$0")/../.." || exit 1
fx=tests/tools/fixtures
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. tests/tools/kit.sh
have_noweb=1
command -v notangle >/dev/null 2>&1 && command -v gawk >/dev/null 2>&1 || have_noweb=0

run() {   # run NAME COMMAND...: the command must exit 0
  local name=$1; shift
  echo "[ RUN      ] $name"
  if [ $have_noweb = 0 ]; then echo "skipped: noweb or gawk not installed"; echo "[  SKIPPED ] $name"; return; fi
  if out=$("$@" 2>&1); then echo "[       OK ] $name"; else echo "$out" | tail -5; echo "[  FAILED  ] $name"; fi
}
markup() { tools/noweb.sh markup "$@"; }
weave() { tools/weave.sh "$@"; }

t_undefined_tangle() { expect_fail "$fx/undefined-chunk.nw:6: chunk <<Do the work>> is used but never defined" \
  bash -c "set -o pipefail; tools/noweb.sh markup $fx/undefined-chunk.nw | gawk -f tools/tangle.awk -v mode=tangle -v root=tangled/fixture/a.cu"; }
t_undefined_weave() { expect_fail "$fx/undefined-chunk.nw:6: chunk <<Do the work>> is used but never defined" \
  tools/weave.sh $fx/undefined-chunk.nw; }
t_prose_shift_tangle() { expect_fail "$fx/prose-shift.nw:3: unescaped << in documentation chunk" \
  bash -c "set -o pipefail; tools/noweb.sh markup $fx/prose-shift.nw | gawk -f tools/tangle.awk -v mode=check"; }
t_prose_shift_weave() { expect_fail "$fx/prose-shift.nw:3: unescaped << in documentation chunk" \
  tools/weave.sh $fx/prose-shift.nw; }
t_unused_and_wide() {
  expect_fail "$fx/unused-and-wide.nw:7: chunk <<Never used>> is defined but never used" \
    bash -c "tools/noweb.sh markup $fx/unused-and-wide.nw | gawk -f tools/tangle.awk -v mode=check -v width=78" &&
  grep -q "$fx/unused-and-wide.nw:8: code line is 79 columns wide" "$tmp/out"
}
t_launch_tangles() {
  markup $fx/good.nw | gawk -f tools/tangle.awk -v mode=tangle -v root=tangled/fixture/good.cu > "$tmp/good.cu" &&
  grep -qx '    k<<<1, 1>>>(x);' "$tmp/good.cu" && grep -qx '    // <<Launch>>' "$tmp/good.cu"
}
t_line_directives() {
  markup $fx/good.nw | gawk -f tools/tangle.awk -v mode=tangle -v root=tangled/fixture/good.cu -v lines=1 > "$tmp/l.cu" &&
  grep -A1 "^#line 16 \"$fx/good.nw\"" "$tmp/l.cu" | grep -q 'k<<<1, 1>>>(x);'
}
t_compiler_names_chapter_line() {
  command -v "${NVCC:-nvcc}" >/dev/null || { echo "no nvcc"; return 1; }
  markup $fx/compile-error.nw | gawk -f tools/tangle.awk -v mode=tangle -v root=tangled/fixture/bad.cu -v lines=1 > "$tmp/bad.cu" &&
  expect_fail "$fx/compile-error.nw(11): error: identifier \"undeclared_name\" is undefined" \
    "${NVCC:-nvcc}" -c "$tmp/bad.cu" -o "$tmp/bad.o"
}
t_tangle_deterministic() {
  tools/tangle.sh "$tmp/t1" && tools/tangle.sh "$tmp/t2" && diff -r "$tmp/t1" "$tmp/t2"
}
t_weave_markdown() {
  weave $fx/good.nw > "$tmp/good.md" &&
  grep -q '\\nwbegin{1}{tangled/fixture/good.cu}{\\nwdefsign}{}' "$tmp/good.md" &&
  grep -qF '/*⟨Launch 2⟩*/' "$tmp/good.md" &&
  grep -q 'k<<<1, 2>>>' "$tmp/good.md" &&
  grep -q 'Used in \\hyperlink{nw1}{1}' "$tmp/good.md" &&
  grep -q '\\nwidentry{k}{\\hyperlink{nw1}{1}}{\\hyperlink{nw2}{2}}' "$tmp/good.md"
}
t_weave_html() {   # the same weave, its chunk markup in HTML for the web edition
  tools/weave.sh -v format=html $fx/good.nw > "$tmp/good.html.md" &&
  grep -qF '<div class="nwchunk" id="nw1"><div class="nwhead"><a class="nwnum" href="#nw1">1</a> &#x27E8;tangled/fixture/good.cu&#x27E9;&#x2261;</div>' "$tmp/good.html.md" &&
  grep -qF '<div class="nwfoot">Defines <code>k</code> (used in <a href="#nw2">2</a>).' "$tmp/good.html.md" &&
  grep -qF '<li id="nwid1"><code>k</code>: defined in <a href="#nw1">1</a>; used in <a href="#nw2">2</a></li>' "$tmp/good.html.md" &&
  ! grep -q 'nwbegin\|hyperlink\|{=latex}' "$tmp/good.html.md"
}
t_measured_data() {
  tools/weave.sh -v draft=1 $fx/data.nw > "$tmp/data.md" 2>/dev/null
  grep -q 'Fast took 2.0 ms,' "$tmp/data.md" && grep -q '^4.0 times slow;' "$tmp/data.md" &&
  grep -q '^2.00 quarter.' "$tmp/data.md" && grep -q '^| slow | 100 |' "$tmp/data.md" &&
  grep -q 'Missing: \[not yet measured\]' "$tmp/data.md" &&
  grep -q 'New column: \[not yet measured\]' "$tmp/data.md" &&
  grep -q '^| slow | 8.0 |$' "$tmp/data.md" &&
  grep -q 'Missing product: \[not yet measured\]' "$tmp/data.md" &&
  expect_fail "$fx/data.nw:9: no data in tests/tools/fixtures/nothing.csv" \
    tools/weave.sh $fx/data.nw &&
  expect_fail "$fx/data.nw:11: no column ns in tests/tools/fixtures/data.csv" \
    tools/weave.sh $fx/data.nw &&
  expect_fail "$fx/data.nw:15: no row variant=medium in tests/tools/fixtures/data.csv" \
    tools/weave.sh $fx/data.nw
}
# csvmul's factors: device facts (sms) and values of another file of the
# same GPU, so that a per-SM figure types no SM count; a missing fact fails.
t_csvmul_factors() {
  local d="$tmp/mul" top=$PWD
  mkdir -p "$d/figures/data/fx" &&
  printf '# gpu: fixture\nfact,value\nsms,132\n' > "$d/figures/data/fx/memory-device.csv" &&
  printf '# gpu: fixture\nvariant,ms\na,2.0\n' > "$d/figures/data/fx/other.csv" &&
  printf '# Mul\n\nPer SM {{csvmul:figures/data/$GPU/other.csv:variant=a:ms:1/2*sms:%%.5f}};\nproduct {{csvmul:figures/data/$GPU/other.csv:variant=a:ms:sms*other.csv!variant=a!ms:%%.1f}}.\n' > "$d/mul.nw" &&
  (cd "$d" && "$top/tools/weave.sh" -v gpu=fx mul.nw > mul.md) &&
  grep -q '^Per SM 0.00758;' "$d/mul.md" && grep -q '^product 528.0.' "$d/mul.md" &&
  sed -i 's/1\/2\*sms/1\/2*nosuch/' "$d/mul.nw" &&
  expect_fail "mul.nw:3: no row fact=nosuch in figures/data/fx/memory-device.csv" \
    bash -c "cd '$d' && '$top/tools/weave.sh' -v gpu=fx mul.nw"
}
t_book_has_no_drift() { tools/check.sh; }
t_bad_chapter_fails_make() {
  mkdir -p "$tmp/book/chapters" && cp -r tools Makefile "$tmp/book/" &&
  cp $fx/undefined-chunk.nw "$tmp/book/chapters/x.nw" &&
  printf 'title: x\nchapters:\n  - x\nbuild:\n  code-width: 78\n  archs: sm_90\n  gpu: none\n' > "$tmp/book/book.yaml" &&
  expect_fail "chapters/x.nw:6: chunk <<Do the work>> is used but never defined" make -C "$tmp/book" -s tangle &&
  expect_fail "chapters/x.nw:6: chunk <<Do the work>> is used but never defined" make -C "$tmp/book" -s build/book.md
}
t_drift_is_reported() {
  mkdir -p "$tmp/drift" && cp -r tools Makefile book.yaml chapters tangled "$tmp/drift/" &&
  printf '// edited by hand\n' >> "$tmp/drift/tangled/threads/threads.h" &&
  expect_fail "tangled/threads/threads.h:[0-9]*: differs from what the chapters say" make -C "$tmp/drift" -s check
}
t_skip_is_not_a_pass() {
  printf '#!/bin/sh\necho "[ RUN      ] a"; echo "[  SKIPPED ] a"; echo "[ RUN      ] b"; echo "[       OK ] b"; echo "[ RUN      ] c"; exit 1\n' > "$tmp/p" &&
  chmod +x "$tmp/p" && { tools/run-tests.sh "$tmp/p" > "$tmp/o"; test $? -ne 0; } &&
  tail -1 "$tmp/o" | grep -qx '1 passed, 1 failed, 1 skipped'
}
t_ncu_values() {
  . tools/ncu-lib.sh &&
  test "$(ncu_values $fx/ncu.csv l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum dram__bytes_read.sum)" = 1021,67132672 &&
  expect_fail "ncu_values: no dram__bytes_write.sum in the ncu output" bash -c ". tools/ncu-lib.sh; ncu_values $fx/ncu.csv dram__bytes_write.sum"
}

# ncu_rows: a log of three launches, split by result ID into named rows;
# the third launch lacks a metric, so asking for three rows fails.
t_ncu_rows() {
  . tools/ncu-lib.sh && cp $fx/ncu-launches.csv "$tmp/log" && : > "$tmp/rows" &&
  ncu_rows "$tmp/log" "$tmp/rows" "dram__throughput.avg.pct_of_peak_sustained_elapsed smsp__inst_executed.sum" \
    staged ballot > /dev/null &&
  test "$(cat "$tmp/rows")" = "$(printf 'staged,71.25,1048576\nballot,88.5,524288')" &&
  test ! -e "$tmp/log.one" &&
  expect_fail "ncu_values: no smsp__inst_executed.sum in the ncu output" bash -c \
    ". tools/ncu-lib.sh; ncu_rows $tmp/log $tmp/rows 'dram__throughput.avg.pct_of_peak_sustained_elapsed smsp__inst_executed.sum' a b c"
}

# ncu_table: a run per variant through a stand-in ncu that prints the
# fixture, the variant's arguments from ncu_args, and "-" for a metric
# this ncu does not know; a failing ncu fails the table.
t_ncu_table() {
  printf '#!/bin/sh\necho "$@" >> %s/args\ncat %s/ncu.csv\n' "$tmp" "$fx" > "$tmp/fake-ncu" && chmod +x "$tmp/fake-ncu" &&
  (. tools/ncu-lib.sh && NCU=$tmp/fake-ncu && bench=/bin/true && out=$tmp/table.csv && tmp2=$tmp &&
   tmp=$tmp2/table.tmp && log=$tmp2/table.log &&
   NCU_KNOWN=$(printf 'dram__bytes_read\nl1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld\n') &&
   ncu_args() { echo --ncu "$1" extra; } &&
   ncu_table "read:dram__bytes_read.sum
gone:dram__bytes_write.sum
conflicts:l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum" 'k' "a note" one two > /dev/null) &&
  test "$(grep -v '^#' "$tmp/table.csv")" = "$(printf 'variant,read,gone,conflicts\none,67132672,-,1021\ntwo,67132672,-,1021')" &&
  grep -q -- '--metrics dram__bytes_read.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum --csv --print-units base /bin/true --ncu two extra' "$tmp/args" &&
  grep -q '^# a note' "$tmp/table.csv" &&
  expect_fail "counters: ncu failed for one" bash -c ". tools/ncu-lib.sh; NCU=/bin/false bench=/bin/true out=$tmp/t2.csv tmp=$tmp/t2.tmp log=$tmp/t2.log NCU_KNOWN=x; ncu_table 'a:x.sum' k note one"
}

# The package audit names the program that read each file: the last one
# its process exec'd, or its parent's at the fork (a fixture of three
# strace -ff files: make, a forked child that runs nothing, a vfork that
# runs xelatex after a failed PATH lookup).
t_trace_names_reader() {
  gawk -f tools/trace-reads.awk $fx/trace/run.* > "$tmp/reads" &&
  grep -qxF "$(printf '/usr/include/stdio.h\t/usr/bin/make [make, -s, pdf] (pid 100)')" "$tmp/reads" &&
  grep -qxF "$(printf '/usr/bin/xelatex\t/usr/bin/make [make, -s, pdf] (pid 100)')" "$tmp/reads" &&
  grep -qxF "$(printf '/usr/share/fonts/x.ttf\t/usr/bin/xelatex [xelatex, book.tex] (pid 102)')" "$tmp/reads" &&
  ! grep -q 'missing\|/usr/local/bin/xelatex' "$tmp/reads" || { cat "$tmp/reads"; return 1; }
}
# The web edition's pandoc step fails on a formula pandoc cannot write as
# MathML (it would show as raw TeX on the page), and passes a good one.
t_html_math_warning_fails() {
  tools/pandoc-html.sh $fx/math-convertible.md "$tmp/math-ok.html" && grep -q '<math' "$tmp/math-ok.html" &&
  expect_fail 'Could not convert TeX math t \\bmod' tools/pandoc-html.sh $fx/math-unconvertible.md "$tmp/math-bad.html" &&
  test ! -e "$tmp/math-bad.html"
}

for t in undefined_tangle undefined_weave prose_shift_tangle prose_shift_weave unused_and_wide \
         launch_tangles line_directives compiler_names_chapter_line tangle_deterministic weave_markdown weave_html measured_data csvmul_factors book_has_no_drift \
         bad_chapter_fails_make drift_is_reported skip_is_not_a_pass ncu_values ncu_rows ncu_table trace_names_reader; do
  run "$t" "t_$t"
done
if command -v pandoc >/dev/null 2>&1; then run html_math_warning_fails t_html_math_warning_fails
else echo "[ RUN      ] html_math_warning_fails"; echo "skipped: pandoc not installed"; echo "[  SKIPPED ] html_math_warning_fails"; fi
