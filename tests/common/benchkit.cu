// benchkit.cu -- see benchkit.h.
#include "benchkit.h"
#include <cuda_bf16.h>
#include "common/gate.cuh"
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdarg>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>
#include <dlfcn.h>

double bk_median(double *v, size_t n)
{
    std::sort(v, v + n);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// ---- The timing method ---------------------------------------------------
// Kernel time, not host work (benchkit.h says why).  A held sample: the
// gate kernel of common/gate.cuh holds the legacy stream while the host
// queues event a, N calls and event b; then the host opens the gate and
// waits.  The launchers' host work runs while the GPU is held, so the
// interval a..b holds the GPU's work alone.

// No module may load lazily while the gate holds the GPU: a lazy load
// waits for the device.  The driver reads CUDA_MODULE_LOADING when the
// first CUDA call initializes it, after the constructors.
__attribute__((constructor)) static void bk_eager_modules(void)
{
    setenv("CUDA_MODULE_LOADING", "EAGER", 1);
}

static int timing_host = -1;         // -1: not yet read from the environment
int bk_timing_is_host(void)
{
    if (timing_host < 0) {
        const char *e = getenv("BOOK_BENCH_TIMING");
        if (e && *e && strcmp(e, "host") != 0 && strcmp(e, "kernel") != 0) {
            fprintf(stderr, "bench: BOOK_BENCH_TIMING=%s: give host or "
                            "kernel (the default)\n", e);
            exit(1);
        }
        timing_host = e && strcmp(e, "host") == 0;
    }
    return timing_host;
}
void bk_timing_set_host(int host) { timing_host = host != 0; }
const char *bk_timing_name(void)
{
    return bk_timing_is_host() ? "host" : "kernel";
}

static const char *progress_last(void);   // the last progress line (below)

// The gate: a flag in mapped host memory, and the events of one sample.
static const unsigned long long kGateNs = 4000000000ull;  // opens itself
static const double kQueueLimitS = 2.0;
enum { kMaxCalls = 10 };
static volatile int *gate_flag = NULL;
static int *gate_dflag = NULL;
static cudaEvent_t ev_gate, ev_a[kMaxCalls], ev_b[kMaxCalls];
static void gate_init(void)
{
    if (gate_flag) return;
    int *h;
    BOOK_CHECK(cudaHostAlloc((void **)&h, sizeof(int), cudaHostAllocMapped));
    BOOK_CHECK(cudaHostGetDevicePointer((void **)&gate_dflag, h, 0));
    BOOK_CHECK(cudaEventCreate(&ev_gate));
    for (int i = 0; i < kMaxCalls; i++) {
        BOOK_CHECK(cudaEventCreate(&ev_a[i]));
        BOOK_CHECK(cudaEventCreate(&ev_b[i]));
    }
    *h = 0;
    gate_flag = h;
}
static void gate_open(void)
{
    std::atomic_thread_fence(std::memory_order_seq_cst);
    *gate_flag = 1;
    std::atomic_thread_fence(std::memory_order_seq_cst);
}

// A call failed while the gate held the GPU: open it, then stop.
static void held_fail(cudaError_t e)
{
    gate_open();
    (void)cudaDeviceSynchronize();
    fprintf(stderr, "bench: a timed call failed: %s (last progress: %s)\n",
            cudaGetErrorString(e), progress_last());
    exit(EXIT_FAILURE);
}

// One held sample: the time per call of N back-to-back calls of fn, in ms.
// With FLUSH, each call is preceded by the flush, and timed alone between
// events of its own (ev_a[i], ev_b[i]) that leave the flush out; the
// sample is the mean of the N calls.
static double held_sample(bk_work fn, void *ctx, int n, bk_work flush,
                          void *fctx)
{
    gate_init();
    if (n < 1) n = 1;
    if (n > kMaxCalls) n = kMaxCalls;
    *gate_flag = 0;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    BOOK_CHECK(cudaEventRecord(ev_gate, 0));
    book_gate_kernel<<<1, 1, 0, 0>>>(gate_dflag, kGateNs);
    BOOK_CHECK(cudaGetLastError());
    const auto t0 = std::chrono::steady_clock::now();
    cudaError_t e = cudaSuccess;
    if (!flush) {
        e = cudaEventRecord(ev_a[0], 0);
        for (int i = 0; i < n && e == cudaSuccess; i++) e = fn(ctx);
        if (e == cudaSuccess) e = cudaEventRecord(ev_b[0], 0);
    } else {
        for (int i = 0; i < n && e == cudaSuccess; i++) {
            e = flush(fctx);
            if (e == cudaSuccess) e = cudaEventRecord(ev_a[i], 0);
            if (e == cudaSuccess) e = fn(ctx);
            if (e == cudaSuccess) e = cudaEventRecord(ev_b[i], 0);
        }
    }
    const double queued = std::chrono::duration<double>(
        std::chrono::steady_clock::now() - t0).count();
    if (e != cudaSuccess) held_fail(e);
    gate_open();
    BOOK_CHECK(cudaEventSynchronize(ev_b[flush ? n - 1 : 0]));
    float held_ms = 0, ms = 0;
    BOOK_CHECK(cudaEventElapsedTime(&held_ms, ev_gate, ev_a[0]));
    if (queued > kQueueLimitS || held_ms >= 0.99 * kGateNs * 1e-6) {
        fprintf(stderr,
                "bench: queueing one timed sample of %d call%s took %.2f s "
                "and the gate held the GPU %.0f ms (its limit: %.0f ms).  A "
                "timed call waits for the device (cudaDeviceSynchronize, "
                "cudaStreamSynchronize, cudaMemcpy, cudaFree, a pageable "
                "copy...) or queues more than the device takes; its times "
                "would be wrong.  Make it queue only, or time it with "
                "bk_host_ms.  Last progress: %s\n",
                n, n == 1 ? "" : "s", queued, held_ms, kGateNs * 1e-6,
                progress_last());
        exit(EXIT_FAILURE);
    }
    if (!flush) {
        BOOK_CHECK(cudaEventElapsedTime(&ms, ev_a[0], ev_b[0]));
        return ms / n;
    }
    double sum = 0;
    for (int i = 0; i < n; i++) {
        BOOK_CHECK(cudaEventElapsedTime(&ms, ev_a[i], ev_b[i]));
        sum += ms;
    }
    return sum / n;
}

// One call between two events on an idle GPU: the old method, host work
// included.  FLUSH, when given, runs before it, outside the events.
static double host_sample(bk_work fn, void *ctx, bk_work flush, void *fctx)
{
    gate_init();
    float ms;
    if (flush) BOOK_CHECK(flush(fctx));
    BOOK_CHECK(cudaEventRecord(ev_a[0], 0));
    BOOK_CHECK(fn(ctx));
    BOOK_CHECK(cudaEventRecord(ev_b[0], 0));
    BOOK_CHECK(cudaEventSynchronize(ev_b[0]));
    BOOK_CHECK(cudaEventElapsedTime(&ms, ev_a[0], ev_b[0]));
    return ms;
}

int bk_calls_for(double ms)
{
    if (!(ms > 0)) return kMaxCalls;
    const double n = ceil(0.1 / ms);
    return n < 1 ? 1 : n > kMaxCalls ? kMaxCalls : (int)n;
}

// The median of REPS samples after WARM warm-up calls (each preceded by
// FLUSH when given), the warm-ups outside the gate, by method HOST (the
// old one) or kernel-only.  *calls, when not NULL, gets N.
static double timed_median(bk_work fn, void *ctx, int reps, int warm,
                           bk_work flush, void *fctx, int host, int *calls)
{
    for (int i = 0; i < warm; i++) {
        if (flush) BOOK_CHECK(flush(fctx));
        BOOK_CHECK(fn(ctx));
    }
    BOOK_CHECK(cudaDeviceSynchronize());
    std::vector<double> t((size_t)reps);
    int n = 1;
    if (!host) n = bk_calls_for(held_sample(fn, ctx, 1, flush, fctx));
    if (calls) *calls = n;
    for (int i = 0; i < reps; i++)
        t[(size_t)i] = host ? host_sample(fn, ctx, flush, fctx)
                            : held_sample(fn, ctx, n, flush, fctx);
    return bk_median(t.data(), t.size());
}

double bk_median_ms(bk_work fn, void *ctx, int reps)
{
    return timed_median(fn, ctx, reps < 20 ? 20 : reps, 3, NULL, NULL,
                        bk_timing_is_host(), NULL);
}

double bk_host_ms(bk_work fn, void *ctx, int reps)
{
    return timed_median(fn, ctx, reps < 20 ? 20 : reps, 3, NULL, NULL, 1,
                        NULL);
}

double bk_kernel_ms(bk_work fn, void *ctx, int reps)
{
    return timed_median(fn, ctx, reps < 20 ? 20 : reps, 3, NULL, NULL, 0,
                        NULL);
}

double bk_event_ms(bk_work fn, void *ctx)
{
    return bk_timing_is_host() ? host_sample(fn, ctx, NULL, NULL)
                               : held_sample(fn, ctx, 1, NULL, NULL);
}

// The book's rule for slow work.  The first call is outside the gate (it
// may set things up and wait for the device), timed between two events;
// the runs after it are samples of the method in force.
static const int kFastReps = 20, kSlowReps = 3;
static const double kBudgetMs = 200;
static int reps_for(double first)
{
    if (first * kFastReps <= kBudgetMs) return kFastReps;
    return std::min(std::max(kSlowReps, (int)(kBudgetMs / first)), kFastReps);
}
double bk_timed_ms(bk_work fn, void *ctx, int *reps, double *first_ms)
{
    const double first = host_sample(fn, ctx, NULL, NULL);
    if (first_ms) *first_ms = first;
    *reps = reps_for(first);
    if (*reps == kFastReps)
        return bk_median_ms(fn, ctx, kFastReps);   // 3 warm-ups, 20 runs
    return timed_median(fn, ctx, *reps, 0, NULL, NULL, bk_timing_is_host(),
                        NULL);
}

struct copy_ctx { void *dst; const void *src; size_t bytes; };
static cudaError_t run_copy(void *p)
{
    copy_ctx *c = (copy_ctx *)p;
    return cudaMemcpyAsync(c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice);
}
double bk_copy_gbps(size_t bytes)
{
    copy_ctx c = {NULL, NULL, bytes};
    BOOK_CHECK(cudaMalloc(&c.dst, bytes));
    BOOK_CHECK(cudaMalloc((void **)&c.src, bytes));
    BOOK_CHECK(cudaMemset(c.dst, 0, bytes));
    BOOK_CHECK(cudaMemset((void *)c.src, 1, bytes));
    double ms = bk_median_ms(run_copy, &c, 30);
    BOOK_CHECK(cudaFree(c.dst));
    BOOK_CHECK(cudaFree((void *)c.src));
    return 2.0 * bytes / (ms * 1e6);
}

// The read ceiling: each thread sums float4s over a grid-stride loop and
// writes one value only if the sum is impossible, so nothing is stored.
__global__ void read_kernel(const float4 *x, size_t n4, float *sink)
{
    float s = 0.f;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4;
         i += (size_t)gridDim.x * blockDim.x) {
        float4 v = x[i];
        s += v.x + v.y + v.z + v.w;
    }
    if (s == -1.0f) *sink = s;
}
struct read_ctx { const float4 *x; size_t n4; float *sink; int blocks; };
static cudaError_t run_read(void *p)
{
    read_ctx *c = (read_ctx *)p;
    read_kernel<<<c->blocks, 512>>>(c->x, c->n4, c->sink);
    return cudaGetLastError();
}
double bk_read_gbps(size_t bytes)
{
    read_ctx c;
    int sms = 0, per_sm = 0;
    BOOK_CHECK(book_sm_count(&sms));
    // One full wave: as many 512-thread blocks as fit on an SM at once (4 on
    // an H200), not a fixed number that would leave a second, partial wave.
    BOOK_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, read_kernel,
                                                          512, 0));
    c.n4 = bytes / 16;
    c.blocks = sms * (per_sm > 0 ? per_sm : 1);
    BOOK_CHECK(cudaMalloc((void **)&c.x, c.n4 * 16));
    BOOK_CHECK(cudaMalloc(&c.sink, sizeof(float)));
    BOOK_CHECK(cudaMemset((void *)c.x, 0, c.n4 * 16));
    double ms = bk_median_ms(run_read, &c, 30);
    BOOK_CHECK(cudaFree((void *)c.x));
    BOOK_CHECK(cudaFree(c.sink));
    return (double)c.n4 * 16 / (ms * 1e6);
}

