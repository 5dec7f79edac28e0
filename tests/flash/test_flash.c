/* test_flash.c -- the bf16 attention chapter's tests: every launcher
 * against a double-precision CPU reference of the same bf16 inputs, with
 * the chapter's bound (bf16 P and a bf16 output, the scores' fp32 error),
 * in both layouts, causal and not, with the log-sum-exp, on edge shapes
 * (Sq != Sk, rows that see no key, Sq or Sk = 1, partial tiles) and large
 * ones, huge scores, poisoned outputs with guards; the refusals of the
 * header; the empty cases; a stream; the split keys at every share
 * count, with their rule, workspace and refusals; and the two listings
 * that are wrong on purpose. */
#define _POSIX_C_SOURCE 200809L /* popen, for the provenance lines */
#include "testkit.h"
#include "variants.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct fl_variant {
    const char *name;
    flash_fn fn;
    const char *listing;
    int cc;
};
#define FL_TEST_ENTRY(name, fn, listing, cc) {name, fn, listing, cc},
static const struct fl_variant variants[] = {FLASH_VARIANTS(FL_TEST_ENTRY)};
#define NVARIANTS (sizeof variants / sizeof variants[0])

/* The numbers the chapter quotes from a test run (outputs outside the
 * bound, the worst ratios of error to bound) go, when BOOK_GPU is set
 * and no BOOK_FILTER narrows the run, to figures/data/$BOOK_GPU/
 * flash-tests.csv, headed by tools/provenance.sh: id,value. */
static FILE *g_csv;
static char g_csv_path[256];
static void csv_row(const char *id, double value)
{
    const char *gpu = getenv("BOOK_GPU");
    if (gpu == NULL || *gpu == 0 || tk_env("BOOK_FILTER") || tk_small())
        return;
    if (g_csv == NULL) {
        snprintf(g_csv_path, sizeof g_csv_path,
                 "figures/data/%s/flash-tests.csv.tmp", gpu);
        if ((g_csv = fopen(g_csv_path, "w")) == NULL) return;
        FILE *pv = popen("tools/provenance.sh 'test run: build/flash/test "
                         "(tests/flash/test_flash.c)'", "r");
        char line[512];
        while (pv != NULL && fgets(line, sizeof line, pv) != NULL)
            fputs(line, g_csv);
        if (pv != NULL) pclose(pv);
        fputs("id,value\n", g_csv);
    }
    fprintf(g_csv, "%s,%.6g\n", id, value);
}
static void csv_close(void)
{
    if (g_csv == NULL) return;
    fclose(g_csv);
    char to[256];
    snprintf(to, sizeof to, "%s", g_csv_path);
    to[strlen(to) - 4] = 0;  /* without .tmp */
    if (rename(g_csv_path, to) == 0) printf("wrote %s\n", to);
}

/* The element offset of (head bh, row, 0) in an array of S rows a head,
 * written out for each layout (the test's own, not the launcher's). */
static size_t at(flash_dims a, size_t bh, size_t row, size_t S)
{
    size_t b = bh / a.H, h = bh % a.H;
    if (a.layout == FLASH_BHSD) return ((b * a.H + h) * S + row) * a.D;
    return ((b * S + row) * a.H + h) * a.D;
}

/* A problem: bf16 inputs on the host (q, k uniform in [-r, r), v in
 * [vlo, vhi) plus tile_step times the index of the key's tile of 128),
 * and per row the reference output, sum w |v| (w the softmax weights),
 * log-sum-exp and the bound on the error of the exponent. */
struct problem {
    flash_dims a;
    uint16_t *q, *k, *v;
    double *ref, *absref, *lse, *eps; /* [bh][row][D] and [bh][row] */
};
static void reference(struct problem *p);
static int g_no_reference;  /* make_problem_v leaves the reference out */
static void make_problem_v(struct problem *p, flash_dims a, double r,
                           double vlo, double vhi, double tile_step,
                           uint64_t *st)
{
    const size_t nq = a.B * a.H * a.Sq * a.D, nk = a.B * a.H * a.Sk * a.D;
    p->a = a;
    p->q = tk_malloc(nq * 2 + 2);
    p->k = tk_malloc(nk * 2 + 2);
    p->v = tk_malloc(nk * 2 + 2);
    for (size_t i = 0; i < nq; i++)
        p->q[i] = tk_to_bf16((float)tk_uniform(st, -r, r));
    for (size_t i = 0; i < nk; i++) {
        /* The key's row, in either layout, for its tile. */
        const size_t key = a.layout == FLASH_BHSD ? i / a.D % a.Sk
                                                  : i / (a.D * a.H) % a.Sk;
        p->k[i] = tk_to_bf16((float)tk_uniform(st, -r, r));
        p->v[i] = tk_to_bf16((float)(tk_uniform(st, vlo, vhi) +
                                     tile_step * (double)(key / 128)));
    }
    if (!g_no_reference) reference(p);
}
static void make_problem(struct problem *p, flash_dims a, double r,
                         uint64_t *st)
{
    make_problem_v(p, a, r, -1, 1, 0, st);
}
/* The reference of p's inputs, in double precision. */
static void reference(struct problem *p)
{
    const flash_dims a = p->a;
    const size_t nq = a.B * a.H * a.Sq * a.D;
    p->ref = tk_malloc(nq * sizeof(double) + 8);
    p->absref = tk_malloc(nq * sizeof(double) + 8);
    p->lse = tk_malloc(a.B * a.H * a.Sq * sizeof(double) + 8);
    p->eps = tk_malloc(a.B * a.H * a.Sq * sizeof(double) + 8);
    double *s = tk_malloc(a.Sk * sizeof(double) + 8);
    const double scale = 1.0 / sqrt((double)a.D);
    for (size_t bh = 0; bh < a.B * a.H; bh++)
        for (size_t i = 0; i < a.Sq; i++) {
            const size_t row = bh * a.Sq + i;
            double *o = p->ref + row * a.D, *ao = p->absref + row * a.D;
            memset(o, 0, a.D * sizeof *o);
            memset(ao, 0, a.D * sizeof *ao);
            long long last = (long long)a.Sk - 1;  /* the last key seen */
            if (a.causal) last = (long long)i + (long long)a.Sk - (long long)a.Sq;
            if (last >= (long long)a.Sk) last = (long long)a.Sk - 1;
            double m = -INFINITY, sabs = 0;
            const uint16_t *qi = p->q + at(a, bh, i, a.Sq);
            for (long long j = 0; j <= last; j++) {
                const uint16_t *kj = p->k + at(a, bh, (size_t)j, a.Sk);
                double x = 0, ax = 0;
                for (size_t d = 0; d < a.D; d++) {
                    double t = tk_from_bf16(qi[d]) * tk_from_bf16(kj[d]);
                    x += t;
                    ax += fabs(t);
                }
                s[j] = x * scale;
                m = fmax(m, s[j]);
                sabs = fmax(sabs, ax * scale);
            }
            double l = 0;
            for (long long j = 0; j <= last; j++) {
                double w = exp(s[j] - m);
                const uint16_t *vj = p->v + at(a, bh, (size_t)j, a.Sk);
                l += w;
                for (size_t d = 0; d < a.D; d++) {
                    double x = tk_from_bf16(vj[d]);
                    o[d] += w * x;
                    ao[d] += w * fabs(x);
                }
            }
            for (size_t d = 0; l > 0 && d < a.D; d++) {
                o[d] /= l;
                ao[d] /= l;
            }
            p->lse[row] = l > 0 ? m + log(l) : -INFINITY;
            /* The fp32 score: a dot product of D exact products summed
             * by the tensor cores (truncating, u = 2^-23, as the
             * tensor-gemm chapter's model says), then a product by the
             * rounded scale; exp2f's own error. */
            p->eps[row] = 1.5 * (a.D * 0x1p-23 + 0x1p-22) * sabs + 0x1p-21;
        }
    free(s);
}
static void free_problem(struct problem *p)
{
    free(p->q); free(p->k); free(p->v);
    free(p->ref); free(p->absref); free(p->lse); free(p->eps);
}

