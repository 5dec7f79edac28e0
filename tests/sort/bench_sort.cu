// bench_sort.cu -- the sort chapter's measurements (make bench).  Every
// sort of 32-bit unsigned keys from 2^20 to 2^30 uniform keys, and the
// Onesweep pairs, beside CUB's DeviceRadixSort::SortKeys and SortPairs
// (out of place, as ours) in the same run and the floor of the bytes a
// radix sort of 8-bit digits must move at the device-copy rate
// (sort.csv); the distributions that stress a sort at 2^28
// (sort-dists.csv); 64-bit keys at 2^28; the targets (sort-targets.csv);
// the shapes (sort-shapes.csv).  --ncu: one textbook and one Onesweep sort
// (tiles of 256 x 16) of 2^26 keys, for counters.sh.
#include <cub/cub.cuh>
#include <cstring>
#include "benchkit.h"
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
enum { W_CUB_KEYS = 100, W_CUB_PAIRS, W_PAIRS, W_U64, W_CUB_U64 };
static cudaError_t run(void *p)
{
    ctx *c = (ctx *)p;
    size_t b = c->bytes;
    const int n = (int)c->n;
    switch (c->what) {
    case W_CUB_KEYS:
        return cub::DeviceRadixSort::SortKeys(c->temp, b, (const unsigned *)c->kin,
                                              (unsigned *)c->kout, n);
    case W_CUB_PAIRS:
        return cub::DeviceRadixSort::SortPairs(c->temp, b,
            (const unsigned *)c->kin, (unsigned *)c->kout, c->vin, c->vout, n);
    case W_CUB_U64:
        return cub::DeviceRadixSort::SortKeys(c->temp, b,
            (const unsigned long long *)c->kin, (unsigned long long *)c->kout,
            n);
    case W_PAIRS:
        return sort_pairs_u32((const unsigned *)c->kin, (unsigned *)c->kout,
                              c->vin, c->vout, c->n, c->temp, b, 0);
    case W_U64:
        return sort_keys_u64((const unsigned long long *)c->kin,
                             (unsigned long long *)c->kout, c->n, c->temp, b,
                             0);
    default:
        return sort_variants[c->what].fn((const unsigned *)c->kin,
                                         (unsigned *)c->kout, c->n, c->temp,
                                         b, 0);
    }
}
static double time_ms(ctx c, int what)
{
    c.what = what;
    int reps;
    return bk_timed_ms(run, &c, &reps, NULL);
}
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

// Every sort of unsigned keys and the pairs, uniform, 2^20 .. 2^30.
static void sizes(ctx c, double copy, double *keys_of_cub,
                  double *pairs_of_cub)
{
    FILE *f = bk_csv_open("sort", "id,variant,n,log2n,ms,gkeys,floor_ms,"
                                  "of_floor,cub_ms,of_cub");
    for (int lg = 20; lg <= 30; lg += 2) {
        c.n = (size_t)1 << lg;
        fill(c, D_UNIFORM, false);
        bk_progress("uniform 2^%d", lg);
        const double cub = time_ms(c, W_CUB_KEYS), fl = floor_ms(c.n, 4, 0, copy);
        bk_row(f, "cub_keys/%d,cub_keys,%zu,%d,%.4f,%.2f,%.4f,%.3f,%.4f,1.000\n",
               lg, c.n, lg, cub, c.n / (cub * 1e6), fl, fl / cub, cub);
        for (int v = 0; v < S_COUNT; v++) {
            const double ms = time_ms(c, v);
            bk_row(f, "%s/%d,%s,%zu,%d,%.4f,%.2f,%.4f,%.3f,%.4f,%.3f\n",
                   sort_variants[v].name, lg, sort_variants[v].name, c.n, lg,
                   ms, c.n / (ms * 1e6), fl, fl / ms, cub, cub / ms);
            if (v == S_ONESWEEP && lg == 28) *keys_of_cub = cub / ms;
        }
        const double cubp = time_ms(c, W_CUB_PAIRS), ms = time_ms(c, W_PAIRS);
        const double flp = floor_ms(c.n, 4, 1, copy);
        bk_row(f, "cub_pairs/%d,cub_pairs,%zu,%d,%.4f,%.2f,%.4f,%.3f,%.4f,1.000\n",
               lg, c.n, lg, cubp, c.n / (cubp * 1e6), flp, flp / cubp, cubp);
        bk_row(f, "pairs/%d,pairs,%zu,%d,%.4f,%.2f,%.4f,%.3f,%.4f,%.3f\n", lg,
               c.n, lg, ms, c.n / (ms * 1e6), flp, flp / ms, cubp, cubp / ms);
        if (lg == 28) *pairs_of_cub = cubp / ms;
    }
    // 64-bit keys at 2^28: eight passes.
    c.n = (size_t)1 << 28;
    fill(c, D_UNIFORM, true);
    const double cub = time_ms(c, W_CUB_U64), ms = time_ms(c, W_U64);
    const double fl = floor_ms(c.n, 8, 0, copy);
    bk_row(f, "cub_u64/28,cub_u64,%zu,28,%.4f,%.2f,%.4f,%.3f,%.4f,1.000\n",
           c.n, cub, c.n / (cub * 1e6), fl, fl / cub, cub);
    bk_row(f, "u64/28,u64,%zu,28,%.4f,%.2f,%.4f,%.3f,%.4f,%.3f\n", c.n, ms,
           c.n / (ms * 1e6), fl, fl / ms, cub, cub / ms);
    bk_csv_close(f);
}

