/* testkit.h -- what every chapter's cmocka tests share.
 *
 * Inputs are random: a fixed seed first, then a fresh seed that is printed
 * so a failure can be replayed (BOOK_SEED=n).  Device outputs are poisoned
 * with NaN before every run, so an element a kernel forgets to write fails.
 * Comparisons are against a double-precision CPU reference and fail on NaN
 * or Inf unless the reference has the same value there.
 * Without a CUDA device every GPU test is skipped, saying why. */
#ifndef TESTKIT_H
#define TESTKIT_H
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include <cuda_runtime_api.h>

/* 1 when a usable CUDA device is present (the answer is cached).  No
 * device, or no driver, is a reason to skip; a device that is there but
 * cannot run the book's code is not: a driver older than the toolkit, or a
 * GPU older than the oldest architecture built (TK_ARCHS, from the
 * Makefile), fails the test with a message saying so. */
int tk_gpu_available(void);
const char *tk_gpu_why(void);
/* NULL when the device can run the book's code, else why not. */
const char *tk_gpu_unusable(void);
/* Skip the calling test, with the reason, when there is no GPU; fail it
 * when there is one that cannot run the code. */
#define TK_REQUIRE_GPU()                                                   \
    do {                                                                   \
        if (!tk_gpu_available()) {                                         \
            print_message("skipped: no CUDA device (%s)\n", tk_gpu_why()); \
            skip();                                                        \
        }                                                                  \
        if (tk_gpu_unusable()) {                                           \
            print_error("%s\n", tk_gpu_unusable());                        \
            fail();                                                        \
        }                                                                  \
    } while (0)
/* Skip, naming the feature and the GPU's compute capability, when the
 * device is older than compute capability MAJOR.MINOR (a listing that
 * needs cp.async, say, needs 8.0). */
#define TK_REQUIRE_ARCH(major, minor, feature)                             \
    do {                                                                   \
        TK_REQUIRE_GPU();                                                  \
        int tk_cc_ = tk_compute_capability();                              \
        if (tk_cc_ < 10 * (major) + (minor)) {                             \
            print_message("skipped: %s needs compute capability %d.%d; "   \
                          "this GPU has %d.%d\n", feature, major, minor,   \
                          tk_cc_ / 10, tk_cc_ % 10);                       \
            skip();                                                        \
        }                                                                  \
    } while (0)
int tk_compute_capability(void);   /* 10 * major + minor of device 0 */
/* Skip, naming the listing (its file), on a GPU that its code does not
 * run on: CC 90 is sm_90a code (wgmma, TMA), which runs on compute
 * capability 9.0 only; CC 80 is sm_80 code, which runs on 8.0 and
 * later. */
#define TK_REQUIRE_LISTING(listing, cc) tk_require_listing((listing), (cc))
void tk_require_listing(const char *listing, int cc);
/* Skip, naming the feature, when a launcher answered that this GPU cannot
 * run its listing (cudaErrorNotSupported, as its header says it may). */
#define TK_SKIP_IF_NOT_SUPPORTED(err, feature)                             \
    do {                                                                   \
        if ((err) == cudaErrorNotSupported) {                              \
            int tk_cc_ = tk_compute_capability();                          \
            print_message("skipped: %s is not supported on this GPU "      \
                          "(compute capability %d.%d)\n", feature,         \
                          tk_cc_ / 10, tk_cc_ % 10);                       \
            skip();                                                        \
        }                                                                  \
    } while (0)
/* Skip, with the count, on a machine with fewer than N GPUs. */
#define TK_REQUIRE_GPUS(n)                                                 \
    do {                                                                   \
        TK_REQUIRE_GPU();                                                  \
        int tk_count_ = 0;                                                 \
        TK_CUDA(cudaGetDeviceCount(&tk_count_));                           \
        if (tk_count_ < (n)) {                                             \
            print_message("skipped: needs %d GPUs; this machine has %d\n", \
                          (n), tk_count_);                                 \
            skip();                                                        \
        }                                                                  \
    } while (0)
/* Skip under the sanitizer (BOOK_SMALL), saying why: sizes it cannot
 * afford. */
#define TK_SKIP_UNDER_SANITIZER(why)                                       \
    do {                                                                   \
        if (tk_small()) {                                                  \
            print_message("skipped: %s\n", why);                           \
            skip();                                                        \
        }                                                                  \
    } while (0)
/* Skip, with the numbers, when the GPU has less than BYTES of free memory
 * (a student's GPU need not hold the book's largest tests). */
