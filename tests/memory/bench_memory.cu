// bench_memory.cu -- the memory chapter's measurements (make bench).
// Writes six files under figures/data/$BOOK_GPU/:
//   memory.csv              the hierarchy: copy and read ceilings, the
//                              chapter's copy, read, L2 read, peak FMA,
//                              AoS and SoA drift, the latency of one load
//                              from DRAM and L2 (the matmul, convolution
//                              and attention benches read fma_peak)
//   memory-working-set.csv  read bandwidth against working-set size
//   memory-stride.csv       strided copy, stride 1..32
//   memory-offset.csv       copy with a misaligned start
//   memory-floors.csv       bytes and FLOPs floors of four kernels
//   memory-device.csv       the device's sizes, from its properties
//   memory-shapes.csv       the good patterns at the shapes a user brings
// Bandwidth always counts the minimal bytes.  Buffers are 1 GiB.
//   bench --shapes   writes only memory-shapes.csv.
#include "benchkit.h"
#include "common/book.h"
#include "memory/memory.h"
#include <cstring>

struct ctx {
    float *a, *b, *sum;
    size_t n, stride, offset;
    unsigned passes, iters;
    particle *aos;
    particles soa;
    int which;
    size_t *next, *pos;               // the pointer chase
};

static cudaError_t run(void *p)
{
    ctx *k = (ctx *)p;
    switch (k->which) {
    case 0: return mem_copy(k->a, k->b, k->n, 0);
    case 1: return mem_read_sum(k->a, k->n, k->passes, k->sum, 0);
    case 2: return mem_copy_strided(k->a, k->b, k->n, k->stride, k->offset,
                                    0);
    case 3: return fma_peak(k->b, k->n, k->iters, 0.999f, 0.5f, 0);
    case 4: return drift_aos(k->aos, k->n, 1e-3f, 0);
    case 6: return mem_chase(k->next, k->n, k->iters, k->pos, 0);
    case 7: return cudaMemcpyAsync(k->b, k->a, k->n * sizeof(float),
                                   cudaMemcpyDeviceToDevice);
    case 8: return drift_soa4(k->soa, k->n, 1e-3f, 0);
    default: return drift_soa(k->soa, k->n, 1e-3f, 0);
    }
}

// The shapes a user brings (memory-shapes.csv): the chapter's good
// patterns, the float4 copy, the float4 read and the SoA drifts, on small
// arrays (bounded by launch), odd sizes (n mod 4 != 0, and for the copy
// pointers one float past 16-byte alignment) and the headline size, each
// against the ceiling that moves the same bytes in the same run: a
// cudaMemcpy of as many bytes for the copy, half the drift's 12 bytes a
// particle for the drift (it reads 8 and writes 4), and benchkit's read
// kernel for the read.  a and b hold 2^28 floats each.
static void shapes(ctx k)
{
    float *a = k.a, *b = k.b;
    static const struct {
        const char *cls, *name; size_t n, off; unsigned what;
    } sh[] = {   // what: 1 copy, 2 read, 4 drift
        {"small", "2^10", 1 << 10, 0, 7},   {"small", "2^12", 1 << 12, 0, 3},
        {"small", "2^14", 1 << 14, 0, 3},   {"small", "2^16", 1 << 16, 0, 7},
        {"small", "2^20", 1 << 20, 0, 7},   {"odd", "2^20+1", (1 << 20) + 1, 0, 3},
        {"odd", "10^7+3", 10000003, 0, 7},  {"odd", "10^7+3 at +1", 10000003, 1, 1},
        {"headline", "2^25", 1 << 25, 0, 4}, {"headline", "2^28", 1 << 28, 0, 3},
    };
    FILE *f = bk_shapes_open("memory");
    for (const auto &s : sh) {
        size_t n = s.n, bytes = n * sizeof(float);
        k.a = a + s.off;
        k.b = b + s.off;
        if (s.what & 1) {                   // copy: 8n bytes moved
            k.n = n;
            k.which = 7;
            double ref = 1e3 * bk_median_ms(run, &k, 50);
            k.which = 0;
            double us = 1e3 * bk_median_ms(run, &k, 50);
            bk_shape_row(f, s.cls, s.name, "mem_copy", us, 2e-3 * bytes / us,
                         "GB/s", "copy", ref);
        }
        if (s.what & 2) {                   // read: 4n bytes
            k.n = n;
            k.which = 1;
            k.passes = 1;
            double ref = 1e-3 * bytes / bk_read_gbps(bytes);
            double us = 1e3 * bk_median_ms(run, &k, 50);
            bk_shape_row(f, s.cls, s.name, "mem_read", us, 1e-3 * bytes / us,
                         "GB/s", "read", ref);
        }
        if (s.what & 4) {                   // drift: 12n bytes
            k.soa = {b, b + n, b + 2 * n, b + 3 * n, b + 4 * n, b + 5 * n,
                     b + 6 * n, b + 7 * n};
            k.b = b + 6 * n;                // the copy's 6n bytes: a -> b
            k.n = 6 * n / sizeof(float);
            k.which = 7;
            double ref = 1e3 * bk_median_ms(run, &k, 50);
            k.n = n;
            for (int w = 0; w < 2; w++) {
                k.which = w ? 8 : 5;
                double us = 1e3 * bk_median_ms(run, &k, 50);
                bk_shape_row(f, s.cls, s.name, w ? "drift_soa4" : "drift_soa",
                             us, 12e-3 * n / us, "GB/s", "copy", ref);
            }
        }
    }
    bk_csv_close(f);
}

