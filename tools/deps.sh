#!/bin/bash
# deps.sh TARGET [asked] -- make sure the Debian packages that tools/deps.list
# names for TARGET (test, pdf, html or all) are installed.
#   missing packages are installed in one apt-get call, saying which, when we
#   are root (CI, a container) or when the user asked for it (make deps, which
#   may use sudo); otherwise the script names them and the command to run.
#   Where nothing can be installed (the GPU machine has no apt), `test` goes on
#   and the checks that need a missing tool report themselves as skipped.
# deps.sh list [TARGET]  -- the package names, one a line
# deps.sh readme         -- the README's package table, generated from the list
cd "$(dirname "$0")/.." || exit 1
list=tools/deps.list
what=${1:-all}; asked=${2:-}

packages() {   # packages TARGET: the declared packages for TARGET (all: every one)
  awk -v t="$1" '{ sub(/#.*/, "") } NF >= 2 { for (i = 2; i <= NF; i++) if (t == "all" || $i == t) { print $1; next } }' "$list"
}

case $what in
  list)   packages "${2:-all}"; exit 0 ;;
  readme)
    echo "| package | needed by | what needs it |"
    echo "|---|---|---|"
    awk '/^#/ || !NF { next }
         { pkg = $1
           n = split($0, f, /  +/); t = f[2]; why = f[3]; for (i = 4; i <= n; i++) why = why "  " f[i]
           gsub(/ /, ", ", t); printf "| `%s` | %s | %s |\n", pkg, t, why }' "$list"
    exit 0 ;;
  test|pdf|html|all) ;;
  *) echo "usage: deps.sh test|pdf|html|all [asked] | list [TARGET] | readme" >&2; exit 2 ;;
esac

if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "deps: not a Debian system (no dpkg-query); install the equivalents of: $(packages "$what" | tr '\n' ' ')"
  [ "$what" = test ] && exit 0 || exit 1
fi
need=$(for p in $(packages "$what"); do
  [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = "install ok installed" ] || echo "$p"
done | tr '\n' ' ')
need=${need% }
[ -z "$need" ] && exit 0

mkdir -p build
sudo=
if [ "$(id -u)" != 0 ]; then
  if [ "$asked" = asked ] && command -v sudo >/dev/null 2>&1; then sudo=sudo
  else
    echo "deps: missing Debian packages: $need"
    echo "deps: install them with: sudo apt-get install $need   (or: make deps)"
    [ "$what" = test ] && { echo "deps: going on; the checks that need them are reported as skipped"; exit 0; }
    exit 1
  fi
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "deps: missing Debian packages and no apt-get to install them: $need"
  [ "$what" = test ] && { echo "deps: going on; the checks that need them are reported as skipped"; exit 0; }
  exit 1
fi
echo "deps: installing missing Debian packages${sudo:+ with sudo}: $need"
export DEBIAN_FRONTEND=noninteractive
if { $sudo apt-get update -q && $sudo env DEBIAN_FRONTEND=noninteractive \
       apt-get install -y -q --no-install-recommends $need; } > build/deps.log 2>&1; then
  echo "deps: done"
elif [ "$what" = test ]; then
  echo "deps: apt-get failed (see build/deps.log); going on, the checks that need"
  echo "deps: $need are reported as skipped"
else
  echo "deps: apt-get failed, see build/deps.log"; exit 1
fi
exit 0
