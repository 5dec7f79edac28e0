/* test_reduce2d.c -- the reduce-2d chapter's tests: row and column sums on
 * the chapter's shapes against double sums (random inputs within the derived
 * tolerance, inputs from {-1, 0, 1} exactly), a misaligned matrix, the
 * dot product on the reduce chapter's sizes, bad arguments, and every
 * launcher queued on a stream held by a gate. */
#include "testkit.h"
#include "reduce-2d/reduce2d.h"
#include "variants.h"
#include <math.h>
#include <stdio.h>

static const double U = 0x1p-24;

static const size_t shapes[][2] = {
    {1, 1}, {33, 65}, {1, 1000000}, {1000000, 1}, {1u << 20, 32},
    {32, 1u << 20}, {8192, 8192},
    /* odd and edge widths for the in-flight variants' paths: one front of
     * float4s (cols <= 128) or of floats (cols <= 32), a thread down the
     * rows (65536 units or more), and the shapes in between */
    {255, 257}, {1000, 3}, {100000, 31}, {100001, 128}, {4097, 124},
    {1000003, 33}, {3, 300001}, {7, 262144}, {2, 262148}, {257, 65540},
    {64, 262144}, {65, 262144}, {5000, 8}, {3000, 64}, {777, 5}, {999, 2},
    {1001, 16}, {4099, 12},
    /* every front width (lanes across: 1, 2, 4, 8, 16, 32) on both paths:
     * one float4 a row; 9 to 16 floats, not a multiple of 4 */
    {3001, 4}, {5003, 13}, {70001, 4},
    {31, 1025}, {1025, 31},
    /* rows of exactly 32 floats (the reduce-scatter): fewer rows than a
     * warp's 32, and counts that end inside a warp's or a group's rows */
    {1, 32}, {7, 32}, {31, 32}, {33, 32}, {255, 32}, {257, 32},
    {100003, 32}};
#define NSHAPES (sizeof shapes / sizeof shapes[0])
/* Under the sanitizer (slow) smaller shapes of the same kinds. */
static const size_t small_shapes[][2] = {
    {1, 1}, {33, 65}, {1, 5000}, {5000, 1}, {3000, 32}, {32, 3000},
    {40, 2048}, {255, 257}, {1000, 3}, {3001, 31}, {3001, 128}, {3, 70001},
    {2, 262148}, {31, 1025}, {1025, 31}, {500, 8}, {300, 64}, {77, 5},
    {99, 2}, {101, 16}, {1, 32}, {31, 32}, {33, 32}, {257, 32}, {301, 4},
    {503, 13}};
#define NSMALL (sizeof small_shapes / sizeof small_shapes[0])
static size_t nshapes(void) { return tk_small() ? NSMALL : NSHAPES; }
static size_t shape(size_t k, int dim)
{
    return tk_small() ? small_shapes[k][dim] : shapes[k][dim];
}

/* Every row and column sum (variants.h).  zeroed: needs a workspace set
 * to zero once (and leaves it zero: the test runs it twice on one zeroing
 * and checks the second result). */
struct variant { const char *name; rowcol_fn fn; int by_rows, zeroed; };
#define VARIANT(name, fn, by_rows, zeroed) {name, fn, by_rows, zeroed},
static const struct variant variants[] = {REDUCE2D_VARIANTS(VARIANT)};
#define NVARIANTS (sizeof variants / sizeof variants[0])

/* Reference sums and sums of magnitudes along rows or down columns. */
static void reference(const float *a, size_t rows, size_t cols, int by_rows,
                      double *ref, double *mag)
{
    size_t m = by_rows ? rows : cols;
    for (size_t i = 0; i < m; i++) ref[i] = mag[i] = 0.0;
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++) {
            double v = a[r * cols + c];
            size_t i = by_rows ? r : c;
            ref[i] += v;
            mag[i] += fabs(v);
        }
}

/* fn on the stream of a closed gate: out[0..m) must still hold its
 * poison when fn returns, and the sums once the gate opens.  A first call
 * on the default stream loads fn's kernels beforehand: lazy loading may
 * wait for the whole device, and so for the gate. */
static void run_behind_gate(rowcol_fn fn, const float *a, size_t rows,
                            size_t cols, float *out, size_t m, void *work)
{
    TK_CUDA(fn(a, rows, cols, out, work, 0));
    TK_CUDA(cudaDeviceSynchronize());
    tk_poison(out, m * sizeof *out);
    tk_gate g = tk_gate_close();
    TK_CUDA(fn(a, rows, cols, out, work, g.s));
    assert_true(tk_still_poisoned(out, m * sizeof *out));
    tk_gate_open(&g);
}

