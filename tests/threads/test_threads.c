/* test_threads.c -- the threads chapter's tests: every launcher against a
 * double precision CPU reference, edge sizes, bad arguments, the listing
 * that is wrong on purpose, and stream order (each launcher's work waits
 * on the stream it is given). */
#include "testkit.h"
#include "threads/threads.h"
#include "variants.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The largest size of the book's ladder (testkit) that the tests take;
 * under the sanitizer the ladder is a short one: it is slow. */
#define MAX_N ((size_t)10000001)

typedef cudaError_t (*binary_op)(const float *, const float *, float *,
                                 size_t, cudaStream_t);
typedef cudaError_t (*matrix_op)(const float *, const float *, float *,
                                 size_t, size_t, cudaStream_t);

/* The adds of variants.h, with their names. */
#define VECTOR_ADD(fn) {#fn, fn},
#define MATRIX_ADD(fn) {#fn, fn},
static const struct { const char *name; binary_op fn; } vector_adds[] = {
    THREADS_VECTOR_ADDS(VECTOR_ADD)
};
static const struct { const char *name; matrix_op fn; } matrix_adds[] = {
    THREADS_MATRIX_ADDS(MATRIX_ADD)
};
#define NVECTOR_ADDS (sizeof vector_adds / sizeof vector_adds[0])
#define NMATRIX_ADDS (sizeof matrix_adds / sizeof matrix_adds[0])

/* Run op on random a, b of n floats (offset floats into their buffers) and
 * compare c with the double sum; returns the number of wrong elements. */
static size_t check_add(binary_op op, size_t n, size_t offset, int round,
                        int gated)
{
    uint64_t seed = tk_seed(round), st = seed;
    size_t m = n + offset;
    float *a = tk_malloc(m * sizeof *a), *b = tk_malloc(m * sizeof *b);
    float *c = tk_malloc(m * sizeof *c);
    double *ref = tk_malloc(n * sizeof *ref);
    tk_fill(a, m, -1e3, 1e3, &st);
    tk_fill(b, m, -1e3, 1e3, &st);
    for (size_t i = 0; i < n; i++) ref[i] = (double)a[offset + i] + b[offset + i];
    float *da = tk_dev_floats(m), *db = tk_dev_floats(m), *dc = tk_dev_floats(m);
    tk_upload(da, a, m);
    tk_upload(db, b, m);
    tk_gate g = tk_gate_if(gated);
    TK_CUDA(op(da + offset, db + offset, dc + offset, n, g.s));
    tk_gate_open_untouched(&g, dc, NULL, m * sizeof *dc, "vector add");
    TK_CUDA(cudaDeviceSynchronize());
    tk_download(c, dc + offset, n);
    size_t bad = tk_compare("vector add", c, ref, n, 0.0, 1.2e-7, seed);
    tk_free(da); tk_free(db); tk_free(dc);
    free(a); free(b); free(c); free(ref);
    return bad;
}

static void all_sizes(binary_op op, size_t offset)
{
    TK_REQUIRE_GPU();
    for (tk_sweep s = tk_sweep_start(MAX_N, 0); tk_sweep_next(&s);)
        assert_int_equal(check_add(op, s.n, offset, s.round, 0), 0);
}

static void vadd_all_sizes(void **s) { (void)s; all_sizes(vadd, 0); }
static void vadd_float4_all_sizes(void **s) { (void)s; all_sizes(vadd_float4, 0); }
static void vadd_float4_misaligned(void **s) { (void)s; all_sizes(vadd_float4, 1); }
static void vadd_float4_offset_by_4(void **s) { (void)s; all_sizes(vadd_float4, 4); }
static void vadd_grid_stride_all_sizes(void **s) { (void)s; all_sizes(vadd_grid_stride, 0); }

/* Run op on random rows x cols matrices (offset floats into their
 * buffers), c poisoned, against the double sum. */