int main(int argc, char **argv)
{
    const size_t n = (size_t)1 << 28, bytes = n * sizeof(float);
    const int reps = 25;
    double copy = bk_copy_gbps(bytes), read = bk_read_gbps(bytes);
    cudaDeviceProp prop;
    BOOK_CHECK(cudaGetDeviceProperties(&prop, 0));
    int clock_khz = 0;
    BOOK_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    // FP32 FMA units: 128 an SM on compute capability 9.0 (and 8.6/8.9);
    // 64 on 8.0.
    int fma_units = prop.major == 8 && prop.minor == 0 ? 64 : 128;
    double peak_tflops = (double)prop.multiProcessorCount * fma_units * 2.0 *
                         clock_khz * 1e3 / 1e12;

    ctx k;
    memset(&k, 0, sizeof k);
    BOOK_CHECK(cudaMalloc(&k.a, bytes));
    BOOK_CHECK(cudaMalloc(&k.b, bytes));
    BOOK_CHECK(cudaMalloc(&k.sum, sizeof(float)));
    bk_fill_random(k.a, n, -1, 1, 1);
    bk_fill_random(k.b, n, -1, 1, 2);
    BOOK_CHECK(cudaMemset(k.sum, 0, sizeof(float)));
    if (bk_shapes_only(argc, argv)) {
        shapes(k);
        return 0;
    }

    // Columns ns and inflight_sm belong to the latency rows (- elsewhere).
    FILE *f = bk_csv_open("memory",
                          "variant,n,bytes,flops,ms,gbps,tflops,of_copy,"
                          "of_peak,of_soa,ns,inflight_sm");
    bk_row(f, "copy_ceiling,%zu,%zu,-,%.4f,%.1f,-,1.000,-,-,-,-\n", n,
           2 * bytes, 2.0 * bytes / (copy * 1e6), copy);
    bk_row(f, "read_ceiling,%zu,%zu,-,%.4f,%.1f,-,%.3f,-,-,-,-\n", n, bytes,
           bytes / (read * 1e6), read, read / copy);

    // The chapter's copy and read, one pass over 1 GiB.
    k.n = n;
    k.which = 0;
    double ms = bk_median_ms(run, &k, reps), gbps = 2.0 * bytes / (ms * 1e6);
    bk_row(f, "mem_copy,%zu,%zu,-,%.4f,%.1f,-,%.3f,-,-,-,-\n", n, 2 * bytes,
           ms, gbps, gbps / copy);
    k.which = 1;
    k.passes = 1;
    ms = bk_median_ms(run, &k, reps);
    gbps = bytes / (ms * 1e6);
    bk_row(f, "mem_read,%zu,%zu,-,%.4f,%.1f,-,%.3f,-,-,-,-\n", n, bytes, ms,
           gbps, gbps / copy);

    // L2: 16 MiB read 256 times in one launch (4 GiB in all).
    k.n = ((size_t)16 << 20) / sizeof(float);
    k.passes = 256;
    ms = bk_median_ms(run, &k, reps);
    double moved = (double)k.n * sizeof(float) * k.passes;
    gbps = moved / (ms * 1e6);
    bk_row(f, "mem_read_l2,%zu,%.0f,-,%.4f,%.1f,-,%.3f,-,-,-,-\n", k.n,
           moved, ms, gbps, gbps / copy);
    double l2_gbps = gbps;

    // Peak FMA: 4 waves of full SMs, 16384 iterations of 8 chains.
    k.which = 3;
    k.n = (size_t)prop.multiProcessorCount * prop.maxThreadsPerMultiProcessor * 4;
    k.iters = 16384;
    ms = bk_median_ms(run, &k, reps);
    double flops = 2.0 * 8 * k.iters * (double)k.n;
    double tflops = flops / (ms * 1e9);
    bk_row(f, "fma_peak,%zu,%zu,%.0f,%.4f,-,%.2f,-,%.3f,-,-,-\n", k.n,
           k.n * sizeof(float), flops, ms, tflops, tflops / peak_tflops);

    // AoS against SoA: 2^25 particles, 12 useful bytes and 2 FLOPs each.
    size_t np = (size_t)1 << 25;
    k.n = np;
    k.aos = (particle *)k.a;                 // 1 GiB of structs
    float *soa = k.b;                        // 8 arrays of 2^25 floats
    k.soa = {soa, soa + np, soa + 2 * np, soa + 3 * np, soa + 4 * np,
             soa + 5 * np, soa + 6 * np, soa + 7 * np};
    // AoS, SoA, and SoA four particles a thread (run case 8).
    static const char *drift_name[] = {"drift_aos", "drift_soa",
                                       "drift_soa4"};
    double drift_gbps[3], drift_ms[3];
    for (int w = 0; w < 3; w++) {
        k.which = w == 2 ? 8 : 4 + w;
        drift_ms[w] = bk_median_ms(run, &k, reps);
        drift_gbps[w] = 12.0 * np / (drift_ms[w] * 1e6);
    }
    for (int w = 0; w < 3; w++)
        bk_row(f, "%s,%zu,%zu,%zu,%.4f,%.1f,%.5f,%.3f,-,%.3f,-,-\n",
               drift_name[w], np, 12 * np, 2 * np,
               drift_ms[w], drift_gbps[w], 2.0 * np / (drift_ms[w] * 1e9),
               drift_gbps[w] / copy, drift_gbps[w] / drift_gbps[1]);

    // Latency: 2^16 dependent loads a launch, one thread, 128-byte nodes in
    // one random cycle.  DRAM: 1 GiB, 2^23 nodes; the chase walks on from
    // launch to launch, and 28 launches (3 warm-up, 25 timed) take 2^16 x 28
    // < 2^23 steps, so no node is read twice; the L2 is emptied before each
    // launch (bk_median_ms_cold), so not even the part of the buffer that
    // the upload left in L2 answers.  L2: 16 MiB, 2^17 nodes, all in L2
    // after the warm-up.  inflight_sm: Little's law, the level's read
    // bandwidth (read ceiling, L2 read) times the latency, over the SMs.
    const size_t stride = 128 / sizeof(size_t);
    struct {
        const char *name; size_t bytes; double gbps; bool cold;
    } lv[] = {
        {"latency_dram", bytes, read, true},
        {"latency_l2", (size_t)16 << 20, l2_gbps, false},
    };
    k.which = 6;
    k.iters = 1u << 16;
    k.next = (size_t *)k.a;                  // 1 GiB, reused
    BOOK_CHECK(cudaMalloc(&k.pos, sizeof(size_t)));
    for (auto &l : lv) {
        size_t nodes = l.bytes / 128;
        k.n = nodes * stride;
        BOOK_CHECK(mem_chase_cycle(k.next, nodes, stride, 12345, 0));
        BOOK_CHECK(cudaMemset(k.pos, 0, sizeof(size_t)));
        ms = l.cold ? bk_median_ms_cold(run, &k, reps)
                    : bk_median_ms(run, &k, reps);
        double ns = ms * 1e6 / k.iters;
        double inflight = l.gbps * ns / prop.multiProcessorCount;
        bk_row(f, "%s,%u,%zu,-,%.4f,-,-,-,-,-,%.1f,%.0f\n", l.name, k.iters,
               l.bytes, ms, ns, inflight);
    }
    BOOK_CHECK(cudaFree(k.pos));
    bk_fill_random(k.a, n, -1, 1, 1);        // floats again, for the rest
    bk_csv_close(f);

    // Working sets from 4 MiB to 1 GiB, 4 GiB read by each launch.
    f = bk_csv_open("memory-working-set", "mib,bytes,passes,ms,gbps,of_copy");
    static const unsigned mib[] = {4,  8,  12, 16,  24,  32,  40,  48,
                                   56, 64, 96, 128, 256, 512, 1024};
    k.which = 1;
    for (unsigned m : mib) {
        k.n = ((size_t)m << 20) / sizeof(float);
        k.passes = 4096 / m;
        ms = bk_median_ms(run, &k, reps);
        moved = (double)k.n * sizeof(float) * k.passes;
        gbps = moved / (ms * 1e6);
        bk_row(f, "%u,%zu,%u,%.4f,%.1f,%.3f\n", m, k.n * sizeof(float),
               k.passes, ms, gbps, gbps / copy);
    }
    bk_csv_close(f);

    // Strided copies: stride s copies n / s floats; useful bytes 8 a float.
    // A warp touches min(32, 4 s) sectors for its 4 useful ones.
    f = bk_csv_open("memory-stride",
                    "stride,count,ms,gbps,of_copy,predicted");
    k.which = 2;
    k.n = n;
    k.offset = 0;
    for (size_t s = 1; s <= 32; s *= 2) {
        k.stride = s;
        size_t count = ceil_div(n, s);
        ms = bk_median_ms(run, &k, reps);
        gbps = 8.0 * count / (ms * 1e6);
        double sectors = 4.0 * s < 32 ? 4.0 * s : 32;
        bk_row(f, "%zu,%zu,%.4f,%.1f,%.4f,%.4f\n", s, count, ms, gbps,
               gbps / copy, 4.0 / sectors);
    }
    bk_csv_close(f);
    f = bk_csv_open("memory-offset", "offset,count,ms,gbps,of_copy");
    k.stride = 1;
    for (size_t o = 0; o <= 32; o = o ? 2 * o : 1) {
        k.offset = o;
        size_t count = n - o;
        ms = bk_median_ms(run, &k, reps);
        gbps = 8.0 * count / (ms * 1e6);
        bk_row(f, "%zu,%zu,%.4f,%.1f,%.4f\n", o, count, ms, gbps,
               gbps / copy);
    }
    bk_csv_close(f);

    // Two numbers first: bytes and FLOPs floors from this run's ceilings.
    f = bk_csv_open("memory-floors",
                    "work,bytes,flops,intensity,t_bytes_ms,t_flops_ms");
    struct { const char *work; double bytes, flops; } w[] = {
        {"SAXPY 2^28", 12.0 * n, 2.0 * n},
        {"transpose 16384^2", 8.0 * 16384 * 16384, 0},
        {"sum 2^28", 4.0 * n, 1.0 * n},
        {"SGEMM 4096^3", 3.0 * 4096 * 4096 * 4, 2.0 * 4096.0 * 4096 * 4096},
        {"ridge 1 GiB", 1073741824.0, 1073741824.0 * tflops * 1e3 / copy},
    };
    for (auto &x : w)
        bk_row(f, "%s,%.0f,%.0f,%.4g,%.5f,%.5f\n", x.work, x.bytes, x.flops,
               x.flops / x.bytes, x.bytes / (copy * 1e6),
               x.flops / (tflops * 1e9));
    bk_csv_close(f);

    // The device's own sizes, for the prose.
    f = bk_csv_open("memory-device", "fact,value");
    bk_row(f, "sms,%d\n", prop.multiProcessorCount);
    bk_row(f, "regs_per_sm,%d\n", prop.regsPerMultiprocessor);
    bk_row(f, "smem_per_sm_kib,%zu\n", prop.sharedMemPerMultiprocessor / 1024);
    bk_row(f, "l2_mib,%d\n", prop.l2CacheSize >> 20);
    bk_row(f, "global_mem_gib,%.1f\n", prop.totalGlobalMem / 1073741824.0);
    bk_row(f, "clock_mhz,%d\n", clock_khz / 1000);
    bk_row(f, "fp32_peak_tflops,%.2f\n", peak_tflops);
    bk_csv_close(f);
    shapes(k);

    BOOK_CHECK(cudaFree(k.a));
    BOOK_CHECK(cudaFree(k.b));
    BOOK_CHECK(cudaFree(k.sum));
    return 0;
}