#define TK_REQUIRE_DEVICE_BYTES(bytes)                                     \
    do {                                                                   \
        TK_REQUIRE_GPU();                                                  \
        size_t tk_free_ = tk_device_free_bytes();                          \
        if (tk_free_ < (size_t)(bytes)) {                                  \
            print_message("skipped: needs %.2f GiB of GPU memory; %.2f GiB " \
                          "are free\n", (double)(bytes) / (1 << 30),        \
                          (double)tk_free_ / (1 << 30));                   \
            skip();                                                        \
        }                                                                  \
    } while (0)
size_t tk_device_free_bytes(void);
/* 1 under `make sanitize` (BOOK_SMALL=1): tests use smaller sizes. */
int tk_small(void);
/* A test of a listing that races on purpose calls this first: it skips in
 * the sanitizer's clean runs (BOOK_SANITIZE=1), and runs in normal runs and
 * in the run that must show the finding (see tools/sanitize.sh). */
#define TK_SKIP_IN_CLEAN_SANITIZER_RUN()                                   \
    do {                                                                   \
        if (tk_env("BOOK_SANITIZE")) {                                     \
            print_message("skipped: wrong on purpose; make sanitize runs " \
                          "it alone and expects the finding\n");           \
            skip();                                                        \
        }                                                                  \
    } while (0)
int tk_env(const char *name);
/* Run a group of tests, or only those matching $BOOK_FILTER (cmocka's
 * wildcards * and ?). */
#define tk_run_tests(name, tests)                                          \
    (tk_env("BOOK_FILTER") ? cmocka_set_test_filter(getenv("BOOK_FILTER")) \
                           : (void)0,                                      \
     cmocka_run_group_tests_name(name, tests, NULL, NULL))

/* Assert that a launcher refused a call with cudaErrorInvalidValue, as its
 * header promises, naming the call on failure; and, on a GPU, that the
 * refusal left no error behind for the next launch (cudaGetLastError is
 * clean). */
#define TK_REFUSED(call) tk_refused((call), #call, __FILE__, __LINE__)
void tk_refused(cudaError_t e, const char *what, const char *file, int line);
/* A fake device pointer for the CPU-side refusal tests: a launcher must
 * refuse bad arguments before it touches any memory. */
#define TK_FAKE(addr) ((void *)(uintptr_t)(addr))
/* Assert that a CUDA runtime call succeeded, naming it on failure. */
#define TK_CUDA(call) tk_cuda_ok((call), #call, __FILE__, __LINE__)
void tk_cuda_ok(cudaError_t e, const char *what, const char *file, int line);

/* Random numbers: splitmix64.  tk_seeds() gives the fixed seed (round 0)
 * and a fresh one (round 1), which is printed. */
uint64_t tk_seed(int round);
uint64_t tk_next(uint64_t *state);
double tk_uniform(uint64_t *state, double lo, double hi);
void tk_fill(float *x, size_t n, double lo, double hi, uint64_t *state);
/* bf16 on the host: a float rounded to nearest even (NaN stays NaN), and
 * the value of a bf16, exactly. */
uint16_t tk_to_bf16(float f);
double tk_from_bf16(uint16_t h);

/* Device buffers: allocated, and poisoned (all bits set: a NaN for
 * floats, -1 for integers), so an element a kernel forgets to write shows.
 * A buffer larger than the GPU's free memory skips the test, saying so. */
float *tk_dev_floats(size_t n);
int *tk_dev_ints(size_t n);
long long *tk_dev_int64s(size_t n);
void *tk_dev_bytes(size_t bytes);          /* any type; poisoned the same way */
void tk_upload_bytes(void *d, const void *h, size_t bytes);
void tk_download_bytes(void *h, const void *d, size_t bytes);
void tk_poison(void *d, size_t bytes);
void tk_upload(float *d, const float *h, size_t n);
void tk_download(float *h, const float *d, size_t n);
void tk_free(void *d);

/* Compare got[0..n) with the reference: element i passes when
 * |got - ref| <= atol + rtol |ref|.  NaN or Inf in got fails unless ref is
 * the same non-finite value.  Prints the first few failures with their
 * index and the seed; returns the number of failing elements. */
size_t tk_compare(const char *what, const float *got, const double *ref,
                  size_t n, double atol, double rtol, uint64_t seed);
/* The book's ladder of sizes for one-dimensional tests, ascending: 1, a
 * warp, a block and a tile with one past and one short of each,
 * non-multiples of 4, several tiles, then 10^6 + 1, 10^7 + 1 and 2^28.  A
 * chapter takes those up to its largest:
 *     for (size_t k = 0; k < tk_nsizes(max); k++) use(tk_size(k));
 * Under the sanitizer (BOOK_SMALL) a short ladder up to 12289 (four tiles
 * of 4096 and one past). */
