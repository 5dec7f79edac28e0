/* test_sort.c -- the sort chapter's tests: every sort of unsigned keys
 * against qsort at the book's sizes and on the distributions that break
 * sorts; pairs and their stability; signed, float and 64-bit keys, with
 * -0.0, infinities and NaNs; in place; past 2^31 keys; the refusals; and
 * the wrong-on-purpose unstable ranking, which must fail. */
#include "testkit.h"
#include "sort/sort.h"
#include "variants.h"     /* the sorts of unsigned keys: S_ONESWEEP ... */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the CPU's reference ------------------------------------------------ */

static int cmp_u32(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return (x > y) - (x < y);
}
static int cmp_u64(const void *a, const void *b)
{
    unsigned long long x = *(const unsigned long long *)a;
    unsigned long long y = *(const unsigned long long *)b;
    return (x > y) - (x < y);
}
/* A pair's key, as 64 bits that sort in the key's order, and its index:
 * qsort on (key, index) is a stable sort by key. */
typedef struct { unsigned long long key; unsigned index; } keyed;
static int cmp_keyed(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->key != y->key) return (x->key > y->key) - (x->key < y->key);
    return (x->index > y->index) - (x->index < y->index);
}
/* Float bits in IEEE total order (the order the header promises). */
static unsigned f32_order(float f)
{
    unsigned u;
    memcpy(&u, &f, 4);
    return u & 0x80000000u ? ~u : u | 0x80000000u;
}

/* ---- inputs --------------------------------------------------------------- */

enum { D_UNIFORM, D_EQUAL, D_BYTE2_FIXED, D_SORTED, D_REVERSED, D_FEW,
       D_LOW_ENTROPY, D_MAXED, D_COUNT };
static const char *dname[D_COUNT] = {
    "uniform", "all equal", "byte 2 one value", "sorted", "reversed",
    "16 unique", "low entropy (and of 3)", "all 0xffffffff"};
static void fill_u32(unsigned *x, size_t n, int d, uint64_t *st)
{
    const unsigned one = (unsigned)tk_next(st);
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = tk_next(st);
        unsigned u = (unsigned)(r >> 32);
        switch (d) {
        case D_EQUAL: u = one; break;
        case D_BYTE2_FIXED: u = (u & 0xff00ffffu) | 0x00ab0000u; break;
        case D_SORTED: u = (unsigned)i * 3u; break;
        case D_REVERSED: u = (unsigned)(n - i) * 3u; break;
        case D_FEW: u = 0x01010101u * (unsigned)(r % 16); break;
        case D_LOW_ENTROPY:
            u &= (unsigned)r & (unsigned)(tk_next(st) >> 16);
            break;
        case D_MAXED: u = 0xffffffffu; break;
        default: break;
        }
        x[i] = u;
    }
}

/* x, n keys of distribution d from st, and ref, x sorted by qsort. */
static void keys_and_sorted(unsigned *x, unsigned *ref, size_t n, int d,
                            uint64_t *st)
{
    fill_u32(x, n, d, st);
    memcpy(ref, x, n * 4);
    qsort(ref, n, 4, cmp_u32);
}

/* ---- one sort of unsigned keys against the reference ------------------- */

/* Sort x (n keys) with variant v, out of place or in place; compare with
 * ref (sorted x); the key past the end of the output stays poisoned, and
 * out of place the input is unchanged.  Returns the wrong keys. */
static size_t check_u32(int v, const unsigned *x, const unsigned *ref,
                        size_t n, int in_place, const char *what,
                        uint64_t seed)
{
    const size_t tb = sort_temp_bytes(n, 4, 0);
    assert_true(tb > 0 || n == 0);
    unsigned *din = tk_dev_bytes((n + 1) * 4);
    unsigned *dout = in_place ? din : tk_dev_bytes((n + 1) * 4);
    void *temp = tk_dev_bytes(tb ? tb : 1);
    tk_upload_bytes(din, x, n * 4);
    TK_CUDA(sort_variants[v].fn(din, dout, n, temp, tb, 0));
    TK_CUDA(cudaDeviceSynchronize());
    unsigned *got = tk_malloc((n + 1) * 4);
    tk_download_bytes(got, dout, (n + 1) * 4);
    size_t wrong = 0;
    for (size_t i = 0; i < n; i++)
        if (got[i] != ref[i] && wrong++ < 5)
            print_error("%s %s n=%zu seed=%llu: [%zu] = %08x, want %08x\n",
                        sort_variants[v].name, what, n,
                        (unsigned long long)seed, i, got[i], ref[i]);
    assert_int_equal(got[n], 0xffffffffu);
    if (!in_place) {
        tk_download_bytes(got, din, n * 4);
        assert_memory_equal(got, x, n * 4);
    }
    free(got);
    tk_free(temp);
    if (!in_place) tk_free(dout);
    tk_free(din);
    return wrong;
}

/* Every sort of unsigned keys, uniform keys, on the ladder up to 10^7 + 1
 * and 0, from the fixed seed and a fresh one. */
static void keys_every_size(void **st)
{
    (void)st;
    TK_REQUIRE_GPU();
    for (tk_sweep s = tk_sweep_start(10000001, TK_SWEEP_ZERO);
         tk_sweep_next(&s);) {
        const size_t n = s.n;
        unsigned *x = tk_malloc((n + 1) * 4), *ref = tk_malloc((n + 1) * 4);
        keys_and_sorted(x, ref, n, D_UNIFORM, &s.st);
        for (int v = 0; v < S_COUNT; v++)
            assert_int_equal(check_u32(v, x, ref, n, 0, "uniform", s.seed), 0);
        free(x);
        free(ref);
    }
}

/* Every sort on the distributions that break sorts, at a tile (of 256 x
 * 16) and one past it and at 10^6 + 1 (under the sanitizer, the first
 * two). */
