// bench_sort.cu -- the sort chapter's measurements (make bench).  Every
// sort of 32-bit unsigned keys from 2^20 to 2^30 uniform keys, and the
// Onesweep pairs, beside CUB's DeviceRadixSort::SortKeys and SortPairs
// (out of place, as ours) in the same run and the floor of the bytes a
// radix sort of 8-bit digits must move at the device-copy rate
// (sort.csv); the distributions that stress a sort at 2^28
// (sort-dists.csv); 64-bit keys at 2^28; the targets (sort-targets.csv);
// CUB called with an int count against a size_t one (sort-cub.csv); the
// two timing methods on small sorts (sort-timing.csv); the shapes
// (sort-shapes.csv).  Every comparison is a case of benchkit's
// interleaved rounds, its ratios with their spread over the rounds.  --ncu: one textbook and one Onesweep sort
// (tiles of 256 x 16) of 2^26 keys, for counters.sh.
#include <cub/cub.cuh>
#include <cstring>
#include "benchkit.h"
#include "cubkit.cuh"
#include "sorted_check.cuh"
#include <vector>
#include "common/book.h"
#include "sort/sort.h"
#include "variants.h"

enum { D_UNIFORM, D_LOW_ENTROPY, D_FEW, D_EQUAL, D_SORTED, D_REVERSED,
       D_BYTE2_FIXED, D_COUNT };
static const char *kDist[D_COUNT] = {"uniform", "low_entropy", "few_16",
                                     "equal", "sorted", "reversed",
                                     "byte2_fixed"};

__device__ unsigned long long mix64(unsigned long long z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
// Keys of a distribution; values = their index.  wide: 64-bit keys.
__global__ void fill_keys(void *keys, unsigned *vals, size_t n, int dist,
                          bool wide)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        unsigned long long z = mix64(0x9e3779b97f4a7c15ull * (i + 1));
        if (dist == D_LOW_ENTROPY)
            z &= mix64(z + 1) & mix64(z + 2);
        else if (dist == D_FEW) z = 0x0101010101010101ull * (z % 16);
        else if (dist == D_EQUAL) z = 0x5a5a5a5a5a5a5a5aull;
        else if (dist == D_SORTED) z = (unsigned long long)i * 3;
        else if (dist == D_REVERSED) z = (unsigned long long)(n - i) * 3;
        else if (dist == D_BYTE2_FIXED)
            z = (z & 0xffffffffff00ffffull) | 0xab0000ull;
        if (wide) ((unsigned long long *)keys)[i] = z;
        else ((unsigned *)keys)[i] = (unsigned)z;
        if (vals) vals[i] = (unsigned)i;
    }
}

struct ctx {
    int what;                  // a variant (variants.h), or one below
    const void *kin;
    void *kout;
    const unsigned *vin;
    unsigned *vout;
    size_t n;
    void *temp;
    size_t bytes;
};
enum { W_CUB_KEYS = 100, W_CUB_PAIRS, W_PAIRS, W_U64, W_CUB_U64,
       W_CUB_KEYS_WIDE, W_CUB_PAIRS_WIDE };
// CUB through tests/common/cubkit.cuh, the one way both the sort and the
// merge benchmarks call it (an int count, as CUB's own benchmarks); the
// _WIDE ones the other way (a size_t count), for sort-cub.csv.
static cudaError_t run(void *p)
{
    ctx *c = (ctx *)p;
    size_t b = c->bytes;
    const unsigned *ki = (const unsigned *)c->kin;
    unsigned *ko = (unsigned *)c->kout;
    switch (c->what) {
    case W_CUB_KEYS: return bk_cub_sort_keys(c->temp, &b, ki, ko, c->n);
    case W_CUB_PAIRS:
        return bk_cub_sort_pairs(c->temp, &b, ki, ko, c->vin, c->vout, c->n);
    case W_CUB_KEYS_WIDE:
        return bk_cub_sort_keys_wide(c->temp, &b, ki, ko, c->n);
    case W_CUB_PAIRS_WIDE:
        return bk_cub_sort_pairs_wide(c->temp, &b, ki, ko, c->vin, c->vout,
                                      c->n);
    case W_CUB_U64:
        return bk_cub_sort_keys(c->temp, &b,
                                (const unsigned long long *)c->kin,
                                (unsigned long long *)c->kout, c->n);
    case W_PAIRS:
        return sort_pairs_u32(ki, ko, c->vin, c->vout, c->n, c->temp, b, 0);
    case W_U64:
        return sort_keys_u64((const unsigned long long *)c->kin,
                             (unsigned long long *)c->kout, c->n, c->temp, b,
                             0);
    default:
        return sort_variants[c->what].fn(ki, ko, c->n, c->temp, b, 0);
    }
}