// The distributions at 2^28: Onesweep keys and pairs against CUB's.
static double dists(ctx c)
{
    FILE *f = bk_csv_open("sort-dists", "id,dist,what,ms,gkeys,cub_ms,of_cub");
    double worst = 1e9;
    c.n = (size_t)1 << 28;
    for (int d = 0; d < D_COUNT; d++) {
        fill(c, d, false);
        bk_progress("%s", kDist[d]);
        const double ck = time_ms(c, W_CUB_KEYS), k = time_ms(c, S_ONESWEEP);
        const double cp = time_ms(c, W_CUB_PAIRS), p = time_ms(c, W_PAIRS);
        bk_row(f, "%s/keys,%s,keys,%.4f,%.2f,%.4f,%.3f\n", kDist[d], kDist[d],
               k, c.n / (k * 1e6), ck, ck / k);
        bk_row(f, "%s/pairs,%s,pairs,%.4f,%.2f,%.4f,%.3f\n", kDist[d],
               kDist[d], p, c.n / (p * 1e6), cp, cp / p);
        if (ck / k < worst) worst = ck / k;
        if (cp / p < worst) worst = cp / p;
    }
    bk_csv_close(f);
    return worst;
}

// Small, odd and headline counts: Onesweep against CUB's SortKeys.
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
        const double ref = 1e3 * time_ms(d, W_CUB_KEYS);
        const double us = 1e3 * time_ms(d, S_ONESWEEP);
        bk_shape_row(f, s.cls, s.name, "onesweep", us, s.n / (us * 1e3),
                     "G keys/s", "cub_sort_keys", ref);
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
    BOOK_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, cb, (unsigned *)kin,
               (unsigned *)kout, vin, vout, (int)most));
    if (cb > tb) tb = cb;
    cb = 0;
    BOOK_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, cb,
               (unsigned long long *)kin, (unsigned long long *)kout,
               (int)(most / 2)));
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
    double keys_of_cub = 0, pairs_of_cub = 0;
    sizes(c, copy, &keys_of_cub, &pairs_of_cub);
    const double worst = dists(c);
    FILE *f = bk_csv_open("sort-targets", "id,value,target,met");
    bk_row(f, "copy_gbps,%.1f,-,-\n", copy);
    bk_target(f, "keys_of_cub", keys_of_cub, 0.90, BK_AT_LEAST);
    bk_target(f, "pairs_of_cub", pairs_of_cub, 0.85, BK_AT_LEAST);
    bk_target(f, "worst_dist_of_cub", worst, 0.80, BK_AT_LEAST);
    bk_csv_close(f);
    shapes(c);
    BOOK_CHECK(cudaFree(kin));
    BOOK_CHECK(cudaFree(kout));
    BOOK_CHECK(cudaFree(vin));
    BOOK_CHECK(cudaFree(vout));
    BOOK_CHECK(cudaFree(temp));
    return 0;
}
