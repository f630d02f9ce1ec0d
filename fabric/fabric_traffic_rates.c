/*
 * fabric_traffic_rates.c - the rate solver of the traffic model: pure
 * logic, flows with their paths in, rates out (no fabric, no counters).
 *
 * Max-min fair sharing of the egress links (their data rate) and of the
 * CAs' receive rates, capped by the demands; then every switch ingress
 * buffer (node, in_port, VL), a FIFO, that holds a flow blocked downstream
 * drains all its flows in proportion to what they offer, so flows sharing
 * it are slowed too; repeated until nothing changes.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "fabric_traffic_internal.h"

/* No libm for one llround. */
uint64_t tr_round(double v)
{
    return v > 0 ? (uint64_t)(v + 0.5) : 0;
}

/* ---- the solver: resources ---- */

/* The index of resource key, added with capacity cap if new; returns -1 on OOM. */
static long tr_res_find(struct tr_solver *s, uint64_t key, double cap)
{
    size_t h = (size_t)(key * 0x9E3779B97F4A7C15ull) & (s->hash_size - 1);

    while (s->hash[h]) {
        if (s->res[s->hash[h] - 1].key == key)
            return (long)s->hash[h] - 1;
        h = (h + 1) & (s->hash_size - 1);
    }
    s->res[s->num_res] = (struct tr_res){.key = key, .cap = cap};
    s->hash[h] = (unsigned)++s->num_res;
    return (long)s->num_res - 1;
}

uint64_t tr_link_key(const struct fabric_flow_hop *h)
{
    return (uint64_t)h->tx_node << 8 | h->tx_port;
}

/* Build the resources of the routed flows; returns 0 or -ENOMEM. */
static int tr_solver_build(struct tr_flow *const *flows, size_t num_flows, const uint64_t *ca_rate,
                           struct tr_solver *s)
{
    size_t n = 0;

    for (size_t i = 0; i < num_flows; i++)
        n += flows[i]->routed ? flows[i]->num_hops + 1 : 0;
    s->hash_size = 16;
    while (s->hash_size < 2 * n + 2)
        s->hash_size *= 2;
    s->res = calloc(n + 1, sizeof(*s->res));
    s->idx = calloc(n + 1, sizeof(*s->idx));
    s->hash = calloc(s->hash_size, sizeof(*s->hash));
    if (!s->res || !s->idx || !s->hash)
        return -ENOMEM;
    for (size_t i = 0; i < num_flows; i++) {
        struct tr_flow *fl = flows[i];
        uint64_t sink;

        fl->res_first = (unsigned)s->num_idx;
        fl->num_res = 0;
        if (!fl->routed)
            continue;
        for (unsigned k = 0; k < fl->num_hops; k++)
            s->idx[s->num_idx++] =
                (unsigned)tr_res_find(s, tr_link_key(&fl->hops[k]), (double)fl->hop_bps[k]);
        sink = ca_rate[fl->dst];
        if (sink && sink < fl->hop_bps[fl->num_hops - 1])
            s->idx[s->num_idx++] = (unsigned)tr_res_find(s, (uint64_t)fl->dst << 8, (double)sink);
        fl->num_res = (unsigned)s->num_idx - fl->res_first;
    }
    return 0;
}

void tr_solver_free(struct tr_solver *s)
{
    free(s->res);
    free(s->idx);
    free(s->hash);
}

/* ---- the solver: max-min fair sharing ---- */

/*
 * Progressive filling: raise all unfrozen flows together until a resource
 * saturates or a flow reaches its cap; freeze those; repeat.  Sets x and
 * beta (the position of the bottleneck: the most upstream saturated
 * resource, or cap_origin for a flow held by its cap).
 */
static void tr_max_min(struct tr_flow *const *flows, size_t num_flows, struct tr_solver *s)
{
    size_t active = 0;

    for (size_t r = 0; r < s->num_res; r++) {
        s->res[r].rem = s->res[r].cap;
        s->res[r].sat = false;
    }
    for (size_t i = 0; i < num_flows; i++) {
        struct tr_flow *fl = flows[i];

        fl->x = 0;
        fl->beta = TR_NO_BOTTLENECK;
        fl->active = fl->routed && fl->cap > 0;
        active += fl->active;
    }
    while (active) {
        double inc = INFINITY;

        for (size_t r = 0; r < s->num_res; r++)
            s->res[r].n_active = 0;
        for (size_t i = 0; i < num_flows; i++) {
            struct tr_flow *fl = flows[i];

            if (!fl->active)
                continue;
            for (unsigned r = 0; r < fl->num_res; r++)
                s->res[s->idx[fl->res_first + r]].n_active++;
            if (fl->cap - fl->x < inc)
                inc = fl->cap - fl->x;
        }
        for (size_t r = 0; r < s->num_res; r++)
            if (s->res[r].n_active && s->res[r].rem / s->res[r].n_active < inc)
                inc = s->res[r].rem / s->res[r].n_active;
        if (inc < 0)
            inc = 0;
        for (size_t r = 0; r < s->num_res; r++) {
            s->res[r].rem -= inc * s->res[r].n_active;
            s->res[r].sat = s->res[r].rem <= TR_EPS * s->res[r].cap;
        }
        for (size_t i = 0; i < num_flows; i++) {
            struct tr_flow *fl = flows[i];

            if (!fl->active)
                continue;
            fl->x += inc;
            for (unsigned r = 0; r < fl->num_res && fl->active; r++) {
                if (s->res[s->idx[fl->res_first + r]].sat) {
                    fl->beta = (int)r; /* resources are in path order, the sink last */
                    fl->active = false;
                }
            }
            if (fl->active && fl->cap - fl->x <= TR_EPS * fl->cap) {
                fl->beta = fl->cap_origin;
                fl->active = false;
            }
            active -= !fl->active;
        }
    }
}

