/*
 * fabric_traffic_internal.h - the traffic model's state, shared by its files:
 *   fabric_traffic.c        flows (the API), XmitWait, counters in real time
 *   fabric_traffic_path.c   the path walk: a flow's LID route, hop by hop
 *   fabric_traffic_rates.c  the rate solver: max-min fair sharing and
 *                           head-of-line blocking (pure: flows and their
 *                           paths in, rates out; tests/fabric/test_fabric_rates.c)
 */
#ifndef PZ_FABRIC_TRAFFIC_INTERNAL_H
#define PZ_FABRIC_TRAFFIC_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "board.h"
#include "fabric_traffic.h"

struct fabric;

typedef unsigned __int128 tr_u128; /* bit-nanoseconds: rate x time without overflow */

#define TR_NS 1000000000ull
#define TR_WORD_BITS 32u
#define TR_VCRC_BYTES 2u /* on the wire, not in PortXmitData/PortRcvData (LRH..ICRC) */
#define TR_EPS 1e-9
#define TR_HOL_ROUNDS 64 /* head-of-line fixed-point iterations at most */
#define TR_NO_BOTTLENECK (-1)

/* What one link of a flow has not counted yet, since when. */
struct tr_hop_acc {
    uint64_t last_ns;
    tr_u128 word_acc; /* bit-ns x data bytes a packet, not yet counted as 4-byte words */
    tr_u128 pkt_acc;  /* bit-ns not yet counted as packets */
};

/* A flow and its current path, rate and counter remainders. */
struct tr_flow {
    unsigned id;
    uint32_t src, dst;
    uint8_t sl;
    bool repathed;     /* on the slow lane by a repath notice (fabric_repath.h) */
    uint64_t moved_ns; /* board time of its last lane move, 0: never moved */
    uint64_t demand_bps;
    bool routed;
    const char *why;
    unsigned num_hops;
    struct fabric_flow_hop hops[FABRIC_FLOW_HOPS_MAX];
    uint64_t hop_bps[FABRIC_FLOW_HOPS_MAX]; /* link data rate of each hop */
    bool into_switch[FABRIC_FLOW_HOPS_MAX]; /* the hop ends at a switch (an ingress buffer) */
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

/* A non-negative value rounded to the nearest integer. */
uint64_t tr_round(double v);

/* The key of the egress link of a hop: tx node << 8 | tx port. */
uint64_t tr_link_key(const struct fabric_flow_hop *h);

/* fabric_traffic_path.c */
/* The link data rate of (node, port) of f as trained, 0 if unknown. */
uint64_t tr_port_bps(const struct fabric *f, uint32_t node, unsigned port);
/* Re-walk every flow of t; returns true if any path changed (they are stored). */
bool tr_recheck(struct fabric *f, struct fabric_traffic *t);
/* Walk the LID route of w's flow (src, dst, sl set) into w's path fields; sets routed and why. */
void tr_walk(struct fabric *f, struct tr_flow *w);

/* fabric_traffic_rates.c */
/*
 * The rates of flows[0..n) from their paths, demands and the CAs' receive
 * rates ca_rate[node] (0: the link's): each flow's x (bit/s) and beta (its
 * bottleneck: the index of the saturated resource in path order, the sink
 * last; the hop after which a head-of-line cap holds it; or
 * TR_NO_BOTTLENECK).  s keeps the resources (egress links, CA sinks) for
 * the caller's XmitWait; free it with tr_solver_free().  Returns 0 or
 * -ENOMEM.
 */
int tr_rates_solve(struct tr_flow *const *flows, size_t n, const uint64_t *ca_rate,
                   struct tr_solver *s);
void tr_solver_free(struct tr_solver *s);

#endif /* PZ_FABRIC_TRAFFIC_INTERNAL_H */
