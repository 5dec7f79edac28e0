# ncu-lib.sh -- what the chapters' counters.sh scripts share: finding
# Nsight Compute, the provenance header of a counters CSV, running ncu on
# the benchmark, and reading metric values out of `ncu --csv
# --print-units base` output.  Source it from bash: . tools/ncu-lib.sh

# ncu_find: sets NCU, or fails saying what to install.
ncu_find() {
  NCU=${NCU:-/usr/local/cuda/bin/ncu}
  [ -x "$NCU" ] || NCU=$(command -v ncu) || {
    echo "counters: ncu not found (Nsight Compute comes with the CUDA toolkit)"
    return 1
  }
}

# ncu_start CH NAME: what every counter script does first: find ncu, take
# the GPU's folder from BOOK_GPU (make bench sets it), check that
# build/CH/bench was built, and set gpu, bench, out (the CSV
# figures/data/$gpu/NAME), tmp and log (its scratch files, removed on
# exit with log.one).  Fails saying what is missing.
ncu_start() {
  ncu_find || return 1
  gpu=${BOOK_GPU:?run it through make bench, which sets BOOK_GPU}
  bench=build/$1/bench
  [ -x "$bench" ] || { echo "counters: $bench missing (make bench builds it)"; return 1; }
  out=figures/data/$gpu/$2
  mkdir -p "$(dirname "$out")"
  tmp=$out.tmp; log=$out.log
  trap 'rm -f "$tmp" "$log" "$log.one"' EXIT
}

# ncu_header NOTE COLUMNS: the provenance lines, a note, the column line.
ncu_header() {
  tools/provenance.sh "tool: $("${NCU:-ncu}" --version 2>/dev/null | tail -1)" "$1"
  echo "$2"
}

# ncu_values LOG METRIC...: the metrics' values in one ncu --csv log,
# comma-separated in the order given; fails naming a missing metric.
# The log has a header line starting "ID", then one line a metric, with
# quoted fields; numbers may carry thousands separators.
ncu_values() {
  local log=$1; shift
  awk -v want="$(IFS=,; echo "$*")" '
    function splitcsv(line, f,    n, i, ch, inq, cur) {
      n = 0; cur = ""; inq = 0
      for (i = 1; i <= length(line); i++) {
        ch = substr(line, i, 1)
        if (ch == "\"") { inq = !inq; continue }
        if (ch == "," && !inq) { f[++n] = cur; cur = ""; continue }
        cur = cur ch
      }
      f[++n] = cur
      return n
    }
    /^"ID"/ { n = splitcsv($0, h); for (i = 1; i <= n; i++) col[h[i]] = i; next }
    col["Metric Value"] && col["Metric Name"] {
      n = splitcsv($0, f)
      if (n < col["Metric Value"]) next
      val = f[col["Metric Value"]]; gsub(/,/, "", val)
      m[f[col["Metric Name"]]] = val
    }
    END {
      k = split(want, w, ",")
      for (i = 1; i <= k; i++) {
        if (m[w[i]] == "") {
          print "ncu_values: no " w[i] " in the ncu output" > "/dev/stderr"
          exit 1
        }
        printf "%s%s", (i > 1 ? "," : ""), m[w[i]]
      }
      printf "\n"
    }' "$log"
}

# ncu_profile WHAT KERNELS METRICS [NCU-OPTION... --] [BENCH-ARG...]: after
# ncu_start, one ncu run of $bench BENCH-ARGs (--clock-control none, and
# the NCU-OPTIONs where a -- ends them), profiling the kernels whose names
# match the regex KERNELS, measuring METRICS (space-separated), into
# $log.  Fails saying "ncu failed for WHAT" and showing the log.
ncu_profile() {
  local what=$1 kernels=$2 metrics=$3 opts=() a
  shift 3
  for a in "$@"; do
    [ "$a" = -- ] || continue
    while [ "$1" != -- ]; do opts+=("$1"); shift; done
    shift; break
  done
  if ! "$NCU" --clock-control none "${opts[@]}" --kernel-name regex:"$kernels" \
       --metrics "${metrics// /,}" --csv --print-units base "$bench" "$@" > "$log" 2>&1; then
    echo "counters: ncu failed${what:+ for $what}:"; cat "$log"; return 1
  fi
}