/* Run v on p (lse written when with_lse) and check every element against
 * the bound: |o - ref| <= (2^-8 + 2 eps + Sk 2^-23) sum w|v| + 2^-8 |ref|
 * (bf16 P, the exponent's error, fp32 sums, the bf16 output), rows that
 * see no key exactly 0 with lse -inf, and the guards before and past o
 * and lse untouched.  NaN fails.  Returns the number of failures. */
enum { GUARD = 64 };  /* elements: 128 bytes of o, 256 of lse */
static size_t run_and_check(const struct fl_variant *v, const struct problem *p,
                            int with_lse, cudaStream_t stream,
                            double *worst)
{
    const flash_dims a = p->a;
    const size_t nq = a.B * a.H * a.Sq * a.D, nk = a.B * a.H * a.Sk * a.D;
    const size_t rows = a.B * a.H * a.Sq;
    void *dq = tk_dev_bytes(nq * 2), *dk = tk_dev_bytes(nk * 2 + 16);
    void *dv = tk_dev_bytes(nk * 2 + 16);
    /* o and lse start GUARD elements into their buffers (o stays 16-byte
     * aligned): a write before them shows as well as one past. */
    char *ob = tk_dev_bytes(nq * 2 + 4 * GUARD);
    float *lb = tk_dev_floats(rows + 2 * GUARD);
    void *d_o = ob + 2 * GUARD;
    float *dl = lb + GUARD;
    tk_upload_bytes(dq, p->q, nq * 2);
    tk_upload_bytes(dk, p->k, nk * 2);
    tk_upload_bytes(dv, p->v, nk * 2);
    TK_CUDA(cudaDeviceSynchronize());
    TK_CUDA(v->fn(dq, dk, dv, d_o, with_lse ? dl : NULL, a, stream));
    TK_CUDA(cudaDeviceSynchronize());
    uint16_t *o0 = tk_malloc(nq * 2 + 4 * GUARD), *o = o0 + GUARD;
    float *lse0 = tk_malloc((rows + 2 * GUARD) * 4), *lse = lse0 + GUARD;
    tk_download_bytes(o0, ob, nq * 2 + 4 * GUARD);
    tk_download_bytes(lse0, lb, (rows + 2 * GUARD) * 4);
    size_t bad = 0;
    for (size_t bh = 0; bh < a.B * a.H; bh++)
        for (size_t i = 0; i < a.Sq; i++) {
            const size_t row = bh * a.Sq + i;
            const double e = p->eps[row];
            const uint16_t *oi = o + at(a, bh, i, a.Sq);
            for (size_t d = 0; d < a.D; d++) {
                double r = p->ref[row * a.D + d], g = tk_from_bf16(oi[d]);
                double tol = (0x1p-8 + 2 * e + a.Sk * 0x1p-23) *
                                 p->absref[row * a.D + d] + 0x1p-8 * fabs(r);
                double err = fabs(g - r);
                if (tol > 0 && err / tol > *worst) *worst = err / tol;
                if (!(err <= tol)) {
                    if (bad < 5)
                        print_message("%s: o[bh %zu][row %zu][%zu] is %.7g, "
                                      "expected %.7g (tolerance %.3g)\n",
                                      v->name, bh, i, d, g, r, tol);
                    bad++;
                }
            }
            if (!with_lse) continue;
            double r = p->lse[row], g = lse[row];
            double tol = 2 * e + a.Sk * 0x1p-23 + 0x1p-20 * (1 + fabs(r));
            int ok = isinf(r) ? g == r : fabs(g - r) <= tol;
            if (!ok) {
                if (bad < 5)
                    print_message("%s: lse[bh %zu][row %zu] is %.9g, "
                                  "expected %.9g\n", v->name, bh, i, g, r);
                bad++;
            }
        }
    for (size_t i = 0; i < GUARD; i++)
        if (o0[i] != 0xffff || o[nq + i] != 0xffff) { bad++; print_message("%s: o's guard written (before or after)\n", v->name); break; }
    uint32_t u;
    for (size_t i = 0; i < GUARD; i++) {
        memcpy(&u, &lse0[i], 4);
        if (u != 0xffffffffu) { bad++; print_message("%s: lse written before its rows\n", v->name); break; }
    }
    for (size_t i = with_lse ? rows : 0; i < rows + GUARD; i++) {
        memcpy(&u, &lse[i], 4);
        if (u != 0xffffffffu) { bad++; print_message("%s: lse written past its rows (or when NULL)\n", v->name); break; }
    }
    free(o0); free(lse0);
    tk_free(dq); tk_free(dk); tk_free(dv); tk_free(ob); tk_free(lb);
    return bad;
}

/* Every shape of a list, in both layouts (or, with one_layout, in one,
 * alternating), lse on for two of three (every one with all_lse); q and
 * k in [-r, r), v in [vlo, vhi); with the fixed seed, then (but under the
 * sanitizer) with the fresh one tk_seed prints.  The worst ratio of error
 * to bound goes to the CSV as VARIANT/CLS/worst_ratio. */