// A case timed in benchkit's interleaved rounds: add the variants (each
// a copy of the ctx with its `what`), run, then read their medians
// (bk_stat: the median of the round medians, lo and hi their min and max)
// and ratios with spreads.
struct timed_case {
    bk_rounds *r;
    std::vector<ctx> cs;
    explicit timed_case(const char *name) : r(bk_rounds_new(name))
    {
        cs.reserve(32);      // bk_rounds keeps pointers to the ctxs
    }
    ~timed_case() { bk_rounds_free(r); }
    int add(const ctx &c, int what, const char *name)
    {
        cs.push_back(c);
        cs.back().what = what;
        return bk_rounds_add(r, name, run, &cs.back(), 0);
    }
    // The rounds, then one more run of each variant and its check: a
    // benchmark that times a wrong sort measures nothing.
    void go()
    {
        bk_rounds_run(r);
        for (const ctx &c : cs) check(c);
    }
    // Every key, on the device (sorted_check.cuh): no descent, and keys
    // (and values) the same multiset as the input.
    static void check(ctx c)
    {
        BOOK_CHECK(run(&c));
        BOOK_CHECK(cudaDeviceSynchronize());
        const bool wide = c.what == W_U64 || c.what == W_CUB_U64;
        const bool pairs = c.what == W_PAIRS || c.what == W_CUB_PAIRS ||
                           c.what == W_CUB_PAIRS_WIDE;
        const unsigned long long *wi = (const unsigned long long *)c.kin;
        const unsigned long long *wo = (const unsigned long long *)c.kout;
        const unsigned *ni = (const unsigned *)c.kin;
        const unsigned *no = (const unsigned *)c.kout;
        const unsigned long long d =
            wide ? sc_descents(wo, c.n) : sc_descents(no, c.n);
        const bool keys = wide ? sc_hash(wo, c.n) == sc_hash(wi, c.n)
                               : sc_hash(no, c.n) == sc_hash(ni, c.n);
        const bool vals =
            !pairs || sc_hash(c.vout, c.n) == sc_hash(c.vin, c.n);
        if (d || !keys || !vals) {
            fprintf(stderr, "bench_sort: variant %d, n %zu: %llu descents"
                    "%s%s\n", c.what, c.n, d, keys ? "" : ", keys changed",
                    vals ? "" : ", values changed");
            exit(EXIT_FAILURE);
        }
    }
    double ms(int i) const { return bk_rounds_stat(r, i).median; }
    bk_stat of(int ref, int i) const { return bk_ratio(r, ref, i); }
};

// The floor: a read of the keys for the histograms, then a read and a
// write of keys (and values) in each of the passes, at the copy rate.
static double floor_ms(size_t n, size_t kb, int pairs, double copy_gbps)
{
    const double passes = (double)kb, per = (double)kb + (pairs ? 4 : 0);
    const double bytes = (double)n * kb + passes * 2 * per * (double)n;
    return bytes / (copy_gbps * 1e6);
}

static void fill(const ctx &c, int dist, bool wide)
{
    fill_keys<<<1024, 256>>>((void *)c.kin, (unsigned *)c.vin, c.n, dist,
                             wide);
    BOOK_CHECK(cudaGetLastError());
    BOOK_CHECK(cudaDeviceSynchronize());
}