static void keys_distributions(void **st)
{
    (void)st;
    TK_REQUIRE_GPU();
    static const size_t sizes[] = {4096, 4097, 1000001};
    const int nz = tk_small() ? 2 : 3;    /* the sanitizer: the tiles */
    for (int z = 0; z < nz; z++)
        for (int d = 0; d < D_COUNT; d++) {
            const size_t n = sizes[z];
            const uint64_t seed = tk_seed(d);
            uint64_t r = seed;
            unsigned *x = tk_malloc(n * 4), *ref = tk_malloc(n * 4);
            keys_and_sorted(x, ref, n, d, &r);
            for (int v = 0; v < S_COUNT; v++)
                assert_int_equal(check_u32(v, x, ref, n, 0, dname[d], seed),
                                 0);
            free(x);
            free(ref);
        }
}

/* In place: the output is the input, for every sort, at the tiles of
 * every shape of 32-bit keys (4096, 6144, 8832 keys), one past, twice,
 * 3072 (the 64-bit keys' tile), and sizes that end in the middle of a
 * tile. */
static void keys_in_place(void **st)
{
    (void)st;
    TK_REQUIRE_GPU();
    static const size_t sizes[] = {1,    33,   3072,  3073,  4095,  4096,
                                   6144, 6145, 8832,  8833,  12289, 17664,
                                   1000001};
    for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
        const size_t n = sizes[z];
        if (tk_small() && n > 20000) continue;
        const uint64_t seed = tk_seed((int)z);
        uint64_t r = seed;
        unsigned *x = tk_malloc(n * 4), *ref = tk_malloc(n * 4);
        keys_and_sorted(x, ref, n, D_UNIFORM, &r);
        for (int v = 0; v < S_COUNT; v++)
            assert_int_equal(check_u32(v, x, ref, n, 1, "in place", seed), 0);
        free(x);
        free(ref);
    }
}

/* ---- pairs: stability ----------------------------------------------------- */

/* Pairs of 32-bit keys (few unique, so that most keys tie) and values =
 * their input index: the output must be exactly the stable order, so
 * every run of equal keys has increasing values.  kind 0: unsigned, 1:
 * float keys (a few values, with -0.0 and +0.0), 2: 64-bit keys. */
static void check_pairs(int kind, size_t n, int in_place, uint64_t seed)
{
    uint64_t r = seed;
    const size_t kb = kind == 2 ? 8 : 4;
    unsigned char *x = tk_malloc(n * kb + 8);
    unsigned *val = tk_malloc(n * 4 + 4);
    keyed *ref = tk_malloc(n * sizeof *ref + sizeof *ref);
    static const float fv[] = {-0.0f, 0.0f, 1.5f, -2.0f, 1e-40f, -1e30f};
    for (size_t i = 0; i < n; i++) {
        const uint64_t q = tk_next(&r);
        val[i] = (unsigned)i;
        ref[i].index = (unsigned)i;
        if (kind == 0) {
            unsigned k = (unsigned)(q % 64) * 0x01030507u;
            memcpy(x + 4 * i, &k, 4);
            ref[i].key = k;
        } else if (kind == 1) {
            float f = fv[q % 6];
            memcpy(x + 4 * i, &f, 4);
            ref[i].key = f32_order(f);
        } else {
            unsigned long long k = (q % 64) * 0x0103050709111315ull;
            memcpy(x + 8 * i, &k, 8);
            ref[i].key = k;
        }
    }
    qsort(ref, n, sizeof *ref, cmp_keyed);
    const size_t tb = sort_temp_bytes(n, kb, 1);
    unsigned char *dk = tk_dev_bytes(n * kb + 8);
    unsigned *dv = tk_dev_bytes(n * 4 + 4);
    unsigned char *dko = in_place ? dk : tk_dev_bytes(n * kb + 8);
    unsigned *dvo = in_place ? dv : tk_dev_bytes(n * 4 + 4);
    void *temp = tk_dev_bytes(tb ? tb : 1);
    tk_upload_bytes(dk, x, n * kb);
    tk_upload_bytes(dv, val, n * 4);
    if (kind == 0)
        TK_CUDA(sort_pairs_u32((const unsigned *)dk, (unsigned *)dko, dv, dvo,
                               n, temp, tb, 0));
    else if (kind == 1)
        TK_CUDA(sort_pairs_f32((const float *)dk, (float *)dko, dv, dvo, n,
                               temp, tb, 0));
    else
        TK_CUDA(sort_pairs_u64((const unsigned long long *)dk,
                               (unsigned long long *)dko, dv, dvo, n, temp,
                               tb, 0));
    TK_CUDA(cudaDeviceSynchronize());
    unsigned char *gk = tk_malloc(n * kb + 8);
    unsigned *gv = tk_malloc(n * 4 + 4);
    tk_download_bytes(gk, dko, n * kb + 8);
    tk_download_bytes(gv, dvo, n * 4 + 4);
    size_t wrong = 0;
    for (size_t i = 0; i < n; i++) {
        const unsigned j = ref[i].index;      /* the input that goes here */
        const int ok = gv[i] == j && !memcmp(gk + kb * i, x + kb * j, kb);
        if (!ok && wrong++ < 5)
            print_error("pairs kind %d n=%zu seed=%llu: [%zu] has value %u, "
                        "want %u (stable)\n", kind, n,
                        (unsigned long long)seed, i, gv[i], j);
    }
    assert_int_equal(wrong, 0);
    assert_int_equal(gv[n], 0xffffffffu);              /* nothing past */
    free(gk); free(gv); free(x); free(val); free(ref);
    tk_free(temp);
    if (!in_place) { tk_free(dko); tk_free(dvo); }
    tk_free(dk); tk_free(dv);
}

