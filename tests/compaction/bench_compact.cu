// bench_compact.cu -- the compaction chapter's measurements (make bench).
// Stream compaction of 2^28 ints (1 GiB, far beyond the 60 MB L2) at
// density 50%, and at 1% and 99%, beside CUB's DeviceSelect::If with the
// same predicate in the same run and the copy ceiling; find_repeats at
// about 50% repeats.  Bytes: the input read once, the kept elements (or
// indices) written once.  --ncu runs the staged and the ballot compaction
// once each at 1% and 99% on 2^26 elements, for counters.sh; --shapes
// writes only compaction-shapes.csv: the ballot compaction against CUB
// at 1% and 99%, from 2^10 to 2^28 elements.
#include <cub/cub.cuh>
#include <cstring>
#include "benchkit.h"
#include "common/book.h"
#include "compaction/compact.h"
#include "variants.h"

struct greater_than {
    int t;
    __host__ __device__ bool operator()(const int &x) const { return x > t; }
};

static cudaError_t cub_select_if(const int *in, int *out, size_t n, int t,
                                 size_t *count, void *scratch, size_t bytes,
                                 cudaStream_t stream)
{
    return cub::DeviceSelect::If(scratch, bytes, in, out, count, n,
                                 greater_than{t}, stream);
}
// The variants (variants.h), one row each at every density; CUB, last, is
// the reference.
#define COMPACT_BENCH_ROW(id, fn, name) {name, fn},
static const struct { const char *name; compact_fn fn; } variants[] = {
    COMPACT_VARIANTS(COMPACT_BENCH_ROW)
    {"cub_select_if", cub_select_if},
};
#undef COMPACT_BENCH_ROW
enum { NV = sizeof variants / sizeof variants[0], CUB = NV - 1 };

struct ctx {
    const int *in;
    void *out;
    size_t n, *count;
    compact_fn fn;     // a variant, or NULL: find_repeats
    void *scratch;
    size_t bytes;
};
static cudaError_t run(void *p)
{
    ctx *c = (ctx *)p;
    if (c->fn)
        return c->fn(c->in, (int *)c->out, c->n, 0, c->count, c->scratch,
                     c->bytes, 0);
    return find_repeats(c->in, c->n, (size_t *)c->out, c->count, c->scratch,
                        c->bytes, 0);
}

// x[i] > 0 with probability about `permille` / 1000; or, for repeats,
// runs in which x[i] == x[i - 1] about half the time.
__global__ void fill_density(int *d, size_t n, unsigned permille,
                             bool runs)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        unsigned long long z = 0x9e3779b97f4a7c15ull * (i + 1);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        int mag = (int)(z % 1000000);
        if (runs) d[i] = (int)(i / 2) + (int)(z % 2) * (int)(i % 2);
        else d[i] = (z >> 32) % 1000 < permille ? 1 + mag : -mag;
    }
}

// The shapes a user brings (compaction-shapes.csv): the ballot
// compaction against CUB's DeviceSelect::If on the same input in the same
// run, at 1% and 99%: small (bound by launch), odd (not a multiple of 4 or
// of a tile; one element past 16-byte alignment, which takes the scalar
// loads and stores) and the headline size (benchkit's bk_count_shapes).
// Bytes: n reads and the kept writes, 4 bytes each.
static void shapes(int *in, void *out, size_t *count, void *scratch,
                   size_t sb)
{
    const unsigned densities[2] = {10, 990};
    const char *vname[2] = {"ballot_1", "ballot_99"};
    const char *cname[2] = {"cub_select_if_1", "cub_select_if_99"};
    FILE *f = bk_shapes_open("compaction");
    for (int d = 0; d < 2; d++) {
        fill_density<<<1024, 256>>>(in, (size_t)1 << 28, densities[d], false);
        BOOK_CHECK(cudaGetLastError());
        for (const auto &s : bk_count_shapes) {
            if (s.n + s.off > ((size_t)1 << 28)) continue;
            ctx c = {in + s.off, (int *)out + s.off, s.n, count,
                     cub_select_if, scratch, sb};
            double ref = 1e3 * bk_median_ms(run, &c, 30);
            c.fn = compact_gt_ballot;
            double us = 1e3 * bk_median_ms(run, &c, 30);
            size_t kept = 0;
            BOOK_CHECK(cudaMemcpy(&kept, count, sizeof kept,
                                  cudaMemcpyDeviceToHost));
            bk_shape_row(f, s.cls, s.name, vname[d], us,
                         4e-3 * (double)(s.n + kept) / us, "GB/s", cname[d],
                         ref);
        }
    }
    bk_csv_close(f);
}

