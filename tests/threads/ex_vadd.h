/* ex_vadd.h -- what the threads chapter's exercise drivers share: run
 * c = a + b at element offsets into fresh, poisoned device buffers and
 * compare exactly with the CPU (a float sum is correctly rounded, in any
 * order). */
#include "exkit.h"
#include <stdio.h>

typedef cudaError_t (*ex_vadd_fn)(const float *, const float *, float *,
                                  size_t, cudaStream_t);

/* Offsets (in floats) of a, b and c into their buffers. */
static void ex_vadd_check(ex_vadd_fn fn, size_t n, size_t oa, size_t ob,
                          size_t oc, int round)
{
    uint64_t seed = tk_seed(round), st = seed;
    float *a = tk_malloc(n * sizeof *a), *b = tk_malloc(n * sizeof *b);
    float *c = tk_malloc(n * sizeof *c);
    double *ref = tk_malloc(n * sizeof *ref);
    tk_fill(a, n, -1.0, 1.0, &st);
    tk_fill(b, n, -1.0, 1.0, &st);
    for (size_t i = 0; i < n; i++) ref[i] = a[i] + b[i];
    float *da = tk_dev_floats(n + oa), *db = tk_dev_floats(n + ob);
    float *dc = tk_dev_floats(n + oc + 4);
    tk_upload(da + oa, a, n);
    tk_upload(db + ob, b, n);
    EX_CUDA(fn(da + oa, db + ob, dc + oc, n, 0));
    TK_CUDA(cudaDeviceSynchronize());
    tk_download(c, dc + oc, n);
    char what[96];
    snprintf(what, sizeof what, "%s n=%zu offsets %zu,%zu,%zu", EX_NAME, n,
             oa, ob, oc);
    size_t bad = tk_compare(what, c, ref, n, 0.0, 0.0, seed);
    /* Nothing written past the end: the poison is still there. */
    float after[4];
    tk_download(after, dc + oc + n, 4);
    for (int k = 0; k < 4; k++)
        if (!(after[k] != after[k])) {
            print_error("%s: element %zu past the end was written\n", what,
                        n + k);
            bad++;
        }
    tk_free(da); tk_free(db); tk_free(dc);
    free(a); free(b); free(c); free(ref);
    if (bad) fail();
}
