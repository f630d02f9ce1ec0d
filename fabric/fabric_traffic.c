/*
 * fabric_traffic.c - flow-level traffic (fabric_traffic.h): the flows, the
 * XmitWait their rates cause, and the counters that move with them in real
 * time.  Paths are fabric_traffic_path.c's, rates fabric_traffic_rates.c's
 * (tr_solve() runs both after a change).
 *
 * XmitWait: an egress port with a flow blocked downstream of it waits for
 * the time it does not send, (1 - utilisation) x 1e6 ticks per second.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabric_internal.h"
#include "fabric_repath.h"
#include "fabric_traffic_internal.h"
#include "pzf_array.h"
#include "pzf_log.h"

/* ---- creation, lookup ---- */

/* The counters hook: bring the counters up to date before a read. */
static void tr_counters_hook(void *arg, unsigned port);

/* The traffic state of f, created on first use (with the nodes' hooks); NULL on OOM. */
static struct fabric_traffic *tr_get(struct fabric *f)
{
    struct fabric_traffic *t = f->traffic;

    if (t)
        return t;
    t = calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    t->ca_rate = calloc(f->num_nodes ? f->num_nodes : 1, sizeof(*t->ca_rate));
    if (!t->ca_rate) {
        free(t);
        return NULL;
    }
    t->next_id = 1;
    for (size_t i = 0; i < f->num_nodes; i++)
        board_mem_set_counters_hook(f->nodes[i].bm, tr_counters_hook, &f->nodes[i]);
    f->traffic = t;
    return t;
}

void fabric_traffic_destroy(struct fabric_traffic *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->num_flows; i++)
        free(t->flows[i]);
    free(t->flows);
    free(t->ca_rate);
    free(t->waits);
    free(t->refs);
    free(t);
}

/* ---- XmitWait ---- */

/* The wait entry of (node, port), added if new; NULL on OOM. */
static struct tr_wait *tr_wait_slot(struct fabric_traffic *t, size_t *cap, uint32_t node,
                                    uint8_t port)
{
    for (size_t i = 0; i < t->num_waits; i++)
        if (t->waits[i].node == node && t->waits[i].port == port)
            return &t->waits[i];
    if (t->num_waits == *cap) {
        struct tr_wait *w = pzf_array_grow(t->waits, cap, sizeof(*w), 16);

        if (!w)
            return NULL;
        t->waits = w;
    }
    memset(&t->waits[t->num_waits], 0, sizeof(t->waits[0]));
    t->waits[t->num_waits].node = node;
    t->waits[t->num_waits].port = port;
    return &t->waits[t->num_waits++];
}

/*
 * The XmitWait rates of one egress link (resource r): a link carrying a
 * flow blocked downstream of it waits (1 - sent / capacity) of the time;
 * a VL with such a flow waits while it does not send.
 */
static int tr_wait_link(struct fabric_traffic *t, const struct tr_solver *s, size_t r, size_t *cap)
{
    double sent = 0, vl_sent[BOARD_NUM_VLS] = {0}, c = s->res[r].cap;
    unsigned blocked_vls = 0;
    struct tr_wait *w;

    for (size_t i = 0; i < t->num_flows; i++) {
        const struct tr_flow *fl = t->flows[i];

        for (unsigned k = 0; fl->routed && k < fl->num_hops; k++) {
            if (tr_link_key(&fl->hops[k]) != s->res[r].key)
                continue;
            sent += fl->x;
            vl_sent[fl->hops[k].vl] += fl->x;
            if (fl->beta > (int)k && fl->x > 0)
                blocked_vls |= 1u << fl->hops[k].vl;
        }
    }
    if (!blocked_vls || sent >= c * (1 - TR_EPS))
        return 0;
    w = tr_wait_slot(t, cap, (uint32_t)(s->res[r].key >> 8), (uint8_t)s->res[r].key);
    if (!w)
        return -ENOMEM;
    w->per_s = tr_round((1 - sent / c) * (TR_NS / FABRIC_WAIT_TICK_NS));
    for (unsigned v = 0; v < BOARD_NUM_VLS; v++)
        if (blocked_vls & (1u << v))
            w->vl_per_s[v] = tr_round((1 - vl_sent[v] / c) * (TR_NS / FABRIC_WAIT_TICK_NS));
    return 0;
}

/* Recompute the waiting ports from the solved rates (remainders start over). */
static int tr_waits(struct fabric_traffic *t, const struct tr_solver *s)
{
    size_t cap = t->num_waits;

    t->num_waits = 0;
    for (size_t r = 0; r < s->num_res; r++) {
        if ((s->res[r].key & 0xFF) == 0)
            continue; /* a CA sink, not a port */
        if (tr_wait_link(t, s, r, &cap))
            return -ENOMEM;
    }
    return 0;
}

