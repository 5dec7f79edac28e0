#!/bin/bash
# test_layers.sh -- the make check rules of the shared layer and of the
# chapters' relations fail where they should: tools/layer-check.sh on a copy
# of tangled/ with one fault put in (a shared header that includes a
# chapter, quoted or in angle brackets, an include of a chapter that is not
# linked, or by a relative path, a source file in the shared layer, a
# launcher without BOOK_CLEAR_TO_LAUNCH, directly, through its helper, after
# a template whose parameters say class, in an extern "C" block, or queuing
# only through CUB), a links: entry nothing includes, and
# tools/reads-check.sh and tools/chapters.sh check on a copy of the book
# with one fault in book.yaml or the prose.  Output in cmocka's format for
# run-tests.sh.
cd "$(dirname "$0")/../.." || exit 1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. tests/tools/kit.sh
command -v gawk > /dev/null || { for t in layers_book_passes layers_faults_found reads_faults_found; do
  echo "[ RUN      ] $t"; echo "skipped: needs gawk"; result $t 77; done; exit 0; }
fresh() { rm -rf "$tmp/t" && cp -r tangled "$tmp/t"; }
expect() {   # expect WHAT PATTERN: layer-check on $tmp/t fails, saying PATTERN
  if TANGLED=$tmp/t tools/layer-check.sh > "$tmp/out" 2>&1; then echo "$1: passed"; return 1; fi
  grep -q "$2" "$tmp/out" || { echo "$1: not found ($2):"; cat "$tmp/out"; return 1; }
}

echo "[ RUN      ] layers_book_passes"
tools/layer-check.sh && tools/reads-check.sh && tools/chapters.sh check; result layers_book_passes $?

echo "[ RUN      ] layers_faults_found"
st=0
fresh; printf '#include "scan/scan.h"\n' >> "$tmp/t/common/book.h"
expect "a shared header including a chapter" "common/book.h:.*includes scan/scan.h, a chapter" || st=1
fresh; printf '#include "sort/sort.h"\n' >> "$tmp/t/threads/threads.h"
expect "an include without links" "threads/threads.h:.*does not say that threads links sort" || st=1
fresh; cat >> "$tmp/t/threads/threads.cu" <<'EOF'
__global__ void layer_test_kernel(float *x) { x[0] = 1; }
extern "C" cudaError_t layer_test_launcher(float *x, cudaStream_t stream)
{
    layer_test_kernel<<<1, 1, 0, stream>>>(x);
    return cudaGetLastError();
}
EOF
expect "a launcher without the macro" "launcher layer_test_launcher queues GPU work without" || st=1
fresh; cat >> "$tmp/t/threads/threads.cu" <<'EOF'
namespace {
template <int N> cudaError_t layer_test_helper(float *x, cudaStream_t stream)
{
    return cudaMemsetAsync(x, 0, N, stream);
}
} // namespace
extern "C" cudaError_t layer_test_through(float *x, cudaStream_t stream)
{
    return layer_test_helper<4>(x, stream);
}
EOF
expect "a launcher whose helper queues work" "launcher layer_test_through queues GPU work without" || st=1
fresh; cat >> "$tmp/t/threads/threads.cu" <<'EOF'
template <class T> __global__ void layer_test_fill(T *x) { x[0] = T(1); }
template <class T>
cudaError_t layer_test_typed(T *x, cudaStream_t stream)
{
    layer_test_fill<T><<<1, 1, 0, stream>>>(x);
    return cudaGetLastError();
}
extern "C" cudaError_t layer_test_after_template(float *x, cudaStream_t s)
{
    return layer_test_typed(x, s);
}
EOF
expect "a launcher after a template of class T" "launcher layer_test_after_template queues GPU work without" || st=1
fresh; printf '#include <scan/scan.h>\n' >> "$tmp/t/arch/sm80.cuh"
expect "a shared header including a chapter in angle brackets" "arch/sm80.cuh:.*includes scan/scan.h, a chapter" || st=1
fresh; printf '#include <sort/sort.h>\n' >> "$tmp/t/threads/threads.h"
expect "an include in angle brackets without links" "threads/threads.h:.*does not say that threads links sort" || st=1
fresh; printf '#include "../sort/sort.h"\n' >> "$tmp/t/threads/threads.h"
expect "an include by a relative path" "threads/threads.h:.*includes ../sort/sort.h by a relative path" || st=1
fresh; printf 'static int not_a_header;\n' > "$tmp/t/common/stray.cu"
expect "a source file in the shared layer" "common/stray.cu: the shared layer is headers only" || st=1
fresh; cat >> "$tmp/t/threads/threads.cu" <<'EOF2'
extern "C" {
cudaError_t layer_test_in_block(float *x, cudaStream_t stream)
{
    return cudaMemsetAsync(x, 0, 4, stream);
}
}
EOF2
expect "a launcher in an extern \"C\" block" "launcher layer_test_in_block queues GPU work without" || st=1
fresh; cat >> "$tmp/t/threads/threads.cu" <<'EOF2'
extern "C" cudaError_t layer_test_cub(void *w, size_t *b, const int *in, int *out, int n, cudaStream_t s)
{
    return cub::DeviceReduce::Sum(w, *b, in, out, n, s);
}
EOF2
expect "a launcher that queues only through CUB" "launcher layer_test_cub queues GPU work without" || st=1
fresh; cat >> "$tmp/t/threads/threads.cu" <<'EOF2'
extern "C" cudaError_t layer_test_cublas(cublasHandle_t h, int n, const float *x, float *y, cudaStream_t s)
{
    const float one = 1.f;
    return cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, x, n, x, n, &one, y, n) == 0
               ? cudaSuccess : cudaErrorUnknown;
}
EOF2
expect "a launcher that queues only through cuBLAS" "launcher layer_test_cublas queues GPU work without" || st=1
fresh; printf 'static int not_a_header;\n' > "$tmp/t/arch/stray.cu"
expect "a source file in arch/" "arch/stray.cu: the shared layer is headers only" || st=1
result layers_faults_found $st

