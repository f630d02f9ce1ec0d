/*
 * fabric_dgram.c - port-0 UD datagrams: a datagram is walked through the
 * fabric hop by hop, as fabric_route.c walks MADs but without the 256-byte
 * work items (a datagram carries up to 4096 bytes): one send is carried to
 * its end, multicast copies included, before fabric_dgram_send returns.
 * A list of pending link arrivals replaces recursion; every copy shares the
 * sender's payload.
 *
 * At a switch (arriving over a cable, or sent by its own port 0):
 *   - partition enforcement at the ingress port (fabric_pkey.c);
 *   - multicast DLID: a copy to every port of the MFT entry but the ingress
 *     one (port 0: the switch's own stack); no port: dropped;
 *   - unicast: the switch's own LID range or LFT entry 0: its stack;
 *     otherwise the LFT port.  No entry, or back out of the ingress port:
 *     dropped and counted in PortRcvSwitchRelayErrors (with the
 *     PortRcvErrorDetails DLID-mapping / looping counter);
 *   - leaving: partition enforcement at the egress port, the VL from the
 *     SL2VL table (in port, out port; an SL mapped to VL15 is dropped as a
 *     VL mapping error), and NeighborMTU (a payload longer than the egress
 *     port's MTU counts PortXmitDiscards and PortNeighborMTUDiscards).
 * A cable hop needs both ends plugged and Active and at most 128 hops; it
 * counts Xmit/Rcv counters (fabric_wire_count), may be lost to the drop
 * rate (Xmit counted, PortRcvErrors at the far end) and is captured.  A CA
 * sends out of its port and accepts its LID range and every multicast copy.
 * At the end port the receiving QP checks the P_Key (an entry of the port's
 * table with the same partition, one of both a full member), the QP number
 * (the stack's, or 0xFFFFFF for multicast) and the Q_Key.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "fabric_dgram.h"
#include "fabric_internal.h"
#include "pcap.h"
#include "pzf_array.h"
#include "pzf_log.h"

#define DG_MAX_COPIES FABRIC_QUEUE_MAX /* link arrivals per datagram, at most */
#define DG_QPN_MASK 0xFFFFFFu

#define DG_QPS FABRIC_DGRAM_QPS_MAX

/* A port-0 stack (QP): attached (fn set) or in-process (board_mem QP handle bm_qp). */
struct dg_stack {
    bool used;
    uint32_t qpn;
    uint32_t qkey;
    fabric_dgram_rx_fn fn;
    void *arg;
    int bm_qp;
};

/* A copy that arrived over the cable at (node, port) after hops link traversals. */
struct dg_arrival {
    uint32_t node;
    uint8_t port;
    uint16_t hops;
};

struct fabric_dgram_state {
    struct dg_stack *stacks; /* [num_nodes][DG_QPS]: the attached stacks */
    struct fabric_dgram_stats stats;
    uint32_t next_qpn;
    struct dg_arrival *pending; /* pending arrivals of the datagram being carried */
    size_t pending_count;
    size_t pending_cap;
    size_t copies; /* arrivals queued for it so far */
};

/* The datagram being carried: what every copy shares. */
struct dg_pkt {
    struct board_dgram_addr a; /* slid and src_qp filled, GRH completed */
    const uint8_t *payload;
    size_t len;
    uint32_t words; /* LRH..ICRC in 4-byte words */
    bool mcast;
};

/* Log why a copy at (n, port) went nowhere and count it. */
static void dg_drop(struct fabric *f, const struct fabric_node *n, unsigned port,
                    const struct dg_pkt *d, const char *why)
{
    f->dgram->stats.dropped++;
    f->stats.dropped++;
    pzf_log(f->verbose, PZF_LOG_DEBUG, "datagram drop at %s[%u]: %s (LID %u -> %u, QP 0x%06x)",
            n->name, port, why, d->a.slid, d->a.dlid, d->a.dst_qp);
}

