#!/bin/bash
# test_build.sh -- the build's own promises, on a one-chapter fixture book
# (tests/tools/fixtures/book) copied with the real Makefile and tools:
# what is compiled, nvcc found, rebuilds exactly when an input changes,
# measurements written per GPU.  Output in cmocka's format for run-tests.sh;
# each test is skipped, saying why, where noweb, gawk or nvcc is missing.
cd "$(dirname "$0")/../.." || exit 1
top=$PWD
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. tests/tools/kit.sh
NVCC_HERE=$(nvcc_here)
# The builds below find nvcc themselves, as a reader's would: nothing of the
# make that runs this test (make test exports NVCC and MAKEFLAGS) leaks in.
unset NVCC MAKEFLAGS MAKELEVEL MFLAGS

run() {   # run NAME NEEDS COMMAND...: NEEDS: noweb, nvcc
  local name=$1 need=$2 why=""; shift 2
  case $need in *noweb*) command -v notangle >/dev/null && command -v gawk >/dev/null || why="noweb and gawk";; esac
  case $need in *nvcc*) [ -n "$NVCC_HERE" ] || why="${why:+$why, }nvcc";; esac
  run_unless "$name" "$why" 15 "$@"
}
# book DIR: a fresh copy of the fixture book with the real machinery, tangled.
book() {
  rm -rf "$1" && mkdir -p "$1/tests" && cp -r tests/tools/fixtures/book/. "$1/" &&
  cp -r Makefile tools "$1/" && cp -r tests/common "$1/tests/" &&
  { [ -d .deps ] && cp -r .deps "$1/" || true; } && make -C "$1" -s tangle > /dev/null
}
# compiles DIR TARGET: the output files make -n would compile or link for TARGET.
compiles() { make -C "$1" -n "$2" ARCHS="${3:-sm_90}" 2>/dev/null | grep -E '(nvcc|gcc) ' | grep -o ' -o [^ ]*' | sed 's/ -o //'; }
# A PATH with this machine's commands except noweb and gawk (and not CUDA's bin).
nonoweb_path() {
  mkdir -p "$tmp/bin" && for f in /usr/bin/* /bin/*; do
    case ${f##*/} in notangle|noweave|noweb|noroots|gawk|gawk-*|awk) continue ;; esac
    [ -e "$tmp/bin/${f##*/}" ] || [ -L "$tmp/bin/${f##*/}" ] || ln -s "$f" "$tmp/bin/${f##*/}"
  done
  ln -sf "$(command -v mawk || command -v original-awk || echo /usr/bin/mawk)" "$tmp/bin/awk"
  echo "$tmp/bin"
}