// Every sort of unsigned keys and the pairs, uniform, 2^20 .. 2^30, one
// case of rounds a size; of_cub_lo and of_cub_hi are the min and max of
// the ratio to CUB within each round.
static void sizes(ctx c, double copy, bk_stat *keys_of_cub,
                  bk_stat *pairs_of_cub)
{
    FILE *f = bk_csv_open("sort", "id,variant,n,log2n,ms,gkeys,floor_ms,"
                                  "of_floor,cub_ms,of_cub,of_cub_lo,"
                                  "of_cub_hi,rounds");
    for (int lg = 20; lg <= 30; lg += 2) {
        c.n = (size_t)1 << lg;
        fill(c, D_UNIFORM, false);
        bk_progress("uniform 2^%d", lg);
        char name[32];
        snprintf(name, sizeof name, "uniform 2^%d", lg);
        timed_case t(name);
        const int ck = t.add(c, W_CUB_KEYS, "cub_keys");
        int vs[S_COUNT];
        for (int v = 0; v < S_COUNT; v++)
            vs[v] = t.add(c, v, sort_variants[v].name);
        const int cp = t.add(c, W_CUB_PAIRS, "cub_pairs");
        const int pr = t.add(c, W_PAIRS, "pairs");
        t.go();
        const int rounds = bk_rounds_count(t.r);
        const double cub = t.ms(ck), fl = floor_ms(c.n, 4, 0, copy);
        bk_row(f, "cub_keys/%d,cub_keys,%zu,%d,%.4f,%.2f,%.4f,%.3f,%.4f,"
               "1.000,1.000,1.000,%d\n", lg, c.n, lg, cub, c.n / (cub * 1e6),
               fl, fl / cub, cub, rounds);
        for (int v = 0; v < S_COUNT; v++) {
            const double ms = t.ms(vs[v]);
            const bk_stat q = t.of(ck, vs[v]);
            bk_row(f, "%s/%d,%s,%zu,%d,%.4f,%.2f,%.4f,%.3f,%.4f,%.3f,%.3f,"
                   "%.3f,%d\n", sort_variants[v].name, lg,
                   sort_variants[v].name, c.n, lg, ms, c.n / (ms * 1e6), fl,
                   fl / ms, cub, q.median, q.lo, q.hi, rounds);
            if (v == S_ONESWEEP && lg == 28) *keys_of_cub = q;
        }
        const double cubp = t.ms(cp), ms = t.ms(pr);
        const double flp = floor_ms(c.n, 4, 1, copy);
        const bk_stat q = t.of(cp, pr);
        bk_row(f, "cub_pairs/%d,cub_pairs,%zu,%d,%.4f,%.2f,%.4f,%.3f,%.4f,"
               "1.000,1.000,1.000,%d\n", lg, c.n, lg, cubp,
               c.n / (cubp * 1e6), flp, flp / cubp, cubp, rounds);
        bk_row(f, "pairs/%d,pairs,%zu,%d,%.4f,%.2f,%.4f,%.3f,%.4f,%.3f,%.3f,"
               "%.3f,%d\n", lg, c.n, lg, ms, c.n / (ms * 1e6), flp, flp / ms,
               cubp, q.median, q.lo, q.hi, rounds);
        if (lg == 28) *pairs_of_cub = q;
    }
    // 64-bit keys at 2^28: eight passes.
    c.n = (size_t)1 << 28;
    fill(c, D_UNIFORM, true);
    timed_case t("u64 2^28");
    const int cu = t.add(c, W_CUB_U64, "cub_u64"), u = t.add(c, W_U64, "u64");
    t.go();
    const int rounds = bk_rounds_count(t.r);
    const double cub = t.ms(cu), ms = t.ms(u);
    const double fl = floor_ms(c.n, 8, 0, copy);
    const bk_stat q = t.of(cu, u);
    bk_row(f, "cub_u64/28,cub_u64,%zu,28,%.4f,%.2f,%.4f,%.3f,%.4f,1.000,"
           "1.000,1.000,%d\n", c.n, cub, c.n / (cub * 1e6), fl, fl / cub, cub,
           rounds);
    bk_row(f, "u64/28,u64,%zu,28,%.4f,%.2f,%.4f,%.3f,%.4f,%.3f,%.3f,%.3f,%d\n",
           c.n, ms, c.n / (ms * 1e6), fl, fl / ms, cub, q.median, q.lo, q.hi,
           rounds);
    bk_csv_close(f);
}

