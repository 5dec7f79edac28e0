/* variants.h -- the compaction chapter's compactions, listed once:
 * test_compact.c runs them and bench_compact.cu times them under these
 * names, the rows of compaction.csv (C and C++). */
#ifndef COMPACT_VARIANTS_H
#define COMPACT_VARIANTS_H
#include "compaction/compact.h"

/* In the order of the chapter: X(id, launcher, name). */
#define COMPACT_VARIANTS(X)                                                \
    X(C_THREE_PASS, compact_gt_three_pass, "three_pass")                   \
    X(C_SINGLE, compact_gt, "single_pass")                                 \
    X(C_STAGED_SCATTER, compact_gt_staged_scatter, "staged_scatter")       \
    X(C_STAGED, compact_gt_staged, "staged")                               \
    X(C_BALLOT, compact_gt_ballot, "ballot")

#define COMPACT_ID(id, fn, name) id,
enum { COMPACT_VARIANTS(COMPACT_ID) C_COUNT };
#undef COMPACT_ID
/* launcher(in, out, n, threshold, count, scratch, bytes, stream) */
typedef cudaError_t (*compact_fn)(const int *, int *, size_t, int,
                                  size_t *, void *, size_t, cudaStream_t);
typedef struct {
    compact_fn fn;
    const char *name;
} compact_variant;
#define COMPACT_ROW(id, fn, name) {fn, name},
static const compact_variant compact_variants[C_COUNT] = {
    COMPACT_VARIANTS(COMPACT_ROW)};
#undef COMPACT_ROW
#endif
