/* exkit.h -- what the exercise drivers (tests/NN-slug/ex_*.c) share.
 *
 * A driver tests one exercise's launcher, declared in
 * exercises/NN-slug/exercises.h.  It is built twice: with the student's
 * file exercises/NN-slug/NAME.cu (make exercise EX=NN-slug/NAME) and with
 * the solution exercises/NN-slug/solutions/NAME.cu (make test).  The
 * Makefile names the exercise and the file in EX_NAME and EX_FILE.
 *
 * A stub returns cudaErrorNotYetImplemented from every call.  The checks
 * below fail on that with a message naming the exercise and its file, so
 * a stub fails cleanly: the CPU-side test that bad arguments are refused
 * fails even without a GPU, and every GPU test fails at its first call. */
#ifndef EXKIT_H
#define EXKIT_H
#include "testkit.h"
#include <stdio.h>

#ifndef EX_NAME
#error "EX_NAME: build the exercise drivers with make exercise or make test"
#endif

static inline int ex_stub(cudaError_t e)
{
    if (e != cudaErrorNotYetImplemented) return 0;
    print_error("exercise %s is not written yet: %s returns "
                "cudaErrorNotYetImplemented (its TODO)\n", EX_NAME, EX_FILE);
    return 1;
}
/* A call that must succeed. */
static inline void ex_cuda_ok(cudaError_t e, const char *what,
                              const char *file, int line)
{
    if (ex_stub(e)) fail();
    tk_cuda_ok(e, what, file, line);
}
#define EX_CUDA(call) ex_cuda_ok((call), #call, __FILE__, __LINE__)
/* A call that must be refused with cudaErrorInvalidValue. */
static inline void ex_refused(cudaError_t e, const char *what,
                              const char *file, int line)
{
    if (ex_stub(e)) fail();
    if (e != cudaErrorInvalidValue) {
        print_error("%s:%d: %s returned %s; expected cudaErrorInvalidValue "
                    "(a precondition of exercise %s)\n", file, line, what,
                    cudaGetErrorName(e), EX_NAME);
        fail();
    }
}
#define EX_REFUSED(call) ex_refused((call), #call, __FILE__, __LINE__)
/* Fake device pointers for the CPU-side argument tests: a launcher must
 * refuse bad arguments before it touches them. */
#define EX_FAKE(type, addr) ((type *)(uintptr_t)(addr))
/* The driver's main: runs the tests it names (cmocka_unit_test(NAME), ...)
 * as one group under the exercise's name, as tk_run_tests does. */
#define EX_MAIN(...)                                                       \
    int main(void)                                                         \
    {                                                                      \
        const struct CMUnitTest tests[] = {__VA_ARGS__};                   \
        return tk_run_tests(EX_NAME, tests);                               \
    }
#endif
