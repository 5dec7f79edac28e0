/* test_transpose.c -- the transpose chapter's tests: every transpose
 * against the CPU's, exactly, on square and non-square shapes that are and
 * are not multiples of the tile; bad arguments; the conflict degree of each
 * shared-memory layout, computed on the CPU; the tile without its
 * barrier, whose race make sanitize shows with racecheck
 * (sanitize.expect); and stream order (each launcher's work waits on the
 * stream it is given). */
#include "testkit.h"
#include "transpose/transpose.h"
#include "variants.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef cudaError_t (*transpose_fn)(const float *, float *, size_t, size_t,
                                    cudaStream_t);

#define VARIANT(name, fn) {name, fn},
static const struct { const char *name; transpose_fn fn; } variants[] = {
    TRANSPOSE_VARIANTS(VARIANT)
};
#define NVARIANTS (sizeof variants / sizeof variants[0])

static const size_t shapes[][2] = {
    {1, 1}, {1, 1000}, {1000, 1}, {33, 65}, {1000, 3}, {31, 33},
    {32, 32}, {64, 96}, {63, 129}, {128, 64}, {4097, 4099}};
#define NSHAPES (sizeof shapes / sizeof shapes[0])
static size_t nshapes(void) { return tk_small() ? NSHAPES - 1 : NSHAPES; }

/* Transpose a random rows x cols matrix with fn; return the number of
 * elements that differ from the CPU's transpose (exact comparison). */
static size_t run_case(transpose_fn fn, const char *name, size_t rows,
                       size_t cols, int round, int gated)
{
    uint64_t seed = tk_seed(round), st = seed;
    size_t n = rows * cols;
    float *a = tk_malloc(n * sizeof *a), *got = tk_malloc(n * sizeof *got);
    double *ref = tk_malloc(n * sizeof *ref);
    tk_fill(a, n, -1e3, 1e3, &st);
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++) ref[c * rows + r] = a[r * cols + c];
    float *din = tk_dev_floats(n), *dout = tk_dev_floats(n);
    tk_upload(din, a, n);
    char what[96];
    snprintf(what, sizeof what, "%s %zux%zu", name, rows, cols);
    tk_gate g = tk_gate_if(gated);
    TK_CUDA(fn(din, dout, rows, cols, g.s));
    tk_gate_open_untouched(&g, dout, NULL, n * sizeof *dout, what);
    TK_CUDA(cudaDeviceSynchronize());
    tk_download(got, dout, n);
    size_t bad = tk_compare(what, got, ref, n, 0.0, 0.0, seed);
    tk_free(din); tk_free(dout);
    free(a); free(got); free(ref);
    return bad;
}

/* Every shape, both seeds, for the variant whose launcher is fn. */
static void all_shapes(transpose_fn fn)
{
    TK_REQUIRE_GPU();
    size_t v = 0;
    while (v < NVARIANTS && variants[v].fn != fn) v++;
    assert_true(v < NVARIANTS);
    for (int round = 0; round < 2; round++)
        for (size_t k = 0; k < nshapes(); k++)
            assert_int_equal(run_case(variants[v].fn, variants[v].name,
                                      shapes[k][0], shapes[k][1], round, 0),
                             0);
}
static void naive_all_shapes(void **s) { (void)s; all_shapes(transpose_naive); }
static void naive_colread_all_shapes(void **s) { (void)s; all_shapes(transpose_naive_colread); }
static void tile_all_shapes(void **s) { (void)s; all_shapes(transpose_tile); }
static void tile_padded_all_shapes(void **s) { (void)s; all_shapes(transpose_tile_padded); }
static void tile_swizzled_all_shapes(void **s) { (void)s; all_shapes(transpose_tile_swizzled); }
static void tile64_padded_all_shapes(void **s) { (void)s; all_shapes(transpose_tile64); }

/* A transpose twice is the identity: the large square case, and the
 * output of one variant fed to another. */
static void transpose_twice_is_identity(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    size_t rows = tk_small() ? 100 : 2049, cols = tk_small() ? 37 : 1023;
    size_t n = rows * cols;
    uint64_t seed = tk_seed(1), st = seed;
    float *a = tk_malloc(n * sizeof *a), *b = tk_malloc(n * sizeof *b);
    double *ref = tk_malloc(n * sizeof *ref);
    tk_fill(a, n, -1, 1, &st);
    for (size_t i = 0; i < n; i++) ref[i] = a[i];
    float *d0 = tk_dev_floats(n), *d1 = tk_dev_floats(n);
    float *d2 = tk_dev_floats(n);
    tk_upload(d0, a, n);
    TK_CUDA(transpose_tile_swizzled(d0, d1, rows, cols, 0));
    TK_CUDA(transpose_tile64(d1, d2, cols, rows, 0));
    TK_CUDA(cudaDeviceSynchronize());
    tk_download(b, d2, n);
    assert_int_equal(tk_compare("twice", b, ref, n, 0, 0, seed), 0);
    tk_free(d0); tk_free(d1); tk_free(d2);
    free(a); free(b); free(ref);
}

