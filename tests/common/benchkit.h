/* benchkit.h -- what every chapter's benchmark shares (BOOK-DESIGN §5).
 *
 * A variant is timed with CUDA events: three warm-up runs, then the median
 * of at least 20 (bk_median_ms); work too slow for that in a short
 * benchmark is timed by bk_timed_ms, with fewer runs.  Ceilings are measured in the same process: a device-to-
 * device copy and a streaming read.  Results go to
 * figures/data/$BOOK_GPU/<chapter>.csv, headed by $BOOK_PROVENANCE (both set
 * by make bench, tools/bench.sh). */
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
/* Median time in milliseconds of REPS runs (REPS >= 20) after warm-up. */
double bk_median_ms(bk_work fn, void *ctx, int reps);
/* The same with a cold L2: before every run, outside the timed region, a
 * kernel reads a buffer of four times the L2 (at least 256 MiB), so that no
 * run finds in L2 what the one before it left there.  For work whose bytes
 * are not far beyond the L2. */
double bk_median_ms_cold(bk_work fn, void *ctx, int reps);
/* The rule for variants too slow for 20 runs in a short benchmark: one
 * timed probe run; when 20 runs of that time fit in 200 ms, bk_median_ms
 * (3 warm-ups, the median of 20); otherwise the probe was the warm-up and
 * the median of as many runs as fit in 200 ms, at least 3 (at most 20).
 * *REPS gets the number of timed runs, for the CSV's reps column. */
double bk_timed_ms(bk_work fn, void *ctx, int *reps);
/* Ceilings, in GB/s of bytes moved, over buffers of BYTES each. */
double bk_copy_gbps(size_t bytes);   /* cudaMemcpy device to device: read + write */
double bk_read_gbps(size_t bytes);   /* a float4 kernel that reads and sums */
/* Open the chapter's CSV, write the provenance header and the column line. */
FILE *bk_csv_open(const char *chapter, const char *columns);
/* Close it: only then does it replace the file measured before, so that a
 * benchmark that stops midway leaves the old data whole. */
void bk_csv_close(FILE *csv);
/* One row of a chapter's CSV, formatted once: written to the file and
 * echoed to the terminal. */
void bk_row(FILE *csv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Fill n floats in device memory with uniform random values in [lo, hi). */
void bk_fill_random(float *d, size_t n, float lo, float hi, unsigned long long seed);
#ifdef __cplusplus
}
#endif
#endif
