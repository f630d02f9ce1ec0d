/*
 * fabric_traffic.c - flow-level traffic (fabric_traffic.h): flows, their
 * LID-routed paths, the fluid rate model with head-of-line blocking, and
 * the counters that move with it in real time.
 *
 * Paths: from the source CA's port 1 through the switches' LFTs (DLID =
 * the destination's port 1 base LID) to the destination CA; every link
 * Active at both ends, SL to VL through each hop's SLtoVLMappingTable.
 *
 * Rates (tr_solve): max-min fair sharing of the egress links (their data
 * rate) and of the CAs' receive rates, capped by the demands; then every
 * switch ingress buffer (node, in_port, VL), a FIFO, that holds a flow
 * blocked downstream drains all its flows in proportion to what they offer,
 * so flows sharing it are slowed too; repeated until nothing changes.
 * XmitWait: an egress port with a flow blocked downstream of it waits for
 * the time it does not send, (1 - utilisation) x 1e6 ticks per second.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fabric_internal.h"
#include "fabric_traffic.h"
#include "pzf_log.h"

typedef unsigned __int128 tr_u128; /* bit-nanoseconds: rate x time without overflow */

#define TR_NS 1000000000ull
#define TR_WORD_BITS 32u
#define TR_EPS 1e-9
#define TR_HOL_ROUNDS 64 /* head-of-line fixed-point iterations at most */
#define TR_NO_BOTTLENECK (-1)

/* What one link of a flow has not counted yet, since when. */
struct tr_hop_acc {
    uint64_t last_ns;
    tr_u128 word_acc; /* bit-ns not yet counted as 4-byte words */
    tr_u128 pkt_acc;  /* bit-ns not yet counted as packets */
};

/* A flow and its current path, rate and counter remainders. */
struct tr_flow {
    unsigned id;
    uint32_t src, dst;
    uint8_t sl;
    uint64_t demand_bps;
    bool routed;
    const char *why;
    unsigned num_hops;
    struct fabric_flow_hop hops[FABRIC_FLOW_HOPS_MAX];
    uint64_t hop_bps[FABRIC_FLOW_HOPS_MAX]; /* link data rate of each hop */
    uint32_t pkt_bytes;                     /* packet on the wire: path MTU + headers */
    uint64_t rate_bps;
    struct tr_hop_acc acc[FABRIC_FLOW_HOPS_MAX]; /* per link: both its ports count it */
    /* tr_solve scratch */
    double x, cap;
    int cap_origin, beta;
    bool active;
    unsigned res_first; /* its resources in the solver's index list */
    unsigned num_res;
};

/* An egress port that waits (XmitWait), with its rates and remainders. */
struct tr_wait {
    uint32_t node;
    uint8_t port;
    uint64_t last_ns;
    uint64_t per_s;                   /* ticks per second */
    uint64_t vl_per_s[BOARD_NUM_VLS]; /* per VL */
    tr_u128 acc;                      /* tick-ns not yet counted */
    tr_u128 vl_acc[BOARD_NUM_VLS];
};

/* Something a port's counters read must bring up to date: a flow's link, or a wait. */
struct tr_ref {
    uint64_t key;   /* node << 8 | port */
    uint32_t index; /* flows[] or waits[] */
    uint16_t hop;   /* the flow's link, or TR_REF_WAIT */
};
#define TR_REF_WAIT 0xFFFF

struct fabric_traffic {
    struct tr_flow **flows; /* in id order */
    size_t num_flows, cap_flows;
    unsigned next_id;
    uint64_t *ca_rate; /* [num_nodes]: receive rate, 0 = link rate */
    struct tr_wait *waits;
    size_t num_waits;
    struct tr_ref *refs; /* sorted by key, rebuilt with the rates */
    size_t num_refs;
    bool busy; /* inside an update: counters reads do not recurse */
};

/* A resource of the solver: an egress link or a CA's receive rate. */
struct tr_res {
    uint64_t key; /* node << 8 | port; a CA sink uses port 0 */
    double cap, rem;
    unsigned n_active;
    bool sat;
};