/* Add delta to the counter at offset `field` of (n, port)'s hardware counters. */
static void dg_count(struct fabric_node *n, unsigned port, size_t field)
{
    struct board_port_counters *c = board_mem_counters(n->bm, port);

    if (c)
        board_mem_counter_add(n->bm, (uint64_t *)((char *)c + field), 1);
}

/* Count a switch relay error of kind detail at the ingress port (none for the switch's own). */
static void dg_relay_error(struct fabric_node *n, unsigned in_port, bool from_wire, size_t detail)
{
    if (!from_wire)
        return;
    dg_count(n, in_port, offsetof(struct board_port_counters, rcv_switch_relay_errors));
    dg_count(n, in_port, detail);
}

/* The attached stacks of node n (DG_QPS slots). */
static struct dg_stack *dg_attached(struct fabric *f, const struct fabric_node *n)
{
    return &f->dgram->stacks[n->index * DG_QPS];
}

/*
 * The stacks of n's end port `port` into out (DG_QPS): the attached ones
 * if there are any (an attached stack wins), else the in-process board_mem
 * QPs, else (all) both.  Returns how many.
 */
static size_t dg_stacks_at(struct fabric *f, struct fabric_node *n, unsigned port, bool all,
                           struct dg_stack out[2 * DG_QPS])
{
    const struct dg_stack *att = dg_attached(f, n);
    size_t k = 0;

    if (port != (n->is_switch ? 0u : 1u))
        return 0;
    for (size_t i = 0; i < DG_QPS; i++)
        if (att[i].used)
            out[k++] = att[i];
    if (k && !all)
        return k;
    for (int qp = 0; qp < BOARD_QP_MAX; qp++) {
        struct dg_stack s = {.used = true, .bm_qp = qp};

        if (board_mem_qp_info(n->bm, qp, &s.qpn, &s.qkey))
            out[k++] = s;
    }
    return k;
}

/* Hand a copy that passed the receive checks to stack s of n. */
static void dg_hand(struct fabric *f, struct fabric_node *n, unsigned ep, const struct dg_stack *s,
                    const struct dg_pkt *d)
{
    f->dgram->stats.delivered++;
    if (d->mcast)
        f->stats.mcast_delivered++;
    if (s->fn)
        s->fn(s->arg, n->index, &d->a, d->payload, d->len);
    else if (board_mem_qp_deliver(n->bm, s->bm_qp, &d->a, d->payload, d->len))
        dg_drop(f, n, ep, d, "receive queue full");
    pzf_log(f->verbose, PZF_LOG_DEBUG, "datagram LID %u -> %u delivered at %s[%u] (QP 0x%06x)",
            d->a.slid, d->a.dlid, n->name, ep, s->qpn);
}

/* A multicast copy goes to every stack of the port whose Q_Key is the datagram's. */
static void dg_deliver_mcast(struct fabric *f, struct fabric_node *n, unsigned ep,
                             const struct dg_stack *s, size_t k, const struct dg_pkt *d)
{
    size_t handed = 0;

    for (size_t i = 0; i < k; i++) {
        if (s[i].qkey == d->a.qkey) {
            dg_hand(f, n, ep, &s[i], d);
            handed++;
        }
    }
    if (!handed) {
        f->dgram->stats.qkey_dropped++;
        dg_drop(f, n, ep, d, "Q_Key violation");
    }
}

/*
 * Count a datagram at a switch's port 0 (the management port), as a switch
 * ASIC with enhanced port 0 counts its management traffic: received when the
 * switch delivers it to its own stack, sent when that stack sends it.  MADs
 * to the switch's own agents are not counted there (a simplification).
 */
static void dg_count_port0(struct fabric_node *n, const struct dg_pkt *d, bool xmit)
{
    struct fabric_wire_pkt w = {.words = d->words,
                                .sl = d->a.sl,
                                .vl = (uint8_t)fabric_wire_vl(n, 0, 0, d->a.sl),
                                .mcast = d->mcast};

    if (n->is_switch)
        fabric_wire_count(n, 0, &w, xmit);
}

