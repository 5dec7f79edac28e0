// bench_method.cu -- the method chapter's measurements (make bench).
//   method.csv        the five histograms and CUB's HistogramEven on
//                        2^28 bytes, uniform and one repeated byte, beside
//                        the streaming-read ceiling of the same run
//   method-probe.csv  the launch rate and round trip of an empty kernel,
//                        and the latency chains in cycles and ns
//   method-shapes.csv the warp histogram against CUB at other sizes
//                        (shapes; bench --shapes writes only this)
// With --ncu it runs one launch of each histogram on 2^28 bytes of each
// input, for tests/method/counters.sh; with --variants it prints the
// histograms' names (variants.h), one a line, for the same script.
#include <cub/cub.cuh>
#include <chrono>
#include <cstring>
#include <vector>
#include <algorithm>
#include "benchkit.h"
#include "common/book.h"
#include "method/hist.h"
#include "method/probe.h"
#include "variants.h"

typedef cudaError_t (*hist_fn)(const unsigned char *, size_t, unsigned *,
                               cudaStream_t);
struct variant { const char *name; hist_fn fn; };
#define VARIANT(name, fn, sixteen) {name, fn},
static const variant variants[] = {METHOD_HISTOGRAMS(VARIANT)};
struct ctx {
    const unsigned char *x; size_t n; unsigned *bins; hist_fn fn;
    void *tmp; size_t tmp_bytes;
};
static cudaError_t run_hist(void *p)
{
    ctx *c = (ctx *)p;
    return c->fn(c->x, c->n, c->bins, 0);
}
static cudaError_t run_cub(void *p)
{
    ctx *c = (ctx *)p;
    return cub::DeviceHistogram::HistogramEven(
        c->tmp, c->tmp_bytes, c->x, (int *)c->bins, HIST_BINS + 1, 0, 256,
        (int64_t)c->n);
}

__global__ void fill_bytes_kernel(unsigned *x, size_t words, unsigned seed)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= words) return;
    unsigned long long z = (i + 1) * 0x9E3779B97F4A7C15ull + seed;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    x[i] = (unsigned)(z ^ (z >> 31));
}
static void fill(unsigned char *x, size_t n, bool same)
{
    if (same) { BOOK_CHECK(cudaMemset(x, 0x5a, n)); return; }
    size_t words = n / 4;
    fill_bytes_kernel<<<(unsigned)ceil_div(words, 256), 256>>>(
        (unsigned *)x, words, 12345u);
    BOOK_CHECK(cudaGetLastError());
    BOOK_CHECK(cudaDeviceSynchronize());
}

// One launch of every histogram, uniform bytes first, then one repeated
// byte: ten launches for ncu to profile in one process.
static int ncu_mode(int, char **, void *)
{
    const size_t n = (size_t)1 << 28;
    unsigned char *x; unsigned *bins;
    BOOK_CHECK(cudaMalloc(&x, n));
    BOOK_CHECK(cudaMalloc(&bins, HIST_BINS * sizeof(unsigned)));
    for (int same = 0; same < 2; same++) {
        fill(x, n, same);
        for (const variant &v : variants) BOOK_CHECK(v.fn(x, n, bins, 0));
    }
    BOOK_CHECK(cudaFree(x));
    BOOK_CHECK(cudaFree(bins));
    return 0;
}

// A context over BYTES of device input (x) and the bins; and CUB's
// scratch for c->n bytes.
static ctx hist_ctx(size_t bytes)
{
    ctx c;
    memset(&c, 0, sizeof c);
    unsigned char *x;
    BOOK_CHECK(cudaMalloc(&x, bytes));
    BOOK_CHECK(cudaMalloc(&c.bins, (HIST_BINS + 1) * sizeof(unsigned)));
    c.x = x;
    return c;
}
static void cub_scratch(ctx *c)
{
    c->tmp = NULL;
    BOOK_CHECK(cub::DeviceHistogram::HistogramEven(
        NULL, c->tmp_bytes, c->x, (int *)c->bins, HIST_BINS + 1, 0, 256,
        (int64_t)c->n));
    BOOK_CHECK(cudaMalloc(&c->tmp, c->tmp_bytes));
}

