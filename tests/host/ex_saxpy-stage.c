/* ex_saxpy-stage.c -- exercise 2 of the host chapter, SAXPY as a pipeline
 * stage: the refusals, then the book's ladder of sizes through pipes of 1
 * and 3 streams and chunks that do not divide the size, against the CPU,
 * output poisoned. */
#include "exkit.h"
#include "host/host.h"
#include "host/exercises.h"
#include <math.h>
#include <string.h>

static void saxpy_stage_arguments(void **s)
{
    (void)s;
    float *p = EX_FAKE(float, 4096), alpha = 2.0f;
    const float *in[2] = {p, p}, *half[2] = {p, NULL};
    EX_REFUSED(host_saxpy_stage(NULL, p, 10, &alpha, 0));
    EX_REFUSED(host_saxpy_stage(half, p, 10, &alpha, 0));
    EX_REFUSED(host_saxpy_stage(in, NULL, 10, &alpha, 0));
    EX_REFUSED(host_saxpy_stage(in, p, 10, NULL, 0));
    EX_CUDA(host_saxpy_stage(NULL, NULL, 0, NULL, 0));
    EX_REFUSED(host_saxpy_pipelined(NULL, 2.0f, p, p, p + 100, 10, 0));
}

static void saxpy_stage_all_sizes(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    const float alpha = 2.5f;
    for (tk_sweep w = tk_sweep_start(1000001, TK_SWEEP_SMALL_ONE_ROUND);
         tk_sweep_next(&w);) {
        size_t n = w.n;
        float *x, *y, *out;
        EX_CUDA(cudaMallocHost((void **)&x, n * sizeof *x));
        EX_CUDA(cudaMallocHost((void **)&y, n * sizeof *y));
        EX_CUDA(cudaMallocHost((void **)&out, n * sizeof *out));
        double *ref = tk_malloc(n * sizeof *ref);
        tk_fill(x, n, -1, 1, &w.st);
        tk_fill(y, n, -1, 1, &w.st);
        for (size_t i = 0; i < n; i++) ref[i] = (double)alpha * x[i] + y[i];
        for (int streams = 1; streams <= 3; streams += 2) {
            host_pipe *p;
            memset(out, 0xff, n * sizeof *out);
            EX_CUDA(host_pipe_create(&p, streams, n / 4 + 1, 0,
                                     cudaStreamNonBlocking, 0));
            EX_CUDA(host_saxpy_pipelined(p, alpha, x, y, out, n, 0));
            EX_CUDA(cudaStreamSynchronize(0));
            EX_CUDA(host_pipe_destroy(p));
            assert_int_equal(tk_compare(EX_NAME, out, ref, n, 1e-6, 0.0,
                                        w.seed), 0);
        }
        free(ref);
        EX_CUDA(cudaFreeHost(x));
        EX_CUDA(cudaFreeHost(y));
        EX_CUDA(cudaFreeHost(out));
    }
}

EX_MAIN(cmocka_unit_test(saxpy_stage_arguments),
        cmocka_unit_test(saxpy_stage_all_sizes))