/* Hand a copy to the stacks of (n, end port of port) after the receiving QPs' checks. */
static void dg_deliver(struct fabric *f, struct fabric_node *n, unsigned port,
                       const struct dg_pkt *d)
{
    struct fabric_dgram_stats *st = &f->dgram->stats;
    unsigned ep = fabric_end_port(n, port);
    struct dg_stack s[2 * DG_QPS];
    size_t k = dg_stacks_at(f, n, ep, false, s);
    size_t i;

    if (ep == 0)
        dg_count_port0(n, d, false);
    if (!k) {
        st->no_stack++;
        dg_drop(f, n, ep, d, "no port-0 stack");
        return;
    }
    if (!fabric_pkey_table_matches(n, ep, d->a.pkey, false)) {
        st->pkey_dropped++;
        f->stats.pkey_dropped++;
        dg_drop(f, n, ep, d, "P_Key not in the receiving port's table");
        return;
    }
    if (d->mcast && d->a.dst_qp == BOARD_DGRAM_MCAST_QPN) {
        dg_deliver_mcast(f, n, ep, s, k, d);
        return;
    }
    for (i = 0; i < k && s[i].qpn != d->a.dst_qp; i++)
        ;
    if (i == k) {
        st->no_stack++;
        dg_drop(f, n, ep, d, "no such QP");
    } else if (d->a.qkey != s[i].qkey) {
        st->qkey_dropped++;
        dg_drop(f, n, ep, d, "Q_Key violation");
    } else {
        dg_hand(f, n, ep, &s[i], d);
    }
}

/* Queue an arrival at (node, port); false if the datagram made too many copies. */
static bool dg_push(struct fabric_dgram_state *g, uint32_t node, uint8_t port, uint16_t hops)
{
    if (g->copies >= DG_MAX_COPIES)
        return false;
    if (g->pending_count == g->pending_cap) {
        struct dg_arrival *grown = pzf_array_grow(g->pending, &g->pending_cap, sizeof(*grown), 16);

        if (!grown)
            return false;
        g->pending = grown;
    }
    g->pending[g->pending_count++] = (struct dg_arrival){.node = node, .port = port, .hops = hops};
    g->copies++;
    return true;
}

/* Write the copy crossing a link on VL vl to the capture. */
static void dg_capture(struct fabric *f, const struct dg_pkt *d, unsigned vl)
{
    struct pz_pcap_ud ud = {
        .vl = (uint8_t)vl,
        .sl = d->a.sl,
        .dlid = d->a.dlid,
        .slid = d->a.slid,
        .pkey = d->a.pkey,
        .dest_qp = d->a.dst_qp & DG_QPN_MASK,
        .qkey = d->a.qkey,
        .src_qp = d->a.src_qp & DG_QPN_MASK,
        .payload = d->payload,
        .len = d->len,
        .grh = d->a.has_grh ? d->a.grh : NULL,
    };

    if (f->pcap)
        fabric_wire_capture(f, &ud);
}