static void madd_shape(matrix_op op, size_t rows, size_t cols,
                       size_t offset, int round, int gated)
{
    size_t n = rows * cols, m = n + offset;
    uint64_t seed = tk_seed(round), st = seed;
    float *a = tk_malloc(m * sizeof *a), *b = tk_malloc(m * sizeof *b);
    float *c = tk_malloc(n * sizeof *c);
    double *ref = tk_malloc(n * sizeof *ref);
    tk_fill(a, m, -1, 1, &st);
    tk_fill(b, m, -1, 1, &st);
    for (size_t i = 0; i < n; i++) ref[i] = (double)a[offset + i] + b[offset + i];
    float *da = tk_dev_floats(m), *db = tk_dev_floats(m), *dc = tk_dev_floats(m);
    tk_upload(da, a, m);
    tk_upload(db, b, m);
    tk_gate g = tk_gate_if(gated);
    TK_CUDA(op(da + offset, db + offset, dc + offset, rows, cols, g.s));
    tk_gate_open_untouched(&g, dc, NULL, m * sizeof *dc, "matrix add");
    TK_CUDA(cudaDeviceSynchronize());
    tk_download(c, dc + offset, n);
    assert_int_equal(tk_compare("matrix add", c, ref, n, 0.0, 1.2e-7, seed), 0);
    /* Nothing written before the matrix or past its end. */
    float edge[4];
    if (offset) {
        tk_download(edge, dc, offset < 4 ? offset : 4);
        for (size_t i = 0; i < (offset < 4 ? offset : 4); i++)
            assert_true(isnan(edge[i]));
    }
    tk_free(da); tk_free(db); tk_free(dc);
    free(a); free(b); free(c); free(ref);
}

static void madd_shapes(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    static const size_t shapes[][2] = {{1, 1}, {1, 1000}, {1000, 1}, {33, 65},
                                       {1000, 3}, {8, 32}, {4097, 4099}};
    size_t k = tk_small() ? 6 : 7;
    for (int round = 0; round < 2; round++)
        for (size_t i = 0; i < k; i++)
            madd_shape(madd, shapes[i][0], shapes[i][1], 0, round, 0);
}

/* madd_float4 on its two paths: widths that are multiples of 4 (float4)
 * and not (scalar), aligned, offset by one float (scalar), offset by four
 * (float4); rows past the 65535 x 8 that one grid row of blocks covers;
 * one row longer than a block's 128 units; 10^7 floats and more. */
static void madd_float4_shapes(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    static const size_t shapes[][2] = {
        {1, 1}, {1, 4}, {1, 1000}, {1000, 1}, {33, 65}, {31, 32}, {1000, 3},
        {8, 32}, {255, 257}, {257, 256}, {3, 1025}, {1, 4097}, {1, 100001},
        {4097, 4099}, {1000, 1024}, {524281, 3}, {600000, 4},
        {2500, 4096}, {3163, 3163},
        /* past 65535 x 8 rows and at least 128 floats a row: the kernel's
         * grid-stride loop in y runs, on both paths (offsets 0 and 4:
         * float4; offset 1: floats) */
        {524289, 128}};
    const size_t offsets[] = {0, 1, 4};
    size_t k = sizeof shapes / sizeof shapes[0];
    if (tk_small()) k = 13;            /* under the sanitizer: the small */
    for (int round = 0; round < 2; round++)
        for (size_t i = 0; i < k; i++)
            for (size_t o = 0; o < 3; o++)
                madd_shape(madd_float4, shapes[i][0], shapes[i][1],
                           offsets[o], round, 0);
}

/* madd_float4 on a pointer that is not float-aligned: refused, output
 * untouched. */
static void madd_float4_refuses_unaligned(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    float *d = tk_dev_floats(1024), h[1024];
    const float *odd = (const float *)((const char *)d + 1);
    TK_REFUSED(madd_float4(odd, d, d + 512, 2, 128, 0));
    TK_REFUSED(madd_float4(d, d, (float *)((char *)d + 2050), 2, 128, 0));
    tk_download(h, d, 1024);
    for (int i = 0; i < 1024; i++) assert_true(isnan(h[i]));
    tk_free(d);
}

