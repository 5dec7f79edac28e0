#!/bin/bash
# test_chapter_numbers.sh -- tools/chapter-numbers.sh (make check) finds a
# chapter named by its number in the book's files wherever the book is: in
# the git checkout, and in an unpacked source archive, which has no .git
# (the files that .book-files lists, and any file added since), and in a
# bare copy with neither.  Output in cmocka's format for run-tests.sh.
cd "$(dirname "$0")/../.." || exit 1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
ch=chapter   # the word, kept apart from its number here, or make check would find this file
. tests/tools/kit.sh
# copy DIR: the book's chapters, tests, exercises and README, and the tool,
# with no .git (as git archive, or as they are here outside a checkout)
copy() {
  mkdir -p "$1/tools" && cp tools/chapter-numbers.sh "$1/tools/" &&
  if git rev-parse -q --verify HEAD > /dev/null 2>&1; then
    git ls-files -z chapters tests exercises README.md | tar -c --null -T - | tar -x -C "$1"
  else tar -c chapters tests exercises README.md | tar -x -C "$1"; fi
}
expect_bad() {   # expect_bad DIR FILE:LINE
  if "$1/tools/chapter-numbers.sh" > "$tmp/out" 2>&1; then echo "passed a file naming a chapter by number"; return 1; fi
  grep -q "^$2: names a chapter by number" "$tmp/out" || { echo "did not name $2:"; cat "$tmp/out"; return 1; }
}

echo "[ RUN      ] chapter_numbers_book_passes"
tools/chapter-numbers.sh; result chapter_numbers_book_passes $?

echo "[ RUN      ] chapter_numbers_in_an_unpacked_archive"
st=0
copy "$tmp/a" && (cd "$tmp/a" && find chapters tests exercises README.md -type f | LC_ALL=C sort | xargs -d '\n' sha256sum > .book-files) || st=1
[ ! -e "$tmp/a/.git" ] || st=1
"$tmp/a/tools/chapter-numbers.sh" || { echo "the unpacked copy, unchanged, fails"; st=1; }
n=$(($(wc -l < "$tmp/a/chapters/scan.nw") + 1))
echo "Read ${ch} 9 first." >> "$tmp/a/chapters/scan.nw"
expect_bad "$tmp/a" "chapters/scan.nw:$n" || st=1
# a file added since the archive was made, which .book-files does not list
sed -i '$d' "$tmp/a/chapters/scan.nw"
echo "As ${ch} 3 showed." > "$tmp/a/chapters/added.nw"
expect_bad "$tmp/a" "chapters/added.nw:1" || st=1
result chapter_numbers_in_an_unpacked_archive $st

echo "[ RUN      ] chapter_numbers_in_a_bare_copy"
st=0
copy "$tmp/b" || st=1
echo "See ${ch} 12." >> "$tmp/b/README.md"
expect_bad "$tmp/b" "README.md:$(wc -l < "$tmp/b/README.md")" || st=1
result chapter_numbers_in_a_bare_copy $st
