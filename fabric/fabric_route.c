/*
 * fabric_route.c - moving packets through the fabric, one step per work
 * item: a cable hop, a routing decision at a switch, or a MAD given to an
 * SMA or a client.  Nothing here calls itself; what a step produces is
 * queued and handled by fabric_run_queue().
 *
 * Directed-route SMPs (LRH DLID permissive) go from SMA to SMA, each SMA
 * deciding the next hop; a hop needs PhysState LinkUp at both ends.
 * LID-routed packets follow each switch's LFT (entry 0, or the switch's own
 * LID range: its management port); every hop needs PortState Active at both
 * ends, as on hardware (cable hops: fabric_wire.c).  Multicast DLIDs follow
 * the MFTs (fabric_mcast.c).  Switch ports enforce partitions on LID-routed
 * packets (fabric_pkey.c).  A packet reaching the LID range of its
 * destination port is delivered there: SMP requests to the node's SMA,
 * everything else (responses, traps, SA and other classes) to a client
 * attached there.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "fabric_internal.h"
#include "pzf_array.h"
#include "pzf_log.h"
#include "smi_dr.h"

int fabric_enqueue(struct fabric *f, const struct fabric_pkt *p)
{
    struct fabric_queue *q = &f->queue;

    if (q->count >= FABRIC_QUEUE_MAX) {
        fabric_drop(f, p, "work queue full");
        return -ENOBUFS;
    }
    if (q->count == q->cap) {
        struct fabric_pkt *items =
            pzf_ring_grow(q->items, q->head, q->count, &q->cap, sizeof(*items), 64);

        if (!items) {
            fabric_drop(f, p, "out of memory");
            return -ENOMEM;
        }
        q->items = items;
    }
    q->items[(q->head + q->count) % q->cap] = *p;
    q->count++;
    return 0;
}

/* Take the oldest packet off the queue; returns false if it is empty. */
static bool fabric_dequeue(struct fabric *f, struct fabric_pkt *p)
{
    struct fabric_queue *q = &f->queue;

    if (!q->count)
        return false;
    *p = q->items[q->head];
    q->head = (q->head + 1) % q->cap;
    q->count--;
    return true;
}

void fabric_drop(struct fabric *f, const struct fabric_pkt *p, const char *why)
{
    const char *node = p->node < f->num_nodes ? f->nodes[p->node].name : "?";

    f->stats.dropped++;
    pzf_log(f->verbose, PZF_LOG_DEBUG,
            "drop at %s[%u]: %s (class 0x%02x method 0x%02x attr 0x%04x dlid %u)", node, p->port,
            why, mad_get_field((void *)p->mad, 0, IB_MAD_MGMTCLASS_F),
            mad_get_field((void *)p->mad, 0, IB_MAD_METHOD_F) |
                (mad_get_field((void *)p->mad, 0, IB_MAD_RESPONSE_F) << 7),
            mad_get_field((void *)p->mad, 0, IB_MAD_ATTRID_F), p->dlid);
}

uint16_t fabric_port_lid(const struct fabric_node *n, unsigned port)
{
    return board_mem_lid(n->bm, fabric_end_port(n, port));
}

bool fabric_lid_is_mine(const struct fabric_node *n, unsigned port, uint16_t dlid)
{
    unsigned ep = fabric_end_port(n, port);
    uint32_t base = board_mem_lid(n->bm, ep);

    return base != 0 && dlid >= base && dlid < base + (1u << board_mem_lmc(n->bm, ep));
}

/*
 * Hand a packet to a client at (n, end port of port), or drop it; a GMP
 * request's P_Key is remembered for the client's answer.
 */
static void fabric_client_or_drop(struct fabric *f, struct fabric_node *n, unsigned port,
                                  const struct fabric_pkt *p)
{
    unsigned ep = fabric_end_port(n, port);

    if (p->dlid != FABRIC_PERMISSIVE_LID)
        fabric_pkey_note_request(f, n, ep, p);
    if (!fabric_to_client(f, n, ep, p))
        fabric_drop(f, p, "no client for it");
}