/* Too many rows for the grid's y limit: refused, output untouched. */
static void madd_refuses_too_many_rows(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    float *d = tk_dev_floats(4), h[4];
    TK_REFUSED(madd(d, d, d, 65535u * 8 + 1, 1, 0));
    tk_download(h, d, 4);
    for (int i = 0; i < 4; i++) assert_true(isnan(h[i]));
    tk_free(d);
}

/* y = 2.5 x + y on random x, y of n floats, against the double result;
 * y is the input and the output, so gated, it must still be the input
 * when saxpy returns. */
static void saxpy_case(size_t n, uint64_t st, uint64_t seed, int gated)
{
    const float alpha = 2.5f;
    float *x = tk_malloc(n * sizeof *x), *y = tk_malloc(n * sizeof *y);
    double *ref = tk_malloc(n * sizeof *ref);
    tk_fill(x, n, -1, 1, &st);
    tk_fill(y, n, -1, 1, &st);
    for (size_t i = 0; i < n; i++) ref[i] = (double)alpha * x[i] + y[i];
    float *dx = tk_dev_floats(n), *dy = tk_dev_floats(n);
    tk_upload(dx, x, n);
    tk_upload(dy, y, n);
    tk_gate g = tk_gate_if(gated);
    TK_CUDA(saxpy(alpha, dx, dy, n, g.s));
    tk_gate_open_untouched(&g, dy, y, n * sizeof *y, "saxpy");
    TK_CUDA(cudaDeviceSynchronize());
    tk_download(y, dy, n);
    assert_int_equal(tk_compare("saxpy", y, ref, n, 1e-6, 0.0, seed), 0);
    tk_free(dx); tk_free(dy);
    free(x); free(y); free(ref);
}

static void saxpy_all_sizes(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    for (tk_sweep w = tk_sweep_start(MAX_N, 0); tk_sweep_next(&w);)
        saxpy_case(w.n, w.st, w.seed, 0);
}

/* n random inputs a (host and device, da) for a + a, and room for the
 * result c (host) and dc (device, poisoned). */
static void a_plus_a_inputs(size_t n, float **a, float **c, float **da,
                            float **dc)
{
    uint64_t st = tk_seed(0);
    *a = tk_malloc(n * sizeof **a);
    *c = tk_malloc(n * sizeof **c);
    tk_fill(*a, n, -1, 1, &st);
    *da = tk_dev_floats(n);
    *dc = tk_dev_floats(n);
    tk_upload(*da, *a, n);
}

/* The wrong listing: right for n a multiple of 256, an unwritten tail
 * (still NaN) otherwise. */
static void wrong_floor_leaves_tail(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    assert_int_equal(check_add(vadd_wrong_floor, 1024, 0, 0, 0), 0);
    size_t n = 1000;
    float *a, *c, *da, *dc;
    a_plus_a_inputs(n, &a, &c, &da, &dc);
    TK_CUDA(vadd_wrong_floor(da, da, dc, n, 0));
    TK_CUDA(cudaDeviceSynchronize());
    tk_download(c, dc, n);
    for (size_t i = 0; i < 768; i++) assert_true(c[i] == a[i] + a[i]);
    for (size_t i = 768; i < n; i++) assert_true(isnan(c[i]));
    tk_free(da); tk_free(dc);
    free(a); free(c);
}

/* ---- Past 2^32 elements ---------------------------------------------- */

/* a holds bytes 0x3f (the float A) below element 2^32 and 0x40 (B) from
 * there on; c = a + a must be 2A and 2B.  An index that wraps at 2^32
 * leaves the elements past it unwritten (NaN), or reads A where B is, or
 * writes 2B over the first elements.  The windows checked, the first and
 * the last 2^26 elements below 2^32 and everything above, see all three. */