// The L2 emptied between runs: the read kernel over max(4 x L2, 256 MiB)
// of zeros.  Reading, not writing, so that the lines it leaves are clean:
// the timed run drops them without writing anything back, while the
// previous run's dirty lines are written back here, before the timing.
// The flush buffer, made once (the first cold timing) and kept: a round
// of cold variants needs it every round.
static read_ctx *flush_buffer(void)
{
    static read_ctx c;
    if (c.x) return &c;
    int dev, l2, sms;
    BOOK_CHECK(cudaGetDevice(&dev));
    BOOK_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    BOOK_CHECK(book_sm_count(&sms));
    size_t bytes = 4 * (size_t)l2, least = (size_t)256 << 20;
    c.n4 = (bytes > least ? bytes : least) / 16;
    c.blocks = sms * 8;
    BOOK_CHECK(cudaMalloc((void **)&c.x, c.n4 * 16));
    BOOK_CHECK(cudaMalloc(&c.sink, sizeof(float)));
    BOOK_CHECK(cudaMemset((void *)c.x, 0, c.n4 * 16));
    BOOK_CHECK(cudaDeviceSynchronize());
    return &c;
}

// Cold: the flush before every call (warm-ups included).  Kernel-only,
// each call of a sample has events of its own inside the held sample, so
// that the flush between the calls is not counted (held_sample).
double bk_median_ms_cold(bk_work fn, void *ctx, int reps)
{
    return timed_median(fn, ctx, reps < 20 ? 20 : reps, 3, run_read,
                        flush_buffer(), bk_timing_is_host(), NULL);
}