/* Give an SMP to the node's SMA and queue what it answers. */
static void fabric_sma_call(struct fabric *f, struct fabric_node *n, unsigned in_port,
                            const struct fabric_pkt *p)
{
    struct mad_addr out_addr;
    uint8_t out[IB_MAD_SIZE];

    if (n->external) {
        fabric_agent_smp(f, n, in_port, p);
        return;
    }
    f->stats.sma_calls++;
    fabric_mark_dirty(f, n);
    if (fabric_node_process(f, n, in_port, p, &out_addr, out) == MAD_SEND)
        fabric_sma_output(f, n, in_port, &out_addr, out, p->hops);
    else
        fabric_drop(f, p, "SMA did not answer");
}

/*
 * An SMInfo request for a node where a subnet manager client listens goes
 * to that client (OpenSM answers SMInfo itself); returns true if it did.
 */
static bool fabric_sminfo_to_sm(struct fabric *f, struct fabric_node *n, unsigned in_port,
                                const struct fabric_pkt *p)
{
    struct smi_node node = {.num_ports = n->num_ports, .is_switch = n->is_switch};
    struct fabric_pkt copy;
    unsigned port = 0;

    if (mad_get_field((void *)p->mad, 0, IB_MAD_ATTRID_F) != IB_ATTR_SMINFO ||
        mad_get_field((void *)p->mad, 0, IB_MAD_RESPONSE_F) ||
        !fabric_has_sm_client(f, n, fabric_end_port(n, in_port)))
        return false;
    copy = *p;
    if (mad_get_field(copy.mad, 0, IB_MAD_MGMTCLASS_F) == IB_SMI_DIRECT_CLASS &&
        smi_dr_receive(copy.mad, in_port, &node, &port) != SMI_LOCAL)
        return false; /* a hop on the way elsewhere: the SMA forwards it */
    return fabric_to_client(f, n, fabric_end_port(n, in_port), &copy);
}

/* An SMP (request, or a DR SMP passing through) for this node's subnet management interface. */
static void fabric_smp_in(struct fabric *f, struct fabric_node *n, unsigned in_port,
                          const struct fabric_pkt *p)
{
    if (!fabric_sminfo_to_sm(f, n, in_port, p))
        fabric_sma_call(f, n, in_port, p);
}

/* A directed-route SMP arrived over the cable of in_port. */
static void fabric_dr_arrive(struct fabric *f, struct fabric_node *n, unsigned in_port,
                             struct fabric_pkt *p)
{
    bool returning = mad_get_field(p->mad, 0, IB_DRSMP_DIRECTION_F);
    unsigned hp = mad_get_field(p->mad, 0, IB_DRSMP_HOPPTR_F);
    unsigned drslid = mad_get_field(p->mad, 0, IB_DRSMP_DRSLID_F);

    if (returning && hp == 1 && drslid == FABRIC_PERMISSIVE_LID) {
        /* Back at the node that sent it: the stack hands it to the requester. */
        mad_set_field(p->mad, 0, IB_DRSMP_HOPPTR_F, 0);
        fabric_client_or_drop(f, n, in_port, p);
        return;
    }
    fabric_smp_in(f, n, in_port, p);
}

/* A LID-routed packet reached the LID range of (n, in_port's end port). */
static void fabric_lid_local(struct fabric *f, struct fabric_node *n, unsigned in_port,
                             struct fabric_pkt *p)
{
    unsigned mgmt_class = mad_get_field(p->mad, 0, IB_MAD_MGMTCLASS_F);
    bool response = mad_get_field(p->mad, 0, IB_MAD_RESPONSE_F);
    unsigned method = mad_get_field(p->mad, 0, IB_MAD_METHOD_F);

    if (mgmt_class == IB_SMI_DIRECT_CLASS) {
        /* Returning at the end of the leading LID-routed leg: for the requester. */
        if (response && mad_get_field(p->mad, 0, IB_DRSMP_HOPPTR_F) == 0)
            fabric_client_or_drop(f, n, in_port, p);
        else
            fabric_smp_in(f, n, in_port, p);
    } else if (mgmt_class == IB_SMI_CLASS && !response && method != IB_MAD_METHOD_TRAP) {
        fabric_smp_in(f, n, in_port, p);
    } else if (!fabric_gmp_local(f, n, in_port, p) && !fabric_repath_local(f, n, in_port, p)) {
        fabric_client_or_drop(f, n, in_port, p);
    }
}