/* The solver's working set. */
struct tr_solver {
    struct tr_res *res;
    size_t num_res;
    unsigned *hash; /* open addressing: resource index + 1, 0 = empty */
    size_t hash_size;
    unsigned *idx; /* per flow, num_res entries from res_first: hop 0..n-1, then the sink */
    size_t num_idx;
};

/* A flow's passage through a switch ingress buffer. */
struct tr_buf {
    uint64_t key; /* node, port, VL */
    struct tr_flow *fl;
    unsigned hop; /* the link into the buffer */
};

/* A non-negative value rounded to the nearest integer (no libm for one llround). */
static uint64_t tr_round(double v)
{
    return v > 0 ? (uint64_t)(v + 0.5) : 0;
}

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

/* The link data rate of (n, port) as trained, 0 if unknown. */
static uint64_t tr_port_bps(const struct fabric_node *n, unsigned port)
{
    struct board_port_status st;

    if (board_port_status(n->board, port, &st))
        return 0;
    return board_link_data_rate_bps(&st);
}

/* ---- paths ---- */

/* The path MTU code of a hop: NeighborMTU of the sending port (1 = 256 .. 5 = 4096). */
static unsigned tr_hop_mtu(const struct fabric_node *n, unsigned port)
{
    struct board_port_config cfg;

    if (board_port_config_get(n->board, port, &cfg) || cfg.neighbor_mtu < 1 || cfg.neighbor_mtu > 5)
        return 1;
    return cfg.neighbor_mtu;
}

/* The VL that sl takes from in_port to out_port of n (a CA: its port's table). */
static unsigned tr_vl(const struct fabric_node *n, unsigned in_port, unsigned out_port, unsigned sl)
{
    uint8_t vl[16];

    if (board_sl2vl_get(n->board, in_port, out_port, vl))
        return 0;
    return vl[sl] & 0xF;
}

/* Append the hop out of (n, port) on VL vl to w; returns the far end, or NULL (w->why set). */
static struct fabric_node *tr_hop(struct fabric *f, struct tr_flow *w, struct fabric_node *n,
                                  unsigned port, unsigned vl, unsigned *mtu)
{
    struct fabric_node *r;
    const struct fabric_peer *peer;
    uint64_t bps, rbps;

    if (!fabric_port_plugged(n, port)) {
        w->why = n->peers[port].cabled ? "cable pulled" : "no cable";
        return NULL;
    }
    peer = &n->peers[port];
    r = &f->nodes[peer->node];
    if (!fabric_port_up(n, port, true) || !fabric_port_up(r, peer->port, true)) {
        w->why = "link not Active";
        return NULL;
    }
    if (vl == 15) {
        w->why = "SL mapped to VL15";
        return NULL;
    }
    if (w->num_hops == FABRIC_FLOW_HOPS_MAX) {
        w->why = "too many hops (routing loop?)";
        return NULL;
    }
    bps = tr_port_bps(n, port);
    rbps = tr_port_bps(r, peer->port);
    w->hop_bps[w->num_hops] = bps < rbps ? bps : rbps;
    w->hops[w->num_hops++] = (struct fabric_flow_hop){
        .tx_node = n->index,
        .tx_port = (uint8_t)port,
        .rx_node = r->index,
        .rx_port = peer->port,
        .vl = (uint8_t)vl,
    };
    if (tr_hop_mtu(n, port) < *mtu)
        *mtu = tr_hop_mtu(n, port);
    if (w->hop_bps[w->num_hops - 1] == 0) {
        w->why = "link rate unknown";
        return NULL;
    }
    return r;
}