// ---- Rounds ----------------------------------------------------------------
struct bk_rounds_variant {
    char name[96];
    bk_work fn;
    void *ctx;
    int flags, reps, calls, warm, refused;
    double first;
    double t[BK_MAX_ROUNDS];     // the round medians, ms
};
struct bk_rounds {
    char name[96];
    std::vector<bk_rounds_variant> v;
    int rounds;
};

bk_rounds *bk_rounds_new(const char *name)
{
    bk_rounds *r = new bk_rounds;
    snprintf(r->name, sizeof r->name, "%s", name);
    r->rounds = 0;
    return r;
}

void bk_rounds_free(bk_rounds *r) { delete r; }

int bk_rounds_add(bk_rounds *r, const char *name, bk_work fn, void *ctx,
                  int flags)
{
    bk_rounds_variant x = {};
    snprintf(x.name, sizeof x.name, "%s", name);
    x.fn = fn;
    x.ctx = ctx;
    x.flags = flags;
    r->v.push_back(x);
    return (int)r->v.size() - 1;
}

// The number of rounds: BOOK_BENCH_ROUNDS when set (a quick run, or a
// fixed count), else BK_MIN_ROUNDS to BK_MAX_ROUNDS by the rule.
static int fixed_rounds(void)
{
    const char *e = getenv("BOOK_BENCH_ROUNDS");
    if (!e || !*e) return 0;
    const int n = atoi(e);
    if (n < 1 || n > BK_MAX_ROUNDS) {
        fprintf(stderr, "bench: BOOK_BENCH_ROUNDS=%s: give 1 to %d\n", e,
                BK_MAX_ROUNDS);
        exit(1);
    }
    return n;
}

