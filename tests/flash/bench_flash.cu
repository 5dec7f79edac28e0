// bench_flash.cu -- the bf16 attention chapter's measurements: every
// launcher of variants.h at B8 H16 S4096 D64 and B4 H16 S4096 D128, causal
// and not, in [B][H][S][D] (and the best in [B][S][H][D]); the best and
// mma.sync against the sequence length at 16k tokens (B = 16384 / S, H16,
// D128); then one long head and two decoding shapes, the cases that do
// not fill the GPU, where the split keys run too (flash_split at
// flash_split_count's count; its workspace is allocated once, outside
// the timing).  Inputs uniform in [-1, 1), rounded to bf16.  Each group
// (headline, layout, length, few) is timed in benchkit's interleaved
// rounds: ms is the median of the round medians, lo_ms and hi_ms their
// min and max; TFLOP/s counting 4 D FLOPs for every (query, key) pair
// that is not masked.
// Writes figures/data/$BOOK_GPU/flash.csv, and flash-timing.csv (both
// timing methods on the decoding shapes); tests/flash/counters.sh then
// measures PyTorch's SDPA backends on the same shapes and writes the
// ratios.  `bench --ncu NAME [d64]` runs one launch of variant NAME at the
// D128 shape (or the D64 one) instead, for Nsight Compute.
#include "benchkit.h"
#include "variants.h"
#include <string.h>
#include <vector>

struct variant {
    const char *name;
    flash_fn fn;
};
#define FL_BENCH_ENTRY(name, fn, listing, cc) {name, fn},
static const variant variants[] = {FLASH_VARIANTS(FL_BENCH_ENTRY)};
static const int kVariants = sizeof variants / sizeof variants[0];

struct job {
    flash_fn fn;
    const book_bf16 *q, *k, *v;
    book_bf16 *o;
    flash_dims a;
};
static cudaError_t run(void *p)
{
    job *j = (job *)p;
    return j->fn(j->q, j->k, j->v, j->o, NULL, j->a, 0);
}

// FLOPs: 4 D for every (query, key) pair that is seen.
static double flops(flash_dims a)
{
    double pairs = 0;
    if (!a.causal) {
        pairs = (double)a.Sq * a.Sk;
    } else {
        for (size_t i = 0; i < a.Sq; i++) {
            long long seen = (long long)i + (long long)a.Sk - (long long)a.Sq + 1;
            if (seen > (long long)a.Sk) seen = (long long)a.Sk;
            if (seen > 0) pairs += (double)seen;
        }
    }
    return 4.0 * a.B * a.H * a.D * pairs;
}

static book_bf16 *q, *k, *v, *o;

// The split keys as a flash_fn: the rule's count for this GPU, and the
// workspace allocated in main.
static void *work;
static size_t work_bytes;
static int sms;
static cudaError_t split_rule(const book_bf16 *q, const book_bf16 *k,
                              const book_bf16 *v, book_bf16 *o,
                              float *lse, flash_dims a, cudaStream_t stream)
{
    return flash_split(q, k, v, o, lse, a, flash_split_count(a, sms), work,
                       work_bytes, stream);
}

// The measurements of one group, timed together in interleaved rounds
// (benchkit's bk_rounds): each variant on each shape once a round, so
// that the clock's drift touches all alike.
struct item {
    const variant *var;
    const char *cas;
    flash_dims a;
    job j;
};
static std::vector<item> group;
static void add(const variant &var, const char *cas, flash_dims a)
{
    group.push_back({&var, cas, a, {var.fn, q, k, v, o, a}});
}

// One row an item: variant, case and shape; the median time over the
// rounds and TFLOP/s, the min and max of the round medians (0 and - when
// the launcher refuses the shape or the GPU).
static void run_group(FILE *csv, const char *name)
{
    bk_rounds *r = bk_rounds_new(name);
    for (auto &it : group) {
        char id[96];
        snprintf(id, sizeof id, "%s/%s", it.cas, it.var->name);
        bk_rounds_add(r, id, run, &it.j, 0);
    }
    bk_rounds_run(r);
    for (size_t i = 0; i < group.size(); i++) {
        const item &it = group[i];
        const flash_dims a = it.a;
        char shape[96];
        if (a.Sq == a.Sk)
            snprintf(shape, sizeof shape, "B%zuH%zuS%zuD%zu", a.B, a.H, a.Sq,
                     a.D);
        else
            snprintf(shape, sizeof shape, "B%zuH%zuSq%zuSk%zuD%zu", a.B, a.H,
                     a.Sq, a.Sk, a.D);
        const char *layout = a.layout == FLASH_BHSD ? "bhsd" : "bshd";
        const bk_stat st = bk_rounds_stat(r, (int)i);
        if (!st.ok) {
            bk_row(csv, "%s/%s,%s,%s,%s,%d,%s,-,-,0,-,-,%d\n", it.cas,
                   it.var->name, it.cas, it.var->name, shape, a.causal,
                   layout, st.rounds);
            continue;
        }
        const double tf = flops(a) / (st.median * 1e9);
        bk_row(csv, "%s/%s,%s,%s,%s,%d,%s,%.4f,%.1f,%d,%.4f,%.4f,%d\n",
               it.cas, it.var->name, it.cas, it.var->name, shape, a.causal,
               layout, st.median, tf, st.reps, st.lo, st.hi, st.rounds);
    }
    bk_rounds_free(r);
    group.clear();
}

