// bench_merge.cu -- the merge chapter's measurements (make bench).
// merge.csv: the merge of two sorted arrays of 2^27 uint32 keys each (1 GiB
// of output), keys and pairs, beside cub::DeviceMerge in the same run and
// the device copy; bytes: each input read once, the output written once.
// merge-sort.csv: merge sorts of 2^20 ... 2^28 uniform random uint32 keys,
// and pairs, with tiles of 256 x 8 (and 256 x 4, 256 x 16 for keys),
// beside cub::DeviceMergeSort and cub::DeviceRadixSort in the same run;
// float keys by absolute value beside DeviceMergeSort with the same
// comparator; 2^24 keys of 16 distinct values.  A sort runs in place, so
// every timed run first copies the unsorted input into place; that copy,
// timed alone in the same rounds, is subtracted.  G keys/s = n / time.
// Each comparison is a case of benchkit's interleaved rounds, with the
// min and max over the rounds beside the medians.  CUB's radix sort is
// called through tests/common/cubkit.cuh, as in the sort chapter's
// benchmark, so that both chapters quote one CUB number.
#include <cub/cub.cuh>
#include <cmath>
#include <cstring>
#include "benchkit.h"
#include "cubkit.cuh"
#include "sorted_check.cuh"
#include <vector>
#include "common/book.h"
#include "merge/merge.h"
#include "merge/merge.cuh"

// Uniform 32-bit keys from a hash of the index; `mod` > 0 keeps key % mod;
// sorted: 8 i + (hash % 8), increasing.
__global__ void fill_keys(uint32_t *d, size_t n, uint64_t salt, uint32_t mod,
                          bool sorted)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        unsigned long long z = 0x9e3779b97f4a7c15ull * (i + salt);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        uint32_t k = (uint32_t)(z >> 32);
        d[i] = sorted ? (uint32_t)(8 * i + (z % 8)) : mod ? k % mod : k;
    }
}
// Floats +-(k / 64) for k < 2^20: ties in |x| between x and -x.
__global__ void to_floats(const uint32_t *k, float *f, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        f[i] = (float)(k[i] % (1u << 20)) / 64.0f * (k[i] >> 31 ? -1.f : 1.f);
}

enum kind { OURS, OURS4, OURS16, CUB_MERGE, CUB_RADIX, OURS_ABS, CUB_ABS,
            OURS7, OURS9, OURS15, OURS17, KINDS };
// The odd tiles (merge chapter, "Odd tiles"): IPT 7, 9, 15 and 17.
static int kind_ipt(int k)
{
    return k == OURS4 ? 4 : k == OURS16 ? 16 : k == OURS7 ? 7 : k == OURS9 ? 9
         : k == OURS15 ? 15 : k == OURS17 ? 17 : 8;
}
static bool kind_abs(int k) { return k == OURS_ABS || k == CUB_ABS; }
struct ctx {
    int kind;
    bool pairs, copy_only;
    size_t n;
    const uint32_t *src_k, *src_v;     // the unsorted input
    uint32_t *k, *v, *alt_k, *alt_v;   // sorted in place (radix: into alt)
    void *temp, *cub_temp;
    size_t temp_bytes, cub_bytes;
};

