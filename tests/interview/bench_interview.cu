// bench_interview.cu -- the interview appendix's measurements
// (make bench): each GPU version against the CPU reference (one thread),
// on the same inputs.  GPU times are kernels only (inputs already on the
// GPU), median of 20 runs after warm-up (for one kernel a diagonal beyond
// 20000 characters, benchkit's rule for slow work, bk_timed_ms: at least 3
// runs); gpu_h2d_ms adds the upload of the inputs over PCIe, for the case
// where the data starts on the host.  CPU times are the median of 3 runs
// (1 beyond 4000 characters; the batch's is ten times that of its first
// tenth; at 10^5 x 10^5, 10^10 entries and some 15 s, the time of the
// table's first 3000 rows times 10^5 / 3000: every row is the same loop
// over 10^5 entries).  Writes interview.csv, then interview-shapes.csv
// (shapes; bench --shapes writes only that).
#include <chrono>
#include <cstring>
#include <vector>
#include <algorithm>
#include "benchkit.h"
#include "common/book.h"
#include "interview/editdist.h"
#include "interview/tree.h"
#include "interview/interview_ref.h"
#include "variants.h"

static unsigned long long st = 0x1234567ull;
static unsigned long long next_rand(void)
{
    unsigned long long z = (st += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static double now_ms(void)
{
    using namespace std::chrono;
    return duration<double, std::milli>(
        steady_clock::now().time_since_epoch()).count();
}
template <typename F> static double cpu_ms(F f, int reps)
{
    std::vector<double> t;
    for (int r = 0; r < reps; r++) {
        double t0 = now_ms();
        f();
        t.push_back(now_ms() - t0);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}
static double h2d_ms(const void *h, size_t bytes)
{
    void *d;
    BOOK_CHECK(cudaMalloc(&d, bytes));
    double t0 = now_ms();
    BOOK_CHECK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));
    double t = now_ms() - t0;
    BOOK_CHECK(cudaFree(d));
    return t;
}

// What a timing runs: an edit-distance version of variants.h (its
// launcher's name keys the rows, its words say what it is), or the tree.
enum { RUN_TREE = ED_NVERSIONS };
static const char *const ed_launcher[] = {ED_VERSIONS(ED_VERSION_LAUNCHER)};
static const char *const ed_what[] = {ED_VERSIONS(ED_VERSION_WHAT)};
struct ctx {
    int which;                // an enum ed_version, or RUN_TREE
    const char *a, *b; size_t la, lb; int *work, *twork, *dist;
    const char *s; size_t nchars; const size_t *off; size_t pairs;
    const int *l, *r; const unsigned char *v; size_t n; void *tw;
    unsigned long long *sum;
};
static cudaError_t run(void *p)
{
    ctx *c = (ctx *)p;
    switch (c->which) {
    case ED_BY_DIAGONALS:
        return ed_diagonals(c->a, c->la, c->b, c->lb, c->work, c->dist, 0);
    case ED_BY_BLOCK:
        return ed_block(c->a, c->la, c->b, c->lb, c->dist, 0);
    case ED_BY_BATCH:
        return ed_batch(c->s, c->nchars, c->off, c->pairs, c->dist, 0);
    case ED_BY_TILES:
        return ed_tiled(c->a, c->la, c->b, c->lb, c->twork, c->dist, 0);
    default:
        return tree_path_sum(c->l, c->r, c->v, c->n, c->tw, c->sum, 0);
    }
}

static FILE *f;
// One row: a unique key, what ran, its size, the times and the ratios.
static void row(const char *key, const char *name, const char *size,
                double gpu, double h2d, double cpu)
{
    bk_row(f, "%s,%s,%s,%.4f,%.4f,%.4f,%.3f,%.3f\n", key, name, size, gpu,
           gpu + h2d, cpu, cpu / gpu, cpu / (gpu + h2d));
}

// The distance a timed version left in dist must be *want (set from the
// first version where *want < 0): a timing of wrong work is no timing.
static void same_distance(const int *dist, int *want, const char *key)
{
    int got;
    BOOK_CHECK(cudaMemcpy(&got, dist, sizeof got, cudaMemcpyDeviceToHost));
    if (*want < 0) *want = got;
    if (got != *want) {
        fprintf(stderr, "%s: distance %d, expected %d\n", key, got, *want);
        exit(EXIT_FAILURE);
    }
}

// PAIRS pairs of strings over 4 letters, each LO to LO + SPAN - 1 long
// (the lengths drawn first, then the letters), on the host and uploaded:
// pair k is s[off[2k], off[2k+1]) and s[off[2k+1], off[2k+2]).
struct batch {
    std::vector<size_t> off;
    std::vector<char> s;
    char *ds;
    size_t *doff;
};
static batch make_batch(size_t pairs, size_t lo, size_t span)
{
    batch b;
    b.off.resize(2 * pairs + 1);
    b.off[0] = 0;
    for (size_t k = 0; k < 2 * pairs; k++)
        b.off[k + 1] = b.off[k] + lo + next_rand() % span;
    b.s.resize(b.off[2 * pairs]);
    for (char &ch : b.s) ch = (char)('a' + next_rand() % 4);
    const size_t ob = b.off.size() * sizeof(size_t);
    BOOK_CHECK(cudaMalloc(&b.ds, b.s.size()));
    BOOK_CHECK(cudaMalloc(&b.doff, ob));
    BOOK_CHECK(cudaMemcpy(b.ds, b.s.data(), b.s.size(), cudaMemcpyHostToDevice));
    BOOK_CHECK(cudaMemcpy(b.doff, b.off.data(), ob, cudaMemcpyHostToDevice));
    return b;
}

// Two random strings of BIG letters over 4 into a and b, and both on
// the GPU, a then b, in the buffer returned.
static char *two_strings(size_t big, std::vector<char> &a,
                         std::vector<char> &b)
{
    a.resize(big);
    b.resize(big);
    for (size_t i = 0; i < big; i++) {
        a[i] = (char)('a' + next_rand() % 4);
        b[i] = (char)('a' + next_rand() % 4);
    }
    char *d;
    BOOK_CHECK(cudaMalloc(&d, 2 * big));
    BOOK_CHECK(cudaMemcpy(d, a.data(), big, cudaMemcpyHostToDevice));
    BOOK_CHECK(cudaMemcpy(d + big, b.data(), big, cudaMemcpyHostToDevice));
    return d;
}

static void edit_distances(void)
{
    const size_t big = 100000, cpu_rows = 3000;
    std::vector<char> a, b;
    char *d = two_strings(big, a, b);
    ctx c;
    memset(&c, 0, sizeof c);
    BOOK_CHECK(cudaMalloc(&c.work, ED_WORK_INTS(big, big) * sizeof(int)));
    BOOK_CHECK(cudaMalloc(&c.twork, ED_TILED_WORK_INTS(big, big) * sizeof(int)));
    BOOK_CHECK(cudaMalloc(&c.dist, 200000 * sizeof(int)));
    c.a = d; c.b = d + big;
    const size_t lens[] = {1000, 4000, 20000, 30000, 100000};
    for (size_t L : lens) {
        c.la = c.lb = L;
        char size[32], key[64];
        snprintf(size, sizeof size, "%zux%zu", L, L);
        int want = -1;           // the CPU's answer (at 10^5, the diagonals')
        double cpu = L <= 30000
            ? cpu_ms([&] { want = ed_ref(a.data(), L, b.data(), L); },
                     L > 4000 ? 1 : 3)
            : cpu_ms([&] { ed_ref(a.data(), cpu_rows, b.data(), L); }, 1) *
                  ((double)L / cpu_rows);
        double h2d = h2d_ms(a.data(), 2 * L);
        c.which = ED_BY_DIAGONALS;
        snprintf(key, sizeof key, "%s_%zu", ed_launcher[c.which], L);
        int reps;
        row(key, ed_what[c.which], size,
            L <= 20000 ? bk_median_ms(run, &c, 20)
                       : bk_timed_ms(run, &c, &reps, NULL), h2d, cpu);
        same_distance(c.dist, &want, key);
        if (L <= ED_BLOCK_MAX) {
            c.which = ED_BY_BLOCK;
            snprintf(key, sizeof key, "%s_%zu", ed_launcher[c.which], L);
            row(key, ed_what[c.which], size, bk_median_ms(run, &c, 20), h2d,
                cpu);
            same_distance(c.dist, &want, key);
        }
        c.which = ED_BY_TILES;
        snprintf(key, sizeof key, "%s_%zu", ed_launcher[c.which], L);
        row(key, ed_what[c.which], size, bk_median_ms(run, &c, 20), h2d,
            cpu);
        same_distance(c.dist, &want, key);
    }
    // A batch of 10^5 pairs of lengths 32 to 127 over 4 letters.
    const size_t pairs = 100000;
    batch bt = make_batch(pairs, 32, 96);
    const std::vector<size_t> &off = bt.off;
    const std::vector<char> &s = bt.s;
    c.which = ED_BY_BATCH; c.s = bt.ds; c.nchars = s.size(); c.off = bt.doff; c.pairs = pairs;
    // The CPU on the first tenth of the pairs, times ten (the pairs are
    // drawn alike; the whole batch would take the CPU seconds).
    double cpu = 10 * cpu_ms([&] {
        for (size_t k = 0; k < pairs / 10; k++)
            ed_ref(&s[off[2 * k]], off[2 * k + 1] - off[2 * k],
                   &s[off[2 * k + 1]], off[2 * k + 2] - off[2 * k + 1]);
    }, 1);
    double h2d = h2d_ms(s.data(), s.size()) +
                 h2d_ms(off.data(), off.size() * sizeof(size_t));
    row(ed_launcher[ED_BY_BATCH], ed_what[ED_BY_BATCH],
        "100000 pairs of 32-127",
        bk_median_ms(run, &c, 20), h2d, cpu);
    BOOK_CHECK(cudaFree(d)); BOOK_CHECK(cudaFree(bt.ds));
    BOOK_CHECK(cudaFree(bt.doff));
    BOOK_CHECK(cudaFree(c.work)); BOOK_CHECK(cudaFree(c.twork));
    BOOK_CHECK(cudaFree(c.dist));
}

static void trees(void)
{
    struct { const char *key, *name; int shape; size_t n; } cases[] = {
        {"tree_random_1000", "random tree", 2, 1000},
        {"tree_random_10000000", "random tree", 2, 10000000},
        {"tree_path", "path", 0, 1000000},
        {"tree_complete", "complete tree", 1, ((size_t)1 << 24) - 1},
    };
    for (auto &t : cases) {
        size_t n = t.n;
        std::vector<int> l(n, -1), r(n, -1);
        std::vector<unsigned char> v(n);
        for (size_t i = 0; i < n; i++) v[i] = (unsigned char)(next_rand() % 10);
        for (size_t i = 1; i < n; i++) {
            if (t.shape == 0) { l[i - 1] = (int)i; continue; }
            if (t.shape == 1) { (i % 2 ? l : r)[(i - 1) / 2] = (int)i; continue; }
            for (;;) {
                size_t p = next_rand() % i;
                if (l[p] < 0) { l[p] = (int)i; break; }
                if (r[p] < 0) { r[p] = (int)i; break; }
            }
        }
        ctx c;
        memset(&c, 0, sizeof c);
        int *dl, *dr;
        unsigned char *dv;
        BOOK_CHECK(cudaMalloc(&dl, n * sizeof(int)));
        BOOK_CHECK(cudaMalloc(&dr, n * sizeof(int)));
        BOOK_CHECK(cudaMalloc(&dv, n));
        BOOK_CHECK(cudaMalloc(&c.tw, TREE_WORK_BYTES(n)));
        BOOK_CHECK(cudaMalloc(&c.sum, sizeof *c.sum));
        BOOK_CHECK(cudaMemcpy(dl, l.data(), n * sizeof(int), cudaMemcpyHostToDevice));
        BOOK_CHECK(cudaMemcpy(dr, r.data(), n * sizeof(int), cudaMemcpyHostToDevice));
        BOOK_CHECK(cudaMemcpy(dv, v.data(), n, cudaMemcpyHostToDevice));
        c.which = RUN_TREE; c.l = dl; c.r = dr; c.v = dv; c.n = n;
        double cpu = cpu_ms([&] { tree_ref(l.data(), r.data(), v.data(), n); },
                            n > 1000000 ? 1 : 3);
        double h2d = h2d_ms(l.data(), n * sizeof(int)) +
                     h2d_ms(r.data(), n * sizeof(int)) + h2d_ms(v.data(), n);
        char size[32];
        snprintf(size, sizeof size, "%zu nodes", n);
        row(t.key, t.name, size, bk_median_ms(run, &c, 20), h2d, cpu);
        BOOK_CHECK(cudaFree(dl)); BOOK_CHECK(cudaFree(dr)); BOOK_CHECK(cudaFree(dv));
        BOOK_CHECK(cudaFree(c.tw)); BOOK_CHECK(cudaFree(c.sum));
    }
}

// Other shapes: short pairs (launch-bound), odd lengths (no multiple of 4
// or of the 64-entry tile, unequal), the headline 4000 and 20000, and
// small and odd batches: ed_tiled, ed_block (where the shorter string
// allows) and ed_batch against the one-thread CPU reference, as in
// edit_distances (at 20000 the CPU's first 3000 rows, scaled).  Rate:
// table entries a second.  Writes interview-shapes.csv; bench --shapes
// runs only this.
static void shapes(void)
{
    static const struct { const char *cls; size_t la, lb; } sh[] = {
        {"small", 10, 10}, {"small", 64, 64}, {"small", 255, 257},
        {"odd", 1001, 999}, {"odd", 777, 3001}, {"odd", 4001, 3999},
        {"headline", 4000, 4000}, {"headline", 20000, 20000},
    };
    const size_t big = 20000, cpu_rows = 3000;
    std::vector<char> a, b;
    char *d = two_strings(big, a, b);
    FILE *g = bk_shapes_open("interview");
    ctx c;
    memset(&c, 0, sizeof c);
    BOOK_CHECK(cudaMalloc(&c.twork, ED_TILED_WORK_INTS(big, big) * sizeof(int)));
    BOOK_CHECK(cudaMalloc(&c.dist, 1001 * sizeof(int)));
    c.a = d; c.b = d + big;
    for (const auto &e : sh) {
        c.la = e.la; c.lb = e.lb;
        char shape[32];
        snprintf(shape, sizeof shape, "%zux%zu", e.la, e.lb);
        int want = -1;
        double cpu = e.la <= 4001
            ? cpu_ms([&] { want = ed_ref(a.data(), e.la, b.data(), e.lb); },
                     e.la > 1001 ? 1 : 3)
            : cpu_ms([&] { ed_ref(a.data(), cpu_rows, b.data(), e.lb); }, 1) *
                  ((double)e.la / cpu_rows);
        const double cells = (double)e.la * e.lb;
        c.which = ED_BY_TILES;
        double t = bk_median_ms(run, &c, 20);
        same_distance(c.dist, &want, shape);
        bk_shape_row(g, e.cls, shape, ed_launcher[c.which], 1e3 * t,
                     cells / (t * 1e9), "Gcell/s", "cpu", 1e3 * cpu);
        if (std::min(e.la, e.lb) <= ED_BLOCK_MAX) {
            c.which = ED_BY_BLOCK;
            t = bk_median_ms(run, &c, 20);
            same_distance(c.dist, &want, shape);
            bk_shape_row(g, e.cls, shape, ed_launcher[c.which], 1e3 * t,
                         cells / (t * 1e9), "Gcell/s", "cpu", 1e3 * cpu);
        }
    }
    // Batches: 100 pairs of 32 to 127 letters (small), 1001 pairs of 1 to
    // 255 (odd).
    static const struct { const char *cls; size_t pairs, lo, span; } bts[] = {
        {"small", 100, 32, 96}, {"odd", 1001, 1, 255},
    };
    for (const auto &e : bts) {
        batch b = make_batch(e.pairs, e.lo, e.span);
        const std::vector<size_t> &off = b.off;
        const std::vector<char> &s = b.s;
        double cells = 0;
        for (size_t k = 0; k < e.pairs; k++)
            cells += (double)(off[2 * k + 1] - off[2 * k]) *
                     (off[2 * k + 2] - off[2 * k + 1]);
        int last = 0;
        double cpu = cpu_ms([&] {
            for (size_t k = 0; k < e.pairs; k++)
                last = ed_ref(&s[off[2 * k]], off[2 * k + 1] - off[2 * k],
                              &s[off[2 * k + 1]],
                              off[2 * k + 2] - off[2 * k + 1]);
        }, 3);
        c.which = ED_BY_BATCH; c.s = b.ds; c.nchars = s.size(); c.off = b.doff;
        c.pairs = e.pairs;
        double t = bk_median_ms(run, &c, 20);
        char shape[32];
        snprintf(shape, sizeof shape, "batch%zu-%zu-%zu", e.pairs, e.lo,
                 e.lo + e.span - 1);
        same_distance(c.dist + e.pairs - 1, &last, shape);
        // every pair, not the last alone (after the timings, untimed)
        std::vector<int> got(e.pairs);
        BOOK_CHECK(cudaMemcpy(got.data(), c.dist, e.pairs * sizeof(int),
                              cudaMemcpyDeviceToHost));
        for (size_t k = 0; k < e.pairs; k++) {
            const int w = ed_ref(&s[off[2 * k]], off[2 * k + 1] - off[2 * k],
                                 &s[off[2 * k + 1]],
                                 off[2 * k + 2] - off[2 * k + 1]);
            if (got[k] != w) {
                fprintf(stderr, "%s: pair %zu distance %d, expected %d\n",
                        shape, k, got[k], w);
                exit(EXIT_FAILURE);
            }
        }
        bk_shape_row(g, e.cls, shape, ed_launcher[c.which], 1e3 * t,
                     cells / (t * 1e9), "Gcell/s", "cpu", 1e3 * cpu);
        BOOK_CHECK(cudaFree(b.ds)); BOOK_CHECK(cudaFree(b.doff));
    }
    bk_csv_close(g);
    BOOK_CHECK(cudaFree(d)); BOOK_CHECK(cudaFree(c.twork));
    BOOK_CHECK(cudaFree(c.dist));
}

// ED_TILED_PROFILE=1: ed_tiled on one pair of 20000 (625 launches), twice,
// and nothing else, for a profiler (ncu -k regex:ed_tiled ...); no CSV.
static void profile_tiled(void)
{
    const size_t L = 20000;
    std::vector<char> a(2 * L);
    for (char &ch : a) ch = (char)('a' + next_rand() % 4);
    char *d;
    int *work, *dist;
    BOOK_CHECK(cudaMalloc(&d, 2 * L));
    BOOK_CHECK(cudaMalloc(&work, ED_TILED_WORK_INTS(L, L) * sizeof(int)));
    BOOK_CHECK(cudaMalloc(&dist, sizeof(int)));
    BOOK_CHECK(cudaMemcpy(d, a.data(), 2 * L, cudaMemcpyHostToDevice));
    for (int r = 0; r < 2; r++)
        BOOK_CHECK(ed_tiled(d, L, d + L, L, work, dist, 0));
    BOOK_CHECK(cudaDeviceSynchronize());
    BOOK_CHECK(cudaFree(d)); BOOK_CHECK(cudaFree(work)); BOOK_CHECK(cudaFree(dist));
}

int main(int argc, char **argv)
{
    if (getenv("ED_TILED_PROFILE")) { profile_tiled(); return 0; }
    if (bk_shapes_only(argc, argv)) { shapes(); return 0; }
    f = bk_csv_open("interview",
                    "key,case,size,gpu_ms,gpu_h2d_ms,cpu_ms,cpu_over_gpu,"
                    "cpu_over_gpu_h2d");
    edit_distances();
    trees();
    bk_csv_close(f);
    shapes();
    return 0;
}