# ncu_measure WHAT KERNELS METRICS [NCU-OPTION... --] [BENCH-ARG...]:
# ncu_profile, then sets vals to the METRICS' values in its log
# (ncu_values: comma-separated, in the order given).  Fails showing the
# log if one is missing.
ncu_measure() {
  local metrics=$3
  ncu_profile "$@" || return 1
  # shellcheck disable=SC2086
  vals=$(ncu_values "$log" $metrics) || { cat "$log"; return 1; }
}

# ncu_done: moves the finished table $tmp to $out and says so.
ncu_done() {
  mv "$tmp" "$out" && echo "counters: wrote $out"
}

# ncu_rows LOG OUT METRICS NAME...: LOG holds one ncu --csv run of several
# launches; the launch with result ID i (0, 1, ...) is the row of the i-th
# NAME: "NAME,values of METRICS (space-separated names)", appended to OUT
# and echoed.  Fails, showing LOG, if a launch lacks a metric.
ncu_rows() {
  local log=$1 out=$2 metrics=$3 id=0 name vals
  shift 3
  for name in "$@"; do
    awk -v id="\"$id\"" -F, '/^"ID"/ || $1 == id' "$log" > "$log.one"
    # shellcheck disable=SC2086
    vals=$(ncu_values "$log.one" $metrics) || { cat "$log"; return 1; }
    echo "$name,$vals" >> "$out"
    echo "counters: $name,$vals"
    id=$((id + 1))
  done
  rm -f "$log.one"
}

# ncu_known: reads the metric names this ncu knows into NCU_KNOWN; call it
# once before ncu_pick and ncu_stall, which run in $( ) subshells.
ncu_known() {
  NCU_KNOWN=$("$NCU" --query-metrics 2>/dev/null | awk '{ print $1 }')
}

# ncu_pick NAME...: the first NAME whose base name (without its .ratio or
# .pct suffix) this ncu knows (ncu --query-metrics, read once); none
# known: the first, and ncu will say what is wrong.  Metric names change
# between Nsight Compute versions.
ncu_pick() {
  local m
  [ -n "${NCU_KNOWN+x}" ] || ncu_known
  for m in "$@"; do grep -qxF "${m%.*}" <<< "$NCU_KNOWN" && { echo "$m"; return; }; done
  echo "$1"
}

# ncu_stall REASON: the stall metric for REASON in cycles per issued
# instruction, by its current name or its older one.
ncu_stall() {
  ncu_pick "smsp__average_warps_issue_stalled_$1_per_issue_active.ratio" \
           "smsp__average_warp_latency_issue_stalled_$1.ratio"
}

# ncu_is_known METRIC: this ncu knows METRIC's base name (without .avg,
# .sum and what follows), as ncu_known read them.
ncu_is_known() { grep -qxF "${1%%.*}" <<< "$NCU_KNOWN"; }

# ncu_args VARIANT: the bench's arguments that run VARIANT once for the
# profiler, "--ncu VARIANT"; a script whose variants need more redefines it.
ncu_args() { echo --ncu "$1"; }

# ncu_table COLS KERNELS NOTE VARIANT...: after ncu_start and ncu_known,
# one ncu run of $bench per VARIANT (ncu_args VARIANT), profiling the
# kernels whose names match the regex KERNELS, into $out: the provenance
# lines with NOTE, the column line, then a row per variant.  COLS: lines
# "column:metric"; a metric this ncu does not know is "-" in every row.
ncu_table() {
  local cols=$1 kernels=$2 note=$3 c v vals row i
  local want=() got=() header=variant
  shift 3
  for c in $cols; do
    header+=",${c%%:*}"
    ncu_is_known "${c#*:}" && want+=("${c#*:}")
  done
  ncu_header "$note" "$header" > "$tmp"
  for v in "$@"; do
    # shellcheck disable=SC2046
    ncu_measure "$v" "$kernels" "${want[*]}" $(ncu_args "$v") || return 1
    row=$v; i=0
    IFS=, read -r -a got <<< "$vals"
    for c in $cols; do
      if ncu_is_known "${c#*:}"; then row+=",${got[$i]}"; i=$((i + 1)); else row+=",-"; fi
    done
    echo "$row" >> "$tmp"
    echo "counters: $row"
  done
  ncu_done
}
