#!/bin/sh
# gpu-slug.sh [NAME] -- the folder name under figures/data/ for a GPU: its
# name (nvidia-smi's, for GPU 0, when none is given) in lower case, without
# "NVIDIA", runs of other characters as one "-".  "NVIDIA H200" -> h200,
# "NVIDIA GeForce RTX 4090" -> geforce-rtx-4090, "Tesla T4" -> tesla-t4.
name=${1:-$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)}
[ -n "$name" ] || { echo "gpu-slug: no GPU found (nvidia-smi); name one with GPU=" >&2; exit 1; }
printf '%s\n' "$name" | tr 'A-Z' 'a-z' | sed 's/nvidia//g; s/[^a-z0-9]\{1,\}/-/g; s/^-//; s/-$//'
