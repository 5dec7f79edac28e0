#!/bin/bash
# gpu-pack.sh [CH...] -- build the programs of the chapters named (default:
# all with code), as `make programs` lists them (tests, benchmarks and
# course-kit solutions), for ARCH (default: the newest of book.yaml's archs,
# the GPU the book measures), and copy them, stripped, with the carried
# cmocka, the commit and that list, into .gpu-run/ (git-ignored), for
# tools/gpu-batch.sh to run.  GPU_MAKE_ARGS go to make as well.
# Run it here and carry .gpu-run, so that a short call on the GPU machine
# only runs programs: compiling is most of a GPU run's time and needs no GPU.
# tools/gpu-run.sh runs it on the GPU machine itself.
cd "$(dirname "$0")/.." || exit 1
arch=${ARCH:-$(tools/chapters.sh archs | tr ' ' '\n' | tail -1)}
read -r -a margs <<< "${GPU_MAKE_ARGS:-}"
mkdir -p build/logs
chs=()
for c in "$@"; do
  [ -d "tangled/$c" ] || { echo "gpu-pack: no code for chapter $c"; exit 1; }
  chs+=("$c")
done
make -s programs ${chs[*]:+CH="${chs[*]}"} > build/logs/programs || { echo "gpu-pack: make programs failed"; exit 1; }
mapfile -t targets < <(awk '{ print $2 }' build/logs/programs)
make -j"$(nproc)" ARCH="$arch" "${margs[@]}" "${targets[@]}" > build/logs/build.log 2>&1 ||
  { tail -20 build/logs/build.log; echo "gpu-pack: the build failed (build/logs/build.log)"; exit 1; }
rm -rf .gpu-run && mkdir -p .gpu-run
[ -d .git ] && { grep -qx '/.gpu-run/' .git/info/exclude 2>/dev/null || echo '/.gpu-run/' >> .git/info/exclude; }
for t in "${targets[@]}"; do
  mkdir -p ".gpu-run/$(dirname "$t")" && cp -p "$t" ".gpu-run/$t" && strip ".gpu-run/$t"
done
[ -d .deps/cmocka ] && cp -rp .deps .gpu-run/
echo "${BOOK_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || cat .book-commit 2>/dev/null || echo unknown)}" > .gpu-run/commit
[ -d .git ] && ! git diff --quiet HEAD -- tangled tests exercises &&
  echo "gpu-pack: warning: uncommitted changes in tangled/, tests/ or exercises/"
cp build/logs/programs .gpu-run/programs
n_ch=$(grep -c '^test ' .gpu-run/programs); n_sol=$(grep -c '^solution ' .gpu-run/programs)
echo "gpu-pack: $(du -sh .gpu-run | cut -f1) in .gpu-run for $n_ch chapters and $n_sol solutions, $arch, commit $(cat .gpu-run/commit)"