// The median of the first n round medians of x.
static double median_of(const bk_rounds_variant &x, int n)
{
    double t[BK_MAX_ROUNDS];
    memcpy(t, x.t, sizeof(double) * (size_t)n);
    return bk_median(t, (size_t)n);
}

// The first round of a variant: one call outside the gate (it may set
// things up; a refusal is recorded, not fatal), which gives the number of
// samples by the rule of bk_timed_ms; then its warm-ups and samples.
static void round_one(bk_rounds_variant &x, int k)
{
    const int host = (x.flags & BK_HOST) ? 1 : (x.flags & BK_KERNEL)
                                                   ? 0
                                                   : bk_timing_is_host();
    bk_work flush = (x.flags & BK_COLD) ? run_read : NULL;
    void *fctx = flush ? flush_buffer() : NULL;
    if (k == 0) {
        if (flush) BOOK_CHECK(flush(fctx));
        BOOK_CHECK(cudaEventRecord(ev_a[0], 0));
        cudaError_t e = x.fn(x.ctx);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            BOOK_CHECK(cudaDeviceSynchronize());
            x.refused = 1;
            bk_progress("%s: refused: %s", x.name, cudaGetErrorString(e));
            return;
        }
        BOOK_CHECK(cudaEventRecord(ev_b[0], 0));
        BOOK_CHECK(cudaEventSynchronize(ev_b[0]));
        float ms;
        BOOK_CHECK(cudaEventElapsedTime(&ms, ev_a[0], ev_b[0]));
        x.first = ms;
        x.reps = reps_for(ms);
        x.warm = x.reps == kFastReps ? 3 : 1;
    }
    if (x.refused) return;
    x.t[k] = timed_median(x.fn, x.ctx, x.reps, x.warm, flush, fctx, host,
                          &x.calls);
}