static cudaError_t sort_once(void *p)
{
    ctx *c = (ctx *)p;
    const size_t b = c->n * 4;
    BOOK_TRY(cudaMemcpyAsync(c->k, c->src_k, b, cudaMemcpyDeviceToDevice));
    if (c->pairs)
        BOOK_TRY(cudaMemcpyAsync(c->v, c->src_v, b, cudaMemcpyDeviceToDevice));
    if (c->copy_only) return cudaSuccess;
    size_t cb = c->cub_bytes;
    float *f = (float *)c->k;
    switch (c->kind) {
    case OURS:
        return c->pairs ? merge_sort_pairs_u32(c->k, c->v, c->n, c->temp,
                                               c->temp_bytes, 0)
                        : merge_sort_u32(c->k, c->n, c->temp, c->temp_bytes, 0);
    case OURS4: return merge_sort_u32_ipt(c->k, c->n, 4, c->temp, c->temp_bytes, 0);
    case OURS16: return merge_sort_u32_ipt(c->k, c->n, 16, c->temp, c->temp_bytes, 0);
    case OURS7: case OURS9: case OURS15: case OURS17:
        return merge_sort_u32_ipt(c->k, c->n, kind_ipt(c->kind), c->temp,
                                  c->temp_bytes, 0);
    case CUB_MERGE:
        return c->pairs ? cub::DeviceMergeSort::SortPairs(c->cub_temp, cb, c->k,
                                                          c->v, (int64_t)c->n,
                                                          merge_less_u32())
                        : cub::DeviceMergeSort::SortKeys(c->cub_temp, cb, c->k,
                                                         (int64_t)c->n,
                                                         merge_less_u32());
    case CUB_RADIX:   // cubkit.cuh: the way the sort chapter calls it too
        return c->pairs ? bk_cub_sort_pairs(c->cub_temp, &cb, c->k, c->alt_k,
                                            c->v, c->alt_v, c->n)
                        : bk_cub_sort_keys(c->cub_temp, &cb, c->k, c->alt_k,
                                           c->n);
    case OURS_ABS: return merge_sort_f32_abs(f, c->n, c->temp, c->temp_bytes, 0);
    default:
        return cub::DeviceMergeSort::SortKeys(c->cub_temp, cb, f, (int64_t)c->n,
                                              merge_less_abs_f32());
    }
}

static size_t cub_bytes_needed(size_t n, uint32_t *k, uint32_t *v,
                               uint32_t *ak, uint32_t *av)
{
    size_t m = 0, b = 0;
    BOOK_CHECK(cub::DeviceMergeSort::SortPairs(nullptr, b, k, v, (int64_t)n,
                                               merge_less_u32()));
    m = b > m ? b : m;
    BOOK_CHECK(cub::DeviceMergeSort::SortKeys(nullptr, b, (float *)k,
                                              (int64_t)n, merge_less_abs_f32()));
    m = b > m ? b : m;
    BOOK_CHECK(bk_cub_sort_pairs(nullptr, &b, k, ak, v, av, n));
    m = b > m ? b : m;
    BOOK_CHECK(cub::DeviceMergeSort::SortKeys(nullptr, b, k, (int64_t)n,
                                              merge_less_u32()));
    return b > m ? b : m;
}

// Sorted output?  A benchmark that times a wrong sort measures nothing.
// Every key, on the device (sorted_check.cuh): no descent in the sort's
// order, and the keys (and values) the same multiset as the input.
static void check_sorted(const ctx &c, bool abs)
{
    const uint32_t *res = c.kind == CUB_RADIX ? c.alt_k : c.k;
    const uint32_t *resv = c.kind == CUB_RADIX ? c.alt_v : c.v;
    const unsigned long long d =
        sc_descents(res, c.n, abs ? SC_ABS_F32 : SC_BITS);
    const bool keys = sc_hash(res, c.n) == sc_hash(c.src_k, c.n);
    const bool vals = !c.pairs || sc_hash(resv, c.n) == sc_hash(c.src_v, c.n);
    if (d || !keys || !vals) {
        fprintf(stderr, "bench_merge: kind %d, n %zu: %llu descents%s%s\n",
                c.kind, c.n, d, keys ? "" : ", keys changed",
                vals ? "" : ", values changed");
        exit(EXIT_FAILURE);
    }
}

static const char *kname[] = {"merge_sort", "merge_sort_ipt4",
                              "merge_sort_ipt16", "cub_merge_sort",
                              "cub_radix_sort", "merge_sort_abs",
                              "cub_merge_sort_abs", "merge_sort_ipt7",
                              "merge_sort_ipt9", "merge_sort_ipt15",
                              "merge_sort_ipt17"};

