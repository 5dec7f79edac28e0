/* test_scan.c -- the scan chapter's tests: every tile scan and every
 * device-wide scan against the CPU reference (exact for integers, a
 * derived bound for floats), edge sizes, all-zero and all-one inputs,
 * 2^28 elements, an index past 2^32, bad arguments, the bank-conflict
 * model of the Blelloch padding, the listings that are wrong on purpose,
 * and every launcher's work queued on the stream it is given. */
#define _POSIX_C_SOURCE 200809L
#include "testkit.h"
#include "scan/scan.h"
#include "scan/scan_ref.h"
#include "variants.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The book's ladder of sizes (testkit) up to 10^6 + 1; under the
 * sanitizer (BOOK_SMALL=1) its short ladder and one seed: the four tools
 * together must finish in minutes.  12289 is still four tiles. */
#define LADDER_MAX ((size_t)1000001)
static size_t nsizes(void) { return tk_nsizes(LADDER_MAX); }
static size_t size_at(size_t z) { return tk_size(z); }
#define BIG ((size_t)1 << 28)
/* Every device-wide algorithm, as variants.h lists them (all of them). */
#define NALGOS ((int)SCAN_NDEVICE)
_Static_assert(SCAN_NDEVICE == SCAN_LOOKBACK_RAKED + 1,
               "variants.h lists every scan_device_algo");
static scan_device_algo algo_at(int a) { return scan_device_variants[a].algo; }
static const char *algo_name(scan_device_algo algo)
{
    for (int a = 0; a < NALGOS; a++)
        if (scan_device_variants[a].algo == algo)
            return scan_device_variants[a].name;
    return "unknown";
}
/* The correct tile algorithms, in variants.h's order. */
#define TILE_ALGO(algo, name) algo,
static const int tile_algos[] = {SCAN_TILE_VARIANTS(TILE_ALGO)};
#undef TILE_ALGO
#define NTILE ((int)(sizeof tile_algos / sizeof tile_algos[0]))

typedef enum { T_I32, T_I64, T_F32 } elem_t;
static const char *tname[] = {"int", "long long", "float"};
static size_t esize(elem_t t) { return t == T_I64 ? 8 : 4; }
/* P_WIDE: 64-bit integers in [-2^48, 2^48] (other types: P_RANDOM), so
 * that the sums fill both 32-bit halves of the paired status words and
 * change sign.  Up to 10^7 + 3 elements the sums stay far from overflow;
 * at BIG = 2^28 they do not: the random walk's standard deviation is
 * about 2^61.2, 2^63 is about 3.5 of them, and a seed overflows with a
 * probability of roughly 10^-3.  The seed is fixed, but that this one
 * stays clear is unchecked, and on the host a signed overflow in the
 * reference would be undefined behaviour. */
enum { P_RANDOM, P_ZEROS, P_ONES, P_SMALL_INTS, P_WIDE };
#define NO_TILE (-1)

static void fill_input(void *h, elem_t t, size_t n, int pattern,
                       uint64_t *st)
{
    for (size_t i = 0; i < n; i++) {
        long long v = pattern == P_ZEROS  ? 0
                      : pattern == P_ONES ? 1
                      : pattern == P_SMALL_INTS
                          ? (long long)(tk_next(st) % 9) - 4
                          : 0;
        if (t == T_I32)
            ((int *)h)[i] = pattern == P_RANDOM || pattern == P_WIDE
                                ? (int)(tk_next(st) % 201) - 100 : (int)v;
        else if (t == T_I64)
            ((long long *)h)[i] =
                pattern == P_RANDOM
                    ? (long long)(tk_next(st) % ((1ull << 33) + 1)) -
                          (1ll << 32)
                : pattern == P_WIDE
                    ? (long long)(tk_next(st) % ((1ull << 49) + 1)) -
                          (1ll << 48)
                    : v;
        else
            ((float *)h)[i] = pattern == P_RANDOM || pattern == P_WIDE
                                  ? (float)tk_uniform(st, -1.0, 1.0)
                                  : (float)v;
    }
}

/* A tile algorithm (or NO_TILE and a device-wide one) on stream s. */
static cudaError_t run_scan_on(elem_t t, int tile_algo,
                               scan_device_algo algo, const void *in,
                               void *out, size_t n, scan_kind kind,
                               void *scratch, size_t bytes, cudaStream_t s)
{
    if (tile_algo != NO_TILE) {
        const scan_tile_algo a = (scan_tile_algo)tile_algo;
        if (t == T_F32) return scan_tiles_f32(in, out, n, a, kind, s);
        return scan_tiles_i32(in, out, n, a, kind, s);
    }
    if (t == T_F32)
        return scan_f32(in, out, n, kind, algo, scratch, bytes, s);
    if (t == T_I32)
        return scan_i32(in, out, n, kind, algo, scratch, bytes, s);
    return scan_i64(in, out, n, kind, algo, scratch, bytes, s);
}
/* The same on the default stream, as every test but the order test. */
static cudaError_t run_scan(elem_t t, int tile_algo, scan_device_algo algo,
                            const void *in, void *out, size_t n,
                            scan_kind kind, void *scratch, size_t bytes)
{
    return run_scan_on(t, tile_algo, algo, in, out, n, kind, scratch, bytes,
                       0);
}

/* The float tolerance of the chapter: h u sum|x_j| with
 * h = 8 ceil(n / 2048) + 80 additions on the longest path. */
static double float_bound(size_t n)
{
    return (8.0 * (double)((n + 2047) / 2048) + 80.0) * 0x1.0p-24;
}

/* Compare got with the reference, segment by segment (seg = n for a
 * whole-array scan, SCAN_TILE for tile scans), in chunks of at most 2^20
 * elements: the reference of a chunk plus the sum of the segment before
 * it.  Returns the number of bad elements; prints the first few. */