static void pairs_are_stable(void **st)
{
    (void)st;
    TK_REQUIRE_GPU();
    for (tk_sweep s = tk_sweep_start(10000001, TK_SWEEP_ZERO);
         tk_sweep_next(&s);)
        for (int kind = 0; kind < 3; kind++)
            check_pairs(kind, s.n, 0, s.seed + (uint64_t)kind);
    /* The tiles of the pairs' shapes (6144 and 3072 keys), one past. */
    static const size_t tiles[] = {3072, 3073, 6144, 6145, 12288, 12289};
    for (size_t z = 0; z < sizeof tiles / sizeof *tiles; z++)
        for (int kind = 0; kind < 3; kind++)
            check_pairs(kind, tiles[z], 0, tk_seed((int)z));
    for (int kind = 0; kind < 3; kind++)                    /* in place */
        check_pairs(kind, 12289, 1, tk_seed(kind));
}

/* ---- other key types ------------------------------------------------------ */

/* The header's float order on a hand-written case: NaNs of both signs,
 * infinities, zeros of both signs, a denormal. */
static void float_order_by_hand(void **st)
{
    (void)st;
    TK_REQUIRE_GPU();
    const float nan_pos = nanf(""), inf = INFINITY, den = 1e-40f;
    const float nan_neg = -nanf("");
    const float in[] = {1.0f, nan_pos, -0.0f, inf, -1.0f, 0.0f, nan_neg,
                        -inf, den, -den, 0.0f, -0.0f};
    const float want[] = {nan_neg, -inf, -1.0f, -den, -0.0f, -0.0f, 0.0f,
                          0.0f, den, 1.0f, inf, nan_pos};
    const size_t n = sizeof in / sizeof *in, tb = sort_temp_bytes(n, 4, 0);
    float *d = tk_dev_bytes(sizeof in), *o = tk_dev_bytes(sizeof in);
    void *temp = tk_dev_bytes(tb);
    tk_upload_bytes(d, in, sizeof in);
    TK_CUDA(sort_keys_f32(d, o, n, temp, tb, 0));
    float got[sizeof in / sizeof *in];
    tk_download_bytes(got, o, sizeof got);
    assert_memory_equal(got, want, sizeof want);   /* bits: -0.0 first */
    tk_free(d); tk_free(o); tk_free(temp);
}

/* The whole total order by hand, as bit patterns, so that no formula of
 * the implementation's is the reference: NaNs of several payloads, quiet
 * and signalling, of both signs; infinities; +-FLT_MAX; +-FLT_MIN; the
 * smallest denormals; zeros.  Negative values come in descending order of
 * their bits (a larger negative NaN payload first), positive ones in
 * ascending order: IEEE 754 totalOrder.  A transform that flipped only the
 * sign bit of negative keys, or put -0.0 with +0.0, fails it. */
static void float_total_order_by_bits(void **st)
{
    (void)st;
    TK_REQUIRE_GPU();
    static const uint32_t want[] = {
        0xffffffffu, 0xffc00001u, 0xffc00000u, 0xff800001u, /* -NaNs  */
        0xff800000u,                                        /* -inf   */
        0xff7fffffu,                                        /* -FLT_MAX */
        0xbf800000u,                                        /* -1     */
        0x80800000u,                                        /* -FLT_MIN */
        0x80000001u,                                        /* -denormal */
        0x80000000u,                                        /* -0     */
        0x00000000u,                                        /* +0     */
        0x00000001u,                                        /* denormal */
        0x00800000u,                                        /* FLT_MIN */
        0x3f800000u,                                        /* 1      */
        0x7f7fffffu,                                        /* FLT_MAX */
        0x7f800000u,                                        /* inf    */
        0x7f800001u, 0x7fc00000u, 0x7fc00001u, 0x7fffffffu, /* +NaNs  */
    };
    enum { N = sizeof want / sizeof *want };
    uint32_t in[N];
    for (int i = 0; i < N; i++)            /* shuffled: 7 and 20 coprime */
        in[i] = want[(i * 7 + 3) % N];
    const size_t tb = sort_temp_bytes(N, 4, 0);
    float *d = tk_dev_bytes(sizeof in), *o = tk_dev_bytes(sizeof in);
    void *temp = tk_dev_bytes(tb);
    tk_upload_bytes(d, in, sizeof in);
    tk_poison(o, sizeof in);
    TK_CUDA(sort_keys_f32(d, o, N, temp, tb, 0));
    uint32_t got[N];
    tk_download_bytes(got, o, sizeof got);
    for (int i = 0; i < N; i++)
        if (got[i] != want[i])
            print_error("float order: [%d] is %#010x, expected %#010x\n", i,
                        got[i], want[i]);
    assert_memory_equal(got, want, sizeof want);
    tk_free(d); tk_free(o); tk_free(temp);
}

/* Signed, float and 64-bit keys, random over all their bits (so floats
 * include NaNs and infinities), on the ladder, against qsort of the
 * keys' order. */
