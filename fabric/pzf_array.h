/*
 * pzf_array.h - arrays of the model that double when full, and ring
 * buffers (FIFO queues) that do.
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

/*
 * Grow the ring items of *cap elements of elem_size bytes, count of them in
 * use from index head on (wrapping at *cap), as pzf_array_grow() does; the
 * elements keep their indices modulo the new *cap (head stays).  Returns the
 * new ring with *cap updated, or NULL (out of memory; items and *cap
 * unchanged).
 */
void *pzf_ring_grow(void *items, size_t head, size_t count, size_t *cap, size_t elem_size,
                    size_t first);

#endif