// CUB called the other way: a size_t count (64-bit offsets) against the
// int count of cubkit.cuh, keys and pairs, in the same rounds.  of_int =
// the int way's time / this one's (below 1: the other way is slower), with
// its spread over the rounds.
static void cub_ways(ctx c)
{
    FILE *f = bk_csv_open("sort-cub", "id,what,count,n,log2n,ms,gkeys,lo_ms,"
                                      "hi_ms,of_int,of_int_lo,of_int_hi,"
                                      "rounds");
    fprintf(f, "# CUB's DeviceRadixSort through tests/common/cubkit.cuh: "
               "count int (bk_cub_sort_*) or size_t (bk_cub_sort_*_wide)\n");
    for (int lg = 20; lg <= 28; lg += 4) {
        c.n = (size_t)1 << lg;
        fill(c, D_UNIFORM, false);
        char name[32];
        snprintf(name, sizeof name, "cub ways 2^%d", lg);
        timed_case t(name);
        const int w[4] = {t.add(c, W_CUB_KEYS, "keys/int"),
                          t.add(c, W_CUB_KEYS_WIDE, "keys/size_t"),
                          t.add(c, W_CUB_PAIRS, "pairs/int"),
                          t.add(c, W_CUB_PAIRS_WIDE, "pairs/size_t")};
        t.go();
        for (int i = 0; i < 4; i++) {
            const bk_stat s = bk_rounds_stat(t.r, w[i]);
            const bk_stat q = t.of(w[i & 2], w[i]);
            const char *what = i < 2 ? "keys" : "pairs";
            const char *count = i & 1 ? "size_t" : "int";
            bk_row(f, "%s/%s/%d,%s,%s,%zu,%d,%.4f,%.2f,%.4f,%.4f,%.3f,%.3f,"
                   "%.3f,%d\n", what, count, lg, what, count, c.n, lg,
                   s.median, c.n / (s.median * 1e6), s.lo, s.hi, q.median,
                   q.lo, q.hi, s.rounds);
        }
    }
    bk_csv_close(f);
}

// The distributions at 2^28: Onesweep keys and pairs against CUB's, one
// case of rounds a distribution.  *worst: the lowest ratio to CUB, with
// its spread.
static void dists(ctx c, bk_stat *worst)
{
    FILE *f = bk_csv_open("sort-dists", "id,dist,what,ms,gkeys,cub_ms,of_cub,"
                                        "of_cub_lo,of_cub_hi,rounds");
    worst->median = 1e9;
    worst->ok = 0;
    c.n = (size_t)1 << 28;
    for (int d = 0; d < D_COUNT; d++) {
        fill(c, d, false);
        bk_progress("%s", kDist[d]);
        timed_case t(kDist[d]);
        const int ck = t.add(c, W_CUB_KEYS, "cub_keys");
        const int k = t.add(c, S_ONESWEEP, "onesweep");
        const int cp = t.add(c, W_CUB_PAIRS, "cub_pairs");
        const int p = t.add(c, W_PAIRS, "pairs");
        t.go();
        const bk_stat qk = t.of(ck, k), qp = t.of(cp, p);
        const int rounds = bk_rounds_count(t.r);
        bk_row(f, "%s/keys,%s,keys,%.4f,%.2f,%.4f,%.3f,%.3f,%.3f,%d\n",
               kDist[d], kDist[d], t.ms(k), c.n / (t.ms(k) * 1e6), t.ms(ck),
               qk.median, qk.lo, qk.hi, rounds);
        bk_row(f, "%s/pairs,%s,pairs,%.4f,%.2f,%.4f,%.3f,%.3f,%.3f,%d\n",
               kDist[d], kDist[d], t.ms(p), c.n / (t.ms(p) * 1e6), t.ms(cp),
               qp.median, qp.lo, qp.hi, rounds);
        if (qk.median < worst->median) *worst = qk;
        if (qp.median < worst->median) *worst = qp;
    }
    bk_csv_close(f);
}

// Small, odd and headline counts: Onesweep against CUB's SortKeys, each
// shape a case of rounds.
static void shapes(ctx c)
{
    FILE *f = bk_shapes_open("sort");
    c.n = (size_t)1 << 28;
    fill(c, D_UNIFORM, false);
    for (const auto &s : bk_count_shapes) {
        ctx d = c;
        d.n = s.n;
        d.kin = (const unsigned *)c.kin + s.off;
        d.kout = (unsigned *)c.kout + s.off;
        timed_case t(s.name);
        const int ck = t.add(d, W_CUB_KEYS, "cub_keys");
        const int o = t.add(d, S_ONESWEEP, "onesweep");
        t.go();
        const double ref = 1e3 * t.ms(ck), us = 1e3 * t.ms(o);
        bk_shape_row(f, s.cls, s.name, "onesweep", us, s.n / (us * 1e3),
                     "G keys/s", "cub_sort_keys", ref);
    }
    bk_csv_close(f);
}

