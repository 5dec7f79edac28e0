/* test_interview.c -- the interview appendix's tests: the four edit-distance
 * wavefronts against the CPU DP (empty, one empty, equal, random strings over
 * 2 and 26 letters, lengths 1 to 5000 with the tile's 64 and 128 and one
 * either side, pairs of 10^5 characters with a known distance, the tiled
 * version also on 1 x 10^5, 10^5 x 1 and a random 10^5 x 10^4 pair against
 * the CPU, batches with malformed offsets, and each malformed pair alone);
 * the root-to-leaf sum by pointer jumping against the CPU on a single node,
 * paths of 10^6, a complete tree, random trees of up to 10^6 nodes (any
 * earlier node a parent) and one of 10^7 (a parent among the 64 nodes before:
 * depth about 3 x 10^5, and a CPU walk that stays in cache), a path whose
 * number wraps mod 2^64, and trees with nodes that node 0 does not reach
 * (forests known by hand; random trees with cut-off subtrees, renamed,
 * against a sum by index order that shares no code with the reference),
 * malformed trees that must stay in bounds.  Every refusal the two headers
 * promise, on the CPU where the launcher refuses before it touches the
 * device, and on the GPU, where a refused call must leave its output's
 * poison.  The CPU work is kept to a few seconds: the one-kernel-a-diagonal
 * version (a launch a diagonal) runs every pair with the fixed seed and only
 * the short ones with the fresh seed, and the CPU runs the DP on every
 * seventh pair of the batch of 10^5 (the others are checked against the
 * bounds of a distance).  Last, every launcher's work queued on the stream
 * it is given, behind a closed gate. */
#include "testkit.h"
#include "interview/editdist.h"
#include "interview/tree.h"
#include "interview/interview_ref.h"
#include "tree_cases.h"
#include "variants.h"
#include <stdio.h>
#include <string.h>

/* ---- edit distance ---------------------------------------------------- */

static void rand_string(char *s, size_t n, int letters, uint64_t *st)
{
    for (size_t i = 0; i < n; i++)
        s[i] = (char)('a' + tk_next(st) % (uint64_t)letters);
}

/* One pair on the device for one of the GPU versions of variants.h: the
 * strings a then b in d, the result dd poisoned (-1), and what the version
 * needs besides: the work, poisoned and followed by 64 poisoned guard
 * ints, or the batch's offsets of its one pair. */
typedef struct {
    enum ed_version how;
    size_t la, lb, wi;  /* wi: the work's ints, before the guard */
    char *d;
    int *dd, *work;
    size_t *doff;
} ed_pair;
static ed_pair ed_upload(enum ed_version how, const char *a, size_t la,
                         const char *b, size_t lb)
{
    ed_pair p = {how, la, lb, 0, tk_dev_bytes(la + lb + 1),
                 tk_dev_bytes(sizeof(int)), NULL, NULL};
    if (la) tk_upload_bytes(p.d, a, la);
    if (lb) tk_upload_bytes(p.d + la, b, lb);
    if (how == ED_BY_DIAGONALS) p.wi = ED_WORK_INTS(la, lb);
    if (how == ED_BY_TILES) p.wi = ED_TILED_WORK_INTS(la, lb);
    if (how == ED_BY_DIAGONALS || how == ED_BY_TILES)
        p.work = tk_dev_bytes((p.wi + 64) * sizeof(int));
    if (how == ED_BY_BATCH) {
        size_t off[3] = {0, la, la + lb};
        p.doff = tk_dev_bytes(sizeof off);
        tk_upload_bytes(p.doff, off, sizeof off);
    }
    return p;
}
/* Its version's launcher, on stream. */
static cudaError_t ed_launch(const ed_pair *p, cudaStream_t stream)
{
    const char *a = p->la ? p->d : NULL, *b = p->lb ? p->d + p->la : NULL;
    switch (p->how) {
    case ED_BY_DIAGONALS:
        return ed_diagonals(a, p->la, b, p->lb, p->work, p->dd, stream);
    case ED_BY_BLOCK: return ed_block(a, p->la, b, p->lb, p->dd, stream);
    case ED_BY_TILES:
        return ed_tiled(a, p->la, b, p->lb, p->work, p->dd, stream);
    default: return ed_batch(p->d, p->la + p->lb, p->doff, 1, p->dd, stream);
    }
}
/* Its distance, once the launch is done; the guard after the work must
 * still hold its poison.  Frees the pair. */
static int ed_result(ed_pair *p)
{
    int got = -7, guard[64];
    TK_CUDA(cudaDeviceSynchronize());
    if (p->work) {
        tk_download_bytes(guard, p->work + p->wi, sizeof guard);
        for (int g = 0; g < 64; g++) assert_int_equal(guard[g], -1);
    }
    tk_download_bytes(&got, p->dd, sizeof got);
    tk_free(p->d);
    tk_free(p->dd);
    if (p->work) tk_free(p->work);
    if (p->doff) tk_free(p->doff);
    return got;
}

/* The distance of a and b by one of the GPU versions of variants.h (the
 * batch: a batch of one pair); the launcher's status in *err. */
static int ed_gpu(enum ed_version how, const char *a, size_t la,
                  const char *b, size_t lb, cudaError_t *err)
{
    ed_pair p = ed_upload(how, a, la, b, lb);
    *err = ed_launch(&p, 0);
    int got = ed_result(&p);
    return *err == cudaSuccess ? got : -7;
}

