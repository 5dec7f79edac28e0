/* benchkit.h -- what every chapter's benchmark shares.
 *
 * A variant is timed with CUDA events: three warm-up runs, then the median
 * of at least 20 samples.  Ceilings are measured in the same process: a
 * device-to-device copy and a streaming read; what another chapter
 * measured (the FMA peak, say) is read from that chapter's CSV
 * (bk_measured), not measured again.  Results go to
 * figures/data/$BOOK_GPU/<chapter>.csv, headed by $BOOK_PROVENANCE (both
 * set by make bench, tools/bench.sh).
 *
 * The timing method: kernel time, not host work.  A sample holds the
 * legacy stream behind the gate kernel of common/gate.cuh (one thread
 * spinning on a flag in mapped host memory), records the start event,
 * queues N back-to-back calls of the work, records the stop event, opens
 * the gate and waits: per-call time = elapsed / N.  N gives the sample at
 * least 0.1 ms from a first sample of one call, 1 <= N <= 10
 * (bk_calls_for).  So the launchers' host work (device queries,
 * tensor-map encodes, cudaFuncSetAttribute) runs while the GPU is held
 * and is not counted, nor is the launch latency of all calls but the
 * first.  A work function (bk_work) must therefore only queue work: one
 * that waits for the device (cudaDeviceSynchronize, cudaStreamSynchronize,
 * a synchronous cudaMemcpy, cudaFree, a pageable copy) would wait for the
 * gate.  The gate opens by itself after 4 s, and the benchmark stops with
 * a message when queueing a sample took more than 2 s or the gate timed
 * out.  benchkit sets CUDA_MODULE_LOADING=EAGER from a constructor, before
 * the first CUDA call, so that no module loads lazily while the gate holds
 * the GPU.  The environment's BOOK_BENCH_TIMING=host selects the old
 * method instead for every bk_median_ms and the like: one call between
 * two events on an idle GPU, host work included (bk_host_ms, always). */
