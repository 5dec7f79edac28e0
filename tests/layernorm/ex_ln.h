/* ex_ln.h -- what the layernorm chapter's exercise drivers share: a layer
 * norm of x (+ r) on the GPU against the double two-pass reference, within
 * 2e-4 + 1e-4 |y|, for random rows in [-1, 3) and rows of the constant
 * 0.5 (whose sum is exact: y must be beta). */
#include "exkit.h"
#include <math.h>
#include <stdio.h>

typedef cudaError_t (*ex_ln_fn)(const float *x, const float *r,
                                const float *g, const float *b, float *y,
                                size_t rows, size_t cols, float eps,
                                cudaStream_t stream);

static void ex_ln_check(ex_ln_fn fn, int with_r, size_t rows, size_t cols,
                        int constant, int round)
{
    const float eps = 1e-5f;
    uint64_t seed = tk_seed(round), st = seed;
    size_t n = rows * cols;
    float *x = tk_malloc(n * sizeof *x), *r = tk_malloc(n * sizeof *r);
    float *g = tk_malloc(cols * sizeof *g), *b = tk_malloc(cols * sizeof *b);
    float *got = tk_malloc(n * sizeof *got), *xr = tk_malloc(cols * sizeof *xr);
    double *ref = tk_malloc(n * sizeof *ref);
    tk_fill(x, n, -1.0, 3.0, &st);
    tk_fill(r, n, -1.0, 1.0, &st);
    if (constant)
        for (size_t i = 0; i < n; i++) { x[i] = 0.5f; r[i] = 0.0f; }
    tk_fill(g, cols, 0.5, 1.5, &st);
    tk_fill(b, cols, -1.0, 1.0, &st);
    for (size_t i = 0; i < rows; i++) {
        double mu = 0, var = 0, *yr = ref + i * cols;
        for (size_t j = 0; j < cols; j++)
            mu += (double)x[i * cols + j] + (with_r ? r[i * cols + j] : 0.0);
        mu /= (double)cols;
        for (size_t j = 0; j < cols; j++) {
            double v = (double)x[i * cols + j] + (with_r ? r[i * cols + j] : 0.0);
            var += (v - mu) * (v - mu);
        }
        double rstd = 1.0 / sqrt(var / (double)cols + eps);
        for (size_t j = 0; j < cols; j++) {
            double v = (double)x[i * cols + j] + (with_r ? r[i * cols + j] : 0.0);
            yr[j] = (v - mu) * rstd * g[j] + b[j];
        }
    }
    float *dx = tk_dev_floats(n), *dr = tk_dev_floats(n), *dg = tk_dev_floats(cols);
    float *db = tk_dev_floats(cols), *dy = tk_dev_floats(n);
    tk_upload(dx, x, n); tk_upload(dr, r, n);
    tk_upload(dg, g, cols); tk_upload(db, b, cols);
    EX_CUDA(fn(dx, dr, dg, db, dy, rows, cols, eps, 0));
    TK_CUDA(cudaDeviceSynchronize());
    tk_download(got, dy, n);
    char what[128];
    snprintf(what, sizeof what, "%s %zu x %zu%s", EX_NAME, rows, cols,
             constant ? ", constant rows" : "");
    size_t bad = tk_compare(what, got, ref, n, 2e-4, 1e-4, seed);
    tk_free(dx); tk_free(dr); tk_free(dg); tk_free(db); tk_free(dy);
    free(x); free(r); free(g); free(b); free(got); free(xr); free(ref);
    if (bad) fail();
}

/* Rows and columns around a warp; the largest column count is max_cols. */
static void ex_ln_shapes(ex_ln_fn fn, int with_r, size_t max_cols)
{
    static const size_t rows[] = {1, 7, 9, 33, 1000};
    static const size_t cols[] = {1, 2, 31, 32, 33, 100, 1000, 1023, 1024,
                                  1025, 4097};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        for (size_t j = 0; j < sizeof cols / sizeof cols[0]; j++) {
            if (cols[j] > max_cols) continue;
            for (int c = 0; c < 2; c++)
                ex_ln_check(fn, with_r, rows[i], cols[j], c, (int)((i + j) % 2));
        }
}