/* Walk the LID route of w's flow into w's path fields; sets routed and why. */
static void tr_walk(struct fabric *f, struct tr_flow *w)
{
    struct fabric_node *n = &f->nodes[w->src], *dst = &f->nodes[w->dst];
    uint16_t dlid = board_mem_lid(dst->bm, 1);
    unsigned port = 1, vl, mtu = 5, out;

    w->routed = false;
    w->num_hops = 0;
    w->why = "";
    if (dlid == 0 || dlid >= FABRIC_MCAST_LID_MIN || board_mem_lid(n->bm, 1) == 0) {
        w->why = "no LID yet";
        return;
    }
    vl = tr_vl(n, 1, 1, w->sl);
    for (;;) {
        struct fabric_node *r = tr_hop(f, w, n, port, vl, &mtu);
        unsigned in = w->num_hops ? w->hops[w->num_hops - 1].rx_port : 0;

        if (!r)
            return;
        if (!r->is_switch) {
            if (r != dst)
                w->why = "routed to another CA";
            w->routed = r == dst;
            w->pkt_bytes = (128u << mtu) + FABRIC_PKT_HDR_BYTES;
            return;
        }
        out = board_mem_lft_entry(r->bm, dlid);
        if (out == BOARD_LFT_DROP || out == 0 || out > r->num_ports || out == in) {
            w->why = out == in ? "LFT sends it back where it came from" : "no LFT route";
            return;
        }
        vl = tr_vl(r, in, out, w->sl);
        n = r;
        port = out;
    }
}

/* Whether the walk w differs from fl's stored path. */
static bool tr_path_changed(const struct tr_flow *fl, const struct tr_flow *w)
{
    return fl->routed != w->routed || fl->num_hops != w->num_hops ||
           fl->pkt_bytes != w->pkt_bytes || fl->why != w->why ||
           memcmp(fl->hops, w->hops, w->num_hops * sizeof(w->hops[0])) ||
           memcmp(fl->hop_bps, w->hop_bps, w->num_hops * sizeof(w->hop_bps[0]));
}

/* Copy a walk's path into the flow. */
static void tr_path_store(struct tr_flow *fl, const struct tr_flow *w)
{
    fl->routed = w->routed;
    fl->why = w->why;
    fl->num_hops = w->num_hops;
    fl->pkt_bytes = w->pkt_bytes;
    memcpy(fl->hops, w->hops, w->num_hops * sizeof(w->hops[0]));
    memcpy(fl->hop_bps, w->hop_bps, w->num_hops * sizeof(w->hop_bps[0]));
}

