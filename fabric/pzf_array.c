/*
 * pzf_array.c - arrays of the model that double when full (pzf_array.h).
 */
#include "pzf_array.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void *pzf_array_grow(void *items, size_t *cap, size_t elem_size, size_t first)
{
    size_t n = *cap ? 2 * *cap : first;
    void *grown;

    if (n < *cap || n > SIZE_MAX / elem_size)
        return NULL;
    grown = realloc(items, n * elem_size);
    if (grown)
        *cap = n;
    return grown;
}

void *pzf_ring_grow(void *items, size_t head, size_t count, size_t *cap, size_t elem_size,
                    size_t first)
{
    size_t old = *cap;
    unsigned char *grown = pzf_array_grow(items, cap, elem_size, first);

    /* The elements that wrapped past the old end follow on from it (*cap >= 2 * old). */
    if (grown && head + count > old)
        memcpy(grown + old * elem_size, grown, (head + count - old) * elem_size);
    return grown;
}
