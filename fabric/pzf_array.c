/*
 * pzf_array.c - arrays of the model that double when full (pzf_array.h).
 */
#include "pzf_array.h"

#include <stdint.h>
#include <stdlib.h>

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
