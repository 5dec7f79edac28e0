#!/bin/bash
# test_dist.sh -- the source archive that the web edition ships (make dist,
# tools/dist.sh) is the book as committed, and a reader who unpacks it can
# check and test it: the archive holds exactly the commit's files and names
# the commit, and carries the history in which a reader finds every commit
# that a measurement's provenance names; a tree that is no checkout and no archive is refused; in a
# fresh temporary folder the unpacked tree passes `make check` and
# `make test CH=threads` (one chapter, to keep this test to a few minutes:
# the CPU-only run where there is no GPU, GPU tests skipped) and makes its
# own archive again; and the preface names the toolkit that the book's
# measurements were taken with.  Output in cmocka's format for
# run-tests.sh; each test is skipped, saying why, where git, noweb, gawk or
# nvcc is missing.
cd "$(dirname "$0")/../.." || exit 1
top=$PWD
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. tests/tools/kit.sh
NVCC_HERE=$(nvcc_here)
# The builds in the unpacked tree find their tools themselves, as a
# reader's would: nothing of the make that runs this test leaks in.
unset NVCC MAKEFLAGS MAKELEVEL MFLAGS
archive=build/dist/cuda-c-verified-src.tar.gz
checkout=""; [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$top" ] && git rev-parse -q --verify HEAD > /dev/null && checkout=yes

run() {   # run NAME NEEDS COMMAND...: NEEDS: git, noweb, nvcc, archive
  local name=$1 need=$2 why=""; shift 2
  case $need in *git*) [ -n "$checkout" ] || why="a git checkout of the book";; esac
  case $need in *archive*) [ -n "$checkout" ] || [ -f .book-files ] || why="a git checkout or an unpacked archive";; esac
  case $need in *noweb*) command -v notangle >/dev/null && command -v gawk >/dev/null || why="${why:+$why, }noweb and gawk";; esac
  case $need in *nvcc*) [ -n "$NVCC_HERE" ] || why="${why:+$why, }nvcc";; esac
  run_unless "$name" "$why" 25 "$@"
}
timed() {         # timed WHAT COMMAND...: run it, then say how long it took
  local what=$1 t0 rc; shift; t0=$(date +%s)
  "$@"; rc=$?
  echo "timing: $what: $(( $(date +%s) - t0 )) s"; return $rc
}
# unpacked DIR: the archive, fresh from make dist, unpacked in DIR (with
# the carried cmocka, as test_build.sh's copies have it).
unpacked() {
  make -s dist > /dev/null && rm -rf "$1" && mkdir -p "$1" && tar -xzf "$archive" -C "$1" &&
  { [ -d .deps ] && cp -r .deps "$1/cuda-c-verified/" || true; }
}

