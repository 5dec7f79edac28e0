// benchkit.cu -- see benchkit.h.
#include "benchkit.h"
#include <cuda_bf16.h>
#include <algorithm>
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

// The median of REPS timed runs after three warm-ups; before each run
// (warm-ups included), outside the timed region, FLUSH when it is given.
static double median_ms(bk_work fn, void *ctx, int reps, bk_work flush,
                        void *fctx)
{
    if (reps < 20) reps = 20;
    cudaEvent_t a, b;
    BOOK_CHECK(cudaEventCreate(&a));
    BOOK_CHECK(cudaEventCreate(&b));
    for (int i = 0; i < 3; i++) {
        if (flush) BOOK_CHECK(flush(fctx));
        BOOK_CHECK(fn(ctx));
    }
    BOOK_CHECK(cudaDeviceSynchronize());
    std::vector<double> t(reps);
    for (int i = 0; i < reps; i++) {
        float ms;
        if (flush) BOOK_CHECK(flush(fctx));
        BOOK_CHECK(cudaEventRecord(a));
        BOOK_CHECK(fn(ctx));
        BOOK_CHECK(cudaEventRecord(b));
        BOOK_CHECK(cudaEventSynchronize(b));
        BOOK_CHECK(cudaEventElapsedTime(&ms, a, b));
        t[i] = ms;
    }
    BOOK_CHECK(cudaEventDestroy(a));
    BOOK_CHECK(cudaEventDestroy(b));
    return bk_median(t.data(), t.size());
}

double bk_median_ms(bk_work fn, void *ctx, int reps)
{
    return median_ms(fn, ctx, reps, NULL, NULL);
}

double bk_event_ms(bk_work fn, void *ctx)
{
    cudaEvent_t a, b;
    float ms = 0;
    BOOK_CHECK(cudaEventCreate(&a));
    BOOK_CHECK(cudaEventCreate(&b));
    BOOK_CHECK(cudaEventRecord(a));
    BOOK_CHECK(fn(ctx));
    BOOK_CHECK(cudaEventRecord(b));
    BOOK_CHECK(cudaEventSynchronize(b));
    BOOK_CHECK(cudaEventElapsedTime(&ms, a, b));
    BOOK_CHECK(cudaEventDestroy(a));
    BOOK_CHECK(cudaEventDestroy(b));
    return ms;
}

double bk_timed_ms(bk_work fn, void *ctx, int *reps, double *first_ms)
{
    const int fast = 20, slow = 3;
    const double budget = 200;                  // ms
    const double first = bk_event_ms(fn, ctx);
    if (first_ms) *first_ms = first;
    if (first * fast <= budget) {
        *reps = fast;
        return bk_median_ms(fn, ctx, fast);     // 3 warm-ups, 20 runs
    }
    *reps = std::min(std::max(slow, (int)(budget / first)), fast);
    std::vector<double> t((size_t)*reps);
    for (int i = 0; i < *reps; i++) t[(size_t)i] = bk_event_ms(fn, ctx);
    return bk_median(t.data(), t.size());
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
double bk_median_ms_cold(bk_work fn, void *ctx, int reps)
{
    int dev, l2, sms;
    BOOK_CHECK(cudaGetDevice(&dev));
    BOOK_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    BOOK_CHECK(book_sm_count(&sms));
    size_t bytes = 4 * (size_t)l2, least = (size_t)256 << 20;
    read_ctx c;
    c.n4 = (bytes > least ? bytes : least) / 16;
    c.blocks = sms * 8;
    BOOK_CHECK(cudaMalloc((void **)&c.x, c.n4 * 16));
    BOOK_CHECK(cudaMalloc(&c.sink, sizeof(float)));
    BOOK_CHECK(cudaMemset((void *)c.x, 0, c.n4 * 16));
    double ms = median_ms(fn, ctx, reps, run_read, &c);
    BOOK_CHECK(cudaFree((void *)c.x));
    BOOK_CHECK(cudaFree(c.sink));
    return ms;
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
    fprintf(f, "%s\n# device: %s, %d SMs\n%s\n", prov, p.name, p.multiProcessorCount, columns);
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
