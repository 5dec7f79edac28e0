// benchkit.cu -- see benchkit.h.
#include "benchkit.h"
#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <vector>

void bk_cuda_ok(cudaError_t e, const char *what, const char *file, int line)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "%s:%d: %s failed: %s\n", file, line, what, cudaGetErrorString(e));
        exit(1);
    }
}

double bk_median_ms(bk_work fn, void *ctx, int reps)
{
    if (reps < 20) reps = 20;
    cudaEvent_t a, b;
    BK_CUDA(cudaEventCreate(&a));
    BK_CUDA(cudaEventCreate(&b));
    for (int i = 0; i < 3; i++) BK_CUDA(fn(ctx));
    BK_CUDA(cudaDeviceSynchronize());
    std::vector<float> t(reps);
    for (int i = 0; i < reps; i++) {
        BK_CUDA(cudaEventRecord(a));
        BK_CUDA(fn(ctx));
        BK_CUDA(cudaEventRecord(b));
        BK_CUDA(cudaEventSynchronize(b));
        BK_CUDA(cudaEventElapsedTime(&t[i], a, b));
    }
    BK_CUDA(cudaEventDestroy(a));
    BK_CUDA(cudaEventDestroy(b));
    std::sort(t.begin(), t.end());
    return reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
}

struct copy_ctx { void *dst; const void *src; size_t bytes; };
static cudaError_t run_copy(void *p)
{
    copy_ctx *c = (copy_ctx *)p;
    return cudaMemcpyAsync(c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice);
}
double bk_copy_gbps(size_t bytes)
{
    copy_ctx c = {NULL, NULL, bytes};
    BK_CUDA(cudaMalloc(&c.dst, bytes));
    BK_CUDA(cudaMalloc((void **)&c.src, bytes));
    BK_CUDA(cudaMemset(c.dst, 0, bytes));
    BK_CUDA(cudaMemset((void *)c.src, 1, bytes));
    double ms = bk_median_ms(run_copy, &c, 30);
    BK_CUDA(cudaFree(c.dst));
    BK_CUDA(cudaFree((void *)c.src));
    return 2.0 * bytes / (ms * 1e6);
}

// The read ceiling: each thread sums float4s over a grid-stride loop and
// writes one value only if the sum is impossible, so nothing is stored.
__global__ void read_kernel(const float4 *x, size_t n4, float *sink)
{
    float s = 0.f;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4;
         i += (size_t)gridDim.x * blockDim.x) {
        float4 v = x[i];
        s += v.x + v.y + v.z + v.w;
    }
    if (s == -1.0f) *sink = s;
}
struct read_ctx { const float4 *x; size_t n4; float *sink; int blocks; };
static cudaError_t run_read(void *p)
{
    read_ctx *c = (read_ctx *)p;
    read_kernel<<<c->blocks, 512>>>(c->x, c->n4, c->sink);
    return cudaGetLastError();
}
double bk_read_gbps(size_t bytes)
{
    read_ctx c;
    int dev = 0, sms = 0, per_sm = 0;
    BK_CUDA(cudaGetDevice(&dev));
    BK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    // One full wave: as many 512-thread blocks as fit on an SM at once (4 on
    // an H200), not a fixed number that would leave a second, partial wave.
    BK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, read_kernel,
                                                          512, 0));
    c.n4 = bytes / 16;
    c.blocks = sms * (per_sm > 0 ? per_sm : 1);
    BK_CUDA(cudaMalloc((void **)&c.x, c.n4 * 16));
    BK_CUDA(cudaMalloc(&c.sink, sizeof(float)));
    BK_CUDA(cudaMemset((void *)c.x, 0, c.n4 * 16));
    double ms = bk_median_ms(run_read, &c, 30);
    BK_CUDA(cudaFree((void *)c.x));
    BK_CUDA(cudaFree(c.sink));
    return (double)c.n4 * 16 / (ms * 1e6);
}

__global__ void fill_kernel(float *d, size_t n, float lo, float hi, unsigned long long seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        unsigned long long z = seed + 0x9e3779b97f4a7c15ull * (i + 1);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        d[i] = lo + (hi - lo) * (float)((z >> 40) * 0x1.0p-24);
    }
}
void bk_fill_random(float *d, size_t n, float lo, float hi, unsigned long long seed)
{
    fill_kernel<<<1024, 256>>>(d, n, lo, hi, seed);
    BK_CUDA(cudaGetLastError());
    BK_CUDA(cudaDeviceSynchronize());
}

FILE *bk_csv_open(const char *chapter, const char *columns)
{
    const char *gpu = getenv("BOOK_GPU") ? getenv("BOOK_GPU") : "h200";
    char path[512];
    snprintf(path, sizeof path, "figures/data/%s/%s.csv", gpu, chapter);
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); exit(1); }
    cudaDeviceProp p;
    int drv = 0, rt = 0;
    BK_CUDA(cudaGetDeviceProperties(&p, 0));
    BK_CUDA(cudaDriverGetVersion(&drv));
    BK_CUDA(cudaRuntimeGetVersion(&rt));
    char date[32];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    if (getenv("BOOK_DATE")) snprintf(date, sizeof date, "%s", getenv("BOOK_DATE"));
    const char *commit = getenv("BOOK_COMMIT") ? getenv("BOOK_COMMIT") : "unknown";
    const char *nvdrv = getenv("BOOK_DRIVER") ? getenv("BOOK_DRIVER") : "unknown";
    fprintf(f, "# gpu: %s (%d SMs)\n# driver: %s (CUDA %d.%d)\n# cuda runtime: %d.%d\n# date: %s\n# commit: %s\n",
            p.name, p.multiProcessorCount, nvdrv, drv / 1000, drv % 1000 / 10, rt / 1000, rt % 1000 / 10,
            date, commit);
    fprintf(f, "%s\n", columns);
    printf("bench: writing %s\n", path);
    return f;
}
