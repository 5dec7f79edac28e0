#!/bin/bash
# gpu-pack.sh [CH...] -- get one short call on the GPU machine ready: build
# here the test and benchmark programs of the chapters named (default: all
# with code) and their course-kit solutions, for ARCH (default: the newest
# of book.yaml's archs, the GPU the book measures), and copy them, stripped,
# with the carried cmocka and the commit, into .gpu-run/ (git-ignored).
# Then, on the GPU machine, with .gpu-run carried:  bash tools/gpu-batch.sh
# Compiling is most of a GPU run's time and needs no GPU; a call that only
# runs programs spends the scarce device time on running them.
cd "$(dirname "$0")/.." || exit 1
arch=${ARCH:-$(tools/chapters.sh archs | tr ' ' '\n' | tail -1)}
chs=${*:-$(for c in $(tools/chapters.sh); do [ -d "tangled/$c" ] && echo "$c"; done)}
targets=(); sols=()
for c in $chs; do
  [ -d "tangled/$c" ] || { echo "gpu-pack: no code for chapter $c"; exit 1; }
  targets+=("build/$c/test"); ls tests/"$c"/bench*.cu >/dev/null 2>&1 && targets+=("build/$c/bench")
  for f in exercises/"$c"/solutions/*.cu; do [ -f "$f" ] && sols+=("build/sol/$c/$(basename "$f" .cu)"); done
done
make -j"$(nproc)" ARCH="$arch" "${targets[@]}" "${sols[@]}" || { echo "gpu-pack: the build failed"; exit 1; }
rm -rf .gpu-run && mkdir -p .gpu-run
grep -qx '/.gpu-run/' .git/info/exclude 2>/dev/null || echo '/.gpu-run/' >> .git/info/exclude
for t in "${targets[@]}" "${sols[@]}"; do
  mkdir -p ".gpu-run/$(dirname "$t")" && cp -p "$t" ".gpu-run/$t" && strip ".gpu-run/$t"
done
[ -d .deps/cmocka ] && cp -rp .deps .gpu-run/
git rev-parse --short HEAD > .gpu-run/commit
git diff --quiet HEAD -- tangled tests exercises || echo "gpu-pack: warning: uncommitted changes in tangled/, tests/ or exercises/"
echo "$chs" > .gpu-run/chapters
echo "gpu-pack: $(du -sh .gpu-run | cut -f1) in .gpu-run for $(echo $chs | wc -w) chapters and ${#sols[@]} solutions, $arch, commit $(cat .gpu-run/commit)"
echo "gpu-pack: run  bash tools/gpu-batch.sh  on the GPU machine with .gpu-run carried"
