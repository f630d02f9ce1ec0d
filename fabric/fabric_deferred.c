/*
 * fabric_deferred.c - the requests handed to external agents that wait for
 * an answer: a binary min-heap on their deadlines, so each may carry its
 * own client's timeout and the earliest is always the one to time out next.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabric_internal.h"

/* Whether entry a must time out before entry b (earlier deadline, then older). */
static bool fabric_deferred_before(const struct fabric_deferred *a, const struct fabric_deferred *b)
{
    return a->deadline_ns != b->deadline_ns ? a->deadline_ns < b->deadline_ns : a->seq < b->seq;
}

/* Swap entries i and j of the heap. */
static void fabric_deferred_swap(struct fabric_deferred_heap *h, size_t i, size_t j)
{
    struct fabric_deferred t = h->items[i];

    h->items[i] = h->items[j];
    h->items[j] = t;
}

/* Move entry i up to its place; returns where it ended. */
static size_t fabric_deferred_up(struct fabric_deferred_heap *h, size_t i)
{
    while (i > 0 && fabric_deferred_before(&h->items[i], &h->items[(i - 1) / 2])) {
        fabric_deferred_swap(h, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
    return i;
}

/* Move entry i down to its place. */
static void fabric_deferred_down(struct fabric_deferred_heap *h, size_t i)
{
    for (;;) {
        size_t first = i, l = 2 * i + 1, r = 2 * i + 2;

        if (l < h->len && fabric_deferred_before(&h->items[l], &h->items[first]))
            first = l;
        if (r < h->len && fabric_deferred_before(&h->items[r], &h->items[first]))
            first = r;
        if (first == i)
            return;
        fabric_deferred_swap(h, i, first);
        i = first;
    }
}

/* Double the heap's room (up to FABRIC_DEFERRED_MAX); returns 0, -ENOSPC or -ENOMEM. */
static int fabric_deferred_grow(struct fabric_deferred_heap *h)
{
    size_t cap = h->cap ? 2 * h->cap : 64;
    struct fabric_deferred *items;

    if (h->cap >= FABRIC_DEFERRED_MAX)
        return -ENOSPC;
    if (cap > FABRIC_DEFERRED_MAX)
        cap = FABRIC_DEFERRED_MAX;
    items = realloc(h->items, cap * sizeof(*items));
    if (!items)
        return -ENOMEM;
    h->items = items;
    h->cap = cap;
    return 0;
}

int fabric_deferred_add(struct fabric_deferred_heap *h, const struct fabric_deferred *d)
{
    int rc;

    if (h->len == h->cap && (rc = fabric_deferred_grow(h)))
        return rc;
    h->items[h->len] = *d;
    h->items[h->len].seq = h->next_seq++;
    fabric_deferred_up(h, h->len++);
    return 0;
}

long fabric_deferred_find(const struct fabric_deferred_heap *h, long client, uint64_t tid)
{
    long found = -1;

    for (size_t i = 0; i < h->len; i++) {
        const struct fabric_deferred *d = &h->items[i];

        if (d->tid != tid || (client >= 0 && d->client != (unsigned long)client))
            continue;
        if (found < 0 || d->seq < h->items[found].seq)
            found = (long)i; /* the oldest of equal TIDs: agents answer in order */
    }
    return found;
}

void fabric_deferred_remove(struct fabric_deferred_heap *h, size_t i, struct fabric_deferred *out)
{
    if (i >= h->len)
        return;
    if (out)
        *out = h->items[i];
    h->items[i] = h->items[--h->len];
    if (i < h->len)
        fabric_deferred_down(h, fabric_deferred_up(h, i));
}

void fabric_deferred_drop_client(struct fabric_deferred_heap *h, unsigned client)
{
    size_t kept = 0;

    for (size_t i = 0; i < h->len; i++)
        if (h->items[i].client != client)
            h->items[kept++] = h->items[i];
    h->len = kept;
    for (size_t i = kept / 2; i-- > 0;)
        fabric_deferred_down(h, i); /* heap order again */
}

uint64_t fabric_deferred_next(const struct fabric_deferred_heap *h)
{
    return h->len ? h->items[0].deadline_ns : UINT64_MAX;
}

void fabric_deferred_free(struct fabric_deferred_heap *h)
{
    free(h->items);
    memset(h, 0, sizeof(*h));
}