static void tr_index(struct fabric_traffic *t, uint64_t now_ns);

/* Recompute every flow's rate and the waits from the current paths (counters are at now_ns). */
static void tr_solve(struct fabric *f, struct fabric_traffic *t, uint64_t now_ns)
{
    struct tr_solver s = {0};

    if (tr_rates_solve(t->flows, t->num_flows, t->ca_rate, &s) || tr_waits(t, &s)) {
        pzf_log(f->verbose, PZF_LOG_ERROR, "traffic: out of memory, flows stopped");
        for (size_t i = 0; i < t->num_flows; i++)
            t->flows[i]->x = 0;
        t->num_waits = 0;
    }
    for (size_t i = 0; i < t->num_flows; i++) {
        struct tr_flow *fl = t->flows[i];

        fl->rate_bps = fl->routed && fl->x > 0 ? tr_round(fl->x) : 0;
    }
    tr_solver_free(&s);
    tr_index(t, now_ns);
}

/* ---- counters ---- */

/* Count words and pkts of flow fl on link k: Xmit at its sender, Rcv at its receiver. */
static void tr_count(struct fabric *f, const struct tr_flow *fl, unsigned k, uint64_t words,
                     uint64_t pkts)
{
    const struct fabric_flow_hop *h = &fl->hops[k];
    struct fabric_node *tx = &f->nodes[h->tx_node], *rx = &f->nodes[h->rx_node];
    struct board_port_counters *c = board_mem_counters(tx->bm, h->tx_port);
    struct board_port_counters *d = board_mem_counters(rx->bm, h->rx_port);

    if (!c || !d)
        return; /* a counter block could not be allocated: nothing to count in */
    board_mem_counter_add(tx->bm, &c->xmit_data, words);
    board_mem_counter_add(tx->bm, &c->xmit_pkts, pkts);
    board_mem_counter_add(tx->bm, &c->unicast_xmit_pkts, pkts);
    board_mem_counter_add(tx->bm, &c->xmit_data_sl[fl->sl], words);
    board_mem_counter_add(rx->bm, &d->rcv_data, words);
    board_mem_counter_add(rx->bm, &d->rcv_pkts, pkts);
    board_mem_counter_add(rx->bm, &d->unicast_rcv_pkts, pkts);
    board_mem_counter_add(rx->bm, &d->rcv_data_sl[fl->sl], words);
    board_mem_counter_add(rx->bm, &d->op_rcv_pkts, pkts);
    board_mem_counter_add(rx->bm, &d->op_rcv_data, words);
    board_mem_counter_add(rx->bm, &d->vl_op_packets[h->vl], pkts);
    board_mem_counter_add(rx->bm, &d->vl_op_data[h->vl], words);
}

/* Take whole units of unit bit-ns (or tick-ns) out of *acc; returns how many. */
static uint64_t tr_take(tr_u128 *acc, tr_u128 unit)
{
    tr_u128 n = *acc / unit;

    *acc -= n * unit;
    return (uint64_t)n;
}

/* Advance link k of flow fl to now_ns at its rate. */
static void tr_hop_advance(struct fabric *f, struct tr_flow *fl, unsigned k, uint64_t now_ns)
{
    struct tr_hop_acc *a = &fl->acc[k];
    uint64_t words, pkts;
    tr_u128 bits;

    if (now_ns <= a->last_ns)
        return;
    bits = (tr_u128)fl->rate_bps * (now_ns - a->last_ns);
    a->last_ns = now_ns;
    /* Data counters exclude the VCRC: (pkt_bytes - 2) of every pkt_bytes on the wire. */
    a->word_acc += bits * (fl->pkt_bytes - TR_VCRC_BYTES);
    a->pkt_acc += bits;
    words = tr_take(&a->word_acc, (tr_u128)TR_WORD_BITS * TR_NS * fl->pkt_bytes);
    pkts = tr_take(&a->pkt_acc, (tr_u128)fl->pkt_bytes * 8 * TR_NS);
    if (words || pkts)
        tr_count(f, fl, k, words, pkts);
}