// One row a variant: time (copy subtracted), G keys/s, passes of the merge
// sort (the block sort counted) and the bytes they move (8 per key and
// pass, 16 for pairs) over the time, against the copy; the ratios to CUB's
// two sorts of the same keys; the floor of the design: those bytes at the
// copy's speed, in ms and G keys/s.  The copy and every kind are one case
// of benchkit's interleaved rounds; a kind's time in a round is its round
// median less the copy's of the same round, and ms is the median of
// those, lo_ms and hi_ms their min and max; the ratios' lo and hi are the
// min and max of the ratios within each round.
static void sort_rows(FILE *f, ctx c, const char *tag, int lg, double copy,
                      const int *kinds, int nk)
{
    double ms[KINDS] = {0}, lo[KINDS] = {0}, hi[KINDS] = {0};
    double t[KINDS][BK_MAX_ROUNDS] = {};
    char name[48];
    snprintf(name, sizeof name, "%s 2^%d", tag, lg);
    bk_rounds *r = bk_rounds_new(name);
    std::vector<ctx> cs(KINDS + 1, c);  // bk_rounds keeps the pointers
    cs[KINDS].copy_only = true;
    const int copy_i = bk_rounds_add(r, "copy", sort_once, &cs[KINDS], 0);
    int idx[KINDS];
    for (int q = 0; q < nk; q++) {
        cs[(size_t)q].kind = kinds[q];
        idx[q] = bk_rounds_add(r, kname[kinds[q]], sort_once, &cs[(size_t)q],
                               0);
    }
    bk_rounds_run(r);
    const int rounds = bk_rounds_count(r);
    const double copy_ms = bk_rounds_stat(r, copy_i).median;
    for (int q = 0; q < nk; q++) {
        const int k = kinds[q];
        for (int j = 0; j < rounds; j++)
            t[k][j] = bk_rounds_round(r, idx[q], j) -
                      bk_rounds_round(r, copy_i, j);
        double x[BK_MAX_ROUNDS];
        memcpy(x, t[k], sizeof(double) * (size_t)rounds);
        ms[k] = bk_median(x, (size_t)rounds);
        lo[k] = x[0];
        hi[k] = x[rounds - 1];
        // A benchmark that times a wrong sort measures nothing: one more
        // run, then the check.
        BOOK_CHECK(sort_once(&cs[(size_t)q]));
        BOOK_CHECK(cudaDeviceSynchronize());
        check_sorted(cs[(size_t)q], kind_abs(k));
    }
    bk_rounds_free(r);
    // The min and max over the rounds of t[ref] / t[k].
    auto spread = [&](int ref, int k, double *a, double *b) {
        *a = *b = t[ref][0] / t[k][0];
        for (int j = 1; j < rounds; j++) {
            *a = fmin(*a, t[ref][j] / t[k][j]);
            *b = fmax(*b, t[ref][j] / t[k][j]);
        }
    };
    bool has_radix = false;
    for (int q = 0; q < nk; q++) has_radix |= kinds[q] == CUB_RADIX;
    for (int q = 0; q < nk; q++) {
        const int k = kinds[q];
        const int ipt = kind_ipt(k);
        int passes = 1;
        for (size_t w = 256 * ipt; w < c.n; w *= 2) passes++;
        const double bytes = passes * (c.pairs ? 16.0 : 8.0) * c.n;
        const bool ours = k <= OURS16 || k == OURS_ABS || k >= OURS7;
        const double gbps = ours ? bytes / (ms[k] * 1e6) : 0;
        const int cm = kind_abs(k) ? CUB_ABS : CUB_MERGE;
        const double floor_ms = ours ? bytes / (copy * 1e6) : 0;
        double mlo, mhi, rlo = 0, rhi = 0;
        spread(cm, k, &mlo, &mhi);
        if (has_radix) spread(CUB_RADIX, k, &rlo, &rhi);
        bk_row(f, "%s_%s_%d,%s,%s,%d,%zu,%.4f,%.4f,%.3f,%d,%.0f,%.3f,%.3f,"
               "%.3f,%.1f,%.4f,%.2f,%.4f,%.4f,%.3f,%.3f,%.3f,%.3f,%d\n",
               kname[k], tag, lg, tag, kname[k], lg, c.n, copy_ms, ms[k],
               c.n / (ms[k] * 1e6), ours ? passes : 0, gbps, gbps / copy,
               ms[cm] / ms[k], has_radix ? ms[CUB_RADIX] / ms[k] : 0.0, copy,
               floor_ms, ours ? c.n / (floor_ms * 1e6) : 0.0, lo[k], hi[k],
               mlo, mhi, rlo, rhi, rounds);
    }
}

