/*
 * fabric_mcast.c - multicast: a LID-routed packet whose DLID is a multicast
 * LID (0xC000..0xFFFE) is replicated at every switch to each port whose bit
 * is set in the MulticastForwardingTable entry of that MLID, except the port
 * it came in on; a copy for port 0 is delivered to the switch itself.  A CA
 * sends it out of its port and accepts every copy that reaches it (the SM
 * only sends copies to member ports).
 *
 * Delivered copies are counted (fabric_stats.mcast_delivered) but given to
 * no client: umad clients have QP0 and QP1 only, which never join multicast
 * groups.  SMPs (QP0) must not be multicast and are dropped.  Partition
 * enforcement applies to every copy at every switch port, as for unicast.
 */
#include "fabric_internal.h"
#include "pzf_log.h"

/* A copy reached (n, port's end port): count it. */
static void mcast_deliver(struct fabric *f, struct fabric_node *n, unsigned port,
                          const struct fabric_pkt *p)
{
    f->stats.mcast_delivered++;
    pzf_log(f->verbose, PZF_LOG_DEBUG, "multicast 0x%04x from LID %u delivered at %s[%u]", p->dlid,
            p->slid, n->name, fabric_end_port(n, port));
}

/* Send a copy of p out of port of switch n, if the port's partition enforcement lets it. */
static void mcast_forward(struct fabric *f, struct fabric_node *n, unsigned port,
                          const struct fabric_pkt *p)
{
    struct fabric_pkt copy = *p;

    if (fabric_pkey_outbound_ok(f, n, port, &copy))
        fabric_transmit(f, n, port, &copy, true);
}

/* Replicate p at switch n (it entered at in_port; 0: from the switch itself). */
static void mcast_switch(struct fabric *f, struct fabric_node *n, unsigned in_port,
                         const struct fabric_pkt *p)
{
    unsigned copies = 0;

    if (p->kind == FABRIC_PKT_WIRE && !fabric_pkey_inbound_ok(f, n, in_port, p))
        return;
    for (unsigned port = 0; port <= n->num_ports; port++) {
        if (port == in_port || !board_mem_mft_has_port(n->bm, p->dlid, port))
            continue;
        copies++;
        if (port == 0)
            mcast_deliver(f, n, 0, p);
        else
            mcast_forward(f, n, port, p);
    }
    if (!copies)
        fabric_drop(f, p, "no MFT port for the multicast LID");
}

void fabric_mcast_route(struct fabric *f, struct fabric_node *n, unsigned in_port,
                        struct fabric_pkt *p)
{
    if (p->dqp == 0) {
        fabric_drop(f, p, "multicast DLID on QP0");
        return;
    }
    if (n->is_switch)
        mcast_switch(f, n, in_port, p);
    else if (p->kind == FABRIC_PKT_ROUTE)
        fabric_transmit(f, n, in_port, p, true);
    else
        mcast_deliver(f, n, in_port, p);
}
