/*
 * fabric_wire.c - a packet crossing a cable: both ends must be plugged in
 * and trained (Active for LID-routed packets), the hop limit holds, the
 * drop rate may lose it; the ports' hardware counters count it and the
 * capture file, if any, records it with its LRH, BTH and DETH.
 *
 * Counters (struct board_port_counters): the egress port counts
 * PortXmitPkts, PortXmitData (LRH..ICRC in 4-byte words, 72 for a MAD) and
 * PortUnicast/MulticastXmitPkts, the ingress port the Rcv ones.  A packet
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

/* Whether the drop rate loses this traversal. */
static bool wire_lost(struct fabric *f)
{
    if (f->drop_ppm == 0)
        return false;
    return wire_random(f) % FABRIC_PPM < f->drop_ppm;
}

/* Count one packet leaving n at port (xmit) or entering it (rcv). */
static void wire_count(struct fabric_node *n, unsigned port, const struct fabric_pkt *p, bool xmit)
{
    struct board_port_counters *c = board_mem_counters(n->bm, port);
    bool mcast = fabric_lid_is_mcast(p->dlid);

    if (!c)
        return;
    if (xmit) {
        board_mem_counter_add(n->bm, &c->xmit_pkts, 1);
        board_mem_counter_add(n->bm, &c->xmit_data, WIRE_MAD_WORDS);
        board_mem_counter_add(n->bm, mcast ? &c->multicast_xmit_pkts : &c->unicast_xmit_pkts, 1);
    } else {
        board_mem_counter_add(n->bm, &c->rcv_pkts, 1);
        board_mem_counter_add(n->bm, &c->rcv_data, WIRE_MAD_WORDS);
        board_mem_counter_add(n->bm, mcast ? &c->multicast_rcv_pkts : &c->unicast_rcv_pkts, 1);
    }
}

/* Count a packet lost on the cable: sent by (n, port), received corrupted by (r, rport). */
static void wire_count_lost(struct fabric_node *r, unsigned rport)
{
    struct board_port_counters *c = board_mem_counters(r->bm, rport);

    if (c)
        board_mem_counter_add(r->bm, &c->rcv_errors, 1);
}

/* Append the packet to the capture file; a failing file stops the capture. */
static void wire_capture(struct fabric *f, const struct fabric_pkt *p)
{
    struct pz_pcap_ud ud;

    if (!f->pcap)
        return;
    pz_pcap_ud_mad(&ud, p->mad, FABRIC_MAD_SIZE, p->slid, p->dlid, p->sqp & WIRE_QP_MASK,
                   p->dqp & WIRE_QP_MASK);
    if (!fabric_pkey_exempt(p) && p->pkey)
        ud.pkey = p->pkey;
    if (pz_pcap_write_ud(f->pcap, &ud) < 0) {
        pzf_log(f->verbose, PZF_LOG_ERROR, "capture stopped: %s", strerror(errno));
        f->pcap = NULL;
    }
}

void fabric_transmit(struct fabric *f, struct fabric_node *n, unsigned port, struct fabric_pkt *p,
                     bool need_active)
{
    const struct fabric_peer *peer;
    struct fabric_node *r;

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
    wire_count(n, port, p, true);
    if (wire_lost(f)) {
        wire_count_lost(r, peer->port);
        f->stats.lost++;
        fabric_drop(f, p, "lost on the cable (drop rate)");
        return;
    }
    wire_count(r, peer->port, p, false);
    f->stats.hops++;
    wire_capture(f, p);
    p->node = peer->node;
    p->port = peer->port;
    p->kind = FABRIC_PKT_WIRE;
    fabric_enqueue(f, p);
}