void bk_rounds_run(bk_rounds *r)
{
    gate_init();
    const int fixed = fixed_rounds();
    const int lo = fixed ? fixed : BK_MIN_ROUNDS;
    const int hi = fixed ? fixed : BK_MAX_ROUNDS;
    for (int k = 0; k < hi; k++) {
        for (auto &x : r->v) round_one(x, k);
        r->rounds = k + 1;
        bk_progress("%s: round %d of %d to %d", r->name, k + 1, lo, hi);
        if (r->rounds < lo) continue;
        // Stable: no median over the rounds moved by more than 1% with
        // the last round.
        bool stable = true;
        for (const auto &x : r->v) {
            if (x.refused) continue;
            const double now = median_of(x, r->rounds);
            const double before = median_of(x, r->rounds - 1);
            if (fabs(now - before) > 0.01 * now) stable = false;
        }
        if (stable) break;
    }
}

int bk_rounds_count(const bk_rounds *r) { return r->rounds; }

int bk_rounds_find(const bk_rounds *r, const char *name)
{
    for (size_t i = 0; i < r->v.size(); i++)
        if (strcmp(r->v[i].name, name) == 0) return (int)i;
    return -1;
}

bk_stat bk_rounds_stat(const bk_rounds *r, int i)
{
    bk_stat s = {NAN, NAN, NAN, r->rounds, 0, 0, 0, 0.0};
    if (i < 0 || i >= (int)r->v.size() || r->rounds == 0) return s;
    const bk_rounds_variant &x = r->v[(size_t)i];
    if (x.refused) return s;
    s.median = median_of(x, r->rounds);
    s.lo = s.hi = x.t[0];
    for (int k = 1; k < r->rounds; k++) {
        s.lo = fmin(s.lo, x.t[k]);
        s.hi = fmax(s.hi, x.t[k]);
    }
    s.reps = x.reps;
    s.calls = x.calls;
    s.ok = 1;
    s.first = x.first;
    return s;
}

double bk_rounds_round(const bk_rounds *r, int i, int k)
{
    if (i < 0 || i >= (int)r->v.size() || k < 0 || k >= r->rounds ||
        r->v[(size_t)i].refused)
        return NAN;
    return r->v[(size_t)i].t[k];
}

bk_stat bk_ratio(const bk_rounds *r, int num, int den)
{
    bk_stat a = bk_rounds_stat(r, num), b = bk_rounds_stat(r, den);
    bk_stat s = {NAN, NAN, NAN, r->rounds, 0, 0, 0, 0.0};
    if (!a.ok || !b.ok) return s;
    s.median = a.median / b.median;
    for (int k = 0; k < r->rounds; k++) {
        const double q = bk_rounds_round(r, num, k) / bk_rounds_round(r, den, k);
        s.lo = k ? fmin(s.lo, q) : q;
        s.hi = k ? fmax(s.hi, q) : q;
    }
    s.ok = 1;
    return s;
}

const char *bk_verdict(bk_stat v, double want, int at_most)
{
    if (!v.ok) return "no";
    if (v.lo <= want && want <= v.hi) return "within spread";
    return (at_most ? v.median <= want : v.median >= want) ? "yes" : "no";
}

void bk_target_spread(FILE *csv, const char *id, bk_stat v, double want,
                      int at_most)
{
    bk_row(csv, "%s,%.3f,%s%.2f,%s,%.3f,%.3f\n", id, v.median,
           at_most ? "at most " : "at least ", want,
           bk_verdict(v, want, at_most), v.lo, v.hi);
}

// ---- The two methods side by side ------------------------------------------
FILE *bk_timing_open(const char *chapter)
{
    char name[256];
    snprintf(name, sizeof name, "%s-timing", chapter);
    FILE *f = bk_csv_open(name, "id,host_us,kernel_us,ratio,host_lo,host_hi,"
                                "kernel_lo,kernel_hi,calls,rounds");
    fprintf(f, "# host_us: one call between two events on an idle GPU (the "
               "old method); kernel_us: N calls behind the gate, per call; "
               "ratio = host_us / kernel_us; lo, hi: min and max of the "
               "round medians\n");
    return f;
}

