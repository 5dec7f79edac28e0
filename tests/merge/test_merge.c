/* test_merge.c -- the merge chapter's tests: the merges and the merge
 * sorts against CPU references (a stable two-cursor merge; qsort with the
 * index as tie-break), exactly, at sizes around every tile (1024, 2048,
 * 4096) and up to 10^7 + 1, and at MERGE_MAX_N = 2^31 - 1 (checked by
 * formulas in O(n)), on random, all-equal, sorted, reversed and
 * few-unique keys; outputs poisoned (all bits set) before each run, and a
 * guard of poisoned words past the end that must stay so; stability on
 * pairs whose values tag their origin; the wrong-on-purpose merge that
 * breaks ties toward b, shown unstable; a workspace 4 bytes past its
 * allocation; unsorted input and NaN keys, whose output is unspecified,
 * staying in bounds; every refusal merge.h promises. */
#include "testkit.h"
#include "merge/merge.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GUARD 64                         /* poisoned words past the end */
/* Bytes by which the workspace starts past its allocation: 0, or 4 to
 * show that 4-byte alignment is enough. */
static size_t ws_off;
#define POISON 0xffffffffu
enum { D_RANDOM, D_EQUAL, D_SORTED, D_REVERSED, D_FEW, D_COUNT };
static const char *dname[] = {"random", "all equal", "sorted", "reversed",
                              "few unique"};

/* Keys below POISON, so that an unwritten element never matches. */
static void fill_keys(uint32_t *k, size_t n, int d, uint64_t *st)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t r = tk_next(st);
        k[i] = d == D_RANDOM   ? (uint32_t)(r % POISON)
             : d == D_EQUAL    ? 7u
             : d == D_SORTED   ? (uint32_t)i
             : d == D_REVERSED ? (uint32_t)(n - i)
                               : (uint32_t)(r % 16);
    }
}

typedef struct { uint32_t key, idx; } kv;
static int kv_cmp(const void *x, const void *y)
{
    const kv *a = x, *b = y;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}
static int u32_cmp(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return a < b ? -1 : a > b;
}

/* The stable merge, ties to a: the reference. */
static void merge_ref(const uint32_t *a, const uint32_t *av, size_t na,
                      const uint32_t *b, const uint32_t *bv, size_t nb,
                      uint32_t *out, uint32_t *outv)
{
    size_t i = 0, j = 0, k = 0;
    while (i < na || j < nb) {
        int take_a = j >= nb || (i < na && a[i] <= b[j]);
        out[k] = take_a ? a[i] : b[j];
        if (outv) outv[k] = take_a ? av[i] : bv[j];
        k++;
        if (take_a) i++; else j++;
    }
}

/* got[0, n + GUARD) against want[0, n) and the guard. */
static size_t compare_u32(const char *what, const uint32_t *got,
                          const uint32_t *want, size_t n, uint64_t seed)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i] && bad++ < 5)
            print_error("%s, n %zu: [%zu] is %u, expected %u (seed %llu)\n",
                        what, n, i, got[i], want[i],
                        (unsigned long long)seed);
    for (size_t i = n; i < n + GUARD; i++)
        if (got[i] != POISON && bad++ < 5)
            print_error("%s, n %zu: guard word %zu written\n", what, n,
                        i - n);
    return bad;
}

/* ---- merges ------------------------------------------------------------ */

/* One merge of na and nb keys of distribution d (random, equal or few
 * unique), keys and pairs; values tag the origin: a's are i, b's 2^31 + j.
 * Returns the number of wrong words. */
static size_t check_merge(size_t na, size_t nb, int d, int round)
{
    const size_t n = na + nb;
    uint64_t seed = tk_seed(round), st = seed;
    uint32_t *h = tk_malloc((n + 1) * sizeof *h);
    uint32_t *hv = tk_malloc((n + 1) * sizeof *hv);
    uint32_t *want = tk_malloc((n + 1) * sizeof *want);
    uint32_t *wantv = tk_malloc((n + 1) * sizeof *wantv);
    uint32_t *got = tk_malloc((n + GUARD) * sizeof *got);
    fill_keys(h, na, d, &st);
    fill_keys(h + na, nb, d, &st);
    qsort(h, na, sizeof *h, u32_cmp);
    qsort(h + na, nb, sizeof *h, u32_cmp);
    for (size_t i = 0; i < n; i++)
        hv[i] = i < na ? (uint32_t)i : 0x80000000u + (uint32_t)(i - na);
    merge_ref(h, hv, na, h + na, hv + na, nb, want, wantv);
    /* Each input its own allocation of exactly its size (at least one
     * word), so that memcheck sees any read past its end. */
    const size_t ab = (na ? na : 1) * 4, bb = (nb ? nb : 1) * 4;
    uint32_t *da = tk_dev_bytes(ab), *db = tk_dev_bytes(bb);
    uint32_t *dav = tk_dev_bytes(ab), *dbv = tk_dev_bytes(bb);
    uint32_t *dout = tk_dev_bytes((n + GUARD) * 4);
    uint32_t *doutv = tk_dev_bytes((n + GUARD) * 4);
    size_t tb = merge_temp_bytes(n);
    char *tbase = tk_dev_bytes(tb + ws_off + 1);
    void *temp = tbase + ws_off;
    tk_upload_bytes(da, h, na * 4);
    tk_upload_bytes(db, h + na, nb * 4);
    tk_upload_bytes(dav, hv, na * 4);
    tk_upload_bytes(dbv, hv + na, nb * 4);
    TK_CUDA(merge_u32(da, na, db, nb, dout, temp, tb, 0));
    tk_download_bytes(got, dout, (n + GUARD) * 4);
    size_t bad = compare_u32("merge_u32", got, want, n, seed);
    tk_poison(dout, (n + GUARD) * 4);
    TK_CUDA(merge_pairs_u32(da, dav, na, db, dbv, nb, dout, doutv, temp, tb,
                            0));
    tk_download_bytes(got, dout, (n + GUARD) * 4);
    bad += compare_u32("merge_pairs_u32 keys", got, want, n, seed);
    tk_download_bytes(got, doutv, (n + GUARD) * 4);
    bad += compare_u32("merge_pairs_u32 values", got, wantv, n, seed);
    if (bad)
        print_error("... merging %zu and %zu %s keys\n", na, nb, dname[d]);
    tk_free(da); tk_free(db); tk_free(dav); tk_free(dbv);
    tk_free(dout); tk_free(doutv); tk_free(tbase);
    free(h); free(hv); free(want); free(wantv); free(got);
    return bad;
}

