// host.h -- the host side: pinned memory, a staged upload, a pipeline of
// copies and kernels over streams, and CUDA graphs.
#ifndef HOST_H
#define HOST_H
#include <cuda_runtime_api.h>
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif

// <<Declarations of the pinned-memory check>>
// *pinned = 1 when the first and the last byte of [p, p + bytes) are
// page-locked host memory (cudaMallocHost, cudaHostAlloc,
// cudaHostRegister), else 0.  NULL p or pinned, or bytes == 0:
// cudaErrorInvalidValue.
cudaError_t host_is_pinned(const void *p, size_t bytes, int *pinned);

// <<Declarations of the staged upload>>
// A staged upload: what the driver does with pageable memory, written
// out, with two pinned bounce buffers of piece bytes each (piece >= 1).
// On error *st is NULL and nothing is left allocated.
typedef struct host_stage host_stage;
cudaError_t host_stage_create(host_stage **st, size_t piece);
// Waits for the stage's copies, then frees it; NULL is a no-op.
cudaError_t host_stage_destroy(host_stage *st);
// Copies bytes from src (any host memory) to dst (device memory) on
// stream s, a piece at a time through the bounce buffers.  Returns once
// src has been read, so src may change then, while the last copies may
// still run.  A stage serves one call at a time.
cudaError_t host_upload_staged(host_stage *st, void *dst, const void *src,
                               size_t bytes, cudaStream_t s);

// <<Declarations of the gate and the ticks>>
// The gate: one thread that holds stream s until *flag != 0 or max_ns
// nanoseconds have passed.  flag is pinned host memory allocated with
// cudaHostAllocMapped; dflag is its device address
// (cudaHostGetDevicePointer).
cudaError_t host_gate(const int *dflag, unsigned long long max_ns,
                      cudaStream_t s);
// Ticks: count kernels of one thread each that add 1 to *counter (device
// memory), back to back on stream s.  A host_work (see the graph runner):
// arg is a host_ticks_arg.  count < 0: cudaErrorInvalidValue.
typedef struct { unsigned *counter; int count; } host_ticks_arg;
cudaError_t host_ticks(void *arg, cudaStream_t s);

// <<Declarations of the pipeline>>
// A pipeline's kernel stage: reads nin device arrays in[0..nin) of
// n + halo floats, writes out[0..n) (device memory), and queues its
// work on stream s alone; arg is the stage's own.
typedef cudaError_t (*host_stage_fn)(const float *const *in, float *out,
                                     size_t n, const void *arg,
                                     cudaStream_t s);
typedef struct {
    host_stage_fn fn;
    const void *arg;
    int nin;                    // inputs: 1 or 2
    size_t halo;                // output i reads inputs i to i + halo
} host_kernel;
#define HOST_MAX_STREAMS 8
#define HOST_TRACE_MAX 64       // chunks a trace records
// A pipe: streams, and device buffers for one chunk on each.  streams: 1
// to HOST_MAX_STREAMS; chunk >= 1 outputs; halo: the largest halo of
// the kernels it will run; flags: cudaStreamNonBlocking, or
// cudaStreamDefault for blocking streams; trace != 0: record each
// chunk's events for host_pipe_trace.  On error *p is NULL and nothing
// is left allocated.
typedef struct host_pipe host_pipe;
cudaError_t host_pipe_create(host_pipe **p, int streams, size_t chunk,
                             size_t halo, unsigned flags, int trace);
// Waits for the pipe's streams, then frees it; NULL is a no-op.
cudaError_t host_pipe_destroy(host_pipe *p);
// out[0..n) from in[0..k->nin), each of n + k->halo floats, chunk by
// chunk on the pipe's streams in turn: the chunk's inputs copied in, its
// kernel, its outputs copied out.  in and out: pinned host memory (else
// cudaErrorInvalidValue, nothing queued); out overlaps no input.
// Asynchronous: the work starts after what stream s0 holds, and s0 waits
// for it; leave in and out alone until s0 has passed it.  After an error
// the pipe's streams are waited for, so no copy still uses in or out.
cudaError_t host_pipeline(host_pipe *p, const host_kernel *k,
                          const float *const *in, float *out, size_t n,
                          cudaStream_t s0);
// The first HOST_TRACE_MAX chunks of the last host_pipeline on a pipe
// made with trace != 0, once s0 has passed it, in ms after its start:
// when the chunk's stream was ready to copy in, and when its copy in,
// kernel and copy out ended.  *count = the spans written (<= max).
typedef struct {
    int chunk, stream;
    float ready, in_end, kernel_end, out_end;
} host_span;
cudaError_t host_pipe_trace(const host_pipe *p, host_span *spans,
                            size_t max, size_t *count);

