// policy.cuh -- the shapes of the sort's tiles.
#ifndef SORT_POLICY_CUH
#define SORT_POLICY_CUH
enum { kRadixBits = 8, kRadix = 256 };   // a digit: 8 bits, 256 values
// MINB: the blocks an SM must hold (__launch_bounds__), which caps the
// registers a thread may use at 65536 / (THREADS MINB), rounded down to a
// multiple of 8 (80 for 384 x 2).
template <int THREADS_, int ITEMS_, int MINB_> struct tile_shape {
    enum { THREADS = THREADS_, ITEMS = ITEMS_, TILE = THREADS * ITEMS,
           WARPS = THREADS / 32, MINB = MINB_ };
};
typedef tile_shape<256, 16, 3> shape_256x16;   // the textbook sort's
typedef tile_shape<512, 12, 2> shape_512x12;
typedef tile_shape<384, 23, 2> shape_384x23;   // CUB sm_90, pairs
typedef tile_shape<384, 16, 2> shape_384x16;   // pairs: no spills
typedef tile_shape<256, 12, 2> shape_256x12;   // 64-bit keys
enum { kSmallestTile4 = 4096, kSmallestTile8 = 3072 };
#endif