struct shape { size_t B, H, Sq, Sk, D; int causal; };
static void run_shapes(const struct fl_variant *v, const struct shape *sh,
                       size_t n, double r, double vlo, double vhi,
                       int one_layout, int all_lse, const char *cls)
{
    size_t bad = 0;
    double worst = 0;
    for (int round = 0; round < (tk_small() ? 1 : 2); round++)
    for (int layout = 0; layout < 2; layout++)
        for (size_t t = 0; t < n; t++) {
            if (one_layout && (int)(t % 2) != layout) continue;
            flash_dims a = {sh[t].B, sh[t].H, sh[t].Sq, sh[t].Sk, sh[t].D,
                            sh[t].causal, (flash_layout)layout};
            const uint64_t seed = tk_seed(round);
            uint64_t st = seed + 977 * t + layout;
            struct problem p;
            make_problem_v(&p, a, r, vlo, vhi, 0, &st);
            size_t b = run_and_check(v, &p, all_lse || (t + layout) % 3 != 2,
                                     0, &worst);
            if (b)
                print_message("%s: %zu wrong at B%zu H%zu Sq%zu Sk%zu D%zu%s "
                              "%s, seed %llu\n", v->name, b, a.B, a.H, a.Sq,
                              a.Sk, a.D, a.causal ? " causal" : "",
                              layout ? "BSHD" : "BHSD",
                              (unsigned long long)seed);
            bad += b;
            free_problem(&p);
        }
    print_message("%s: the largest error is %.3f of the bound (%s)\n",
                  v->name, worst, cls);
    char id[96];
    snprintf(id, sizeof id, "%s/%s/worst_ratio", v->name, cls);
    csv_row(id, worst);
    assert_int_equal(bad, 0);
}

static const struct shape edge[] = {
    {1, 1, 1, 1, 64, 0},     {1, 1, 1, 1, 128, 1},   {1, 2, 17, 33, 64, 0},
    {1, 2, 17, 33, 64, 1},   {2, 3, 130, 70, 128, 1}, {2, 3, 130, 70, 64, 0},
    {1, 2, 200, 1, 128, 0},  {1, 2, 200, 1, 64, 1},  {1, 1, 1, 300, 128, 0},
    {1, 1, 1, 300, 64, 1},   {2, 2, 129, 257, 64, 1}, {2, 2, 129, 257, 128, 0},
    {1, 1, 64, 64, 64, 1},   {1, 1, 128, 128, 128, 1}, {1, 1, 513, 512, 128, 1},
    {1, 3, 65, 129, 64, 1},
};
static const struct shape large[] = {
    {1, 2, 1024, 1024, 64, 0},  {1, 2, 1024, 1024, 64, 1},
    {1, 2, 1024, 1024, 128, 0}, {1, 2, 1024, 1024, 128, 1},
    {2, 1, 777, 2049, 128, 1},
};
static const struct shape huge_scores[] = {
    {1, 2, 300, 520, 64, 0}, {1, 2, 300, 520, 128, 1},
};
#define NSHAPES(x) (sizeof x / sizeof x[0])

static void edge_shapes(const struct fl_variant *v)
{
    TK_REQUIRE_LISTING(v->listing, v->cc);
    run_shapes(v, edge, NSHAPES(edge), 1.0, -1, 1, 0, 0, "edge");
}
static void large_shapes(const struct fl_variant *v)
{
    TK_REQUIRE_LISTING(v->listing, v->cc);
    TK_SKIP_UNDER_SANITIZER("large shapes take too long under the sanitizer");
    run_shapes(v, large, NSHAPES(large), 1.0, -1, 1, 1, 1, "large");
    /* A v of mean 1 and peaked weights (q, k in [-3, 3)): the output is
     * near 1, not near 0, so that a row sum off by a few percent, or a
     * key dropped or counted twice, moves it past the bound. */
    run_shapes(v, large, NSHAPES(large), 3.0, 0, 2, 1, 1, "nonzero_mean");
    /* Raw scores in the hundreds, scaled ones of standard deviation
     * about 48: q and k in [-12, 12).  About 3% of the scores pass exp's
     * overflow at 88.7, in every row. */
    run_shapes(v, huge_scores, NSHAPES(huge_scores), 12.0, -1, 1, 0, 0,
               "huge_scores");
}

/* One test of each kind per launcher, in the order of variants.h. */
static void mma64_edge_shapes(void **state) { (void)state; edge_shapes(&variants[0]); }
static void mma64_large_shapes(void **state) { (void)state; large_shapes(&variants[0]); }
static void mma_edge_shapes(void **state) { (void)state; edge_shapes(&variants[1]); }
static void mma_large_shapes(void **state) { (void)state; large_shapes(&variants[1]); }
static void wgmma_edge_shapes(void **state) { (void)state; edge_shapes(&variants[2]); }
static void wgmma_large_shapes(void **state) { (void)state; large_shapes(&variants[2]); }
static void wgmma_serial_edge_shapes(void **state) { (void)state; edge_shapes(&variants[3]); }
static void wgmma_serial_large_shapes(void **state) { (void)state; large_shapes(&variants[3]); }
static void wgmma_tiles_edge_shapes(void **state) { (void)state; edge_shapes(&variants[4]); }
static void wgmma_tiles_large_shapes(void **state) { (void)state; large_shapes(&variants[4]); }
static void best_edge_shapes(void **state) { (void)state; edge_shapes(&variants[5]); }
static void best_large_shapes(void **state) { (void)state; large_shapes(&variants[5]); }

/* The refusals, with pointers that are never dereferenced; the empty
 * problems, which write nothing; Sk = 0, which writes zeros and -inf. */