echo "[ RUN      ] reads_faults_found"
st=0
mkdir -p "$tmp/b" && cp -r tools book.yaml figures "$tmp/b/" && mkdir -p "$tmp/b/chapters" &&
  for c in $(tools/chapters.sh); do [ -d "tests/$c" ] && mkdir -p "$tmp/b/tests/$c" && cp tests/"$c"/*.cu tests/"$c"/*.sh "$tmp/b/tests/$c/" 2>/dev/null; done;
  for c in $(tools/chapters.sh); do [ -f "chapters/$c.nw" ] && cp "chapters/$c.nw" "$tmp/b/chapters/"; done
(cd "$tmp/b" && tools/reads-check.sh > /dev/null) || { echo "the copy fails unchanged"; st=1; }
echo 'See {{csv:sort.csv:id=x:v:%.1f}}.' >> "$tmp/b/chapters/threads.nw"
(cd "$tmp/b" && tools/reads-check.sh > "$tmp/out" 2>&1) && { echo "a CSV of a chapter not read passed"; st=1; }
grep -q "chapters/threads.nw:.*sort.csv is chapter sort's measurement" "$tmp/out" || { cat "$tmp/out"; st=1; }
cp chapters/threads.nw "$tmp/b/chapters/"
sed -i 's/^  - threads: {reads: \[memory, method\]}$/  - threads: {reads: [memory, method, scan]}/' "$tmp/b/book.yaml"
(cd "$tmp/b" && tools/reads-check.sh > "$tmp/out" 2>&1) && { echo "a stale reads: entry passed"; st=1; }
grep -q "threads reads scan, but nothing" "$tmp/out" || { cat "$tmp/out"; st=1; }
cp book.yaml "$tmp/b/" && sed -i 's/^  - threads: {reads: \[memory, method\]}$/  - threads: {links: [sort]}/' "$tmp/b/book.yaml"
(cd "$tmp/b" && tools/chapters.sh check > "$tmp/out" 2>&1) && { echo "a link to a later chapter passed"; st=1; }
grep -q "threads links sort, which must come before it" "$tmp/out" || { cat "$tmp/out"; st=1; }
cp book.yaml "$tmp/b/" && sed -i 's/^  - matmul: {reads: \[memory, method\]}$/  - matmul: {needs: [memory]}/' "$tmp/b/book.yaml"
(cd "$tmp/b" && tools/chapters.sh check > "$tmp/out" 2>&1) && { echo "needs: passed"; st=1; }
grep -q "matmul says needs:" "$tmp/out" || { cat "$tmp/out"; st=1; }
cp book.yaml "$tmp/b/" && cp -r tangled exercises "$tmp/b/" && cp -r tests "$tmp/b/" &&
  sed -i 's/^  - compaction: {links: \[scan\], reads: \[method\]}$/  - compaction: {links: [scan, threads], reads: [method]}/' "$tmp/b/book.yaml"
(cd "$tmp/b" && tools/layer-check.sh > "$tmp/out" 2>&1) && { echo "a stale links: entry passed"; st=1; }
grep -q "compaction links threads, but none of its files includes" "$tmp/out" || { cat "$tmp/out"; st=1; }
result reads_faults_found $st
