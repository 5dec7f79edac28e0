// sort.cu -- the size of the sort's temporary storage.
#include "sort/sort.h"
#include "sort/temp.cuh"
extern "C" size_t sort_temp_bytes(size_t n, size_t key_bytes, int values)
{
    if (n > SORT_MAX_N || (key_bytes != 4 && key_bytes != 8)) return 0;
    book_carve c = {NULL, 0, 0};
    return sort_layout(&c, n, key_bytes, values != 0).total;
}
