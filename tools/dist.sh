#!/bin/bash
# dist.sh OUT.tar.gz -- make dist: the book's own tree, as committed, for a
# reader to unpack, build and test (tests/tools/test_dist.sh does).
#
# In a git checkout of the book it is `git archive` of HEAD (what is
# committed; changes not committed are not in it, and it says so), with
# four files added under the folder cuda-c-verified/:
#   SOURCE          which commit this is (hash, date, subject), in words
#   .book-commit    the short hash, where a tree without git finds its commit
#                   (tools/provenance.sh, tools/gpu-pack.sh)
#   .book-files     sha256sum of every file of the commit
#   history.bundle  the book's git history up to that commit (git bundle):
#                   the commits that the captions' provenance names (each
#                   measurement says the commit it was taken at) are looked
#                   up in it, git clone history.bundle DIR, then git show
#                   COMMIT in DIR.  Left out, with a note, in a shallow clone.
# In an unpacked archive (no git, but .book-files) it packs the files that
# .book-files lists, again naming the commit, and names any file edited
# since.  Anywhere else it refuses: nothing says which files are the book's.
# The archive is the same bytes for the same tree (sorted names, the
# commit's time on every file, gzip -n).  It is written only when it
# changes, so that what depends on it (make html) is not remade for nothing.
set -o pipefail
out=${1:?usage: dist.sh OUT.tar.gz}
top=$(cd "$(dirname "$0")/.." && pwd)
name=cuda-c-verified
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/$name"
if [ "$(git -C "$top" rev-parse --show-toplevel 2>/dev/null)" = "$top" ] && git -C "$top" rev-parse -q --verify HEAD > /dev/null; then
  git -C "$top" archive --format=tar HEAD | tar -x -C "$tmp/$name" || { echo "dist: git archive HEAD failed"; exit 1; }
  hash=$(git -C "$top" rev-parse HEAD); short=$(git -C "$top" rev-parse --short HEAD)
  when=$(git -C "$top" log -1 --format=%cd --date=format:'%Y-%m-%d %H:%M %z' HEAD)
  subject=$(git -C "$top" log -1 --format=%s HEAD)
  stamp=$(git -C "$top" log -1 --format=%ct HEAD)
  (cd "$tmp/$name" && find . -type f | LC_ALL=C sort | sed 's|^\./||' | xargs -d '\n' sha256sum) > "$tmp/files" || exit 1
  how="git archive of commit $short, the tree as committed"
  edited=""
  if [ "$(git -C "$top" rev-parse --is-shallow-repository 2>/dev/null)" = true ]; then
    echo "dist: note: a shallow clone, so the archive has no history.bundle (the commits the provenance names)" >&2
  else
    # one thread, so that the same history packs to the same bytes
    git -C "$top" -c pack.threads=1 bundle create -q "$tmp/$name/history.bundle" HEAD 2> "$tmp/bundle.err" ||
      { cat "$tmp/bundle.err"; echo "dist: git bundle create failed"; exit 1; }
  fi
  [ -z "$(git -C "$top" status --porcelain --untracked-files=no 2>/dev/null)" ] ||
    echo "dist: note: the archive is commit $short; changes not committed (git status) are not in it" >&2
elif [ -f "$top/.book-files" ] && [ -f "$top/SOURCE" ]; then
  hash=$(sed -n 's/^commit: //p' "$top/SOURCE" | head -1); short=$(cat "$top/.book-commit" 2>/dev/null || echo "${hash:0:7}")
  when=$(sed -n 's/^date: //p' "$top/SOURCE" | head -1); subject=$(sed -n 's/^subject: //p' "$top/SOURCE" | head -1)
  [ -n "$hash" ] || { echo "dist: $top/SOURCE names no commit (a line 'commit: HASH')"; exit 1; }
  missing=$(cd "$top" && sed 's/^[0-9a-f]*  //' .book-files | while IFS= read -r p; do [ -f "$p" ] || echo "$p"; done)
  [ -z "$missing" ] || { echo "dist: files of commit $short are missing here, so this tree cannot be packed:"; echo "$missing" | head -10; exit 1; }
  (cd "$top" && sed 's/^[0-9a-f]*  //' .book-files | tar -c --no-recursion -T -) | tar -x -C "$tmp/$name" || exit 1
  cp "$top/.book-files" "$tmp/files"
  if [ -f "$top/history.bundle" ]; then cp "$top/history.bundle" "$tmp/$name/"
  else echo "dist: note: no history.bundle here, so the archive has none (the commits the provenance names)" >&2; fi
  edited=$(cd "$top" && sha256sum --quiet -c .book-files 2>/dev/null | sed -n 's/: FAILED$//p')
  stamp=$(stat -c %Y "$top/.book-files")
  how="repacked from an unpacked archive of commit $short"
  [ -z "$edited" ] || echo "dist: note: files edited since commit $short are packed as they are now: $(echo $edited)" >&2
else
  echo "dist: $top is neither a git checkout of the book nor an unpacked source archive (no .git, no .book-files)," >&2
  echo "dist: so nothing says which files are the book's; run make dist in a clone of the book's repository" >&2
  exit 1
fi
{
  echo "CUDA C, Verified: the source of the book, $how."
  echo "Unpack it, then: make test (see README.md and the preface, \"Getting the code and running it\")."
  echo
  echo "commit: $hash"
  echo "date: $when"
  echo "subject: $subject"
  [ -z "$edited" ] || { echo "edited since that commit:"; printf '  %s\n' $edited; }
  if [ -f "$tmp/$name/history.bundle" ]; then
    echo
    echo "history.bundle is the book's git history up to that commit.  Every table and"
    echo "figure measured on a GPU names the commit it was measured at; to see one:"
    echo "  git clone history.bundle book-history && cd book-history && git show COMMIT"
  fi
} > "$tmp/$name/SOURCE"
echo "$short" > "$tmp/$name/.book-commit"
cp "$tmp/files" "$tmp/$name/.book-files"
mkdir -p "$(dirname "$out")"
tar -C "$tmp" --sort=name --mtime="@$stamp" --owner=0 --group=0 --numeric-owner -cf - "$name" | gzip -n -9 > "$tmp/out.tgz" || exit 1
if cmp -s "$tmp/out.tgz" "$out"; then
  echo "dist: $out is up to date (commit $short)"
else
  mv "$tmp/out.tgz" "$out" && echo "dist: $out ($(du -k "$out" | cut -f1) KiB, $(wc -l < "$tmp/files") files of commit $short)"
fi