/* Run every variant on one matrix (offset floats into its buffer); gated:
 * each behind a gate (run_behind_gate), else on the default stream. */
static void check_shape(size_t rows, size_t cols, size_t offset, int exact,
                        int round, int gated)
{
    size_t n = rows * cols, most = rows > cols ? rows : cols;
    uint64_t seed = tk_seed(round), st = seed;
    float *a = tk_malloc((n + offset) * sizeof *a);
    if (exact)
        for (size_t i = 0; i < n + offset; i++)
            a[i] = (float)(int)(tk_next(&st) % 3) - 1.0f;
    else
        tk_fill(a, n + offset, -1.0, 1.0, &st);
    float *got = tk_malloc(most * sizeof *got);
    double *ref = tk_malloc(most * sizeof *ref);
    double *mag = tk_malloc(most * sizeof *mag);
    double *cref = tk_malloc(most * sizeof *cref);   /* column sums */
    double *cmag = tk_malloc(most * sizeof *cmag);
    reference(a + offset, rows, cols, 1, ref, mag);
    reference(a + offset, rows, cols, 0, cref, cmag);
    float *da = tk_dev_floats(n + offset), *dout = tk_dev_floats(most);
    tk_upload(da, a, n + offset);
    size_t wb = col_sums_in_flight_workspace_bytes(rows, cols);
    if (wb < col_sums_workspace_bytes(rows, cols))
        wb = col_sums_workspace_bytes(rows, cols);
    if (wb < row_sums_workspace_bytes()) wb = row_sums_workspace_bytes();
    void *work;
    work = tk_dev_bytes(wb);
    for (size_t v = 0; v < NVARIANTS; v++) {
        int by_rows = variants[v].by_rows;
        size_t m = by_rows ? rows : cols, len = by_rows ? cols : rows;
        const double *want = by_rows ? ref : cref;
        const double *size = by_rows ? mag : cmag;
        if (variants[v].zeroed) {
            TK_CUDA(cudaMemset(work, 0, wb));
            tk_poison(dout, most * sizeof(float));
            TK_CUDA(variants[v].fn(da + offset, rows, cols, dout, work, 0));
        } else
            tk_poison(work, wb);       /* the others need no zeroing */
        tk_poison(dout, most * sizeof(float));
        if (gated) {
            run_behind_gate(variants[v].fn, da + offset, rows, cols, dout, m,
                            work);
        } else {
            TK_CUDA(variants[v].fn(da + offset, rows, cols, dout, work, 0));
            TK_CUDA(cudaDeviceSynchronize());
        }
        tk_download(got, dout, m);
        double h = 64.0 + ceil((double)len / 32.0);
        size_t bad = 0;
        for (size_t i = 0; i < m; i++) {
            double tol = exact ? 0.0 : h * U / (1.0 - h * U) * size[i];
            if (!(fabs(got[i] - want[i]) <= tol)) {
                if (bad++ < 3)
                    print_error("%s %zux%zu (offset %zu) seed=%llu: "
                                "element %zu is %.9g, want %.9g\n",
                                variants[v].name, rows, cols, offset,
                                (unsigned long long)seed, i, got[i], want[i]);
            }
        }
        if (bad) fail();
    }
    tk_free(da); tk_free(dout); tk_free(work);
    free(a); free(got); free(ref); free(mag); free(cref); free(cmag);
}

static void rows_and_columns_random(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    for (int round = 0; round < 2; round++)
        for (size_t k = 0; k < nshapes(); k++)
            check_shape(shape(k, 0), shape(k, 1), 0, 0, round, 0);
}

static void rows_and_columns_exact(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    for (int round = 0; round < 2; round++)
        for (size_t k = 0; k < nshapes(); k++)
            check_shape(shape(k, 0), shape(k, 1), 0, 1, round, 0);
}

/* Offset by one float: not 16-byte aligned, the scalar paths run. */
static void rows_and_columns_misaligned(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    check_shape(33, 64, 1, 1, 0, 0);
    check_shape(1000, 1024, 1, 0, 1, 0);
    check_shape(64, 4096, 1, 1, 1, 0);
    check_shape(100000, 32, 1, 0, 0, 0);   /* a front of floats */
    check_shape(4097, 128, 1, 1, 0, 0);    /* too wide for those: col_sums */
    check_shape(5, 300000, 1, 0, 1, 0);    /* a thread down the rows, floats */
    check_shape(100000, 8, 3, 1, 1, 0);
    check_shape(3001, 4, 1, 0, 0, 0);      /* floats: 4 a row, 4 lanes */
    check_shape(3001, 16, 2, 1, 1, 0);     /* floats: 16 lanes */
}