/* CPU-side: refusals happen before any launch. */
static void bad_arguments_refused(void **s)
{
    (void)s;
    float *p = TK_FAKE(256);  /* never dereferenced */
    float *q = TK_FAKE(1ull << 40);
    float *top = (float *)(UINTPTR_MAX - 4095);
    /* Every launcher, the wrong one too: the header's "must not overlap"
     * holds for all of them. */
    transpose_fn all[NVARIANTS + 1];
    for (size_t v = 0; v < NVARIANTS; v++) all[v] = variants[v].fn;
    all[NVARIANTS] = transpose_tile_nobarrier;
    for (size_t v = 0; v <= NVARIANTS; v++) {
        transpose_fn fn = all[v];
        TK_REFUSED(fn(NULL, q, 4, 4, 0));
        TK_REFUSED(fn(p, NULL, 4, 4, 0));
        TK_REFUSED(fn(p, p, 4, 4, 0));
        TK_REFUSED(fn(p, p + 15, 4, 4, 0));
        TK_REFUSED(fn(p + 15, p, 4, 4, 0));
        TK_REFUSED(fn(p, q, 65535u * 32 + 1, 1, 0));
        TK_REFUSED(fn(p, q, SIZE_MAX / 2, 3, 0));
        /* 8 x 4096 floats from 4 KiB below the top of the address space
         * would wrap past its end: no allocation is like that.  Compared
         * as pointers, the wrapped end made the ranges look apart and the
         * kernel was launched on them. */
        TK_REFUSED(fn(top, p, 8, 4096, 0));
        TK_REFUSED(fn(p, top, 8, 4096, 0));
        assert_int_equal(fn(NULL, NULL, 0, 7, 0), cudaSuccess);
        assert_int_equal(fn(NULL, NULL, 7, 0, 0), cudaSuccess);
    }
}

/* CPU-side: the conflict counter on hand-made patterns. */
static void conflict_degree_helper(void **s)
{
    (void)s;
    unsigned w[32];
    for (unsigned l = 0; l < 32; l++) w[l] = l;          /* one row */
    assert_int_equal(tr_conflict_degree(w), 1);
    for (unsigned l = 0; l < 32; l++) w[l] = 7;          /* broadcast */
    assert_int_equal(tr_conflict_degree(w), 1);
    for (unsigned l = 0; l < 32; l++) w[l] = 32 * l;     /* one column */
    assert_int_equal(tr_conflict_degree(w), 32);
    for (unsigned l = 0; l < 32; l++) w[l] = 2 * l;      /* stride 2 */
    assert_int_equal(tr_conflict_degree(w), 2);
    for (unsigned l = 0; l < 32; l++) w[l] = 32 * (l % 2) + l / 2;
    assert_int_equal(tr_conflict_degree(w), 2);
}

/* The load and store phases of every warp of a 32 x 8 block, through the
 * same tr_smem_index the kernels use. */
static unsigned worst_degree(int layout, int store)
{
    unsigned worst = 0, w[32];
    for (unsigned ty = 0; ty < TR_BLOCK_ROWS; ty++)
        for (unsigned k = 0; k < TR_TILE; k += TR_BLOCK_ROWS) {
            for (unsigned tx = 0; tx < 32; tx++)
                w[tx] = store ? tr_smem_index(layout, tx, ty + k)
                              : tr_smem_index(layout, ty + k, tx);
            unsigned d = tr_conflict_degree(w);
            if (d > worst) worst = d;
        }
    return worst;
}

static void conflict_degree_of_each_layout(void **s)
{
    (void)s;
    assert_int_equal(worst_degree(TR_PLAIN, 0), 1);
    assert_int_equal(worst_degree(TR_PLAIN, 1), 32);
    assert_int_equal(worst_degree(TR_PADDED, 0), 1);
    assert_int_equal(worst_degree(TR_PADDED, 1), 1);
    assert_int_equal(worst_degree(TR_SWIZZLED, 0), 1);
    assert_int_equal(worst_degree(TR_SWIZZLED, 1), 1);
}

/* The wide tile: each warp's shared store (a tile row, in the load phase)
 * and shared load (a tile column, in the store phase), for every warp ty,
 * row step i and column half j of the kernel's loops. */
static unsigned worst_wide_degree(int store)
{
    unsigned worst = 0, w[32];
    for (unsigned ty = 0; ty < TR_BLOCK_ROWS; ty++)
        for (unsigned i = 0; i < TR_WIDE; i += TR_BLOCK_ROWS)
            for (unsigned j = 0; j < TR_WIDE; j += 32) {
                for (unsigned tx = 0; tx < 32; tx++)
                    w[tx] = store ? tr_wide_index(tx + j, ty + i)
                                  : tr_wide_index(ty + i, tx + j);
                unsigned d = tr_conflict_degree(w);
                if (d > worst) worst = d;
            }
    return worst;
}

