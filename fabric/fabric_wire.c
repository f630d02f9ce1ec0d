/*
 * fabric_wire.c - a packet crossing a cable: both ends must be plugged in
 * and trained (Active for LID-routed packets), the hop limit holds, the
 * drop rate may lose it; the ports' hardware counters count it and the
 * capture file, if any, records it with its LRH, BTH and DETH.
 *
 * Counters (struct board_port_counters): the egress port counts
 * PortXmitPkts, PortXmitData (LRH..ICRC in 4-byte words, 72 for a MAD),
 * PortUnicast/MulticastXmitPkts and PortXmitDataSL, the ingress port the Rcv
 * ones plus PortOpRcvPkts/Data and PortVLOpPackets/Data of the packet's VL:
 * 15 for SMPs (not counted per SL), the hop's SL2VL entry of SL 0 for GMPs.
 * Port-0 datagrams (fabric_dgram.c) count the same way.  A packet
 * lost on the cable was sent (Xmit counted) and arrives corrupted:
 * PortRcvErrors at the far end.  Lost packets are not in the capture.
 */
#include <errno.h>
#include <string.h>

#include "fabric_internal.h"
#include "pcap.h"
#include "pzf_log.h"

#define WIRE_MAD_WORDS ((PZ_IB_UD_HDR_LEN + FABRIC_MAD_SIZE + PZ_IB_ICRC_LEN) / 4)
#define WIRE_QP_MASK 0xFFFFFFu

bool fabric_port_plugged(const struct fabric_node *n, unsigned port)
{
    return port >= 1 && port <= n->num_ports && n->peers[port].cabled && !n->peers[port].unplugged;
}

/* The next number of the loss generator (xorshift64). */
static uint64_t wire_random(struct fabric *f)
{
    uint64_t x = f->rng;

    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    f->rng = x;
    return x;
}

/*
 * Whether a traversal out of (n, port) is lost: to the fabric-wide drop
 * rate, or to the cable's own.
 */
static bool wire_lost(struct fabric *f, const struct fabric_node *n, unsigned port)
{
    uint32_t link_ppm = n->peers[port].drop_ppm;

    if (f->drop_ppm && wire_random(f) % FABRIC_PPM < f->drop_ppm)
        return true;
    return link_ppm && wire_random(f) % FABRIC_PPM < link_ppm;
}

bool fabric_wire_lost(struct fabric *f, const struct fabric_node *n, unsigned port)
{
    return wire_lost(f, n, port);
}

/*
 * Count one packet leaving n at port (xmit) or entering it (rcv), as
 * fabric_traffic.c counts flows: the per-VL and PortOpRcv counters at the
 * receiver.  A VL15 packet (an SMP) counts in no per-SL counter: SL-to-VL
 * mapping does not apply to VL15, its SL means nothing.
 */
void fabric_wire_count(struct fabric_node *n, unsigned port, const struct fabric_wire_pkt *w,
                       bool xmit)
{
    struct board_port_counters *c = board_mem_counters(n->bm, port);
    bool per_sl = w->vl != 15 && w->sl < BOARD_NUM_SLS;

    if (!c)
        return;
    if (xmit) {
        board_mem_counter_add(n->bm, &c->xmit_pkts, 1);
        board_mem_counter_add(n->bm, &c->xmit_data, w->words);
        board_mem_counter_add(n->bm, w->mcast ? &c->multicast_xmit_pkts : &c->unicast_xmit_pkts, 1);
        if (per_sl)
            board_mem_counter_add(n->bm, &c->xmit_data_sl[w->sl], w->words);
        return;
    }
    board_mem_counter_add(n->bm, &c->rcv_pkts, 1);
    board_mem_counter_add(n->bm, &c->rcv_data, w->words);
    board_mem_counter_add(n->bm, w->mcast ? &c->multicast_rcv_pkts : &c->unicast_rcv_pkts, 1);
    if (per_sl)
        board_mem_counter_add(n->bm, &c->rcv_data_sl[w->sl], w->words);
    board_mem_counter_add(n->bm, &c->op_rcv_pkts, 1);
    board_mem_counter_add(n->bm, &c->op_rcv_data, w->words);
    board_mem_counter_add(n->bm, &c->vl_op_packets[w->vl & 0xF], 1);
    board_mem_counter_add(n->bm, &c->vl_op_data[w->vl & 0xF], w->words);
}

