// bench_reduce.cu -- the reduce chapter's measurements (make bench).
// Every step of the ladder and every finish on 2^28 random floats (1 GiB,
// far beyond the 60 MB L2) and on 2^20, beside the streaming-read ceiling
// and CUB's DeviceReduce::Sum measured in the same run; the determinism of
// the finishes over 20 runs; the accuracy of four summation orders over
// 10^8 floats against a double sum; the shapes a user brings.  Writes four
// CSV files.
//   bench --shapes   writes only reduce-shapes.csv.
#include <cub/cub.cuh>
#include <cmath>
#include <cstring>
#include <vector>
#include "benchkit.h"
#include "common/book.h"
#include "reduce/reduce.h"
#include "variants.h"

struct ctx {
    const float *x; size_t n; float *out; void *work;
    reduce_fn fn; void *cub_tmp; size_t cub_bytes;
};
static cudaError_t run_fn(void *p)
{
    ctx *c = (ctx *)p;
    return c->fn(c->x, c->n, c->out, c->work, 0);
}
static cudaError_t run_cub(void *p)
{
    ctx *c = (ctx *)p;
    return cub::DeviceReduce::Sum(c->cub_tmp, c->cub_bytes, c->x, c->out,
                                  (int64_t)c->n);
}

static const size_t N28 = (size_t)1 << 28, N20 = (size_t)1 << 20;

struct timing { double ms28, ms20; };
static timing time_both(ctx c, bk_work w, int reps28)
{
    timing t;
    c.n = N28; t.ms28 = bk_median_ms(w, &c, reps28);
    c.n = N20; t.ms20 = bk_median_ms(w, &c, 50);
    return t;
}
static double gbps(size_t n, double ms) { return 4.0 * n / (ms * 1e6); }

// The variants, one row each: the steps of the ladder and the other
// finishes (variants.h), the mean and the maximum, and the summation
// orders compared for accuracy.
struct variant { const char *name, *label; reduce_fn fn; };
#define LADDER_ROW(name, label, fn, sequential) {name, label, fn},
#define FINISH_ROW(name, fn) {name, "", fn},
static const variant ladder[] = {REDUCE_LADDER(LADDER_ROW)};
static const variant finishes[] = {
    {"second_kernel", "", reduce_float4},
    REDUCE_OTHER_FINISHES(FINISH_ROW)
    {"mean", "", reduce_mean},
    {"max", "", reduce_max},
};
static const variant orders[] = {
    {"atomic_step0", "", reduce_atomic},
    {"tree_step7", "", reduce_float4},
    {"compensated", "", reduce_compensated},
};

// The shapes a user brings (reduce-shapes.csv): small sums, bounded by
// launches; odd sizes (n mod 4 != 0, and a pointer off 16-byte alignment,
// which step 7 hands to step 6); the headline 2^28.  The chapter's best
// sums, step 7 (two launches) and the last block done (one), against CUB at
// the same n in the same run.  x holds at least 2^28 + 1 floats.
static void shapes(ctx c)
{
    const float *x = c.x;
    static const struct {
        const char *cls, *name; size_t n, off;
    } sh[] = {
        {"small", "2^10", 1 << 10, 0},    {"small", "2^12", 1 << 12, 0},
        {"small", "2^14", 1 << 14, 0},    {"small", "2^16", 1 << 16, 0},
        {"small", "2^20", 1 << 20, 0},    {"odd", "2^20+1", (1 << 20) + 1, 0},
        {"odd", "10^7+3", 10000003, 0},   {"odd", "10^7+3 at x+1", 10000003, 1},
        {"headline", "2^28", N28, 0},
    };
    const variant best[] = {
        {"float4", "", reduce_float4},
        {"last_block", "", reduce_last_block},
    };
    FILE *f = bk_shapes_open("reduce");
    for (const auto &s : sh) {
        c.x = x + s.off;
        c.n = s.n;
        double cub_us = 1e3 * bk_median_ms(run_cub, &c, 50);
        for (const variant &v : best) {
            c.fn = v.fn;
            if (s.off && v.fn == reduce_last_block) continue;  // refuses it
            double us = 1e3 * bk_median_ms(run_fn, &c, 50);
            bk_shape_row(f, s.cls, s.name, v.name, us, 4e-3 * s.n / us,
                         "GB/s", "cub", cub_us);
        }
    }
    bk_csv_close(f);
}

