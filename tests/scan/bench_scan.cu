// bench_scan.cu -- the scan chapter's measurements (make bench).
// Inclusive scans of 2^28 elements (1 GiB of floats, far beyond the 60 MB
// L2): the block-level tile scans, the three device-wide scans, and CUB's
// DeviceScan::InclusiveSum in the same run, beside the copy and read
// ceilings.  Bytes: one read and one write an element.
// With the arguments --ncu VARIANT it only runs one Blelloch tile scan
// (unpadded, padded or gems) once on 2^20 floats, for counters.sh; with
// --ncu i64 it runs the 64-bit staged, paired and raked scans and CUB's
// once each on 2^26 elements.  --shapes writes only scan-shapes.csv:
// the raked scan against CUB, 64-bit integers and floats, from 2^10 to
// 2^28 elements.
#include <cub/cub.cuh>
#include <cstring>
#include <vector>
#include "benchkit.h"
#include "common/book.h"
#include "scan/scan.h"
#include "variants.h"

struct ctx {
    const void *in;
    void *out;
    size_t n;
    int type;          // 0 float, 1 int, 2 long long
    int tile_algo;     // >= 0: a tile scan
    int dev_algo;      // >= 0: a device-wide scan; -1 with tile_algo -1: CUB
    void *scratch;
    size_t bytes;
};

static cudaError_t run(void *p)
{
    ctx *c = (ctx *)p;
    if (c->tile_algo >= 0) {
        if (c->type == 0)
            return scan_tiles_f32((const float *)c->in, (float *)c->out,
                                  c->n, (scan_tile_algo)c->tile_algo,
                                  SCAN_INCLUSIVE, 0);
        return scan_tiles_i32((const int *)c->in, (int *)c->out, c->n,
                              (scan_tile_algo)c->tile_algo, SCAN_INCLUSIVE,
                              0);
    }
    if (c->dev_algo >= 0) {
        scan_device_algo a = (scan_device_algo)c->dev_algo;
        if (c->type == 0)
            return scan_f32((const float *)c->in, (float *)c->out, c->n,
                            SCAN_INCLUSIVE, a, c->scratch, c->bytes, 0);
        if (c->type == 1)
            return scan_i32((const int *)c->in, (int *)c->out, c->n,
                            SCAN_INCLUSIVE, a, c->scratch, c->bytes, 0);
        return scan_i64((const long long *)c->in, (long long *)c->out, c->n,
                        SCAN_INCLUSIVE, a, c->scratch, c->bytes, 0);
    }
    size_t b = c->bytes;
    if (c->type == 0)
        return cub::DeviceScan::InclusiveSum(c->scratch, b,
                                             (const float *)c->in,
                                             (float *)c->out, c->n);
    if (c->type == 1)
        return cub::DeviceScan::InclusiveSum(c->scratch, b,
                                             (const int *)c->in,
                                             (int *)c->out, c->n);
    return cub::DeviceScan::InclusiveSum(c->scratch, b,
                                         (const long long *)c->in,
                                         (long long *)c->out, c->n);
}

static size_t cub_bytes(int type, size_t n)
{
    size_t b = 0;
    if (type == 0)
        BOOK_CHECK(cub::DeviceScan::InclusiveSum(nullptr, b, (const float *)0,
                                              (float *)0, n));
    else if (type == 1)
        BOOK_CHECK(cub::DeviceScan::InclusiveSum(nullptr, b, (const int *)0,
                                              (int *)0, n));
    else
        BOOK_CHECK(cub::DeviceScan::InclusiveSum(nullptr, b,
                                              (const long long *)0,
                                              (long long *)0, n));
    return b;
}

__global__ void fill_ints(int *d, size_t n, int mod)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        d[i] = (int)((i * 2654435761u) % (unsigned)mod) - mod / 2;
}