static const char *const ed_launcher[] = {ED_VERSIONS(ED_VERSION_LAUNCHER)};
static void expect(enum ed_version how, const char *a, size_t la,
                   const char *b, size_t lb, int want, uint64_t seed)
{
    cudaError_t e;
    int got = ed_gpu(how, a, la, b, lb, &e);
    TK_CUDA(e);
    if (got != want)
        print_error("%s: lengths %zu and %zu: %d, expected %d (seed %llu)\n",
                    ed_launcher[how], la, lb, got, want, (unsigned long long)seed);
    assert_int_equal(got, want);
}

static void ed_edge_cases(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    for (int how = 0; how < ED_NVERSIONS; how++) {
        expect(how, "", 0, "", 0, 0, 0);
        expect(how, "", 0, "abc", 3, 3, 0);
        expect(how, "abcd", 4, "", 0, 4, 0);
        expect(how, "kitten", 6, "sitting", 7, 3, 0);
        expect(how, "flaw", 4, "lawn", 4, 2, 0);
        expect(how, "same", 4, "same", 4, 0, 0);
        expect(how, "a", 1, "b", 1, 1, 0);
        expect(how, "a", 1, "a", 1, 0, 0);
    }
}

static void ed_random(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    const size_t lens[] = {1, 2, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255,
                           256, 257, 1000, 1025, 4000, 5000};
    const size_t nl = sizeof lens / sizeof *lens;
    /* Launches of the diagonal version: every pair with the fixed seed, the
     * short ones with the fresh seed; under the sanitizer (which slows
     * every launch) the fixed seed and the short ones only. */
    const size_t diag_max = tk_small() ? 300 : 2100;
    for (int round = 0; round < (tk_small() ? 1 : 2); round++) {
        uint64_t seed = tk_seed(round), st = seed;
        for (size_t x = 0; x < nl; x++)
            for (size_t y = 0; y < nl; y += tk_small() ? 4 : 1) {
                size_t la = lens[x], lb = lens[y];
                if (tk_small() && la + lb > 600) continue;
                char *a = tk_malloc(la), *b = tk_malloc(lb);
                int letters = (x + y) % 2 ? 26 : 2;
                rand_string(a, la, letters, &st);
                rand_string(b, lb, letters, &st);
                int want = ed_ref(a, la, b, lb);
                if ((round == 0 && !tk_small()) || la + lb <= diag_max)
                    expect(ED_BY_DIAGONALS, a, la, b, lb, want, seed);
                if ((la < lb ? la : lb) <= ED_BLOCK_MAX)
                    expect(ED_BY_BLOCK, a, la, b, lb, want, seed);
                if ((la < lb ? la : lb) <= ED_BATCH_MAX)
                    expect(ED_BY_BATCH, a, la, b, lb, want, seed);
                expect(ED_BY_TILES, a, la, b, lb, want, seed);
                if (y == 0) {                       /* equal strings */
                    if (round == 0 && 2 * la <= diag_max)
                        expect(ED_BY_DIAGONALS, a, la, a, la, 0, seed);
                    if (la <= ED_BLOCK_MAX)
                        expect(ED_BY_BLOCK, a, la, a, la, 0, seed);
                    if (la <= ED_BATCH_MAX)
                        expect(ED_BY_BATCH, a, la, a, la, 0, seed);
                    expect(ED_BY_TILES, a, la, a, la, 0, seed);
                }
                free(a);
                free(b);
            }
    }
}

/* 10^5 characters over a-d, and a copy with k of them replaced by z: the
 * distance is exactly k (k substitutions do it, and each z, a letter a
 * lacks, needs an edit of its own).  The same string with k characters
 * deleted: exactly k (k deletions do it, and the lengths differ by k). */
static void ed_long_known(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    TK_SKIP_UNDER_SANITIZER("2 x 10^5 launches are too slow under the sanitizer");
    uint64_t seed = tk_seed(1), st = seed;
    const size_t n = 100000;
    char *a = tk_malloc(n), *b = tk_malloc(n);
    rand_string(a, n, 4, &st);
    memcpy(b, a, n);
    int k = 0;
    for (size_t i = 0; i < n; i += 1 + tk_next(&st) % 2000, k++) b[i] = 'z';
    expect(ED_BY_DIAGONALS, a, n, b, n, k, seed);
    expect(ED_BY_TILES, a, n, b, n, k, seed);
    expect(ED_BY_TILES, b, n, a, n, k, seed);
    char *c = tk_malloc(n);
    size_t lc = 0;
    int kd = 0;
    for (size_t i = 0; i < n; i++) {
        if (tk_next(&st) % 1000 == 0) { kd++; continue; }   /* deleted */
        c[lc++] = a[i];
    }
    expect(ED_BY_TILES, a, n, c, lc, kd, seed);
    expect(ED_BY_TILES, c, lc, a, n, kd, seed);
    /* 1 x 10^5 and 10^5 x 1, and a random 10^5 x 10^4 pair (10^9 entries
     * of CPU DP, a second or two), by the CPU */
    expect(ED_BY_TILES, b + 77, 1, a, n, ed_ref(b + 77, 1, a, n), seed);
    expect(ED_BY_TILES, a, n, "z", 1, ed_ref(a, n, "z", 1), seed);
    rand_string(c, 10000, 4, &st);
    expect(ED_BY_TILES, a, n, c, 10000, ed_ref(a, n, c, 10000), seed);
    expect(ED_BY_TILES, c, 3001, b, n - 1, ed_ref(c, 3001, b, n - 1), seed);
    free(c);
    /* the known distance again, by the other two where they apply: the
     * first 4000 (block) and 256 (batch) characters and their copies */
    int k4000 = 0, k256 = 0;
    for (size_t i = 0; i < 4000; i++) {
        k4000 += b[i] == 'z';
        k256 += i < 256 && b[i] == 'z';
    }
    expect(ED_BY_BLOCK, a, 4000, b, 4000, k4000, seed);
    expect(ED_BY_BATCH, a, 256, b, 256, k256, seed);
    /* a short string against a long one, by the CPU (6 x 10^7 entries) */
    expect(ED_BY_BLOCK, a, 3000, b, 20000, ed_ref(a, 3000, b, 20000), seed);
    expect(ED_BY_BATCH, a, 200, b, 20000, ed_ref(a, 200, b, 20000), seed);
    free(a);
    free(b);
}

