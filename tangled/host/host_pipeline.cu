// host_pipeline.cu -- copies and kernels over chunks and streams.
#include "host/host_parts.cuh"
#include "threads/threads.h"
#include "convolution/conv.h"

// <<The pipe's state>>
struct host_pipe {
    int ns;                            // streams
    size_t chunk, halo;                // outputs a chunk; inputs past it
    cudaStream_t s[HOST_MAX_STREAMS];
    float *din[HOST_MAX_STREAMS][2];   // a chunk's inputs: chunk + halo
    float *dout[HOST_MAX_STREAMS];     // a chunk's outputs
    cudaEvent_t fork, join[HOST_MAX_STREAMS];
    int trace;
    cudaEvent_t t0, tev[HOST_TRACE_MAX][4];  // ready, in, kernel, out
    size_t traced;                     // chunks the last run recorded
};

// <<Make a pipe's events>>
static cudaError_t make_events(host_pipe *p)
{
    BOOK_TRY(new_event(&p->fork, cudaEventDisableTiming));
    if (!p->trace) return cudaSuccess;
    BOOK_TRY(new_event(&p->t0, cudaEventDefault));   // timed
    for (int c = 0; c < HOST_TRACE_MAX; c++)
        for (int q = 0; q < 4; q++)
            BOOK_TRY(new_event(&p->tev[c][q], cudaEventDefault));
    return cudaSuccess;
}

// <<Make one stream of a pipe and its buffers>>
static cudaError_t make_stream(host_pipe *p, int i, unsigned flags)
{
    cudaStream_t s;
    BOOK_TRY(cudaStreamCreateWithFlags(&s, flags));
    p->s[i] = s;
    const size_t bytes[3] = {(p->chunk + p->halo) * sizeof(float),
                             (p->chunk + p->halo) * sizeof(float),
                             p->chunk * sizeof(float)};
    float **slot[3] = {&p->din[i][0], &p->din[i][1], &p->dout[i]};
    for (int b = 0; b < 3; b++) {
        void *d;
        BOOK_TRY(cudaMalloc(&d, bytes[b]));
        *slot[b] = (float *)d;
    }
    return new_event(&p->join[i], cudaEventDisableTiming);
}

// <<Create a pipe>>
extern "C" cudaError_t host_pipe_create(host_pipe **out, int streams,
                                        size_t chunk, size_t halo,
                                        unsigned flags, int trace)
{
    if (!out) return cudaErrorInvalidValue;
    *out = NULL;
    if (streams < 1 || streams > HOST_MAX_STREAMS || chunk == 0 ||
        chunk > SIZE_MAX / sizeof(float) ||
        halo > SIZE_MAX / sizeof(float) - chunk ||
        (flags != cudaStreamDefault && flags != cudaStreamNonBlocking))
        return cudaErrorInvalidValue;
    host_pipe *p = (host_pipe *)calloc(1, sizeof *p);
    if (!p) return cudaErrorMemoryAllocation;
    p->ns = streams;
    p->chunk = chunk;
    p->halo = halo;
    p->trace = trace != 0;
    cudaError_t e = make_events(p);
    for (int i = 0; i < streams && e == cudaSuccess; i++)
        e = make_stream(p, i, flags);
    if (e != cudaSuccess) {
        host_pipe_destroy(p);          // frees what was made
        return e;
    }
    *out = p;
    return cudaSuccess;
}

// <<Destroy a pipe>>
extern "C" cudaError_t host_pipe_destroy(host_pipe *p)
{
    if (!p) return cudaSuccess;
    cudaError_t first = cudaSuccess;
    for (int i = 0; i < p->ns; i++) {
        if (p->s[i]) {                 // no copy or kernel uses a buffer
            keep_first(&first, cudaStreamSynchronize(p->s[i]));
            keep_first(&first, cudaStreamDestroy(p->s[i]));
        }
        for (int b = 0; b < 2; b++)
            if (p->din[i][b]) keep_first(&first, cudaFree(p->din[i][b]));
        if (p->dout[i]) keep_first(&first, cudaFree(p->dout[i]));
        if (p->join[i]) keep_first(&first, cudaEventDestroy(p->join[i]));
    }
    if (p->fork) keep_first(&first, cudaEventDestroy(p->fork));
    if (p->t0) keep_first(&first, cudaEventDestroy(p->t0));
    for (int c = 0; c < HOST_TRACE_MAX; c++)
        for (int q = 0; q < 4; q++)
            if (p->tev[c][q])
                keep_first(&first, cudaEventDestroy(p->tev[c][q]));
    free(p);
    return first;
}

