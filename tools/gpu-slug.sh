#!/bin/sh
# gpu-slug.sh [NAME] -- the folder name under figures/data/ for a GPU: its
# name (nvidia-smi's, for GPU 0, when none is given) in lower case, without
# "NVIDIA", runs of other characters as one "-".  "NVIDIA H200" -> h200,
# "NVIDIA GeForce RTX 4090" -> geforce-rtx-4090, "Tesla T4" -> tesla-t4.
# The GPU is CUDA's device 0 when CUDA_VISIBLE_DEVICES names it, else
# nvidia-smi's first; nvidia-smi's own errors (it prints them on standard
# output) are never taken for a name.
name=${1:-}
if [ -z "$name" ]; then
  id=${CUDA_VISIBLE_DEVICES%%,*}
  name=$(nvidia-smi ${id:+-i "$id"} --query-gpu=name --format=csv,noheader 2>/dev/null) || name=
  name=$(printf '%s\n' "$name" | head -1)
fi
[ -n "$name" ] || { echo "gpu-slug: no NVIDIA GPU found (nvidia-smi)" >&2; exit 1; }
printf '%s\n' "$name" | tr 'A-Z' 'a-z' | sed 's/nvidia//g; s/[^a-z0-9]\{1,\}/-/g; s/^-//; s/-$//'