void bk_timing_row(FILE *csv, const char *id, bk_work fn, void *ctx)
{
    bk_rounds *r = bk_rounds_new(id);
    const int h = bk_rounds_add(r, "host", fn, ctx, BK_HOST);
    const int k = bk_rounds_add(r, "kernel", fn, ctx, BK_KERNEL);
    bk_rounds_run(r);
    const bk_stat a = bk_rounds_stat(r, h), b = bk_rounds_stat(r, k);
    if (a.ok && b.ok)
        bk_row(csv, "%s,%.2f,%.2f,%.3f,%.2f,%.2f,%.2f,%.2f,%d,%d\n", id,
               1e3 * a.median, 1e3 * b.median, a.median / b.median,
               1e3 * a.lo, 1e3 * a.hi, 1e3 * b.lo, 1e3 * b.hi, b.calls,
               r->rounds);
    else
        bk_row(csv, "%s,-,-,-,-,-,-,-,-,%d\n", id, r->rounds);
    bk_rounds_free(r);
}

template <typename T>
__global__ void fill_kernel(T *d, size_t n, float lo, float hi, unsigned long long seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        unsigned long long z = seed + 0x9e3779b97f4a7c15ull * (i + 1);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        d[i] = (T)(lo + (hi - lo) * (float)((z >> 40) * 0x1.0p-24));
    }
}
void bk_fill_random(float *d, size_t n, float lo, float hi, unsigned long long seed)
{
    fill_kernel<float><<<1024, 256>>>(d, n, lo, hi, seed);
    BOOK_CHECK(cudaGetLastError());
    BOOK_CHECK(cudaDeviceSynchronize());
}
void bk_fill_random_bf16(void *d, size_t n, float lo, float hi, unsigned long long seed)
{
    fill_kernel<__nv_bfloat16><<<1024, 256>>>((__nv_bfloat16 *)d, n, lo, hi, seed);
    BOOK_CHECK(cudaGetLastError());
    BOOK_CHECK(cudaDeviceSynchronize());
}

// The CSVs being written, each under PATH.tmp until bk_csv_close.
static const int kMaxCsv = 8;
static struct { FILE *f; char path[512]; } open_csv[kMaxCsv];
void bk_csv_close(FILE *csv)
{
    for (int i = 0; i < kMaxCsv; i++)
        if (open_csv[i].f == csv) {
            char tmp[520];
            snprintf(tmp, sizeof tmp, "%s.tmp", open_csv[i].path);
            if (fclose(csv) != 0 || rename(tmp, open_csv[i].path) != 0) {
                perror(open_csv[i].path);
                exit(1);
            }
            open_csv[i].f = NULL;
            return;
        }
    fclose(csv);
}

FILE *bk_csv_open(const char *chapter, const char *columns)
{
    const char *gpu = getenv("BOOK_GPU"), *prov = getenv("BOOK_PROVENANCE");
    if (!gpu || !*gpu || !prov || !*prov) {
        fprintf(stderr, "bench: BOOK_GPU and BOOK_PROVENANCE unset; run the benchmarks "
                        "through make bench (tools/bench.sh)\n");
        exit(1);
    }
    char path[512], tmp[520];
    snprintf(path, sizeof path, "figures/data/%s/%s.csv", gpu, chapter);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) { perror(tmp); exit(1); }
    for (int i = 0; i < kMaxCsv; i++)
        if (!open_csv[i].f) {
            open_csv[i].f = f;
            snprintf(open_csv[i].path, sizeof open_csv[i].path, "%s", path);
            break;
        }
    cudaDeviceProp p;
    BOOK_CHECK(cudaGetDeviceProperties(&p, 0));
    fprintf(f, "%s\n# device: %s, %d SMs\n# timing: %s\n%s\n", prov, p.name,
            p.multiProcessorCount,
            bk_timing_is_host()
                ? "host (one call between two events on an idle GPU, "
                  "host work included)"
                : "kernel (N calls behind a gate kernel, per call)",
            columns);
    printf("bench: writing %s\n", path);
    return f;
}

void bk_target(FILE *csv, const char *id, double v, double want, int at_most)
{
    const bool met = at_most ? v <= want : v >= want;
    bk_row(csv, "%s,%.3f,%s%.2f,%s\n", id, v, at_most ? "at most " : "at least ",
           want, met ? "yes" : "no");
}