/* Advance one waiting port to now_ns. */
static void tr_wait_advance(struct fabric *f, struct tr_wait *w, uint64_t now_ns)
{
    struct fabric_node *n = &f->nodes[w->node];
    struct board_port_counters *c = board_mem_counters(n->bm, w->port);
    uint64_t dt_ns;

    if (now_ns <= w->last_ns || !c)
        return; /* no time passed, or no counter block (out of memory) */
    dt_ns = now_ns - w->last_ns;
    w->last_ns = now_ns;
    w->acc += (tr_u128)w->per_s * dt_ns;
    board_mem_counter_add(n->bm, &c->xmit_wait, tr_take(&w->acc, TR_NS));
    for (unsigned v = 0; v < BOARD_NUM_VLS; v++) {
        if (!w->vl_per_s[v])
            continue;
        w->vl_acc[v] += (tr_u128)w->vl_per_s[v] * dt_ns;
        board_mem_counter_add(n->bm, &c->vl_xmit_wait[v], tr_take(&w->vl_acc[v], TR_NS));
    }
}

/* Move every counter to now_ns at the current rates. */
static void tr_advance(struct fabric *f, struct fabric_traffic *t, uint64_t now_ns)
{
    for (size_t i = 0; i < t->num_flows; i++) {
        struct tr_flow *fl = t->flows[i];

        for (unsigned k = 0; fl->routed && fl->rate_bps && k < fl->num_hops; k++)
            tr_hop_advance(f, fl, k, now_ns);
    }
    for (size_t i = 0; i < t->num_waits; i++)
        tr_wait_advance(f, &t->waits[i], now_ns);
}

/* Order references by port. */
static int tr_ref_cmp(const void *a, const void *b)
{
    const struct tr_ref *x = a, *y = b;

    return x->key < y->key ? -1 : x->key > y->key;
}

/*
 * After new rates: every link and wait starts counting at now_ns (all were
 * advanced to it), and the port index for counters reads is rebuilt.
 */
static void tr_index(struct fabric_traffic *t, uint64_t now_ns)
{
    size_t n = t->num_waits;

    for (size_t i = 0; i < t->num_flows; i++) {
        struct tr_flow *fl = t->flows[i];

        for (unsigned k = 0; k < FABRIC_FLOW_HOPS_MAX; k++)
            fl->acc[k].last_ns = now_ns;
        n += fl->routed && fl->rate_bps ? 2 * fl->num_hops : 0;
    }
    for (size_t i = 0; i < t->num_waits; i++)
        t->waits[i].last_ns = now_ns;
    free(t->refs);
    t->num_refs = 0;
    t->refs = malloc((n + 1) * sizeof(*t->refs));
    if (!t->refs)
        return; /* reads then wait for the next tick's advance */
    for (size_t i = 0; i < t->num_flows; i++) {
        const struct tr_flow *fl = t->flows[i];

        for (unsigned k = 0; fl->routed && fl->rate_bps && k < fl->num_hops; k++) {
            const struct fabric_flow_hop *h = &fl->hops[k];

            t->refs[t->num_refs++] = (struct tr_ref){tr_link_key(h), (uint32_t)i, (uint16_t)k};
            t->refs[t->num_refs++] =
                (struct tr_ref){(uint64_t)h->rx_node << 8 | h->rx_port, (uint32_t)i, (uint16_t)k};
        }
    }
    for (size_t i = 0; i < t->num_waits; i++)
        t->refs[t->num_refs++] = (struct tr_ref){(uint64_t)t->waits[i].node << 8 | t->waits[i].port,
                                                 (uint32_t)i, TR_REF_WAIT};
    qsort(t->refs, t->num_refs, sizeof(*t->refs), tr_ref_cmp);
}

