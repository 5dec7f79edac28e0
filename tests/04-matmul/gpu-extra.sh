#!/bin/bash
# gpu-extra.sh -- chapter 4's compiled-code facts, run by `make bench` after
# the benchmarks (it needs no GPU, only the object that make bench built).
# For each kernel of build/obj/04-matmul/matmul.o, compiled for sm_90 with
# the book's flags: registers a thread (cuobjdump -res-usage) and the static
# count of the SASS instructions that matter here (cuobjdump -sass): FFMA,
# shared loads LDS (32-bit) and LDS.128, global loads LDG (32-bit) and
# LDG.128, shared stores, barriers, and the asynchronous global-to-shared
# copies LDGSTS (cp.async).  Writes
# figures/data/$BOOK_GPU/04-matmul-sass.csv.
set -o pipefail
gpu=${BOOK_GPU:?run it through make bench, which sets BOOK_GPU}
CUOBJDUMP=${CUOBJDUMP:-/usr/local/cuda/bin/cuobjdump}
[ -x "$CUOBJDUMP" ] || CUOBJDUMP=$(command -v cuobjdump) ||
  { echo "gpu-extra: cuobjdump not found"; exit 1; }
obj=${1:-build/obj/04-matmul/matmul.o}
[ -f "$obj" ] || { echo "gpu-extra: $obj missing (make bench builds it)"; exit 1; }
out=figures/data/$gpu/04-matmul-sass.csv
mkdir -p "$(dirname "$out")"
tmp=$out.tmp; sass=$out.sass; res=$out.res
trap 'rm -f "$tmp" "$sass" "$res"' EXIT
"$CUOBJDUMP" -arch sm_90 -sass "$obj" > "$sass" || exit 1
"$CUOBJDUMP" -arch sm_90 -res-usage "$obj" > "$res" || exit 1
{
  tools/provenance.sh "tool: $("$CUOBJDUMP" --version 2>/dev/null | tail -1)" \
    "compiler: $(${NVCC:-nvcc} --version 2>/dev/null | tail -1)" \
    "sm_90 SASS of $obj; static counts over the whole kernel"
  echo "variant,kernel,regs,ffma,lds32,lds128,ldg32,ldg128,sts,bar,ldgsts"
} > "$tmp"
while read -r v k; do
  regs=$(awk -v k="$k" 'index($0, "Function " k ":") {f = 1; next}
    f && /REG:/ {sub(/.*REG:/, ""); sub(/ .*/, ""); print; exit}' "$res")
  awk -v v="$v" -v k="$k" -v regs="$regs" '
    /Function :/ {p = index($0, "Function : " k) > 0 && \
                      length($0) == index($0, k) + length(k) - 1; next}
    !p {next}
    / FFMA /              {ffma++}
    / LDS(\.U)? /         {lds++}
    / LDS(\.U)?\.128 /    {lds128++}
    / LDG\.E(\.[A-Z]+)* / && !/\.128/ {ldg++}
    / LDG\.E[.A-Z]*\.128 / {ldg128++}
    / STS[. ]/            {sts++}
    / BAR\.SYNC/          {bar++}
    / LDGSTS[. ]/         {ldgsts++}
    END {printf "%s,%s,%s,%d,%d,%d,%d,%d,%d,%d,%d\n", v, k, regs, ffma, lds,
                lds128, ldg, ldg128, sts, bar, ldgsts}' "$sass" >> "$tmp"
done <<'LIST'
tiled _Z15mm_tiled_kernelPKfS0_Pfmmm
1d-blocked _Z12mm_1d_kernelPKfS0_Pfmmm
2d-blocked _Z12mm_2d_kernelPKfS0_Pfmmm
vectorized _Z13mm_vec_kernelILb0EEvPKfS1_Pfmmm
double-buffered _Z14mm_dbuf_kernelILb0EEvPKfS1_Pfmmm
warp-tiled _Z12mm_wt_kernelI10MmWarpTileILi128ELi128ELi8ELi8ELi2ELi2ELi4ELi2EELb0EEvPKfS3_Pfmmm
LIST
mv "$tmp" "$out" && echo "gpu-extra: wrote $out"
