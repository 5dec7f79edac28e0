/* ex_drift-aosoa.c -- exercise 3 of the memory chapter, drift_aosoa:
 * x += vx dt, exact against the CPU's fmaf, every other field and every
 * particle past n unchanged, on the book's ladder of sizes. */
#include "exkit.h"
#include "memory/memory.h"
#include "memory/exercises.h"
#include <math.h>
#include <string.h>

static void drift_aosoa_arguments(void **s)
{
    (void)s;
    EX_REFUSED(drift_aosoa(NULL, 10, 0.5f, 0));
    EX_CUDA(drift_aosoa(EX_FAKE(struct particle_block, 1024), 0, 0.5f, 0));
}

static void drift_aosoa_all_sizes(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    const float dt = 0.01f;
    for (tk_sweep sw = tk_sweep_start(10000001, 0); tk_sweep_next(&sw);) {
        size_t n = sw.n, nb = (n + 31) / 32;
        uint64_t seed = sw.seed, st = sw.st;
        size_t bytes = nb * sizeof(struct particle_block);
        struct particle_block *h = tk_malloc(bytes), *got = tk_malloc(bytes);
        tk_fill((float *)h, bytes / sizeof(float), -1.0, 1.0, &st);
        struct particle_block *d = tk_dev_bytes(bytes);
        tk_upload_bytes(d, h, bytes);
        EX_CUDA(drift_aosoa(d, n, dt, 0));
        TK_CUDA(cudaDeviceSynchronize());
        tk_download_bytes(got, d, bytes);
        for (size_t i = 0; i < n; i++)      /* what the kernel changes */
            h[i / 32].x[i % 32] = fmaf(h[i / 32].vx[i % 32], dt,
                                       h[i / 32].x[i % 32]);
        size_t bad = 0;
        for (size_t i = 0; i < 32 * nb; i++) {
            struct particle_block *g = &got[i / 32], *w = &h[i / 32];
            unsigned l = i % 32;
            float gf[8] = {g->x[l], g->y[l], g->z[l], g->vx[l], g->vy[l],
                           g->vz[l], g->mass[l], g->charge[l]};
            float wf[8] = {w->x[l], w->y[l], w->z[l], w->vx[l], w->vy[l],
                           w->vz[l], w->mass[l], w->charge[l]};
            if (memcmp(gf, wf, sizeof gf) != 0 && bad++ < 5)
                print_error("%s n=%zu seed=%llu: particle %zu%s: x %.9g, "
                            "want %.9g\n", EX_NAME, n,
                            (unsigned long long)seed, i,
                            i < n ? "" : " (past n, must not change)",
                            gf[0], wf[0]);
        }
        tk_free(d);
        free(h); free(got);
        if (bad) fail();
    }
}

EX_MAIN(cmocka_unit_test(drift_aosoa_arguments),
        cmocka_unit_test(drift_aosoa_all_sizes))