// <<Fork the pipe's streams from the caller's>>
static cudaError_t fork_streams(host_pipe *p, cudaStream_t s0)
{
    if (p->trace) BOOK_TRY(cudaEventRecord(p->t0, s0));  // time zero
    BOOK_TRY(cudaEventRecord(p->fork, s0));
    for (int i = 0; i < p->ns; i++)
        BOOK_TRY(cudaStreamWaitEvent(p->s[i], p->fork, 0));
    return cudaSuccess;
}

// <<Join the pipe's streams into the caller's>>
static cudaError_t join_streams(host_pipe *p, cudaStream_t s0)
{
    for (int i = 0; i < p->ns; i++) {
        BOOK_TRY(cudaEventRecord(p->join[i], p->s[i]));
        BOOK_TRY(cudaStreamWaitEvent(s0, p->join[i], 0));
    }
    return cudaSuccess;
}

// <<Record a trace event>>
static cudaError_t mark(host_pipe *p, size_t c, int q, cudaStream_t s)
{
    if (!p->trace || c >= HOST_TRACE_MAX) return cudaSuccess;
    return cudaEventRecord(p->tev[c][q], s);
}

// <<Copy one chunk's inputs in>>
static cudaError_t copy_in(host_pipe *p, int j, const host_kernel *k,
                           const float *const *in, size_t i0, size_t len)
{
    for (int q = 0; q < k->nin; q++)
        BOOK_TRY(cudaMemcpyAsync(p->din[j][q], in[q] + i0,
                                 (len + k->halo) * sizeof(float),
                                 cudaMemcpyHostToDevice, p->s[j]));
    return cudaSuccess;
}

// <<Run the chunks>>
static cudaError_t run_chunks(host_pipe *p, const host_kernel *k,
                              const float *const *in, float *out,
                              size_t n, cudaStream_t s0)
{
    p->traced = 0;
    BOOK_TRY(fork_streams(p, s0));
    const size_t chunks = ceil_div(n, p->chunk);
    for (size_t c = 0; c < chunks; c++) {
        const int j = (int)(c % (size_t)p->ns);
        const size_t i0 = c * p->chunk;
        const size_t len = n - i0 < p->chunk ? n - i0 : p->chunk;
        cudaStream_t s = p->s[j];
        const float *din[2] = {p->din[j][0], p->din[j][1]};
        BOOK_TRY(mark(p, c, 0, s));
        BOOK_TRY(copy_in(p, j, k, in, i0, len));
        BOOK_TRY(mark(p, c, 1, s));
        BOOK_TRY(k->fn(din, p->dout[j], len, k->arg, s));
        BOOK_TRY(mark(p, c, 2, s));
        BOOK_TRY(cudaMemcpyAsync(out + i0, p->dout[j], len * sizeof(float),
                                 cudaMemcpyDeviceToHost, s));
        BOOK_TRY(mark(p, c, 3, s));
    }
    p->traced = chunks < HOST_TRACE_MAX ? chunks : HOST_TRACE_MAX;
    return join_streams(p, s0);
}

// <<Check a pipeline's arguments>>
static cudaError_t check_pipeline(const host_pipe *p, const host_kernel *k,
                                  const float *const *in, const float *out,
                                  size_t n)
{
    if (!p || !k || !k->fn || !in || !out) return cudaErrorInvalidValue;
    if (k->nin < 1 || k->nin > 2 || k->halo > p->halo)
        return cudaErrorInvalidValue;
    if (n > SIZE_MAX / sizeof(float) - k->halo) return cudaErrorInvalidValue;
    for (int q = 0; q < k->nin; q++)
        if (!in[q] || ranges_overlap(in[q], (n + k->halo) * sizeof(float),
                                     out, n * sizeof(float)))
            return cudaErrorInvalidValue;
    return cudaSuccess;
}

static cudaError_t check_pinned(const float *p, size_t floats)
{
    int pinned;
    BOOK_TRY(host_is_pinned(p, floats * sizeof(float), &pinned));
    return pinned ? cudaSuccess : cudaErrorInvalidValue;
}

static cudaError_t run_or_drain(host_pipe *p, const host_kernel *k,
                                const float *const *in, float *out,
                                size_t n, cudaStream_t s0)
{
    BOOK_CLEAR_TO_LAUNCH();
    cudaError_t e = run_chunks(p, k, in, out, n, s0);
    if (e != cudaSuccess)              // nothing may touch in or out now
        for (int i = 0; i < p->ns; i++) (void)cudaStreamSynchronize(p->s[i]);
    return e;
}

// <<The pipeline>>
extern "C" cudaError_t host_pipeline(host_pipe *p, const host_kernel *k,
                                     const float *const *in, float *out,
                                     size_t n, cudaStream_t s0)
{
    if (n == 0) return cudaSuccess;
    BOOK_TRY(check_pipeline(p, k, in, out, n));
    for (int q = 0; q < k->nin; q++)
        BOOK_TRY(check_pinned(in[q], n + k->halo));
    BOOK_TRY(check_pinned(out, n));
    return run_or_drain(p, k, in, out, n, s0);
}

