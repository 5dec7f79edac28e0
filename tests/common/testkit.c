/* testkit.c -- see testkit.h. */
#define _POSIX_C_SOURCE 200809L   /* pthread barriers */
#include "testkit.h"
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int gpu_state = -1;
static char gpu_reason[160];
static int driver_too_old;

int tk_gpu_available(void)
{
    if (gpu_state < 0) {
        int n = 0;
        cudaError_t e = cudaGetDeviceCount(&n);
        /* A driver too old for the toolkit: the device is there but cannot
         * run the tests, which is a failure (tk_gpu_unusable), not a skip.
         * No driver at all (version 0) reports the same error: a skip. */
        int driver = 0;
        cudaDriverGetVersion(&driver);
        driver_too_old = e == cudaErrorInsufficientDriver && driver > 0;
        gpu_state = (e == cudaSuccess && n > 0) || driver_too_old;
        snprintf(gpu_reason, sizeof gpu_reason, "%s",
                 e == cudaErrorInsufficientDriver && !driver_too_old ? "no CUDA driver"
                 : e != cudaSuccess ? cudaGetErrorString(e) : n ? "" : "no devices");
    }
    return gpu_state;
}
const char *tk_gpu_why(void) { tk_gpu_available(); return gpu_reason; }

#ifndef TK_ARCHS
#define TK_ARCHS ""
#endif
const char *tk_gpu_unusable(void)
{
    static int state = -1;
    static char why[320];
    if (state < 0) {
        state = 0;
        int driver = 0, runtime = 0;
        cudaDriverGetVersion(&driver);
        cudaRuntimeGetVersion(&runtime);
        int cc = tk_compute_capability(), oldest = atoi(TK_ARCHS);  /* "75 80 ...": the first */
        if (driver_too_old) {
            snprintf(why, sizeof why, "the CUDA driver (%d.%d) is too old for the toolkit "
                     "the tests were built with (%d.%d): update the driver",
                     driver / 1000, driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10);
            state = 1;
        } else if (oldest && cc < oldest) {
            snprintf(why, sizeof why, "this GPU has compute capability %d.%d; the build has "
                     "code for %s only (set ARCH=native or archs in book.yaml)",
                     cc / 10, cc % 10, TK_ARCHS);
            state = 1;
        }
    }
    return state ? why : NULL;
}
int tk_compute_capability(void)
{
    int major = 0, minor = 0;
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0);
    return 10 * major + minor;
}
size_t tk_device_free_bytes(void)
{
    size_t free_b = 0, total = 0;
    return cudaMemGetInfo(&free_b, &total) == cudaSuccess ? free_b : 0;
}
int tk_env(const char *name) { const char *s = getenv(name); return s && *s && *s != '0'; }
int tk_small(void) { return tk_env("BOOK_SMALL"); }

void tk_cuda_ok(cudaError_t e, const char *what, const char *file, int line)
{
    if (e != cudaSuccess) {
        print_error("%s:%d: %s failed: %s\n", file, line, what, cudaGetErrorString(e));
        fail();
    }
}

uint64_t tk_seed(int round)
{
    static uint64_t fresh;
    const char *s = getenv("BOOK_SEED");
    if (s && *s) return strtoull(s, NULL, 10);
    if (round == 0) return 20261129u;
    if (!fresh) {
        fresh = (uint64_t)time(NULL) * 2654435761u ^ (uint64_t)getpid() << 16;
        fprintf(stderr, "testkit: fresh seed %llu (replay with BOOK_SEED=%llu)\n",
                (unsigned long long)fresh, (unsigned long long)fresh);
    }
    return fresh;
}
uint64_t tk_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
double tk_uniform(uint64_t *s, double lo, double hi)
{
    return lo + (hi - lo) * ((double)(tk_next(s) >> 11) * 0x1.0p-53);
}
void tk_fill(float *x, size_t n, double lo, double hi, uint64_t *s)
{
    for (size_t i = 0; i < n; i++) x[i] = (float)tk_uniform(s, lo, hi);
}
uint16_t tk_to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40);
    u += 0x7fff + ((u >> 16) & 1);
    return (uint16_t)(u >> 16);
}
double tk_from_bf16(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

void *tk_dev_bytes(size_t bytes)
{
    void *d = NULL;
    /* More than the GPU has free: a student's GPU need not hold the book's
     * largest tests, so the test is skipped, with the numbers. */
    size_t free_b = tk_device_free_bytes();
    if (bytes > free_b) {
        print_message("skipped: needs %.2f GiB of GPU memory in one buffer; %.2f GiB are free\n",
                      (double)bytes / (1 << 30), (double)free_b / (1 << 30));
        skip();
    }
    TK_CUDA(cudaMalloc(&d, bytes ? bytes : 1));
    tk_poison(d, bytes ? bytes : 1);
    return d;
}
float *tk_dev_floats(size_t n) { return tk_dev_bytes(n * sizeof(float)); }
int *tk_dev_ints(size_t n) { return tk_dev_bytes(n * sizeof(int)); }
long long *tk_dev_int64s(size_t n) { return tk_dev_bytes(n * sizeof(long long)); }
void tk_upload_bytes(void *d, const void *h, size_t bytes)
{
    TK_CUDA(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));
}
void tk_download_bytes(void *h, const void *d, size_t bytes)
{
    TK_CUDA(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost));
}
void tk_poison(void *d, size_t bytes) { TK_CUDA(cudaMemset(d, 0xff, bytes)); }
void tk_upload(float *d, const float *h, size_t n) { tk_upload_bytes(d, h, n * sizeof(float)); }
void tk_download(float *h, const float *d, size_t n) { tk_download_bytes(h, d, n * sizeof(float)); }
void tk_free(void *d) { if (d) cudaFree(d); }

