// host_graph.cu -- capture work into a CUDA graph, update it, replay it;
// and the launch-bound workload of the chapter.
#include "host/host_parts.cuh"
#include "reduce/reduce.h"
#include "softmax/softmax.h"

// <<The graph's state>>
struct host_graph {
    cudaStream_t s;                  // captures on it
    cudaGraphExec_t exec;            // the instantiated graph
};

// <<Capture work into a graph>>
static cudaError_t capture(cudaStream_t s, host_work work, void *arg,
                           cudaGraph_t *out)
{
    *out = NULL;
    BOOK_TRY(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    cudaError_t e = work(arg, s);
    cudaGraph_t graph = NULL;
    cudaError_t end = cudaStreamEndCapture(s, &graph);   // always ended
    keep_first(&e, end);
    if (e != cudaSuccess) {
        if (graph) (void)cudaGraphDestroy(graph);
        return e;
    }
    *out = graph;
    return cudaSuccess;
}

// <<Create a graph runner>>
extern "C" cudaError_t host_graph_capture(host_graph **out, host_work work,
                                          void *arg)
{
    if (!out) return cudaErrorInvalidValue;
    *out = NULL;
    if (!work) return cudaErrorInvalidValue;
    host_graph *g = (host_graph *)calloc(1, sizeof *g);
    if (!g) return cudaErrorMemoryAllocation;
    cudaGraph_t graph = NULL;
    cudaError_t e = cudaStreamCreateWithFlags(&g->s, cudaStreamNonBlocking);
    if (e != cudaSuccess) g->s = NULL;
    if (e == cudaSuccess) e = capture(g->s, work, arg, &graph);
    if (e == cudaSuccess) e = cudaGraphInstantiate(&g->exec, graph, 0);
    if (e != cudaSuccess) g->exec = NULL;
    if (graph) keep_first(&e, cudaGraphDestroy(graph));  // exec keeps a copy
    if (e != cudaSuccess) {
        host_graph_destroy(g);
        return e;
    }
    *out = g;
    return cudaSuccess;
}

// <<Update a graph for new arguments>>
extern "C" cudaError_t host_graph_update(host_graph *g, host_work work,
                                         void *arg, int *in_place)
{
    if (!g || !work) return cudaErrorInvalidValue;
    cudaGraph_t graph;
    BOOK_TRY(capture(g->s, work, arg, &graph));
    cudaGraphExecUpdateResultInfo info;
    cudaError_t e = cudaGraphExecUpdate(g->exec, graph, &info);
    const int same = e == cudaSuccess;
    if (e == cudaErrorGraphExecUpdateFailure) {
        if (cudaPeekAtLastError() == e) (void)cudaGetLastError();  // handled
        cudaGraphExec_t fresh;
        e = cudaGraphInstantiate(&fresh, graph, 0);
        if (e == cudaSuccess) {
            keep_first(&e, cudaGraphExecDestroy(g->exec));
            g->exec = fresh;
        }
    }
    keep_first(&e, cudaGraphDestroy(graph));
    if (e == cudaSuccess && in_place) *in_place = same;
    return e;
}

// <<Replay a graph, and destroy it>>
extern "C" cudaError_t host_graph_launch(host_graph *g, cudaStream_t s)
{
    if (!g) return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    return cudaGraphLaunch(g->exec, s);
}

extern "C" cudaError_t host_graph_destroy(host_graph *g)
{
    if (!g) return cudaSuccess;
    cudaError_t first = cudaSuccess;
    if (g->exec) keep_first(&first, cudaGraphExecDestroy(g->exec));
    if (g->s) {
        keep_first(&first, cudaStreamSynchronize(g->s));
        keep_first(&first, cudaStreamDestroy(g->s));
    }
    free(g);
    return first;
}

// <<The layers of a small step>>
extern "C" cudaError_t host_layers(void *arg, cudaStream_t s)
{
    const host_layers_arg *a = (const host_layers_arg *)arg;
    if (!a || !a->x || !is_aligned(a->x, 16) || !a->out || !a->work ||
        a->layers < 0 || a->rows == 0 || a->cols == 0 || a->cols % 4 != 0 ||
        a->rows > SIZE_MAX / sizeof(float) / a->cols /
                      ((size_t)a->layers + 1))
        return cudaErrorInvalidValue;
    const size_t m = a->rows * a->cols;
    for (int l = 0; l < a->layers; l++) {
        float *x = a->x + (size_t)l * m, *y = x + m;
        BOOK_TRY(softmax_rows_cached(x, y, a->rows, a->cols, s));
        BOOK_TRY(reduce_sum_async(y, m, a->out + l, a->work, s));
    }
    return cudaSuccess;
}