// One launch each of the staged and the ballot compaction at 1% and 99%
// on 2^26 elements, for Nsight Compute (bench --ncu).
struct ncu_bufs { int *in; void *out; size_t *count; void *scratch; size_t sb; };
static int ncu_mode(int, char **, void *p)
{
    const ncu_bufs &b = *(const ncu_bufs *)p;
    const size_t n = (size_t)1 << 26;
    const unsigned densities[2] = {10, 990};
    for (int d = 0; d < 2; d++) {
        fill_density<<<1024, 256>>>(b.in, n, densities[d], false);
        BOOK_CHECK(cudaGetLastError());
        BOOK_CHECK(compact_gt_staged(b.in, (int *)b.out, n, 0, b.count,
                                     b.scratch, b.sb, 0));
        BOOK_CHECK(compact_gt_ballot(b.in, (int *)b.out, n, 0, b.count,
                                     b.scratch, b.sb, 0));
    }
    return 0;
}

int main(int argc, char **argv)
{
    const size_t n = (size_t)1 << 28, ib = n * sizeof(int);
    int *in;
    void *out, *scratch;
    size_t *count, sb = compact_scratch_bytes(n), cb = 0;
    BOOK_CHECK(cudaMalloc((void **)&in, ib));
    BOOK_CHECK(cudaMalloc(&out, n * sizeof(size_t)));
    BOOK_CHECK(cudaMalloc((void **)&count, sizeof(size_t)));
    BOOK_CHECK(cub::DeviceSelect::If(nullptr, cb, in, (int *)out, count, n,
                                  greater_than{0}));
    if (cb > sb) sb = cb;
    BOOK_CHECK(cudaMalloc(&scratch, sb));
    ncu_bufs nb = {in, out, count, scratch, sb};
    const int ncu = bk_ncu(argc, argv, 0, 0, "", ncu_mode, &nb);
    if (ncu >= 0) return ncu;
    if (bk_shapes_only(argc, argv)) {
        shapes(in, out, count, scratch, sb);
        return 0;
    }
    double copy = bk_copy_gbps(ib);
    FILE *f = bk_csv_open("compaction",
                          "variant,density,n,kept,bytes,ms,gbps,of_copy,"
                          "of_cub,copy_gbps");

    const unsigned densities[3] = {500, 10, 990};
    const char *dnames[3] = {"50", "1", "99"};
    for (int d = 0; d < 3; d++) {
        fill_density<<<1024, 256>>>(in, n, densities[d], false);
        BOOK_CHECK(cudaGetLastError());
        BOOK_CHECK(cudaDeviceSynchronize());
        double ms[NV], gbps[NV], moved = 0;
        size_t kept = 0;
        for (int w = CUB; w >= 0; w--) {     // CUB first: the reference
            ctx c = {in, out, n, count, variants[w].fn, scratch, sb};
            ms[w] = bk_median_ms(run, &c, 30);
            BOOK_CHECK(cudaMemcpy(&kept, count, sizeof kept,
                               cudaMemcpyDeviceToHost));
            moved = (double)ib + 4.0 * kept;
            gbps[w] = moved / (ms[w] * 1e6);
        }
        for (int w = 0; w < NV; w++) {
            bk_row(f, "%s_%s,%s,%zu,%zu,%.0f,%.4f,%.1f,%.3f,%.3f,%.1f\n",
                   variants[w].name, dnames[d], dnames[d], n, kept, moved, ms[w],
                   gbps[w], gbps[w] / copy, ms[CUB] / ms[w], copy);
        }
    }
    // find_repeats: about every other index is a repeat.
    fill_density<<<1024, 256>>>(in, n, 0, true);
    BOOK_CHECK(cudaGetLastError());
    BOOK_CHECK(cudaDeviceSynchronize());
    ctx c = {in, out, n, count, NULL, scratch, sb};
    double ms = bk_median_ms(run, &c, 30);
    size_t kept = 0;
    BOOK_CHECK(cudaMemcpy(&kept, count, sizeof kept, cudaMemcpyDeviceToHost));
    double moved = (double)ib + 8.0 * kept, gbps = moved / (ms * 1e6);
    bk_csv_close(f);
    f = bk_csv_open("compaction-repeats",
                    "variant,n,repeats,bytes,ms,gbps,of_copy");
    bk_row(f, "find_repeats,%zu,%zu,%.0f,%.4f,%.1f,%.3f\n", n, kept, moved,
           ms, gbps, gbps / copy);
    bk_csv_close(f);
    shapes(in, out, count, scratch, sb);
    BOOK_CHECK(cudaFree(in));
    BOOK_CHECK(cudaFree(out));
    BOOK_CHECK(cudaFree(count));
    BOOK_CHECK(cudaFree(scratch));
    return 0;
}