// The two timing methods side by side on the small sorts, where the
// launchers' host work is a large part of the old method's time
// (sort-timing.csv; the method chapter shows it).
static void timing(ctx c)
{
    FILE *f = bk_timing_open("sort");
    for (int lg = 16; lg <= 20; lg += 4) {
        c.n = (size_t)1 << lg;
        fill(c, D_UNIFORM, false);
        const int what[2] = {S_ONESWEEP, W_CUB_KEYS};
        const char *name[2] = {"onesweep", "cub_keys"};
        for (int i = 0; i < 2; i++) {
            ctx d = c;
            d.what = what[i];
            char id[48];
            snprintf(id, sizeof id, "sort/%s/2^%d", name[i], lg);
            bk_timing_row(f, id, run, &d);
        }
    }
    bk_csv_close(f);
}

// bench --ncu: one textbook sort, then one Onesweep sort (256 x 16) of
// the same 2^26 uniform keys, for tests/sort/counters.sh.
static int ncu_mode(int, char **, void *p)
{
    ctx &c = *(ctx *)p;
    fill(c, D_UNIFORM, false);
    c.what = S_TEXTBOOK;
    BOOK_CHECK(run(&c));
    c.what = S_256x16;
    BOOK_CHECK(run(&c));
    return 0;
}

int main(int argc, char **argv)
{
    const size_t most = (size_t)1 << 30;
    void *kin, *kout, *temp;
    unsigned *vin, *vout;
    size_t tb = sort_temp_bytes(most, 4, 1), cb = 0;
    BOOK_CHECK(cudaMalloc(&kin, most * 4));
    BOOK_CHECK(cudaMalloc(&kout, most * 4));
    BOOK_CHECK(cudaMalloc((void **)&vin, most * 4));
    BOOK_CHECK(cudaMalloc((void **)&vout, most * 4));
    // CUB's scratch: the most any call below asks for (temp NULL).
    BOOK_CHECK(bk_cub_sort_pairs(nullptr, &cb, (unsigned *)kin,
                                 (unsigned *)kout, vin, vout, most));
    if (cb > tb) tb = cb;
    cb = 0;
    BOOK_CHECK(bk_cub_sort_pairs_wide(nullptr, &cb, (unsigned *)kin,
                                      (unsigned *)kout, vin, vout, most));
    if (cb > tb) tb = cb;
    cb = 0;
    BOOK_CHECK(bk_cub_sort_keys(nullptr, &cb, (unsigned long long *)kin,
                                (unsigned long long *)kout, most / 2));
    if (cb > tb) tb = cb;
    BOOK_CHECK(cudaMalloc(&temp, tb));
    ctx c = {0, kin, kout, vin, vout, (size_t)1 << 26, temp, tb};
    const int ncu = bk_ncu(argc, argv, 0, 0, "", ncu_mode, &c);
    if (ncu >= 0) return ncu;
    bk_progress_start("sort", 30);
    if (bk_shapes_only(argc, argv)) {
        shapes(c);
        return 0;
    }
    const double copy = bk_copy_gbps((size_t)1 << 30);
    bk_stat keys_of_cub = {}, pairs_of_cub = {}, worst = {};
    sizes(c, copy, &keys_of_cub, &pairs_of_cub);
    dists(c, &worst);
    FILE *f = bk_csv_open("sort-targets", "id,value,target,met,lo,hi");
    bk_row(f, "copy_gbps,%.1f,-,-,-,-\n", copy);
    bk_target_spread(f, "keys_of_cub", keys_of_cub, 0.90, BK_AT_LEAST);
    bk_target_spread(f, "pairs_of_cub", pairs_of_cub, 0.85, BK_AT_LEAST);
    bk_target_spread(f, "worst_dist_of_cub", worst, 0.80, BK_AT_LEAST);
    bk_csv_close(f);
    cub_ways(c);
    timing(c);
    shapes(c);
    BOOK_CHECK(cudaFree(kin));
    BOOK_CHECK(cudaFree(kout));
    BOOK_CHECK(cudaFree(vin));
    BOOK_CHECK(cudaFree(vout));
    BOOK_CHECK(cudaFree(temp));
    return 0;
}