static void keys_other_types(void **st)
{
    (void)st;
    TK_REQUIRE_GPU();
    for (tk_sweep s = tk_sweep_start(10000001, TK_SWEEP_ZERO);
         tk_sweep_next(&s);) {
        const size_t n = s.n;
        unsigned long long *x = tk_malloc(n * 8 + 8);
        unsigned long long *ref = tk_malloc(n * 8 + 8);
        unsigned long long *got = tk_malloc(n * 8 + 8);
        void *dx = tk_dev_bytes(n * 8 + 8), *dy = tk_dev_bytes(n * 8 + 8);
        for (int kind = 0; kind < 3; kind++) {
            const size_t kb = kind == 2 ? 8 : 4;
            const size_t tb = sort_temp_bytes(n, kb, 0);
            void *temp = tk_dev_bytes(tb ? tb : 1);
            uint64_t r = s.seed;
            for (size_t i = 0; i < n; i++) x[i] = tk_next(&r);
            if (kind == 1 && n > 3) {        /* a few exact specials */
                const float sp[] = {-0.0f, INFINITY, -INFINITY, 0.0f};
                memcpy(x, sp, sizeof sp);
            }
            /* The order as 64-bit integers: an int's bits with the sign
             * flipped, a float's total order, a u64 as it is. */
            for (size_t i = 0; i < n; i++) {
                unsigned u = ((unsigned *)x)[i];
                float f;
                memcpy(&f, &u, 4);
                ref[i] = kind == 0 ? (unsigned long long)(u ^ 0x80000000u)
                       : kind == 1 ? f32_order(f) : x[i];
            }
            qsort(ref, n, 8, cmp_u64);
            tk_upload_bytes(dx, x, n * kb);
            tk_poison(dy, n * 8 + 8);
            if (kind == 0) TK_CUDA(sort_keys_i32(dx, dy, n, temp, tb, 0));
            if (kind == 1) TK_CUDA(sort_keys_f32(dx, dy, n, temp, tb, 0));
            if (kind == 2) TK_CUDA(sort_keys_u64(dx, dy, n, temp, tb, 0));
            TK_CUDA(cudaDeviceSynchronize());
            tk_download_bytes(got, dy, n * kb + 8);
            size_t wrong = 0;
            for (size_t i = 0; i < n; i++) {
                unsigned u = ((unsigned *)got)[i];
                float f;
                memcpy(&f, &u, 4);
                const unsigned long long o =
                    kind == 0 ? (unsigned long long)(u ^ 0x80000000u)
                    : kind == 1 ? f32_order(f) : got[i];
                if (o != ref[i] && wrong++ < 5)
                    print_error("kind %d n=%zu seed=%llu: [%zu] wrong\n",
                                kind, n, (unsigned long long)s.seed, i);
            }
            assert_int_equal(wrong, 0);
            assert_int_equal(((unsigned *)got)[n * kb / 4], 0xffffffffu);
            tk_free(temp);
        }
        tk_free(dx); tk_free(dy);
        free(x); free(ref); free(got);
    }
}

/* ---- past 2^31 keys ------------------------------------------------------- */

/* A 64-bit mix of a key: the sum over a multiset does not depend on the
 * order, so equal sums (and counts) say the output is a permutation of
 * the input, up to a collision of 64-bit sums. */
static unsigned long long mix(unsigned long long z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* 2^31 + 4097 keys: nine portions of the look-back; sorted, and the same
 * multiset as the input. */
static void keys_past_2_31(void **st)
{
    (void)st;
    TK_SKIP_UNDER_SANITIZER("2^31 keys are too many for the sanitizer");
    const size_t n = ((size_t)1 << 31) + 4097, tb = sort_temp_bytes(n, 4, 0);
    TK_REQUIRE_DEVICE_BYTES(2 * n * 4 + tb + ((size_t)1 << 30));
    unsigned *x = tk_malloc(n * 4);
    uint64_t r = tk_seed(0);
    unsigned long long sum_in = 0, sum_out = 0;
    for (size_t i = 0; i < n; i++) {
        x[i] = (unsigned)(tk_next(&r) >> 32);
        sum_in += mix(x[i]);
    }
    unsigned *din = tk_dev_bytes(n * 4), *dout = tk_dev_bytes(n * 4 + 4);
    void *temp = tk_dev_bytes(tb);
    tk_upload_bytes(din, x, n * 4);
    TK_CUDA(sort_keys_u32(din, dout, n, temp, tb, 0));
    TK_CUDA(cudaDeviceSynchronize());
    tk_free(temp);
    tk_free(din);
    tk_download_bytes(x, dout, n * 4);
    size_t unsorted = 0;
    for (size_t i = 0; i < n; i++) {
        sum_out += mix(x[i]);
        if (i && x[i - 1] > x[i]) unsorted++;
    }
    unsigned tail;
    tk_download_bytes(&tail, dout + n, 4);
    tk_free(dout);
    free(x);
    assert_int_equal(unsorted, 0);
    assert_true(sum_in == sum_out);
    assert_int_equal(tail, 0xffffffffu);
}

/* Pairs and 64-bit keys across two portions of the look-back (2^28 +
 * 4097 keys).  Pairs exactly, in O(n): values from the input index, so
 * the output is the stable order when its values are a permutation, each
 * key is the input key of its value, and (key, value) increases
 * strictly.  64-bit keys: sorted, and the input's multiset. */
static void pairs_and_u64_past_a_portion(void **st)
{
    (void)st;
    TK_SKIP_UNDER_SANITIZER("2^28 keys are too many for the sanitizer");
    const size_t n = ((size_t)1 << 28) + 4097;
    const size_t pb = sort_temp_bytes(n, 4, 1), qb = sort_temp_bytes(n, 8, 0);
    TK_REQUIRE_DEVICE_BYTES(16 * n + (pb > qb ? pb : qb));
    uint64_t r = tk_seed(0);
    unsigned *k = tk_malloc(n * 4), *v = tk_malloc(n * 4);
    unsigned *ko = tk_malloc(n * 4), *vo = tk_malloc(n * 4);
    unsigned char *seen = tk_malloc(n);
    for (size_t i = 0; i < n; i++) {
        k[i] = (unsigned)(tk_next(&r) >> 40);      /* 2^24 values: ties */
        v[i] = (unsigned)i;
    }
    unsigned *dk = tk_dev_bytes(n * 4), *dv = tk_dev_bytes(n * 4);
    unsigned *dko = tk_dev_bytes(n * 4), *dvo = tk_dev_bytes(n * 4);
    void *temp = tk_dev_bytes(pb > qb ? pb : qb);
    tk_upload_bytes(dk, k, n * 4);
    tk_upload_bytes(dv, v, n * 4);
    TK_CUDA(sort_pairs_u32(dk, dko, dv, dvo, n, temp, pb, 0));
    TK_CUDA(cudaDeviceSynchronize());
    tk_download_bytes(ko, dko, n * 4);
    tk_download_bytes(vo, dvo, n * 4);
    memset(seen, 0, n);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        const unsigned j = vo[i];
        if (j >= n || seen[j] || ko[i] != k[j] ||
            (i && (ko[i - 1] > ko[i] ||
                   (ko[i - 1] == ko[i] && vo[i - 1] >= vo[i])))) {
            bad++;
            continue;
        }
        seen[j] = 1;
    }
    assert_int_equal(bad, 0);
    /* n 64-bit keys: the 32-bit keys above, then 32 random bits. */
    tk_free(dvo); tk_free(dko); tk_free(dv); tk_free(dk);
    unsigned long long *x = tk_malloc(n * 8), sum_in = 0, sum_out = 0;
    for (size_t i = 0; i < n; i++) {
        x[i] = (unsigned long long)k[i] << 32 | (unsigned)tk_next(&r);
        sum_in += mix(x[i]);
    }
    unsigned long long *dx = tk_dev_bytes(n * 8), *dy = tk_dev_bytes(n * 8);
    tk_upload_bytes(dx, x, n * 8);
    TK_CUDA(sort_keys_u64(dx, dy, n, temp, qb, 0));
    TK_CUDA(cudaDeviceSynchronize());
    tk_download_bytes(x, dy, n * 8);
    size_t unsorted = 0;
    for (size_t i = 0; i < n; i++) {
        sum_out += mix(x[i]);
        unsorted += i && x[i - 1] > x[i];
    }
    assert_int_equal(unsorted, 0);
    assert_true(sum_in == sum_out);
    tk_free(dx); tk_free(dy); tk_free(temp);
    free(x); free(k); free(v); free(ko); free(vo); free(seen);
}

