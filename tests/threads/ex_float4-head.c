/* ex_float4-head.c -- exercise 3 of the threads chapter, vadd_float4_head:
 * exact on the book's ladder of sizes at every 4-byte offset from a 16-byte
 * boundary (the same for a, b and c), and the pointers it must refuse. */
#include "ex_vadd.h"
#include "threads/threads.h"
#include "threads/exercises.h"

static void float4_head_arguments(void **s)
{
    (void)s;
    float *p = EX_FAKE(float, 256), *q = EX_FAKE(float, 260);
    float *odd = EX_FAKE(float, 258);
    EX_REFUSED(vadd_float4_head(NULL, p, p, 10, 0));
    EX_REFUSED(vadd_float4_head(p, NULL, p, 10, 0));
    EX_REFUSED(vadd_float4_head(p, p, NULL, 10, 0));
    EX_REFUSED(vadd_float4_head(p, q, p, 10, 0));     /* different mod 16 */
    EX_REFUSED(vadd_float4_head(p, p, q, 10, 0));
    EX_REFUSED(vadd_float4_head(odd, odd, odd, 10, 0)); /* not float-aligned */
    EX_CUDA(vadd_float4_head(q, q, q, 0, 0));         /* nothing to do */
}

static void float4_head_all_sizes_and_offsets(void **s)
{
    (void)s;
    TK_REQUIRE_GPU();
    for (tk_sweep w = tk_sweep_start(10000001, 0); tk_sweep_next(&w);)
        for (size_t off = 0; off < 4; off++)
            ex_vadd_check(vadd_float4_head, w.n, off, off, off, w.round);
}

EX_MAIN(cmocka_unit_test(float4_head_arguments),
        cmocka_unit_test(float4_head_all_sizes_and_offsets))
