/* variants.h -- the threads chapter's element-wise adds, one list for the
 * test (test_threads.c) and the benchmark (bench_threads.cu), each
 * X(launcher):
 *   THREADS_VECTOR_ADDS  c = a + b on n floats: (a, b, c, n);
 *   THREADS_MATRIX_ADDS  c = a + b on rows x cols: (a, b, c, rows, cols).
 * The benchmark's rows are the launchers' names, the matrix adds' with
 * the shape they ran on (madd_16384x16384). */
#ifndef THREADS_VARIANTS_H
#define THREADS_VARIANTS_H
#define THREADS_VECTOR_ADDS(X) X(vadd) X(vadd_float4) X(vadd_grid_stride)
#define THREADS_MATRIX_ADDS(X) X(madd) X(madd_float4)
#endif
