// carve.h -- one workspace cut into aligned slices, or its size only.
// Written by the scan chapter; every chapter with a workspace shares it.
#ifndef BOOK_CARVE_H
#define BOOK_CARVE_H
#include <stddef.h>
#include <stdint.h>

typedef struct {
    char *base;                   // the workspace; NULL: count bytes only
    size_t used;                  // bytes taken so far
    int overflow;                 // a size passed SIZE_MAX
} book_carve;

// A slice of bytes at the next multiple of align (a power of two),
// rounded up to whole units of align; NULL when base is NULL.
static inline void *book_carve_take(book_carve *c, size_t bytes,
                                    size_t align)
{
    if (c->overflow || c->used > SIZE_MAX - align ||
        bytes > SIZE_MAX - align) {
        c->overflow = 1;
        return NULL;
    }
    const size_t at = (c->used + align - 1) & ~(align - 1);
    const size_t len = (bytes + align - 1) & ~(align - 1);
    if (len > SIZE_MAX - at) {
        c->overflow = 1;
        return NULL;
    }
    c->used = at + len;
    return c->base ? c->base + at : NULL;
}
// The bytes the layout needs; 0 when it overflowed.
static inline size_t book_carve_size(const book_carve *c)
{
    return c->overflow ? 0 : c->used;
}
#endif
