/*
 * pzf_array.h - arrays of the model that double when full.
 */
#ifndef PZ_PZF_ARRAY_H
#define PZ_PZF_ARRAY_H

#include <stddef.h>

/*
 * Grow the array items of *cap elements of elem_size bytes: to first elements when it
 * has none, else to twice as many.  Returns the new array with *cap updated, or NULL
 * (out of memory; items and *cap unchanged).  New elements are not initialised.
 */
void *pzf_array_grow(void *items, size_t *cap, size_t elem_size, size_t first);

#endif