/* Past 2^32 keys, where one digit value holds more keys than a 32-bit
 * count: 2^32 + 4097 keys, those whose index is 7 mod 2^21 0x01010101
 * (2049 of them) and the rest 0, so each pass's digit 0 counts 2^32 +
 * 2048 keys, which a 32-bit count would wrap.  Exact in O(n): the
 * zeros, then the others. */
static void keys_past_2_32(void **st)
{
    (void)st;
    TK_SKIP_UNDER_SANITIZER("2^32 keys are too many for the sanitizer");
    const size_t n = ((size_t)1 << 32) + 4097, tb = sort_temp_bytes(n, 4, 0);
    TK_REQUIRE_DEVICE_BYTES(2 * n * 4 + tb + ((size_t)1 << 30));
    unsigned *x = tk_malloc(n * 4);
    size_t ones = 0;
    for (size_t i = 0; i < n; i++) {
        x[i] = (i & (((size_t)1 << 21) - 1)) == 7 ? 0x01010101u : 0u;
        ones += x[i] != 0;
    }
    unsigned *din = tk_dev_bytes(n * 4), *dout = tk_dev_bytes(n * 4);
    void *temp = tk_dev_bytes(tb);
    tk_upload_bytes(din, x, n * 4);
    TK_CUDA(sort_keys_u32(din, dout, n, temp, tb, 0));
    TK_CUDA(cudaDeviceSynchronize());
    tk_free(temp);
    tk_free(din);
    tk_download_bytes(x, dout, n * 4);
    tk_free(dout);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += x[i] != (i < n - ones ? 0u : 0x01010101u);
    free(x);
    assert_int_equal(bad, 0);
}

/* On a stream of its own: the stream is kept busy first, and the input
 * is uploaded on it after, so a step of the sort that ran on another
 * stream would read the poisoned buffer and get the output wrong. */
static void keys_and_pairs_on_a_stream(void **st)
{
    (void)st;
    TK_REQUIRE_GPU();
    const size_t n = tk_small() ? 12289 : 1000001;
    const size_t tb = sort_temp_bytes(n, 4, 1);
    const size_t big = tk_small() ? (size_t)1 << 20 : (size_t)1 << 28;
    cudaStream_t s;
    TK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    uint64_t r = tk_seed(0);
    unsigned *x, *v, *got, *ref = tk_malloc(n * 4);   /* pinned: the */
    TK_CUDA(cudaMallocHost((void **)&x, n * 4));    /* copies do not */
    TK_CUDA(cudaMallocHost((void **)&v, n * 4));    /* block the host */
    TK_CUDA(cudaMallocHost((void **)&got, n * 4));
    keys_and_sorted(x, ref, n, D_FEW, &r);
    for (size_t i = 0; i < n; i++) v[i] = (unsigned)i;
    unsigned char *busy = tk_dev_bytes(big);
    unsigned *dk = tk_dev_bytes(n * 4), *dv = tk_dev_bytes(n * 4);
    unsigned *dko = tk_dev_bytes(n * 4), *dvo = tk_dev_bytes(n * 4);
    void *temp = tk_dev_bytes(tb);
    for (int pairs = 0; pairs < 2; pairs++) {
        tk_poison(dk, n * 4);              /* on the default stream, which */
        tk_poison(dko, n * 4);             /* s does not wait for: finish */
        TK_CUDA(cudaDeviceSynchronize());
        for (int i = 0; i < 200; i++)       /* some 20 ms of work on s */
            TK_CUDA(cudaMemsetAsync(busy, i, big, s));
        TK_CUDA(cudaMemcpyAsync(dk, x, n * 4, cudaMemcpyHostToDevice, s));
        TK_CUDA(cudaMemcpyAsync(dv, v, n * 4, cudaMemcpyHostToDevice, s));
        if (pairs) TK_CUDA(sort_pairs_u32(dk, dko, dv, dvo, n, temp, tb, s));
        else TK_CUDA(sort_keys_u32(dk, dko, n, temp, tb, s));
        TK_CUDA(cudaMemcpyAsync(got, dko, n * 4, cudaMemcpyDeviceToHost, s));
        TK_CUDA(cudaStreamSynchronize(s));
        assert_memory_equal(got, ref, n * 4);
        if (pairs) {          /* each value's key is its input's key */
            TK_CUDA(cudaMemcpyAsync(got, dvo, n * 4, cudaMemcpyDeviceToHost,
                                    s));
            TK_CUDA(cudaStreamSynchronize(s));
            for (size_t i = 0; i < n; i++)
                assert_true(got[i] < n && x[got[i]] == ref[i]);
        }
    }
    TK_CUDA(cudaStreamDestroy(s));
    tk_free(busy); tk_free(dk); tk_free(dv); tk_free(dko); tk_free(dvo);
    tk_free(temp);
    TK_CUDA(cudaFreeHost(x));
    TK_CUDA(cudaFreeHost(v));
    TK_CUDA(cudaFreeHost(got));
    free(ref);
}

