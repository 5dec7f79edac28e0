// sort.cu -- the size of the sort's temporary storage.
#include "sort/sort.h"
#include "sort/temp.cuh"
static size_t temp_bytes(size_t n, size_t key_bytes, int values,
                         int textbook)
{
    if (n > SORT_MAX_N || (key_bytes != 4 && key_bytes != 8)) return 0;
    book_carve c = {NULL, 0, 0};
    return sort_layout(&c, n, key_bytes, values != 0, textbook).total;
}
extern "C" size_t sort_temp_bytes(size_t n, size_t key_bytes, int values)
{
    return temp_bytes(n, key_bytes, values, 1);
}
extern "C" size_t sort_onesweep_temp_bytes(size_t n, size_t key_bytes,
                                           int values)
{
    return temp_bytes(n, key_bytes, values, 0);
}