/* Advance only what counts at port (node, port): the links and the wait there. */
static void tr_advance_port(struct fabric *f, struct fabric_traffic *t, uint32_t node,
                            unsigned port, uint64_t now_ns)
{
    uint64_t key = (uint64_t)node << 8 | port;
    size_t lo = 0, hi = t->num_refs;

    while (lo < hi) { /* the first reference with this key */
        size_t mid = lo + (hi - lo) / 2;

        if (t->refs[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < t->num_refs && t->refs[lo].key == key; lo++) {
        const struct tr_ref *r = &t->refs[lo];

        if (r->hop == TR_REF_WAIT)
            tr_wait_advance(f, &t->waits[r->index], now_ns);
        else
            tr_hop_advance(f, t->flows[r->index], r->hop, now_ns);
    }
}

/* Cheap: a read brings only that port's counters up to date (ports are read often). */
static void tr_counters_hook(void *arg, unsigned port)
{
    struct fabric_node *n = arg;
    struct fabric_traffic *t = n->f->traffic;

    if (!t || t->busy || !t->num_refs)
        return;
    t->busy = true;
    tr_advance_port(n->f, t, n->index, port, board_now_ns(n->board));
    t->busy = false;
}

/* The current time of the fabric's model: the first node's clock. */
static uint64_t tr_now(const struct fabric *f)
{
    return f->num_nodes ? board_now_ns(f->nodes[0].board) : 0;
}

void fabric_traffic_update(struct fabric *f, uint64_t now_ns)
{
    struct fabric_traffic *t = f->traffic;

    if (!t || t->busy)
        return;
    t->busy = true;
    tr_advance(f, t, now_ns);
    if (t->num_flows && tr_recheck(f, t))
        tr_solve(f, t, now_ns);
    t->busy = false;
}

void fabric_traffic_tick(struct fabric *f)
{
    if (f->traffic && (f->traffic->num_flows || f->traffic->num_waits))
        fabric_traffic_update(f, tr_now(f));
}

/* Counters up to now, then new paths and rates after a change of flows or rates. */
static void tr_changed(struct fabric *f, struct fabric_traffic *t)
{
    uint64_t now = tr_now(f);

    t->busy = true;
    tr_advance(f, t, now);
    tr_recheck(f, t);
    tr_solve(f, t, now);
    t->busy = false;
}

/* ---- lanes (dFtree) ---- */

/*
 * A new flow on the fast lane to a destination its host knows as a
 * hot-spot starts on the slow lane (the host's stack would open the QP
 * there); logged as a move.
 */
static void tr_start_lane(struct fabric *f, struct tr_flow *fl)
{
    unsigned fast, slow;

    fabric_repath_lanes(f, &fast, &slow);
    if (fl->sl != fast || !fabric_repath_is_hot(f, fl->src, fl->dst))
        return;
    fl->sl = (uint8_t)slow;
    fl->repathed = true;
    fl->moved_ns = tr_now(f);
    pzf_log(f->verbose, PZF_LOG_INFO,
            "lane: flow %u %s -> %s: SL %u -> %u (slow lane: new flow to a hot-spot) at %llu ns",
            fl->id, f->nodes[fl->src].name, f->nodes[fl->dst].name, fast, slow,
            (unsigned long long)fl->moved_ns);
}

/* Move fl to the other lane if it belongs there; returns whether it moved. */
static bool tr_move_lane(struct fabric *f, struct tr_flow *fl, bool slow, uint16_t lid,
                         uint64_t now)
{
    unsigned fast_sl, slow_sl, from = fl->sl;

    fabric_repath_lanes(f, &fast_sl, &slow_sl);
    if (slow && fl->sl == fast_sl && !fl->repathed) {
        fl->sl = (uint8_t)slow_sl;
        fl->repathed = true;
    } else if (!slow && fl->repathed) {
        fl->sl = (uint8_t)fast_sl;
        fl->repathed = false;
    } else {
        return false;
    }
    fl->moved_ns = now;
    pzf_log(f->verbose, PZF_LOG_INFO,
            "lane: flow %u %s -> %s: SL %u -> %u (%s lane, hot-spot LID %u) at %llu ns", fl->id,
            f->nodes[fl->src].name, f->nodes[fl->dst].name, from, fl->sl, slow ? "slow" : "fast",
            lid, (unsigned long long)now);
    return true;
}

unsigned fabric_flows_move_lane(struct fabric *f, size_t src, uint16_t lid, bool slow)
{
    struct fabric_traffic *t = f->traffic;
    uint64_t now = tr_now(f);
    unsigned moved = 0;

    if (!t || t->busy)
        return 0;
    tr_advance(f, t, now); /* what they sent until now counts on their old SL */
    for (size_t i = 0; i < t->num_flows; i++) {
        struct tr_flow *fl = t->flows[i];

        if (fl->src == src && fabric_lid_is_mine(&f->nodes[fl->dst], 1, lid))
            moved += tr_move_lane(f, fl, slow, lid, now);
    }
    if (moved)
        tr_changed(f, t);
    return moved;
}

uint64_t fabric_traffic_now(const struct fabric *f)
{
    return tr_now(f);
}

/* ---- the API ---- */

int fabric_flow_add(struct fabric *f, size_t src, size_t dst, uint64_t demand_bps, unsigned sl,
                    unsigned *id)
{
    struct fabric_traffic *t;
    struct tr_flow *fl;

    if (src >= f->num_nodes || dst >= f->num_nodes || src == dst || f->nodes[src].is_switch ||
        f->nodes[dst].is_switch || demand_bps == 0 || demand_bps > FABRIC_FLOW_BPS_MAX ||
        sl >= BOARD_NUM_SLS)
        return -EINVAL;
    t = tr_get(f);
    if (!t)
        return -ENOMEM;
    if (t->num_flows == FABRIC_FLOWS_MAX)
        return -ENOSPC;
    if (t->num_flows == t->cap_flows) {
        struct tr_flow **nf = pzf_array_grow(t->flows, &t->cap_flows, sizeof(*nf), 8);

        if (!nf)
            return -ENOMEM;
        t->flows = nf;
    }
    fl = calloc(1, sizeof(*fl));
    if (!fl)
        return -ENOMEM;
    fl->id = t->next_id++;
    fl->src = (uint32_t)src;
    fl->dst = (uint32_t)dst;
    fl->sl = (uint8_t)sl;
    fl->demand_bps = demand_bps;
    fl->why = "";
    tr_start_lane(f, fl);
    tr_advance(f, t, tr_now(f)); /* before the new flow exists */
    t->flows[t->num_flows++] = fl;
    tr_changed(f, t);
    *id = fl->id;
    pzf_log(f->verbose, PZF_LOG_INFO, "flow %u: %s -> %s sl %u, %llu b/s: %s", fl->id,
            f->nodes[src].name, f->nodes[dst].name, fl->sl, (unsigned long long)demand_bps,
            fl->routed ? "routed" : fl->why);
    return 0;
}

int fabric_flow_del(struct fabric *f, unsigned id)
{
    struct fabric_traffic *t = f->traffic;

    for (size_t i = 0; t && i < t->num_flows; i++) {
        if (t->flows[i]->id != id)
            continue;
        tr_advance(f, t, tr_now(f)); /* what it sent until now counts */
        free(t->flows[i]);
        memmove(&t->flows[i], &t->flows[i + 1], (t->num_flows - i - 1) * sizeof(t->flows[0]));
        t->num_flows--;
        tr_changed(f, t);
        pzf_log(f->verbose, PZF_LOG_INFO, "flow %u removed", id);
        return 0;
    }
    return -ENOENT;
}

size_t fabric_flow_count(const struct fabric *f)
{
    return f->traffic ? f->traffic->num_flows : 0;
}

int fabric_flow_get(struct fabric *f, size_t index, struct fabric_flow_info *info)
{
    const struct tr_flow *fl;

    if (!f->traffic || index >= f->traffic->num_flows)
        return -ENOENT;
    if (index == 0)
        fabric_traffic_update(f, tr_now(f)); /* paths as they are now, once per listing */
    fl = f->traffic->flows[index];
    memset(info, 0, sizeof(*info));
    info->id = fl->id;
    info->src = fl->src;
    info->dst = fl->dst;
    info->sl = fl->sl;
    info->repathed = fl->repathed;
    info->moved_ns = fl->moved_ns;
    info->demand_bps = fl->demand_bps;
    info->rate_bps = fl->routed ? fl->rate_bps : 0;
    info->routed = fl->routed;
    info->why = fl->why;
    info->num_hops = fl->num_hops;
    memcpy(info->hops, fl->hops, fl->num_hops * sizeof(fl->hops[0]));
    return 0;
}

int fabric_ca_rate_set(struct fabric *f, size_t node, uint64_t bps)
{
    struct fabric_traffic *t;

    if (node >= f->num_nodes || f->nodes[node].is_switch || bps > FABRIC_FLOW_BPS_MAX)
        return -EINVAL;
    t = tr_get(f);
    if (!t)
        return -ENOMEM;
    tr_advance(f, t, tr_now(f));
    t->ca_rate[node] = bps;
    tr_changed(f, t);
    pzf_log(f->verbose, PZF_LOG_INFO, "%s receives at %llu b/s%s", f->nodes[node].name,
            (unsigned long long)bps, bps ? "" : " (its link rate)");
    return 0;
}

uint64_t fabric_ca_rate(const struct fabric *f, size_t node)
{
    return f->traffic && node < f->num_nodes ? f->traffic->ca_rate[node] : 0;
}

int fabric_port_traffic(struct fabric *f, size_t node, unsigned port, uint64_t *bps,
                        uint64_t *wait_per_s)
{
    const struct fabric_traffic *t;

    if (node >= f->num_nodes || port > f->nodes[node].num_ports)
        return -EINVAL;
    *bps = 0;
    *wait_per_s = 0;
    fabric_traffic_update(f, tr_now(f));
    t = f->traffic;
    for (size_t i = 0; t && i < t->num_flows; i++) {
        const struct tr_flow *fl = t->flows[i];

        for (unsigned k = 0; fl->routed && k < fl->num_hops; k++)
            if (fl->hops[k].tx_node == node && fl->hops[k].tx_port == port)
                *bps += fl->rate_bps;
    }
    for (size_t i = 0; t && i < t->num_waits; i++)
        if (t->waits[i].node == node && t->waits[i].port == port)
            *wait_per_s = t->waits[i].per_s;
    return 0;
}