struct mctx {
    bool pairs, cub;
    size_t na, nb;
    const uint32_t *a, *b, *av, *bv;
    uint32_t *out, *outv;
    void *temp;
    size_t temp_bytes;
};
static cudaError_t merge_once(void *p)
{
    mctx *c = (mctx *)p;
    size_t tb = c->temp_bytes;
    if (c->cub)
        return c->pairs
            ? cub::DeviceMerge::MergePairs(c->temp, tb, c->a, c->av,
                                           (int64_t)c->na, c->b, c->bv,
                                           (int64_t)c->nb, c->out, c->outv,
                                           merge_less_u32())
            : cub::DeviceMerge::MergeKeys(c->temp, tb, c->a, (int64_t)c->na,
                                          c->b, (int64_t)c->nb, c->out,
                                          merge_less_u32());
    return c->pairs ? merge_pairs_u32(c->a, c->av, c->na, c->b, c->bv, c->nb,
                                      c->out, c->outv, c->temp, tb, 0)
                    : merge_u32(c->a, c->na, c->b, c->nb, c->out, c->temp, tb,
                                0);
}

// merge.csv: two sorted halves of 2^27 keys each, keys and pairs.
static void merge_rows(uint32_t *buf, uint32_t *vals, uint32_t *out,
                       uint32_t *outv, void *temp, size_t tb, double copy)
{
    const size_t h = (size_t)1 << 27;
    fill_keys<<<1024, 256>>>(buf, h, 1, 0, true);
    fill_keys<<<1024, 256>>>(buf + h, h, 77, 0, true);
    fill_keys<<<1024, 256>>>(vals, 2 * h, 5, 0, false);
    BOOK_CHECK(cudaGetLastError());
    FILE *f = bk_csv_open("merge", "variant,na,nb,ms,bytes,gbps,of_copy,"
                                   "of_cub,copy_gbps,lo_ms,hi_ms,of_cub_lo,"
                                   "of_cub_hi,rounds");
    for (int pairs = 0; pairs < 2; pairs++) {
        // Ours and CUB's, one case of benchkit's interleaved rounds.
        mctx c[2] = {{pairs != 0, false, h, h, buf, buf + h, vals, vals + h,
                      out, outv, temp, tb},
                     {pairs != 0, true, h, h, buf, buf + h, vals, vals + h,
                      out, outv, temp, tb}};
        const char *names[2][2] = {{"merge_keys", "cub_merge_keys"},
                                   {"merge_pairs", "cub_merge_pairs"}};
        bk_rounds *r = bk_rounds_new(pairs ? "merge pairs" : "merge keys");
        for (int w = 0; w < 2; w++)
            bk_rounds_add(r, names[pairs][w], merge_once, &c[w], 0);
        bk_rounds_run(r);
        const double bytes = (pairs ? 16.0 : 8.0) * 2 * h;
        for (int w = 0; w < 2; w++) {
            const bk_stat s = bk_rounds_stat(r, w), q = bk_ratio(r, 1, w);
            bk_row(f, "%s,%zu,%zu,%.4f,%.0f,%.1f,%.3f,%.3f,%.1f,%.4f,%.4f,"
                   "%.3f,%.3f,%d\n", names[pairs][w], h, h, s.median, bytes,
                   bytes / (s.median * 1e6), bytes / (s.median * 1e6) / copy,
                   q.median, copy, s.lo, s.hi, q.lo, q.hi, s.rounds);
        }
        bk_rounds_free(r);
    }
    bk_csv_close(f);
}

