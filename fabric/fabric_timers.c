/*
 * fabric_timers.c - one deadline heap for the timed work of every
 * in-process node: its SMA (trap resends, port-state scans), its PMA
 * (counter accumulation, sampling sessions) and its congestion monitor.
 *
 * Each node is in the heap at most once, keyed by the earliest of its
 * three deadlines (its own board clock); a node with nothing timed, or
 * served by an external agent, is not in it.  fabric_tick() pops only the
 * nodes whose deadline has passed, so a tick costs O(due · log n), not a
 * walk over the fabric.  Whoever may move a node's deadlines (an SMA or PMA
 * call, a poll, a monitor sample or a configuration change) calls
 * fabric_timer_update() for it afterwards.
 */
#include <errno.h>
#include <stdlib.h>

#include "fabric_internal.h"

#define TIMER_NONE UINT32_MAX /* fabric_node.timer_pos: not in the heap */

/* The earliest time at which node n has timed work; UINT64_MAX if none. */
static uint64_t timer_deadline(const struct fabric_node *n)
{
    if (n->external || !n->node)
        return UINT64_MAX; /* its agent runs its own timers */
    return node_next_deadline(n->node);
}

/* Put node index v at heap slot i. */
static void timer_place(struct fabric *f, size_t i, uint32_t v)
{
    f->timer_heap[i] = v;
    f->nodes[v].timer_pos = (uint32_t)i;
}

/* Move the entry at slot i up while it is earlier than its parent. */
static void timer_sift_up(struct fabric *f, size_t i)
{
    uint32_t v = f->timer_heap[i];
    uint64_t key = f->nodes[v].timer_at;

    while (i > 0) {
        size_t up = (i - 1) / 2;

        if (f->nodes[f->timer_heap[up]].timer_at <= key)
            break;
        timer_place(f, i, f->timer_heap[up]);
        i = up;
    }
    timer_place(f, i, v);
}

/* Move the entry at slot i down while a child is earlier. */
static void timer_sift_down(struct fabric *f, size_t i)
{
    uint32_t v = f->timer_heap[i];
    uint64_t key = f->nodes[v].timer_at;

    for (;;) {
        size_t c = 2 * i + 1;

        if (c >= f->timer_len)
            break;
        if (c + 1 < f->timer_len &&
            f->nodes[f->timer_heap[c + 1]].timer_at < f->nodes[f->timer_heap[c]].timer_at)
            c++;
        if (f->nodes[f->timer_heap[c]].timer_at >= key)
            break;
        timer_place(f, i, f->timer_heap[c]);
        i = c;
    }
    timer_place(f, i, v);
}

/* Take node n out of the heap (if it is in). */
static void timer_remove(struct fabric *f, struct fabric_node *n)
{
    size_t i = n->timer_pos;

    if (i == TIMER_NONE)
        return;
    uint32_t last;

    if (i == TIMER_NONE)
        return;
    n->timer_pos = TIMER_NONE;
    if (i == --f->timer_len)
        return;
    last = f->timer_heap[f->timer_len];
    timer_place(f, i, last);
    timer_sift_up(f, i);
    timer_sift_down(f, f->nodes[last].timer_pos);
}

int fabric_timers_init(struct fabric *f)
{
    size_t cap = f->num_nodes ? f->num_nodes : 1;

    f->timer_heap = calloc(cap, sizeof(*f->timer_heap));
    f->timer_due = calloc(cap, sizeof(*f->timer_due));
    if (!f->timer_heap || !f->timer_due)
        return -ENOMEM;
    f->timer_len = 0;
    for (size_t i = 0; i < f->num_nodes; i++)
        f->nodes[i].timer_pos = TIMER_NONE;
    for (size_t i = 0; i < f->num_nodes; i++)
        fabric_timer_update(f, &f->nodes[i]);
    return 0;
}

void fabric_timers_free(struct fabric *f)
{
    free(f->timer_heap);
    free(f->timer_due);
    f->timer_heap = NULL;
    f->timer_due = NULL;
    f->timer_len = 0;
}

void fabric_timer_update(struct fabric *f, struct fabric_node *n)
{
    uint64_t at = timer_deadline(n);

    if (!f->timer_heap)
        return; /* before fabric_timers_init(): it computes every node */
    if (at == UINT64_MAX) {
        timer_remove(f, n);
        return;
    }
    if (n->timer_pos == TIMER_NONE) {
        n->timer_at = at;
        n->timer_pos = (uint32_t)f->timer_len++;
        f->timer_heap[n->timer_pos] = n->index;
        timer_sift_up(f, n->timer_pos);
    } else if (at != n->timer_at) {
        bool earlier = at < n->timer_at;

        n->timer_at = at;
        if (earlier)
            timer_sift_up(f, n->timer_pos);
        else
            timer_sift_down(f, n->timer_pos);
    }
}

void fabric_timers_all(struct fabric *f)
{
    for (size_t i = 0; i < f->num_nodes; i++)
        fabric_timer_update(f, &f->nodes[i]);
}

uint64_t fabric_next_deadline(const struct fabric *f)
{
    uint64_t node = f->timer_len ? f->nodes[f->timer_heap[0]].timer_at : UINT64_MAX;
    uint64_t agent = fabric_agent_next_deadline(f); /* a request's client timeout */

    return node < agent ? node : agent;
}

size_t fabric_timers_due(struct fabric *f)
{
    size_t n = 0;

    while (f->timer_len) {
        struct fabric_node *top = &f->nodes[f->timer_heap[0]];

        if (top->timer_at > board_now_ns(top->board))
            break;
        f->timer_due[n++] = top->index;
        timer_remove(f, top);
    }
    return n;
}