size_t tk_nsizes(size_t max);
size_t tk_size(size_t k);
/* Run job(args + k * size) for k < n, each on a host thread of its own,
 * all released together by a barrier (a launcher's first use from many
 * threads at once); returns when every one has finished. */
/* The sweep most tests make: for each seed round (the fixed seed, then a
 * fresh one) and each size of the ladder up to MAX, in that order:
 *     for (tk_sweep s = tk_sweep_start(max, 0); tk_sweep_next(&s);)
 *         use(s.n, s.seed, &s.st);
 * st starts at seed for every size.  Flags: TK_SWEEP_ZERO adds n = 0
 * after the ladder; TK_SWEEP_SMALL_ONE_ROUND keeps only the fixed seed
 * under the sanitizer (BOOK_SMALL). */
enum { TK_SWEEP_ZERO = 1, TK_SWEEP_SMALL_ONE_ROUND = 2 };
typedef struct {
    int round;           /* 0: the fixed seed; 1: the fresh one */
    size_t k;            /* the index into the ladder */
    size_t n;            /* the size */
    uint64_t seed;       /* the round's seed, to print on a failure */
    uint64_t st;         /* the generator, at seed for every size */
    size_t max_, count_; /* the sweep's own */
    int flags_, rounds_;
} tk_sweep;
tk_sweep tk_sweep_start(size_t max, int flags);
int tk_sweep_next(tk_sweep *s);
void tk_run_at_once(int n, void (*job)(void *), void *args, size_t size);
/* Stream order: does a launcher queue its work on the stream it is given?
 * tk_gate_close() makes a non-blocking stream, g.s, and holds it behind a
 * closed gate (the gate kernel of common/gate.cuh, which the host chapter
 * explains): nothing queued on g.s after it can start.  tk_gate_open()
 * opens the gate, waits for g.s and frees it.  A test queues the listing on
 * g.s, asserts with tk_still_poisoned that its output is untouched (a
 * launcher that used the legacy stream, a synchronous memset or copy, or
 * waited for the device would have written it, or would not have returned
 * before the gate opened by itself after TK_GATE_NS), opens the gate, and
 * checks the result against the reference as usual.  Under the sanitizer
 * (BOOK_SANITIZE), which runs kernels one at a time, tk_gate_close skips
 * the test, saying why. */
#define TK_GATE_NS 20000000000ull          /* a held gate opens by itself */
typedef struct { cudaStream_t s; int *flag; const int *dflag; } tk_gate;
tk_gate tk_gate_close(void);
void tk_gate_open(tk_gate *g);
/* 1 when every byte of device memory [d, d + bytes) is still 0xFF, the
 * poison of tk_dev_bytes (read on the legacy stream, which does not wait
 * for g.s); 0 otherwise.  Bytes larger than 64 MiB are checked in part:
 * the first and the last 32 MiB. */
int tk_still_poisoned(const void *d, size_t bytes);
/* A case run either way, on the default stream (gated 0) or behind the
 * gate (gated 1, as a *_launchers_follow_the_stream test runs it):
 * tk_gate_if(gated) is a closed gate, or the default stream (g.s = 0).
 * After the launcher has returned on g.s, tk_gate_open_untouched asserts
 * that the BYTES at d are still what they were, the poison (h NULL) or
 * the BYTES at h, naming WHAT when not, and opens the gate first; for the
 * default stream it does nothing. */
tk_gate tk_gate_if(int gated);
void tk_gate_open_untouched(tk_gate *g, const void *d, const void *h,
                            size_t bytes, const char *what);
/* Host memory that the test frees on every path. */
void *tk_malloc(size_t bytes);

/* Buffers that only touch, for the overlap tests (a launcher must take
 * them as apart): d holds 2n device floats, h 2n host values.
 * tk_touching(d, h, n, below) makes x one half of d and y the other, just
 * below x (below) or just after it; it uploads x's values from h and
 * poisons y.  After the call, tk_touched waits for the device, downloads
 * d into got (2n floats), asserts that x still holds its values, and
 * returns y's half of got.  hx is x's values in h. */
typedef struct {
    float *d, *x, *y;
    const float *h, *hx;
    size_t n;
    int below;
} tk_touch;
tk_touch tk_touching(float *d, const float *h, size_t n, int below);
const float *tk_touched(const tk_touch *t, float *got);
#endif