void bk_row(FILE *csv, const char *fmt, ...)
{
    va_list a, b;
    va_start(a, fmt);
    va_copy(b, a);
    vfprintf(csv, fmt, a);
    vprintf(fmt, b);
    fflush(csv);
    fflush(stdout);
    va_end(b);
    va_end(a);
}

FILE *bk_shapes_open(const char *chapter)
{
    char name[256];
    snprintf(name, sizeof name, "%s-shapes", chapter);
    return bk_csv_open(name, "id,class,shape,variant,us,rate,unit,reference,"
                             "ref_us,of_reference");
}

void bk_shape_row(FILE *csv, const char *cls, const char *shape,
                  const char *variant, double us, double rate,
                  const char *unit, const char *reference, double ref_us)
{
    bk_row(csv, "%s/%s,%s,%s,%s,%.2f,%.4g,%s,%s,%.2f,%.3f\n", shape, variant,
           cls, shape, variant, us, rate, unit, reference, ref_us,
           ref_us / us);
}

const struct bk_count_shape bk_count_shapes[BK_COUNT_SHAPES] = {
    {"small", "2^10", 1 << 10, 0},        {"small", "2^12", 1 << 12, 0},
    {"small", "2^14", 1 << 14, 0},        {"small", "2^16", 1 << 16, 0},
    {"small", "2^20", 1 << 20, 0},        {"odd", "10^6+1", 1000001, 0},
    {"odd", "10^7+3", 10000003, 0},       {"odd", "10^7+3 at +1", 10000003, 1},
    {"headline", "2^28", (size_t)1 << 28, 0},
};

int bk_shapes_only(int argc, char **argv)
{
    return argc > 1 && strcmp(argv[1], "--shapes") == 0;
}

// --ncu.  The program's name, for bk_ncu_pick's message.
static const char *ncu_prog = "bench";
int bk_ncu(int argc, char **argv, int min, int max, const char *usage,
           bk_ncu_fn fn, void *ctx)
{
    if (argc < 2 || strcmp(argv[1], "--ncu") != 0) return -1;
    ncu_prog = argv[0];
    const int nargs = argc - 2;
    if (nargs < min || nargs > max) {
        fprintf(stderr, "%s --ncu: takes %s%s; got %d argument%s\n", argv[0],
                *usage ? "" : "no arguments", usage, nargs,
                nargs == 1 ? "" : "s");
        return 2;
    }
    const int rc = fn(nargs, argv + 2, ctx);
    if (rc == 0) BOOK_CHECK(cudaDeviceSynchronize());
    return rc;
}

int bk_ncu_pick(const char *what, const char *name, const char *const *names,
                size_t count, size_t stride)
{
    const char *at = (const char *)names;
    for (size_t i = 0; i < count; i++)
        if (strcmp(name, *(const char *const *)(at + i * stride)) == 0)
            return (int)i;
    fprintf(stderr, "%s --ncu: no %s %s; the %ss:", ncu_prog, what, name, what);
    for (size_t i = 0; i < count; i++)
        fprintf(stderr, " %s", *(const char *const *)(at + i * stride));
    fprintf(stderr, "\n");
    return -1;
}

// Progress lines.  The mutex, the condition variable and the thread are on
// the heap and never destroyed: a BOOK_CHECK that calls exit() while the
// heartbeat waits must not run their destructors (a joinable std::thread's
// calls std::terminate).
static const char *progress_name = "bench";
static auto progress_t0 = std::chrono::steady_clock::now();
static std::mutex &progress_mu = *new std::mutex;
static std::condition_variable &progress_cv = *new std::condition_variable;
static std::thread *progress_beat = NULL;
static char progress_line[256] = "start";
static double progress_at = 0;
static bool progress_done = false;
static const char *progress_last(void) { return progress_line; }

double bk_elapsed_s(void)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         progress_t0).count();
}

static void progress_heartbeat(int period_s)
{
    std::unique_lock<std::mutex> l(progress_mu);
    while (!progress_cv.wait_for(l, std::chrono::seconds(period_s),
                                 [] { return progress_done; })) {
        const double t = bk_elapsed_s();
        fprintf(stderr, "%s %8.2f s: still busy, %.1f s after: %s\n",
                progress_name, t, t - progress_at, progress_line);
        fflush(stderr);
    }
}