/* Re-walk every flow; returns true if any path changed (they are stored). */
static bool tr_recheck(struct fabric *f, struct fabric_traffic *t)
{
    struct tr_flow *w = malloc(sizeof(*w));
    bool changed = false;

    if (!w)
        return false;
    for (size_t i = 0; i < t->num_flows; i++) {
        struct tr_flow *fl = t->flows[i];

        memset(w, 0, sizeof(*w));
        w->src = fl->src;
        w->dst = fl->dst;
        w->sl = fl->sl;
        tr_walk(f, w);
        if (tr_path_changed(fl, w)) {
            tr_path_store(fl, w);
            changed = true;
        }
    }
    free(w);
    return changed;
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

/* The key of the egress link of a hop. */
static uint64_t tr_link_key(const struct fabric_flow_hop *h)
{
    return (uint64_t)h->tx_node << 8 | h->tx_port;
}

/* Build the resources of the routed flows; returns 0 or -ENOMEM. */
static int tr_solver_build(struct fabric_traffic *t, struct tr_solver *s)
{
    size_t n = 0;

    for (size_t i = 0; i < t->num_flows; i++)
        n += t->flows[i]->routed ? t->flows[i]->num_hops + 1 : 0;
    s->hash_size = 16;
    while (s->hash_size < 2 * n + 2)
        s->hash_size *= 2;
    s->res = calloc(n + 1, sizeof(*s->res));
    s->idx = calloc(n + 1, sizeof(*s->idx));
    s->hash = calloc(s->hash_size, sizeof(*s->hash));
    if (!s->res || !s->idx || !s->hash)
        return -ENOMEM;
    for (size_t i = 0; i < t->num_flows; i++) {
        struct tr_flow *fl = t->flows[i];
        uint64_t sink;

        fl->res_first = (unsigned)s->num_idx;
        fl->num_res = 0;
        if (!fl->routed)
            continue;
        for (unsigned k = 0; k < fl->num_hops; k++)
            s->idx[s->num_idx++] =
                (unsigned)tr_res_find(s, tr_link_key(&fl->hops[k]), (double)fl->hop_bps[k]);
        sink = t->ca_rate[fl->dst];
        if (sink && sink < fl->hop_bps[fl->num_hops - 1])
            s->idx[s->num_idx++] = (unsigned)tr_res_find(s, (uint64_t)fl->dst << 8, (double)sink);
        fl->num_res = (unsigned)s->num_idx - fl->res_first;
    }
    return 0;
}

/* Free the solver's arrays. */
static void tr_solver_free(struct tr_solver *s)
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
static void tr_max_min(struct fabric_traffic *t, struct tr_solver *s)
{
    size_t active = 0;

    for (size_t r = 0; r < s->num_res; r++) {
        s->res[r].rem = s->res[r].cap;
        s->res[r].sat = false;
    }
    for (size_t i = 0; i < t->num_flows; i++) {
        struct tr_flow *fl = t->flows[i];

        fl->x = 0;
        fl->beta = TR_NO_BOTTLENECK;
        fl->active = fl->routed && fl->cap > 0;
        active += fl->active;
    }
    while (active) {
        double inc = INFINITY;

        for (size_t r = 0; r < s->num_res; r++)
            s->res[r].n_active = 0;
        for (size_t i = 0; i < t->num_flows; i++) {
            struct tr_flow *fl = t->flows[i];

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
        for (size_t i = 0; i < t->num_flows; i++) {
            struct tr_flow *fl = t->flows[i];

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
static struct tr_buf *tr_buffers(const struct fabric *f, struct fabric_traffic *t, size_t *count)
{
    struct tr_buf *b;
    size_t n = 0;

    for (size_t i = 0; i < t->num_flows; i++)
        n += t->flows[i]->routed ? t->flows[i]->num_hops : 0;
    b = calloc(n + 1, sizeof(*b));
    if (!b)
        return NULL;
    n = 0;
    for (size_t i = 0; i < t->num_flows; i++) {
        struct tr_flow *fl = t->flows[i];

        for (unsigned k = 0; fl->routed && k < fl->num_hops; k++) {
            const struct fabric_flow_hop *h = &fl->hops[k];

            if (!f->nodes[h->rx_node].is_switch)
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
static int tr_rates(const struct fabric *f, struct fabric_traffic *t, struct tr_solver *s)
{
    size_t nb = 0;
    struct tr_buf *b = tr_buffers(f, t, &nb);

    if (!b)
        return -ENOMEM;
    for (size_t i = 0; i < t->num_flows; i++) {
        t->flows[i]->cap = (double)t->flows[i]->demand_bps;
        t->flows[i]->cap_origin = TR_NO_BOTTLENECK;
    }
    for (unsigned round = 0; round < TR_HOL_ROUNDS; round++) {
        bool changed = false;

        tr_max_min(t, s);
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

/* ---- XmitWait ---- */

/* The wait entry of (node, port), added if new; NULL on OOM. */
static struct tr_wait *tr_wait_slot(struct fabric_traffic *t, size_t *cap, uint32_t node,
                                    uint8_t port)
{
    for (size_t i = 0; i < t->num_waits; i++)
        if (t->waits[i].node == node && t->waits[i].port == port)
            return &t->waits[i];
    if (t->num_waits == *cap) {
        size_t ncap = *cap ? 2 * *cap : 16;
        struct tr_wait *w = realloc(t->waits, ncap * sizeof(*w));

        if (!w)
            return NULL;
        t->waits = w;
        *cap = ncap;
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

    if (tr_solver_build(t, &s) || tr_rates(f, t, &s) || tr_waits(t, &s)) {
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
    a->word_acc += bits;
    a->pkt_acc += bits;
    words = tr_take(&a->word_acc, (tr_u128)TR_WORD_BITS * TR_NS);
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

    if (now_ns <= w->last_ns)
        return;
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
        size_t ncap = t->cap_flows ? 2 * t->cap_flows : 8;
        struct tr_flow **nf = realloc(t->flows, ncap * sizeof(*nf));

        if (!nf)
            return -ENOMEM;
        t->flows = nf;
        t->cap_flows = ncap;
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
    tr_advance(f, t, tr_now(f)); /* before the new flow exists */
    t->flows[t->num_flows++] = fl;
    tr_changed(f, t);
    *id = fl->id;
    pzf_log(f->verbose, PZF_LOG_INFO, "flow %u: %s -> %s sl %u, %llu b/s: %s", fl->id,
            f->nodes[src].name, f->nodes[dst].name, sl, (unsigned long long)demand_bps,
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