/* Dot products over the book's ladder of sizes (testkit), up to 2^28. */

/* dot as a rowcol_fn, for run_behind_gate: x is a, n is rows, y dot_y. */
static const float *dot_y;
static cudaError_t dot_of_rows(const float *a, size_t rows, size_t cols,
                               float *out, void *work, cudaStream_t st)
{
    (void)cols;
    return dot(a, dot_y, rows, out, work, st);
}

static void check_dot(size_t n, size_t offset, int exact, int round,
                      int gated)
{
    uint64_t seed = tk_seed(round), st = seed;
    float *x = tk_malloc((n + offset) * sizeof *x);
    float *y = tk_malloc((n + offset) * sizeof *y);
    for (size_t i = 0; i < n + offset; i++) {
        if (exact) {
            x[i] = (float)(int)(tk_next(&st) % 3) - 1.0f;
            y[i] = (float)(int)(tk_next(&st) % 3) - 1.0f;
        } else {
            x[i] = (float)tk_uniform(&st, -1.0, 1.0);
            y[i] = (float)tk_uniform(&st, -1.0, 1.0);
        }
    }
    double ref = 0, mag = 0;
    for (size_t i = offset; i < n + offset; i++) {
        ref += (double)x[i] * y[i];
        mag += fabs((double)x[i] * y[i]);
    }
    float *dx = tk_dev_floats(n + offset), *dy = tk_dev_floats(n + offset);
    float *dout = tk_dev_floats(1), got;
    void *work;
    work = tk_dev_bytes(dot_workspace_bytes());
    tk_upload(dx, x, n + offset);
    tk_upload(dy, y, n + offset);
    if (gated) {
        dot_y = dy + offset;
        run_behind_gate(dot_of_rows, dx + offset, n, 1, dout, 1, work);
    } else {
        TK_CUDA(dot(dx + offset, dy + offset, n, dout, work, 0));
        TK_CUDA(cudaDeviceSynchronize());
    }
    tk_download(&got, dout, 1);
    double h = 65.0 + ceil((double)n / 32768.0);
    double tol = exact ? 0.0 : h * U / (1.0 - h * U) * mag;
    if (!(fabs(got - ref) <= tol)) {
        print_error("dot n=%zu offset %zu seed=%llu: got %.9g, want %.9g "
                    "within %.3g\n", n, offset, (unsigned long long)seed,
                    got, ref, tol);
        fail();
    }
    tk_free(dx); tk_free(dy); tk_free(dout); tk_free(work);
    free(x); free(y);
}

static void dot_all_sizes(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    for (tk_sweep sw = tk_sweep_start((size_t)1 << 28, 0);
         tk_sweep_next(&sw);) {
        check_dot(sw.n, 0, 0, sw.round, 0);
        check_dot(sw.n, 0, 1, sw.round, 0);
    }
}

static void dot_misaligned(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    check_dot(4097, 1, 1, 0, 0);
    check_dot(100003, 3, 0, 1, 0);
}

/* Stream order: every row and column variant, and the dot product, queued
 * on a stream held by a gate leaves its output untouched until the gate
 * opens, and is then checked as above.  The shapes take every path of the
 * launchers: a warp per row (float and float4), several blocks per row
 * and a block per row, rows of 32 (the reduce-scatter) and in flight, the
 * column front (float and float4), a thread down the rows, and col_sums
 * with each of its finishing kernels. */
static void reduce2d_launchers_follow_the_stream(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    static const size_t order_shapes[][2] = {
        {33, 65},   {1000, 64},   {257, 32},   {3, 70001},
        {2, 262148}, {2100, 1028}, {100000, 31}};
    for (size_t k = 0; k < sizeof order_shapes / sizeof order_shapes[0];
         k++)
        check_shape(order_shapes[k][0], order_shapes[k][1], 0, (int)(k % 2),
                    (int)(k % 2), 1);
    check_dot(0, 0, 1, 0, 1);          /* n = 0: a memset on the stream */
    check_dot(100003, 0, 0, 1, 1);     /* float4 */
    check_dot(4097, 1, 1, 0, 1);       /* misaligned: floats */
}

