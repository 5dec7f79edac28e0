// tree.cu -- root-to-leaf numbers by pointer jumping.
#include "common/book.h"
#include "interview/tree.h"

// <<Start every node at its parent>>
constexpr int TREE_ROOT = -1, TREE_APART = -2;  // the two tops of a chain
__global__ void tree_init_kernel(const unsigned char *val, int n,
                                 unsigned long long *M,
                                 unsigned long long *S, int *A)
{
    size_t v = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= (size_t)n) return;
    M[v] = 1; S[v] = val[v];                     // a top's, for now
    A[v] = v == 0 ? TREE_ROOT : TREE_APART;
}
__global__ void tree_link_kernel(const int *left, const int *right, int n,
                                 unsigned long long *M, int *A)
{
    size_t p = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= (size_t)n) return;
    int c[2] = {left[p], right[p]};
    for (int k = 0; k < 2; k++)
        if (c[k] > 0 && c[k] < n) { A[c[k]] = (int)p; M[c[k]] = 10; }
}

// <<Jump every node to its ancestor's ancestor>>
__global__ void tree_jump_kernel(int n, const unsigned long long *M,
                                 const unsigned long long *S, const int *A,
                                 unsigned long long *M2,
                                 unsigned long long *S2, int *A2)
{
    size_t v = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= (size_t)n) return;
    int a = A[v];
    if (a < 0) { M2[v] = M[v]; S2[v] = S[v]; A2[v] = a; return; }
    M2[v] = M[a] * M[v];                          // mod 2^64
    S2[v] = S[a] * M[v] + S[v];
    A2[v] = A[a];
}

// <<Add the leaves' numbers>>
// Leaves whose chain ended at node 0 (A = TREE_ROOT after the rounds).
__global__ void tree_sum_kernel(const int *left, const int *right, int n,
                                const unsigned long long *S, const int *A,
                                unsigned long long *sum)
{
    unsigned long long mine = 0;
    for (size_t v = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
         v < (size_t)n; v += (size_t)gridDim.x * blockDim.x) {
        int l = left[v], r = right[v];
        bool leaf = !(l > 0 && l < n) && !(r > 0 && r < n);
        if (leaf && A[v] == TREE_ROOT) mine += S[v];
    }
    for (int o = 16; o > 0; o /= 2)
        mine += __shfl_xor_sync(0xffffffffu, mine, o);
    if (threadIdx.x % 32 == 0 && mine) atomicAdd(sum, mine);
}

// <<Launch the pointer jumping>>
extern "C" cudaError_t tree_path_sum(const int *left, const int *right,
                                     const unsigned char *val, size_t n,
                                     void *work, unsigned long long *sum,
                                     cudaStream_t stream)
{
    if (!left || !right || !val || !work || !sum)
        return cudaErrorInvalidValue;
    if (n == 0 || n >= ((size_t)1 << 31) || !is_aligned(work, 8))
        return cudaErrorInvalidValue;
    BOOK_CLEAR_TO_LAUNCH();
    unsigned long long *M[2], *S[2];
    M[0] = (unsigned long long *)work; M[1] = M[0] + n;
    S[0] = M[1] + n; S[1] = S[0] + n;
    int *A[2] = {(int *)(S[1] + n), (int *)(S[1] + n) + n};
    int nn = (int)n, r = 0;
    unsigned grid = (unsigned)ceil_div(n, 256);
    tree_init_kernel<<<grid, 256, 0, stream>>>(val, nn, M[0], S[0], A[0]);
    tree_link_kernel<<<grid, 256, 0, stream>>>(left, right, nn, M[0], A[0]);
    for (size_t reach = 1; reach < n; reach *= 2, r ^= 1)
        tree_jump_kernel<<<grid, 256, 0, stream>>>(nn, M[r], S[r], A[r],
                                                   M[r ^ 1], S[r ^ 1],
                                                   A[r ^ 1]);
    BOOK_TRY(cudaMemsetAsync(sum, 0, sizeof *sum, stream));
    unsigned sgrid = grid < 1024 ? grid : 1024;
    tree_sum_kernel<<<sgrid, 256, 0, stream>>>(left, right, nn, S[r], A[r],
                                               sum);
    return cudaGetLastError();
}