#define CHUNK ((size_t)1 << 20)
static size_t compare_scan(elem_t t, const void *x, const void *got,
                           size_t n, size_t seg, scan_kind kind, int exact,
                           uint64_t seed, const char *what)
{
    size_t bad = 0;
    const int ex = kind == SCAN_EXCLUSIVE;
    const double h = exact ? 0.0 : float_bound(n);
    long long *x64 = tk_malloc(CHUNK * sizeof *x64);
    long long *r64 = tk_malloc(CHUNK * sizeof *r64);
    float *ax = tk_malloc(CHUNK * sizeof *ax);
    double *ref = tk_malloc(CHUNK * sizeof *ref);
    double *aref = tk_malloc(CHUNK * sizeof *aref);
    for (size_t s0 = 0; s0 < n; s0 += seg) {
        const size_t s1 = n - s0 < seg ? n : s0 + seg;
        long long carry = 0;            /* the segment's sum so far */
        double dcarry = 0, acarry = 0;  /* the same for floats, and |x| */
        for (size_t c = s0; c < s1; c += CHUNK) {
            const size_t m = s1 - c < CHUNK ? s1 - c : CHUNK;
            if (t != T_F32) {
                for (size_t j = 0; j < m; j++)
                    x64[j] = t == T_I32 ? ((const int *)x)[c + j]
                                        : ((const long long *)x)[c + j];
                scan_ref_i64(x64, r64, m, ex);
                for (size_t j = 0; j < m; j++) {
                    long long g = t == T_I32 ? ((const int *)got)[c + j]
                                  : ((const long long *)got)[c + j];
                    long long want = carry + r64[j];
                    if (g != want && bad++ < 5)
                        print_error("%s: element %zu of %zu is %lld, "
                                    "expected %lld (seed %llu)\n", what,
                                    c + j, n, g, want,
                                    (unsigned long long)seed);
                }
                carry += r64[m - 1] + (ex ? x64[m - 1] : 0);
            } else {
                const float *xf = (const float *)x + c;
                const float *gf = (const float *)got + c;
                for (size_t j = 0; j < m; j++) ax[j] = fabsf(xf[j]);
                scan_ref_f64(xf, ref, m, ex);
                scan_ref_f64(ax, aref, m, 0);
                for (size_t j = 0; j < m; j++) {
                    double g = gf[j], want = dcarry + ref[j];
                    double tol = h * (acarry + aref[j]);
                    int ok = isfinite(g) && fabs(g - want) <= tol;
                    if (!ok && bad++ < 5)
                        print_error("%s: element %zu of %zu is %.9g, "
                                    "expected %.9g within %.3g (seed "
                                    "%llu)\n", what, c + j, n, g, want,
                                    tol, (unsigned long long)seed);
                }
                dcarry += ref[m - 1] + (ex ? xf[m - 1] : 0);
                acarry += aref[m - 1];
            }
        }
    }
    free(x64);
    free(r64);
    free(ax);
    free(ref);
    free(aref);
    if (bad > 5) print_error("%s: %zu elements wrong in all\n", what, bad);
    return bad;
}

/* Elements by which input and output are offset into their buffers: 1
 * makes them misaligned for 16-byte vectors (the scalar path). */
static size_t g_offset = 0;

/* Scan n elements of type t with a tile algorithm (or NO_TILE and a
 * device algorithm); returns the number of wrong elements. */
static size_t check_scan(elem_t t, int tile_algo, scan_device_algo algo,
                         size_t n, scan_kind kind, int pattern, int round)
{
    uint64_t seed = tk_seed(round), st = seed;
    const size_t es = esize(t), bytes = n * es;
    void *x = tk_malloc(bytes), *got = tk_malloc(bytes);
    fill_input(x, t, n, pattern, &st);
    void *din = NULL, *dout = NULL, *scratch = NULL;
    size_t sbytes = scan_scratch_bytes(n, es);
    const size_t off = g_offset * es;
    din = tk_dev_bytes(bytes + off);
    dout = tk_dev_bytes(bytes + off);
    scratch = tk_dev_bytes(sbytes);
    tk_upload_bytes((char *)din + off, x, bytes);
    cudaError_t e = run_scan(t, tile_algo, algo, (char *)din + off,
                             (char *)dout + off, n, kind, scratch, sbytes);
    TK_SKIP_IF_NOT_SUPPORTED(e, "the staged scan (over 64 KB of shared memory a block)");
    TK_CUDA(e);
    TK_CUDA(cudaDeviceSynchronize());
    tk_download_bytes(got, (char *)dout + off, bytes);
    /* Float sums are exact when every partial sum is an integer below
     * 2^24 in magnitude. */
    int exact = pattern == P_ZEROS ||
                (pattern == P_ONES && n <= ((size_t)1 << 24)) ||
                (pattern == P_SMALL_INTS && n <= ((size_t)1 << 21));
    char what[160];
    if (tile_algo != NO_TILE)
        snprintf(what, sizeof what, "%s scan of %s, tile algorithm %d, "
                 "pattern %d", kind == SCAN_EXCLUSIVE ? "exclusive"
                 : "inclusive", tname[t], tile_algo, pattern);
    else
        snprintf(what, sizeof what, "%s scan of %s, %s, pattern %d",
                 kind == SCAN_EXCLUSIVE ? "exclusive" : "inclusive",
                 tname[t], algo_name(algo), pattern);
    size_t bad = compare_scan(t, x, got, n,
                              tile_algo != NO_TILE ? SCAN_TILE : n, kind,
                              exact, seed, what);
    tk_free(din);
    tk_free(dout);
    tk_free(scratch);
    free(x);
    free(got);
    return bad;
}

/* ---- CPU-side tests -------------------------------------------------- */

static void reference_off_by_one(void **s)
{
    (void)s;
    const long long x[8] = {3, 1, 7, 0, 4, 1, 6, 3};
    const long long inc[8] = {3, 4, 11, 11, 15, 16, 22, 25};
    const long long exc[8] = {0, 3, 4, 11, 11, 15, 16, 22};
    long long y[8];
    scan_ref_i64(x, y, 8, 0);
    assert_memory_equal(y, inc, sizeof y);
    scan_ref_i64(x, y, 8, 1);
    assert_memory_equal(y, exc, sizeof y);
    /* The exclusive scan is the inclusive one shifted right by one. */
    for (int i = 1; i < 8; i++) assert_true(exc[i] == inc[i - 1]);
    const float xf[4] = {0.5f, -1.0f, 0.25f, 2.0f};
    double yf[4];
    scan_ref_f64(xf, yf, 4, 1);
    assert_true(yf[0] == 0.0 && yf[1] == 0.5 && yf[2] == -0.5 &&
                yf[3] == -0.25);
}

/* The Blelloch scan's shared-memory accesses, and the bank-conflict degree
 * of each warp-wide access: the largest number of distinct words that fall
 * into one bank. */
static unsigned pad_right(unsigned i) { return SCAN_CONFLICT_FREE_OFFSET(i); }
static unsigned pad_none(unsigned i) { (void)i; return 0; }
/* What GPU Gems 3's macro computes on the GPU: the published text parses
 * as (i >> (32 + i)) >> 10, and PTX's shr treats a count >= 32 as 32.
 * (Evaluating the macro on the CPU would be undefined behaviour.) */
