#!/bin/bash
# deps.sh TARGET [asked] -- make sure the Debian packages that tools/deps.list
# names for TARGET (test, pdf, html or all) are installed.
#   missing packages are installed in one apt-get call, saying which, when we
#   are root (CI, a container) or when the user asked for it (make deps, which
#   may use sudo); otherwise the script names them and the command to run.
#   Where nothing can be installed (the GPU machine has no apt, a user who is
#   not root, a system that is not Debian), the script names what is missing
#   and goes on: the tests that need a missing tool report themselves as
#   skipped, and a build step that needs one fails naming it.  Only make deps
#   (asked) fails when it cannot install.  DEPS_INSTALL=no installs nothing
#   and goes on, naming what is missing (the traced builds of the package
#   audit, tests/tools/test_deps.sh, which must not trace apt-get).
# deps.sh list [TARGET]  -- the package names, one a line
# deps.sh readme         -- the README's package table, generated from the list
cd "$(dirname "$0")/.." || exit 1
list=tools/deps.list
what=${1:-all}; asked=${2:-}

packages() {   # packages TARGET: the declared packages for TARGET (all: every one)
  # The targets are the words after the name, up to the first that is not
  # one (where the description starts).
  awk -v t="$1" '{ sub(/#.*/, "") }
    NF >= 2 { for (i = 2; i <= NF && $i ~ /^(test|pdf|html)$/; i++) if (t == "all" || $i == t) { print $1; next } }' "$list"
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
  echo "deps: not a Debian system (no dpkg-query); the build needs the equivalents of: $(packages "$what" | tr '\n' ' ')"
  [ "$asked" = asked ] && exit 1 || exit 0
fi
need=$(for p in $(packages "$what"); do
  dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -qx "install ok installed" || echo "$p"
done | tr '\n' ' ')
need=${need% }
[ -z "$need" ] && exit 0
if [ "${DEPS_INSTALL:-}" = no ] && [ "$asked" != asked ]; then
  echo "deps: missing Debian packages: $need (DEPS_INSTALL=no: going on with what is here)"; exit 0
fi

mkdir -p build
sudo=
if [ "$(id -u)" != 0 ]; then
  if [ "$asked" = asked ] && command -v sudo >/dev/null 2>&1; then sudo=sudo
  else
    echo "deps: missing Debian packages: $need"
    echo "deps: install them with: sudo apt-get install $need   (or: make deps)"
    [ "$asked" = asked ] && exit 1
    echo "deps: going on with what is here"; exit 0
  fi
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "deps: missing Debian packages and no apt-get to install them: $need"
  [ "$asked" = asked ] && exit 1
  echo "deps: going on with what is here"; exit 0
fi
echo "deps: installing missing Debian packages${sudo:+ with sudo}: $need"
export DEBIAN_FRONTEND=noninteractive
if { $sudo apt-get update -q && $sudo env DEBIAN_FRONTEND=noninteractive \
       apt-get install -y -q --no-install-recommends $need; } > build/deps.log 2>&1; then
  echo "deps: done"
else
  echo "deps: apt-get failed (see build/deps.log): $need"
  [ "$asked" = asked ] && exit 1
  echo "deps: going on with what is here"
fi
exit 0