/* The copy leaves (n, port) on VL vl after hops traversals: the cable, counters, loss, capture. */
static void dg_cross(struct fabric *f, struct fabric_node *n, unsigned port, unsigned vl,
                     unsigned hops, const struct dg_pkt *d)
{
    struct fabric_wire_pkt w = {
        .words = d->words, .sl = d->a.sl, .vl = (uint8_t)vl, .mcast = d->mcast};
    const struct fabric_peer *peer = &n->peers[port];
    struct fabric_node *r;

    if (!fabric_port_plugged(n, port)) {
        dg_drop(f, n, port, d, peer->cabled ? "cable pulled" : "no cable on the egress port");
        return;
    }
    r = &f->nodes[peer->node];
    if (!fabric_port_up(n, port, true) || !fabric_port_up(r, peer->port, true)) {
        dg_drop(f, n, port, d, "link not Active");
        return;
    }
    if (hops + 1 > FABRIC_MAX_HOPS) {
        dg_drop(f, n, port, d, "hop limit (routing loop?)");
        return;
    }
    fabric_wire_count(n, port, &w, true);
    if (fabric_wire_lost(f, n, port)) {
        fabric_wire_count_lost(r, peer->port);
        f->stats.lost++;
        f->dgram->stats.lost++;
        dg_drop(f, n, port, d, "lost on the cable (drop rate)");
        return;
    }
    fabric_wire_count(r, peer->port, &w, false);
    f->stats.hops++;
    f->dgram->stats.hops++;
    dg_capture(f, d, vl);
    if (!dg_push(f->dgram, r->index, peer->port, (uint16_t)(hops + 1)))
        dg_drop(f, r, peer->port, d, "too many copies (multicast loop?)");
}

/* The NeighborMTU of (n, port) in bytes (256..4096). */
static size_t dg_port_mtu(const struct fabric_node *n, unsigned port)
{
    struct board_port_config cfg;

    if (board_port_config_get(n->board, port, &cfg) || cfg.neighbor_mtu < 1 || cfg.neighbor_mtu > 5)
        return 256;
    return (size_t)128 << cfg.neighbor_mtu;
}

/* Switch n sends the copy that entered at in_port out of port out. */
static void dg_egress(struct fabric *f, struct fabric_node *n, unsigned in_port, bool from_wire,
                      unsigned out, unsigned hops, const struct dg_pkt *d)
{
    unsigned vl;

    if (!fabric_pkey_port_allows(f, n, out, d->a.pkey, d->a.slid, d->a.dlid, false)) {
        f->dgram->stats.pkey_dropped++;
        dg_drop(f, n, out, d, "P_Key refused by the egress port");
        return;
    }
    vl = fabric_wire_vl(n, in_port, out, d->a.sl);
    if (vl == 15) {
        dg_relay_error(n, in_port, from_wire,
                       offsetof(struct board_port_counters, vl_mapping_errors));
        dg_drop(f, n, out, d, "SL mapped to VL15");
        return;
    }
    if (d->len > dg_port_mtu(n, out)) {
        dg_count(n, out, offsetof(struct board_port_counters, xmit_discards));
        dg_count(n, out, offsetof(struct board_port_counters, neighbor_mtu_discards));
        dg_drop(f, n, out, d, "longer than the egress port's NeighborMTU");
        return;
    }
    dg_cross(f, n, out, vl, hops, d);
}

/* Whether dlid is in the LID range of the end port behind port of n. */
static bool dg_lid_is_mine(const struct fabric_node *n, unsigned port, uint16_t dlid)
{
    unsigned ep = fabric_end_port(n, port);
    uint32_t base = board_mem_lid(n->bm, ep);

    return base != 0 && dlid >= base && dlid < base + (1u << board_mem_lmc(n->bm, ep));
}

/* Multicast at switch n: a copy to every MFT port but the one it came in on. */
static void dg_switch_mcast(struct fabric *f, struct fabric_node *n, unsigned in_port,
                            bool from_wire, unsigned hops, const struct dg_pkt *d)
{
    unsigned copies = 0;

    for (unsigned port = 0; port <= n->num_ports; port++) {
        if (port == in_port || !board_mem_mft_has_port(n->bm, d->a.dlid, port))
            continue;
        copies++;
        if (port == 0)
            dg_deliver(f, n, 0, d);
        else
            dg_egress(f, n, in_port, from_wire, port, hops, d);
    }
    if (!copies)
        dg_drop(f, n, in_port, d, "no MFT port for the multicast LID");
}