static unsigned ptx_shr(unsigned x, unsigned c) { return c >= 32 ? 0 : x >> c; }
static unsigned pad_gems(unsigned i)
{
    return ptx_shr(ptx_shr(i, SCAN_NUM_BANKS + i), 2 * SCAN_LOG_NUM_BANKS);
}

static unsigned degree(const unsigned *words, int m)
{
    unsigned worst = m > 0 ? 1 : 0;
    for (int b = 0; b < SCAN_NUM_BANKS; b++) {
        unsigned distinct = 0;
        for (int j = 0; j < m; j++) {
            if (words[j] % SCAN_NUM_BANKS != (unsigned)b) continue;
            int seen = 0;
            for (int q = 0; q < j; q++) seen |= words[q] == words[j];
            distinct += !seen;
        }
        if (distinct > worst) worst = distinct;
    }
    return worst;
}

/* Sum over every step of both sweeps and every warp of the excess degree
 * (degree - 1: the replays) of the accesses to s[a] and to s[b]. */
static unsigned blelloch_degrees(unsigned (*pad)(unsigned), int verbose,
                                 const char *name)
{
    unsigned total = 0, offset = 1, words_a[32], words_b[32];
    for (int sweep = 0; sweep < 2; sweep++) {
        for (unsigned step = 0; step < 9; step++) {
            unsigned d = sweep == 0 ? (SCAN_TILE / 2u) >> step : 1u << step;
            if (sweep == 1) offset /= 2;
            unsigned level = 0;
            for (unsigned w = 0; w * 32 < d; w++) {
                int m = 0;
                for (unsigned t = w * 32; t < w * 32 + 32 && t < d; t++) {
                    unsigned a = offset * (2 * t + 1) - 1;
                    unsigned b = offset * (2 * t + 2) - 1;
                    words_a[m] = a + pad(a);
                    words_b[m] = b + pad(b);
                    m++;
                }
                level += degree(words_a, m) - 1 + degree(words_b, m) - 1;
            }
            if (verbose)
                print_message("%s: %s step %u (offset %u): replays %u\n",
                              name, sweep ? "down" : "up", step, offset,
                              level);
            total += level;
            if (sweep == 0) offset *= 2;
        }
    }
    return total;
}

static void bank_conflict_degrees(void **s)
{
    (void)s;
    /* The published macro is zero for every index of the tile ... */
    for (unsigned i = 0; i < SCAN_TILE; i++) assert_int_equal(pad_gems(i), 0);
    /* ... so it conflicts exactly as much as no padding at all. */
    unsigned none = blelloch_degrees(pad_none, 1, "unpadded");
    unsigned right = blelloch_degrees(pad_right, 1, "padded");
    unsigned gems = blelloch_degrees(pad_gems, 0, "gems");
    print_message("replays: unpadded %u, padded %u, as printed %u\n",
                  none, right, gems);
    assert_int_equal(gems, none);
    assert_int_equal(right, 0);       /* the padding removes them all */
    assert_int_equal(none, 300);      /* see the chapter's count */
    /* The first up-sweep step: degree 2 per access unpadded, 1 padded. */
    unsigned wa[32];
    for (unsigned t = 0; t < 32; t++) wa[t] = 2 * t;
    assert_int_equal(degree(wa, 32), 2);
    for (unsigned t = 0; t < 32; t++) wa[t] = 2 * t + pad_right(2 * t);
    assert_int_equal(degree(wa, 32), 1);
    /* Stride 16 (offset 8): degree 16 unpadded, 1 padded. */
    for (unsigned t = 0; t < 32; t++) wa[t] = 8 * (2 * t + 1) - 1;
    assert_int_equal(degree(wa, 32), 16);
    for (unsigned t = 0; t < 32; t++) wa[t] += pad_right(wa[t]);
    assert_int_equal(degree(wa, 32), 1);
}

/* CPU-side: the checker itself, on answers computed by a plain loop, over
 * chunk and segment boundaries, finds a single wrong element. */
static void checker_catches_errors(void **s)
{
    (void)s;
    const size_t n = 3 * CHUNK / 2 + 7;
    uint64_t st = 5;
    int *xi = tk_malloc(n * sizeof *xi), *gi = tk_malloc(n * sizeof *gi);
    float *xf = tk_malloc(n * sizeof *xf), *gf = tk_malloc(n * sizeof *gf);
    fill_input(xi, T_I32, n, P_RANDOM, &st);
    fill_input(xf, T_F32, n, P_SMALL_INTS, &st);
    for (int k = 0; k < 2; k++)
        for (int tiles = 0; tiles < 2; tiles++) {
            const size_t seg = tiles ? SCAN_TILE : n;
            long long si = 0;
            float sf = 0;
            for (size_t i = 0; i < n; i++) {
                if (i % seg == 0) si = 0, sf = 0;
                gi[i] = (int)(k ? si : si + xi[i]);
                gf[i] = k ? sf : sf + xf[i];
                si += xi[i];
                sf += xf[i];
            }
            assert_int_equal(compare_scan(T_I32, xi, gi, n, seg,
                                          (scan_kind)k, 1, 0, "ok"), 0);
            assert_int_equal(compare_scan(T_F32, xf, gf, n, seg,
                                          (scan_kind)k, 1, 0, "ok"), 0);
            gi[CHUNK + 3] += 1;
            gf[n - 1] += 1;
            assert_int_equal(compare_scan(T_I32, xi, gi, n, seg,
                                          (scan_kind)k, 1, 0, "off"), 1);
            assert_int_equal(compare_scan(T_F32, xf, gf, n, seg,
                                          (scan_kind)k, 1, 0, "off"), 1);
        }
    free(xi);
    free(gi);
    free(xf);
    free(gf);
}