static void histograms(void)
{
    const size_t n = (size_t)1 << 28;   // 256 MiB, four times the L2
    const int reps = 25;
    double read = bk_read_gbps(n);
    ctx c = hist_ctx(n);
    unsigned char *x = (unsigned char *)c.x;
    c.n = n;
    cub_scratch(&c);
    FILE *f = bk_csv_open("method",
                          "variant,kernel,input,n,ms,gbps,of_read,of_cub");
    bk_row(f, "read_ceiling,read ceiling,-,%zu,%.4f,%.1f,1.000,-\n", n,
           n / (read * 1e6), read);
    for (int same = 0; same < 2; same++) {
        const char *in = same ? "same" : "uniform";
        fill(x, n, same);
        double cub_ms = bk_median_ms(run_cub, &c, reps);
        double cub = n / (cub_ms * 1e6);
        bk_row(f, "cub_%s,CUB,%s,%zu,%.4f,%.1f,%.3f,1.000\n", in, in, n,
               cub_ms, cub, cub / read);
        for (const variant &v : variants) {
            c.fn = v.fn;
            double ms = bk_median_ms(run_hist, &c, 20);
            double g = n / (ms * 1e6);
            bk_row(f, "%s_%s,%s,%s,%zu,%.4f,%.1f,%.4f,%.4f\n", v.name, in,
                   v.name, in, n, ms, g, g / read, g / cub);
        }
    }
    bk_csv_close(f);
    BOOK_CHECK(cudaFree(x));
    BOOK_CHECK(cudaFree(c.bins));
    BOOK_CHECK(cudaFree(c.tmp));
}

// Other shapes: small (a few blocks: launch-bound), odd (n no multiple of
// 4 or of the 16 bytes a thread reads) and the headline 2^28, the warp
// histogram (the chapter's best) against CUB's HistogramEven in the same
// run, uniform bytes (one repeated byte at the headline size too).
// Writes method-shapes.csv; bench --shapes runs only this.
static void shapes(void)
{
    static const struct { const char *cls; size_t n; bool same; } sh[] = {
        {"small", 4096, false},
        {"small", 65536, false},
        {"small", 1000, false},
        {"odd", 1000003, false},
        {"odd", ((size_t)1 << 25) + 3, false},
        {"odd", 100000007, false},
        {"headline", (size_t)1 << 28, false},
        {"headline", (size_t)1 << 28, true},
    };
    const size_t most = (size_t)1 << 28;
    ctx c = hist_ctx(most);
    unsigned char *x = (unsigned char *)c.x;
    c.fn = hist_warp;
    FILE *f = bk_shapes_open("method");
    for (const auto &s : sh) {
        fill(x, most, s.same);
        c.n = s.n;
        cub_scratch(&c);
        const double cub_ms = bk_median_ms(run_cub, &c, 20);
        const double ms = bk_median_ms(run_hist, &c, 20);
        char shape[48];
        snprintf(shape, sizeof shape, "%zu%s", s.n, s.same ? "-same" : "");
        bk_shape_row(f, s.cls, shape, "warp", 1e3 * ms, s.n / (ms * 1e6),
                     "GB/s", "cub", 1e3 * cub_ms);
        BOOK_CHECK(cudaFree(c.tmp));
    }
    bk_csv_close(f);
    BOOK_CHECK(cudaFree(x));
    BOOK_CHECK(cudaFree(c.bins));
}

static double now_us(void)
{
    using namespace std::chrono;
    return duration<double, std::micro>(
        steady_clock::now().time_since_epoch()).count();
}

// The verdicts of section "Folklore, measured" for the rules these probes
// test, by one stated rule: a measurement within a factor of two of the
// rule's number holds it; otherwise the words say which way it is off.
static const char *judge(double measured, double claimed)
{
    return measured > 2 * claimed   ? "does not hold: more than twice"
           : measured < claimed / 2 ? "does not hold: less than half"
                                    : "holds (within a factor of 2)";
}
static void verdicts(double rate, double trip, double shfl, double shared)
{
    FILE *v = bk_csv_open("method-verdict", "rule,verdict");
    bk_row(v, "launch_rate,%s\n", judge(rate, 5.0));
    bk_row(v, "launch_round_trip,%s\n", judge(trip, 5.0));
    bk_row(v, "shfl_cycles,%s\n", judge(shfl, 5.0));
    bk_row(v, "shared_cycles,%s\n", judge(shared, 20.0));
    bk_row(v, "shfl_over_shared,%s\n", judge(shfl / shared, 0.25));
    bk_csv_close(v);
}