static const variant *find(const char *name)
{
    for (int i = 0; i < kVariants; i++)
        if (strcmp(variants[i].name, name) == 0) return &variants[i];
    return NULL;
}

// bench --ncu VARIANT [d64 | d128]: one launch of VARIANT on the D = 128
// shape, or the one named, for tests/flash/ncu.sh.
static int ncu_one(int nargs, char **args, void *shapes)
{
    static const char *const names[] = {"d64", "d128"};
    const int w = BK_NCU_PICK("variant", args[0], variants);
    const int s = nargs < 2 ? 1 : bk_ncu_pick("shape", args[1], names, 2,
                                              sizeof *names);
    if (w < 0 || s < 0) return 2;
    BOOK_CHECK(variants[w].fn(q, k, v, o, NULL,
                              ((const flash_dims *)shapes)[s], 0));
    return 0;
}

int main(int argc, char **argv)
{
    const size_t elems = (size_t)64 << 20;  // 128 MiB of bf16 each
    BOOK_TRY(cudaMalloc(&q, elems * 2));
    BOOK_TRY(cudaMalloc(&k, elems * 2));
    BOOK_TRY(cudaMalloc(&v, elems * 2));
    BOOK_TRY(cudaMalloc(&o, elems * 2));
    bk_fill_random_bf16(q, elems, -1, 1, 1);
    bk_fill_random_bf16(k, elems, -1, 1, 2);
    bk_fill_random_bf16(v, elems, -1, 1, 3);
    const flash_dims d64 = {8, 16, 4096, 4096, 64, 0, FLASH_BHSD};
    const flash_dims d128 = {4, 16, 4096, 4096, 128, 0, FLASH_BHSD};
    const flash_dims shapes[2] = {d64, d128};
    const int ncu = bk_ncu(argc, argv, 1, 2, "VARIANT [d64 | d128]", ncu_one,
                           (void *)shapes);
    if (ncu >= 0) return ncu;
    bk_progress_start("flash", 30);
    FILE *csv = bk_csv_open("flash", "id,case,variant,shape,causal,layout,"
                                     "ms,tflops,reps,lo_ms,hi_ms,rounds");
    group.reserve(64);      // bk_rounds keeps pointers to the jobs
    // The headline shapes, every launcher.
    for (int c = 0; c < 4; c++) {
        flash_dims a = c < 2 ? d64 : d128;
        a.causal = c % 2;
        const char *cas[4] = {"d64", "d64c", "d128", "d128c"};
        for (int i = 0; i < kVariants; i++) add(variants[i], cas[c], a);
    }
    run_group(csv, "headline");
    // The layout projections produce.
    for (int c = 0; c < 2; c++) {
        flash_dims a = d128;
        a.causal = c;
        a.layout = FLASH_BSHD;
        add(*find("best"), c ? "d128c_bshd" : "d128_bshd", a);
    }
    run_group(csv, "layout");
    // The sequence length at 16k tokens.
    for (size_t S = 512; S <= 16384; S *= 2)
        for (int c = 0; c < 2; c++) {
            flash_dims a = {16384 / S, 16, S, S, 128, c, FLASH_BHSD};
            static char names[16][32];
            static int used = 0;
            char *cas = names[used++];
            snprintf(cas, sizeof names[0], "s%zu%s", S, c ? "c" : "");
            add(*find("mma"), cas, a);
            add(*find("best"), cas, a);
        }
    run_group(csv, "length");
    // The shapes that do not fill the GPU: one long head, decoding.
    const struct { const char *cas; flash_dims a; } few[] = {
        {"long128", {1, 1, 5000, 5000, 128, 0, FLASH_BHSD}},
        {"long128c", {1, 1, 5000, 5000, 128, 1, FLASH_BHSD}},
        {"dec128", {1, 16, 1, 32768, 128, 0, FLASH_BHSD}},
        {"dec64", {4, 16, 16, 8192, 64, 0, FLASH_BHSD}},
        {"dec128k", {1, 2, 1, 131072, 128, 0, FLASH_BHSD}},
    };
    int dev;
    BOOK_TRY(cudaGetDevice(&dev));
    BOOK_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    for (const auto &f : few) {
        size_t need = flash_split_work_bytes(f.a, flash_split_count(f.a, sms));
        if (need > work_bytes) work_bytes = need;
    }
    if (work_bytes) BOOK_TRY(cudaMalloc(&work, work_bytes));
    static const variant split = {"split", split_rule};
    for (const auto &f : few) {
        add(*find("mma"), f.cas, f.a);
        add(*find("best"), f.cas, f.a);
        add(split, f.cas, f.a);
    }
    run_group(csv, "few");
    bk_csv_close(csv);
    // The two timing methods side by side on the decoding shapes, where
    // a call is tens of microseconds and the launcher's host work a large
    // part of the old method's time (flash-timing.csv; the method chapter
    // shows it).
    FILE *tcsv = bk_timing_open("flash");
    for (const auto &f : few) {
        if (f.a.Sq > 16) continue;
        const variant *vs[2] = {find("best"), &split};
        for (const variant *var : vs) {
            job j = {var->fn, q, k, v, o, f.a};
            char id[64];
            snprintf(id, sizeof id, "flash/%s/%s", var->name, f.cas);
            bk_timing_row(tcsv, id, run, &j);
        }
    }
    bk_csv_close(tcsv);
    bk_progress_stop();
    return 0;
}