static const size_t ladder[] = {1, 2, 3, 4, 5, 31, 32, 33, 255, 256, 257, 1000,
                                1023, 1024, 1025, 2049, 4097, 8193, 12289,
                                1000001, 10000001, (size_t)1 << 28};
static const size_t small_ladder[] = {1, 33, 1025, 4097, 12289};
size_t tk_nsizes(size_t max)
{
    const size_t *l = tk_small() ? small_ladder : ladder;
    size_t n = tk_small() ? sizeof small_ladder / sizeof *l : sizeof ladder / sizeof *l, k = 0;
    while (k < n && l[k] <= max) k++;
    return k;
}
size_t tk_size(size_t k) { return tk_small() ? small_ladder[k] : ladder[k]; }

void tk_refused(cudaError_t e, const char *what, const char *file, int line)
{
    if (e != cudaErrorInvalidValue) {
        print_error("%s:%d: %s returned %s; its header promises "
                    "cudaErrorInvalidValue\n", file, line, what,
                    cudaGetErrorName(e));
        fail();
    }
    /* Without a usable GPU the runtime itself reports an error here. */
    cudaError_t left = tk_gpu_available() && !tk_gpu_unusable()
                           ? cudaGetLastError() : cudaSuccess;
    if (left != cudaSuccess) {
        print_error("%s:%d: %s left %s behind\n", file, line, what,
                    cudaGetErrorName(left));
        fail();
    }
}

void *tk_malloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    assert_non_null(p);
    return p;
}

size_t tk_compare(const char *what, const float *got, const double *ref,
                  size_t n, double atol, double rtol, uint64_t seed)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        double g = got[i], r = ref[i];
        int ok;
        if (!isfinite(r)) ok = (isnan(r) && isnan(g)) || g == r;
        else ok = isfinite(g) && fabs(g - r) <= atol + rtol * fabs(r);
        if (!ok && bad++ < 5)
            print_error("%s: element %zu of %zu is %.9g, expected %.9g (seed %llu)\n",
                        what, i, n, g, r, (unsigned long long)seed);
    }
    if (bad > 5) print_error("%s: %zu elements wrong in all\n", what, bad);
    return bad;
}

struct at_once { pthread_barrier_t *start; void (*job)(void *); void *arg; };
static void *at_once_run(void *p)
{
    struct at_once *a = p;
    pthread_barrier_wait(a->start);
    a->job(a->arg);
    return NULL;
}
void tk_run_at_once(int n, void (*job)(void *), void *args, size_t size)
{
    pthread_barrier_t start;
    pthread_t *tid = tk_malloc(n * sizeof *tid);
    struct at_once *a = tk_malloc(n * sizeof *a);
    assert_int_equal(pthread_barrier_init(&start, NULL, (unsigned)n), 0);
    for (int k = 0; k < n; k++) {
        a[k] = (struct at_once){&start, job, (char *)args + k * size};
        assert_int_equal(pthread_create(&tid[k], NULL, at_once_run, &a[k]), 0);
    }
    for (int k = 0; k < n; k++) pthread_join(tid[k], NULL);
    pthread_barrier_destroy(&start);
    free(a);
    free(tid);
}

tk_sweep tk_sweep_start(size_t max, int flags)
{
    tk_sweep s;
    memset(&s, 0, sizeof s);
    s.max_ = max;
    s.flags_ = flags;
    s.count_ = tk_nsizes(max) + ((flags & TK_SWEEP_ZERO) != 0);
    s.rounds_ = (flags & TK_SWEEP_SMALL_ONE_ROUND) && tk_small() ? 1 : 2;
    s.round = 0;
    s.k = (size_t)-1;           /* tk_sweep_next moves to the first size */
    return s;
}

int tk_sweep_next(tk_sweep *s)
{
    if (++s->k >= s->count_) {
        s->k = 0;
        s->round++;
    }
    if (s->round >= s->rounds_ || s->count_ == 0) return 0;
    s->n = s->k < tk_nsizes(s->max_) ? tk_size(s->k) : 0;
    s->seed = tk_seed(s->round);
    s->st = s->seed;
    return 1;
}