# The archive holds the files of HEAD, no others (but SOURCE, .book-commit,
# .book-files and history.bundle), with their bytes; SOURCE names HEAD; a second make dist
# leaves the same bytes.
t_archive_is_the_commit() {
  make -s dist > /dev/null && [ -f "$archive" ] || { echo "make dist wrote no $archive"; return 1; }
  tar -tzf "$archive" | grep -v '/$' | sed 's|^cuda-c-verified/||' | LC_ALL=C sort > "$tmp/have"
  { git ls-tree -r --name-only HEAD; printf '%s\n' SOURCE .book-commit .book-files
    [ "$(git rev-parse --is-shallow-repository)" = true ] || echo history.bundle; } | LC_ALL=C sort > "$tmp/want"
  diff "$tmp/want" "$tmp/have" > "$tmp/diff" || { echo "the archive's files are not HEAD's (< HEAD only, > archive only):"; head -20 "$tmp/diff"; return 1; }
  mkdir -p "$tmp/x" && tar -xzf "$archive" -C "$tmp/x" &&
  grep -qx "commit: $(git rev-parse HEAD)" "$tmp/x/cuda-c-verified/SOURCE" || { echo "SOURCE does not name HEAD:"; cat "$tmp/x/cuda-c-verified/SOURCE"; return 1; }
  [ "$(cat "$tmp/x/cuda-c-verified/.book-commit")" = "$(git rev-parse --short HEAD)" ] || { echo ".book-commit is not HEAD's short hash"; return 1; }
  local f
  for f in $(git ls-tree -r --name-only HEAD | head -400); do
    cmp -s <(git show "HEAD:$f") "$tmp/x/cuda-c-verified/$f" || { echo "$f: not the bytes of HEAD"; return 1; }
  done
  (cd "$tmp/x/cuda-c-verified" && sha256sum --quiet -c .book-files) || { echo ".book-files does not match the files"; return 1; }
  cp "$archive" "$tmp/first.tgz" && make -s dist > /dev/null && cmp -s "$tmp/first.tgz" "$archive" || { echo "a second make dist changed the archive"; return 1; }
}
# The provenance of every measurement names the commit it was measured at
# (figures/data/*/*.csv, "# commit:"; the tables' captions print it): a
# reader finds each such commit in the archive's history.bundle, which
# SOURCE tells how to open, and the bundle ends at the archive's commit.
t_history_has_the_cited_commits() {
  if [ "$(git rev-parse --is-shallow-repository)" = true ]; then echo "skipped: a shallow clone has no history to bundle"; return 77; fi
  make -s dist > /dev/null && rm -rf "$tmp/h" && mkdir -p "$tmp/h" && tar -xzf "$archive" -C "$tmp/h" || return 1
  local d=$tmp/h/cuda-c-verified c missing=""
  [ -f "$d/history.bundle" ] || { echo "the archive has no history.bundle"; return 1; }
  grep -q 'git clone history.bundle' "$d/SOURCE" || { echo "SOURCE does not say how to open history.bundle:"; cat "$d/SOURCE"; return 1; }
  git clone -q "$d/history.bundle" "$tmp/h/clone" 2> "$tmp/h/err" || { cat "$tmp/h/err"; echo "git clone history.bundle failed"; return 1; }
  [ "$(git -C "$tmp/h/clone" rev-parse HEAD)" = "$(git rev-parse HEAD)" ] || { echo "history.bundle does not end at the archive's commit"; return 1; }
  for c in $(sed -n 's/^# commit: *//p' figures/data/*/*.csv | sort -u); do
    case $c in unknown|"") continue ;; esac
    git -C "$tmp/h/clone" cat-file -e "$c^{commit}" 2> /dev/null || missing="$missing $c"
  done
  [ -z "$missing" ] || { echo "commits named by figures/data/*/*.csv that history.bundle lacks (not in HEAD's history):$missing"; return 1; }
  grep -q 'history.bundle' tools/csv.awk || { echo "tools/csv.awk's provenance does not say where its commit is found"; return 1; }
}
# Neither a checkout nor an unpacked archive: make dist refuses, saying why.
t_refuses_without_a_source() {
  mkdir -p "$tmp/bare/tools" && cp tools/dist.sh "$tmp/bare/tools/" &&
  expect_fail "neither a git checkout of the book nor an unpacked source archive" "$tmp/bare/tools/dist.sh" "$tmp/bare/out.tgz" &&
  [ ! -e "$tmp/bare/out.tgz" ]
}
# The unpacked tree passes make check.
t_unpacked_passes_check() {
  unpacked "$tmp/c" && timed "make check in the unpacked tree" make -C "$tmp/c/cuda-c-verified" -s check
}
# The unpacked tree builds and passes one chapter's tests: the summary line
# says something passed and nothing failed.
t_unpacked_passes_test() {
  unpacked "$tmp/t" || return 1
  local t0 rc sum; t0=$(date +%s)
  make -C "$tmp/t/cuda-c-verified" test CH=threads > "$tmp/t.log" 2>&1; rc=$?
  local took=$(( $(date +%s) - t0 ))
  sum=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$tmp/t.log" | tail -1)
  echo "timing: make test CH=threads in the unpacked tree: $took s: $sum"
  [ $rc = 0 ] && [ -n "$sum" ] && [ "${sum%% *}" -gt 0 ] && echo "$sum" | grep -q ' 0 failed' || { tail -25 "$tmp/t.log"; return 1; }
}
# The unpacked tree makes its own archive: the same files, the same commit.
t_unpacked_repacks() {
  unpacked "$tmp/r" && make -C "$tmp/r/cuda-c-verified" -s dist > /dev/null &&
  tar -tzf "$tmp/r/cuda-c-verified/$archive" | LC_ALL=C sort > "$tmp/r2" && tar -tzf "$archive" | LC_ALL=C sort > "$tmp/r1" &&
  diff "$tmp/r1" "$tmp/r2" && mkdir -p "$tmp/rx" && tar -xzf "$tmp/r/cuda-c-verified/$archive" -C "$tmp/rx" &&
  grep -q "^commit: $(sed -n 's/^commit: //p' "$tmp/r/cuda-c-verified/SOURCE")$" "$tmp/rx/cuda-c-verified/SOURCE" &&
  grep -q 'repacked from an unpacked archive' "$tmp/rx/cuda-c-verified/SOURCE" &&
  ! grep -q '^edited since' "$tmp/rx/cuda-c-verified/SOURCE" || { echo "the repacked archive:"; cat "$tmp/rx/cuda-c-verified/SOURCE" 2>/dev/null; return 1; }
}
# The preface's "verified with CUDA X and driver Y" is what every
# measurement file of the book's GPU says (its cuda: and driver: lines).
t_preface_names_the_toolkit() {
  local gpu said cuda driver
  gpu=$(tools/chapters.sh gpu)
  said=$(tr '\n' ' ' < chapters/preface.nw | tr -s ' ' | grep -o 'verified with CUDA [0-9.]* and driver [0-9]*' | head -1)
  [ -n "$said" ] || { echo "chapters/preface.nw does not say 'verified with CUDA X and driver Y'"; return 1; }
  cuda=$(grep -h '^# cuda: ' figures/data/"$gpu"/*.csv | sort -u | sed 's/^# cuda: //')
  driver=$(grep -h '^# driver: ' figures/data/"$gpu"/*.csv | sed 's/^# driver: //; s/\..*//' | sort -u)
  [ "$(echo "$cuda" | wc -l)" = 1 ] && [ "$(echo "$driver" | wc -l)" = 1 ] ||
    { echo "figures/data/$gpu/ was measured with several toolkits or drivers (cuda: $(echo $cuda), driver: $(echo $driver)): the preface must say which"; return 1; }
  [ "$said" = "verified with CUDA $cuda and driver $driver" ] ||
    { echo "chapters/preface.nw says '$said'; figures/data/$gpu/ says cuda $cuda, driver $driver"; return 1; }
}
run archive_is_the_commit "git" t_archive_is_the_commit
run history_has_the_cited_commits "git" t_history_has_the_cited_commits
run dist_refuses_without_a_source "" t_refuses_without_a_source
run unpacked_passes_check "archive noweb" t_unpacked_passes_check
run unpacked_passes_test "archive nvcc" t_unpacked_passes_test
run unpacked_repacks "archive" t_unpacked_repacks
run preface_names_the_toolkit "" t_preface_names_the_toolkit