static void ed_batches(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    const size_t counts[] = {1, 7, 8, 9, 1000, 100000};
    for (size_t c = 0; c < sizeof counts / sizeof *counts; c++) {
        size_t pairs = counts[c];
        if (tk_small() && pairs > 1000) continue;
        uint64_t seed = tk_seed(c % 2), st = seed;
        size_t *off = tk_malloc((2 * pairs + 1) * sizeof *off);
        size_t total = 0;
        off[0] = 0;
        for (size_t k = 0; k < 2 * pairs; k++) {
            /* some over ED_BATCH_MAX; under the sanitizer short strings,
             * and one pair (the fourth) with both strings too long */
            size_t len = tk_next(&st) % 300;
            if (tk_small()) len = k / 2 == 3 ? 257 + k % 2 : len % 40;
            total += len;
            off[k + 1] = total;
        }
        char *chars = tk_malloc(total + 1);
        rand_string(chars, total, 3, &st);
        /* Malformed pairs: decreasing offsets, and one past the end. */
        size_t bad1 = pairs > 2 ? pairs / 2 : pairs;
        size_t bad2 = pairs > 2 ? pairs - 1 : pairs;
        if (bad1 < pairs && off[2 * bad1] > 0)
            off[2 * bad1 + 1] = off[2 * bad1] - 1;   /* b starts before a */
        size_t nchars = bad2 < pairs && total > 0 ? off[2 * bad2 + 2] - 1
                                                  : total;
        char *ds = tk_dev_bytes(total + 1);
        size_t *doff = tk_dev_bytes((2 * pairs + 1) * sizeof *doff);
        int *dd = tk_dev_bytes(pairs * sizeof(int));
        /* poisoned with 0x5a5a5a5a, not -1: a pair the kernel skips must
         * not pass as rejected */
        TK_CUDA(cudaMemset(dd, 0x5a, pairs * sizeof(int)));
        tk_upload_bytes(ds, chars, total + 1);
        tk_upload_bytes(doff, off, (2 * pairs + 1) * sizeof *off);
        TK_CUDA(ed_batch(ds, nchars, doff, pairs, dd, 0));
        TK_CUDA(cudaDeviceSynchronize());
        int *got = tk_malloc(pairs * sizeof *got);
        tk_download_bytes(got, dd, pairs * sizeof *got);
        size_t bad = 0;
        /* The CPU's DP for every pair up to 1000; of 10^5, for every
         * seventh (seven is odd, so every warp of a block is sampled), and
         * for any other whose result is not within the bounds of a
         * distance, |la - lb| to max(la, lb) (the poison is not). */
        size_t every = pairs > 1000 ? 7 : 1;
        for (size_t k = 0; k < pairs; k++) {
            size_t a0 = off[2 * k], b0 = off[2 * k + 1], e = off[2 * k + 2];
            int want;
            if (a0 > b0 || b0 > e || e > nchars) want = -1;
            else {
                size_t la = b0 - a0, lb = e - b0;
                long lo = la > lb ? (long)(la - lb) : (long)(lb - la);
                long hi = la > lb ? (long)la : (long)lb;
                if ((la < lb ? la : lb) > ED_BATCH_MAX) want = -1;
                else if (k % every && got[k] >= lo && got[k] <= hi) continue;
                else want = ed_ref(chars + a0, la, chars + b0, lb);
            }
            if (got[k] != want && bad++ < 5)
                print_error("batch of %zu: pair %zu: %d, expected %d (seed "
                            "%llu)\n", pairs, k, got[k], want,
                            (unsigned long long)seed);
        }
        assert_int_equal(bad, 0);
        tk_free(ds);
        tk_free(doff);
        tk_free(dd);
        free(off);
        free(chars);
        free(got);
    }
}

/* The refusals editdist.h promises before a launcher touches the device,
 * on the pointers given: p the characters, w the workspace, off the
 * offsets, dist the result (fake ones on the CPU, real buffers on a GPU,
 * where the caller then checks that dist was not written). */