static const size_t msizes[] = {1, 31, 32, 33, 2047, 2048, 2049, 4097,
                                100003, 10000001};
#define NMSIZES (sizeof msizes / sizeof msizes[0])
/* Under the sanitizer (BOOK_SMALL) the first five. */
static size_t nmsizes(void) { return tk_small() ? 5 : NMSIZES; }

/* (0, n), (n, 0), (1, n), (n, 1), halves, (10, n), (n, 10) for each n;
 * random, all-equal and few-unique keys (ties across a and b). */
static void merge_shapes(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    for (int round = 0; round < (tk_small() ? 1 : 2); round++)
        for (size_t z = 0; z < nmsizes(); z++) {
            const size_t n = msizes[z];
            const size_t sh[7][2] = {{0, n}, {n, 0}, {1, n}, {n, 1},
                                     {n / 2, n - n / 2}, {10, n}, {n, 10}};
            for (int q = 0; q < 7; q++)
                for (int d = 0; d < 3; d++) {
                    const int dist = d == 0 ? D_RANDOM : d == 1 ? D_EQUAL
                                                                : D_FEW;
                    if (n > 1000000 && (round > 0 || (q != 4 && q != 5)))
                        continue;
                    assert_int_equal(
                        check_merge(sh[q][0], sh[q][1], dist, round), 0);
                }
        }
}

/* Very unequal: a handful of keys into many, both ways, interleaved. */
static void merge_very_unequal(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    const size_t big = tk_small() ? 9000 : 3000017;
    const size_t few[] = {2, 3, 257, 2049};
    for (size_t k = 0; k < 4; k++) {
        assert_int_equal(check_merge(few[k], big, D_RANDOM, 0), 0);
        assert_int_equal(check_merge(big, few[k], D_FEW, 1), 0);
    }
}

/* Stability: equal keys across a and b, values tagging their origin.  The
 * example of the chapter, then long runs of a few keys. */
static const uint32_t ex_a[3] = {1, 1, 2}, ex_av[3] = {0, 1, 2};
static const uint32_t ex_b[2] = {1, 2}, ex_bv[2] = {100, 101};

static void run_example(int wrong, uint32_t *keys, uint32_t *vals)
{
    uint32_t *d = tk_dev_bytes(10 * 4), *o = tk_dev_bytes(10 * 4);
    size_t tb = merge_temp_bytes(5);
    void *temp = tk_dev_bytes(tb);
    tk_upload_bytes(d, ex_a, 12);
    tk_upload_bytes(d + 3, ex_av, 12);
    tk_upload_bytes(d + 6, ex_b, 8);
    tk_upload_bytes(d + 8, ex_bv, 8);
    cudaError_t (*fn)(const uint32_t *, const uint32_t *, size_t,
                      const uint32_t *, const uint32_t *, size_t, uint32_t *,
                      uint32_t *, void *, size_t, cudaStream_t) =
        wrong ? merge_pairs_u32_tie_to_b : merge_pairs_u32;
    TK_CUDA(fn(d, d + 3, 3, d + 6, d + 8, 2, o, o + 5, temp, tb, 0));
    tk_download_bytes(keys, o, 20);
    tk_download_bytes(vals, o + 5, 20);
    tk_free(d); tk_free(o); tk_free(temp);
}

static void merge_pairs_stable(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    uint32_t k[5], v[5];
    const uint32_t wk[5] = {1, 1, 1, 2, 2}, wv[5] = {0, 1, 100, 2, 101};
    run_example(0, k, v);
    assert_memory_equal(k, wk, sizeof wk);
    assert_memory_equal(v, wv, sizeof wv);
    for (size_t z = 0; z < nmsizes(); z++)
        if (msizes[z] < 1000000)
            assert_int_equal(check_merge(msizes[z], msizes[z], D_FEW, 1), 0);
}

/* Wrong on purpose: the merge that breaks ties toward b puts the keys in
 * the same order as the stable merge (a keys-only test passes), and the
 * values of equal keys b's first: (100, 0, 1, 101, 2). */
static void tie_to_b_is_unstable(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    uint32_t k[5], v[5], sk[5], sv[5];
    const uint32_t wrongv[5] = {100, 0, 1, 101, 2};
    run_example(1, k, v);
    run_example(0, sk, sv);
    assert_memory_equal(k, sk, sizeof sk);          /* keys: no difference */
    assert_memory_equal(v, wrongv, sizeof wrongv);  /* values: b's first */
    assert_memory_not_equal(v, sv, sizeof sv);
}

/* ---- sorts ------------------------------------------------------------- */

static const size_t ssizes[] = {1, 2, 31, 32, 33, 255, 256, 257, 1023,
                                1024, 1025, 1791, 1792, 1793, 2047, 2048,
                                2049, 2303, 2304, 2305, 3839, 3840, 3841,
                                4095, 4096, 4097, 4351, 4352, 4353, 6143,
                                8193, 8705, 17409, 65537, 1000003,
                                10000001};
#define NSSIZES (sizeof ssizes / sizeof ssizes[0])
/* Under the sanitizer: one past each tile, and 8193: four tiles of 2048
 * and one past (three merge passes at IPT 8, four at 4, two at 16). */
static const size_t small_ssizes[] = {1, 33, 1025, 1793, 2049, 2305, 3841,
                                      4097, 4353, 8193, 8705};
static size_t nssizes(void)
{
    return tk_small() ? sizeof small_ssizes / sizeof *small_ssizes : NSSIZES;
}
static size_t ssize(size_t z) { return tk_small() ? small_ssizes[z] : ssizes[z]; }

/* Sort keys of distribution d with every tile (IPT 4, 8 through
 * merge_sort_u32, 16); returns the wrong words. */