#define EDGE ((size_t)1 << 32)
#define WINDOW ((size_t)1 << 26)
static size_t check_past_edge(const float *dc, size_t n, const char *what)
{
    float a, b;
    const unsigned ua = 0x3f3f3f3fu, ub = 0x40404040u;
    memcpy(&a, &ua, 4);
    memcpy(&b, &ub, 4);
    float *h = tk_malloc(WINDOW * sizeof *h);
    size_t bad = 0;
    const size_t starts[] = {0, EDGE - WINDOW, EDGE};
    for (int w = 0; w < 3; w++)
        for (size_t c0 = starts[w]; c0 < (w < 2 ? starts[w] + WINDOW : n);
             c0 += WINDOW) {
            size_t m = w < 2 || n - c0 > WINDOW ? WINDOW : n - c0;
            tk_download(h, dc + c0, m);
            for (size_t j = 0; j < m; j++) {
                float want = c0 + j < EDGE ? a + a : b + b;
                if (h[j] != want && bad++ < 5)
                    print_error("%s: element %zu is %.9g, expected %.9g\n",
                                what, c0 + j, h[j], want);
            }
        }
    free(h);
    return bad;
}

static void past_2_to_32(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    TK_SKIP_UNDER_SANITIZER("2^32 elements are too many for the sanitizer's runs");
    /* 1D: 2^32 + 3 elements; 2D: 65537 x 65536 = 2^32 + 2^16. */
    const size_t n = EDGE + 3, rows = 65537, cols = 65536;
    const size_t big = rows * cols;
    TK_REQUIRE_DEVICE_BYTES(2 * 4 * big + ((size_t)1 << 28));
    float *a = tk_dev_floats(big), *c = tk_dev_floats(big);
    TK_CUDA(cudaMemset(a, 0x3f, EDGE * sizeof(float)));
    TK_CUDA(cudaMemset(a + EDGE, 0x40, (big - EDGE) * sizeof(float)));
    for (size_t v = 0; v < NVECTOR_ADDS; v++) {
        tk_poison(c, n * sizeof(float));
        TK_CUDA(vector_adds[v].fn(a, a, c, n, 0));
        TK_CUDA(cudaDeviceSynchronize());
        assert_int_equal(check_past_edge(c, n, vector_adds[v].name), 0);
    }
    TK_CUDA(cudaMemcpy(c, a, n * sizeof(float), cudaMemcpyDeviceToDevice));
    TK_CUDA(saxpy(1.0f, a, c, n, 0));              /* 1 * a + a: exact */
    TK_CUDA(cudaDeviceSynchronize());
    assert_int_equal(check_past_edge(c, n, "saxpy"), 0);
    for (size_t v = 0; v < NMATRIX_ADDS; v++) {
        char what[64];
        snprintf(what, sizeof what, "%s %zu x %zu", matrix_adds[v].name,
                 rows, cols);
        tk_poison(c, big * sizeof(float));
        TK_CUDA(matrix_adds[v].fn(a, a, c, rows, cols, 0));
        TK_CUDA(cudaDeviceSynchronize());
        assert_int_equal(check_past_edge(c, big, what), 0);
    }
    tk_poison(c, big * sizeof(float));
    /* The scalar path: an odd width, 65538 x 65535 = 2^32 + 65534. */
    TK_CUDA(madd_float4(a, a, c, rows + 1, cols - 1, 0));
    TK_CUDA(cudaDeviceSynchronize());
    assert_int_equal(check_past_edge(c, (rows + 1) * (cols - 1),
                                     "madd_float4 65538 x 65535"), 0);
    tk_free(a);
    tk_free(c);
}

/* An error that an earlier call left pending (here a failed cudaMalloc)
 * is returned by the next launcher instead of a launch, so a launcher that
 * fails has queued nothing; it is returned once, and the call after it
 * launches.  Before BOOK_CLEAR_TO_LAUNCH the launcher ran the kernel and
 * returned the earlier error as its own: the output was written. */