/* ---- wrong on purpose ----------------------------------------------------- */

/* The ranking that walks a blocked tile in striped order breaks the
 * order of equal digits within a pass, so later passes leave keys
 * unsorted: on 10^6 + 1 uniform keys (4097 under the sanitizer) it must
 * get keys wrong, which the right ranking never does. */
static void wrong_unstable_unsorts(void **st)
{
    (void)st;
    TK_REQUIRE_GPU();
    const size_t n = tk_small() ? 4097 : 1000001, tb = sort_temp_bytes(n, 4, 0);
    uint64_t r = tk_seed(0);
    unsigned *x = tk_malloc(n * 4), *ref = tk_malloc(n * 4);
    unsigned *got = tk_malloc(n * 4);
    keys_and_sorted(x, ref, n, D_UNIFORM, &r);
    unsigned *din = tk_dev_bytes(n * 4), *dout = tk_dev_bytes(n * 4);
    void *temp = tk_dev_bytes(tb);
    tk_upload_bytes(din, x, n * 4);
    TK_CUDA(sort_keys_u32_wrong_unstable(din, dout, n, temp, tb, 0));
    TK_CUDA(cudaDeviceSynchronize());
    tk_download_bytes(got, dout, n * 4);
    size_t wrong = 0, unsorted = 0;
    for (size_t i = 0; i < n; i++) {
        wrong += got[i] != ref[i];
        unsorted += i && got[i - 1] > got[i];
    }
    print_message("wrong on purpose: %zu of %zu keys misplaced, %zu "
                  "descents\n", wrong, n, unsorted);
    assert_true(unsorted > 0);
    tk_free(din); tk_free(dout); tk_free(temp);
    free(x); free(ref); free(got);
}

/* The Onesweep sorts in exactly sort_onesweep_temp_bytes: right, and (under
 * memcheck) nothing touched past it. */
static void onesweep_fits_its_own_temp(void **st)
{
    (void)st;
    TK_REQUIRE_GPU();
    const size_t n = tk_small() ? 12289 : 1000001;
    const size_t ob = sort_onesweep_temp_bytes(n, 4, 0);
    uint64_t r = tk_seed(1);
    unsigned *x = tk_malloc(n * 4), *ref = tk_malloc(n * 4);
    unsigned *got = tk_malloc(n * 4);
    keys_and_sorted(x, ref, n, D_UNIFORM, &r);
    unsigned *din = tk_dev_bytes(n * 4), *dout = tk_dev_bytes(n * 4);
    void *temp = tk_dev_bytes(ob);
    tk_upload_bytes(din, x, n * 4);
    for (int v = 0; v < S_COUNT; v++) {
        if (v == S_TEXTBOOK || v == S_TEXTBOOK_SCATTERED) continue;
        tk_poison(dout, n * 4);
        TK_CUDA(sort_variants[v].fn(din, dout, n, temp, ob, 0));
        TK_CUDA(cudaDeviceSynchronize());
        tk_download_bytes(got, dout, n * 4);
        size_t bad = 0;
        for (size_t i = 0; i < n; i++) bad += got[i] != ref[i];
        if (bad) print_error("%s in its own temp: %zu keys wrong\n",
                             sort_variants[v].name, bad);
        assert_int_equal(bad, 0);
    }
    tk_free(din); tk_free(dout); tk_free(temp);
    free(x); free(ref); free(got);
}

/* ---- refusals, on the CPU ------------------------------------------------- */

