/* variants.h -- the method chapter's five byte histograms, one list for
 * the test (test_method.c), the benchmark (bench_method.cu: its rows
 * NAME_uniform and NAME_same, and its --ncu launches) and the counters
 * (counters.sh takes the names from bench --variants):
 * X(name, launcher, sixteen), sixteen 1 where the launcher reads sixteen
 * bytes a load, and so refuses an x that is not 16-byte aligned. */
#ifndef METHOD_VARIANTS_H
#define METHOD_VARIANTS_H
#define METHOD_HISTOGRAMS(X)                                              \
    X("global", hist_global, 0)                                           \
    X("shared", hist_shared, 0)                                           \
    X("shared_vec", hist_shared_vec, 1)                                   \
    X("warp", hist_warp, 1)                                               \
    X("runs", hist_runs, 1)
#endif