static void bad_arguments_and_empty_sizes(void **state)
{
    (void)state;
    TK_REQUIRE_GPU();
    const flash_dims ok = {1, 2, 64, 64, 64, 0, FLASH_BHSD};
    const size_t n = 2 * 64 * 64;
    char *dq = tk_dev_bytes(n * 2), *dk = tk_dev_bytes(n * 2);
    char *dv = tk_dev_bytes(n * 2), *d_o = tk_dev_bytes(n * 2);
    float *dl = tk_dev_floats(2 * 64 + 1);
    const size_t big = (size_t)1 << 31;
    for (size_t i = 0; i < NVARIANTS; i++) {
        flash_fn f = variants[i].fn;
        const book_bf16 *q = (void *)dq, *k = (void *)dk, *v = (void *)dv;
        book_bf16 *o = (void *)d_o;
        flash_dims a = ok;
        a.layout = (flash_layout)2; TK_REFUSED(f(q, k, v, o, dl, a, 0));
        a = ok; a.D = 32;  TK_REFUSED(f(q, k, v, o, dl, a, 0));
        a = ok; a.D = 256; TK_REFUSED(f(q, k, v, o, dl, a, 0));
        a = ok; a.D = 0;   TK_REFUSED(f(q, k, v, o, dl, a, 0));
        a = ok;
        TK_REFUSED(f(NULL, k, v, o, dl, a, 0));
        TK_REFUSED(f(q, NULL, v, o, dl, a, 0));
        TK_REFUSED(f(q, k, NULL, o, dl, a, 0));
        TK_REFUSED(f(q, k, v, NULL, dl, a, 0));
        TK_REFUSED(f((void *)(dq + 2), k, v, o, dl, a, 0));
        TK_REFUSED(f(q, (void *)(dk + 8), v, o, dl, a, 0));
        TK_REFUSED(f(q, k, (void *)(dv + 2), o, dl, a, 0));
        TK_REFUSED(f(q, k, v, (void *)(d_o + 2), dl, a, 0));
        TK_REFUSED(f(q, k, v, o, (float *)((char *)dl + 2), a, 0));
        TK_REFUSED(f(q, k, v, (void *)dq, dl, a, 0));  /* o is q */
        TK_REFUSED(f(q, k, v, (void *)(dk + 64 * 128), dl, a, 0));  /* in k */
        TK_REFUSED(f(q, k, v, o, (float *)(d_o + 256), a, 0));  /* lse in o */
        TK_REFUSED(f(q, k, v, (void *)(dv + 64 * 128), dl, a, 0));  /* in v */
        TK_REFUSED(f(q, k, v, o, (float *)(dq + 512), a, 0));  /* lse in q */
        TK_REFUSED(f(q, k, v, o, (float *)(dk + 4096), a, 0)); /* lse in k */
        TK_REFUSED(f(q, k, v, o, (float *)dv, a, 0));          /* lse in v */
        a = ok; a.B = big;  TK_REFUSED(f(q, k, v, o, dl, a, 0));
        a = ok; a.Sq = big; TK_REFUSED(f(q, k, v, o, dl, a, 0));
        a = ok; a.Sk = big; TK_REFUSED(f(q, k, v, o, dl, a, 0));
        a = ok; a.H = big;  TK_REFUSED(f(q, k, v, o, dl, a, 0));
        a = ok; a.B = 1u << 16; a.H = 1u << 16;
        TK_REFUSED(f(q, k, v, o, dl, a, 0));
        a = ok; a.B = 1u << 20; a.H = 1u << 10; a.Sq = 1u << 10;
        TK_REFUSED(f(q, k, v, o, dl, a, 0));  /* B H Sq / 128 past 2^31 */
        a = ok; a.B = 1u << 14; a.H = 1u << 10; a.Sq = 1u << 13;
        TK_REFUSED(f(q, k, v, o, dl, a, 0));  /* B H Sq / 64 past 2^31 */
        /* Empty: nothing written, any pointers. */
        a = ok; a.B = 0;  assert_int_equal(f(NULL, NULL, NULL, NULL, NULL, a, 0), cudaSuccess);
        a = ok; a.Sq = 0; assert_int_equal(f(NULL, NULL, NULL, NULL, NULL, a, 0), cudaSuccess);
        TK_CUDA(cudaDeviceSynchronize());
        uint16_t *h = tk_malloc(n * 2);
        tk_download_bytes(h, d_o, n * 2);
        for (size_t j = 0; j < n; j++) assert_int_equal(h[j], 0xffff);
        /* Sk = 0: zeros, and lse = -inf, with q, k and v NULL. */
        a = ok; a.Sk = 0;
        TK_CUDA(f(NULL, NULL, NULL, o, dl, a, 0));
        TK_CUDA(cudaDeviceSynchronize());
        float *hl = tk_malloc((2 * 64 + 1) * 4);
        tk_download_bytes(h, d_o, n * 2);
        tk_download(hl, dl, 2 * 64 + 1);
        for (size_t j = 0; j < n; j++) assert_int_equal(h[j], 0);
        for (size_t j = 0; j < 2 * 64; j++) assert_true(isinf(hl[j]) && hl[j] < 0);
        uint32_t u;
        memcpy(&u, &hl[2 * 64], 4);
        assert_int_equal(u, 0xffffffffu);
        free(h); free(hl);
        tk_poison(d_o, n * 2);
        tk_poison(dl, (2 * 64 + 1) * 4);
    }
    tk_free(dq); tk_free(dk); tk_free(dv); tk_free(d_o); tk_free(dl);
}

/* The best launcher on a stream of its own, after uploads on it. */
static void runs_on_a_stream(void **state)
{
    (void)state;
    TK_REQUIRE_ARCH(8, 0, "the bf16 attention launchers");
    const flash_dims a = {2, 3, 200, 333, 128, 1, FLASH_BSHD};
    uint64_t st = tk_seed(0);
    struct problem p;
    make_problem(&p, a, 1.0, &st);
    const size_t nq = a.B * a.H * a.Sq * a.D, nk = a.B * a.H * a.Sk * a.D;
    void *dq = tk_dev_bytes(nq * 2), *dk = tk_dev_bytes(nk * 2);
    void *dv = tk_dev_bytes(nk * 2), *d_o = tk_dev_bytes(nq * 2);
    cudaStream_t s;
    // The poison was written on the legacy stream, which a non-blocking
    // stream does not wait for.
    TK_CUDA(cudaDeviceSynchronize());
    TK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    TK_CUDA(cudaMemcpyAsync(dq, p.q, nq * 2, cudaMemcpyHostToDevice, s));
    TK_CUDA(cudaMemcpyAsync(dk, p.k, nk * 2, cudaMemcpyHostToDevice, s));
    TK_CUDA(cudaMemcpyAsync(dv, p.v, nk * 2, cudaMemcpyHostToDevice, s));
    TK_CUDA(flash_attention(dq, dk, dv, d_o, NULL, a, s));
    uint16_t *o = tk_malloc(nq * 2);
    TK_CUDA(cudaMemcpyAsync(o, d_o, nq * 2, cudaMemcpyDeviceToHost, s));
    TK_CUDA(cudaStreamSynchronize(s));
    TK_CUDA(cudaStreamDestroy(s));
    size_t bad = 0;
    for (size_t bh = 0; bh < a.B * a.H; bh++)
        for (size_t i = 0; i < a.Sq; i++)
            for (size_t d = 0; d < a.D; d++) {
                size_t row = bh * a.Sq + i;
                double r = p.ref[row * a.D + d];
                double g = tk_from_bf16(o[at(a, bh, i, a.Sq) + d]);
                double tol = (0x1p-8 + 2 * p.eps[row] + a.Sk * 0x1p-23) *
                                 p.absref[row * a.D + d] + 0x1p-8 * fabs(r);
                bad += !(fabs(g - r) <= tol);
            }
    assert_int_equal(bad, 0);
    free(o); free_problem(&p);
    tk_free(dq); tk_free(dk); tk_free(dv); tk_free(d_o);
}

