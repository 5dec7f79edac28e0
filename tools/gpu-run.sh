#!/bin/bash
# gpu-run.sh [CH...] -- everything the GPU machine is for, in one go, when
# the programs are to be built there: tools/gpu-pack.sh builds and packs
# them (GPU_MAKE_ARGS=SRC=build/src reuses the build copies compiled on
# another machine and carried in build/; tools/build-src.sh has checked
# both), then tools/gpu-batch.sh runs the tests, the benchmarks and the
# sanitizer (GPU_STEPS picks steps) and leaves $OUT/results.tgz.
cd "$(dirname "$0")/.." || exit 1
tools/gpu-pack.sh "$@" && exec tools/gpu-batch.sh
