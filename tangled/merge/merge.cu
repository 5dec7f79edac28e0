// merge.cu -- the launchers of merge.h.
#include "merge/merge.cuh"
#include "merge/merge.h"

// <<Workspace sizes>>
static const size_t kMergeTile = kMergeThreads * kMergeIpt;
// A merge's workspace: the cuts of its tiles.
static uint32_t *merge_layout(book_carve *c, size_t n)
{
    return (uint32_t *)book_carve_take(c, 4 * ceil_div(n, kMergeTile), 4);
}
extern "C" size_t merge_temp_bytes(size_t n)
{
    if (n > MERGE_MAX_N) return 0;
    book_carve c = {NULL, 0, 0};
    merge_layout(&c, n);
    return book_carve_size(&c);
}
static size_t sort_space_bytes(size_t n, bool pairs)
{
    if (n > MERGE_MAX_N) return 0;
    book_carve c = {NULL, 0, 0};
    merge_sort_layout(&c, n, 4, pairs, kMergeMinTile);
    return book_carve_size(&c);
}
extern "C" size_t merge_sort_keys_temp_bytes(size_t n)
{
    return sort_space_bytes(n, false);
}
extern "C" size_t merge_sort_pairs_temp_bytes(size_t n)
{
    return sort_space_bytes(n, true);
}

// <<Check a merge's arguments>>
static cudaError_t merge_check(const void *a, const void *av, size_t na,
                               const void *b, const void *bv, size_t nb,
                               const void *out, const void *outv, bool pairs,
                               const void *temp, size_t temp_bytes)
{
    const size_t n = na + nb, ab = 4 * na, bb = 4 * nb, ob = 4 * n;
    if (na > MERGE_MAX_N || nb > MERGE_MAX_N || n > MERGE_MAX_N)
        return cudaErrorInvalidValue;
    if ((na && !a) || (nb && !b) || !out || !temp || !is_aligned(temp, 4) ||
        temp_bytes < merge_temp_bytes(n))
        return cudaErrorInvalidValue;
    if (pairs && ((na && !av) || (nb && !bv) || !outv))
        return cudaErrorInvalidValue;
    // out, out_vals and temp are written: none may overlap another.
    const void *ptr[7] = {out, outv, temp, a, b, av, bv};
    const size_t len[7] = {ob, ob, temp_bytes, ab, bb, ab, bb};
    for (int w = 0; w < 3; w++)
        for (int o = 0; o < 7; o++)
            if (o != w && ptr[w] && ptr[o] && len[w] && len[o] &&
                ranges_overlap(ptr[w], len[w], ptr[o], len[o]))
                return cudaErrorInvalidValue;
    return cudaSuccess;
}

// <<Merge two arrays>>
template <Tie TIE, Data DATA>
static cudaError_t merge_launch(const uint32_t *a, const uint32_t *av,
                                size_t na, const uint32_t *b,
                                const uint32_t *bv, size_t nb, uint32_t *out,
                                uint32_t *outv, void *temp, size_t bytes,
                                cudaStream_t stream)
{
    if (na + nb == 0 && na <= MERGE_MAX_N && nb <= MERGE_MAX_N)
        return cudaSuccess;
    BOOK_TRY(merge_check(a, av, na, b, bv, nb, out, outv,
                         DATA == Data::pairs, temp, bytes));
    const size_t tiles = ceil_div(na + nb, kMergeTile);
    const merge_src<uint32_t> m = {a, b, av, bv, na, nb, na + nb, 0};
    book_carve c = {(char *)temp, 0, 0};
    uint32_t *cuts = merge_layout(&c, na + nb);
    BOOK_CLEAR_TO_LAUNCH();
    merge_partition_kernel<kMergeTile, TIE><<<
        (unsigned)ceil_div(tiles, 256), 256, 0, stream>>>(m, tiles, cuts,
                                                          merge_less_u32());
    BOOK_TRY(cudaGetLastError());
    merge_tiles_kernel<kMergeIpt, TIE, DATA><<<
        (unsigned)tiles, kMergeThreads, 0, stream>>>(m, cuts, out, outv,
                                                     merge_less_u32());
    return cudaGetLastError();
}