// One launch of one Blelloch tile scan, for Nsight Compute; i64: the
// 64-bit single passes and CUB's (ncu_i64).
static int ncu_i64(void);
static int ncu_mode(int, char **args, void *)
{
    static const struct {
        const char *name; scan_tile_algo algo; bool i64;
    } tiles[] = {{"unpadded", SCAN_TILE_BLELLOCH_UNPADDED, false},
                 {"padded", SCAN_TILE_BLELLOCH, false},
                 {"gems", SCAN_TILE_BLELLOCH_GEMS, false},
                 {"i64", SCAN_TILE_BLELLOCH, true}};
    const int v = BK_NCU_PICK("variant", args[0], tiles);
    if (v < 0) return 2;
    if (tiles[v].i64) return ncu_i64();
    const size_t n = (size_t)1 << 20;
    const scan_tile_algo a = tiles[v].algo;
    float *in, *out;
    BOOK_CHECK(cudaMalloc(&in, n * sizeof(float)));
    BOOK_CHECK(cudaMalloc(&out, n * sizeof(float)));
    bk_fill_random(in, n, -1, 1, 7);
    BOOK_CHECK(scan_tiles_f32(in, out, n, a, SCAN_INCLUSIVE, 0));
    BOOK_CHECK(cudaDeviceSynchronize());
    BOOK_CHECK(cudaFree(in));
    BOOK_CHECK(cudaFree(out));
    return 0;
}

// One launch each of the 64-bit single passes and CUB's, for Nsight Compute.
static int ncu_i64(void)
{
    const size_t n = (size_t)1 << 26;
    void *in, *out, *scratch;
    size_t sb = scan_scratch_bytes(n, 8);
    if (cub_bytes(2, n) > sb) sb = cub_bytes(2, n);
    BOOK_CHECK(cudaMalloc(&in, n * 8));
    BOOK_CHECK(cudaMalloc(&out, n * 8));
    BOOK_CHECK(cudaMalloc(&scratch, sb));
    fill_ints<<<1024, 256>>>((int *)in, 2 * n, 201);
    BOOK_CHECK(cudaGetLastError());
    // The 64 KiB tiles (staged, paired, raked) in variants.h's order, then
    // CUB (-1): the order counters.sh reads the launches in.
    std::vector<int> algos;
    for (const scan_device_variant &d : scan_device_variants)
        if (d.big_tile) algos.push_back((int)d.algo);
    algos.push_back(-1);
    for (int a : algos) {
        ctx c = {in, out, n, 2, -1, a, scratch, sb};
        BOOK_CHECK(run(&c));
        BOOK_CHECK(cudaDeviceSynchronize());
    }
    BOOK_CHECK(cudaFree(in));
    BOOK_CHECK(cudaFree(out));
    BOOK_CHECK(cudaFree(scratch));
    return 0;
}

// The shapes a user brings (scan-shapes.csv): the raked single pass
// against CUB's scan of the same type on the same input in the same run,
// small (bound by launch), odd (not a multiple of 4 or of a tile; and one
// element past 16-byte alignment, which takes every tile's scalar path)
// and the headline size (benchkit's bk_count_shapes).  in, out and scratch
// hold 2^28 64-bit values.
static void shapes(void *in, void *out, void *scratch, size_t sb)
{
    static const char *vname[3] = {"raked_f32", "raked_i32", "raked_i64"};
    static const char *cname[3] = {"cub_f32", "cub_i32", "cub_i64"};
    fill_ints<<<1024, 256>>>((int *)in, (size_t)1 << 29, 201);
    BOOK_CHECK(cudaGetLastError());
    FILE *f = bk_shapes_open("scan");
    for (int t = 2; t >= 0; t -= 2)          // 64-bit integers, then floats
        for (const auto &s : bk_count_shapes) {
            const size_t es = t == 2 ? 8 : 4;
            if (s.n + s.off > ((size_t)1 << 28)) continue;
            char *i0 = (char *)in + s.off * es, *o0 = (char *)out + s.off * es;
            ctx c = {i0, o0, s.n, t, -1, -1, scratch, sb};
            double ref = 1e3 * bk_median_ms(run, &c, 30);
            c.dev_algo = SCAN_LOOKBACK_RAKED;
            double us = 1e3 * bk_median_ms(run, &c, 30);
            bk_shape_row(f, s.cls, s.name, vname[t], us,
                         2e-3 * (double)(s.n * es) / us, "GB/s", cname[t],
                         ref);
        }
    bk_csv_close(f);
}

