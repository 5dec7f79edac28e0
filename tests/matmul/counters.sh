#!/bin/bash
# counters.sh -- the matmul chapter's compiled-code facts, run by
# `make bench` after the benchmarks (it needs no GPU, only the objects that
# make bench built).  For each kernel of the chapter's objects,
# build/obj/matmul/*.o (or the objects given as arguments), compiled for
# sm_90 with the book's flags: registers a thread (cuobjdump -res-usage) and
# the static count of the SASS instructions that matter here (cuobjdump
# -sass): FFMA, shared loads LDS (32-bit) and LDS.128, global loads LDG
# (32-bit) and LDG.128, shared stores, barriers, and the asynchronous
# global-to-shared copies LDGSTS (cp.async).  Writes
# figures/data/$BOOK_GPU/matmul-sass.csv.  Then, with Nsight Compute, one
# launch each of the double-buffered, warp-tiled, pipelined and unrolled
# kernels at 4096^3 (build/matmul/bench --ncu VARIANT): instructions, FMA
# instructions (of the FMA pipe), shared-load and shared-store instructions,
# their wavefronts and bank conflicts, the share of cycles that issue an
# instruction, and the main stall reasons in cycles per issued instruction;
# to figures/data/$BOOK_GPU/matmul-ncu.csv.
set -o pipefail
gpu=${BOOK_GPU:?run it through make bench, which sets BOOK_GPU}
CUOBJDUMP=${CUOBJDUMP:-/usr/local/cuda/bin/cuobjdump}
[ -x "$CUOBJDUMP" ] || CUOBJDUMP=$(command -v cuobjdump) ||
  { echo "counters: cuobjdump not found"; exit 1; }
objs=("$@")
# By default the objects of tangled/matmul/*.cu, not whatever else an older
# build left in build/obj/matmul.
if [ ${#objs[@]} -eq 0 ]; then
  for f in tangled/matmul/*.cu; do
    objs+=("build/obj/matmul/$(basename "${f%.cu}").o")
  done
fi
for o in "${objs[@]}"; do
  [ -f "$o" ] || { echo "counters: $o missing (make bench builds it)"; exit 1; }
done
out=figures/data/$gpu/matmul-sass.csv
mkdir -p "$(dirname "$out")"
tmp=$out.tmp; sass=$out.sass; res=$out.res
trap 'rm -f "$tmp" "$sass" "$res"' EXIT
: > "$sass"; : > "$res"
# One listing of every object's kernels; an object without device code
# (the tile policy's) adds nothing.
for o in "${objs[@]}"; do
  for what in sass res-usage; do
    dest=$sass; [ $what = sass ] || dest=$res
    if ! msg=$("$CUOBJDUMP" -arch sm_90 -$what "$o" 2>&1 >> "$dest"); then
      case $msg in *"does not contain device code"*) ;;
        *) echo "counters: cuobjdump -$what $o: $msg"; exit 1 ;; esac
    fi
  done
done
{
  tools/provenance.sh "tool: $("$CUOBJDUMP" --version 2>/dev/null | tail -1)" \
    "compiler: $(${NVCC:-nvcc} --version 2>/dev/null | tail -1)" \
    "sm_90 SASS of ${objs[*]}; static counts over the whole kernel"
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
dbuf-warp _Z13mm_dbw_kernelILb0EEvPKfS1_Pfmmm
pipelined _Z12mm_wt_kernelI10MmWarpTileILi128ELi128ELi16ELi8ELi2ELi2ELi3ELi2EELb0EEvPKfS3_Pfmmm
pipelined-64 _Z12mm_wt_kernelI10MmWarpTileILi64ELi64ELi16ELi8ELi1ELi2ELi3ELi5EELb0EEvPKfS3_Pfmmm
unrolled _Z18mm_unrolled_kernelPKfS0_Pfmmm
LIST
mv "$tmp" "$out" && echo "counters: wrote $out"
rm -f "$sass" "$res"
trap - EXIT

# Counters.
. tools/ncu-lib.sh
ncu_start matmul matmul-ncu.csv || exit 1
ncu_known
metrics="smsp__inst_executed.sum sm__inst_executed_pipe_fma.sum
  $(ncu_pick smsp__sass_inst_executed_op_shared_ld.sum smsp__inst_executed_op_shared_ld.sum)
  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
  $(ncu_pick smsp__sass_inst_executed_op_shared_st.sum smsp__inst_executed_op_shared_st.sum)
  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
  smsp__issue_active.avg.pct_of_peak_sustained_active
  $(ncu_stall barrier) $(ncu_stall dispatch_stall) $(ncu_stall short_scoreboard)
  $(ncu_stall long_scoreboard) $(ncu_stall mio_throttle) $(ncu_stall wait)
  $(ncu_stall math_pipe_throttle) $(ncu_stall not_selected)"
metrics=$(echo $metrics)
ncu_header "one launch each at M = N = K = 4096, ncu --clock-control none; stalls in cycles per issued instruction" \
  "variant,inst,fma_inst,lds_inst,lds_wavefronts,lds_conflicts,sts_inst,sts_wavefronts,sts_conflicts,issue_active_pct,stall_barrier,stall_dispatch,stall_short_scoreboard,stall_long_scoreboard,stall_mio_throttle,stall_wait,stall_math_pipe,not_selected" > "$tmp"
for v in double-buffered dbuf-warp pipelined unrolled; do
  ncu_measure "$v" mm_ "$metrics" --ncu "$v" || exit 1
  echo "$v,$vals" >> "$tmp"
  echo "counters: $(tail -1 "$tmp")"
done
ncu_done