/* Wrong on purpose: without the rescale of the running output, the keys
 * of tiles before a row's maximum grew keep their old weights.  With
 * four tiles of keys the maximum grows in most rows, and the output must
 * be wrong; the same shape with the rescale is right. */
static void no_rescale_is_wrong(void **state)
{
    (void)state;
    const struct fl_variant right = {"mma", flash_mma, "flash_mma.sm80.cu", 80};
    const struct fl_variant wrong = {"mma without the rescale",
                                     flash_mma_no_rescale,
                                     "flash_mma.sm80.cu", 80};
    TK_REQUIRE_LISTING(right.listing, right.cc);
    const flash_dims a = {1, 2, 256, 256, 64, 0, FLASH_BHSD};
    uint64_t st = tk_seed(0);
    struct problem p;
    make_problem(&p, a, 1.0, &st);
    double worst = 0;
    assert_int_equal(run_and_check(&right, &p, 1, 0, &worst), 0);
    worst = 0;
    size_t bad = run_and_check(&wrong, &p, 1, 0, &worst);
    print_message("without the rescale: %zu of %zu outputs outside the "
                  "bound, the worst %.1f times it\n", bad,
                  a.B * a.H * a.Sq * a.D, worst);
    csv_row("no_rescale/outside", (double)bad);
    csv_row("no_rescale/outputs", (double)(a.B * a.H * a.Sq * a.D));
    csv_row("no_rescale/worst_ratio", worst);
    assert_true(bad > 0);
    free_problem(&p);
}

/* The split keys through a flash_fn: g_split at g_splits shares, with a
 * workspace of exactly the bytes it asks for, poisoned (NaN), so that a
 * partial the merge reads but no block wrote shows. */
typedef cudaError_t (*split_fn)(const book_bf16 *, const book_bf16 *,
                                const book_bf16 *, book_bf16 *, float *,
                                flash_dims, int, void *, size_t,
                                cudaStream_t);
static split_fn g_split = flash_split;
static int g_splits = 1;
static cudaError_t split_call(const book_bf16 *q, const book_bf16 *k,
                              const book_bf16 *v, book_bf16 *o,
                              float *lse, flash_dims a, cudaStream_t stream)
{
    const size_t need = flash_split_work_bytes(a, g_splits);
    void *w = need ? tk_dev_bytes(need) : NULL;
    cudaError_t e = g_split(q, k, v, o, lse, a, g_splits, w, need, stream);
    if (w) {
        cudaError_t s = cudaDeviceSynchronize();
        tk_free(w);
        if (e == cudaSuccess) e = s;
    }
    return e;
}
static const struct fl_variant split_variant = {
    "split", split_call, "flash_mma.sm80.cu", 80};

/* Every share count from 1 to 16, and 33 and 64, on shapes where shares
 * are empty (more shares than key tiles, short causal tiles, Sk = 1),
 * rows see no key, and Sq = 1; the layout alternates, lse on for two
 * counts of three. */
static void split_every_count(void **state)
{
    (void)state;
    TK_REQUIRE_LISTING(split_variant.listing, split_variant.cc);
    static const struct shape sh[] = {
        {1, 4, 1, 1000, 128, 0}, {2, 2, 16, 777, 64, 1},
        {1, 2, 200, 70, 128, 1}, {1, 1, 130, 1, 64, 0},
        {1, 2, 129, 513, 64, 0}, {1, 1, 1, 4097, 64, 1},
    };
    static const int counts[] = {1, 2,  3,  4,  5,  6,  7,  8,  9, 10,
                                 11, 12, 13, 14, 15, 16, 33, 64};
    size_t bad = 0;
    double worst = 0;
    g_split = flash_split;
    for (size_t t = 0; t < NSHAPES(sh); t++)
        for (int layout = 0; layout < 2; layout++) {
            flash_dims a = {sh[t].B, sh[t].H, sh[t].Sq, sh[t].Sk, sh[t].D,
                            sh[t].causal, (flash_layout)layout};
            uint64_t st = tk_seed(0) + 31 * t + layout;
            struct problem p;
            make_problem(&p, a, 1.0, &st);
            for (size_t c = 0; c < NSHAPES(counts); c++) {
                if ((int)((t + c) % 2) != layout) continue;
                g_splits = counts[c];
                size_t b = run_and_check(&split_variant, &p, c % 3 != 2, 0,
                                         &worst);
                if (b)
                    print_message("split into %d: %zu wrong at B%zu H%zu "
                                  "Sq%zu Sk%zu D%zu%s %s\n", g_splits, b,
                                  a.B, a.H, a.Sq, a.Sk, a.D,
                                  a.causal ? " causal" : "",
                                  layout ? "BSHD" : "BHSD");
                bad += b;
            }
            free_problem(&p);
        }
    print_message("split: the largest error is %.3f of the bound\n", worst);
    csv_row("split/every_count/worst_ratio", worst);
    assert_int_equal(bad, 0);
}

/* The rule's count on the benchmark's shapes that do not fill the GPU:
 * decoding against 32k keys and 8k, and one long head, causal. */
static void split_decoding_shapes(void **state)
{
    (void)state;
    TK_REQUIRE_LISTING(split_variant.listing, split_variant.cc);
    TK_SKIP_UNDER_SANITIZER("decoding shapes take too long under the "
                            "sanitizer");
    static const struct shape sh[] = {
        {1, 16, 1, 32768, 128, 0}, {4, 16, 16, 8192, 64, 0},
        {1, 1, 5000, 5000, 128, 1}, {1, 2, 1, 131072, 128, 0},
    };
    int dev, sms;
    TK_CUDA(cudaGetDevice(&dev));
    TK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    size_t bad = 0;
    double worst = 0;
    g_split = flash_split;
    for (size_t t = 0; t < NSHAPES(sh); t++) {
        flash_dims a = {sh[t].B, sh[t].H, sh[t].Sq, sh[t].Sk, sh[t].D,
                        sh[t].causal, (flash_layout)(t % 2)};
        uint64_t st = tk_seed(0) + 7 * t;
        struct problem p;
        make_problem(&p, a, 1.0, &st);
        g_splits = flash_split_count(a, sms);
        size_t b = run_and_check(&split_variant, &p, 1, 0, &worst);
        print_message("split into %d at B%zu H%zu Sq%zu Sk%zu D%zu%s: %zu "
                      "wrong\n", g_splits, a.B, a.H, a.Sq, a.Sk, a.D,
                      a.causal ? " causal" : "", b);
        bad += b;
        free_problem(&p);
    }
    print_message("split: the largest error is %.3f of the bound\n", worst);
    assert_int_equal(bad, 0);
}

