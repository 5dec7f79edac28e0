# instructor.awk -v list=build/solutions.list -- the instructor edition's
# pass over the woven book (Markdown): in each chapter's Exercises section,
# an exercise with a solution gets a label (ex:CH:N, the solution's link
# back) and a link to its solution (sol:CH:N) with the page.  The list
# (tools/solutions.sh) has a line "LABEL CH N..." a chapter.
BEGIN {
    while ((getline line < list) > 0) {
        k = split(line, f, " ")
        slug[f[1]] = f[2]
        for (i = 3; i <= k; i++) has[f[1], f[i]] = 1
    }
}
/^# / && match($0, /\{#ch:[^}]*\}/) { cur = substr($0, RSTART + 2, RLENGTH - 3); inex = 0 }
/^#+ / { inex = $0 ~ /^## Exercises/ }
inex && /^[0-9]+\. / && ((cur, $0 + 0) in has) {
    n = $0 + 0; c = slug[cur]
    sub(/^[0-9]+\. /, "&`\\label{ex:" c ":" n "}\\hyperref[sol:" c ":" n "]{\\textit{(Solution, page~\\pageref*{sol:" c ":" n "}.)}}`{=latex} ")
}
{ print }