void fabric_wire_count_lost(struct fabric_node *r, unsigned rport)
{
    struct board_port_counters *c = board_mem_counters(r->bm, rport);

    if (c)
        board_mem_counter_add(r->bm, &c->rcv_errors, 1);
}

unsigned fabric_wire_vl(const struct fabric_node *n, unsigned in_port, unsigned out_port,
                        unsigned sl)
{
    uint8_t vl[BOARD_NUM_SLS];

    if (!n->is_switch)
        in_port = out_port; /* a CA port's own table */
    if (sl >= BOARD_NUM_SLS || board_sl2vl_get(n->board, in_port, out_port, vl))
        return 0;
    return vl[sl] & 0xF;
}

void fabric_wire_capture(struct fabric *f, const struct pz_pcap_ud *ud)
{
    if (f->pcap && pz_pcap_write_ud(f->pcap, ud) < 0) {
        pzf_log(f->verbose, PZF_LOG_ERROR, "capture stopped: %s", strerror(errno));
        f->pcap = NULL;
    }
}

/* Append the MAD packet, sent on VL vl, to the capture file. */
static void wire_capture(struct fabric *f, const struct fabric_pkt *p, unsigned vl)
{
    struct pz_pcap_ud ud;

    if (!f->pcap)
        return;
    pz_pcap_ud_mad(&ud, p->mad, FABRIC_MAD_SIZE, p->slid, p->dlid, p->sqp & WIRE_QP_MASK,
                   p->dqp & WIRE_QP_MASK);
    if (!fabric_pkey_exempt(p) && p->pkey)
        ud.pkey = p->pkey;
    ud.vl = (uint8_t)vl;
    fabric_wire_capture(f, &ud);
}

void fabric_transmit(struct fabric *f, struct fabric_node *n, unsigned port, struct fabric_pkt *p,
                     bool need_active)
{
    const struct fabric_peer *peer;
    struct fabric_node *r;
    /* SMPs travel on VL15; GMPs on the VL of their SL (0: umad2sim carries none). */
    struct fabric_wire_pkt w = {
        .words = WIRE_MAD_WORDS, .sl = 0, .mcast = fabric_lid_is_mcast(p->dlid)};

    w.vl = p->dqp == 0 ? 15 : (uint8_t)fabric_wire_vl(n, p->port, port, 0);
    p->node = n->index;
    p->port = (uint8_t)port;
    if (port == 0 || port > n->num_ports || !n->peers[port].cabled) {
        fabric_drop(f, p, "no cable on the egress port");
        return;
    }
    if (n->peers[port].unplugged) {
        fabric_drop(f, p, "cable pulled");
        return;
    }
    peer = &n->peers[port];
    r = &f->nodes[peer->node];
    if (!fabric_port_up(n, port, need_active) || !fabric_port_up(r, peer->port, need_active)) {
        fabric_drop(f, p, need_active ? "link not Active" : "link not LinkUp");
        return;
    }
    if (++p->hops > FABRIC_MAX_HOPS) {
        fabric_drop(f, p, "hop limit (routing loop?)");
        return;
    }
    fabric_wire_count(n, port, &w, true);
    if (wire_lost(f, n, port)) {
        fabric_wire_count_lost(r, peer->port);
        f->stats.lost++;
        fabric_drop(f, p, "lost on the cable (drop rate)");
        return;
    }
    fabric_wire_count(r, peer->port, &w, false);
    f->stats.hops++;
    wire_capture(f, p, w.vl);
    p->node = peer->node;
    p->port = peer->port;
    p->kind = FABRIC_PKT_WIRE;
    fabric_enqueue(f, p);
}