static void bad_arguments_refused(void **s)
{
    (void)s;
    float *p = TK_FAKE(256);  /* never dereferenced */
    int *q = TK_FAKE(256);
    void *sc = TK_FAKE(256);
    size_t need = scan_scratch_bytes(1000, 4);
    TK_REFUSED(scan_tiles_f32(NULL, p, 10, SCAN_TILE_WARPS, SCAN_INCLUSIVE, 0));
    TK_REFUSED(scan_tiles_i32(q, NULL, 10, SCAN_TILE_WARPS, SCAN_INCLUSIVE, 0));
    TK_REFUSED(scan_tiles_i32(q, q, 10, (scan_tile_algo)99, SCAN_INCLUSIVE, 0));
    TK_REFUSED(scan_tiles_i32(q, q, 10, SCAN_TILE_WARPS, (scan_kind)7, 0));
    TK_REFUSED(scan_f32(p, p, 1000, SCAN_INCLUSIVE, SCAN_LOOKBACK,
                        NULL, need, 0));
    TK_REFUSED(scan_f32(p, p, 1000, SCAN_INCLUSIVE, SCAN_LOOKBACK, sc,
                        need - 1, 0));
    TK_REFUSED(scan_f32(p, p, 1000, SCAN_INCLUSIVE, SCAN_LOOKBACK,
                        (char *)sc + 16, need, 0));
    TK_REFUSED(scan_i32(q, q, 1000, SCAN_INCLUSIVE,
                        (scan_device_algo)9, sc, need, 0));
    TK_REFUSED(scan_i64(NULL, (long long *)q, 1000, SCAN_EXCLUSIVE,
                        SCAN_PROPAGATE, sc, 1 << 20, 0));
    /* Every tile algorithm, both types: a null in or out, or a bad kind. */
    for (int t = T_I32; t <= T_F32; t += T_F32 - T_I32)
        for (int a = 0; a <= SCAN_TILE_WARPS_32BIT_INDEX; a++) {
            TK_REFUSED(run_scan((elem_t)t, a, SCAN_PROPAGATE, NULL, p,
                                10, SCAN_INCLUSIVE, NULL, 0));
            TK_REFUSED(run_scan((elem_t)t, a, SCAN_PROPAGATE, p, NULL,
                                10, SCAN_EXCLUSIVE, NULL, 0));
            TK_REFUSED(run_scan((elem_t)t, a, SCAN_PROPAGATE, p, p,
                                10, (scan_kind)2, NULL, 0));
        }
    /* Every element type and algorithm: scratch that is missing, not
     * 256-byte aligned or short of scan_scratch_bytes, a null in or out,
     * or a kind that is neither, is refused before anything runs. */
    for (int t = T_I32; t <= T_F32; t++) {
        size_t nb = scan_scratch_bytes(1000, esize((elem_t)t));
        for (int a = 0; a < NALGOS; a++) {
            scan_device_algo al = algo_at(a);
            TK_REFUSED(run_scan((elem_t)t, NO_TILE, al, p, p, 1000,
                                SCAN_EXCLUSIVE, NULL, nb));
            for (size_t off = 4; off < 256; off *= 2)
                TK_REFUSED(run_scan((elem_t)t, NO_TILE, al, p, p, 1000,
                                    SCAN_EXCLUSIVE, (char *)sc + off,
                                    nb));
            TK_REFUSED(run_scan((elem_t)t, NO_TILE, al, p, p, 1000,
                                SCAN_INCLUSIVE, sc, nb - 1));
            TK_REFUSED(run_scan((elem_t)t, NO_TILE, al, NULL, p, 1000,
                                SCAN_INCLUSIVE, sc, nb));
            TK_REFUSED(run_scan((elem_t)t, NO_TILE, al, p, NULL, 1000,
                                SCAN_INCLUSIVE, sc, nb));
            TK_REFUSED(run_scan((elem_t)t, NO_TILE, al, p, p, 1000,
                                (scan_kind)2, sc, nb));
        }
    }
}

static void empty_does_nothing(void **s)
{
    (void)s;
    assert_int_equal(scan_tiles_f32(NULL, NULL, 0, SCAN_TILE_BLELLOCH,
                                    SCAN_INCLUSIVE, 0), cudaSuccess);
    assert_int_equal(scan_f32(NULL, NULL, 0, SCAN_INCLUSIVE, SCAN_LOOKBACK,
                              NULL, 0, 0), cudaSuccess);
}

/* Scratch: the look-back's counter, flags and two value arrays, or the
 * recursive tile totals, whichever is larger. */
static void scratch_bytes_as_derived(void **s)
{
    (void)s;
    /* n = 1: 16 + 8 bytes of counter and status (256 aligned), and two
     * value slices of 256. */
    assert_int_equal(scan_scratch_bytes(1, 4), 768);
    /* 2^28 floats, 65536 tiles: 16 + 8 * 65536 -> 524544 bytes, values
     * 2 * 262144; the totals (262144 + 256) are fewer. */
    assert_int_equal(scan_scratch_bytes(BIG, 4), 524544 + 524288);
    /* 8-byte elements: tiles of 2048. */
    assert_int_equal(scan_scratch_bytes(4096, 8), 256 + 2 * 256);
}

/* ---- GPU tests ------------------------------------------------------- */

/* Each round of seeds, each size of the ladder: every tile algorithm on
 * ints and floats, both kinds. */
static void tiles_all_algorithms(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    for (tk_sweep sw = tk_sweep_start(LADDER_MAX, TK_SWEEP_SMALL_ONE_ROUND);
         tk_sweep_next(&sw);)
        for (int a = 0; a < NTILE; a++)
            for (int t = 0; t < 2; t++)
                for (int k = 0; k < 2; k++)
                    assert_int_equal(
                        check_scan(t ? T_F32 : T_I32, tile_algos[a],
                                   SCAN_LOOKBACK, sw.n, (scan_kind)k,
                                   P_RANDOM, sw.round), 0);
}

/* The same for every device-wide algorithm on all three types. */
static void device_all_algorithms(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    for (tk_sweep sw = tk_sweep_start(LADDER_MAX, TK_SWEEP_SMALL_ONE_ROUND);
         tk_sweep_next(&sw);)
        for (int a = 0; a < NALGOS; a++)
            for (int t = 0; t < 3; t++)
                for (int k = 0; k < 2; k++)
                    assert_int_equal(
                        check_scan((elem_t)t, NO_TILE, algo_at(a),
                                   sw.n, (scan_kind)k, P_RANDOM, sw.round),
                        0);
}

/* The header: the staged, paired and raked scans need 64 KB of shared
 * memory a block and a few hundred bytes more; where the GPU gives at most
 * 64 KB (sm_75) they return cudaErrorNotSupported and launch nothing (the
 * output stays poisoned).  Where it gives 4 KB more than 64 KB, they run. */