/* The rule and the workspace size, on the host; then the refusals of
 * flash_split, with the output untouched, and its empty cases. */
static void split_rule_workspace_and_refusals(void **state)
{
    (void)state;
    const flash_dims full = {8, 16, 4096, 4096, 128, 0, FLASH_BHSD};
    const flash_dims dec = {1, 16, 1, 32768, 128, 0, FLASH_BHSD};
    const flash_dims dec64 = {4, 16, 16, 8192, 64, 0, FLASH_BHSD};
    flash_dims a = dec;
    assert_int_equal(flash_split_count(full, 132), 1);
    /* 2 x 264 / 16 = 33 shares of 16 of the 512 key tiles: 32 do. */
    assert_int_equal(flash_split_count(dec, 132), 32);
    assert_int_equal(flash_split_count(dec64, 132), 13); /* 2 x 396 / 64 */
    a.Sk = 1000; assert_int_equal(flash_split_count(a, 132), 4);
    a = dec; a.H = 1; a.Sk = 1u << 20;
    assert_int_equal(flash_split_count(a, 132), 64);
    assert_int_equal(flash_split_count(dec, 0), 1);     /* as one SM */
    const flash_dims ok = {1, 2, 64, 64, 64, 0, FLASH_BHSD};
    const size_t R = 2 * 64;
    assert_int_equal(flash_split_work_bytes(ok, 4), 4 * R * (64 * 4 + 8));
    assert_int_equal(flash_split_work_bytes(ok, 1), 0);
    assert_int_equal(flash_split_work_bytes(ok, 0), 0);
    assert_int_equal(flash_split_work_bytes(ok, FLASH_MAX_SPLITS + 1), 0);
    a = ok; a.Sk = 0; assert_int_equal(flash_split_work_bytes(a, 4), 0);
    a = ok; a.B = 0;  assert_int_equal(flash_split_work_bytes(a, 4), 0);
    a = ok; a.D = 32; assert_int_equal(flash_split_work_bytes(a, 4), 0);
    a = ok; a.B = (size_t)1 << 40; a.H = (size_t)1 << 20;
    assert_int_equal(flash_split_work_bytes(a, 4), 0);   /* overflows */

    TK_REQUIRE_ARCH(8, 0, "the bf16 attention launchers");
    const size_t n = 2 * 64 * 64, need = flash_split_work_bytes(ok, 4);
    char *dq = tk_dev_bytes(n * 2), *dk = tk_dev_bytes(n * 2);
    char *dv = tk_dev_bytes(n * 2), *d_o = tk_dev_bytes(n * 2);
    char *w = tk_dev_bytes(need + 16);
    float *dl = tk_dev_floats(R);
    const book_bf16 *q = (void *)dq, *k = (void *)dk, *v = (void *)dv;
    book_bf16 *o = (void *)d_o;
    TK_REFUSED(flash_split(q, k, v, o, dl, ok, 0, w, need, 0));
    TK_REFUSED(flash_split(q, k, v, o, dl, ok, FLASH_MAX_SPLITS + 1, w, need,
                           0));
    a = ok; a.B = 0;   /* the count is checked first, even when empty */
    TK_REFUSED(flash_split(NULL, NULL, NULL, NULL, NULL, a, 0, NULL, 0, 0));
    a = ok; a.D = 32;
    TK_REFUSED(flash_split(q, k, v, o, dl, a, 4, w, need, 0));
    TK_REFUSED(flash_split(q, k, v, o, dl, ok, 4, NULL, need, 0));
    TK_REFUSED(flash_split(q, k, v, o, dl, ok, 4, w, need - 1, 0));
    TK_REFUSED(flash_split(q, k, v, o, dl, ok, 4, w + 8, need, 0));
    TK_REFUSED(flash_split(q, k, v, o, dl, ok, 4, d_o, need, 0));  /* o */
    TK_REFUSED(flash_split(q, k, v, o, dl, ok, 4, dk + 16, need, 0));  /* k */
    TK_REFUSED(flash_split(q, k, v, o, dl, ok, 4, dq, need, 0));  /* q */
    TK_REFUSED(flash_split(q, k, v, o, dl, ok, 4, dv + 32, need, 0));  /* v */
    TK_REFUSED(flash_split(q, k, v, o, (float *)(w + 64), ok, 4, w, need,
                           0));  /* lse inside */
    TK_CUDA(cudaDeviceSynchronize());
    uint16_t *h = tk_malloc(n * 2);
    tk_download_bytes(h, d_o, n * 2);
    for (size_t j = 0; j < n; j++) assert_int_equal(h[j], 0xffff);
    /* Empty: nothing, any pointers; Sk = 0: zeros, with no workspace. */
    a = ok; a.Sq = 0;
    assert_int_equal(flash_split(NULL, NULL, NULL, NULL, NULL, a, 4, NULL,
                                 0, 0), cudaSuccess);
    a = ok; a.Sk = 0;
    TK_CUDA(flash_split(NULL, NULL, NULL, o, NULL, a, 4, NULL, 0, 0));
    TK_CUDA(cudaDeviceSynchronize());
    tk_download_bytes(h, d_o, n * 2);
    for (size_t j = 0; j < n; j++) assert_int_equal(h[j], 0);
    free(h);
    tk_free(dq); tk_free(dk); tk_free(dv); tk_free(d_o); tk_free(w);
    tk_free(dl);
}

/* Wrong on purpose: a merge that adds the shares without rescaling them
 * to the largest maximum weighs each share by 2^(m - m_z) too much.  With
 * scores spread by q and k in [-2, 2) the shares' maxima differ, and the
 * output must be wrong; the right merge passes on the same problem. */
static void split_without_rescale_is_wrong(void **state)
{
    (void)state;
    TK_REQUIRE_LISTING(split_variant.listing, split_variant.cc);
    const flash_dims a = {1, 2, 64, 2048, 64, 0, FLASH_BHSD};
    uint64_t st = tk_seed(0);
    struct problem p;
    make_problem(&p, a, 2.0, &st);
    double worst = 0;
    g_splits = 8;
    g_split = flash_split;
    assert_int_equal(run_and_check(&split_variant, &p, 1, 0, &worst), 0);
    worst = 0;
    g_split = flash_split_no_rescale;
    size_t bad = run_and_check(&split_variant, &p, 1, 0, &worst);
    g_split = flash_split;
    print_message("merged without the rescale: %zu of %zu outputs outside "
                  "the bound, the worst %.1f times it\n", bad,
                  a.B * a.H * a.Sq * a.D, worst);
    csv_row("split_no_rescale/outside", (double)bad);
    csv_row("split_no_rescale/outputs", (double)(a.B * a.H * a.Sq * a.D));
    csv_row("split_no_rescale/worst_ratio", worst);
    assert_true(bad > 0);
    free_problem(&p);
}

