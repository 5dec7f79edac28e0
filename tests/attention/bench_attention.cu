// bench_attention.cu -- the attention chapter's measurements: the tiled
// kernel and the cuBLAS unfused pipeline (the targets compare them), then
// the three-kernel form and the warp-per-row kernel, at B8 H16 S4096 D64
// and B4 H16 S4096 D128 (there also the compact tile shapes), causal and
// not, against the FMA peak that the memory chapter measured on this GPU
// (its memory.csv, read by bk_measured; the fma_peak row of attention.csv
// carries it, with reps -); then time against S at B2 H16 D64 for the
// unfused and fused forms (attention-sweep.csv); then other shapes
// (attention-shapes.csv, run_shapes; bench --shapes writes only that).
// fp32 throughout; cuBLAS in its default math mode (no TF32).  Each
// variant is timed by bk_timed_ms: the median of 20 runs when 20 fit in
// 200 ms, else of as many as fit, at least 3 (the reps columns).
// Progress goes to stderr (bk_progress), flushed, with the elapsed
// seconds, and each row is flushed to the CSV's .tmp and to stdout as soon
// as it is known, so that a run killed midway leaves a log that says where
// it was and the rows done so far.  `bench --ncu` runs one launch of each
// tiled shape instead (see ncu_mode).
#include "benchkit.h"
#include "variants.h"
#include <math.h>
#include <string.h>

struct job {
    int which;        // a launcher of variants.h: THREE ... COMPACT
    const float *q, *k, *v;
    float *o;
    attn_dims a;
    void *work;
    cublasHandle_t h;
};
static cudaError_t run(void *p)
{
    struct job *j = (struct job *)p;
    return attn_launch(j->which, j->h, j->q, j->k, j->v, j->o, j->a, j->work,
                       0);
}

// One variant on one shape, timed by bk_timed_ms, with a progress line on
// stderr before and after.
static double timed(struct job *j, const char *what, int *reps)
{
    bk_progress("%s %s ...", what, attn_variant_name(j->which));
    double ms = bk_timed_ms(run, j, reps, NULL);
    bk_progress("%s %s: %.4f ms a call, median of %d", what,
                attn_variant_name(j->which), ms, *reps);
    return ms;
}
static void flush_row(FILE *f)
{
    fflush(f);
    fflush(stdout);
}

// FLOPs: 4 D for every (query, key) pair that is not masked.
static double flops(attn_dims a)
{
    double pairs = a.causal ? (double)a.Sq * (a.Sq + 1) / 2 : (double)a.Sq * a.Sk;
    return 4.0 * a.B * a.H * a.D * pairs;
}

// `bench --ncu`: one launch of the tiled kernel for each D (32, 64, 128,
// not causal), then one of the compact shapes at D = 128, at B2 H16 S4096:
// the per-block work of the large shapes on fewer heads, for Nsight
// Compute (tests/attention/gpu-ncu.sh).
static int ncu_mode(int, char **, void *)
{
    const size_t n = (size_t)2 * 16 * 4096 * 128;
    float *q, *k, *v, *o;
    BOOK_CHECK(cudaMalloc(&q, n * 4)); BOOK_CHECK(cudaMalloc(&k, n * 4));
    BOOK_CHECK(cudaMalloc(&v, n * 4)); BOOK_CHECK(cudaMalloc(&o, n * 4));
    bk_fill_random(q, n, -1, 1, 1); bk_fill_random(k, n, -1, 1, 2);
    bk_fill_random(v, n, -1, 1, 3);
    for (size_t D = 32; D <= 128; D *= 2) {
        attn_dims a = {2, 16, 4096, 4096, D, 0};
        BOOK_CHECK(attention_tiled(q, k, v, o, a, 0));
    }
    attn_dims a = {2, 16, 4096, 4096, 128, 0};
    BOOK_CHECK(attention_tiled_compact(q, k, v, o, a, 0));
    BOOK_CHECK(cudaDeviceSynchronize());
    BOOK_CHECK(cudaFree(q)); BOOK_CHECK(cudaFree(k)); BOOK_CHECK(cudaFree(v));
    BOOK_CHECK(cudaFree(o));
    return 0;
}