static void ed_refusals_before_launch(const char *p, int *w,
                                      const size_t *off, int *dist)
{
    cudaError_t (*const with_work[2])(const char *, size_t, const char *,
                                      size_t, int *, int *, cudaStream_t) =
        {ed_diagonals, ed_tiled};
    const size_t too_many = (size_t)8 * 0x7fffffff + 1;   /* 2^31 blocks */
    for (int k = 0; k < 2; k++) {
        cudaError_t (*f)(const char *, size_t, const char *, size_t, int *,
                         int *, cudaStream_t) = with_work[k];
        TK_REFUSED(f(p, 1, p, 1, w, NULL, 0));
        TK_REFUSED(f(NULL, 1, p, 1, w, dist, 0));
        TK_REFUSED(f(p, 1, NULL, 1, w, dist, 0));
        TK_REFUSED(f(p, ED_MAX_LEN + 1, p, 1, w, dist, 0));
        TK_REFUSED(f(p, 1, p, ED_MAX_LEN + 1, w, dist, 0));
        TK_REFUSED(f(p, SIZE_MAX, p, SIZE_MAX, w, dist, 0));
        TK_REFUSED(f(p, 1, p, 1, NULL, dist, 0));
    }
    TK_REFUSED(ed_block(p, 1, p, 1, NULL, 0));
    TK_REFUSED(ed_block(NULL, 1, p, 1, dist, 0));
    TK_REFUSED(ed_block(p, 1, NULL, 1, dist, 0));
    TK_REFUSED(ed_block(p, ED_MAX_LEN + 1, p, 1, dist, 0));
    TK_REFUSED(ed_block(p, 1, p, ED_MAX_LEN + 1, dist, 0));
    /* the shorter string over ED_BLOCK_MAX, either one */
    TK_REFUSED(ed_block(p, 4001, p, 4001, dist, 0));
    TK_REFUSED(ed_block(p, ED_BLOCK_MAX + 1, p, 7000, dist, 0));
    TK_REFUSED(ed_block(p, 7000, p, ED_BLOCK_MAX + 1, dist, 0));
    TK_REFUSED(ed_batch(p, 10, NULL, 1, dist, 0));
    TK_REFUSED(ed_batch(p, 10, off, 1, NULL, 0));
    TK_REFUSED(ed_batch(NULL, 10, off, 1, dist, 0));
    /* more pairs than a grid of blocks holds */
    TK_REFUSED(ed_batch(p, 10, off, too_many, dist, 0));
    /* No pairs: nothing to do, before anything touches the device. */
    assert_int_equal(ed_batch(p, 10, off, 0, dist, 0), cudaSuccess);
    assert_int_equal(ed_batch(NULL, 0, off, 0, dist, 0), cudaSuccess);
}

/* CPU-side: the refusals that come before a launcher touches the device
 * (editdist.h), with pointers no GPU ever sees. */
static void ed_refused_on_the_cpu(void **s)
{
    (void)s;
    ed_refusals_before_launch(TK_FAKE(4096), TK_FAKE(16384), TK_FAKE(32768),
                              TK_FAKE(8192));
}

/* Every refusal of editdist.h on real buffers, and none of them writes
 * the distance: it keeps its poison. */
static void ed_bad_arguments(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    char *d = tk_dev_bytes(8000);
    int *dd = tk_dev_bytes(sizeof(int)), *w = tk_dev_bytes(64);
    size_t *doff = tk_dev_bytes(3 * sizeof(size_t));
    ed_refusals_before_launch(d, w, doff, dd);
    int got = 0;                         /* nothing written: still poison */
    TK_CUDA(cudaDeviceSynchronize());
    tk_download_bytes(&got, dd, sizeof got);
    assert_int_equal(got, -1);
    tk_free(d);
    tk_free(dd);
    tk_free(w);
    tk_free(doff);
}

/* One pair in a batch of one: its three offsets, nchars, the device
 * characters s (NULL allowed where nchars is 0); the distance written,
 * into a result poisoned with 0x5a5a5a5a (not -1, so that an unwritten
 * result cannot pass for a rejected pair). */
static int batch_of_one(const char *s, size_t nchars, size_t a0, size_t b0,
                        size_t e)
{
    size_t off[3] = {a0, b0, e};
    size_t *doff = tk_dev_bytes(sizeof off);
    int *dd = tk_dev_bytes(sizeof(int)), got;
    TK_CUDA(cudaMemset(dd, 0x5a, sizeof(int)));
    tk_upload_bytes(doff, off, sizeof off);
    TK_CUDA(ed_batch(s, nchars, doff, 1, dd, 0));
    TK_CUDA(cudaDeviceSynchronize());
    tk_download_bytes(&got, dd, sizeof got);
    tk_free(doff);
    tk_free(dd);
    return got;
}

/* Each way a pair can be malformed, alone in its batch, and the accepted
 * pairs at the edges: a shorter string of exactly ED_BATCH_MAX either way
 * round, empty strings, and a batch of empty strings with no characters
 * at all (s NULL, nchars 0). */
