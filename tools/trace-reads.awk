# trace-reads.awk -- from strace -ff trace files (execve, open, openat,
# clone, fork, vfork), print each absolute path a process read or ran, a tab,
# and the program that read it: the last program the process exec'd before
# the read, or, for a forked process that ran none, its parent's at the
# fork.  Run as: gawk -f trace-reads.awk TRACE.PID...
# The reader is "PATH [ARGV...] (pid N)", the argument list cut at 100
# characters, so an audit can say which program read a file.
FNR == 1 { pid = FILENAME; sub(/.*\./, "", pid); pids[pid] = 1 }
/^(execve|open|openat)\(/ && / = [0-9]+/ {
  if (match($0, /^[a-z]+\((AT_FDCWD, )?"\/[^"]*"/)) {
    p = substr($0, RSTART, RLENGTH); sub(/^[^"]*"/, "", p); sub(/"$/, "", p)
    n++; rp[n] = p; rpid[n] = pid; rprog[n] = prog[pid]
  }
}
/^execve\(/ && / = 0$/ {
  line = $0; sub(/^execve\("/, "", line); path = line; sub(/".*/, "", path)
  args = line; sub(/^[^[]*\[/, "", args); sub(/\], .*/, "", args); gsub(/"/, "", args)
  if (length(args) > 100) args = substr(args, 1, 100) "..."
  prog[pid] = path " [" args "] (pid " pid ")"
}
/^(clone3?|v?fork)\(/ && / = [0-9]+$/ {
  child = $NF; parent[child] = pid; at_fork[child] = prog[pid]
}
function reader(pid,   seen) {   # the program a process that exec'd none inherited
  while (pid in parent && !(pid in seen)) {
    seen[pid] = 1
    if (at_fork[pid] != "") return at_fork[pid]
    pid = parent[pid]
  }
  return pid in parent ? "(a process that ran no program, pid " pid ")" : "(the traced command, pid " pid ")"
}
END {
  for (i = 1; i <= n; i++) {
    r = rprog[i] != "" ? rprog[i] : reader(rpid[i])
    if (!(rp[i] in first)) { first[rp[i]] = r; order[++m] = rp[i] }
  }
  for (i = 1; i <= m; i++) print order[i] "\t" first[order[i]]
}