// Other shapes: small (launch-bound), odd (S not a multiple of
// the 64- or 128-row tiles, nor of 4), long (one head of 5000) and
// decoding (few query rows over many keys) and the headline shapes, the
// tiled kernel (at D = 128 also the compact shape, 64 rows a block) and
// the split keys at the rule's count (a row where the rule splits)
// against the cuBLAS unfused pipeline in the same run.  Writes
// attention-shapes.csv; bench --shapes runs only this.
static void run_shapes(struct job *j)
{
    static const struct { const char *cls; attn_dims a; } sh[] = {
        {"small", {1, 1, 128, 128, 64, 0}},
        {"small", {1, 4, 128, 128, 128, 0}},
        {"small", {2, 8, 256, 256, 64, 1}},
        {"odd", {2, 4, 1000, 1000, 64, 0}},
        {"odd", {1, 8, 1000, 1000, 128, 0}},
        {"odd", {4, 16, 1000, 1000, 64, 0}},
        {"odd", {3, 5, 777, 777, 64, 1}},
        {"odd", {2, 16, 1999, 1999, 128, 1}},
        {"long", {1, 1, 5000, 5000, 128, 1}},
        {"long", {1, 1, 5000, 5000, 128, 0}},
        {"decode", {1, 16, 1, 32768, 128, 0}},
        {"decode", {4, 16, 16, 8192, 64, 0}},
        {"headline", {8, 16, 4096, 4096, 64, 0}},
        {"headline", {4, 16, 4096, 4096, 128, 0}},
    };
    FILE *f = bk_shapes_open("attention");
    for (size_t i = 0; i < sizeof sh / sizeof sh[0]; i++) {
        j->a = sh[i].a;
        char shape[64];
        if (j->a.Sq == j->a.Sk)
            snprintf(shape, sizeof shape, "B%zuH%zuS%zuD%zu%s", j->a.B,
                     j->a.H, j->a.Sq, j->a.D, j->a.causal ? "c" : "");
        else
            snprintf(shape, sizeof shape, "B%zuH%zuSq%zuSk%zuD%zu%s",
                     j->a.B, j->a.H, j->a.Sq, j->a.Sk, j->a.D,
                     j->a.causal ? "c" : "");
        int reps;
        j->which = TILED;
        double t = timed(j, shape, &reps);
        j->which = CUBLAS;
        double tc = timed(j, shape, &reps);
        double fl = flops(j->a) / 1e9;
        bk_shape_row(f, sh[i].cls, shape, "tiled", 1e3 * t, fl / t,
                     "TFLOP/s", "cublas", 1e3 * tc);
        if (j->a.D == 128) {            // the compact shape: twice the blocks
            j->which = COMPACT;
            double tk = timed(j, shape, &reps);
            bk_shape_row(f, sh[i].cls, shape, "tiled_compact", 1e3 * tk,
                         fl / tk, "TFLOP/s", "cublas", 1e3 * tc);
        }
        if (attn_split_rule(j->a) > 1) {    // the split keys, by the rule
            j->which = SPLIT;
            double tp = timed(j, shape, &reps);
            bk_shape_row(f, sh[i].cls, shape, "tiled_split", 1e3 * tp,
                         fl / tp, "TFLOP/s", "cublas", 1e3 * tc);
        }
    }
    bk_csv_close(f);
}