static size_t check_sort_keys(size_t n, int d, int round, int all_ipt)
{
    uint64_t seed = tk_seed(round), st = seed;
    uint32_t *h = tk_malloc(n * 4), *want = tk_malloc(n * 4);
    uint32_t *got = tk_malloc((n + GUARD) * 4);
    fill_keys(h, n, d, &st);
    memcpy(want, h, n * 4);
    qsort(want, n, 4, u32_cmp);
    uint32_t *dk = tk_dev_bytes((n + GUARD) * 4);
    size_t tb = merge_sort_keys_temp_bytes(n);
    char *tbase = tk_dev_bytes(tb + ws_off);
    void *temp = tbase + ws_off;
    size_t bad = 0;
    /* 8 through merge_sort_u32, then every other tile; the odd ones (7, 9,
     * 15, 17: CUB's kind of shape) make tiles that are no power of two. */
    static const int ipts[7] = {8, 4, 16, 7, 9, 15, 17};
    for (int q = 0; q < (all_ipt ? 7 : 1); q++) {
        tk_poison(dk, (n + GUARD) * 4);
        tk_upload_bytes(dk, h, n * 4);
        if (q == 0) TK_CUDA(merge_sort_u32(dk, n, temp, tb, 0));
        else TK_CUDA(merge_sort_u32_ipt(dk, n, ipts[q], temp, tb, 0));
        tk_download_bytes(got, dk, (n + GUARD) * 4);
        size_t b = compare_u32("merge_sort_u32", got, want, n, seed);
        if (b) print_error("... IPT %d, %s keys\n", ipts[q], dname[d]);
        bad += b;
    }
    tk_free(dk); tk_free(tbase);
    free(h); free(want); free(got);
    return bad;
}

static void sort_keys_sizes(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    for (int round = 0; round < (tk_small() ? 1 : 2); round++)
        for (size_t z = 0; z < nssizes(); z++)
            for (int d = 0; d < D_COUNT; d++) {
                const size_t n = ssize(z);
                if (n > 1000000 && round > 0) continue;
                if (tk_small() && (d == D_SORTED || d == D_REVERSED)) continue;
                const int all = n < 1000000 || d == D_RANDOM;
                assert_int_equal(check_sort_keys(n, d, round, all), 0);
            }
}

/* Pairs: values are the input indices, so the stable order is exactly
 * qsort's by (key, index). */
static size_t check_sort_pairs(size_t n, int d, int round)
{
    uint64_t seed = tk_seed(round), st = seed;
    uint32_t *h = tk_malloc(n * 4), *hv = tk_malloc(n * 4);
    uint32_t *want = tk_malloc(n * 4), *wantv = tk_malloc(n * 4);
    uint32_t *got = tk_malloc((n + GUARD) * 4);
    kv *r = tk_malloc(n * sizeof *r);
    fill_keys(h, n, d, &st);
    for (size_t i = 0; i < n; i++) {
        hv[i] = (uint32_t)i;
        r[i].key = h[i];
        r[i].idx = (uint32_t)i;
    }
    qsort(r, n, sizeof *r, kv_cmp);
    for (size_t i = 0; i < n; i++) {
        want[i] = r[i].key;
        wantv[i] = r[i].idx;
    }
    uint32_t *dk = tk_dev_bytes((n + GUARD) * 4);
    uint32_t *dv = tk_dev_bytes((n + GUARD) * 4);
    size_t tb = merge_sort_pairs_temp_bytes(n);
    void *temp = tk_dev_bytes(tb);
    tk_upload_bytes(dk, h, n * 4);
    tk_upload_bytes(dv, hv, n * 4);
    TK_CUDA(merge_sort_pairs_u32(dk, dv, n, temp, tb, 0));
    tk_download_bytes(got, dk, (n + GUARD) * 4);
    size_t bad = compare_u32("merge_sort_pairs_u32 keys", got, want, n, seed);
    tk_download_bytes(got, dv, (n + GUARD) * 4);
    bad += compare_u32("merge_sort_pairs_u32 values", got, wantv, n, seed);
    if (bad) print_error("... %s keys\n", dname[d]);
    tk_free(dk); tk_free(dv); tk_free(temp);
    free(h); free(hv); free(want); free(wantv); free(got); free(r);
    return bad;
}

static void sort_pairs_stable(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    for (int round = 0; round < (tk_small() ? 1 : 2); round++)
        for (size_t z = 0; z < nssizes(); z++)
            for (int d = 0; d < D_COUNT; d++) {
                const size_t n = ssize(z);
                if (n > 1000000 && (round > 0 || (d != D_RANDOM &&
                                                  d != D_FEW)))
                    continue;
                assert_int_equal(check_sort_pairs(n, d, round), 0);
            }
}

/* Floats by absolute value: keys +-k/4 for k < 64, many ties between x
 * and -x; stable means the input order among equal |x|. */