#ifndef BENCHKIT_H
#define BENCHKIT_H
#include <stddef.h>
#include <stdio.h>
#include <cuda_runtime_api.h>
#include "common/book.h"
#ifdef __cplusplus
extern "C" {
#endif
/* CUDA calls are checked with the book's BOOK_CHECK (common/book.h): a
 * failure stops the benchmark with the file, line and error. */
/* A timed piece of work: returns the status of its launch. */
typedef cudaError_t (*bk_work)(void *ctx);
/* Median time per call in milliseconds of REPS samples (REPS >= 20)
 * after three warm-up calls, by the method in force (above). */
double bk_median_ms(bk_work fn, void *ctx, int reps);
/* The same with a cold L2: before every call, outside the timed region, a
 * kernel reads a buffer of four times the L2 (at least 256 MiB), so that no
 * call finds in L2 what the one before it left there.  For work whose
 * bytes are not far beyond the L2.  Kernel-only, the N calls of a sample
 * and their flushes are queued behind the gate as flush, event, call,
 * event: each call is timed between events of its own, the flush outside
 * them, and the sample is the mean of its N calls.  (Two events around N
 * calls cannot leave out the flushes between them.) */
double bk_median_ms_cold(bk_work fn, void *ctx, int reps);
/* The old method, whatever BOOK_BENCH_TIMING says: the median of REPS
 * (>= 20) single calls, each between two events on an idle GPU, after
 * three warm-ups; the time holds the launcher's host work and the launch
 * latency.  For the comparison of the two methods (bk_timing_row), and for
 * work that is host work on purpose (the host chapter's transfers). */
double bk_host_ms(bk_work fn, void *ctx, int reps);
/* The new method, whatever BOOK_BENCH_TIMING says. */
double bk_kernel_ms(bk_work fn, void *ctx, int reps);
/* Nonzero when BOOK_BENCH_TIMING=host (or bk_timing_set_host(1)) selects
 * the old method; bk_timing_name says "host" or "kernel" (bk_csv_open
 * writes it into every CSV's header).  bk_timing_set_host sets the method
 * of the whole program: a benchmark whose every timing is host work on
 * purpose calls it first, saying why. */
int bk_timing_is_host(void);
void bk_timing_set_host(int host);
const char *bk_timing_name(void);
/* N for a call of MS milliseconds: ceil(0.1 / MS), from 1 to 10. */
int bk_calls_for(double ms);
/* The median of n values (the mean of the middle two when n is even);
 * sorts v in place. */
double bk_median(double *v, size_t n);
/* One sample of one call, in milliseconds (no warm-up), by the method in
 * force: kernel-only, a call that waits for the device stops the
 * benchmark (above). */
double bk_event_ms(bk_work fn, void *ctx);
/* The book's rule for work too slow for 20 runs (stated in the renderer
 * chapter, whose bench uses it, as do convolution and attention): one
 * call of t ms outside the gate, between two events (it may set things up
 * and wait); when 20 runs fit in 200 ms (20 t <= 200), three warm-ups and
 * the median of 20 samples (bk_median_ms); otherwise the median of as many
 * single-call samples as fit in 200 ms, at least 3 and at most 20, the
 * first call their only warm-up.  *reps gets the number of samples (the
 * CSVs' column reps); *first_ms, when not NULL, the time of the first
 * call (host work included). */
double bk_timed_ms(bk_work fn, void *ctx, int *reps, double *first_ms);
/* Rounds.  A case is a set of variants timed in interleaved rounds: round
 * r times every variant once, so that a drift of the clock (the GPU slows
 * as it heats) touches all alike.  A variant's time in a round is the
 * median of its samples, by bk_timed_ms's rule (20 samples of N calls
 * after three warm-ups; fewer single calls for slow work), the rule's
 * first call made in round 1 only.  Rounds repeat until no variant's
 * median over the rounds moves by more than 1% with the last round, at
 * least BK_MIN_ROUNDS and at most BK_MAX_ROUNDS (BOOK_BENCH_ROUNDS=R in
 * the environment fixes R rounds).  A variant's result is the median of
 * its round medians, and its spread lo, hi the min and max of its round
 * medians (the full range, not the interquartile).  flags: BK_COLD times
 * it with a cold L2 (bk_median_ms_cold); BK_HOST or BK_KERNEL force a
 * method.  A variant whose first call fails (a launcher that refuses the
 * shape) is refused: its stat has ok = 0 and NAN times, and a progress
 * line says why. */
enum { BK_MIN_ROUNDS = 5, BK_MAX_ROUNDS = 15 };
enum { BK_COLD = 1, BK_HOST = 2, BK_KERNEL = 4 };
typedef struct bk_rounds bk_rounds;
typedef struct bk_stat {
    double median, lo, hi;   /* ms (a ratio for bk_ratio) */
    int rounds, reps, calls; /* rounds run; samples a round; N */
    int ok;                  /* 0: refused, or not run */
    double first;            /* round 1's first call, ms, host-inclusive */
} bk_stat;
bk_rounds *bk_rounds_new(const char *name);
int bk_rounds_add(bk_rounds *r, const char *name, bk_work fn, void *ctx,
                  int flags);                  /* returns its index */
void bk_rounds_run(bk_rounds *r);
bk_stat bk_rounds_stat(const bk_rounds *r, int i);
int bk_rounds_find(const bk_rounds *r, const char *name);  /* -1: none */
int bk_rounds_count(const bk_rounds *r);
double bk_rounds_round(const bk_rounds *r, int i, int k);  /* round k's ms */
void bk_rounds_free(bk_rounds *r);
/* The ratio of two variants' times, median[num] / median[den] (with num
 * the reference, "of_ref" = t_ref / t_var above 1 when the variant is
 * faster), and its spread: lo, hi = the min and max over the rounds of
 * the ratio within each round (the two were timed side by side there). */
bk_stat bk_ratio(const bk_rounds *r, int num, int den);
/* The verdict on a value with a spread: "within spread" when want lies in
 * [lo, hi], else "yes" or "no" from the median (at_most as bk_target). */
const char *bk_verdict(bk_stat v, double want, int at_most);
/* One row of a targets CSV, columns id,value,target,met,lo,hi: the median
 * of v, the target, bk_verdict's verdict, v's spread. */
void bk_target_spread(FILE *csv, const char *id, bk_stat v, double want,
                      int at_most);
/* The two methods side by side: figures/data/$BOOK_GPU/CHAPTER-timing.csv,
 * columns id,host_us,kernel_us,ratio,host_lo,host_hi,kernel_lo,kernel_hi,
 * calls,rounds; one row a shape, both methods timed in the same
 * interleaved rounds (bk_host_ms against the held samples), ratio =
 * host_us / kernel_us. */
FILE *bk_timing_open(const char *chapter);
void bk_timing_row(FILE *csv, const char *id, bk_work fn, void *ctx);
/* Ceilings, in GB/s of bytes moved, over buffers of BYTES each. */
double bk_copy_gbps(size_t bytes);   /* cudaMemcpy device to device: read + write */
double bk_read_gbps(size_t bytes);   /* a float4 kernel that reads and sums */
/* Open the chapter's CSV, write the provenance header and the column line. */
FILE *bk_csv_open(const char *chapter, const char *columns);
/* Close it: only then does it replace the file measured before, so that a
 * benchmark that stops midway leaves the old data whole. */
void bk_csv_close(FILE *csv);
/* One row of a chapter's CSV, formatted once: written to the file and
 * echoed to the terminal, both flushed at once, so that the rows written
 * before a benchmark is killed are in NAME.tmp and in its log. */
void bk_row(FILE *csv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* One row of a targets CSV, columns id,value,target,met: the measured
 * ratio v against want, met when v >= want, or v <= want with at_most
 * set ("yes" or "no"). */
enum { BK_AT_LEAST = 0, BK_AT_MOST = 1 };
void bk_target(FILE *csv, const char *id, double v, double want, int at_most);
/* Shapes a user brings, beside the chapter's headline size:
 * small (launch-bound: microseconds, bounded by launch and one wave),
 * odd (not a multiple of 4 or of a tile) and headline.  One CSV a chapter,
 * figures/data/$BOOK_GPU/<chapter>-shapes.csv, columns
 *   id,class,shape,variant,us,rate,unit,reference,ref_us,of_reference
 * where id is shape/variant, rate is the work's minimal bytes (GB/s) or
 * FLOPs (TFLOP/s) over its time, and of_reference = ref_us / us: the
 * variant's speed as a fraction of the library's or ceiling's on the same
 * work, timed in the same run.  A benchmark given the argument --shapes
 * writes only this file. */
FILE *bk_shapes_open(const char *chapter);
void bk_shape_row(FILE *csv, const char *cls, const char *shape,
                  const char *variant, double us, double rate,
                  const char *unit, const char *reference, double ref_us);
/* The element counts of a one-array benchmark's shapes (scan, compaction):
 * small, bound by the launch; odd, not a multiple of 4 or of a tile, and
 * one element past 16-byte alignment (off 1), which takes every scalar
 * path; and the headline 2^28.  cls is the CSV's class, name its shape. */
struct bk_count_shape { const char *cls, *name; size_t n, off; };
#define BK_COUNT_SHAPES 9
extern const struct bk_count_shape bk_count_shapes[BK_COUNT_SHAPES];
/* Nonzero when the benchmark was asked for its shapes only (--shapes). */
int bk_shapes_only(int argc, char **argv);
/* --ncu: the benchmark's one run for Nsight Compute (its chapter's
 * counters.sh, tools/ncu-lib.sh's ncu_table), parsed in one place.  When
 * argv[1] is "--ncu", bk_ncu checks that MIN to MAX arguments follow it
 * (USAGE names them: "VARIANT", "CASE VARIANT"; "" for none), runs
 * fn(nargs, args, ctx) on them, waits for the device, and returns the exit
 * status: fn's (0: the work ran), or 2 after a line on stderr that says
 * what the arguments should be.  Without --ncu it returns -1 and the
 * benchmark goes on:
 *     int rc = bk_ncu(argc, argv, 1, 1, "VARIANT", ncu_one, &ctx);
 *     if (rc >= 0) return rc;
 * fn finds a name with bk_ncu_pick: its index among COUNT names, the first
 * at NAMES and each STRIDE bytes after the one before (in a table of
 * structs, &table[0].name and sizeof table[0], or BK_NCU_PICK; in an
 * array of names, names and sizeof *names); -1, after a line on stderr
 * that lists them, when NAME is none of them (fn then returns 2).  WHAT
 * says what NAME names: "variant", "case". */
typedef int (*bk_ncu_fn)(int nargs, char **args, void *ctx);
int bk_ncu(int argc, char **argv, int min, int max, const char *usage,
           bk_ncu_fn fn, void *ctx);
int bk_ncu_pick(const char *what, const char *name, const char *const *names,
                size_t count, size_t stride);
/* bk_ncu_pick of KEY in a whole table (an array, not a pointer) of
 * structs that have a member name. */
#define BK_NCU_PICK(what, key, table)                                      \
    bk_ncu_pick(what, key, &(table)[0].name,                               \
                sizeof(table) / sizeof((table)[0]), sizeof((table)[0]))
/* Progress on stderr, flushed at once, so that the log of a run killed
 * midway says where it was: "NAME   12.34 s: LINE", with the seconds since
 * bk_progress_start.  With HEARTBEAT_S > 0 a thread repeats the last line
 * every HEARTBEAT_S seconds with how long ago it was written, so that one
 * call that never returns is named too; bk_progress_stop ends it (a
 * benchmark that exits early need not call it). */
void bk_progress_start(const char *name, int heartbeat_s);
void bk_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void bk_progress_stop(void);
double bk_elapsed_s(void);           /* seconds since bk_progress_start */
/* cuDNN, loaded at run time (libcudnn.so.9, else libcudnn.so), so that a
 * benchmark builds and runs where it is missing: the library's handle, or
 * NULL when there is none (looked for once).  bk_cudnn_sym gives one of
 * its functions, NULL when the library or the function is missing. */
void *bk_cudnn_open(void);
void *bk_cudnn_sym(const char *name);
#ifdef __cplusplus
/* fp = cuDNN's function NAME, with fp's type; true when it was found. */
#define BK_CUDNN_SYM(fp, name) \
    (((fp) = (decltype(fp))bk_cudnn_sym(name)) != NULL)
#endif
/* A value that another chapter's benchmark measured on this GPU, the one
 * way a benchmark takes one: the COLUMN of the row that KEY names
 * ("keycolumn=value", as tools/csvget.sh takes it) in
 * figures/data/$BOOK_GPU/CSV, read as tools/csv.awk reads it ('#' lines
 * and blank lines skipped, the first other line naming the columns).
 * make bench runs the benchmarks in book order, and the one that writes
 * CSV comes first (book.yaml's reads: or links: says so).  NAN, with a line on stderr saying
 * what is missing, when the file, the column, the row or a number there
 * is not.  bk_measured_note writes the CSV comment that says where the
 * value came from:
 *   # from figures/data/GPU/CSV, row KEY, column COLUMN: VALUE */
double bk_measured(const char *csv, const char *key, const char *column);
void bk_measured_note(FILE *f, const char *csv, const char *key,
                      const char *column, double value);
/* Fill n floats in device memory with uniform random values in [lo, hi). */
void bk_fill_random(float *d, size_t n, float lo, float hi, unsigned long long seed);
/* The same values rounded to bf16, n of them (two bytes each) at d. */
void bk_fill_random_bf16(void *d, size_t n, float lo, float hi, unsigned long long seed);
#ifdef __cplusplus
}
#endif
#endif
