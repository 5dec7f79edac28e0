/* variants.h -- the sort chapter's sorts of unsigned keys, listed once:
 * test_sort.c runs them and bench_sort.cu times them under these names,
 * the rows of sort.csv (C and C++). */
#ifndef SORT_VARIANTS_H
#define SORT_VARIANTS_H
#include "sort/sort.h"

/* In the order of the chapter: X(id, launcher, name). */
#define SORT_VARIANTS(X)                                                   \
    X(S_TEXTBOOK_SCATTERED, sort_keys_u32_textbook_scattered,              \
      "textbook_scattered")                                                \
    X(S_TEXTBOOK, sort_keys_u32_textbook, "textbook")                      \
    X(S_MATCH, sort_keys_u32_match, "onesweep_match")                      \
    X(S_256x16, sort_keys_u32_256x16, "onesweep_256x16")                   \
    X(S_512x12, sort_keys_u32_512x12, "onesweep_512x12")                   \
    X(S_WINDOW1, sort_keys_u32_window1, "onesweep_window1")                \
    X(S_ONESWEEP, sort_keys_u32, "onesweep")

#define SORT_ID(id, fn, name) id,
enum { SORT_VARIANTS(SORT_ID) S_COUNT };
#undef SORT_ID
typedef cudaError_t (*sort_u32_fn)(const unsigned *, unsigned *, size_t,
                                   void *, size_t, cudaStream_t);
typedef struct {
    sort_u32_fn fn;
    const char *name;
} sort_variant;
#define SORT_ROW(id, fn, name) {fn, name},
static const sort_variant sort_variants[S_COUNT] = {SORT_VARIANTS(SORT_ROW)};
#undef SORT_ROW
#endif
