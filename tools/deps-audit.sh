#!/bin/bash
# deps-audit.sh LIST < PATHS -- which of the files a build read come from a
# Debian package that LIST (a deps.list) does not account for.
# A line of PATHS is a path, or a path, a tab and the program that read it
# (tools/trace-reads.awk writes them so); the program is named with the
# finding.
# A package is accounted for when it is on LIST, when something on LIST needs
# it (Depends or Pre-Depends, recursively), or when every Debian system has it
# (Essential, or Priority required).  Exempt: the project's own files, the
# CUDA toolkit (/usr/local/cuda*), the linker's path lists (/etc/ld.so.conf*),
# and files no package owns under /etc, /var,
# /tmp, /proc, /sys, /dev, /run and the home folder (caches, generated
# formats).  A file no package owns elsewhere (/usr/local, /opt) is reported.
# Prints one line a problem, FILE: why, and exits 1 if there is any.
list=${1:?usage: deps-audit.sh LIST < PATHS}
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# Every Debian system has the Essential and required packages and what they
# need; the build may use those and the list's packages and what they need.
declared=$(awk '{ sub(/#.*/, "") } NF { print $1 }' "$list")
base=$(dpkg-query -W -f='${Package} ${Essential} ${Priority}\n' | awk '$2 == "yes" || $3 == "required" { print $1 }')
# The CUDA toolkit is the reader's own (NVIDIA's installer, or Debian's
# nvidia-cuda-toolkit): its folder, and the package that owns nvcc if one
# does, with what that needs, are exempt.
# The nvcc the build runs may be a wrapper script (/usr/local/bin/nvcc that
# execs the toolkit's): that file is exempt too, not the folder it lies in.
nvcc_run=$(command -v "${NVCC:-nvcc}" 2>/dev/null || echo /usr/local/cuda/bin/nvcc)
cuda_top=$("$top/tools/cuda-top.sh" "$nvcc_run" 2>/dev/null)
nvcc=$(readlink -f "${cuda_top:-/nonexistent}/bin/nvcc")
cuda_pkg=$(dpkg -S "$nvcc" 2>/dev/null | head -1 | cut -d: -f1)
base="$base $cuda_pkg"
apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
    --no-replaces --no-enhances $declared $base 2>/dev/null | grep -v '^ ' | tr -d '<>' |
  cat - <(echo "$declared") <(echo "$base") | sed 's/:.*//' | sort -u > "$tmp/allowed"

# The files, absolute, existing, not directories, not exempt by place.
sort -t "$(printf '\t')" -k1,1 -u | while IFS=$'\t' read -r f who; do
  case $f in /*) ;; *) continue ;; esac
  [ -e "$f" ] && [ ! -d "$f" ] || continue
  [ "$f" = "$nvcc_run" ] && continue
  case $f in "$top"/*|/usr/local/cuda*|/proc/*|/sys/*|/dev/*|/tmp/*|/run/*|"$HOME"/*) continue ;; esac
  case $cuda_top in ""|/|/usr|/usr/local) ;; *) case $f in "$cuda_top"/*) continue ;; esac ;; esac
  # Read by the C library's setlocale when present; without it nothing changes.
  [ "$f" = /usr/share/locale/locale.alias ] && continue
  # The linker reads every library-path list there, whichever package put it
  # (libc6-i386, libfakeroot); the libraries it finds are audited themselves.
  case $f in /etc/ld.so.conf|/etc/ld.so.conf.d/*) continue ;; esac
  printf '%s\t%s\n' "$f" "$who"
done > "$tmp/files"

# Owner of each file: dpkg's file lists, tried for the path as read, its
# real path, and both sides of the merged /usr.
owners() {
  awk 'FNR == 1 { pkg = FILENAME; sub(/.*\//, "", pkg); sub(/\.list$/, "", pkg); sub(/:.*/, "", pkg) }
       FILENAME != "-" { own[$0] = own[$0] ? own[$0] : pkg; next }
       { n = split($0, c, "\t"); o = ""
         for (i = 2; i <= n && o == ""; i++) if (c[i] in own) o = own[c[i]]
         print c[1] "\t" (o == "" ? "-" : o) }' /var/lib/dpkg/info/*.list -
}
cut -f1 "$tmp/files" | while IFS= read -r f; do
  r=$(readlink -f "$f")
  printf '%s\t%s\t%s' "$f" "$f" "$r"
  for p in "$f" "$r"; do case $p in /usr/*) printf '\t%s' "${p#/usr}" ;; *) printf '\t/usr%s' "$p" ;; esac; done
  echo
done | owners | paste - <(cut -f2 "$tmp/files") > "$tmp/owned"

status=0
while IFS=$'\t' read -r f pkg who; do
  by=${who:+; read by $who}
  if [ "$pkg" = - ]; then
    case $f in /etc/*|/var/*) continue ;; esac
    echo "$f: not from any Debian package; the build must not depend on it$by"; status=1
  elif ! grep -qx "$pkg" "$tmp/allowed"; then
    echo "$f: from package $pkg, which $list does not declare (nor does anything it needs)$by"; status=1
  fi
done < "$tmp/owned"
exit $status