int main(int argc, char **argv)
{
    const int ncu = bk_ncu(argc, argv, 0, 0, "", ncu_mode, NULL);
    if (ncu >= 0) return ncu;
    bk_progress_start("bench_attention", 10);
    cudaDeviceProp prop;
    BOOK_CHECK(cudaGetDeviceProperties(&prop, 0));
    bk_progress("device %s", prop.name);
    const size_t n = (size_t)8 * 16 * 4096 * 64;       // floats of q (max)
    attn_dims big = {8, 16, 4096, 4096, 64, 0};
    // The workspace for the largest case: the scores of B8 H16 S4096 and of
    // the sweep's B2 H16 S8192 are both 2^31 floats, but the sweep's K^T
    // is twice as long, and the D = 128 shape's K^T too.
    const attn_dims need[3] = {big, {4, 16, 4096, 4096, 128, 0},
                               {2, 16, 8192, 8192, 64, 0}};
    size_t wb = 0;
    for (int i = 0; i < 3; i++) {
        size_t b = attention_work_bytes(need[i]);
        if (b > wb) wb = b;
    }
    float *q, *k, *v, *o;
    void *work;
    BOOK_CHECK(cudaMalloc(&q, n * 4)); BOOK_CHECK(cudaMalloc(&k, n * 4));
    BOOK_CHECK(cudaMalloc(&v, n * 4)); BOOK_CHECK(cudaMalloc(&o, n * 4));
    BOOK_CHECK(cudaMalloc(&work, wb));
    bk_fill_random(q, n, -1, 1, 1); bk_fill_random(k, n, -1, 1, 2);
    bk_fill_random(v, n, -1, 1, 3);
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS ||
        cublasSetMathMode(h, CUBLAS_DEFAULT_MATH) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "bench_attention: cuBLAS handle failed\n");
        return 1;
    }
    bk_progress("%.1f GiB allocated, inputs filled, cuBLAS ready",
                (4.0 * n * 4 + wb) / (1 << 30));
    struct job j = {TILED, q, k, v, o, big, work, h};
    if (bk_shapes_only(argc, argv)) {       // --shapes: only those
        run_shapes(&j);
        if (cublasDestroy(h) != CUBLAS_STATUS_SUCCESS) return 1;
        BOOK_CHECK(cudaFree(q)); BOOK_CHECK(cudaFree(k));
        BOOK_CHECK(cudaFree(v)); BOOK_CHECK(cudaFree(o));
        BOOK_CHECK(cudaFree(work));
        bk_progress_stop();
        return 0;
    }
    // The FMA peak and its time, the memory chapter's on this GPU: of_peak
    // is over it (nan, and a line on stderr, where memory.csv lacks it).
    const char *pk_csv = "memory.csv", *pk_row = "variant=fma_peak";
    const double peak = bk_measured(pk_csv, pk_row, "tflops");
    const double peak_ms = bk_measured(pk_csv, pk_row, "ms");
    FILE *f = bk_csv_open("attention", "case,shape,causal,variant,ms,reps,"
                                          "tflops,of_peak,vs_cublas");
    bk_measured_note(f, pk_csv, pk_row, "tflops", peak);
    bk_measured_note(f, pk_csv, pk_row, "ms", peak_ms);
    bk_progress("rows go to the CSV's .tmp, renamed when the four shapes "
                "are done");
    bk_row(f, "fma_peak,-,0,fma_peak,%.4f,-,%.2f,1.000,-\n", peak_ms, peak);
    flush_row(f);
    // Tiled and cuBLAS first: the targets compare them, and the ratio
    // needs cuBLAS's time before any row of the shape is written.
    // At D = 128 also the compact shapes (64 rows a block, two blocks an SM).
    static const int order[NLAUNCH] = {TILED, CUBLAS, THREE, WARP, COMPACT};
    attn_dims shapes[2] = {{8, 16, 4096, 4096, 64, 0}, {4, 16, 4096, 4096, 128, 0}};
    for (int s = 0; s < 2; s++)
        for (int c = 0; c < 2; c++) {
            j.a = shapes[s];
            j.a.causal = c;
            char shape[64], what[80];
            snprintf(shape, sizeof shape, "B%zuH%zuS%zuD%zu", j.a.B, j.a.H,
                     j.a.Sq, j.a.D);
            snprintf(what, sizeof what, "%s causal=%d", shape, c);
            double t[NLAUNCH];
            int r[NLAUNCH];
            for (int i = 0; i < (s == 1 ? 5 : 4); i++) {
                int w = order[i];
                j.which = w;
                t[w] = timed(&j, what, &r[w]);
                if (i == 0) continue;           // tiled waits for cuBLAS
                for (int x = i == 1 ? 0 : i; x <= i; x++) {
                    int y = order[x];
                    double tf = flops(j.a) / (t[y] * 1e9);
                    bk_row(f, "d%zu%s/%s,%s,%d,%s,%.4f,%d,%.2f,%.3f,%.2f\n",
                           j.a.D, c ? "c" : "", attn_variant_name(y), shape,
                           c, attn_variant_name(y), t[y], r[y], tf,
                           tf / peak, t[CUBLAS] / t[y]);
                }
                flush_row(f);
            }
        }
    bk_csv_close(f);
    bk_progress("attention.csv written; the sweep");
    // Time against S: the unfused forms grow with S^2 bytes, the fused not.
    // Tiled and cuBLAS first again; the warp kernel stops at S = 4096.
    FILE *g = bk_csv_open("attention-sweep", "S,three_kernel,cublas,warp,"
                          "tiled,reps_three_kernel,reps_cublas,reps_warp,"
                          "reps_tiled");
    for (size_t S = 512; S <= 8192; S *= 2) {
        j.a = (attn_dims){2, 16, S, S, 64, 0};
        char what[80];
        snprintf(what, sizeof what, "sweep B2H16S%zuD64", S);
        double t[NLAUNCH];
        int r[NLAUNCH];
        for (int i = 0; i < 4; i++) {
            int w = order[i];
            j.which = w;
            r[w] = 0;
            t[w] = w == WARP && S > 4096 ? NAN : timed(&j, what, &r[w]);
        }
        bk_row(g, "%zu,%.4f,%.4f,%.4f,%.4f,%d,%d,%d,%d\n", S, t[THREE],
               t[CUBLAS], t[WARP], t[TILED], r[THREE], r[CUBLAS], r[WARP],
               r[TILED]);
        flush_row(g);
    }
    bk_csv_close(g);
    run_shapes(&j);
    if (cublasDestroy(h) != CUBLAS_STATUS_SUCCESS) return 1;
    BOOK_CHECK(cudaFree(q)); BOOK_CHECK(cudaFree(k)); BOOK_CHECK(cudaFree(v));
    BOOK_CHECK(cudaFree(o)); BOOK_CHECK(cudaFree(work));
    bk_progress("done");
    bk_progress_stop();
    return 0;
}