int main(void)
{
    const size_t nmax = (size_t)1 << 28, b = nmax * 4;
    uint32_t *src_k, *src_v, *k, *v, *ak, *av;
    BOOK_CHECK(cudaMalloc((void **)&src_k, b));
    BOOK_CHECK(cudaMalloc((void **)&src_v, b));
    BOOK_CHECK(cudaMalloc((void **)&k, b));
    BOOK_CHECK(cudaMalloc((void **)&v, b));
    BOOK_CHECK(cudaMalloc((void **)&ak, b));
    BOOK_CHECK(cudaMalloc((void **)&av, b));
    size_t tb = merge_sort_pairs_temp_bytes(nmax);
    size_t cb = cub_bytes_needed(nmax, k, v, ak, av), mb = 0;
    BOOK_CHECK(cub::DeviceMerge::MergePairs(nullptr, mb, src_k, src_v,
                                            (int64_t)nmax / 2, src_k, src_v,
                                            (int64_t)nmax / 2, k, v,
                                            merge_less_u32()));
    cb = mb > cb ? mb : cb;
    void *temp, *cub_temp;
    BOOK_CHECK(cudaMalloc(&temp, tb));
    BOOK_CHECK(cudaMalloc(&cub_temp, cb));
    const double copy = bk_copy_gbps(b);
    merge_rows(src_k, src_v, k, v, cub_temp, cb, copy);

    FILE *f = bk_csv_open("merge-sort",
                          "id,keys,variant,log2n,n,copy_ms,ms,gkeys,passes,"
                          "pass_gbps,of_copy,of_cub_merge,of_cub_radix,"
                          "copy_gbps,floor_ms,floor_gkeys,lo_ms,hi_ms,"
                          "of_cub_merge_lo,of_cub_merge_hi,of_cub_radix_lo,"
                          "of_cub_radix_hi,rounds");
    const int key_kinds[] = {CUB_MERGE, CUB_RADIX, OURS, OURS4, OURS16,
                             OURS7, OURS9, OURS15, OURS17};
    const int pair_kinds[] = {CUB_MERGE, CUB_RADIX, OURS};
    const int abs_kinds[] = {CUB_ABS, OURS_ABS};
    for (int lg = 20; lg <= 28; lg += 2) {
        const size_t n = (size_t)1 << lg;
        fill_keys<<<1024, 256>>>(src_k, n, 12345, 0, false);
        fill_keys<<<1024, 256>>>(src_v, n, 999, 0, false);
        BOOK_CHECK(cudaGetLastError());
        ctx c = {OURS, false, false, n, src_k, src_v, k, v, ak, av,
                 temp, cub_temp, tb, cb};
        sort_rows(f, c, "keys", lg, copy, key_kinds, 9);
        c.pairs = true;
        sort_rows(f, c, "pairs", lg, copy, pair_kinds, 3);
        c.pairs = false;
        to_floats<<<1024, 256>>>(src_k, (float *)src_v, n);
        BOOK_CHECK(cudaGetLastError());
        c.src_k = src_v;
        sort_rows(f, c, "f32", lg, copy, abs_kinds, 2);
    }
    // Few keys: 2^24 keys of 16 distinct values.
    fill_keys<<<1024, 256>>>(src_k, (size_t)1 << 24, 4242, 16, false);
    BOOK_CHECK(cudaGetLastError());
    ctx c = {OURS, false, false, (size_t)1 << 24, src_k, src_v, k, v, ak, av,
             temp, cub_temp, tb, cb};
    sort_rows(f, c, "few", 24, copy, key_kinds, 3);
    bk_csv_close(f);
    BOOK_CHECK(cudaFree(src_k));
    BOOK_CHECK(cudaFree(src_v));
    BOOK_CHECK(cudaFree(k));
    BOOK_CHECK(cudaFree(v));
    BOOK_CHECK(cudaFree(ak));
    BOOK_CHECK(cudaFree(av));
    BOOK_CHECK(cudaFree(temp));
    BOOK_CHECK(cudaFree(cub_temp));
    return 0;
}