/*
 * Route a LID-routed packet at node n: it entered on in_port (or was sent
 * by the node's stack, kind FABRIC_PKT_ROUTE).
 */
static void fabric_lid_route(struct fabric *f, struct fabric_node *n, unsigned in_port,
                             struct fabric_pkt *p)
{
    unsigned out;

    if (p->kind == FABRIC_PKT_ROUTE && !p->pkey)
        fabric_pkey_choose(f, n, in_port, p);
    if (fabric_lid_is_mcast(p->dlid)) {
        fabric_mcast_route(f, n, in_port, p);
    } else if (n->is_switch) {
        if (p->kind == FABRIC_PKT_WIRE && !fabric_pkey_inbound_ok(f, n, in_port, p))
            return;
        if (fabric_lid_is_mine(n, 0, p->dlid))
            out = 0;
        else
            out = board_mem_lft_entry(n->bm, p->dlid);
        if (out == 0)
            fabric_lid_local(f, n, in_port, p);
        else if (out > n->num_ports)
            fabric_drop(f, p, "no LFT entry for the DLID");
        else if (fabric_pkey_outbound_ok(f, n, out, p))
            fabric_transmit(f, n, out, p, true);
    } else if (fabric_lid_is_mine(n, in_port, p->dlid)) {
        fabric_lid_local(f, n, in_port, p);
    } else if (p->kind == FABRIC_PKT_ROUTE) {
        fabric_transmit(f, n, in_port, p, true);
    } else {
        fabric_drop(f, p, "DLID is not this CA port's");
    }
}

void fabric_sma_output(struct fabric *f, struct fabric_node *n, unsigned in_port,
                       const struct mad_addr *addr, const uint8_t *mad, unsigned hops)
{
    struct fabric_pkt p;

    memset(&p, 0, sizeof(p));
    memcpy(p.mad, mad, FABRIC_MAD_SIZE);
    p.node = n->index;
    p.hops = (uint16_t)hops;
    if (addr->lid_routed) {
        p.slid = addr->slid;
        p.dlid = addr->dlid;
        p.port = (uint8_t)fabric_end_port(n, addr->port ? addr->port : in_port);
        p.kind = FABRIC_PKT_ROUTE;
        fabric_enqueue(f, &p);
        return;
    }
    p.slid = FABRIC_PERMISSIVE_LID;
    p.dlid = FABRIC_PERMISSIVE_LID;
    if (addr->port == 0) {
        /* A response for a requester on this node's own stack. */
        p.port = (uint8_t)in_port;
        fabric_client_or_drop(f, n, in_port, &p);
        return;
    }
    fabric_transmit(f, n, addr->port, &p, false);
}

/* Handle one queued packet. */
static void fabric_process(struct fabric *f, struct fabric_pkt *p)
{
    struct fabric_node *n = &f->nodes[p->node];

    switch (p->kind) {
    case FABRIC_PKT_WIRE:
        if (p->dlid != FABRIC_PERMISSIVE_LID)
            fabric_lid_route(f, n, p->port, p);
        else if (mad_get_field(p->mad, 0, IB_MAD_MGMTCLASS_F) == IB_SMI_DIRECT_CLASS)
            fabric_dr_arrive(f, n, p->port, p);
        else
            fabric_drop(f, p, "permissive DLID on a LID-routed class");
        break;
    case FABRIC_PKT_ROUTE:
        fabric_lid_route(f, n, p->port, p);
        break;
    case FABRIC_PKT_SMA:
        fabric_sma_call(f, n, p->port, p);
        break;
    default:
        fabric_drop(f, p, "bad work item");
        break;
    }
}

void fabric_run_queue(struct fabric *f)
{
    struct fabric_pkt p;

    while (fabric_dequeue(f, &p))
        fabric_process(f, &p);
}
