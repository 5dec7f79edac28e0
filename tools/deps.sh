#!/bin/sh
# deps.sh pdf|test|all -- make sure the tools for a target are here.
# Missing Debian packages are installed with apt-get, saying so; where that
# cannot be done the script says what to install and, for the test target,
# lets the build go on with what is present (the GPU machine has no apt).
what=${1:-all}
need=""
have() { command -v "$1" >/dev/null 2>&1; }
want() { need="$need $1"; }

case $what in pdf|all)
  have notangle || want noweb
  have pandoc   || want pandoc
  have xelatex  || want texlive-xetex
  kpsewhich pgfplots.sty >/dev/null 2>&1 || want texlive-pictures
  kpsewhich needspace.sty >/dev/null 2>&1 || want texlive-latex-extra
  kpsewhich fvextra.sty >/dev/null 2>&1 || want texlive-latex-extra
  kpsewhich framed.sty >/dev/null 2>&1 || want texlive-latex-recommended
  kpsewhich lmodern.sty >/dev/null 2>&1 || want lmodern
  fc-list 2>/dev/null | grep -q "DejaVu Sans Mono" || want fonts-dejavu
  have pdftoppm || want poppler-utils
  ;;
esac
case $what in test|all)
  have gawk || want gawk
  have notangle || want noweb
  [ -f /usr/include/cmocka.h ] || [ -n "$CMOCKA_DIR" ] || [ -f .deps/cmocka/usr/include/cmocka.h ] || want libcmocka-dev
  ;;
esac
need=$(echo $need | tr ' ' '\n' | sort -u | tr '\n' ' ')

if [ -n "${need% }" ]; then
  if have apt-get && [ "$(id -u)" = 0 ]; then
    echo "deps: installing missing Debian packages: $need"
    export DEBIAN_FRONTEND=noninteractive
    if { apt-get update -q && apt-get install -y -q --no-install-recommends $need; } >build-deps.log 2>&1; then
      echo "deps: done"
    elif [ "$what" = test ]; then
      echo "deps: apt-get failed (see build-deps.log); going on, the checks that need"
      echo "deps: $need are reported as skipped"
    else
      echo "deps: apt-get failed, see build-deps.log"; exit 1
    fi
  elif have apt-get && have sudo; then
    echo "deps: installing missing Debian packages with sudo: $need"
    sudo apt-get update -q && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $need || exit 1
  else
    echo "deps: missing and not installable here (no apt-get or not root): $need"
    [ "$what" = test ] || { echo "deps: install them, then run make again"; exit 1; }
    echo "deps: going on; the checks that need them are reported as skipped"
  fi
fi

if ! have "${NVCC:-nvcc}"; then
  echo "deps: nvcc not found. Install the CUDA toolkit (Debian: nvidia-cuda-toolkit, or NVIDIA's"
  echo "      cuda-toolkit package) or point the build at one: make CUDA_HOME=/usr/local/cuda"
  [ "$what" = pdf ] || exit 1
fi
exit 0