static void conflict_degree_of_wide_tile(void **s)
{
    (void)s;
    assert_int_equal(worst_wide_degree(0), 1);
    assert_int_equal(worst_wide_degree(1), 1);
    static unsigned char used[TR_WIDE * (TR_WIDE + 1)];
    for (unsigned r = 0; r < TR_WIDE; r++)
        for (unsigned c = 0; c < TR_WIDE; c++) {
            unsigned w = tr_wide_index(r, c);
            assert_true(w < TR_WIDE * (TR_WIDE + 1));
            assert_int_equal(used[w], 0);
            used[w] = 1;
        }
}

/* Each layout is one-to-one into the 32 x 33 words the kernels declare. */
static void layouts_are_one_to_one(void **s)
{
    (void)s;
    static const int layouts[] = {TR_PLAIN, TR_PADDED, TR_SWIZZLED};
    for (int l = 0; l < 3; l++) {
        unsigned char used[TR_TILE * (TR_TILE + 1)] = {0};
        for (unsigned r = 0; r < TR_TILE; r++)
            for (unsigned c = 0; c < TR_TILE; c++) {
                unsigned w = tr_smem_index(layouts[l], r, c);
                assert_true(w < TR_TILE * (TR_TILE + 1));
                assert_int_equal(used[w], 0);
                used[w] = 1;
            }
    }
}

/* The wrong listing.  Under racecheck (make sanitize, sanitize.expect) the
 * tool must report the hazards; in a normal run the result may or may not
 * be wrong, and the test says which it was. */
static void wrong_nobarrier_races(void **s)
{
    (void)s;
    TK_SKIP_IN_CLEAN_SANITIZER_RUN();
    TK_REQUIRE_GPU();
    size_t rows = tk_small() ? 64 : 4096, cols = tk_small() ? 96 : 4096;
    size_t n = rows * cols;
    uint64_t st = tk_seed(0);
    float *a = tk_malloc(n * sizeof *a), *got = tk_malloc(n * sizeof *got);
    tk_fill(a, n, -1, 1, &st);
    float *din = tk_dev_floats(n), *dout = tk_dev_floats(n);
    tk_upload(din, a, n);
    TK_CUDA(transpose_tile_nobarrier(din, dout, rows, cols, 0));
    TK_CUDA(cudaDeviceSynchronize());
    tk_download(got, dout, n);
    size_t wrong = 0;
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++)
            wrong += !(got[c * rows + r] == a[r * cols + c]);
    print_message("tile without barrier, %zux%zu: %zu of %zu elements "
                  "wrong in this run (racecheck reports the race either "
                  "way)\n", rows, cols, wrong, n);
    tk_free(din); tk_free(dout);
    free(a); free(got);
}

/* Stream order: every variant, called on a stream held behind a closed
 * gate, returns with out untouched, and once the gate opens out is the
 * CPU's transpose; the tile without its barrier, whose output may be wrong
 * by design, only untouched. */
static void transpose_launchers_follow_the_stream(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    for (size_t v = 0; v < NVARIANTS; v++)
        assert_int_equal(run_case(variants[v].fn, variants[v].name, 1025,
                                  513, 0, 1), 0);
    size_t rows = 1025, cols = 513, n = rows * cols;
    float *din = tk_dev_floats(n), *dout = tk_dev_floats(n);
    TK_CUDA(cudaMemset(din, 0, n * sizeof *din));  /* out would be zeros */
    tk_gate g = tk_gate_if(1);
    TK_CUDA(transpose_tile_nobarrier(din, dout, rows, cols, g.s));
    tk_gate_open_untouched(&g, dout, NULL, n * sizeof *dout,
                           "transpose_tile_nobarrier");
    tk_free(din); tk_free(dout);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bad_arguments_refused),
        cmocka_unit_test(conflict_degree_helper),
        cmocka_unit_test(conflict_degree_of_each_layout),
        cmocka_unit_test(layouts_are_one_to_one),
        cmocka_unit_test(conflict_degree_of_wide_tile),
        cmocka_unit_test(naive_all_shapes),
        cmocka_unit_test(naive_colread_all_shapes),
        cmocka_unit_test(tile_all_shapes),
        cmocka_unit_test(tile_padded_all_shapes),
        cmocka_unit_test(tile_swizzled_all_shapes),
        cmocka_unit_test(tile64_padded_all_shapes),
        cmocka_unit_test(transpose_twice_is_identity),
        cmocka_unit_test(wrong_nobarrier_races),
        cmocka_unit_test(transpose_launchers_follow_the_stream),
    };
    return tk_run_tests("transpose", tests);
}