t_drift_stops_the_build() {
  book "$tmp/a" && make -C "$tmp/a" -s build/tiny/test &&
  echo '#error appended by hand' >> "$tmp/a/tangled/tiny/tiny.cu" &&
  expect_fail "tangled/tiny/tiny.cu:[0-9]*: differs from what the chapters say" make -C "$tmp/a" -s build/tiny/test
}
t_new_root_chunk_is_compiled() {
  book "$tmp/b" &&
  printf '\n<<tangled/tiny/mine.cu>>=\n#error a new file\n@\n' >> "$tmp/b/chapters/tiny.nw" &&
  expect_fail "tangled/tiny/mine.cu:1: missing; the chapters write it" make -C "$tmp/b" -s build/tiny/test &&
  make -C "$tmp/b" -s tangle > /dev/null &&
  expect_fail "chapters/tiny.nw.*a new file" make -C "$tmp/b" -s build/tiny/test
}
t_without_noweb_chapter_edit_stops_the_build() {
  book "$tmp/c" && local p; p=$(nonoweb_path) &&
  PATH=$p make -C "$tmp/c" -s build/tiny/test > "$tmp/c.log" 2>&1 &&
  grep -q "compiling the committed tangled/ (noweb is not installed)" "$tmp/c.log" &&
  echo '#error edited by hand' >> "$tmp/c/tangled/tiny/tiny.cu" &&
  expect_fail "tangled/.codesum:2: the files of tangled/ are not what make tangle wrote" \
    env PATH="$p" make -C "$tmp/c" -s build/tiny/test &&
  sed -i '$d' "$tmp/c/tangled/tiny/tiny.cu" &&
  sed -i 's/x\[i\] \*= 2.0f;/x[i] *= 3.0f;/' "$tmp/c/chapters/tiny.nw" &&
  expect_fail "tangled/.codesum:1: the chapters' code is not what tangled/ was written from" \
    env PATH="$p" make -C "$tmp/c" -s build/tiny/test
}
t_nvcc_found_off_path() {
  [ -x /usr/local/cuda/bin/nvcc ] || { echo "skipped: no /usr/local/cuda/bin/nvcc to find"; return 77; }
  local p; book "$tmp/d" && p=$(nonoweb_path) || return 1
  env -u CUDA_HOME PATH="$p" make -C "$tmp/d" -s -p nvcc-found 2>/dev/null | grep -qx 'NVCC := /usr/local/cuda/bin/nvcc' &&
  env -u CUDA_HOME PATH="$p" make -C "$tmp/d" -s build/tiny/test &&
  expect_fail "NVCC=/nonexistent/nvcc: no such program" make -C "$tmp/d" -s NVCC=/nonexistent/nvcc build/tiny/test &&
  expect_fail "nvcc not found (tried nvcc on PATH, /opt/none/bin/nvcc, /usr/local/cuda/bin/nvcc)" \
    make -C "$tmp/d" -s NVCC= CUDA_HOME=/opt/none nvcc-found
}
t_check_tangle_pdf_need_no_compiler() {
  book "$tmp/e" && make -C "$tmp/e" -s NVCC=/nonexistent/nvcc check > /dev/null &&
  make -C "$tmp/e" -s NVCC=/nonexistent/nvcc tangle > /dev/null &&
  make -C "$tmp/e" -s NVCC=/nonexistent/nvcc build/book.md
}
t_rebuilds_exactly_what_changed() {
  book "$tmp/f" && make -C "$tmp/f" -s build/tiny/test > /dev/null || return 1
  local t0 t1; t0=$(date +%s%N)
  make -C "$tmp/f" -s build/tiny/test > /dev/null; t1=$(date +%s%N)
  echo "timing: no-op build: $(( (t1 - t0) / 1000000 )) ms"
  [ -z "$(compiles "$tmp/f" build/tiny/test)" ] || { echo "a no-op compiles:"; compiles "$tmp/f" build/tiny/test; return 1; }
  # Prose after the code: nothing to compile.
  echo "More prose." >> "$tmp/f/chapters/tiny.nw"
  [ -z "$(compiles "$tmp/f" build/tiny/test)" ] || { echo "a prose edit compiles:"; compiles "$tmp/f" build/tiny/test; return 1; }
  # Prose before the code moves only its #line directives: nothing either.
  sed -i 's/^A chapter with one kernel/A chapter with one\nkernel/' "$tmp/f/chapters/tiny.nw"
  [ -z "$(compiles "$tmp/f" build/tiny/test)" ] || { echo "a moved chunk compiles:"; compiles "$tmp/f" build/tiny/test; return 1; }
  # A code edit: the chapter's object, and the test program relinked.
  sed -i 's/x\[i\] \*= 2.0f;/x[i] *= 2.5f;/' "$tmp/f/chapters/tiny.nw" && make -C "$tmp/f" -s tangle > /dev/null
  test "$(compiles "$tmp/f" build/tiny/test | tr '\n' ' ')" = "build/obj/tiny/tiny.o build/tiny/test " ||
    { echo "a code edit compiles:"; compiles "$tmp/f" build/tiny/test; return 1; }
  t0=$(date +%s%N); make -C "$tmp/f" -s build/tiny/test > /dev/null; t1=$(date +%s%N)
  echo "timing: one-chapter rebuild: $(( (t1 - t0) / 1000000 )) ms"
  # Flags are an input: other architectures rebuild everything.
  test "$(compiles "$tmp/f" build/tiny/test sm_80 | wc -l)" -ge 3 || { echo "ARCHS=sm_80 rebuilt nothing"; return 1; }
  # And in a real build, not only make -n, run as a reader does (no -s: with
  # no one-letter option, MAKEFLAGS once made every run look dry): ARCH=sm_80
  # reaches the flags file and recompiles, and so does going back.  (Not
  # make -C, which adds its own one-letter w.)
  touch "$tmp/mark"; sleep 1
  (cd "$tmp/f" && make build/tiny/test ARCH=sm_80 > /dev/null 2>&1) && grep -q 'code=\[sm_80' "$tmp/f/build/nvcc.flags" &&
    [ "$tmp/f/build/obj/tiny/tiny.o" -nt "$tmp/mark" ] || { echo "a build with ARCH=sm_80 did not recompile"; return 1; }
  touch "$tmp/mark"; sleep 1
  (cd "$tmp/f" && make build/tiny/test > /dev/null 2>&1) && ! grep -q 'code=\[sm_80' "$tmp/f/build/nvcc.flags" &&
    [ "$tmp/f/build/obj/tiny/tiny.o" -nt "$tmp/mark" ] || { echo "going back from ARCH=sm_80 did not recompile"; return 1; }
  # A header is an input: the launcher's header changes the test program too.
  sed -i 's/^cudaError_t tiny_scale(float \*x, size_t n);/cudaError_t tiny_scale(float *x, size_t n); \/\/ scales by 2/' "$tmp/f/chapters/tiny.nw" &&
  make -C "$tmp/f" -s tangle > /dev/null &&
  compiles "$tmp/f" build/tiny/test | grep -qx build/tiny/test_tiny.o || { echo "a header edit did not rebuild the test"; return 1; }
}
t_draft_and_gpu_are_weave_inputs() {
  book "$tmp/g" && make -C "$tmp/g" -s build/book.md &&
  [ -z "$(make -C "$tmp/g" -n build/book.md | grep weave.sh)" ] &&
  make -C "$tmp/g" -n build/book.md DRAFT=1 | grep -q weave.sh &&
  make -C "$tmp/g" -n build/book.md GPU=other | grep -q 'gpu=other'
}
t_bench_writes_its_gpu_folder() {
  book "$tmp/h" && mkdir -p "$tmp/h/figures/data/tiny-gpu" && echo keep > "$tmp/h/figures/data/tiny-gpu/old.csv" &&
  printf '#!/bin/sh\nprintf "%%s\\nx,y\\n1,2\\n" "$BOOK_PROVENANCE" > figures/data/$BOOK_GPU/fake.csv\n' > "$tmp/h/fake-bench" &&
  chmod +x "$tmp/h/fake-bench" &&
  (cd "$tmp/h" && BOOK_COMMIT=abc1234 tools/bench.sh other-gpu "" ./fake-bench) &&
  grep -q '^# commit: abc1234' "$tmp/h/figures/data/other-gpu/fake.csv" &&
  test "$(cat "$tmp/h/figures/data/tiny-gpu/old.csv")" = keep && [ ! -e "$tmp/h/figures/data/tiny-gpu/fake.csv" ] &&
  test "$(tools/gpu-slug.sh 'NVIDIA GeForce RTX 4090')" = geforce-rtx-4090 &&
  test "$(tools/gpu-slug.sh 'NVIDIA H200')" = h200 &&
  test "$(tools/csvget.sh tests/tools/fixtures/data.csv variant=fast ms)" = 2.0
}
t_cmocka_of_any_machine() {
  book "$tmp/i" && mkdir -p "$tmp/cm/usr/include" "$tmp/cm/usr/lib/aarch64-linux-gnu" &&
  touch "$tmp/cm/usr/include/cmocka.h" "$tmp/cm/usr/lib/aarch64-linux-gnu/libcmocka.so.0" &&
  make -C "$tmp/i" -s -p CMOCKA_DIR="$tmp/cm/usr" nvcc-found 2>/dev/null |
    grep -q "^CMOCKA_LIBS := -L$tmp/cm/usr/lib/aarch64-linux-gnu "
}
t_prose_names_only_real_tests() {
  book "$tmp/j" && (cd "$tmp/j" && tools/prose-refs.sh) &&
  sed -i 's/The test `null_is_refused`/The test `no_such_test`/' "$tmp/j/chapters/tiny.nw" &&
  expect_fail "chapters/tiny.nw:[0-9]*: the prose names test no_such_test" bash -c "cd '$tmp/j' && tools/prose-refs.sh"
}