int main(int argc, char **argv)
{
    float *x, *out;
    void *work;
    BOOK_CHECK(cudaMalloc(&x, N28 * sizeof(float)));
    BOOK_CHECK(cudaMalloc(&out, sizeof(float)));
    size_t wb = reduce_workspace_bytes(N28);
    BOOK_CHECK(cudaMalloc(&work, wb));
    BOOK_CHECK(cudaMemset(work, 0, wb));
    bk_fill_random(x, N28, -1.0f, 1.0f, 5);
    ctx c = {x, N28, out, work, NULL, NULL, 0};
    BOOK_CHECK(cub::DeviceReduce::Sum(NULL, c.cub_bytes, x, out, (int64_t)N28));
    BOOK_CHECK(cudaMalloc(&c.cub_tmp, c.cub_bytes));
    if (bk_shapes_only(argc, argv)) {
        shapes(c);
        return 0;
    }

    double read28 = bk_read_gbps(N28 * 4), read20 = bk_read_gbps(N20 * 4);
    timing cub = time_both(c, run_cub, 30);
    double cub28 = gbps(N28, cub.ms28), cub20 = gbps(N20, cub.ms20);

    FILE *f = bk_csv_open("reduce", "variant,label,ms_28,gbps_28,"
                          "of_read_28,of_cub_28,us_20,gbps_20,of_cub_20");
    bk_row(f, "read_ceiling,read ceiling,%.4f,%.1f,1.000,%.3f,%.2f,%.1f,%.3f\n",
            4.0 * N28 / (read28 * 1e6), read28, read28 / cub28,
            4.0 * N20 / (read20 * 1e3), read20, read20 / cub20);
    bk_row(f, "cub,CUB,%.4f,%.1f,%.3f,1.000,%.2f,%.1f,1.000\n", cub.ms28, cub28,
            cub28 / read28, cub.ms20 * 1e3, cub20);
    for (const variant &v : ladder) {
        c.fn = v.fn;
        timing t = time_both(c, run_fn, v.fn == reduce_atomic ? 20 : 30);
        double g28 = gbps(N28, t.ms28), g20 = gbps(N20, t.ms20);
        bk_row(f, "%s,%s,%.4f,%.1f,%.3f,%.3f,%.2f,%.1f,%.3f\n", v.name,
               v.label, t.ms28, g28, g28 / read28, g28 / cub28, t.ms20 * 1e3,
               g20, g20 / cub20);
    }
    bk_csv_close(f);

    // The finishes, and the other reductions: time, and distinct results
    // of 20 runs on the same input.
    FILE *g = bk_csv_open("reduce-finish", "variant,ms_28,gbps_28,"
                          "of_cub_28,us_20,of_cub_20,distinct_of_20");
    for (const variant &v : finishes) {
        c.fn = v.fn;
        timing t = time_both(c, run_fn, 30);
        std::vector<unsigned> seen;
        for (int r = 0; r < 20; r++) {
            float h;
            unsigned bits;
            BOOK_CHECK(v.fn(x, N28, out, work, 0));
            BOOK_CHECK(cudaMemcpy(&h, out, 4, cudaMemcpyDeviceToHost));
            memcpy(&bits, &h, 4);
            bool dup = false;
            for (unsigned s : seen) dup |= s == bits;
            if (!dup) seen.push_back(bits);
        }
        double g28 = gbps(N28, t.ms28), g20 = gbps(N20, t.ms20);
        bk_row(g, "%s,%.4f,%.1f,%.3f,%.2f,%.3f,%zu\n", v.name, t.ms28, g28,
               g28 / cub28, t.ms20 * 1e3, g20 / cub20, seen.size());
    }
    bk_csv_close(g);

    // Accuracy: 10^8 floats in [0, 1).
    const size_t na = 100000000;
    bk_fill_random(x, na, 0.0f, 1.0f, 7);
    std::vector<float> h(na);
    BOOK_CHECK(cudaMemcpy(h.data(), x, na * 4, cudaMemcpyDeviceToHost));
    double exact = 0, abs_sum = 0;
    float seq = 0.0f;
    for (size_t i = 0; i < na; i++) {
        exact += h[i];
        abs_sum += std::fabs(h[i]);
        seq += h[i];
    }
    const double u = 0x1p-24, hh = 64.0 + std::ceil(na / 32768.0);
    FILE *a = bk_csv_open("reduce-accuracy", "order,result,abs_err,"
                          "rel_err,bound");
    auto row = [&](const char *name, float r, double bound) {
        double e = std::fabs((double)r - exact);
        bk_row(a, "%s,%.1f,%.3g,%.3g,%.3g\n", name, r, e, e / exact, bound);
    };
    bk_row(a, "double_reference,%.1f,0,0,0\n", exact);
    row("sequential_cpu", seq, INFINITY);
    double bounds[] = {INFINITY, hh * u / (1 - hh * u) * abs_sum / exact,
                       u + hh * hh * u * u * abs_sum / exact};
    for (int v = 0; v < 3; v++) {
        float r;
        BOOK_CHECK(orders[v].fn(x, na, out, work, 0));
        BOOK_CHECK(cudaMemcpy(&r, out, 4, cudaMemcpyDeviceToHost));
        row(orders[v].name, r, bounds[v]);
    }
    bk_csv_close(a);
    shapes(c);
    BOOK_CHECK(cudaFree(c.cub_tmp));
    BOOK_CHECK(cudaFree(work));
    BOOK_CHECK(cudaFree(out));
    BOOK_CHECK(cudaFree(x));
    return 0;
}