static void staged_refused_only_where_memory_is_short(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    int dev = 0, most = 0;
    TK_CUDA(cudaGetDevice(&dev));
    TK_CUDA(cudaDeviceGetAttribute(
        &most, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    const size_t n = 1000;
    unsigned char got[8 * 1000], poison[8 * 1000];
    memset(poison, 0xff, sizeof poison);
    for (int t = 0; t < 3; t++) {
        const size_t bytes = n * esize((elem_t)t);
        const size_t sb = scan_scratch_bytes(n, esize((elem_t)t));
        void *din = tk_dev_bytes(bytes), *dout = tk_dev_bytes(bytes);
        void *scratch = tk_dev_bytes(sb);
        for (int a = 0; a < NALGOS; a++) {
            if (!scan_device_variants[a].big_tile) continue;
            tk_poison(dout, bytes);
            cudaError_t e = run_scan((elem_t)t, NO_TILE,
                                     algo_at(a), din, dout,
                                     n, SCAN_INCLUSIVE, scratch, sb);
            TK_CUDA(cudaDeviceSynchronize());
            if (most <= 65536) {
                assert_int_equal(e, cudaErrorNotSupported);
                tk_download_bytes(got, dout, bytes);
                assert_memory_equal(got, poison, bytes);
            } else if (most >= 65536 + 4096) {
                TK_CUDA(e);
            }
        }
        tk_free(din); tk_free(dout); tk_free(scratch);
    }
}

/* The sizes around the 64 KB tiles of the staged, paired and raked scans
 * (8192 64-bit or 16384 32-bit elements), two tiles and one past, and a
 * large odd size; both kinds, all three types; 64-bit integers also with
 * wide values (P_WIDE), whose sums need both halves of a status word. */
static void device_big_tile_edges(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    static const size_t sizes[] = {8191, 8192, 8193, 16383, 16384, 16385,
                                   24577, 32769, 10000003};
    const size_t ns = tk_small() ? 3 : sizeof sizes / sizeof sizes[0];
    for (int a = 0; a < NALGOS; a++) {
        if (!scan_device_variants[a].big_tile) continue;
        for (int t = 0; t < 3; t++)
            for (int k = 0; k < 2; k++)
                for (size_t z = tk_small() ? 1 : 0; z < ns; z++)
                    for (int p = P_RANDOM; p <= P_WIDE; p += P_WIDE) {
                        if (p == P_WIDE && t != T_I64) continue;
                        assert_int_equal(
                            check_scan((elem_t)t, NO_TILE, algo_at(a),
                                       sizes[z], (scan_kind)k, p, z % 2),
                            0);
                    }
    }
}

/* Misaligned input and output take the scalar path of every tile. */
static void device_misaligned(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    g_offset = 1;
    for (int a = 0; a < NALGOS; a++)
        for (int t = 0; t < 3; t++)
            for (size_t z = 0; z < nsizes(); z += 2)
                assert_int_equal(check_scan((elem_t)t, NO_TILE,
                                            algo_at(a), size_at(z),
                                            SCAN_INCLUSIVE, P_RANDOM, 0), 0);
    g_offset = 0;
}

static void floats_exact_with_small_integers(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    const size_t n = tk_small() ? 12289 : (size_t)1 << 21;
    /* The three tile algorithms; the other two Blelloch kernels differ
     * only in their padding. */
    static const int exact_tiles[] = {SCAN_TILE_HILLIS_STEELE,
                                      SCAN_TILE_WARPS, SCAN_TILE_BLELLOCH};
    for (int k = 0; k < 2; k++) {
        for (int a = 0; a < NALGOS; a++)
            assert_int_equal(check_scan(T_F32, NO_TILE, algo_at(a),
                                        n, (scan_kind)k, P_SMALL_INTS, 1),
                             0);
        for (size_t a = 0; a < 3; a++)
            assert_int_equal(check_scan(T_F32, exact_tiles[a], SCAN_LOOKBACK,
                                        n, (scan_kind)k, P_SMALL_INTS, 1),
                             0);
    }
}

static void all_zero_and_all_one(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    for (int p = P_ZEROS; p <= P_ONES; p++)
        for (int a = 0; a < NALGOS; a++)
            for (int t = 0; t < 3; t++)
                for (size_t z = 0; z < nsizes(); z++) {
                    /* Under the sanitizer: two sizes. */
                    if (tk_small() && z != 1 && z != 3) continue;
                    for (int k = 0; k < 2; k++)
                        assert_int_equal(
                            check_scan((elem_t)t, NO_TILE,
                                       algo_at(a), size_at(z),
                                       (scan_kind)k, p, 0), 0);
                }
    if (tk_small()) return;
    /* 2^28 ones: exact for integers; for floats past 2^24 the bound. */
    assert_int_equal(check_scan(T_I32, NO_TILE, SCAN_LOOKBACK_AHEAD, BIG,
                                SCAN_INCLUSIVE, P_ONES, 0), 0);
    assert_int_equal(check_scan(T_F32, NO_TILE, SCAN_LOOKBACK, BIG,
                                SCAN_EXCLUSIVE, P_ONES, 0), 0);
    assert_int_equal(check_scan(T_I32, NO_TILE, SCAN_LOOKBACK_STAGED, BIG,
                                SCAN_INCLUSIVE, P_ONES, 0), 0);
    assert_int_equal(check_scan(T_I64, NO_TILE, SCAN_LOOKBACK_RAKED, BIG,
                                SCAN_EXCLUSIVE, P_ONES, 0), 0);
}

static void device_2_to_28(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    if (tk_small()) skip();
    assert_int_equal(check_scan(T_F32, NO_TILE, SCAN_LOOKBACK, BIG,
                                SCAN_INCLUSIVE, P_RANDOM, 0), 0);
    assert_int_equal(check_scan(T_F32, NO_TILE, SCAN_LOOKBACK_PACKED, BIG,
                                SCAN_EXCLUSIVE, P_RANDOM, 1), 0);
    assert_int_equal(check_scan(T_I32, NO_TILE, SCAN_LOOKBACK_AHEAD, BIG,
                                SCAN_INCLUSIVE, P_RANDOM, 1), 0);
    assert_int_equal(check_scan(T_F32, NO_TILE, SCAN_LOOKBACK_AHEAD, BIG,
                                SCAN_INCLUSIVE, P_RANDOM, 0), 0);
    assert_int_equal(check_scan(T_I64, NO_TILE, SCAN_LOOKBACK, BIG,
                                SCAN_EXCLUSIVE, P_RANDOM, 0), 0);
    assert_int_equal(check_scan(T_F32, NO_TILE, SCAN_LOOKBACK_STAGED, BIG,
                                SCAN_INCLUSIVE, P_RANDOM, 0), 0);
    assert_int_equal(check_scan(T_I32, NO_TILE, SCAN_LOOKBACK_STAGED, BIG,
                                SCAN_EXCLUSIVE, P_RANDOM, 1), 0);
    assert_int_equal(check_scan(T_I64, NO_TILE, SCAN_LOOKBACK_STAGED, BIG,
                                SCAN_INCLUSIVE, P_RANDOM, 1), 0);
    assert_int_equal(check_scan(T_I64, NO_TILE, SCAN_LOOKBACK_PAIRED, BIG,
                                SCAN_EXCLUSIVE, P_WIDE, 0), 0);
    assert_int_equal(check_scan(T_I64, NO_TILE, SCAN_LOOKBACK_RAKED, BIG,
                                SCAN_INCLUSIVE, P_WIDE, 0), 0);
    assert_int_equal(check_scan(T_I64, NO_TILE, SCAN_LOOKBACK_RAKED, BIG,
                                SCAN_EXCLUSIVE, P_RANDOM, 1), 0);
    assert_int_equal(check_scan(T_F32, NO_TILE, SCAN_LOOKBACK_RAKED, BIG,
                                SCAN_INCLUSIVE, P_RANDOM, 1), 0);
    assert_int_equal(check_scan(T_I32, NO_TILE, SCAN_LOOKBACK_RAKED, BIG,
                                SCAN_EXCLUSIVE, P_RANDOM, 0), 0);
    assert_int_equal(check_scan(T_I32, NO_TILE, SCAN_PROPAGATE, BIG,
                                SCAN_EXCLUSIVE, P_RANDOM, 0), 0);
    assert_int_equal(check_scan(T_F32, NO_TILE, SCAN_REDUCE_THEN_SCAN, BIG,
                                SCAN_INCLUSIVE, P_RANDOM, 0), 0);
}

/* Repeated runs on the same input.  Integer sums are associative, so every
 * algorithm gives the same bits every time.  For floats the multi-pass
 * scans fix the grouping of the additions by the tile layout alone, so
 * they too repeat bit for bit; the single-pass scans group a tile's prefix
 * by what its look-back found published, which depends on timing, so the
 * property checked is that every run is within the chapter's bound, and
 * the test prints how many runs differed from the first. */
static int float_repeats_bitwise(scan_device_algo algo)
{
    return algo == SCAN_PROPAGATE || algo == SCAN_REDUCE_THEN_SCAN;
}

static void repeat_runs(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    const size_t n = tk_small() ? 12289 : ((size_t)1 << 22) + 3;
    const int runs = tk_small() ? 2 : 5;
    for (int t = 0; t < 3; t++)
        for (int a = 0; a < NALGOS; a++) {
            const scan_device_algo algo = algo_at(a);
            const char *name = scan_device_variants[a].name;
            uint64_t seed = tk_seed(1), st = seed;
            const size_t es = esize((elem_t)t), bytes = n * es;
            const size_t sbytes = scan_scratch_bytes(n, es);
            void *x = tk_malloc(bytes), *first = tk_malloc(bytes);
            void *got = tk_malloc(bytes);
            fill_input(x, (elem_t)t, n, P_RANDOM, &st);
            void *din = tk_dev_bytes(bytes), *dout = tk_dev_bytes(bytes);
            void *scratch = tk_dev_bytes(sbytes);
            tk_upload_bytes(din, x, bytes);
            int differ = 0;
            for (int r = 0; r < runs; r++) {
                tk_poison(dout, bytes);
                cudaError_t e = run_scan((elem_t)t, NO_TILE,
                                         algo, din, dout, n,
                                         SCAN_INCLUSIVE, scratch, sbytes);
                TK_SKIP_IF_NOT_SUPPORTED(e, "the staged scan (over 64 KB of shared memory a block)");
                TK_CUDA(e);
                TK_CUDA(cudaDeviceSynchronize());
                tk_download_bytes(r ? got : first, dout, bytes);
                if (r == 0 || t == T_F32) {
                    char what[96];
                    snprintf(what, sizeof what, "%s, %s, run %d",
                             tname[t], name, r);
                    assert_int_equal(compare_scan((elem_t)t, x,
                                                  r ? got : first, n, n,
                                                  SCAN_INCLUSIVE,
                                                  t != T_F32, seed, what),
                                     0);
                }
                if (r && memcmp(got, first, bytes) != 0) {
                    differ++;
                    if (t != T_F32 || float_repeats_bitwise(algo)) {
                        print_error("%s scan, %s: run %d differs "
                                    "from run 0\n", tname[t], name, r);
                        fail();
                    }
                }
            }
            if (t == T_F32 && !float_repeats_bitwise(algo))
                print_message("float single pass %s: %d of %d "
                              "runs differ from the first in some bit\n",
                              name, differ, runs - 1);
            tk_free(din);
            tk_free(dout);
            tk_free(scratch);
            free(x);
            free(first);
            free(got);
        }
}

/* The staged kernels opt in to 64 KB of shared memory once per kernel and
 * device (once_per_device, in common/once_per_device.cuh, which the softmax
 * chapter writes).  Eight host threads make the first staged and raked
 * calls at once, on their own buffers, released together by a barrier:
 * float and int scans, inclusive and exclusive.  Registered before every
 * other test that uses them. */
#define NTHREADS 8
struct scan_job {
    elem_t t;
    scan_kind kind;
    scan_device_algo algo;
    const void *din;
    void *dout, *scratch;
    size_t n, sbytes;
    cudaError_t launched, synced;
};
static void scan_job_run(void *p)
{
    struct scan_job *j = p;
    j->launched = run_scan(j->t, NO_TILE, j->algo, j->din, j->dout, j->n,
                           j->kind, j->scratch, j->sbytes);
    j->synced = cudaDeviceSynchronize();
}

static void staged_first_use_from_threads(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    const size_t n = tk_small() ? 12289 : 1000001;
    uint64_t seed = tk_seed(0), st = seed;
    /* Small integers: the float scans are exact too. */
    int *xi = tk_malloc(n * sizeof *xi);
    float *xf = tk_malloc(n * sizeof *xf);
    fill_input(xi, T_I32, n, P_SMALL_INTS, &st);
    for (size_t i = 0; i < n; i++) xf[i] = (float)xi[i];
    void *got = tk_malloc(n * 4);
    void *dxi = tk_dev_bytes(n * 4), *dxf = tk_dev_bytes(n * 4);
    tk_upload_bytes(dxi, xi, n * 4);
    tk_upload_bytes(dxf, xf, n * 4);
    const size_t sbytes = scan_scratch_bytes(n, 4);
    struct scan_job jobs[NTHREADS];
    for (int k = 0; k < NTHREADS; k++) {
        const elem_t t = k % 2 ? T_F32 : T_I32;
        jobs[k] = (struct scan_job){t, (scan_kind)(k / 2 % 2),
                                    k < 4 ? SCAN_LOOKBACK_STAGED
                                          : SCAN_LOOKBACK_RAKED,
                                    t == T_F32 ? dxf : dxi,
                                    tk_dev_bytes(n * 4),
                                    tk_dev_bytes(sbytes), n, sbytes,
                                    cudaErrorUnknown, cudaErrorUnknown};
    }
    tk_run_at_once(NTHREADS, scan_job_run, jobs, sizeof jobs[0]);
    for (int k = 0; k < NTHREADS; k++) {
        TK_SKIP_IF_NOT_SUPPORTED(jobs[k].launched, "the staged scan (over 64 KB of shared memory a block)");
        TK_CUDA(jobs[k].launched);
        TK_CUDA(jobs[k].synced);
        tk_download_bytes(got, jobs[k].dout, n * 4);
        assert_int_equal(
            compare_scan(jobs[k].t, jobs[k].t == T_F32 ? (void *)xf
                                                       : (void *)xi,
                         got, n, n, jobs[k].kind, 1, seed,
                         "staged scan from a thread"), 0);
        tk_free(jobs[k].dout);
        tk_free(jobs[k].scratch);
    }
    tk_free(dxi);
    tk_free(dxf);
    free(xi);
    free(xf);
    free(got);
}

/* With two GPUs or more: the staged scans on every device, so that an
 * opt-in made on device 0 is not taken for one on another device.
 * Skipped on a machine with one GPU. */
static void staged_on_every_gpu(void **s)
{
    (void)s;
    TK_REQUIRE_GPUS(2);
    int count = 0;
    TK_CUDA(cudaGetDeviceCount(&count));
    for (int d = count - 1; d >= 0; d--) {
        TK_CUDA(cudaSetDevice(d));
        for (int t = 0; t < 3; t++) {
            assert_int_equal(check_scan((elem_t)t, NO_TILE,
                                        SCAN_LOOKBACK_STAGED, 1000001,
                                        SCAN_INCLUSIVE, P_RANDOM, 0), 0);
            assert_int_equal(check_scan((elem_t)t, NO_TILE,
                                        SCAN_LOOKBACK_RAKED, 1000001,
                                        SCAN_INCLUSIVE, P_RANDOM, 0), 0);
        }
    }
}

/* Wrong on purpose: the race.  Its result is not asserted (it is often
 * right); make sanitize runs it alone under racecheck (sanitize.expect). */
static void hs_one_barrier_races(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    TK_SKIP_IN_CLEAN_SANITIZER_RUN();
    size_t bad = check_scan(T_I32, SCAN_TILE_HS_ONE_BARRIER, SCAN_LOOKBACK,
                            4 * SCAN_TILE, SCAN_INCLUSIVE, P_RANDOM, 0);
    print_message("one barrier a step: %zu of %d elements wrong this run\n",
                  bad, 4 * SCAN_TILE);
}

/* n = 2^32 + 2^20 + 3 ints, zero but for ones at a few places; the
 * inclusive scan is known without a CPU copy of the input. */
static const size_t marks[] = {5,
                               ((size_t)1 << 31) - 2,
                               ((size_t)1 << 32) - 1,
                               ((size_t)1 << 32) + 700,
                               ((size_t)1 << 32) + (1 << 20) + 2};
#define NMARKS (sizeof marks / sizeof marks[0])

/* Expected element i of a tile scan (seg = SCAN_TILE) or a whole scan. */
static int expected_at(size_t i, size_t seg)
{
    int c = 0;
    for (size_t m = 0; m < NMARKS; m++)
        c += marks[m] <= i && marks[m] / seg == i / seg;
    return c;
}

/* Check the output chunk by chunk; returns wrong elements at or past
 * `from`, and counts those below it in *below. */
static size_t check_big(const int *dout, size_t n, size_t seg, size_t from,
                        size_t *below)
{
    const size_t chunk = (size_t)1 << 26;
    int *h = NULL;
    TK_CUDA(cudaMallocHost((void **)&h, chunk * sizeof *h));
    size_t bad = 0;
    *below = 0;
    for (size_t s = 0; s < n; s += chunk) {
        size_t m = n - s < chunk ? n - s : chunk;
        tk_download_bytes(h, dout + s, m * sizeof *h);
        size_t j = 0;
        while (j < m) {                      /* one segment at a time */
            const size_t i0 = s + j;
            size_t end = (i0 / seg + 1) * seg, q = 0;
            if (end > s + m) end = s + m;
            int c = expected_at(i0, seg);
            while (q < NMARKS && marks[q] <= i0) q++;
            for (size_t i = i0; i < end; i++, j++) {
                if (q < NMARKS && marks[q] == i) { c++; q++; }
                if (h[j] == c) continue;
                if (i < from) { (*below)++; continue; }
                if (bad++ < 3)
                    print_error("element %zu is %d, expected %d\n", i,
                                h[j], c);
            }
        }
    }
    cudaFreeHost(h);
    return bad;
}

static void index_past_2_to_32(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    if (tk_small()) skip();
    const size_t n = ((size_t)1 << 32) + (1 << 20) + 3;
    size_t sb = scan_scratch_bytes(n, 4), below = 0;
    TK_REQUIRE_DEVICE_BYTES(2 * n * sizeof(int) + sb);   /* about 34 GB */
    int *din = tk_dev_bytes(n * sizeof *din);
    int *dout = tk_dev_bytes(n * sizeof *dout);
    void *scratch = tk_dev_bytes(sb);
    TK_CUDA(cudaMemset(din, 0, n * sizeof *din));
    const int one = 1;
    for (size_t m = 0; m < NMARKS; m++)
        tk_upload_bytes(din + marks[m], &one, sizeof one);
    /* The single pass, whole array. */
    tk_poison(dout, n * sizeof *dout);
    TK_CUDA(scan_i32(din, dout, n, SCAN_INCLUSIVE, SCAN_LOOKBACK, scratch,
                     sb, 0));
    TK_CUDA(cudaDeviceSynchronize());
    assert_int_equal(check_big(dout, n, n, 0, &below), 0);
    /* The raked single pass, whole array. */
    tk_poison(dout, n * sizeof *dout);
    TK_CUDA(scan_i32(din, dout, n, SCAN_INCLUSIVE, SCAN_LOOKBACK_RAKED,
                     scratch, sb, 0));
    TK_CUDA(cudaDeviceSynchronize());
    assert_int_equal(check_big(dout, n, n, 0, &below), 0);
    /* The warp tile scan, tile by tile. */
    tk_poison(dout, n * sizeof *dout);
    TK_CUDA(scan_tiles_i32(din, dout, n, SCAN_TILE_WARPS, SCAN_INCLUSIVE,
                           0));
    TK_CUDA(cudaDeviceSynchronize());
    assert_int_equal(check_big(dout, n, SCAN_TILE, 0, &below), 0);
    /* Wrong on purpose: right below 2^32, every element past it unwritten
     * (still the poison, -1). */
    tk_poison(dout, n * sizeof *dout);
    TK_CUDA(scan_tiles_i32(din, dout, n, SCAN_TILE_WARPS_32BIT_INDEX,
                           SCAN_INCLUSIVE, 0));
    TK_CUDA(cudaDeviceSynchronize());
    size_t past = check_big(dout, n, SCAN_TILE, (size_t)1 << 32, &below);
    assert_int_equal(below, 0);
    assert_int_equal(past, n - ((size_t)1 << 32));
    tk_free(din);
    tk_free(dout);
    tk_free(scratch);
}

/* ---- GPU: stream order ------------------------------------------------ */

/* One algorithm on one type, 10^6 + 1 small integers (exact for floats
 * too), exclusive, queued on a stream held behind a closed gate: the
 * output and the scratch are still the poison when the launcher has
 * returned (a reset or a kernel on another stream would have written
 * them), and the scan is right once the gate opens.  A first call on the
 * default stream loads the kernels (loading one may wait for the whole
 * device) and makes the staged kernels' opt-in; both buffers are poisoned
 * again after it.  Returns 0 where the GPU refuses a staged tile, which
 * only an algorithm with big_tile set may do. */
static int order_case(elem_t t, int tile_algo, scan_device_algo algo,
                      int big_tile)
{
    const size_t n = 1000001, es = esize(t), bytes = n * es;
    const size_t sb = scan_scratch_bytes(n, es);
    uint64_t seed = tk_seed(0), st = seed;
    void *x = tk_malloc(bytes), *got = tk_malloc(bytes);
    fill_input(x, t, n, P_SMALL_INTS, &st);
    void *din = tk_dev_bytes(bytes), *dout = tk_dev_bytes(bytes);
    void *scratch = tk_dev_bytes(sb);
    tk_upload_bytes(din, x, bytes);
    cudaError_t e = run_scan_on(t, tile_algo, algo, din, dout, n,
                                SCAN_EXCLUSIVE, scratch, sb, 0);
    const int ran = !(big_tile && e == cudaErrorNotSupported);
    if (ran) {
        TK_CUDA(e);
        TK_CUDA(cudaDeviceSynchronize());
        tk_poison(dout, bytes);
        tk_poison(scratch, sb);
        tk_gate g = tk_gate_close();
        e = run_scan_on(t, tile_algo, algo, din, dout, n, SCAN_EXCLUSIVE,
                        scratch, sb, g.s);
        int waited = tk_still_poisoned(dout, bytes) &&
                     tk_still_poisoned(scratch, sb);
        tk_gate_open(&g);
        TK_CUDA(e);
        char what[96];
        snprintf(what, sizeof what, "%s scan of %s on a gated stream",
                 tile_algo != NO_TILE ? "tile" : algo_name(algo), tname[t]);
        if (!waited)
            print_error("%s (tile algorithm %d): it wrote before its "
                        "stream let it\n", what, tile_algo);
        assert_true(waited);
        tk_download_bytes(got, dout, bytes);
        if (tile_algo == SCAN_TILE_HS_ONE_BARRIER)   /* races: it ran */
            assert_false(tk_still_poisoned(dout, bytes));
        else
            assert_int_equal(compare_scan(t, x, got, n,
                                          tile_algo != NO_TILE ? SCAN_TILE
                                                               : n,
                                          SCAN_EXCLUSIVE, 1, seed, what),
                             0);
    }
    tk_free(din);
    tk_free(dout);
    tk_free(scratch);
    free(x);
    free(got);
    return ran;
}

/* Every launcher queues all its work on the stream it is given: each tile
 * algorithm, those wrong on purpose too, on ints and floats, and each
 * device-wide algorithm (variants.h) on the three types. */
static void scan_launchers_follow_the_stream(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    for (int a = 0; a <= SCAN_TILE_WARPS_32BIT_INDEX; a++)
        for (int t = T_I32; t <= T_F32; t += T_F32 - T_I32)
            order_case((elem_t)t, a, SCAN_LOOKBACK, 0);
    int refused = 0;
    for (int a = 0; a < NALGOS; a++)
        for (int t = 0; t < 3; t++)
            refused += !order_case((elem_t)t, NO_TILE, algo_at(a),
                                   scan_device_variants[a].big_tile);
    if (refused)
        print_message("%d staged scans refused by this GPU (over 64 KB of "
                      "shared memory per block)\n", refused);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reference_off_by_one),
        cmocka_unit_test(bank_conflict_degrees),
        cmocka_unit_test(checker_catches_errors),
        cmocka_unit_test(bad_arguments_refused),
        cmocka_unit_test(empty_does_nothing),
        cmocka_unit_test(scratch_bytes_as_derived),
        cmocka_unit_test(staged_first_use_from_threads),
        cmocka_unit_test(tiles_all_algorithms),
        cmocka_unit_test(device_all_algorithms),
        cmocka_unit_test(device_big_tile_edges),
        cmocka_unit_test(staged_refused_only_where_memory_is_short),
        cmocka_unit_test(device_misaligned),
        cmocka_unit_test(floats_exact_with_small_integers),
        cmocka_unit_test(all_zero_and_all_one),
        cmocka_unit_test(device_2_to_28),
        cmocka_unit_test(repeat_runs),
        cmocka_unit_test(staged_on_every_gpu),
        cmocka_unit_test(hs_one_barrier_races),
        cmocka_unit_test(index_past_2_to_32),
        cmocka_unit_test(scan_launchers_follow_the_stream),
    };
    return tk_run_tests("scan", tests);
}
