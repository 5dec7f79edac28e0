// matmul_tiles.cu -- the tile policy: the warp-tile table and its rule.
#include "matmul/matmul_launch.cuh"

// <<The warp-tile table>>
cudaError_t mm_pipelined_64(MM_LAUNCH_ARGS);   // in matmul_warp.cu
static const struct {
    cudaError_t (*launch)(MM_LAUNCH_ARGS);
    int bm, bn, per_sm;   // block tile, blocks an SM holds
} mm_wt_table[] = {
    {matmul_warp_unrolled, 128, 128, 2},
    {mm_pipelined_64, 64, 64, 5},
};

// <<Pick a tile by the rule>>
extern "C" int matmul_warp_tiled_pick(size_t M, size_t N, size_t K)
{
    (void)K;
    int sms = 0;
    if (book_sm_count(&sms) != cudaSuccess) {
        (void)cudaGetLastError();   // no device: any entry refuses alike
        return 0;
    }
    for (int t = 0; t < MM_WT_TILES - 1; t++) {
        const double tiles = (double)ceil_div(M, mm_wt_table[t].bm) *
                             (double)ceil_div(N, mm_wt_table[t].bn);
        const double slots = (double)sms * mm_wt_table[t].per_sm;
        if (tiles / (ceil(tiles / slots) * slots) >= 0.9) return t;
    }
    return MM_WT_TILES - 1;
}

extern "C" cudaError_t matmul_warp_tiled_tile(int tile, MM_LAUNCH_ARGS)
{
    if (tile < 0 || tile >= MM_WT_TILES) return cudaErrorInvalidValue;
    return mm_wt_table[tile].launch(A, B, C, M, N, K, stream);
}

extern "C" cudaError_t matmul_warp_tiled_info(int tile, int *bm, int *bn,
                                              int *per_sm)
{
    if (tile < 0 || tile >= MM_WT_TILES || !bm || !bn || !per_sm)
        return cudaErrorInvalidValue;
    *bm = mm_wt_table[tile].bm;
    *bn = mm_wt_table[tile].bn;
    *per_sm = mm_wt_table[tile].per_sm;
    return cudaSuccess;
}

extern "C" cudaError_t matmul_warp_tiled(MM_LAUNCH_ARGS)
{
    if (M == 0 || N == 0) return cudaSuccess;
    return matmul_warp_tiled_tile(matmul_warp_tiled_pick(M, N, K), A, B, C,
                                  M, N, K, stream);
}