static void earlier_error_is_not_this_launch(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    if (tk_env("BOOK_SANITIZE")) {
        print_message("skipped: provokes a CUDA API error on purpose, which "
                      "the sanitizer reports\n");
        skip();
    }
    size_t n = 1000;
    float *a, *c, *da, *dc;
    a_plus_a_inputs(n, &a, &c, &da, &dc);
    TK_CUDA(cudaGetLastError());               /* nothing pending so far */
    void *huge = NULL;
    cudaError_t earlier = cudaMalloc(&huge, (size_t)1 << 62);
    assert_int_not_equal(earlier, cudaSuccess);
    assert_int_equal(cudaPeekAtLastError(), earlier);
    assert_int_equal(vadd(da, da, dc, n, 0), earlier);
    TK_CUDA(cudaDeviceSynchronize());
    tk_download(c, dc, n);
    for (size_t i = 0; i < n; i++) assert_true(isnan(c[i]));   /* no launch */
    assert_int_equal(cudaPeekAtLastError(), cudaSuccess);      /* reported */
    TK_CUDA(vadd(da, da, dc, n, 0));
    TK_CUDA(cudaDeviceSynchronize());
    tk_download(c, dc, n);
    for (size_t i = 0; i < n; i++) assert_true(c[i] == a[i] + a[i]);
    tk_free(da); tk_free(dc);
    free(a); free(c);
}

/* CPU-side: bad arguments are refused before anything touches a device. */
static void null_pointers_refused(void **s)
{
    (void)s;
    float *p = TK_FAKE(256);  /* never dereferenced */
    for (size_t v = 0; v < NVECTOR_ADDS; v++) {
        binary_op fn = vector_adds[v].fn;
        TK_REFUSED(fn(NULL, p, p, 10, 0));
        TK_REFUSED(fn(p, NULL, p, 10, 0));
        TK_REFUSED(fn(p, p, NULL, 10, 0));
    }
    TK_REFUSED(madd(p, p, NULL, 2, 2, 0));
    /* madd: 524280 rows at most, 65535 blocks of 8 down the grid. */
    TK_REFUSED(madd(p, p, p, 65535u * 8 + 1, 1, 0));
    TK_REFUSED(madd_float4(NULL, p, p, 2, 4, 0));
    TK_REFUSED(madd_float4(p, NULL, p, 2, 4, 0));
    TK_REFUSED(madd_float4(p, p, NULL, 3, 3, 0));
    /* rows * cols past the top of size_t: refused, never wrapped */
    TK_REFUSED(madd_float4(p, p, p, SIZE_MAX / 2, 4, 0));
    /* a, b or c not float-aligned: refused, whichever path the width
     * would take (a vector, float4 rows, four floats a thread). */
    float *odd = TK_FAKE(258);
    static const size_t widths[] = {3, 128, 129};
    for (int w = 0; w < 3; w++) {
        size_t c = widths[w];
        TK_REFUSED(madd_float4(odd, p, p, 2, c, 0));
        TK_REFUSED(madd_float4(p, odd, p, 2, c, 0));
        TK_REFUSED(madd_float4(p, p, odd, 2, c, 0));
    }
    TK_REFUSED(saxpy(1.0f, NULL, p, 10, 0));
    TK_REFUSED(vadd_wrong_floor(NULL, p, p, 10, 0));
}

static void empty_sizes_do_nothing(void **s)
{
    (void)s;
    for (size_t v = 0; v < NVECTOR_ADDS; v++)
        assert_int_equal(vector_adds[v].fn(NULL, NULL, NULL, 0, 0),
                         cudaSuccess);
    for (size_t v = 0; v < NMATRIX_ADDS; v++) {
        assert_int_equal(matrix_adds[v].fn(NULL, NULL, NULL, 0, 5, 0),
                         cudaSuccess);
        assert_int_equal(matrix_adds[v].fn(NULL, NULL, NULL, 5, 0, 0),
                         cudaSuccess);
    }
    assert_int_equal(saxpy(1.0f, NULL, NULL, 0, 0), cudaSuccess);
}

