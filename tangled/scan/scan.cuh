// scan.cuh -- the device-wide scans as templates, level by level (the
// compaction and renderer chapters use them too).  CUDA C++ only.
#ifndef SCAN_CUH
#define SCAN_CUH
#include "scan/warp_scan.cuh"
#include "scan/tile_status.cuh"
#include "scan/tiles.cuh"
#include "scan/scratch.cuh"
#include "scan/device_scan.cuh"
#include "scan/launch.cuh"
#endif