/* Switch n routes the copy that entered at in_port (0 and !from_wire: its own stack sent it). */
static void dg_switch(struct fabric *f, struct fabric_node *n, unsigned in_port, bool from_wire,
                      unsigned hops, const struct dg_pkt *d)
{
    unsigned out;

    if (from_wire &&
        !fabric_pkey_port_allows(f, n, in_port, d->a.pkey, d->a.slid, d->a.dlid, true)) {
        f->dgram->stats.pkey_dropped++;
        dg_drop(f, n, in_port, d, "P_Key refused by the ingress port");
        return;
    }
    if (d->mcast) {
        dg_switch_mcast(f, n, in_port, from_wire, hops, d);
        return;
    }
    out = dg_lid_is_mine(n, 0, d->a.dlid) ? 0 : board_mem_lft_entry(n->bm, d->a.dlid);
    if (out == 0) {
        dg_deliver(f, n, 0, d);
    } else if (out > n->num_ports) {
        dg_relay_error(n, in_port, from_wire,
                       offsetof(struct board_port_counters, dlid_mapping_errors));
        dg_drop(f, n, in_port, d, "no LFT entry for the DLID");
    } else if (from_wire && out == in_port) {
        dg_relay_error(n, in_port, from_wire, offsetof(struct board_port_counters, looping_errors));
        dg_drop(f, n, in_port, d, "LFT sends it back out of its ingress port");
    } else {
        dg_egress(f, n, in_port, from_wire, out, hops, d);
    }
}

/* A copy arrived over the cable at (n, port). */
static void dg_arrive(struct fabric *f, struct fabric_node *n, unsigned port, unsigned hops,
                      const struct dg_pkt *d)
{
    if (n->is_switch)
        dg_switch(f, n, port, true, hops, d);
    else if (d->mcast || dg_lid_is_mine(n, port, d->a.dlid))
        dg_deliver(f, n, port, d);
    else
        dg_drop(f, n, port, d, "DLID is not this CA port's");
}

/* Carry d from the stack of n at end port ep to every place it reaches. */
static void dg_carry(struct fabric *f, struct fabric_node *n, unsigned ep, const struct dg_pkt *d)
{
    struct fabric_dgram_state *g = f->dgram;

    g->pending_count = 0;
    g->copies = 0;
    if (n->is_switch) {
        dg_count_port0(n, d, true);
        dg_switch(f, n, 0, false, 0, d);
    } else if (!d->mcast && dg_lid_is_mine(n, ep, d->a.dlid))
        dg_deliver(f, n, ep, d); /* to itself: the HCA loops it back */
    else
        dg_cross(f, n, ep, fabric_wire_vl(n, ep, ep, d->a.sl), 0, d);
    while (g->pending_count) {
        struct dg_arrival a = g->pending[--g->pending_count];

        dg_arrive(f, &f->nodes[a.node], a.port, a.hops, d);
    }
}

/* Whether a send address and length are what a UD send work request may carry. */
static bool dg_addr_ok(const struct board_dgram_addr *a, size_t len)
{
    bool mcast = fabric_lid_is_mcast(a->dlid);

    return len <= BOARD_DGRAM_MAX_PAYLOAD && a->sl < BOARD_NUM_SLS && a->dst_qp > 1 &&
           a->dst_qp <= BOARD_DGRAM_MCAST_QPN && a->dlid != 0 && a->dlid != FABRIC_PERMISSIVE_LID &&
           mcast == (a->dst_qp == BOARD_DGRAM_MCAST_QPN);
}

/* Fill in what the sending hardware adds to the GRH: IPVer 6, PayLen, NxtHdr. */
static void dg_grh_complete(uint8_t *grh, size_t len)
{
    size_t pad = (4 - len % 4) % 4;
    size_t paylen = PZ_IB_BTH_LEN + PZ_IB_DETH_LEN + len + pad + PZ_IB_ICRC_LEN;

    grh[0] = (uint8_t)(0x60 | (grh[0] & 0x0F));
    grh[4] = (uint8_t)(paylen >> 8);
    grh[5] = (uint8_t)paylen;
    grh[6] = PZ_IB_GRH_NXTHDR_BTH;
}