/* ---- the solver: head-of-line blocking ---- */

/* Order buffer passages by buffer. */
static int tr_buf_cmp(const void *a, const void *b)
{
    const struct tr_buf *x = a, *y = b;

    return x->key < y->key ? -1 : x->key > y->key;
}

/* What flow fl offers into the buffer after hop k: its demand, capped by the links up to k. */
static double tr_offered(const struct tr_flow *fl, unsigned k)
{
    double a = (double)fl->demand_bps;

    for (unsigned j = 0; j <= k; j++)
        if ((double)fl->hop_bps[j] < a)
            a = (double)fl->hop_bps[j];
    return a;
}

/*
 * One buffer's flows b[0..n): if some flow is blocked downstream of it
 * (bottleneck after the link into the buffer), the FIFO drains every flow
 * in proportion to what it offers, at the pace of the most blocked one:
 * cap each flow at s x offered.  Returns true if a cap went down.
 */
static bool tr_hol_buffer(struct tr_buf *b, size_t n)
{
    double s = INFINITY;
    bool changed = false;

    for (size_t i = 0; i < n; i++) {
        const struct tr_flow *fl = b[i].fl;
        double a = tr_offered(fl, b[i].hop);

        if (fl->beta > (int)b[i].hop && a > 0 && fl->x / a < s)
            s = fl->x / a;
    }
    if (s >= 1)
        return false;
    for (size_t i = 0; i < n; i++) {
        struct tr_flow *fl = b[i].fl;
        double cap = s * tr_offered(fl, b[i].hop);

        if (cap < fl->x * (1 - TR_EPS) && cap < fl->cap) {
            fl->cap = cap;
            fl->cap_origin = (int)b[i].hop + 1;
            changed = true;
        }
    }
    return changed;
}

/* The switch ingress buffers the routed flows pass, sorted by buffer; NULL on OOM. */
static struct tr_buf *tr_buffers(struct tr_flow *const *flows, size_t num_flows, size_t *count)
{
    struct tr_buf *b;
    size_t n = 0;

    for (size_t i = 0; i < num_flows; i++)
        n += flows[i]->routed ? flows[i]->num_hops : 0;
    b = calloc(n + 1, sizeof(*b));
    if (!b)
        return NULL;
    n = 0;
    for (size_t i = 0; i < num_flows; i++) {
        struct tr_flow *fl = flows[i];

        for (unsigned k = 0; fl->routed && k < fl->num_hops; k++) {
            const struct fabric_flow_hop *h = &fl->hops[k];

            if (!fl->into_switch[k])
                continue;
            b[n++] = (struct tr_buf){
                .key = (uint64_t)h->rx_node << 16 | (uint64_t)h->rx_port << 8 | h->vl,
                .fl = fl,
                .hop = k,
            };
        }
    }
    qsort(b, n, sizeof(*b), tr_buf_cmp);
    *count = n;
    return b;
}

/* Max-min, then head-of-line caps until a fixed point; returns 0 or -ENOMEM. */
static int tr_rates(struct tr_flow *const *flows, size_t num_flows, struct tr_solver *s)
{
    size_t nb = 0;
    struct tr_buf *b = tr_buffers(flows, num_flows, &nb);

    if (!b)
        return -ENOMEM;
    for (size_t i = 0; i < num_flows; i++) {
        flows[i]->cap = (double)flows[i]->demand_bps;
        flows[i]->cap_origin = TR_NO_BOTTLENECK;
    }
    for (unsigned round = 0; round < TR_HOL_ROUNDS; round++) {
        bool changed = false;

        tr_max_min(flows, num_flows, s);
        for (size_t i = 0, j; i < nb; i = j) {
            for (j = i + 1; j < nb && b[j].key == b[i].key; j++)
                ;
            changed |= tr_hol_buffer(b + i, j - i);
        }
        if (!changed)
            break;
    }
    free(b);
    return 0;
}

int tr_rates_solve(struct tr_flow *const *flows, size_t n, const uint64_t *ca_rate,
                   struct tr_solver *s)
{
    int rc = tr_solver_build(flows, n, ca_rate, s);

    return rc ? rc : tr_rates(flows, n, s);
}