/* ---- stream order ------------------------------------------------------ */

/* A launcher of the chapter for the stream test: one of variants.h, or
 * (fn NULL) split keys at 4 shares through split, with a workspace of the
 * bytes flash_split_work_bytes asks for; wrong: a listing wrong on
 * purpose, which must follow its stream like the others, and whose
 * output is not checked. */
struct fl_order { const char *name; flash_fn fn; split_fn split; int wrong; };

/* l on B2 H3 Sq200 Sk777 D128, causal, BSHD, with lse, queued on a stream
 * held behind a closed gate: o, lse and the workspace are still the
 * poison when the launcher has returned, and o within the bound of
 * run_and_check once the gate opens.  A first call on the default stream
 * loads the kernels (loading one may wait for the whole device) and sets
 * their shared-memory opt-in. */
static void order_case(const struct fl_order *l)
{
    const flash_dims a = {2, 3, 200, 777, 128, 1, FLASH_BSHD};
    const int splits = 4;
    uint64_t seed = tk_seed(0), st = seed;
    struct problem p;
    make_problem(&p, a, 1.0, &st);
    const size_t nq = a.B * a.H * a.Sq * a.D, nk = a.B * a.H * a.Sk * a.D;
    const size_t rows = a.B * a.H * a.Sq;
    const size_t wb = l->split ? flash_split_work_bytes(a, splits) : 0;
    void *dq = tk_dev_bytes(nq * 2), *dk = tk_dev_bytes(nk * 2);
    void *dv = tk_dev_bytes(nk * 2), *d_o = tk_dev_bytes(nq * 2);
    float *dl = tk_dev_floats(rows);
    void *w = wb ? tk_dev_bytes(wb) : NULL;
    tk_upload_bytes(dq, p.q, nq * 2);
    tk_upload_bytes(dk, p.k, nk * 2);
    tk_upload_bytes(dv, p.v, nk * 2);
    cudaError_t e;
    for (int gated = 0; gated < 2; gated++) {
        tk_poison(d_o, nq * 2);
        tk_poison(dl, rows * 4);
        if (w) tk_poison(w, wb);
        tk_gate g = tk_gate_if(gated);
        e = l->split ? l->split(dq, dk, dv, d_o, dl, a, splits, w, wb, g.s)
                     : l->fn(dq, dk, dv, d_o, dl, a, g.s);
        int waited = !gated || (tk_still_poisoned(d_o, nq * 2) &&
                                tk_still_poisoned(dl, rows * 4) &&
                                (!w || tk_still_poisoned(w, wb)));
        if (gated) tk_gate_open(&g);
        TK_CUDA(e);
        TK_CUDA(cudaDeviceSynchronize());
        if (!waited)
            print_error("%s: it wrote before its stream let it\n", l->name);
        assert_true(waited);
    }
    uint16_t *o = tk_malloc(nq * 2);
    tk_download_bytes(o, d_o, nq * 2);
    size_t bad = 0;
    for (size_t bh = 0; bh < a.B * a.H && !l->wrong; bh++)
        for (size_t i = 0; i < a.Sq; i++)
            for (size_t d = 0; d < a.D; d++) {
                size_t row = bh * a.Sq + i;
                double r = p.ref[row * a.D + d];
                double g = tk_from_bf16(o[at(a, bh, i, a.Sq) + d]);
                double tol = (0x1p-8 + 2 * p.eps[row] + a.Sk * 0x1p-23) *
                                 p.absref[row * a.D + d] + 0x1p-8 * fabs(r);
                if (!(fabs(g - r) <= tol) && bad++ < 5)
                    print_error("%s on a gated stream: o[bh %zu][row %zu]"
                                "[%zu] is %.7g, expected %.7g (seed %llu)\n",
                                l->name, bh, i, d, g, r,
                                (unsigned long long)seed);
            }
    assert_int_equal(bad, 0);
    free(o); free_problem(&p);
    tk_free(dq); tk_free(dk); tk_free(dv); tk_free(d_o); tk_free(dl);
    if (w) tk_free(w);
}

/* Every launcher whose code runs on compute capability 8.0 and later
 * queues all its work on the stream it is given: those of variants.h, the
 * split keys, and the two wrong on purpose. */
static void flash_launchers_follow_the_stream(void **state)
{
    (void)state;
    TK_REQUIRE_LISTING("flash_mma.sm80.cu", 80);
    for (size_t v = 0; v < NVARIANTS; v++)
        if (variants[v].cc == 80) {
            const struct fl_order l = {variants[v].name, variants[v].fn,
                                       NULL, 0};
            order_case(&l);
        }
    static const struct fl_order more[] = {
        {"mma without the rescale", flash_mma_no_rescale, NULL, 1},
        {"split", NULL, flash_split, 0},
        {"split without the rescale", NULL, flash_split_no_rescale, 1},
    };
    for (size_t m = 0; m < sizeof more / sizeof more[0]; m++)
        order_case(&more[m]);
}

/* The same for the sm_90a launcher. */
static void flash_sm90a_launchers_follow_the_stream(void **state)
{
    (void)state;
    TK_REQUIRE_LISTING("flash_wgmma.sm90a.cu", 90);
    for (size_t v = 0; v < NVARIANTS; v++)
        if (variants[v].cc == 90) {
            const struct fl_order l = {variants[v].name, variants[v].fn,
                                       NULL, 0};
            order_case(&l);
        }
    /* Wrong on purpose in what it computes, not in where it queues. */
    const struct fl_order early = {"flash_wgmma_early_release",
                                   flash_wgmma_early_release, NULL, 1};
    order_case(&early);
}

/* Causal masks at large Sk, where a test of near-uniform weights cannot
 * see one key more or less: every q has q[0] = 1 and every key k[0] = 0,
 * but for spike keys, whose k is (K, 0, ..., 0) with a scaled score of
 * about 12 (ln Sk + 4) and whose v is a constant of its own, (8 + n)
 * for spike n, of alternating sign.  They sit at the edges of the tiles of 64 and 128 rows and keys,
 * on the diagonal (key = row + Sk - Sq) of the first rows of those tiles
 * when Sq = 1000 < Sk = 4099, and at the last key.  With Sk - Sq = 129
 * the last row of a tile of 64 or 128 sees one key of a new key tile
 * (192, 256, 320, 384), which a loop bound (kend) one short drops.  A row that sees n
 * spikes has an output of about their mean, and the row just before a
 * spike's diagonal has none of it.  A mask off by one key (key >= row +
 * shift, or kend one short) moves a row at a spike by thirty times the
 * bound or more (a double-precision model of the mutants says 33 to 81).  Sq = Sk and Sq < Sk (bottom right); both head
 * sizes; every launcher this GPU runs, and the split at 4 shares. */