/* ---- stream order: the gate ------------------------------------------ */
/* With lazy loading (CUDA's default since 12.2), a kernel's first launch
 * loads its module, which may wait for the whole device: behind a closed
 * gate, that wait would last until the gate opens by itself.  The tests
 * load every module when the context is made instead, before main runs
 * (a CUDA_MODULE_LOADING already set is kept). */
__attribute__((constructor)) static void tk_load_eagerly(void)
{
    setenv("CUDA_MODULE_LOADING", "EAGER", 0);
}
/* gatekit.cu, linked where the book has common/gate.cuh (a book without
 * it, such as the toolchain tests' fixtures, has no stream-order tests). */
__attribute__((weak)) cudaError_t tk_gate_launch(const int *dflag,
                                                 unsigned long long max_ns,
                                                 cudaStream_t s);
tk_gate tk_gate_close(void)
{
    tk_gate g;
    void *d = NULL;
    if (tk_env("BOOK_SANITIZE")) {
        print_message("skipped: the sanitizer runs kernels one at a time, "
                      "so work cannot be seen waiting behind the gate\n");
        skip();
    }
    /* What the legacy stream still holds (a pageable upload's last DMA, a
     * poisoning memset) finishes before the listing can read it. */
    TK_CUDA(cudaDeviceSynchronize());
    if (!tk_gate_launch) {
        print_error("tk_gate_close: no gate (tangled/common/gate.cuh)\n");
        fail();
    }
    TK_CUDA(cudaStreamCreateWithFlags(&g.s, cudaStreamNonBlocking));
    TK_CUDA(cudaHostAlloc((void **)&g.flag, sizeof(int), cudaHostAllocMapped));
    *(volatile int *)g.flag = 0;
    TK_CUDA(cudaHostGetDevicePointer(&d, g.flag, 0));
    g.dflag = (const int *)d;
    TK_CUDA(tk_gate_launch(g.dflag, TK_GATE_NS, g.s));
    return g;
}
void tk_gate_open(tk_gate *g)
{
    __atomic_store_n(g->flag, 1, __ATOMIC_RELEASE);
    TK_CUDA(cudaStreamSynchronize(g->s));
    TK_CUDA(cudaStreamDestroy(g->s));
    TK_CUDA(cudaFreeHost(g->flag));
}
static int all_ff(const unsigned char *h, size_t n)
{
    for (size_t i = 0; i < n; i++) if (h[i] != 0xff) return 0;
    return 1;
}
int tk_still_poisoned(const void *d, size_t bytes)
{
    const size_t part = (size_t)32 << 20;
    const unsigned char *p = d;
    if (bytes <= 2 * part) {
        unsigned char *h = tk_malloc(bytes ? bytes : 1);
        tk_download_bytes(h, p, bytes);
        int ok = all_ff(h, bytes);
        free(h);
        return ok;
    }
    unsigned char *h = tk_malloc(part);
    tk_download_bytes(h, p, part);
    int ok = all_ff(h, part);
    tk_download_bytes(h, p + bytes - part, part);
    ok = ok && all_ff(h, part);
    free(h);
    return ok;
}

tk_gate tk_gate_if(int gated)
{
    tk_gate g = {0};                   /* g.s = 0: the default stream */
    return gated ? tk_gate_close() : g;
}
void tk_gate_open_untouched(tk_gate *g, const void *d, const void *h,
                            size_t bytes, const char *what)
{
    if (!g->s) return;
    int same;
    if (h) {
        void *now = tk_malloc(bytes);
        tk_download_bytes(now, d, bytes);
        same = memcmp(now, h, bytes) == 0;
        free(now);
    } else {
        same = tk_still_poisoned(d, bytes);
    }
    tk_gate_open(g);
    if (!same)
        print_error("%s: its output changed before its stream could run: "
                    "the work was not queued on that stream\n", what);
    assert_true(same);
}

tk_touch tk_touching(float *d, const float *h, size_t n, int below)
{
    tk_touch t = {d, d + (below ? n : 0), d + (below ? 0 : n), h,
                  h + (below ? n : 0), n, below};
    tk_upload(t.x, t.hx, n);
    tk_poison(t.y, n * sizeof *t.y);
    return t;
}

const float *tk_touched(const tk_touch *t, float *got)
{
    TK_CUDA(cudaDeviceSynchronize());
    tk_download(got, t->d, 2 * t->n);
    assert_memory_equal(got + (t->below ? t->n : 0), t->hx,
                        t->n * sizeof *t->hx);
    return got + (t->below ? 0 : t->n);
}

void tk_require_listing(const char *listing, int cc)
{
    TK_REQUIRE_GPU();
    int have = tk_compute_capability();
    if ((cc == 90 && have != 90) || have < cc) {
        print_message("skipped: %s is %s code, which needs compute "
                      "capability %s; this GPU has %d.%d\n", listing,
                      cc == 90 ? "sm_90a" : "sm_80",
                      cc == 90 ? "9.0 exactly" : "8.0 or later", have / 10,
                      have % 10);
        skip();
    }
}