/* Stream order: every launcher, called on a stream held behind a closed
 * gate, returns with its output untouched, and once the gate opens the
 * output is the reference's.  The vector adds aligned and one float off
 * (vadd_float4 then takes vadd); the matrix adds on float4 rows, on rows
 * of an odd width and on rows narrower than 128 floats (madd_float4's
 * three paths); saxpy in place; the wrong listing, whose output is wrong
 * by design, only untouched. */
static void threads_launchers_follow_the_stream(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    for (size_t v = 0; v < NVECTOR_ADDS; v++)
        for (size_t offset = 0; offset < 2; offset++)
            assert_int_equal(check_add(vector_adds[v].fn, 100003, offset, 0,
                                       1), 0);
    static const size_t shapes[][2] = {{1000, 1024}, {1000, 1001},
                                       {10000, 33}};
    for (size_t v = 0; v < NMATRIX_ADDS; v++)
        for (size_t k = 0; k < 3; k++)
            madd_shape(matrix_adds[v].fn, shapes[k][0], shapes[k][1], 0, 0,
                       1);
    uint64_t seed = tk_seed(0);
    saxpy_case(100003, seed, seed, 1);
    size_t n = 1000;
    float *a, *c, *da, *dc;
    a_plus_a_inputs(n, &a, &c, &da, &dc);
    tk_gate g = tk_gate_if(1);
    TK_CUDA(vadd_wrong_floor(da, da, dc, n, g.s));
    tk_gate_open_untouched(&g, dc, NULL, n * sizeof *dc,
                           "vadd_wrong_floor");
    tk_free(da); tk_free(dc);
    free(a); free(c);
}

/* CPU-side: the comparison helper itself fails on NaN, Inf and error. */
static void compare_catches_bad_values(void **s)
{
    (void)s;
    float got[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    double ref[4] = {1.0, 2.0, 3.0, 4.0};
    assert_int_equal(tk_compare("same", got, ref, 4, 0, 0, 0), 0);
    got[1] = NAN;
    assert_int_equal(tk_compare("nan", got, ref, 4, 0, 1e-7, 0), 1);
    got[1] = INFINITY;
    assert_int_equal(tk_compare("inf", got, ref, 4, 0, 1e-7, 0), 1);
    got[1] = 2.001f;
    assert_int_equal(tk_compare("off", got, ref, 4, 0, 1e-4, 0), 1);
    assert_int_equal(tk_compare("within", got, ref, 4, 0, 1e-3, 0), 0);
    ref[1] = INFINITY; got[1] = INFINITY;
    assert_int_equal(tk_compare("expected inf", got, ref, 4, 0, 0, 0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(compare_catches_bad_values),
        cmocka_unit_test(null_pointers_refused),
        cmocka_unit_test(empty_sizes_do_nothing),
        cmocka_unit_test(vadd_all_sizes),
        cmocka_unit_test(vadd_float4_all_sizes),
        cmocka_unit_test(vadd_float4_misaligned),
        cmocka_unit_test(vadd_float4_offset_by_4),
        cmocka_unit_test(vadd_grid_stride_all_sizes),
        cmocka_unit_test(madd_shapes),
        cmocka_unit_test(madd_refuses_too_many_rows),
        cmocka_unit_test(madd_float4_shapes),
        cmocka_unit_test(madd_float4_refuses_unaligned),
        cmocka_unit_test(saxpy_all_sizes),
        cmocka_unit_test(wrong_floor_leaves_tail),
        cmocka_unit_test(past_2_to_32),
        cmocka_unit_test(earlier_error_is_not_this_launch),
        cmocka_unit_test(threads_launchers_follow_the_stream),
    };
    return tk_run_tests("threads", tests);
}