// <<Merge launchers for keys and pairs>>
extern "C" cudaError_t merge_u32(const uint32_t *a, size_t na,
                                 const uint32_t *b, size_t nb, uint32_t *out,
                                 void *temp, size_t temp_bytes,
                                 cudaStream_t stream)
{
    return merge_launch<Tie::to_a, Data::keys>(a, NULL, na, b, NULL, nb, out,
                                               NULL, temp, temp_bytes,
                                               stream);
}
extern "C" cudaError_t merge_pairs_u32(
    const uint32_t *a_keys, const uint32_t *a_vals, size_t na,
    const uint32_t *b_keys, const uint32_t *b_vals, size_t nb,
    uint32_t *out_keys, uint32_t *out_vals, void *temp, size_t temp_bytes,
    cudaStream_t stream)
{
    return merge_launch<Tie::to_a, Data::pairs>(
        a_keys, a_vals, na, b_keys, b_vals, nb, out_keys, out_vals, temp,
        temp_bytes, stream);
}

// <<Wrong on purpose: ties to B>>
extern "C" cudaError_t merge_pairs_u32_tie_to_b(
    const uint32_t *a_keys, const uint32_t *a_vals, size_t na,
    const uint32_t *b_keys, const uint32_t *b_vals, size_t nb,
    uint32_t *out_keys, uint32_t *out_vals, void *temp, size_t temp_bytes,
    cudaStream_t stream)
{
    return merge_launch<Tie::wrong_to_b, Data::pairs>(
        a_keys, a_vals, na, b_keys, b_vals, nb, out_keys, out_vals, temp,
        temp_bytes, stream);
}

// <<Check a sort's arguments>>
static cudaError_t sort_check(const void *keys, const void *vals, size_t n,
                              bool pairs, const void *temp, size_t bytes)
{
    const size_t need = pairs ? merge_sort_pairs_temp_bytes(n)
                              : merge_sort_keys_temp_bytes(n);
    if (n > MERGE_MAX_N || !keys || (pairs && !vals) || !temp ||
        !is_aligned(temp, 4) || bytes < need)
        return cudaErrorInvalidValue;
    if (ranges_overlap(keys, 4 * n, temp, bytes) ||
        (pairs && (ranges_overlap(vals, 4 * n, temp, bytes) ||
                   ranges_overlap(keys, 4 * n, vals, 4 * n))))
        return cudaErrorInvalidValue;
    return cudaSuccess;
}

// <<Merge sort launchers for keys, pairs and floats>>
extern "C" cudaError_t merge_sort_u32_ipt(uint32_t *keys, size_t n, int ipt,
                                          void *temp, size_t temp_bytes,
                                          cudaStream_t stream)
{
    if (ipt != 4 && ipt != 7 && ipt != 8 && ipt != 9 && ipt != 15 &&
        ipt != 16 && ipt != 17)
        return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    BOOK_TRY(sort_check(keys, NULL, n, false, temp, temp_bytes));
    const merge_less_u32 less;
    uint32_t *none = NULL;
    uint32_t *k = keys;
    switch (ipt) {
    case 4:
        return merge_sort_t<4, Data::keys>(k, none, n, temp, stream, less);
    case 7:
        return merge_sort_t<7, Data::keys>(k, none, n, temp, stream, less);
    case 9:
        return merge_sort_t<9, Data::keys>(k, none, n, temp, stream, less);
    case 15:
        return merge_sort_t<15, Data::keys>(k, none, n, temp, stream, less);
    case 16:
        return merge_sort_t<16, Data::keys>(k, none, n, temp, stream, less);
    case 17:
        return merge_sort_t<17, Data::keys>(k, none, n, temp, stream, less);
    default:
        return merge_sort_t<8, Data::keys>(k, none, n, temp, stream, less);
    }
}
extern "C" cudaError_t merge_sort_u32(uint32_t *keys, size_t n, void *temp,
                                      size_t temp_bytes, cudaStream_t stream)
{
    return merge_sort_u32_ipt(keys, n, kMergeIpt, temp, temp_bytes, stream);
}

// <<Merge sort launchers for pairs and floats>>
extern "C" cudaError_t merge_sort_pairs_u32(uint32_t *keys, uint32_t *vals,
                                            size_t n, void *temp,
                                            size_t temp_bytes,
                                            cudaStream_t stream)
{
    if (n == 0) return cudaSuccess;
    BOOK_TRY(sort_check(keys, vals, n, true, temp, temp_bytes));
    return merge_sort_t<kMergeIpt, Data::pairs>(keys, vals, n, temp, stream,
                                         merge_less_u32());
}
extern "C" cudaError_t merge_sort_f32_abs(float *keys, size_t n, void *temp,
                                          size_t temp_bytes,
                                          cudaStream_t stream)
{
    if (n == 0) return cudaSuccess;
    BOOK_TRY(sort_check(keys, NULL, n, false, temp, temp_bytes));
    return merge_sort_t<kMergeIpt, Data::keys>(keys, (uint32_t *)NULL, n,
                                               temp, stream,
                                               merge_less_abs_f32());
}