static void ed_batch_malformed_pairs(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    uint64_t seed = tk_seed(0), st = seed;
    const size_t nchars = 600;
    char *chars = tk_malloc(nchars);
    rand_string(chars, nchars, 3, &st);
    char *ds = tk_dev_bytes(nchars);
    tk_upload_bytes(ds, chars, nchars);
    assert_int_equal(batch_of_one(ds, nchars, 0, 10, 25),
                     ed_ref(chars, 10, chars + 10, 15));
    assert_int_equal(batch_of_one(ds, nchars, 20, 10, 30), -1);   /* a0 > b0 */
    assert_int_equal(batch_of_one(ds, nchars, 5, 30, 20), -1);    /* b0 > e */
    assert_int_equal(batch_of_one(ds, nchars, 590, 595, 601), -1);  /* e past */
    assert_int_equal(batch_of_one(ds, nchars, 601, 601, 601), -1);
    assert_int_equal(batch_of_one(ds, nchars, 0, 257, 600), -1);  /* 257, 343 */
    assert_int_equal(batch_of_one(ds, nchars, 0, 343, 600), -1);  /* 343, 257 */
    assert_int_equal(batch_of_one(ds, nchars, 0, 256, 600),
                     ed_ref(chars, 256, chars + 256, 344));
    assert_int_equal(batch_of_one(ds, nchars, 0, 344, 600),
                     ed_ref(chars, 344, chars + 344, 256));
    assert_int_equal(batch_of_one(ds, nchars, 7, 7, 7), 0);
    assert_int_equal(batch_of_one(ds, nchars, 3, 3, 50), 47);
    assert_int_equal(batch_of_one(ds, nchars, 600, 600, 600), 0);
    assert_int_equal(batch_of_one(NULL, 0, 0, 0, 0), 0);
    assert_int_equal(batch_of_one(NULL, 0, 0, 0, 1), -1);        /* e past */
    tk_free(ds);
    free(chars);
}

/* A pair whose longer string exceeds ED_MAX_LEN gets -1 too: 1 character
 * against 2^30, in a buffer that really has them (the kernel must not read
 * them). */
static void ed_batch_longer_than_max(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    TK_SKIP_UNDER_SANITIZER("a string of 2^30 characters");
    const size_t nchars = ED_MAX_LEN + 2;
    TK_REQUIRE_DEVICE_BYTES(nchars + ((size_t)1 << 26));
    char *ds = tk_dev_bytes(nchars);
    assert_int_equal(batch_of_one(ds, nchars, 0, 1, nchars), -1);
    assert_int_equal(batch_of_one(ds, nchars, 0, nchars - 1, nchars), -1);
    assert_int_equal(batch_of_one(ds, nchars, 1, 2, 4), 1);  /* 0xff, 0xff */
    tk_free(ds);
}

/* The CPU reference on answers known by hand, and on the full-table DP
 * (every entry kept) for random strings: no GPU needed. */