static void probes(void)
{
    FILE *f = bk_csv_open("method-probe", "probe,value,unit");
    // Launch rate: 2000 launches back to back between two events, median
    // of 25 such batches (after a warm-up).  Raw events, not benchkit's
    // held samples, on purpose: the probes measure the launch itself, host
    // side included (the round trip below waits for each launch), which a
    // gate that hides host work would take away.
    cudaEvent_t a, b;
    BOOK_CHECK(cudaEventCreate(&a));
    BOOK_CHECK(cudaEventCreate(&b));
    const int batch = 2000;
    std::vector<double> per;
    for (int r = 0; r < 28; r++) {
        BOOK_CHECK(cudaEventRecord(a));
        for (int i = 0; i < batch; i++) BOOK_CHECK(probe_empty(1, 32, 0));
        BOOK_CHECK(cudaEventRecord(b));
        BOOK_CHECK(cudaEventSynchronize(b));
        float ms;
        BOOK_CHECK(cudaEventElapsedTime(&ms, a, b));
        if (r >= 3) per.push_back(1000.0 * ms / batch);
    }
    std::sort(per.begin(), per.end());
    double rate = per[per.size() / 2];
    bk_row(f, "launch_rate,%.3f,us\n", rate);
    // Round trip: launch and wait, timed on the host, median of 1000.
    per.clear();
    for (int r = 0; r < 1010; r++) {
        double t0 = now_us();
        BOOK_CHECK(probe_empty(1, 32, 0));
        BOOK_CHECK(cudaStreamSynchronize(0));
        if (r >= 10) per.push_back(now_us() - t0);
    }
    std::sort(per.begin(), per.end());
    double trip = per[per.size() / 2];
    bk_row(f, "launch_round_trip,%.3f,us\n", trip);
    // The chains: 2^16 steps, median of 25 launches' cycles.
    int khz = 0;
    BOOK_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
    bk_row(f, "clock_mhz,%.0f,MHz\n", khz / 1000.0);
    long long *dt;
    unsigned *dout;
    BOOK_CHECK(cudaMalloc(&dt, sizeof *dt));
    BOOK_CHECK(cudaMalloc(&dout, 32 * sizeof *dout));
    const char *names[] = {"imad_chain", "shfl_chain", "shared_chain"};
    const unsigned steps = 1u << 16;
    double cycles[3];
    for (int op = PROBE_IMAD; op <= PROBE_SHARED; op++) {
        per.clear();
        for (int r = 0; r < 28; r++) {
            BOOK_CHECK(probe_chain(op, steps, 1, dt, dout, 0));
            long long t;
            BOOK_CHECK(cudaMemcpy(&t, dt, sizeof t, cudaMemcpyDeviceToHost));
            if (r >= 3) per.push_back((double)t / steps);
        }
        std::sort(per.begin(), per.end());
        double cyc = cycles[op] = per[per.size() / 2];
        bk_row(f, "%s,%.2f,cycles\n", names[op], cyc);
        bk_row(f, "%s_ns,%.2f,ns\n", names[op], cyc * 1000.0 / (khz / 1000.0));
    }
    bk_csv_close(f);
    verdicts(rate, trip, cycles[PROBE_SHFL], cycles[PROBE_SHARED]);
    BOOK_CHECK(cudaFree(dt));
    BOOK_CHECK(cudaFree(dout));
    BOOK_CHECK(cudaEventDestroy(a));
    BOOK_CHECK(cudaEventDestroy(b));
}

int main(int argc, char **argv)
{
    const int ncu = bk_ncu(argc, argv, 0, 0, "", ncu_mode, NULL);
    if (ncu >= 0) return ncu;
    if (argc == 2 && strcmp(argv[1], "--variants") == 0) {
        for (const variant &v : variants) printf("%s\n", v.name);
        return 0;
    }
    if (bk_shapes_only(argc, argv)) {
        shapes();
        return 0;
    }
    probes();
    histograms();
    shapes();
    return 0;
}
