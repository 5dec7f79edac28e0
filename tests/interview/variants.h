/* variants.h -- the interview appendix's four edit-distance versions, one
 * list for the test (test_interview.c) and the benchmark
 * (bench_interview.cu): X(version, launcher, what), the version's name in
 * both, its launcher's name (the test's messages, the benchmark's keys
 * and variants) and what it is in the benchmark's table. */
#ifndef INTERVIEW_VARIANTS_H
#define INTERVIEW_VARIANTS_H
#define ED_VERSIONS(X)                                                    \
    X(ED_BY_DIAGONALS, "ed_diagonals", "one kernel a diagonal")           \
    X(ED_BY_BLOCK, "ed_block", "one block")                               \
    X(ED_BY_BATCH, "ed_batch", "a warp a pair")                           \
    X(ED_BY_TILES, "ed_tiled", "tiles of 64x64")
#define ED_VERSION_ENUM(version, launcher, what) version,
#define ED_VERSION_LAUNCHER(version, launcher, what) launcher,
#define ED_VERSION_WHAT(version, launcher, what) what,
enum ed_version { ED_VERSIONS(ED_VERSION_ENUM) ED_NVERSIONS };
#endif