void bk_progress_start(const char *name, int heartbeat_s)
{
    progress_name = name;
    progress_t0 = std::chrono::steady_clock::now();
    if (heartbeat_s > 0 && !progress_beat)
        progress_beat = new std::thread(progress_heartbeat, heartbeat_s);
}

void bk_progress(const char *fmt, ...)
{
    va_list a;
    va_start(a, fmt);
    std::lock_guard<std::mutex> g(progress_mu);
    vsnprintf(progress_line, sizeof progress_line, fmt, a);
    va_end(a);
    progress_at = bk_elapsed_s();
    fprintf(stderr, "%s %8.2f s: %s\n", progress_name, progress_at,
            progress_line);
    fflush(stderr);
}

void bk_progress_stop(void)
{
    {
        std::lock_guard<std::mutex> g(progress_mu);
        progress_done = true;
    }
    progress_cv.notify_all();
    if (progress_beat) {
        progress_beat->join();
        delete progress_beat;
        progress_beat = NULL;
    }
}

// cuDNN at run time.
static void *cudnn_lib = NULL;
static bool cudnn_tried = false;
void *bk_cudnn_open(void)
{
    if (!cudnn_tried) {
        cudnn_tried = true;
        cudnn_lib = dlopen("libcudnn.so.9", RTLD_NOW);
        if (!cudnn_lib) cudnn_lib = dlopen("libcudnn.so", RTLD_NOW);
    }
    return cudnn_lib;
}

void *bk_cudnn_sym(const char *name)
{
    void *lib = bk_cudnn_open();
    return lib ? dlsym(lib, name) : NULL;
}

// Another chapter's measurement, read as tools/csv.awk reads a CSV.
static void measured_path(char *path, size_t size, const char *csv)
{
    const char *gpu = getenv("BOOK_GPU");
    if (!gpu || !*gpu) {
        fprintf(stderr, "bench: BOOK_GPU unset; run the benchmarks through "
                        "make bench (tools/bench.sh)\n");
        exit(1);
    }
    snprintf(path, size, "figures/data/%s/%s", gpu, csv);
}

// Split LINE (its newline removed) at the commas, in place: up to MAX
// fields, their count returned.
static int split_fields(char *line, char **field, int max)
{
    int n = 0;
    line[strcspn(line, "\r\n")] = '\0';
    for (char *p = line; n < max;) {
        field[n++] = p;
        p = strchr(p, ',');
        if (!p) break;
        *p++ = '\0';
    }
    return n;
}

double bk_measured(const char *csv, const char *key, const char *column)
{
    char path[512], keycol[128], line[4096];
    measured_path(path, sizeof path, csv);
    const char *eq = strchr(key, '=');
    if (!eq || (size_t)(eq - key) >= sizeof keycol) {
        fprintf(stderr, "bench: bk_measured: key %s is not column=value\n",
                key);
        exit(1);
    }
    snprintf(keycol, sizeof keycol, "%.*s", (int)(eq - key), key);
    const char *want = eq + 1;
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "bench: %s: no such file (its chapter's benchmark "
                        "writes it; make bench runs that one first)\n", path);
        return NAN;
    }
    enum { kMax = 64 };
    char *field[kMax];
    int kc = -1, vc = -1, header = 0;
    const char *why = "no such row";
    double v = NAN;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[strspn(line, " \t\r\n")] == '\0') continue;
        const int n = split_fields(line, field, kMax);
        if (!header) {
            header = 1;
            for (int i = 0; i < n; i++) {
                if (strcmp(field[i], keycol) == 0) kc = i;
                if (strcmp(field[i], column) == 0) vc = i;
            }
            if (kc < 0 || vc < 0) { why = "no such column"; break; }
            continue;
        }
        if (kc >= n || strcmp(field[kc], want) != 0) continue;
        char *end = NULL;
        why = "not a number there";
        if (vc < n) v = strtod(field[vc], &end);
        if (vc >= n || end == field[vc] || *end != '\0') v = NAN;
        break;
    }
    fclose(f);
    if (isnan(v))
        fprintf(stderr, "bench: %s, row %s, column %s: %s\n", path, key,
                column, why);
    return v;
}

void bk_measured_note(FILE *f, const char *csv, const char *key,
                      const char *column, double value)
{
    char path[512];
    measured_path(path, sizeof path, csv);
    fprintf(f, "# from %s, row %s, column %s: %g\n", path, key, column,
            value);
}