int main(int argc, char **argv)
{
    const int ncu = bk_ncu(argc, argv, 1, 1, "unpadded|padded|gems|i64",
                           ncu_mode, NULL);
    if (ncu >= 0) return ncu;
    const size_t n = (size_t)1 << 28;
    const size_t fbytes = n * sizeof(float);
    void *in, *out, *scratch;
    BOOK_CHECK(cudaMalloc(&in, n * 8));
    BOOK_CHECK(cudaMalloc(&out, n * 8));
    size_t sb = scan_scratch_bytes(n, 4);
    for (int t = 0; t < 3; t++)
        if (cub_bytes(t, n) > sb) sb = cub_bytes(t, n);
    if (scan_scratch_bytes(n, 8) > sb) sb = scan_scratch_bytes(n, 8);
    BOOK_CHECK(cudaMalloc(&scratch, sb));
    if (bk_shapes_only(argc, argv)) {
        shapes(in, out, scratch, sb);
        return 0;
    }
    double copy = bk_copy_gbps(fbytes), read = bk_read_gbps(fbytes);
    FILE *f = bk_csv_open("scan",
                          "variant,type,n,bytes,ms,gbps,of_copy,of_cub");

    // The rows of scan.csv, from variants.h: for each type CUB's scan,
    // then (floats only) the tile scans, then the device-wide scans the
    // list times on that type.
    struct variant { char name[64]; int type, tile, dev; };
    static const char *suffix[3] = {"f32", "i32", "i64"};
    static const int type_bit[3] = {SCAN_TYPE_F32, SCAN_TYPE_I32,
                                    SCAN_TYPE_I64};
    struct tile_row { int algo; const char *name; };
#define TILE_ROW(algo, name) {algo, name},
    static const tile_row tile_rows[] = {SCAN_TILE_VARIANTS(TILE_ROW)};
#undef TILE_ROW
    std::vector<variant> vs;
    for (int t = 0; t < 3; t++) {
        variant v = {"", t, -1, -1};
        snprintf(v.name, sizeof v.name, "cub_%s", suffix[t]);
        vs.push_back(v);
        if (t == 0)
            for (const tile_row &r : tile_rows) {
                variant w = {"", 0, r.algo, -1};
                snprintf(w.name, sizeof w.name, "%s", r.name);
                vs.push_back(w);
            }
        for (const scan_device_variant &d : scan_device_variants) {
            if (!(d.bench_types & type_bit[t])) continue;
            variant w = {"", t, -1, (int)d.algo};
            snprintf(w.name, sizeof w.name, "%s_%s", d.name, suffix[t]);
            vs.push_back(w);
        }
    }
    const char *tnames[3] = {"float", "int", "long long"};
    double cub_gbps[3] = {0, 0, 0};
    for (const variant &v : vs) {
        const size_t es = v.type == 2 ? 8 : 4;
        if (v.type == 0) bk_fill_random((float *)in, n, -1, 1, 11);
        else fill_ints<<<1024, 256>>>((int *)in, n * es / 4, 201);
        BOOK_CHECK(cudaGetLastError());
        BOOK_CHECK(cudaDeviceSynchronize());
        ctx c = {in, out, n, v.type, v.tile, v.dev, scratch, sb};
        double ms = bk_median_ms(run, &c, 30);
        double moved = 2.0 * n * es;
        double gbps = moved / (ms * 1e6);
        if (v.tile < 0 && v.dev < 0) cub_gbps[v.type] = gbps;
        bk_row(f, "%s,%s,%zu,%.0f,%.4f,%.1f,%.3f,%.3f\n", v.name,
               tnames[v.type], n, moved, ms, gbps, gbps / copy,
               gbps / cub_gbps[v.type]);
    }
    bk_row(f, "copy_ceiling,-,%zu,%zu,%.4f,%.1f,1.000,%.3f\n", n,
           2 * fbytes, 2.0 * fbytes / (copy * 1e6), copy, copy / cub_gbps[0]);
    bk_row(f, "read_ceiling,-,%zu,%zu,%.4f,%.1f,%.3f,%.3f\n", n, fbytes,
           fbytes / (read * 1e6), read, read / copy, read / cub_gbps[0]);
    bk_csv_close(f);
    shapes(in, out, scratch, sb);
    BOOK_CHECK(cudaFree(in));
    BOOK_CHECK(cudaFree(out));
    BOOK_CHECK(cudaFree(scratch));
    return 0;
}
