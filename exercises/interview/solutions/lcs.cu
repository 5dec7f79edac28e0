// Solution to exercise 5 of the interview appendix: the LCS length as a
// wavefront.  The table is the edit distance's with another rule:
// L(i, j) = L(i-1, j-1) + 1 where a[i-1] == b[j-1], else the larger of
// L(i-1, j) and L(i, j-1); the first row and column are 0.  The entries
// read are the same three neighbours, on the two previous anti-diagonals,
// so ed_diagonals' three arrays and its kernel a diagonal carry over; only
// the rule and the borders change.
#include "common/book.h"
#include "interview/editdist.h"
#include "interview/exercises.h"

// Diagonal d: entries (i, d - i) for lo <= i <= hi; c1, c2: diagonals
// d - 1 and d - 2, indexed by i.
__global__ void lcs_diagonal_kernel(const char *a, const char *b, int d,
                                    int lo, int hi, const int *c1,
                                    const int *c2, int *c0)
{
    int i = lo + (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i > hi) return;
    int j = d - i;
    if (i == 0 || j == 0) { c0[i] = 0; return; }
    if (a[i - 1] == b[j - 1]) c0[i] = c2[i - 1] + 1;
    else c0[i] = max(c1[i - 1], c1[i]);
}

__global__ void lcs_zero_kernel(int *len) { *len = 0; }

extern "C" cudaError_t lcs_diagonals(const char *a, size_t la, const char *b,
                                     size_t lb, int *work, int *len,
                                     cudaStream_t stream)
{
    if (!len || !work || la > ED_MAX_LEN || lb > ED_MAX_LEN ||
        (la > 0 && !a) || (lb > 0 && !b))
        return cudaErrorInvalidValue;
    if (la > lb) {                                   // a is the shorter
        const char *t = a; a = b; b = t;
        size_t u = la; la = lb; lb = u;
    }
    BOOK_CLEAR_TO_LAUNCH();
    if (la == 0) {
        lcs_zero_kernel<<<1, 1, 0, stream>>>(len);
        return cudaGetLastError();
    }
    int m = (int)la, n = (int)lb;
    int *c[3] = {work, work + m + 1, work + 2 * (m + 1)};
    for (int d = 0; d <= m + n; d++) {
        int lo = d - n > 0 ? d - n : 0, hi = d < m ? d : m;
        unsigned grid = (unsigned)ceil_div((size_t)(hi - lo + 1), 256);
        lcs_diagonal_kernel<<<grid, 256, 0, stream>>>(a, b, d, lo, hi, c[1],
                                                      c[2], c[0]);
        int *t = c[2]; c[2] = c[1]; c[1] = c[0]; c[0] = t;
    }
    BOOK_TRY(cudaGetLastError());
    return cudaMemcpyAsync(len, c[1] + m, sizeof(int),
                           cudaMemcpyDeviceToDevice, stream);
}
