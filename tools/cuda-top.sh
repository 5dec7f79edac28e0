#!/bin/sh
# cuda-top.sh NVCC -- the folder of the CUDA toolkit that NVCC belongs to
# (the one holding bin/nvcc and include/).  NVCC may be a symbolic link or a
# wrapper script that execs the real nvcc elsewhere (as /usr/local/bin/nvcc
# does on some machines), so ask nvcc itself where it runs from; fall back
# to the folder above NVCC's real path.
nvcc=${1:?usage: cuda-top.sh NVCC}
[ -x "$nvcc" ] || nvcc=$(command -v "$nvcc") || exit 1
here=$("$nvcc" -dryrun -E -x cu /dev/null 2>&1 | sed -n 's/^#\$ _HERE_=//p' | head -1)
[ -n "$here" ] || here=$(dirname "$(readlink -f "$nvcc")")
(cd "$here/.." 2>/dev/null && pwd -P)
