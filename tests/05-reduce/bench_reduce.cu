// bench_reduce.cu -- chapter 5's measurements (make bench).
// Every step of the ladder and every finish on 2^28 random floats (1 GiB,
// far beyond the 60 MB L2) and on 2^20, beside the streaming-read ceiling
// and CUB's DeviceReduce::Sum measured in the same run; the determinism of
// the finishes over 20 runs; the accuracy of four summation orders over
// 10^8 floats against a double sum.  Writes three CSV files.
#include <cub/cub.cuh>
#include <cmath>
#include <cstring>
#include <vector>
#include "benchkit.h"
#include "common/book.h"
#include "05-reduce/reduce.h"

struct ctx {
    const float *x; size_t n; float *out; void *work;
    reduce_fn fn; void *cub_tmp; size_t cub_bytes;
};
static cudaError_t run_fn(void *p)
{
    ctx *c = (ctx *)p;
    return c->fn(c->x, c->n, c->out, c->work);
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

int main(void)
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

    double read28 = bk_read_gbps(N28 * 4), read20 = bk_read_gbps(N20 * 4);
    timing cub = time_both(c, run_cub, 30);
    double cub28 = gbps(N28, cub.ms28), cub20 = gbps(N20, cub.ms20);

    FILE *f = bk_csv_open("05-reduce", "variant,label,ms_28,gbps_28,"
                          "of_read_28,of_cub_28,us_20,gbps_20,of_cub_20");
    fprintf(f, "read_ceiling,read ceiling,%.4f,%.1f,1.000,%.3f,%.2f,%.1f,%.3f\n",
            4.0 * N28 / (read28 * 1e6), read28, read28 / cub28,
            4.0 * N20 / (read20 * 1e3), read20, read20 / cub20);
    fprintf(f, "cub,CUB,%.4f,%.1f,%.3f,1.000,%.2f,%.1f,1.000\n", cub.ms28, cub28,
            cub28 / read28, cub.ms20 * 1e3, cub20);
    const char *names[] = {"atomic", "interleaved_divergent",
                           "interleaved_strided", "sequential", "first_add",
                           "warp_shuffle", "unrolled", "float4"};
    reduce_fn fns[] = {reduce_atomic, reduce_interleaved_divergent,
                       reduce_interleaved_strided, reduce_sequential,
                       reduce_first_add, reduce_warp_shuffle,
                       reduce_unrolled, reduce_float4};
    const char *labels[] = {"0 atomic", "1 divergent", "2 strided",
                            "3 sequential", "4 first add", "5 shuffle",
                            "6 unrolled", "7 float4"};
    for (int v = 0; v < 8; v++) {
        c.fn = fns[v];
        timing t = time_both(c, run_fn, v == 0 ? 20 : 30);
        double g28 = gbps(N28, t.ms28), g20 = gbps(N20, t.ms20);
        fprintf(f, "%s,%s,%.4f,%.1f,%.3f,%.3f,%.2f,%.1f,%.3f\n", names[v],
                labels[v], t.ms28, g28, g28 / read28, g28 / cub28, t.ms20 * 1e3, g20,
                g20 / cub20);
        printf("%-22s %9.3f ms %7.1f GB/s %.3f of CUB | 2^20: %7.2f us "
               "%.3f of CUB\n", names[v], t.ms28, g28, g28 / cub28,
               t.ms20 * 1e3, g20 / cub20);
    }
    fclose(f);

    // The finishes, and the other reductions: time, and distinct results
    // of 20 runs on the same input.
    FILE *g = bk_csv_open("05-reduce-finish", "variant,ms_28,gbps_28,"
                          "of_cub_28,us_20,of_cub_20,distinct_of_20");
    const char *fnames[] = {"second_kernel", "atomic_partials", "last_block",
                            "grid_sync", "compensated", "mean", "max"};
    reduce_fn ffns[] = {reduce_float4, reduce_finish_atomic,
                        reduce_last_block, reduce_grid_sync,
                        reduce_compensated, reduce_mean, reduce_max};
    for (int v = 0; v < 7; v++) {
        c.fn = ffns[v];
        timing t = time_both(c, run_fn, 30);
        std::vector<unsigned> seen;
        for (int r = 0; r < 20; r++) {
            float h;
            unsigned bits;
            BOOK_CHECK(ffns[v](x, N28, out, work));
            BOOK_CHECK(cudaMemcpy(&h, out, 4, cudaMemcpyDeviceToHost));
            memcpy(&bits, &h, 4);
            bool dup = false;
            for (unsigned s : seen) dup |= s == bits;
            if (!dup) seen.push_back(bits);
        }
        double g28 = gbps(N28, t.ms28), g20 = gbps(N20, t.ms20);
        fprintf(g, "%s,%.4f,%.1f,%.3f,%.2f,%.3f,%zu\n", fnames[v], t.ms28,
                g28, g28 / cub28, t.ms20 * 1e3, g20 / cub20, seen.size());
        printf("%-16s %9.3f ms %.3f of CUB | 2^20: %7.2f us | %zu distinct "
               "of 20\n", fnames[v], t.ms28, g28 / cub28, t.ms20 * 1e3,
               seen.size());
    }
    fclose(g);

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
    FILE *a = bk_csv_open("05-reduce-accuracy", "order,result,abs_err,"
                          "rel_err,bound");
    auto row = [&](const char *name, float r, double bound) {
        double e = std::fabs((double)r - exact);
        fprintf(a, "%s,%.1f,%.3g,%.3g,%.3g\n", name, r, e, e / exact, bound);
        printf("%-22s %.1f  rel err %.3g (bound %.3g)\n", name, r, e / exact,
               bound);
    };
    fprintf(a, "double_reference,%.1f,0,0,0\n", exact);
    row("sequential_cpu", seq, INFINITY);
    reduce_fn afns[] = {reduce_atomic, reduce_float4, reduce_compensated};
    const char *anames[] = {"atomic_step0", "tree_step7", "compensated"};
    double bounds[] = {INFINITY, hh * u / (1 - hh * u) * abs_sum / exact,
                       u + hh * hh * u * u * abs_sum / exact};
    for (int v = 0; v < 3; v++) {
        float r;
        BOOK_CHECK(afns[v](x, na, out, work));
        BOOK_CHECK(cudaMemcpy(&r, out, 4, cudaMemcpyDeviceToHost));
        row(anames[v], r, bounds[v]);
    }
    fclose(a);
    BOOK_CHECK(cudaFree(c.cub_tmp));
    BOOK_CHECK(cudaFree(work));
    BOOK_CHECK(cudaFree(out));
    BOOK_CHECK(cudaFree(x));
    return 0;
}