/* CPU-side: bad arguments are refused before anything touches a device. */
static void bad_arguments_refused(void **s)
{
    (void)s;
    float *p = TK_FAKE(256);
    void *w = TK_FAKE(4096);
    for (size_t v = 0; v < NVARIANTS; v++) {
        TK_REFUSED(variants[v].fn(NULL, 4, 4, p, w, 0));
        TK_REFUSED(variants[v].fn(p, 4, 4, NULL, w, 0));
        /* Sums of empty rows (or columns) to write: refused. */
        if (variants[v].by_rows)
            TK_REFUSED(variants[v].fn(p, 4, 0, p, w, 0));
        else
            TK_REFUSED(variants[v].fn(p, 0, 4, p, w, 0));
    }
    TK_REFUSED(row_sums(p, 4, 0, p, w, 0));
    TK_REFUSED(col_sums(p, 0, 4, p, w, 0));
    TK_REFUSED(col_sums(p, 4, 4, p, NULL, 0));
    TK_REFUSED(col_sums_in_flight(p, 4, 4, p, NULL, 0));
    TK_REFUSED(col_sums_in_flight(p, 0, 4, p, w, 0));
    TK_REFUSED(row_sums_in_flight(p, 4, 0, p, w, 0));
    assert_int_equal(row_sums_in_flight(NULL, 0, 4, NULL, NULL, 0),
                     cudaSuccess);
    assert_int_equal(col_sums_in_flight(NULL, 4, 0, NULL, NULL, 0),
                     cudaSuccess);
    TK_REFUSED(dot(p, NULL, 4, p, w, 0));
    TK_REFUSED(dot(p, p, 4, p, NULL, 0));
    assert_int_equal(row_sums(NULL, 0, 4, NULL, NULL, 0), cudaSuccess);
    /* A block a row (row_sums_block) or a column
     * (col_sums_block_per_column): 2^31 - 1 of them at most. */
    float *q = TK_FAKE(1ull << 40);
    TK_REFUSED(row_sums_block(p, (size_t)1 << 31, 1, q, w, 0));
    TK_REFUSED(col_sums_block_per_column(p, 1, (size_t)1 << 31, q, w, 0));
}

/* Few long rows: row_sums spreads each row over several blocks, which
 * needs its workspace (the header); without one it refuses, and writes
 * nothing.  row_sums_in_flight sends such rows to row_sums. */
static void row_sums_refuse_missing_workspace(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    const size_t cols = 4096;
    float *da = tk_dev_floats(cols), *dout = tk_dev_floats(1), got;
    TK_REFUSED(row_sums(da, 1, cols, dout, NULL, 0));
    TK_REFUSED(row_sums_in_flight(da, 1, cols, dout, NULL, 0));
    TK_CUDA(cudaDeviceSynchronize());
    tk_download(&got, dout, 1);
    assert_true(isnan(got));                 /* nothing ran */
    tk_free(da); tk_free(dout);
}

/* CPU-side: the column workspace holds the largest chunk count. */
static void workspace_bounds(void **s)
{
    (void)s;
    assert_true(col_sums_workspace_bytes(8192, 8192) >= 4 * 8192 * 32);
    assert_true(col_sums_workspace_bytes(1000000, 1) >= 4 * 4096);
    assert_true(col_sums_workspace_bytes(1, 1000000) >= 4 * 1000000);
    assert_true(col_sums_workspace_bytes(32, 1u << 20) <= 4 * 32 << 20);
    assert_true(col_sums_in_flight_workspace_bytes(1u << 20, 128) >=
                256 + 4 * 4096 * 128);
    assert_true(col_sums_in_flight_workspace_bytes(8192, 8192) >=
                256 + col_sums_workspace_bytes(8192, 8192));
    assert_true(dot_workspace_bytes() >= 4 * 4096);
    assert_true(row_sums_workspace_bytes() >= 4 * 4096);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bad_arguments_refused),
        cmocka_unit_test(workspace_bounds),
        cmocka_unit_test(rows_and_columns_random),
        cmocka_unit_test(rows_and_columns_exact),
        cmocka_unit_test(rows_and_columns_misaligned),
        cmocka_unit_test(dot_all_sizes),
        cmocka_unit_test(dot_misaligned),
        cmocka_unit_test(row_sums_refuse_missing_workspace),
        cmocka_unit_test(reduce2d_launchers_follow_the_stream),
    };
    return tk_run_tests("reduce-2d", tests);
}
