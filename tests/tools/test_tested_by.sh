#!/bin/bash
# test_tested_by.sh -- tools/tested-by.sh and the weave's "Tested by" notes
# on a book of one chapter (tests/tools/fixtures/tested-by/): a header
# with three launchers, one that a test calls directly (and another
# through a macro), one that a test reaches through a table in a header of
# tests/fx/, one that only an unregistered test calls; and a test whose
# body holds a #define.  In cmocka's output
# format, for tools/run-tests.sh.  Needs gawk (and noweb for the weave);
# without them each test is reported as skipped.
cd "$(dirname "$0")/../.." || exit 1
top=$PWD
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
book=$tmp/book
mkdir -p "$book" && cp -r tools "$book/" && cp -r tests/tools/fixtures/tested-by/. "$book/"
have_gawk=1; command -v gawk >/dev/null 2>&1 || have_gawk=0
have_noweb=1; command -v notangle >/dev/null 2>&1 || have_noweb=0

run() {   # run NAME NEEDS COMMAND...: the command must exit 0
  local name=$1 needs=$2; shift 2
  echo "[ RUN      ] $name"
  if [ $have_gawk = 0 ] || { [ "$needs" = noweb ] && [ $have_noweb = 0 ]; }; then
    echo "skipped: gawk or noweb not installed"; echo "[  SKIPPED ] $name"; return
  fi
  if out=$("$@" 2>&1); then echo "[       OK ] $name"; else echo "$out" | tail -8; echo "[  FAILED  ] $name"; fi
}
tab=$(printf '\t')

# The mapping: every launcher of the header, in order, with the tests that
# reach it; nothing for the macro, the typedef, the static inline helper
# or the C++ template.
t_map_lists_tests() {
  "$book/tools/tested-by.sh" > "$tmp/map" || return 1
  printf 'fx\tfx_direct\tdirect_call through_macro\nfx\tfx_table\tthrough_table\nfx\tfx_untested\t\n' > "$tmp/want"
  diff "$tmp/want" "$tmp/map"
}
# The check names the launcher that no registered test calls, at its line
# of the header, and only that one; it fails.
t_check_names_untested() {
  if "$book/tools/tested-by.sh" check > "$tmp/check" 2>&1; then echo "expected a failure, got success"; return 1; fi
  local want="tangled/fx/fx.h:16: launcher fx_untested is declared but no test in tests/fx calls it"
  [ "$(cat "$tmp/check")" = "$want" ] || { echo "expected: $want"; echo "got:"; cat "$tmp/check"; return 1; }
}
# Once a test calls it, the check passes.
t_check_passes_when_called() {
  cp -r "$book" "$tmp/called" &&
  sed -i 's/cmocka_unit_test(through_table),/&\n        cmocka_unit_test(never_registered),/' "$tmp/called/tests/fx/test_fx.c" &&
  "$tmp/called/tools/tested-by.sh" check &&
  grep -qx "fx${tab}fx_untested${tab}never_registered" <("$tmp/called/tools/tested-by.sh")
}
# A #define inside a test's body is a macro of its own and still part of
# the test: a launcher the test calls after it is reached.
t_define_inside_a_test() {
  cp -r "$book" "$tmp/local" &&
  sed -i 's/^    assert_int_equal(fx_direct(NULL, 0), cudaSuccess);/#define LOCAL_N 0\n    assert_int_equal(LOCAL_N, 0);\n#undef LOCAL_N\n    assert_int_equal(fx_untested(NULL, 0), cudaSuccess);\n&/' \
    "$tmp/local/tests/fx/test_fx.c" &&
  grep -q '^#define LOCAL_N' "$tmp/local/tests/fx/test_fx.c" &&
  grep -qx "fx${tab}fx_untested${tab}direct_call" <("$tmp/local/tools/tested-by.sh") &&
  grep -qx "fx${tab}fx_direct${tab}direct_call through_macro" <("$tmp/local/tools/tested-by.sh")
}
# The weave: the chunks that define fx_direct and fx_table say which tests
# call them, in the PDF's markup and the web edition's; the interface's
# declarations and the untested launcher's chunk say nothing.
t_weave_says_tested_by() {
  "$book/tools/tested-by.sh" > "$tmp/map" &&
  (cd "$book" && tools/weave.sh -v testedby="$tmp/map" chapters/fx.nw) > "$tmp/fx.md" &&
  grep -qxF '\nwend{\raggedright Used in \hyperlink{nw2}{2}. \newline Tested by \texttt{direct\_call}, \texttt{through\_macro}.}' "$tmp/fx.md" &&
  grep -qxF '\nwend{\raggedright Used in \hyperlink{nw2}{2}. \newline Tested by \texttt{through\_table}.}' "$tmp/fx.md" &&
  test "$(grep -c 'Tested by' "$tmp/fx.md")" = 2 &&
  (cd "$book" && tools/weave.sh -v format=html -v testedby="$tmp/map" chapters/fx.nw) > "$tmp/fx.html.md" &&
  grep -qF '<div class="nwfoot">Used in <a href="#nw2">2</a>. <br>Tested by <code>direct_call</code>, <code>through_macro</code>.</div></div>' "$tmp/fx.html.md" &&
  grep -qF '<br>Tested by <code>through_table</code>.</div></div>' "$tmp/fx.html.md" &&
  test "$(grep -c 'Tested by' "$tmp/fx.html.md")" = 2
}
# Without the file, or with one that is not there (a warning), the weave
# is what it was before: no notes.
t_weave_without_file() {
  (cd "$book" && tools/weave.sh chapters/fx.nw) > "$tmp/plain.md" &&
  ! grep -q 'Tested by' "$tmp/plain.md" &&
  (cd "$book" && tools/weave.sh -v testedby="$tmp/none" chapters/fx.nw) > "$tmp/none.md" 2> "$tmp/err" &&
  cmp "$tmp/plain.md" "$tmp/none.md" && grep -q "cannot read $tmp/none" "$tmp/err"
}

run map_lists_tests gawk t_map_lists_tests
run check_names_untested gawk t_check_names_untested
run check_passes_when_called gawk t_check_passes_when_called
run define_inside_a_test gawk t_define_inside_a_test
run weave_says_tested_by noweb t_weave_says_tested_by
run weave_without_file noweb t_weave_without_file