/* Refuse a send at node n: count, log, return -err. */
static int dg_refuse(struct fabric *f, const struct fabric_node *n, int err, const char *why)
{
    f->dgram->stats.refused++;
    pzf_log(f->verbose, PZF_LOG_INFO, "datagram from %s refused: %s", n ? n->name : "?", why);
    return -err;
}

/*
 * The stack of n at ep that sends: the one with QP number qpn (any: the
 * first one, attached before in-process).  False if there is none.
 */
static bool dg_sender(struct fabric *f, struct fabric_node *n, unsigned ep, bool any, uint32_t qpn,
                      struct dg_stack *out)
{
    struct dg_stack s[2 * DG_QPS];
    size_t k = dg_stacks_at(f, n, ep, true, s);

    for (size_t i = 0; i < k; i++) {
        if (any || s[i].qpn == qpn) {
            *out = s[i];
            return true;
        }
    }
    return false;
}

/* fabric_dgram_send(_qp): from QP qpn of node, or (any) its first stack. */
static int dg_send(struct fabric *f, size_t node, bool any, uint32_t qpn,
                   const struct board_dgram_addr *a, const void *payload, size_t len)
{
    struct fabric_node *n;
    struct dg_stack s;
    struct dg_pkt d;
    unsigned ep;

    if (!f->dgram || node >= f->num_nodes || !a || (len && !payload))
        return -EINVAL;
    n = &f->nodes[node];
    if (!dg_addr_ok(a, len))
        return dg_refuse(f, n, EINVAL, "bad address or length");
    ep = n->is_switch ? 0 : 1;
    if (!dg_sender(f, n, ep, any, qpn, &s))
        return dg_refuse(f, n, ENOTCONN, "no port-0 stack");
    memset(&d, 0, sizeof(d));
    d.a = *a;
    d.a.slid = fabric_port_lid(n, ep);
    if (!d.a.slid)
        return dg_refuse(f, n, EADDRNOTAVAIL, "the port has no LID yet");
    if (!fabric_pkey_in_table(n, ep, a->pkey))
        return dg_refuse(f, n, EACCES, "P_Key not in the sending port's P_Key table");
    d.a.src_qp = s.qpn;
    if (d.a.qkey & BOARD_DGRAM_QKEY_CONTROLLED)
        d.a.qkey = s.qkey;
    if (d.a.has_grh)
        dg_grh_complete(d.a.grh, len);
    d.payload = payload;
    d.len = len;
    d.mcast = fabric_lid_is_mcast(a->dlid);
    d.words = (uint32_t)((PZ_IB_UD_HDR_LEN + (d.a.has_grh ? PZ_IB_GRH_LEN : 0) + len +
                          (4 - len % 4) % 4 + PZ_IB_ICRC_LEN) /
                         4);
    f->dgram->stats.sent++;
    dg_carry(f, n, ep, &d);
    return 0;
}

int fabric_dgram_send(struct fabric *f, size_t node, const struct board_dgram_addr *a,
                      const void *payload, size_t len)
{
    return dg_send(f, node, true, 0, a, payload, len);
}

int fabric_dgram_send_qp(struct fabric *f, size_t node, uint32_t qpn,
                         const struct board_dgram_addr *a, const void *payload, size_t len)
{
    return dg_send(f, node, false, qpn, a, payload, len);
}

/* board_mem's send hook of an in-process stack: arg is its node. */
static int dg_board_mem_send(void *arg, const struct board_dgram_addr *a, const void *payload,
                             size_t len)
{
    struct fabric_node *n = arg;

    return fabric_dgram_send_qp(n->f, n->index, a->src_qp, a, payload, len);
}