// <<Declarations of the pipeline's two kernels>>
// Stages (host_stage_fn), each one call of a book launcher on s:
// c = a + b (vadd) with in = {a, b}, halo 0, arg unused; the valid
// correlation y[i] = sum_{j<k} x[i + j] w[j] (conv1d_naive on the
// n + k - 1 inputs, at most 2^38) with in = {x}, halo k - 1, arg a
// host_conv_arg (w in device memory).
typedef struct { const float *w; size_t k; } host_conv_arg;
cudaError_t host_vadd_stage(const float *const *in, float *out, size_t n,
                            const void *arg, cudaStream_t s);
cudaError_t host_conv1d_stage(const float *const *in, float *out,
                              size_t n, const void *arg, cudaStream_t s);
// The pipeline with each (host memory pinned, as host_pipeline says):
// c[0..n) = a + b; y[0..n) from x[0..n + k - 1) and the k taps w (device
// memory; k >= 1, k - 1 at most the pipe's halo).
cudaError_t host_vadd_pipelined(host_pipe *p, const float *a,
                                const float *b, float *c, size_t n,
                                cudaStream_t s0);
cudaError_t host_conv1d_pipelined(host_pipe *p, const float *x,
                                  const float *w, size_t k, float *y,
                                  size_t n, cudaStream_t s0);

// <<Declarations of the graph runner>>
// Work to capture: queues its work on stream s alone, without calls that
// wait for the device (no cudaMemcpy, no synchronize).
typedef cudaError_t (*host_work)(void *arg, cudaStream_t s);
typedef struct host_graph host_graph;
// Captures work(arg, s) on a stream of the graph's own and instantiates
// it.  On error *g is NULL and nothing is left capturing or allocated.
cudaError_t host_graph_capture(host_graph **g, host_work work, void *arg);
// Captures work(arg, s) again (new pointers, say) and updates the graph
// in place when the capture has the same nodes and edges, else
// instantiates the new capture in its place; *in_place (may be NULL)
// says which.  Launches already queued run the graph as it was.
cudaError_t host_graph_update(host_graph *g, host_work work, void *arg,
                              int *in_place);
// Queues one replay of the graph on stream s.
cudaError_t host_graph_launch(host_graph *g, cudaStream_t s);
// Frees the graph; replays still queued still run (the runtime frees
// it after them).  NULL is a no-op.
cudaError_t host_graph_destroy(host_graph *g);
// The launch-bound workload, a host_work with arg a host_layers_arg:
// for l < layers, x[l + 1] = the softmax of each row of x[l], then
// out[l] = the sum of x[l + 1], three kernels a layer.  x: (layers + 1)
// matrices of rows x cols floats one after another, 16-byte aligned,
// rows >= 1, cols >= 4 a multiple of 4, their bytes within size_t
// (else cudaErrorInvalidValue); out: layers floats; work: rows * cols
// floats' reduction workspace (reduce_workspace_bytes, zeroed once).
// Device memory.
typedef struct {
    float *x, *out;
    void *work;
    size_t rows, cols;
    int layers;
} host_layers_arg;
cudaError_t host_layers(void *arg, cudaStream_t s);

// <<Declarations of the host listings that are wrong on purpose>>
// Wrong on purpose: host_pipeline without its pinned check, so that in
// and out may be pageable.  Right results; the copies serialize.
cudaError_t host_pipeline_wrong_pageable(host_pipe *p, const host_kernel *k,
                                         const float *const *in,
                                         float *out, size_t n,
                                         cudaStream_t s0);
// Wrong on purpose: stages that launch on the legacy default stream, not
// on s (the vector add through the threads chapter's vadd, given 0).
// On a pipe of blocking streams: right results, no overlap.  On
// non-blocking streams: a race.
cudaError_t host_vadd_stage_wrong_legacy(const float *const *in,
                                         float *out, size_t n,
                                         const void *arg, cudaStream_t s);
cudaError_t host_conv1d_stage_wrong_legacy(const float *const *in,
                                           float *out, size_t n,
                                           const void *arg, cudaStream_t s);
// Wrong on purpose: host_upload_staged without the wait for a bounce
// buffer's last copy before it is filled again.
cudaError_t host_upload_staged_wrong_reuse(host_stage *st, void *dst,
                                           const void *src, size_t bytes,
                                           cudaStream_t s);
#ifdef __cplusplus
}
#endif
#endif
