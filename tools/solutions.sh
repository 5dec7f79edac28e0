#!/bin/bash
# solutions.sh OUT.nw OUT.list -- the instructor edition's appendix, as one
# more noweb file (documentation only) woven after the chapters, so that
# the {{csv}} directives of the answers work as in the chapters.  For each
# chapter of book.yaml with an exercises/CH/answers.md, in book order: a
# section titled as the chapter, then answers.md, in which
#   ### Exercise N        becomes a heading labelled sol:CH:N with a link
#                         back to the exercise (labelled ex:CH:N by
#                         tools/instructor.awk), and
#   {{listing:NAME}}      becomes exercises/CH/solutions/NAME.cu, verbatim:
#                         the tested file is the listing.
# A literal << is written @<< for noweb.  OUT.list gets a line
# "LABEL CH N..." a chapter (LABEL its {#ch:...}; N the exercises answered)
# for tools/instructor.awk.
set -e
out=$1 list=$2
: > "$list"
# \appendix once: when the chapters already switched to appendices (the
# interview problems, the glossary), a second one would restart the letters
# at A and the solutions would repeat the first appendix's letter.
cat > "$out" <<'HEAD'
`\makeatletter\def\book@app{\appendixname}\ifx\@chapapp\book@app\else\appendix\fi\makeatother`{=latex}

# Solutions {#ch:solutions}

This appendix is in the instructor edition only. A code solution is shown
whole: it is the file `exercises/CH/solutions/NAME.cu` that `make test`
builds and runs against the driver `tests/CH/ex_NAME.c`, the same driver
that checks a student's `exercises/CH/NAME.cu` (`make exercise EX=CH/NAME`).
Each chapter's section opens with a one-page summary to project: the
chapter's measured table and plot, drawn from the same files as in the
chapter.

HEAD
for ch in $(tools/chapters.sh); do
  ans=exercises/$ch/answers.md
  [ -f "$ans" ] || continue
  head=$(grep -m1 '^# ' "chapters/$ch.nw")
  title=$(sed 's/^# *//; s/ *{#[^}]*}.*$//' <<< "$head")
  label=$(sed -n 's/.*{#\(ch:[^}]*\)}.*/\1/p' <<< "$head")
  printf '`\\clearpage`{=latex}\n\n## %s {#sol:%s}\n\n' "$title" "$ch" >> "$out"
  nums=$(gawk -v ch="$ch" -v out="$out" '
    function esc(s) { gsub(/<</, "@<<", s); return s }
    /^### Exercise [0-9]+/ {
      n = $3 + 0; nums = nums " " n
      printf "### Exercise %d {#sol:%s:%d}\n\n", n, ch, n >> out
      printf "`\\hyperref[ex:%s:%d]{\\textit{Exercise %d of the chapter, page~\\pageref*{ex:%s:%d}.}}`{=latex}\n", ch, n, n, ch, n >> out
      next
    }
    /^\{\{listing:[^}]*\}\}$/ {
      name = substr($0, 11, length($0) - 12)
      file = "exercises/" ch "/solutions/" name ".cu"
      if ((getline line < file) <= 0) { print "solutions.sh: " FILENAME ": no " file > "/dev/stderr"; bad = 1; exit 1 }
      printf "`\\needspace{8\\baselineskip}`{=latex}\n\n" >> out   # the caption stays with its listing
      printf "`%s`\\\n(tested by `tests/%s/ex_%s.c`):\n\n~~~~~~~~ {.cuda}\n", file, ch, name >> out
      do print esc(line) >> out; while ((getline line < file) > 0)
      close(file)
      print "~~~~~~~~" >> out
      next
    }
    { print esc($0) >> out }
    END { if (!bad) print nums }' "$ans")
  printf '\n' >> "$out"
  echo "$label $ch$nums" >> "$list"
done