typedef struct { float key; uint32_t idx; } fkv;
static int fkv_cmp(const void *x, const void *y)
{
    const fkv *a = x, *b = y;
    float p = fabsf(a->key), q = fabsf(b->key);
    if (p != q) return p < q ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static size_t check_sort_abs(size_t n, int round)
{
    uint64_t seed = tk_seed(round), st = seed;
    float *h = tk_malloc(n * 4), *got = tk_malloc((n + GUARD) * 4);
    fkv *r = tk_malloc(n * sizeof *r);
    for (size_t i = 0; i < n; i++) {
        uint64_t x = tk_next(&st);
        h[i] = (float)(x % 64) / 4.0f * ((x >> 32) & 1 ? -1.0f : 1.0f);
        r[i].key = h[i];
        r[i].idx = (uint32_t)i;
    }
    qsort(r, n, sizeof *r, fkv_cmp);
    float *dk = tk_dev_bytes((n + GUARD) * 4);
    size_t tb = merge_sort_keys_temp_bytes(n);
    void *temp = tk_dev_bytes(tb);
    tk_upload_bytes(dk, h, n * 4);
    TK_CUDA(merge_sort_f32_abs(dk, n, temp, tb, 0));
    tk_download_bytes(got, dk, (n + GUARD) * 4);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        if (memcmp(&got[i], &r[i].key, 4) && bad++ < 5)
            print_error("merge_sort_f32_abs, n %zu: [%zu] is %g, expected "
                        "%g (seed %llu)\n", n, i, got[i], r[i].key,
                        (unsigned long long)seed);
    for (size_t i = n; i < n + GUARD; i++)
        if (memcmp(&got[i], &(uint32_t){POISON}, 4) && bad++ < 5)
            print_error("merge_sort_f32_abs, n %zu: guard written\n", n);
    tk_free(dk); tk_free(temp);
    free(h); free(got); free(r);
    return bad;
}

static void sort_abs_stable(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    for (int round = 0; round < (tk_small() ? 1 : 2); round++)
        for (size_t z = 0; z < nssizes(); z++)
            if (ssize(z) < 1000000 || round == 0)
                assert_int_equal(check_sort_abs(ssize(z), round), 0);
}

/* ---- the workspace at 4 bytes past an allocation ---------------------- */

/* Co-ranks are 32-bit words: a workspace aligned to 4 bytes, not 8, must
 * work for merges and sorts alike. */
static void workspace_aligned_4(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    static const size_t mn[] = {33, 2049, 100003};
    static const size_t sn[] = {33, 2049, 8193, 65537};
    ws_off = 4;                   /* under the sanitizer, up to 8193 */
    for (size_t z = 0; z < (tk_small() ? 2u : 3u); z++)
        assert_int_equal(check_merge(mn[z], mn[z] + 7, D_RANDOM, 0), 0);
    for (size_t z = 0; z < (tk_small() ? 3u : 4u); z++)
        assert_int_equal(check_sort_keys(sn[z], D_RANDOM, 0, 1), 0);
    ws_off = 0;
}

/* ---- unsorted input, a comparator with NaN ----------------------------- */

/* The output is unspecified, so only this is checked: the call succeeds,
 * nothing is written past the end, and every word written is one of the
 * input's (a wrong word would be a read from outside it).  Inputs are
 * allocations of exactly their size, for memcheck. */
static size_t check_from_input(const char *what, const uint32_t *got,
                               const uint32_t *in, size_t n)
{
    uint32_t *s = tk_malloc((n ? n : 1) * 4);
    memcpy(s, in, n * 4);
    qsort(s, n, 4, u32_cmp);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        if (!bsearch(&got[i], s, n, 4, u32_cmp) && bad++ < 5)
            print_error("%s, n %zu: [%zu] = 0x%08x is not an input word\n",
                        what, n, i, got[i]);
    for (size_t i = n; i < n + GUARD; i++)
        if (got[i] != POISON && bad++ < 5)
            print_error("%s, n %zu: guard word %zu written\n", what, n,
                        i - n);
    free(s);
    return bad;
}

static size_t garbage_merge(size_t na, size_t nb, int round)
{
    const size_t n = na + nb;
    uint64_t st = tk_seed(round);
    uint32_t *h = tk_malloc((n + 1) * 4), *hv = tk_malloc((n + 1) * 4);
    uint32_t *got = tk_malloc((n + GUARD) * 4);
    fill_keys(h, n, D_RANDOM, &st);               /* not sorted */
    for (size_t i = 0; i < n; i++) hv[i] = (uint32_t)i;
    const size_t ab = (na ? na : 1) * 4, bb = (nb ? nb : 1) * 4;
    uint32_t *da = tk_dev_bytes(ab), *db = tk_dev_bytes(bb);
    uint32_t *dav = tk_dev_bytes(ab), *dbv = tk_dev_bytes(bb);
    uint32_t *dout = tk_dev_bytes((n + GUARD) * 4);
    uint32_t *doutv = tk_dev_bytes((n + GUARD) * 4);
    const size_t tb = merge_temp_bytes(n);
    void *temp = tk_dev_bytes(tb);
    tk_upload_bytes(da, h, na * 4);
    tk_upload_bytes(db, h + na, nb * 4);
    tk_upload_bytes(dav, hv, na * 4);
    tk_upload_bytes(dbv, hv + na, nb * 4);
    TK_CUDA(merge_u32(da, na, db, nb, dout, temp, tb, 0));
    tk_download_bytes(got, dout, (n + GUARD) * 4);
    size_t bad = check_from_input("unsorted merge_u32", got, h, n);
    tk_poison(dout, (n + GUARD) * 4);
    TK_CUDA(merge_pairs_u32(da, dav, na, db, dbv, nb, dout, doutv, temp, tb,
                            0));
    tk_download_bytes(got, dout, (n + GUARD) * 4);
    bad += check_from_input("unsorted merge_pairs_u32 keys", got, h, n);
    tk_download_bytes(got, doutv, (n + GUARD) * 4);
    bad += check_from_input("unsorted merge_pairs_u32 values", got, hv, n);
    if (bad) print_error("... merging %zu and %zu unsorted keys\n", na, nb);
    tk_free(da); tk_free(db); tk_free(dav); tk_free(dbv);
    tk_free(dout); tk_free(doutv); tk_free(temp);
    free(h); free(hv); free(got);
    return bad;
}

/* Floats by |x| with about one NaN in eight: |NaN| < y and y < |NaN| are
 * both false, so NaN "ties" with everything and the order is not a
 * strict weak order. */
static size_t garbage_sort_abs(size_t n, int round)
{
    uint64_t st = tk_seed(round);
    uint32_t *h = tk_malloc(n * 4), *got = tk_malloc((n + GUARD) * 4);
    for (size_t i = 0; i < n; i++) {
        const uint64_t x = tk_next(&st);
        float f = (float)(x % 1000) / 4.0f * ((x >> 32) & 1 ? -1.0f : 1.0f);
        if ((x >> 40) % 8 == 0) f = NAN;
        memcpy(&h[i], &f, 4);
    }
    float *dk = tk_dev_bytes((n + GUARD) * 4);
    const size_t tb = merge_sort_keys_temp_bytes(n);
    void *temp = tk_dev_bytes(tb);
    tk_upload_bytes(dk, h, n * 4);
    TK_CUDA(merge_sort_f32_abs(dk, n, temp, tb, 0));
    tk_download_bytes(got, dk, (n + GUARD) * 4);
    const size_t bad = check_from_input("merge_sort_f32_abs with NaN", got,
                                        h, n);
    tk_free(dk); tk_free(temp);
    free(h); free(got);
    return bad;
}

static void garbage_stays_in_bounds(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    static const size_t n[] = {1, 33, 2047, 2049, 4097, 8193, 100003};
    const size_t nn = tk_small() ? 6 : 7;
    for (int round = 0; round < 2; round++)
        for (size_t z = 0; z < nn; z++) {
            assert_int_equal(garbage_merge(n[z] / 2, n[z] - n[z] / 2, round),
                             0);
            assert_int_equal(garbage_merge(n[z], 5, round), 0);
            assert_int_equal(garbage_merge(3, n[z], round), 0);
            assert_int_equal(garbage_sort_abs(n[z], round), 0);
        }
}

/* ---- refusals ---------------------------------------------------------- */

#define FAKE(a) ((uint32_t *)TK_FAKE(a))
/* Fake pointers 2^40 bytes apart: the arrays of MERGE_MAX_N + 1 words
 * (8 GiB) that the count tests describe overlap nothing, so that only the
 * count can be the reason for a refusal. */
#define FAR(i) FAKE((uintptr_t)(i) << 40)

/* ---- at the limit: MERGE_MAX_N = 2^31 - 1 elements ------------------------
 * The 32-bit cuts, the (int) casts of counts and grids of 2^20 tiles and
 * more, run where they matter.  The checks are O(n) formulas, not
 * references: 2^31 keys are too many for qsort in a test. */
static uint64_t mix32(uint32_t x)
{
    uint64_t z = x + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* a[i] = i for i < 2^30, b[j] = j for j < 2^30 - 1: every key of b ties
 * one of a.  The stable merge is out[k] = k / 2, a's before b's, and a's
 * last key alone at the end; values tag the origin (a: i, b: 2^31 | j). */
static void merge_pairs_at_the_limit(void **s)
{
    (void)s;
    TK_SKIP_UNDER_SANITIZER("2^31 elements are too many for the sanitizer");
    const size_t na = (size_t)1 << 30, nb = na - 1, n = na + nb;
    assert_int_equal(n, MERGE_MAX_N);
    const size_t tb = merge_temp_bytes(n);
    TK_REQUIRE_DEVICE_BYTES(16 * n + tb + ((size_t)1 << 30));
    uint32_t *h = tk_malloc(n * 4);
    uint32_t *a = tk_dev_bytes(na * 4), *b = tk_dev_bytes(nb * 4);
    uint32_t *av = tk_dev_bytes(na * 4), *bv = tk_dev_bytes(nb * 4);
    uint32_t *o = tk_dev_bytes(n * 4 + 4), *ov = tk_dev_bytes(n * 4 + 4);
    void *t = tk_dev_bytes(tb);
    for (size_t i = 0; i < na; i++) h[i] = (uint32_t)i;
    tk_upload_bytes(a, h, na * 4);
    tk_upload_bytes(av, h, na * 4);
    tk_upload_bytes(b, h, nb * 4);
    for (size_t j = 0; j < nb; j++) h[j] = 0x80000000u | (uint32_t)j;
    tk_upload_bytes(bv, h, nb * 4);
    tk_poison(o, n * 4 + 4);
    tk_poison(ov, n * 4 + 4);
    TK_CUDA(merge_pairs_u32(a, av, na, b, bv, nb, o, ov, t, tb, 0));
    TK_CUDA(cudaDeviceSynchronize());
    size_t bad = 0;
    tk_download_bytes(h, o, n * 4);
    for (size_t k = 0; k < n; k++) {
        const uint32_t want = k + 1 < n ? (uint32_t)(k / 2) : (uint32_t)nb;
        if (h[k] != want && bad++ < 5)
            print_error("limit merge: key [%zu] is %u, expected %u\n", k,
                        h[k], want);
    }
    tk_download_bytes(h, ov, n * 4);
    for (size_t k = 0; k < n; k++) {
        const uint32_t want = k + 1 == n ? (uint32_t)(na - 1)
                            : k % 2 ? 0x80000000u | (uint32_t)(k / 2)
                                    : (uint32_t)(k / 2);
        if (h[k] != want && bad++ < 10)
            print_error("limit merge: value [%zu] is %#x, expected %#x\n", k,
                        h[k], want);
    }
    uint32_t tail[2];
    tk_download_bytes(&tail[0], o + n, 4);
    tk_download_bytes(&tail[1], ov + n, 4);
    tk_free(a); tk_free(b); tk_free(av); tk_free(bv);
    tk_free(o); tk_free(ov); tk_free(t);
    free(h);
    assert_int_equal(bad, 0);
    assert_int_equal(tail[0], POISON);
    assert_int_equal(tail[1], POISON);
}

/* Keys: 2^31 - 1 random words, sorted and the same multiset (a sum of a
 * mix of each key).  Pairs: 16-bit keys, a function of the index (so the
 * check needs no second array and no random reads), values the input
 * index: sorted, each value's key its input key, equal keys in input
 * order. */
static uint32_t limit_key(size_t i)
{
    return (uint32_t)(mix32((uint32_t)i) >> 48);
}
static void sort_at_the_limit(void **s)
{
    (void)s;
    TK_SKIP_UNDER_SANITIZER("2^31 keys are too many for the sanitizer");
    const size_t n = MERGE_MAX_N;
    const size_t tk = merge_sort_keys_temp_bytes(n);
    const size_t tp = merge_sort_pairs_temp_bytes(n);
    TK_REQUIRE_DEVICE_BYTES(8 * n + tp + ((size_t)1 << 30));
    uint32_t *h = tk_malloc(n * 4), *hv = tk_malloc(n * 4);
    uint64_t st = tk_seed(0), sum_in = 0, sum_out = 0;
    for (size_t i = 0; i < n; i++) {
        h[i] = (uint32_t)(tk_next(&st) >> 32);
        sum_in += mix32(h[i]);
    }
    uint32_t *dk = tk_dev_bytes(n * 4 + 4), *dv = tk_dev_bytes(n * 4 + 4);
    void *t = tk_dev_bytes(tp > tk ? tp : tk);
    tk_poison(dk, n * 4 + 4);
    tk_upload_bytes(dk, h, n * 4);
    TK_CUDA(merge_sort_u32(dk, n, t, tk, 0));
    TK_CUDA(cudaDeviceSynchronize());
    tk_download_bytes(h, dk, n * 4);
    size_t descents = 0;
    for (size_t i = 0; i < n; i++) {
        sum_out += mix32(h[i]);
        descents += i && h[i - 1] > h[i];
    }
    uint32_t tail[2];
    tk_download_bytes(&tail[0], dk + n, 4);
    print_message("limit sort, keys: %zu descents\n", descents);
    assert_int_equal(descents, 0);
    assert_true(sum_in == sum_out);
    assert_int_equal(tail[0], POISON);
    for (size_t i = 0; i < n; i++) {
        h[i] = limit_key(i);
        hv[i] = (uint32_t)i;
    }
    tk_poison(dk, n * 4 + 4);
    tk_poison(dv, n * 4 + 4);
    tk_upload_bytes(dk, h, n * 4);
    tk_upload_bytes(dv, hv, n * 4);
    TK_CUDA(merge_sort_pairs_u32(dk, dv, n, t, tp, 0));
    TK_CUDA(cudaDeviceSynchronize());
    tk_download_bytes(h, dk, n * 4);
    tk_download_bytes(hv, dv, n * 4);
    tk_download_bytes(&tail[0], dk + n, 4);
    tk_download_bytes(&tail[1], dv + n, 4);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        const int ok = hv[i] < n && limit_key(hv[i]) == h[i] &&
                       (i == 0 || h[i - 1] < h[i] ||
                        (h[i - 1] == h[i] && hv[i - 1] < hv[i]));
        if (!ok && bad++ < 5)
            print_error("limit sort, pairs: [%zu] is (%u, %u)\n", i, h[i],
                        hv[i]);
    }
    tk_free(dk); tk_free(dv); tk_free(t);
    free(h); free(hv);
    assert_int_equal(bad, 0);
    assert_int_equal(tail[0], POISON);
    assert_int_equal(tail[1], POISON);
}

static void merge_refusals(void **s)
{
    (void)s;
    uint32_t *a = FAR(1), *b = FAR(2), *o = FAR(3), *av = FAR(5);
    uint32_t *bv = FAR(6), *ov = FAR(7);
    void *t = FAR(4);
    const size_t tb = merge_temp_bytes(2000), big = MERGE_MAX_N;
    /* Enough workspace for big + 1, so that only the count is wrong. */
    const size_t tbig = merge_temp_bytes(big) + 256;
    /* Above the limit the size query answers 0, as the sort chapter's. */
    assert_true(merge_temp_bytes(big) >= 4 * (big / 2048));
    assert_int_equal(merge_temp_bytes(big + 1), 0);
    assert_int_equal(merge_temp_bytes(SIZE_MAX), 0);
    /* Counts whose sum wraps to 0, and whose byte lengths wrap to 0. */
    const size_t w1 = (size_t)1 << 62, w3 = (size_t)3 << 62;
    TK_REFUSED(merge_u32(NULL, 1000, b, 1000, o, t, tb, 0));
    TK_REFUSED(merge_u32(a, 1000, NULL, 1000, o, t, tb, 0));
    TK_REFUSED(merge_u32(a, 1000, b, 1000, NULL, t, tb, 0));
    TK_REFUSED(merge_u32(a, 1000, b, 1000, o, NULL, tb, 0));
    TK_REFUSED(merge_u32(a, 1000, b, 1000, o, (char *)t + 2, tb, 0));
    TK_REFUSED(merge_u32(a, 1000, b, 1000, o, t, tb - 1, 0));
    TK_REFUSED(merge_u32(a, big + 1, b, 0, o, t, tbig, 0));
    TK_REFUSED(merge_u32(a, 0, b, big + 1, o, t, tbig, 0));
    TK_REFUSED(merge_u32(a, big, b, 1, o, t, tbig, 0));
    TK_REFUSED(merge_u32(a, w1, b, w3, o, t, tbig, 0));
    /* out over a, over b; temp over out, a, b. */
    TK_REFUSED(merge_u32(a, 1000, b, 1000, a + 999, t, tb, 0));
    TK_REFUSED(merge_u32(a, 1000, b, 1000, b - 1999, t, tb, 0));
    TK_REFUSED(merge_u32(a, 1000, b, 1000, o, o + 1999, tb, 0));
    TK_REFUSED(merge_u32(a, 1000, b, 1000, o, a + 999, tb, 0));
    TK_REFUSED(merge_u32(a, 1000, b, 1000, o, b + 999, tb, 0));
    /* Pairs: the same, and the values. */
    cudaError_t (*const fns[2])(const uint32_t *, const uint32_t *, size_t,
                                const uint32_t *, const uint32_t *, size_t,
                                uint32_t *, uint32_t *, void *, size_t,
                                cudaStream_t) = {merge_pairs_u32,
                                                 merge_pairs_u32_tie_to_b};
    for (int f = 0; f < 2; f++) {
        TK_REFUSED(fns[f](NULL, av, 9, b, bv, 9, o, ov, t, tb, 0));
        TK_REFUSED(fns[f](a, NULL, 9, b, bv, 9, o, ov, t, tb, 0));
        TK_REFUSED(fns[f](a, av, 9, b, NULL, 9, o, ov, t, tb, 0));
        TK_REFUSED(fns[f](a, av, 9, b, bv, 9, o, NULL, t, tb, 0));
        TK_REFUSED(fns[f](a, av, 9, b, bv, 9, o, o + 17, t, tb, 0));
        /* out or outv over a value array; temp over outv and every
         * input. */
        TK_REFUSED(fns[f](a, av, 9, b, bv, 9, o, av, t, tb, 0));
        TK_REFUSED(fns[f](a, av, 9, b, bv, 9, o, bv + 8, t, tb, 0));
        TK_REFUSED(fns[f](a, av, 9, b, bv, 9, av + 8, ov, t, tb, 0));
        TK_REFUSED(fns[f](a, av, 9, b, bv, 9, bv, ov, t, tb, 0));
        TK_REFUSED(fns[f](a, av, 9, b, bv, 9, o, ov, ov, tb, 0));
        TK_REFUSED(fns[f](a, av, 9, b, bv, 9, o, ov, a + 8, tb, 0));
        TK_REFUSED(fns[f](a, av, 9, b, bv, 9, o, ov, b, tb, 0));
        TK_REFUSED(fns[f](a, av, 9, b, bv, 9, o, ov, av + 8, tb, 0));
        TK_REFUSED(fns[f](a, av, 9, b, bv, 9, o, ov, bv, tb, 0));
        TK_REFUSED(fns[f](a, av, 9, b, bv, 9, o, ov, t, 0, 0));
        TK_REFUSED(fns[f](a, av, big, b, bv, 1, o, ov, t, tbig, 0));
        TK_REFUSED(fns[f](a, av, w1, b, bv, w3, o, ov, t, tbig, 0));
        assert_int_equal(fns[f](NULL, NULL, 0, NULL, NULL, 0, NULL, NULL,
                                NULL, 0, 0), cudaSuccess);
    }
    /* Nothing to do: success, without touching a pointer. */
    assert_int_equal(merge_u32(NULL, 0, NULL, 0, NULL, NULL, 0, 0),
                     cudaSuccess);
    assert_int_equal(merge_temp_bytes(0), 0);
}

static void sort_refusals(void **s)
{
    (void)s;
    uint32_t *k = FAR(1), *v = FAR(2);
    void *t = FAR(4);
    const size_t n = 5000, tk = merge_sort_keys_temp_bytes(n);
    const size_t tp = merge_sort_pairs_temp_bytes(n), big = MERGE_MAX_N;
    const size_t tkbig = merge_sort_keys_temp_bytes(big) + 512;
    const size_t tpbig = merge_sort_pairs_temp_bytes(big) + 1024;
    assert_true(merge_sort_keys_temp_bytes(big) >= 4 * big);
    assert_true(merge_sort_pairs_temp_bytes(big) >= 8 * big);
    assert_int_equal(merge_sort_keys_temp_bytes(big + 1), 0);
    assert_int_equal(merge_sort_pairs_temp_bytes(big + 1), 0);
    assert_int_equal(merge_sort_keys_temp_bytes(SIZE_MAX / 4 + 1), 0);
    assert_true(tk >= 4 * n && tp >= 8 * n);
    TK_REFUSED(merge_sort_u32(NULL, n, t, tk, 0));
    TK_REFUSED(merge_sort_u32(k, n, NULL, tk, 0));
    TK_REFUSED(merge_sort_u32(k, n, (char *)t + 1, tk, 0));
    TK_REFUSED(merge_sort_u32(k, n, t, tk - 1, 0));
    TK_REFUSED(merge_sort_u32(k, big + 1, t, tkbig, 0));
    TK_REFUSED(merge_sort_u32(k, n, k + n - 1, tk, 0));
    for (int ipt = -1; ipt <= 33; ipt++)
        if (ipt != 4 && ipt != 7 && ipt != 8 && ipt != 9 && ipt != 15 &&
            ipt != 16 && ipt != 17)
            TK_REFUSED(merge_sort_u32_ipt(k, n, ipt, t, tk, 0));
    TK_REFUSED(merge_sort_u32_ipt(NULL, n, 4, t, tk, 0));
    TK_REFUSED(merge_sort_u32_ipt(k, n, 16, t, tk - 1, 0));
    TK_REFUSED(merge_sort_pairs_u32(NULL, v, n, t, tp, 0));
    TK_REFUSED(merge_sort_pairs_u32(k, NULL, n, t, tp, 0));
    TK_REFUSED(merge_sort_pairs_u32(k, v, n, NULL, tp, 0));
    TK_REFUSED(merge_sort_pairs_u32(k, v, n, t, tp - 1, 0));
    TK_REFUSED(merge_sort_pairs_u32(k, v, n, t, tk, 0));
    TK_REFUSED(merge_sort_pairs_u32(k, k + 1, n, t, tp, 0));
    TK_REFUSED(merge_sort_pairs_u32(k, v, n, v, tp, 0));
    TK_REFUSED(merge_sort_pairs_u32(k, v, big + 1, t, tpbig, 0));
    float *f = (float *)(uintptr_t)((uintptr_t)1 << 40);
    TK_REFUSED(merge_sort_f32_abs(NULL, n, t, tk, 0));
    TK_REFUSED(merge_sort_f32_abs(f, n, NULL, tk, 0));
    TK_REFUSED(merge_sort_f32_abs(f, n, t, tk - 1, 0));
    TK_REFUSED(merge_sort_f32_abs(f, n, (char *)t + 2, tk, 0));
    TK_REFUSED(merge_sort_f32_abs(f, n, (char *)f + 4, tk, 0));
    TK_REFUSED(merge_sort_f32_abs(f, big + 1, t, tkbig, 0));
    /* n == 0: success without touching a pointer. */
    assert_int_equal(merge_sort_u32(NULL, 0, NULL, 0, 0), cudaSuccess);
    assert_int_equal(merge_sort_pairs_u32(NULL, NULL, 0, NULL, 0, 0),
                     cudaSuccess);
    assert_int_equal(merge_sort_f32_abs(NULL, 0, NULL, 0, 0), cudaSuccess);
}

/* ---- stream order ------------------------------------------------------ */

/* Every launcher of merge.h, merge_sort_u32_ipt at each tile it takes. */
enum { O_MERGE, O_PAIRS, O_TIE_TO_B, O_SORT, O_SORT_IPT4, O_SORT_IPT8,
       O_SORT_IPT16, O_SORT_PAIRS, O_SORT_ABS, O_COUNT };
static const char *oname[O_COUNT] = {
    "merge_u32", "merge_pairs_u32", "merge_pairs_u32_tie_to_b",
    "merge_sort_u32", "merge_sort_u32_ipt 4", "merge_sort_u32_ipt 8",
    "merge_sort_u32_ipt 16", "merge_sort_pairs_u32", "merge_sort_f32_abs"};

/* Launcher o on stream s: a merge of in[0, na) and in[na, n) (values
 * inv) into out and outv, or a sort of in (and inv) in place. */
static cudaError_t order_call(int o, uint32_t *in, uint32_t *inv, size_t na,
                              size_t n, uint32_t *out, uint32_t *outv,
                              void *temp, size_t tb, cudaStream_t s)
{
    static const int ipt[3] = {4, 8, 16};
    switch (o) {
    case O_MERGE:
        return merge_u32(in, na, in + na, n - na, out, temp, tb, s);
    case O_PAIRS:
        return merge_pairs_u32(in, inv, na, in + na, inv + na, n - na, out,
                               outv, temp, tb, s);
    case O_TIE_TO_B:
        return merge_pairs_u32_tie_to_b(in, inv, na, in + na, inv + na,
                                        n - na, out, outv, temp, tb, s);
    case O_SORT: return merge_sort_u32(in, n, temp, tb, s);
    case O_SORT_PAIRS: return merge_sort_pairs_u32(in, inv, n, temp, tb, s);
    case O_SORT_ABS: return merge_sort_f32_abs((float *)in, n, temp, tb, s);
    default:
        return merge_sort_u32_ipt(in, n, ipt[o - O_SORT_IPT4], temp, tb, s);
    }
}

/* 1 when device d[0, n) still holds h[0, n). */
static int still_holds(const uint32_t *d, const uint32_t *h, size_t n)
{
    uint32_t *now = tk_malloc(n * 4);
    tk_download_bytes(now, d, n * 4);
    int same = memcmp(now, h, n * 4) == 0;
    free(now);
    return same;
}

/* Launcher o on 10^6 + 1 few-unique keys (floats +-k/4 by absolute value
 * for merge_sort_f32_abs), values their input index, queued on a stream
 * held behind a closed gate: when the launcher has returned, the outputs
 * and the workspace are still the poison and a sort's keys and values
 * still the input; once the gate opens, the result is the reference's.
 * A first call on the default stream loads the kernels (loading one may
 * wait for the whole device).  The tie-to-b merge is wrong on purpose:
 * it must follow its stream like the others, and only its keys are
 * checked (its values of equal keys come b's first). */
static void order_case(int o)
{
    const size_t na = 500001, n = 1000001;
    const int merge = o <= O_TIE_TO_B;
    const int pairs = o == O_PAIRS || o == O_TIE_TO_B || o == O_SORT_PAIRS;
    uint64_t seed = tk_seed(0), st = seed;
    uint32_t *h = tk_malloc(n * 4), *hv = tk_malloc(n * 4);
    uint32_t *want = tk_malloc(n * 4), *wantv = tk_malloc(n * 4);
    uint32_t *got = tk_malloc(n * 4);
    kv *r = tk_malloc(n * sizeof *r);
    fkv *fr = tk_malloc(n * sizeof *fr);
    fill_keys(h, n, D_FEW, &st);
    for (size_t i = 0; i < n; i++) hv[i] = (uint32_t)i;
    if (merge) {
        qsort(h, na, 4, u32_cmp);
        qsort(h + na, n - na, 4, u32_cmp);
        merge_ref(h, hv, na, h + na, hv + na, n - na, want, wantv);
    } else if (o == O_SORT_ABS) {
        for (size_t i = 0; i < n; i++) {
            uint64_t x = tk_next(&st);
            float f = (float)(x % 64) / 4.0f * ((x >> 32) & 1 ? -1.0f : 1.0f);
            memcpy(&h[i], &f, 4);
            fr[i].key = f;
            fr[i].idx = (uint32_t)i;
        }
        qsort(fr, n, sizeof *fr, fkv_cmp);
        for (size_t i = 0; i < n; i++) memcpy(&want[i], &fr[i].key, 4);
    } else {
        for (size_t i = 0; i < n; i++) {
            r[i].key = h[i];
            r[i].idx = (uint32_t)i;
        }
        qsort(r, n, sizeof *r, kv_cmp);
        for (size_t i = 0; i < n; i++) {
            want[i] = r[i].key;
            wantv[i] = r[i].idx;
        }
    }
    const size_t tb = merge ? merge_temp_bytes(n)
                    : o == O_SORT_PAIRS ? merge_sort_pairs_temp_bytes(n)
                                        : merge_sort_keys_temp_bytes(n);
    uint32_t *din = tk_dev_bytes(n * 4), *dinv = tk_dev_bytes(n * 4);
    uint32_t *dout = tk_dev_bytes(n * 4), *doutv = tk_dev_bytes(n * 4);
    void *temp = tk_dev_bytes(tb);
    for (int gated = 0; gated < 2; gated++) {
        tk_upload_bytes(din, h, n * 4);
        tk_upload_bytes(dinv, hv, n * 4);
        tk_poison(dout, n * 4);
        tk_poison(doutv, n * 4);
        tk_poison(temp, tb);
        if (!gated) {                    /* loads the kernels */
            TK_CUDA(order_call(o, din, dinv, na, n, dout, doutv, temp, tb,
                               0));
            TK_CUDA(cudaDeviceSynchronize());
            continue;
        }
        tk_gate g = tk_gate_close();
        cudaError_t e = order_call(o, din, dinv, na, n, dout, doutv, temp,
                                   tb, g.s);
        int waited = tk_still_poisoned(temp, tb) &&
                     (merge ? tk_still_poisoned(dout, n * 4) &&
                                  tk_still_poisoned(doutv, n * 4)
                            : still_holds(din, h, n) &&
                                  still_holds(dinv, hv, n));
        tk_gate_open(&g);
        TK_CUDA(e);
        if (!waited)
            print_error("%s: it wrote before its stream let it\n", oname[o]);
        assert_true(waited);
    }
    char what[64];
    snprintf(what, sizeof what, "%s on a gated stream", oname[o]);
    tk_download_bytes(got, merge ? dout : din, n * 4);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i] && bad++ < 5)
            print_error("%s: key [%zu] is %u, expected %u (seed %llu)\n",
                        what, i, got[i], want[i], (unsigned long long)seed);
    if (pairs && o != O_TIE_TO_B) {
        tk_download_bytes(got, merge ? doutv : dinv, n * 4);
        for (size_t i = 0; i < n; i++)
            if (got[i] != wantv[i] && bad++ < 5)
                print_error("%s: value [%zu] is %u, expected %u\n", what, i,
                            got[i], wantv[i]);
    }
    assert_int_equal(bad, 0);
    tk_free(din); tk_free(dinv); tk_free(dout); tk_free(doutv);
    tk_free(temp);
    free(h); free(hv); free(want); free(wantv); free(got); free(r); free(fr);
}

/* Every launcher queues all its work on the stream it is given, the
 * merge that is wrong on purpose too. */
static void merge_launchers_follow_the_stream(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    for (int o = 0; o < O_COUNT; o++) order_case(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(merge_refusals),
        cmocka_unit_test(sort_refusals),
        cmocka_unit_test(merge_pairs_stable),
        cmocka_unit_test(tie_to_b_is_unstable),
        cmocka_unit_test(merge_shapes),
        cmocka_unit_test(merge_very_unequal),
        cmocka_unit_test(sort_keys_sizes),
        cmocka_unit_test(sort_pairs_stable),
        cmocka_unit_test(sort_abs_stable),
        cmocka_unit_test(workspace_aligned_4),
        cmocka_unit_test(garbage_stays_in_bounds),
        cmocka_unit_test(merge_launchers_follow_the_stream),
        cmocka_unit_test(merge_pairs_at_the_limit),
        cmocka_unit_test(sort_at_the_limit),
    };
    return tk_run_tests("merge", tests);
}