#define FAKE TK_FAKE
static void refusals(void **st)
{
    (void)st;
    const size_t n = 100000, tb = sort_temp_bytes(n, 4, 0);
    unsigned *in = FAKE(0x10000000), *out = FAKE(0x20000000);
    unsigned *vin = FAKE(0x30000000), *vout = FAKE(0x40000000);
    void *temp = FAKE(0x50000000);
    assert_true(tb >= 4 * n);            /* a buffer of keys, at least */
    assert_int_equal(sort_temp_bytes(SORT_MAX_N + 1, 4, 0), 0);
    assert_int_equal(sort_temp_bytes(n, 3, 0), 0);
    assert_true(sort_temp_bytes(SORT_MAX_N, 8, 1) > 0);
    /* The Onesweep launchers' own size: without the textbook table (32-bit
     * keys alone, n <= INT_MAX), the same otherwise. */
    const size_t ob = sort_onesweep_temp_bytes(n, 4, 0);
    assert_true(ob >= 4 * n && ob < tb);
    assert_int_equal(sort_onesweep_temp_bytes(SORT_MAX_N + 1, 4, 0), 0);
    assert_int_equal(sort_onesweep_temp_bytes(n, 3, 0), 0);
    assert_int_equal(sort_onesweep_temp_bytes(n, 4, 1),
                     sort_temp_bytes(n, 4, 1));
    assert_int_equal(sort_onesweep_temp_bytes(n, 8, 0),
                     sort_temp_bytes(n, 8, 0));
    const size_t n28 = (size_t)1 << 28;           /* the table: 128 MiB */
    assert_true(sort_temp_bytes(n28, 4, 0) -
                    sort_onesweep_temp_bytes(n28, 4, 0) >=
                (size_t)2 * 256 * (n28 / 4096) * 4);
    for (int v = 0; v < S_COUNT; v++) {
        sort_u32_fn f = sort_variants[v].fn;
        TK_REFUSED(f(in, out, n, temp, ob - 1, 0));
        if (v == S_TEXTBOOK || v == S_TEXTBOOK_SCATTERED)
            TK_REFUSED(f(in, out, n, temp, ob, 0));  /* needs the table */
    }
    for (int v = 0; v < S_COUNT; v++) {
        sort_u32_fn f = sort_variants[v].fn;
        TK_REFUSED(f(NULL, out, n, temp, tb, 0));
        TK_REFUSED(f(in, NULL, n, temp, tb, 0));
        TK_REFUSED(f(in, out, n, NULL, tb, 0));
        if (v == S_TEXTBOOK || v == S_TEXTBOOK_SCATTERED)
            TK_REFUSED(f(in, out, n, temp, tb - 1, 0));
        TK_REFUSED(f(in, out, n, (char *)temp + 16, tb, 0));
        TK_REFUSED(f((unsigned *)((char *)in + 2), out, n, temp, tb, 0));
        TK_REFUSED(f(in, in + 1, n, temp, tb, 0));   /* overlap */
        TK_REFUSED(f(in, (unsigned *)temp, n, temp, tb, 0));
        TK_REFUSED(f(in, out, SORT_MAX_N + 1, temp, (size_t)-1, 0));
        assert_int_equal(f(NULL, NULL, 0, NULL, 0, 0), cudaSuccess);
    }
    /* The textbook sorts: n below 2^31. */
    const size_t big = (size_t)1 << 31, bt = sort_temp_bytes(big, 4, 0);
    TK_REFUSED(sort_keys_u32_textbook(in, FAKE(0x1000000000), big, FAKE(0x2000000000), bt, 0));
    TK_REFUSED(sort_keys_u32_textbook_scattered( in, FAKE(0x1000000000), big, FAKE(0x2000000000), bt, 0));
    /* Pairs: values present, aligned, apart from the keys and temp. */
    const size_t pb = sort_temp_bytes(n, 4, 1);
    assert_true(pb > tb);
    TK_REFUSED(sort_pairs_u32(in, out, NULL, vout, n, temp, pb, 0));
    TK_REFUSED(sort_pairs_u32(in, out, vin, NULL, n, temp, pb, 0));
    TK_REFUSED(sort_pairs_u32(in, out, vin, vout, n, temp, tb, 0));
    TK_REFUSED(sort_pairs_u32(in, out, vin, in, n, temp, pb, 0));
    TK_REFUSED(sort_pairs_u32(in, out, vin, vin + 7, n, temp, pb, 0));
    TK_REFUSED(sort_pairs_u32(in, out, (unsigned *)((char *)vin + 1), vout, n, temp, pb, 0));
    TK_REFUSED(sort_pairs_f32((float *)in, (float *)out, vin, vout, n, temp, tb, 0));
    const size_t qb = sort_temp_bytes(n, 8, 1);
    TK_REFUSED(sort_pairs_u64(FAKE(0x10000004), FAKE(0x20000000), vin, vout, n, temp, qb, 0));  /* 8-byte */
    TK_REFUSED(sort_keys_u64(FAKE(0x10000000), FAKE(0x20000000), n, temp, sort_temp_bytes(n, 8, 0) - 1, 0));
    /* Misaligned outputs, an input inside temp, values inside temp or
     * over the keys. */
    TK_REFUSED(sort_keys_u32(in, (unsigned *)((char *)out + 2), n, temp, tb, 0));
    TK_REFUSED(sort_keys_u64(FAKE(0x10000000), FAKE(0x20000004), n, temp, sort_temp_bytes(n, 8, 0), 0));
    TK_REFUSED(sort_keys_u32((unsigned *)temp + 64, out, n, temp, tb, 0));
    TK_REFUSED(sort_pairs_u32(in, out, vin, (unsigned *)((char *)vout + 2), n, temp, pb, 0));
    TK_REFUSED(sort_pairs_u32(in, out, (unsigned *)temp + 64, vout, n, temp, pb, 0));
    TK_REFUSED(sort_pairs_u32(in, out, vin, (unsigned *)temp + 64, n, temp, pb, 0));
    TK_REFUSED(sort_pairs_u32(in, out, vin, out + 5, n, temp, pb, 0));
    TK_REFUSED(sort_keys_i32(NULL, (int *)out, n, temp, tb, 0));
    TK_REFUSED(sort_keys_f32((float *)in, NULL, n, temp, tb, 0));
}

/* ---- stream order --------------------------------------------------------- */

/* Every launcher of sort.h: the sorts of unsigned keys of variants.h, then
 * the one wrong on purpose and those of the other keys and of pairs. */
enum { O_WRONG = S_COUNT, O_I32, O_F32, O_U64, O_PAIRS_U32, O_PAIRS_F32,
       O_PAIRS_U64, O_COUNT };
static const char *order_name(int o)
{
    static const char *other[O_COUNT - S_COUNT] = {
        "wrong_unstable", "sort_keys_i32", "sort_keys_f32", "sort_keys_u64",
        "sort_pairs_u32", "sort_pairs_f32", "sort_pairs_u64"};
    return o < S_COUNT ? sort_variants[o].name : other[o - S_COUNT];
}