int fabric_dgram_init(struct fabric *f)
{
    f->dgram = calloc(1, sizeof(*f->dgram));
    if (!f->dgram)
        return -ENOMEM;
    f->dgram->stacks =
        calloc((f->num_nodes ? f->num_nodes : 1) * DG_QPS, sizeof(*f->dgram->stacks));
    if (!f->dgram->stacks)
        return -ENOMEM;
    f->dgram->next_qpn = FABRIC_DGRAM_QPN_FIRST;
    for (size_t i = 0; i < f->num_nodes; i++)
        board_mem_set_dgram_hook(f->nodes[i].bm, dg_board_mem_send, &f->nodes[i]);
    return 0;
}

void fabric_dgram_destroy(struct fabric *f)
{
    if (!f->dgram)
        return;
    free(f->dgram->stacks);
    free(f->dgram->pending);
    free(f->dgram);
    f->dgram = NULL;
}

int fabric_dgram_attach(struct fabric *f, size_t node, uint32_t qkey, fabric_dgram_rx_fn fn,
                        void *arg, uint32_t *qpn)
{
    struct fabric_dgram_state *g = f->dgram;
    struct dg_stack *s;
    size_t i;

    if (!g || node >= f->num_nodes || !fn)
        return -EINVAL;
    s = dg_attached(f, &f->nodes[node]);
    for (i = 0; i < DG_QPS && s[i].used; i++)
        ;
    if (i == DG_QPS)
        return -EBUSY;
    s[i] = (struct dg_stack){.used = true, .qpn = g->next_qpn, .qkey = qkey, .fn = fn, .arg = arg};
    /* A new stack gets a new QP number: datagrams for its predecessor miss. */
    g->next_qpn = g->next_qpn >= DG_QPN_MASK - 1 ? FABRIC_DGRAM_QPN_FIRST : g->next_qpn + 1;
    if (qpn)
        *qpn = s[i].qpn;
    return 0;
}

/* The attached stack of node with QP number qpn (any: the first one), or NULL. */
static struct dg_stack *dg_find_attached(struct fabric *f, size_t node, bool any, uint32_t qpn)
{
    struct dg_stack *s;

    if (!f->dgram || node >= f->num_nodes)
        return NULL;
    s = dg_attached(f, &f->nodes[node]);
    for (size_t i = 0; i < DG_QPS; i++)
        if (s[i].used && (any || s[i].qpn == qpn))
            return &s[i];
    return NULL;
}

int fabric_dgram_set_qkey(struct fabric *f, size_t node, uint32_t qkey)
{
    struct dg_stack *s = dg_find_attached(f, node, true, 0);

    if (!s)
        return -ENOENT;
    s->qkey = qkey;
    return 0;
}

int fabric_dgram_set_qkey_qp(struct fabric *f, size_t node, uint32_t qpn, uint32_t qkey)
{
    struct dg_stack *s = dg_find_attached(f, node, false, qpn);

    if (!s)
        return -ENOENT;
    s->qkey = qkey;
    return 0;
}

void fabric_dgram_detach(struct fabric *f, size_t node)
{
    if (f->dgram && node < f->num_nodes)
        memset(dg_attached(f, &f->nodes[node]), 0, DG_QPS * sizeof(struct dg_stack));
}

void fabric_dgram_detach_qp(struct fabric *f, size_t node, uint32_t qpn)
{
    struct dg_stack *s = dg_find_attached(f, node, false, qpn);

    if (s)
        memset(s, 0, sizeof(*s));
}

void fabric_dgram_note_malformed(struct fabric *f)
{
    if (f->dgram)
        f->dgram->stats.malformed++;
}

void fabric_dgram_get_stats(const struct fabric *f, struct fabric_dgram_stats *st)
{
    if (f->dgram)
        *st = f->dgram->stats;
    else
        memset(st, 0, sizeof(*st));
}

uint16_t fabric_dgram_lid(const struct fabric *f, size_t node)
{
    const struct fabric_node *n;

    if (node >= f->num_nodes)
        return 0;
    n = &f->nodes[node];
    return fabric_port_lid(n, n->is_switch ? 0 : 1);
}