# Inserting a chapter touches book.yaml and the chapter's own files only:
# a book of two chapters (tiny, and tail, which links it) gains middle
# between them; it builds, its test and the others pass, the weave puts it
# second, and no other file of the book changed (make tangle rewrites
# tangled/.codesum, the checksum over every chapter's code).
t_insert_a_chapter() {
  local b="$tmp/ins" fx=$top/tests/tools/fixtures/insert
  book "$b" && cp "$fx/chapters/tail.nw" "$b/chapters/" && cp -r "$fx/tests/tail" "$b/tests/" &&
  sed -i 's/^  - tiny$/  - tiny\n  - tail: {links: [tiny]}/' "$b/book.yaml" &&
  make -C "$b" -s tangle > /dev/null && make -C "$b" -s test > "$tmp/ins1.log" 2>&1 &&
  grep -q '^\[       OK \] tail_null_is_refused' "$tmp/ins1.log" || { cat "$tmp/ins1.log"; return 1; }
  snap() { (cd "$b" && find . -type f ! -path './build/*' ! -path './.deps/*' ! -name .codesum | LC_ALL=C sort | xargs sha256sum); }
  snap > "$tmp/ins.before" &&
  sed -i 's/^  - tiny$/  - tiny\n  - middle: {links: [tiny]}/' "$b/book.yaml" &&
  cp "$fx/chapters/middle.nw" "$b/chapters/" && cp -r "$fx/tests/middle" "$b/tests/" &&
  make -C "$b" -s tangle > /dev/null && make -C "$b" -s check > /dev/null &&
  make -C "$b" -s test > "$tmp/ins2.log" 2>&1 || { cat "$tmp/ins2.log"; return 1; }
  for t in null_is_refused middle_null_is_refused tail_null_is_refused; do
    grep -q "^\[       OK \] $t\$" "$tmp/ins2.log" || { echo "$t did not pass:"; cat "$tmp/ins2.log"; return 1; }
  done
  (cd "$b" && tools/weave.sh $(tools/chapters.sh | sed 's|.*|chapters/&.nw|')) > "$tmp/ins.md" &&
  [ "$(grep -o '^# [A-Z][a-z]* {#ch:[a-z]*}' "$tmp/ins.md" | tr '\n' ' ')" = \
    "# Tiny {#ch:tiny} # Middle {#ch:middle} # Tail {#ch:tail} " ] || { echo "weave order:"; grep '^# ' "$tmp/ins.md"; return 1; }
  snap > "$tmp/ins.after"
  changed=$(join -j 2 <(sort -k2 "$tmp/ins.before") <(sort -k2 "$tmp/ins.after") | awk '$2 != $3 { print $1 }')
  [ "$changed" = ./book.yaml ] || { echo "files changed besides book.yaml: $changed"; return 1; }
}
run drift_stops_the_build "noweb nvcc" t_drift_stops_the_build
run new_root_chunk_is_compiled "noweb nvcc" t_new_root_chunk_is_compiled
run without_noweb_chapter_edit_stops_the_build "noweb nvcc" t_without_noweb_chapter_edit_stops_the_build
run nvcc_found_off_path "noweb nvcc" t_nvcc_found_off_path
run check_tangle_pdf_need_no_compiler "noweb" t_check_tangle_pdf_need_no_compiler
run rebuilds_exactly_what_changed "noweb nvcc" t_rebuilds_exactly_what_changed
run draft_and_gpu_are_weave_inputs "noweb" t_draft_and_gpu_are_weave_inputs
run bench_writes_its_gpu_folder "noweb" t_bench_writes_its_gpu_folder
run cmocka_of_any_machine "noweb" t_cmocka_of_any_machine
run prose_names_only_real_tests "noweb" t_prose_names_only_real_tests
run insert_a_chapter "noweb nvcc" t_insert_a_chapter