// <<Read a pipe's trace>>
extern "C" cudaError_t host_pipe_trace(const host_pipe *p, host_span *spans,
                                       size_t max, size_t *count)
{
    if (!p || !count || (max && !spans) || !p->trace)
        return cudaErrorInvalidValue;
    const size_t m = p->traced < max ? p->traced : max;
    for (size_t c = 0; c < m; c++) {
        float t[4];
        for (int q = 0; q < 4; q++)
            BOOK_TRY(cudaEventElapsedTime(&t[q], p->t0, p->tev[c][q]));
        host_span sp = {(int)c, (int)(c % (size_t)p->ns),
                        t[0], t[1], t[2], t[3]};
        spans[c] = sp;
    }
    *count = m;
    return cudaSuccess;
}

// <<The pipeline's stages>>
extern "C" cudaError_t host_vadd_stage(const float *const *in, float *out,
                                       size_t n, const void *arg,
                                       cudaStream_t s)
{
    (void)arg;
    if (n == 0) return cudaSuccess;
    if (!in) return cudaErrorInvalidValue;
    return vadd(in[0], in[1], out, n, s);
}

// The correlation's n outputs read n + k - 1 inputs: *xn.
static cudaError_t conv_stage_args(const float *const *in, size_t n,
                                   const host_conv_arg *a, size_t *xn)
{
    if (!in || !a || a->k == 0 || a->k - 1 > SIZE_MAX - n)
        return cudaErrorInvalidValue;
    *xn = n + (a->k - 1);
    return cudaSuccess;
}

extern "C" cudaError_t host_conv1d_stage(const float *const *in,
                                         float *out, size_t n,
                                         const void *arg, cudaStream_t s)
{
    const host_conv_arg *a = (const host_conv_arg *)arg;
    size_t xn;
    if (n == 0) return cudaSuccess;
    BOOK_TRY(conv_stage_args(in, n, a, &xn));
    return conv1d_naive(in[0], xn, a->w, a->k, out, s);
}

// <<The pipelined vector add and correlation>>
extern "C" cudaError_t host_vadd_pipelined(host_pipe *p, const float *a,
                                           const float *b, float *c,
                                           size_t n, cudaStream_t s0)
{
    const float *in[2] = {a, b};
    const host_kernel k = {host_vadd_stage, NULL, 2, 0};
    return host_pipeline(p, &k, in, c, n, s0);
}

extern "C" cudaError_t host_conv1d_pipelined(host_pipe *p, const float *x,
                                             const float *w, size_t k,
                                             float *y, size_t n,
                                             cudaStream_t s0)
{
    if (n == 0) return cudaSuccess;
    if (!w || k == 0) return cudaErrorInvalidValue;
    const host_conv_arg arg = {w, k};
    const float *in[1] = {x};
    const host_kernel kern = {host_conv1d_stage, &arg, 1, k - 1};
    return host_pipeline(p, &kern, in, y, n, s0);
}

// <<Wrong on purpose: the pipeline without its pinned check>>
extern "C" cudaError_t host_pipeline_wrong_pageable(
    host_pipe *p, const host_kernel *k, const float *const *in, float *out,
    size_t n, cudaStream_t s0)
{
    if (n == 0) return cudaSuccess;
    BOOK_TRY(check_pipeline(p, k, in, out, n));
    return run_or_drain(p, k, in, out, n, s0);  // WRONG: may be pageable
}

// <<Wrong on purpose: the kernel on the legacy default stream>>
extern "C" cudaError_t host_vadd_stage_wrong_legacy(const float *const *in,
                                                    float *out, size_t n,
                                                    const void *arg,
                                                    cudaStream_t s)
{
    (void)s;                           // WRONG: the stream is not used
    (void)arg;
    if (n == 0) return cudaSuccess;
    if (!in) return cudaErrorInvalidValue;
    return vadd(in[0], in[1], out, n, 0); // WRONG: the legacy stream
}

extern "C" cudaError_t host_conv1d_stage_wrong_legacy(
    const float *const *in, float *out, size_t n, const void *arg,
    cudaStream_t s)
{
    (void)s;                           // WRONG: the stream is not used
    const host_conv_arg *a = (const host_conv_arg *)arg;
    size_t xn;
    if (n == 0) return cudaSuccess;
    BOOK_TRY(conv_stage_args(in, n, a, &xn));
    return conv1d_naive(in[0], xn, a->w, a->k, out, 0); // WRONG: legacy
}