/* Launcher o on stream s. */
static cudaError_t order_call(int o, const void *in, void *out,
                              const unsigned *vin, unsigned *vout, size_t n,
                              void *temp, size_t tb, cudaStream_t s)
{
    switch (o) {
    case O_WRONG:
        return sort_keys_u32_wrong_unstable(in, out, n, temp, tb, s);
    case O_I32: return sort_keys_i32(in, out, n, temp, tb, s);
    case O_F32: return sort_keys_f32(in, out, n, temp, tb, s);
    case O_U64: return sort_keys_u64(in, out, n, temp, tb, s);
    case O_PAIRS_U32:
        return sort_pairs_u32(in, out, vin, vout, n, temp, tb, s);
    case O_PAIRS_F32:
        return sort_pairs_f32(in, out, vin, vout, n, temp, tb, s);
    case O_PAIRS_U64:
        return sort_pairs_u64(in, out, vin, vout, n, temp, tb, s);
    default: return sort_variants[o].fn(in, out, n, temp, tb, s);
    }
}

/* Launcher o on 10^6 + 1 low-entropy keys (an and of three random words,
 * so many are equal; floats include NaNs), values their input index,
 * queued on a stream held behind a closed gate: the output keys, values
 * and the workspace are still the poison when the launcher has returned,
 * and once the gate opens the output is the stable order of qsort on
 * (key, index).  A first call on the default stream loads the kernels
 * (loading one may wait for the whole device); the buffers are poisoned
 * again after it.  The unstable ranking is wrong on purpose: it must
 * follow its stream like the others, and its output is not checked. */
static void order_case(int o)
{
    const size_t n = 1000001;
    const int pairs = o >= O_PAIRS_U32;
    const size_t kb = o == O_U64 || o == O_PAIRS_U64 ? 8 : 4;
    const int fl = o == O_F32 || o == O_PAIRS_F32;
    uint64_t seed = tk_seed(0), r = seed;
    unsigned char *x = tk_malloc(n * kb), *gk = tk_malloc(n * kb);
    unsigned *val = tk_malloc(n * 4), *gv = tk_malloc(n * 4);
    keyed *ref = tk_malloc(n * sizeof *ref);
    for (size_t i = 0; i < n; i++) {
        const uint64_t k = tk_next(&r) & tk_next(&r) & tk_next(&r);
        unsigned u = (unsigned)k;
        float f;
        memcpy(&f, &u, 4);
        memcpy(x + kb * i, &k, kb);          /* little-endian: u for 4 */
        val[i] = (unsigned)i;
        ref[i].index = (unsigned)i;
        ref[i].key = kb == 8 ? k
                   : fl ? f32_order(f)
                   : o == O_I32 ? (unsigned long long)(u ^ 0x80000000u)
                                : u;
    }
    qsort(ref, n, sizeof *ref, cmp_keyed);
    const size_t tb = sort_temp_bytes(n, kb, pairs);
    unsigned char *din = tk_dev_bytes(n * kb), *dout = tk_dev_bytes(n * kb);
    unsigned *dv = tk_dev_bytes(n * 4), *dvo = tk_dev_bytes(n * 4);
    void *temp = tk_dev_bytes(tb);
    tk_upload_bytes(din, x, n * kb);
    tk_upload_bytes(dv, val, n * 4);
    TK_CUDA(order_call(o, din, dout, dv, dvo, n, temp, tb, 0));
    TK_CUDA(cudaDeviceSynchronize());
    tk_poison(dout, n * kb);
    tk_poison(dvo, n * 4);
    tk_poison(temp, tb);
    tk_gate g = tk_gate_close();
    cudaError_t e = order_call(o, din, dout, dv, dvo, n, temp, tb, g.s);
    int waited = tk_still_poisoned(dout, n * kb) &&
                 tk_still_poisoned(dvo, n * 4) && tk_still_poisoned(temp, tb);
    tk_gate_open(&g);
    TK_CUDA(e);
    if (!waited)
        print_error("%s: it wrote before its stream let it\n", order_name(o));
    assert_true(waited);
    tk_download_bytes(gk, dout, n * kb);
    tk_download_bytes(gv, dvo, n * 4);
    size_t wrong = 0;
    for (size_t i = 0; i < n && o != O_WRONG; i++) {
        const unsigned j = ref[i].index;      /* the input that goes here */
        const int ok = !memcmp(gk + kb * i, x + kb * j, kb) &&
                       (!pairs || gv[i] == j);
        if (!ok && wrong++ < 5)
            print_error("%s on a gated stream, seed %llu: [%zu] is not "
                        "input %u\n", order_name(o),
                        (unsigned long long)seed, i, j);
    }
    assert_int_equal(wrong, 0);
    tk_free(din); tk_free(dout); tk_free(dv); tk_free(dvo); tk_free(temp);
    free(x); free(gk); free(val); free(gv); free(ref);
}

/* Every launcher queues all its work on the stream it is given, the one
 * wrong on purpose too. */
static void sort_launchers_follow_the_stream(void **st)
{
    (void)st;
    TK_REQUIRE_GPU();
    for (int o = 0; o < O_COUNT; o++) order_case(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(refusals),
        cmocka_unit_test(keys_every_size),
        cmocka_unit_test(keys_distributions),
        cmocka_unit_test(keys_in_place),
        cmocka_unit_test(pairs_are_stable),
        cmocka_unit_test(float_order_by_hand),
        cmocka_unit_test(float_total_order_by_bits),
        cmocka_unit_test(onesweep_fits_its_own_temp),
        cmocka_unit_test(keys_other_types),
        cmocka_unit_test(keys_past_2_31),
        cmocka_unit_test(pairs_and_u64_past_a_portion),
        cmocka_unit_test(keys_past_2_32),
        cmocka_unit_test(keys_and_pairs_on_a_stream),
        cmocka_unit_test(wrong_unstable_unsorts),
        cmocka_unit_test(sort_launchers_follow_the_stream),
    };
    return tk_run_tests("sort", tests);
}