static const long long spikes[] = {63,   64,   127,  128,  129,  192,
                                   256,  320,  384,  1000, 2047, 2048,
                                   3099, 3100, 3162, 3163, 3226, 3227,
                                   4098};
static void add_spikes(struct problem *p)
{
    const flash_dims a = p->a;
    const uint16_t K = tk_to_bf16(a.D == 64 ? 96.f : 136.f);
    for (size_t bh = 0; bh < a.B * a.H; bh++) {
        for (size_t i = 0; i < a.Sq; i++)
            p->q[at(a, bh, i, a.Sq)] = tk_to_bf16(1.f);
        for (size_t j = 0; j < a.Sk; j++)
            p->k[at(a, bh, j, a.Sk)] = 0;
        for (size_t n = 0; n < sizeof spikes / sizeof spikes[0]; n++) {
            const size_t j = (size_t)spikes[n];
            if (j >= a.Sk) continue;
            uint16_t *kj = p->k + at(a, bh, j, a.Sk);
            uint16_t *vj = p->v + at(a, bh, j, a.Sk);
            for (size_t d = 0; d < a.D; d++) {
                kj[d] = d == 0 ? K : 0;
                vj[d] = tk_to_bf16((float)(n % 2 ? -(8.0 + n) : 8.0 + n));
            }
        }
    }
    reference(p);
}
static void causal_spikes_at_large_sk(void **state)
{
    (void)state;
    TK_REQUIRE_ARCH(8, 0, "the bf16 attention launchers");
    TK_SKIP_UNDER_SANITIZER("large shapes take too long under the sanitizer");
    static const struct shape sh[] = {
        {1, 1, 4099, 4099, 64, 1}, {1, 1, 1000, 4099, 128, 1},
        {1, 1, 2200, 2200, 128, 1}, {1, 1, 1000, 4099, 64, 1},
        {1, 1, 1000, 1129, 64, 1},  {1, 1, 1000, 1129, 128, 1},
    };
    size_t bad = 0;
    double worst = 0;
    for (size_t t = 0; t < NSHAPES(sh); t++) {
        flash_dims a = {sh[t].B, sh[t].H, sh[t].Sq, sh[t].Sk, sh[t].D,
                        sh[t].causal, (flash_layout)(t % 2)};
        uint64_t st = tk_seed(0) + 13 * t;
        struct problem p;
        g_no_reference = 1;  /* add_spikes computes it */
        make_problem(&p, a, 1.0, &st);
        g_no_reference = 0;
        add_spikes(&p);
        for (size_t i = 0; i <= NVARIANTS; i++) {
            const struct fl_variant *v = i < NVARIANTS ? &variants[i]
                                                       : &split_variant;
            if (v->cc == 90 ? tk_compute_capability() != 90
                            : tk_compute_capability() < v->cc)
                continue;
            g_split = flash_split;
            g_splits = 4;
            size_t b = run_and_check(v, &p, 1, 0, &worst);
            if (b)
                print_message("%s: %zu wrong with spikes at Sq%zu Sk%zu "
                              "D%zu causal\n", v->name, b, a.Sq, a.Sk, a.D);
            bad += b;
        }
        free_problem(&p);
    }
    print_message("spikes: the largest error is %.3f of the bound\n", worst);
    csv_row("spikes/worst_ratio", worst);
    assert_int_equal(bad, 0);
}

/* Wrong on purpose: consumers that give V's stage back before the P V
 * that reads it.  v is in [0, 1) plus half its tile's index, so that
 * V_{j+1} differs from V_{j-1} by 1 everywhere; with 4 tiles of 128 keys
 * P_0 and P_1 multiply V_2 and V_3 and the output moves by about 0.5.
 * The right kernel passes on the same problem. */
static void early_release_is_wrong(void **state)
{
    (void)state;
    const struct fl_variant right = {"wgmma", flash_wgmma,
                                     "flash_wgmma.sm90a.cu", 90};
    const struct fl_variant wrong = {"wgmma with V freed early",
                                     flash_wgmma_early_release,
                                     "flash_wgmma.sm90a.cu", 90};
    TK_REQUIRE_LISTING(right.listing, right.cc);
    size_t bad = 0, outputs = 0;
    double worst = 0;
    for (int d = 0; d < 2; d++) {
        const flash_dims a = {1, 2, 256, 512, d ? 128u : 64u, 0, FLASH_BHSD};
        uint64_t st = tk_seed(0) + (uint64_t)d;
        struct problem p;
        make_problem_v(&p, a, 1.0, 0, 1, 0.5, &st);
        double w = 0;
        assert_int_equal(run_and_check(&right, &p, 1, 0, &w), 0);
        bad += run_and_check(&wrong, &p, 1, 0, &worst);
        outputs += a.B * a.H * a.Sq * a.D;
        free_problem(&p);
    }
    print_message("V freed early: %zu of %zu outputs outside the bound, the "
                  "worst %.1f times it\n", bad, outputs, worst);
    csv_row("early_release/outside", (double)bad);
    csv_row("early_release/outputs", (double)outputs);
    csv_row("early_release/worst_ratio", worst);
    assert_true(bad > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(mma64_edge_shapes),
        cmocka_unit_test(mma64_large_shapes),
        cmocka_unit_test(mma_edge_shapes),
        cmocka_unit_test(mma_large_shapes),
        cmocka_unit_test(wgmma_edge_shapes),
        cmocka_unit_test(wgmma_large_shapes),
        cmocka_unit_test(wgmma_serial_edge_shapes),
        cmocka_unit_test(wgmma_serial_large_shapes),
        cmocka_unit_test(wgmma_tiles_edge_shapes),
        cmocka_unit_test(wgmma_tiles_large_shapes),
        cmocka_unit_test(best_edge_shapes),
        cmocka_unit_test(best_large_shapes),
        cmocka_unit_test(bad_arguments_and_empty_sizes),
        cmocka_unit_test(runs_on_a_stream),
        cmocka_unit_test(no_rescale_is_wrong),
        cmocka_unit_test(split_every_count),
        cmocka_unit_test(split_decoding_shapes),
        cmocka_unit_test(split_rule_workspace_and_refusals),
        cmocka_unit_test(split_without_rescale_is_wrong),
        cmocka_unit_test(flash_launchers_follow_the_stream),
        cmocka_unit_test(flash_sm90a_launchers_follow_the_stream),
        cmocka_unit_test(causal_spikes_at_large_sk),
        cmocka_unit_test(early_release_is_wrong),
    };
    const int failed = tk_run_tests("flash", tests);
    csv_close();
    return failed;
}