static void ref_known_answers(void **s)
{
    (void)s;
    assert_int_equal(ed_ref("", 0, "", 0), 0);
    assert_int_equal(ed_ref("abc", 3, "", 0), 3);
    assert_int_equal(ed_ref("", 0, "ab", 2), 2);
    assert_int_equal(ed_ref("kitten", 6, "sitting", 7), 3);
    assert_int_equal(ed_ref("sitting", 7, "kitten", 6), 3);
    assert_int_equal(ed_ref("intention", 9, "execution", 9), 5);
    uint64_t st = tk_seed(0);
    enum { L = 60 };
    static int D[L + 1][L + 1];
    for (int t = 0; t < 50; t++) {
        char a[L], b[L];
        size_t la = tk_next(&st) % (L + 1), lb = tk_next(&st) % (L + 1);
        rand_string(a, la, 3, &st);
        rand_string(b, lb, 3, &st);
        for (size_t i = 0; i <= la; i++)
            for (size_t j = 0; j <= lb; j++) {
                if (i == 0 || j == 0) { D[i][j] = (int)(i + j); continue; }
                int v = D[i - 1][j] + 1, w = D[i][j - 1] + 1;
                int x = D[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
                D[i][j] = v < w ? (v < x ? v : x) : (w < x ? w : x);
            }
        assert_int_equal(ed_ref(a, la, b, lb), D[la][lb]);
    }
    int l3[3] = {1, -1, -1}, r3[3] = {2, -1, -1};
    unsigned char v3[3] = {1, 2, 3};
    assert_true(tree_ref(l3, r3, v3, 3) == 25);
    int l1 = -1, r1 = -1;
    unsigned char v1 = 7;
    assert_true(tree_ref(&l1, &r1, &v1, 1) == 7);
    /* A cycle (1 -> 2 -> 1) ends: at most n visits. */
    int lc[3] = {1, 2, 1}, rc[3] = {-1, -1, -1};
    (void)tree_ref(lc, rc, v3, 3);
}

/* ---- root-to-leaf numbers ---------------------------------------------- */

enum { T_PATH_LEFT, T_PATH_ZIGZAG, T_COMPLETE, T_RANDOM, T_RANDOM_NEAR };
/* A tree of n nodes: node 0 the root, children after their parents.
 * T_RANDOM attaches each node to any earlier node with a free slot;
 * T_RANDOM_NEAR to one of the 64 nodes before it (a deep random tree whose
 * CPU walk stays in cache: 10^7 nodes in well under a second). */
static void make_tree(int shape, size_t n, int *left, int *right,
                      unsigned char *val, uint64_t *st)
{
    for (size_t i = 0; i < n; i++) {
        left[i] = right[i] = -1;
        val[i] = (unsigned char)(tk_next(st) % 10);
    }
    for (size_t i = 1; i < n; i++) {
        if (shape == T_PATH_LEFT) left[i - 1] = (int)i;
        else if (shape == T_PATH_ZIGZAG) {
            if (i % 2) left[i - 1] = (int)i; else right[i - 1] = (int)i;
        } else if (shape == T_COMPLETE) {
            size_t p = (i - 1) / 2;
            if (i % 2) left[p] = (int)i; else right[p] = (int)i;
        } else {   /* attach to a random earlier node with a free slot */
            for (;;) {
                size_t span = shape == T_RANDOM || i < 64 ? i : 64;
                size_t p = i - 1 - tk_next(st) % span;
                int side = (int)(tk_next(st) % 2);
                int *slot = side ? &right[p] : &left[p];
                if (*slot < 0) { *slot = (int)i; break; }
                slot = side ? &left[p] : &right[p];
                if (*slot < 0) { *slot = (int)i; break; }
            }
        }
    }
}

/* A tree of n nodes on the device, with its work and its sum poisoned. */
typedef struct {
    size_t n;
    int *dl, *dr;
    unsigned char *dv;
    void *work;
    unsigned long long *dsum;
} tree_dev;
static tree_dev tree_upload(const int *left, const int *right,
                            const unsigned char *val, size_t n)
{
    tree_dev t = {n, tk_dev_bytes(n * sizeof(int)),
                  tk_dev_bytes(n * sizeof(int)), tk_dev_bytes(n),
                  tk_dev_bytes(TREE_WORK_BYTES(n)),
                  tk_dev_bytes(sizeof(unsigned long long))};
    tk_upload_bytes(t.dl, left, n * sizeof(int));
    tk_upload_bytes(t.dr, right, n * sizeof(int));
    tk_upload_bytes(t.dv, val, n);
    return t;
}
static cudaError_t tree_launch(const tree_dev *t, cudaStream_t stream)
{
    return tree_path_sum(t->dl, t->dr, t->dv, t->n, t->work, t->dsum,
                         stream);
}
/* The sum, once the launch is done.  Frees the tree. */
static uint64_t tree_result(tree_dev *t)
{
    unsigned long long sum = 0;
    TK_CUDA(cudaDeviceSynchronize());
    tk_download_bytes(&sum, t->dsum, sizeof sum);
    tk_free(t->dl); tk_free(t->dr); tk_free(t->dv); tk_free(t->work);
    tk_free(t->dsum);
    return sum;
}
static uint64_t tree_gpu(const int *left, const int *right,
                         const unsigned char *val, size_t n)
{
    tree_dev t = tree_upload(left, right, val, n);
    TK_CUDA(tree_launch(&t, 0));
    return tree_result(&t);
}

static const char *tname[] = {"left path", "zig-zag path", "complete",
                              "random", "random (parents near)"};
static void check_tree(int shape, size_t n, int round)
{
    uint64_t seed = tk_seed(round), st = seed;
    int *left = tk_malloc(n * sizeof(int)), *right = tk_malloc(n * sizeof(int));
    unsigned char *val = tk_malloc(n);
    make_tree(shape, n, left, right, val, &st);
    uint64_t want = tree_ref(left, right, val, n);
    uint64_t got = tree_gpu(left, right, val, n);
    if (got != want)
        print_error("%s tree of %zu nodes: %llu, expected %llu (seed %llu)\n",
                    tname[shape], n, (unsigned long long)got,
                    (unsigned long long)want, (unsigned long long)seed);
    assert_true(got == want);
    free(left); free(right); free(val);
}

static void tree_shapes(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    const size_t big = tk_small() ? 5000 : 1000000;
    for (int round = 0; round < 2; round++) {
        check_tree(T_RANDOM, 1, round);
        check_tree(T_PATH_LEFT, 2, round);
        check_tree(T_PATH_LEFT, big, round);
        check_tree(T_PATH_ZIGZAG, big, round);
        check_tree(T_COMPLETE, 7, round);
        check_tree(T_COMPLETE, tk_small() ? 4095 : ((size_t)1 << 20) - 1, round);
        const size_t rs[] = {3, 33, 1000, 100000, 1000000};
        for (size_t k = 0; k < 5; k++) {
            if (tk_small() && rs[k] > 10000) continue;
            check_tree(T_RANDOM, rs[k], round);
        }
        if (!tk_small() && round == 0)
            check_tree(T_RANDOM_NEAR, 10000000, round);
        check_tree(T_RANDOM_NEAR, tk_small() ? 5000 : 100000, round);
    }
}

/* A single node, and 30 nines: 999...9 (30 digits) mod 2^64. */
static void tree_known_sums(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    int l1 = -1, r1 = -1;
    unsigned char v1 = 7;
    assert_true(tree_gpu(&l1, &r1, &v1, 1) == 7);
    int left[30], right[30];
    unsigned char val[30];
    uint64_t want = 0;
    for (int i = 0; i < 30; i++) {
        left[i] = i + 1 < 30 ? i + 1 : -1;
        right[i] = -1;
        val[i] = 9;
        want = want * 10 + 9;   /* wraps mod 2^64 */
    }
    assert_true(want == tree_ref(left, right, val, 30));
    assert_true(tree_gpu(left, right, val, 30) == want);
    /* Two leaves: 12 + 13 = 25. */
    int l3[3] = {1, -1, -1}, r3[3] = {2, -1, -1};
    unsigned char v3[3] = {1, 2, 3};
    assert_true(tree_ref(l3, r3, v3, 3) == 25);
    assert_true(tree_gpu(l3, r3, v3, 3) == 25);
}

/* ---- nodes that the root does not reach -------------------------------- */

/* A tree of make_tree's (children after parents), `cuts` links cut, then
 * renamed: the CPU reference (and, with gpu, the pointer jumping) against
 * the sum by index order of tree_cases.h.  bytes: any byte as a value. */
static void check_detached(int gpu, int shape, size_t n, size_t cuts,
                           int bytes, int round)
{
    uint64_t seed = tk_seed(round), st = seed;
    int *left = tk_malloc(n * sizeof(int)), *right = tk_malloc(n * sizeof(int));
    unsigned char *val = tk_malloc(n);
    make_tree(shape, n, left, right, val, &st);
    if (bytes)
        for (size_t i = 0; i < n; i++) val[i] = (unsigned char)tk_next(&st);
    tc_detach(left, right, n, cuts, &st);
    uint64_t want = tc_sum_by_index(left, right, val, n);
    tc_relabel(left, right, val, n, &st);
    uint64_t ref = tree_ref(left, right, val, n);
    uint64_t got = gpu ? tree_gpu(left, right, val, n) : ref;
    if (ref != want || got != want)
        print_error("%s tree of %zu nodes, %zu cuts, %s: reference %llu, "
                    "GPU %llu, expected %llu (seed %llu)\n", tname[shape], n,
                    cuts, bytes ? "bytes" : "digits", (unsigned long long)ref,
                    (unsigned long long)got, (unsigned long long)want,
                    (unsigned long long)seed);
    assert_true(ref == want);
    assert_true(got == want);
    free(left); free(right); free(val);
}

/* The cases of nodes that node 0 does not reach, at every size. */
static void detached_cases(int gpu)
{
    const size_t big = tk_small() ? 5000 : gpu ? 1000000 : 100000;
    for (int round = 0; round < 2; round++)
        for (int bytes = 0; bytes < 2; bytes++) {
            const size_t rs[] = {2, 3, 33, 257, 1000, 100000, big};
            for (size_t k = 0; k < sizeof rs / sizeof *rs; k++) {
                if (rs[k] > big) continue;
                check_detached(gpu, T_RANDOM, rs[k], rs[k] / 10 + 1, bytes,
                               round);
                check_detached(gpu, T_RANDOM, rs[k], rs[k], bytes, round);
            }
            /* deep cut-off paths: a path cut once or a few times, a deep
             * random tree cut a thousand times, a complete tree */
            check_detached(gpu, T_PATH_LEFT, big, 1, bytes, round);
            check_detached(gpu, T_PATH_ZIGZAG, big, 3, bytes, round);
            check_detached(gpu, T_RANDOM_NEAR, big, 1000, bytes, round);
            check_detached(gpu, T_COMPLETE, tk_small() ? 4095 : 65535, 100,
                           bytes, round);
        }
}

/* CPU-side: the reference sums only what node 0 reaches: the forests of
 * tree_cases.h, and random trees with cut-off subtrees, renamed, against
 * the sum by index order. */
static void ref_unreachable_nodes(void **s)
{
    (void)s;
    tc_check_forests(tc_sum_by_index, "sum by index");
    tc_check_forests(tree_ref, "tree_ref");
    detached_cases(0);
}

/* The GPU sums only what node 0 reaches: the same cases. */
static void tree_unreachable_nodes(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    tc_check_forests(tree_gpu, "tree_path_sum");
    detached_cases(1);
}

/* A malformed tree (a node with two parents, a cycle, a node its own
 * child) gives an unspecified sum, but the call succeeds and stays in
 * bounds (make sanitize's memcheck sees any access outside); the
 * reference ends.  Small cases by hand, then random trees with random
 * extra links. */
static void tree_malformed_stays_in_bounds(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    int l1[4] = {1, 2, 3, 1}, r1[4] = {-1, -1, -1, -1};   /* 1 -> 2 -> 3 -> 1 */
    int l2[3] = {1, 1, -1}, r2[3] = {2, -1, -1};          /* 1 its own child */
    int l3[4] = {1, 3, -1, -1}, r3[4] = {2, -1, 3, -1};   /* 3: two parents */
    int l4[3] = {-1, 2, 1}, r4[3] = {-1, -1, -1};         /* a cycle apart */
    unsigned char v[4] = {1, 2, 3, 4};
    (void)tree_ref(l1, r1, v, 4);
    (void)tree_gpu(l1, r1, v, 4);
    (void)tree_ref(l2, r2, v, 3);
    (void)tree_gpu(l2, r2, v, 3);
    (void)tree_ref(l3, r3, v, 4);
    (void)tree_gpu(l3, r3, v, 4);
    (void)tree_ref(l4, r4, v, 3);
    (void)tree_gpu(l4, r4, v, 3);
    const size_t ns[] = {2, 33, 1000, tk_small() ? 5000 : 100000};
    for (size_t k = 0; k < sizeof ns / sizeof *ns; k++) {
        size_t n = ns[k];
        uint64_t st = tk_seed(1);
        int *left = tk_malloc(n * sizeof(int)), *right = tk_malloc(n * sizeof(int));
        unsigned char *val = tk_malloc(n);
        make_tree(T_RANDOM, n, left, right, val, &st);
        for (size_t x = 0; x < n / 4 + 1; x++) {   /* random extra links */
            size_t p = tk_next(&st) % n;
            *(tk_next(&st) % 2 ? &left[p] : &right[p]) =
                (int)(tk_next(&st) % n);
        }
        (void)tree_ref(left, right, val, n);
        (void)tree_gpu(left, right, val, n);       /* succeeds: TK_CUDA */
        free(left); free(right); free(val);
    }
}

/* Every refusal of tree.h (tree_cases.h), on the pointers given: fake ones
 * on the CPU, real buffers on a GPU, where the caller then checks that sum
 * was not written. */
static void tree_refusals(const int *d, const unsigned char *v, char *w,
                          unsigned long long *sum)
{
    TC_REFUSALS(TK_REFUSED, tree_path_sum, d, v, w, sum);
}

/* CPU-side: every refusal of tree.h, with pointers no GPU ever sees. */
static void tree_bad_arguments(void **s)
{
    (void)s;
    tree_refusals(TK_FAKE(4096), TK_FAKE(8192), TK_FAKE(16384),
                  TK_FAKE(32768));
}

/* The same refusals on real buffers write nothing: the sum keeps its
 * poison. */
static void tree_refusals_write_nothing(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    int *d = tk_dev_bytes(64);
    unsigned long long *sum = tk_dev_bytes(8), got = 0;
    char *w = tk_dev_bytes(TREE_WORK_BYTES(4) + 8);
    tree_refusals(d, (const unsigned char *)d, w, sum);
    TK_CUDA(cudaDeviceSynchronize());
    tk_download_bytes(&got, sum, sizeof got);
    assert_true(got == ~0ull);
    tk_free(d); tk_free(sum); tk_free(w);
}

/* ---- stream order ------------------------------------------------------ */

/* Every launcher queued behind a closed gate: each edit-distance version
 * of variants.h on a pair of 100 and 150 letters (2 x 3 tiles) and on a
 * pair with an empty string (the launchers' stored answer), and the
 * pointer jumping on a random tree.  None may have written its result or
 * its work when it returns; once the gate opens, each result is the CPU's.
 * The strings are short so that the launches queued behind the gate, some
 * 280 of them, stay well within what a stream holds without blocking the
 * host. */
static void interview_launchers_follow_the_stream(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    uint64_t seed = tk_seed(1), st = seed;
    char a[100], b[150];
    rand_string(a, sizeof a, 4, &st);
    rand_string(b, sizeof b, 4, &st);
    const size_t la[2] = {sizeof a, 0}, lb[2] = {sizeof b, 7};
    const int want[2] = {ed_ref(a, la[0], b, lb[0]), 7};
    ed_pair p[ED_NVERSIONS][2];
    for (int how = 0; how < ED_NVERSIONS; how++)
        for (int k = 0; k < 2; k++)
            p[how][k] = ed_upload(how, a, la[k], b, lb[k]);
    enum { N = 1000 };
    int left[N], right[N];
    unsigned char val[N];
    make_tree(T_RANDOM, N, left, right, val, &st);
    const uint64_t tree_want = tree_ref(left, right, val, N);
    tree_dev t = tree_upload(left, right, val, N);
    tk_gate g = tk_gate_close();
    for (int how = 0; how < ED_NVERSIONS; how++)
        for (int k = 0; k < 2; k++) TK_CUDA(ed_launch(&p[how][k], g.s));
    TK_CUDA(tree_launch(&t, g.s));
    for (int how = 0; how < ED_NVERSIONS; how++)
        for (int k = 0; k < 2; k++) {
            const ed_pair *q = &p[how][k];
            int held = tk_still_poisoned(q->dd, sizeof(int)) &&
                       (!q->work ||
                        tk_still_poisoned(q->work, q->wi * sizeof(int)));
            if (!held)
                print_error("%s (lengths %zu, %zu) wrote before its stream "
                            "ran\n", ed_launcher[how], q->la, q->lb);
            assert_true(held);
        }
    assert_true(tk_still_poisoned(t.dsum, sizeof *t.dsum));
    assert_true(tk_still_poisoned(t.work, TREE_WORK_BYTES(N)));
    tk_gate_open(&g);
    for (int how = 0; how < ED_NVERSIONS; how++)
        for (int k = 0; k < 2; k++) {
            int got = ed_result(&p[how][k]);
            if (got != want[k])
                print_error("%s on the gated stream: %d, expected %d (seed "
                            "%llu)\n", ed_launcher[how], got, want[k],
                            (unsigned long long)seed);
            assert_int_equal(got, want[k]);
        }
    assert_true(tree_result(&t) == tree_want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ref_known_answers),
        cmocka_unit_test(ref_unreachable_nodes),
        cmocka_unit_test(ed_refused_on_the_cpu),
        cmocka_unit_test(tree_bad_arguments),
        cmocka_unit_test(ed_bad_arguments),
        cmocka_unit_test(ed_edge_cases),
        cmocka_unit_test(ed_random),
        cmocka_unit_test(ed_long_known),
        cmocka_unit_test(ed_batches),
        cmocka_unit_test(ed_batch_malformed_pairs),
        cmocka_unit_test(ed_batch_longer_than_max),
        cmocka_unit_test(tree_refusals_write_nothing),
        cmocka_unit_test(tree_known_sums),
        cmocka_unit_test(tree_shapes),
        cmocka_unit_test(tree_unreachable_nodes),
        cmocka_unit_test(tree_malformed_stays_in_bounds),
        cmocka_unit_test(interview_launchers_follow_the_stream),
    };
    return tk_run_tests("interview", tests);
}
