/*
 * fabric_agent.c - switches served by an external agent (portzerod with
 * board = sim).
 *
 * For an external switch the fabric plays the part of the switch's kernel:
 * it does the directed-route receive processing with the same pure
 * functions the SMA uses (smi_dr.c), forwards what passes through, and hands
 * the agent's umad client only the SMPs that end at the switch -- with
 * HopPointer = HopCount + 1 and the ingress port in ReturnPath[HopCount], as
 * Linux does for switch devices.  The agent's answers come back as MADs
 * from that client and are routed from the switch.  Because the agent
 * answers later, a request handed to it is timed out by the fabric if no
 * answer comes back in time (umad2sim has no timer of its own).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/mad.h>

#include "fabric_internal.h"
#include "pzf_log.h"
#include "smi_dr.h"

#define FABRIC_RETURN_PATH_OFFS 192 /* libibmad has the path only as a whole */

static void fabric_deferred_client_gone(struct fabric *f, unsigned client);

/* Monotonic time in nanoseconds. */
static uint64_t fabric_agent_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int fabric_agent_expect(struct fabric *f, size_t node)
{
    if (node >= f->num_nodes || !f->nodes[node].is_switch)
        return -EINVAL;
    f->nodes[node].external = true;
    fabric_timer_update(f, &f->nodes[node]); /* its agent runs its timers */
    return 0;
}

int fabric_agent_attach(struct fabric *f, size_t node, unsigned client)
{
    struct fabric_node *n;

    if (node >= f->num_nodes || !f->nodes[node].is_switch)
        return -EINVAL;
    n = &f->nodes[node];
    if (client >= f->num_clients || !f->clients[client].used || f->clients[client].node != node)
        return -ENOENT;
    if (n->agent_client >= 0 && (size_t)n->agent_client != client)
        return -EBUSY;
    n->external = true;
    fabric_timer_update(f, n);
    n->agent_client = client;
    pzf_log(f->verbose, PZF_LOG_INFO, "switch %s is served by the agent of client %u", n->name,
            client);
    return 0;
}

void fabric_agent_detach(struct fabric *f, size_t node)
{
    if (node >= f->num_nodes || f->nodes[node].agent_client < 0)
        return;
    pzf_log(f->verbose, PZF_LOG_INFO, "switch %s lost its agent: unreachable until it returns",
            f->nodes[node].name);
    f->nodes[node].agent_client = -1;
    f->nodes[node].rx_count = 0; /* its receive records are no next agent's */
}

void fabric_agent_client_gone(struct fabric *f, unsigned client)
{
    fabric_deferred_client_gone(f, client);
    for (size_t i = 0; i < f->num_nodes; i++)
        if (f->nodes[i].agent_client == (long)client)
            fabric_agent_detach(f, i);
}

const struct board *fabric_node_board(const struct fabric *f, size_t node)
{
    return node < f->num_nodes ? f->nodes[node].board : NULL;
}

bool fabric_node_is_switch(const struct fabric *f, size_t node)
{
    return node < f->num_nodes && f->nodes[node].is_switch;
}

/* The time the request m may wait for its agent: its client's timeout, or the default. */
static uint64_t fabric_agent_wait_ns(const struct fabric_mad *m)
{
    return m->timeout_ms ? (uint64_t)m->timeout_ms * 1000000u : FABRIC_AGENT_TIMEOUT_NS;
}

/* Time out the deferred request due first now: the heap is full. */
static void fabric_deferred_evict(struct fabric *f)
{
    struct fabric_deferred d;

    fabric_deferred_remove(&f->deferred, 0, &d);
    if (fabric_client_attached(f, d.client))
        fabric_client_timeout(f, d.client, &d.req);
}

/*
 * Remember that the request being processed now waits for the agent, if
 * it waits for an answer at all (a TrapRepress, a Send or a Trap does not),
 * until its client's own timeout runs out.
 */
static void fabric_agent_defer(struct fabric *f, const uint8_t *mad)
{
    struct fabric_deferred d;

    if (!f->run.active || !f->run.req || !fabric_expects_answer(mad))
        return;
    memset(&d, 0, sizeof(d));
    d.client = f->run.client;
    d.tid = mad_get_field64((void *)mad, 0, IB_MAD_TRID_F);
    d.deadline_ns = fabric_agent_now() + fabric_agent_wait_ns(f->run.req);
    d.req = *f->run.req;
    if (fabric_deferred_add(&f->deferred, &d)) {
        if (!f->deferred.len)
            return; /* no room at all: fabric_client_send times it out now */
        fabric_deferred_evict(f);
        if (fabric_deferred_add(&f->deferred, &d))
            return;
    }
    f->run.answered = true; /* answered later, or timed out by fabric_agent_expire */
}

void fabric_agent_settle(struct fabric *f, unsigned client, const uint8_t *mad)
{
    long i;

    if (!f->deferred.len || !mad_get_field((void *)mad, 0, IB_MAD_RESPONSE_F))
        return;
    i = fabric_deferred_find(&f->deferred, client, mad_get_field64((void *)mad, 0, IB_MAD_TRID_F));
    if (i >= 0)
        fabric_deferred_remove(&f->deferred, (size_t)i, NULL);
}

void fabric_agent_lost(struct fabric *f, const uint8_t *mad)
{
    struct fabric_deferred d;
    long i;

    if (!f->deferred.len)
        return;
    i = fabric_deferred_find(&f->deferred, -1, mad_get_field64((void *)mad, 0, IB_MAD_TRID_F));
    if (i < 0)
        return;
    fabric_deferred_remove(&f->deferred, (size_t)i, &d);
    if (fabric_client_attached(f, d.client))
        fabric_client_timeout(f, d.client, &d.req);
}

void fabric_agent_expire(struct fabric *f)
{
    uint64_t now;

    if (!f->deferred.len)
        return;
    now = fabric_agent_now();
    while (fabric_deferred_next(&f->deferred) <= now) {
        struct fabric_deferred d;

        fabric_deferred_remove(&f->deferred, 0, &d);
        if (fabric_client_attached(f, d.client))
            fabric_client_timeout(f, d.client, &d.req);
    }
}

uint64_t fabric_agent_next_deadline(const struct fabric *f)
{
    return fabric_deferred_next(&f->deferred);
}

/* Forget the deferred requests of a client that left (its id may be reused). */
static void fabric_deferred_client_gone(struct fabric *f, unsigned client)
{
    fabric_deferred_drop_client(&f->deferred, client);
}

void fabric_agent_free(struct fabric *f)
{
    for (size_t i = 0; f->nodes && i < f->num_nodes; i++)
        free(f->nodes[i].rx);
    fabric_deferred_free(&f->deferred);
}

/*
 * Record what the switch's SMI knows of an SMP handed to its agent: the
 * ingress port and the hop state (umad carries neither the port nor,
 * through umad2sim, the MAD's last 32 bytes: ReturnPath[32..63] of a DR SMP).
 */
static void fabric_agent_note_rx(struct fabric_node *n, unsigned in_port, const uint8_t *mad)
{
    struct fabric_agent_rx *e;

    if (!n->rx && !(n->rx = calloc(FABRIC_AGENT_RX, sizeof(*n->rx))))
        return; /* the agent falls back to what the MAD says */
    if (n->rx_count == FABRIC_AGENT_RX) {
        n->rx_head = (n->rx_head + 1) % FABRIC_AGENT_RX; /* forget the oldest */
        n->rx_count--;
    }
    e = &n->rx[(n->rx_head + n->rx_count++) % FABRIC_AGENT_RX];
    e->tid = mad_get_field64((void *)mad, 0, IB_MAD_TRID_F);
    e->rx.port = (uint8_t)in_port;
    e->rx.hop_ptr = (uint8_t)mad_get_field((void *)mad, 0, IB_DRSMP_HOPPTR_F);
    memcpy(e->rx.tail, mad + BOARD_MAD_TAIL_OFFS, BOARD_MAD_TAIL);
}

int fabric_agent_mad_rx(struct fabric *f, size_t node, uint64_t tid, struct board_mad_rx *rx)
{
    struct fabric_node *n;

    if (node >= f->num_nodes || !f->nodes[node].rx)
        return -ENOENT;
    n = &f->nodes[node];
    for (unsigned i = 0; i < n->rx_count; i++) {
        const struct fabric_agent_rx *e = &n->rx[(n->rx_head + i) % FABRIC_AGENT_RX];

        if (e->tid != tid)
            continue;
        *rx = e->rx;
        n->rx_head = (n->rx_head + i + 1) % FABRIC_AGENT_RX; /* it and the older ones */
        n->rx_count -= i + 1;
        return 0;
    }
    return -ENOENT;
}

/* Hand a MAD that ends at switch n to its agent; false if there is none. */
bool fabric_agent_deliver(struct fabric *f, struct fabric_node *n, const struct fabric_pkt *p)
{
    struct fabric_mad m;

    if (n->agent_client < 0 || !fabric_client_attached(f, (unsigned)n->agent_client))
        return false;
    fabric_mad_of(&m, p);
    f->stats.to_clients++;
    fabric_agent_defer(f, p->mad);
    if (f->deliver)
        f->deliver(f->deliver_arg, (unsigned)n->agent_client, &m);
    return true;
}

/* Queue p LID-routed from switch n to dlid. */
static void fabric_agent_route(struct fabric *f, struct fabric_node *n, struct fabric_pkt *p,
                               uint16_t dlid)
{
    p->slid = fabric_port_lid(n, 0);
    p->dlid = dlid;
    p->node = n->index;
    p->port = 0;
    p->kind = FABRIC_PKT_ROUTE;
    fabric_enqueue(f, p);
}

void fabric_agent_smp(struct fabric *f, struct fabric_node *n, unsigned in_port,
                      const struct fabric_pkt *p)
{
    struct smi_node node = {.num_ports = n->num_ports, .is_switch = true};
    struct fabric_pkt q = *p;
    unsigned port = 0;

    if (mad_get_field(q.mad, 0, IB_MAD_MGMTCLASS_F) == IB_SMI_DIRECT_CLASS) {
        switch (smi_dr_receive(q.mad, in_port, &node, &port)) {
        case SMI_FORWARD:
            /* A directed-route hop: the LRH carries the permissive LIDs. */
            q.slid = q.dlid = FABRIC_PERMISSIVE_LID;
            fabric_transmit(f, n, port, &q, false);
            return;
        case SMI_LID_DRDLID:
            fabric_agent_route(f, n, &q, (uint16_t)mad_get_field(q.mad, 0, IB_DRSMP_DRDLID_F));
            return;
        case SMI_LID_DRSLID:
            fabric_agent_route(f, n, &q, (uint16_t)mad_get_field(q.mad, 0, IB_DRSMP_DRSLID_F));
            return;
        case SMI_TO_SM:
            if (!fabric_to_client(f, n, 0, &q))
                fabric_drop(f, &q, "no SM on this switch");
            return;
        case SMI_DISCARD:
        case SMI_LID_SOURCE:
            fabric_drop(f, &q, "directed-route rules");
            return;
        case SMI_LOCAL:
            break;
        }
    }
    if (!mad_get_field(q.mad, 0, IB_MAD_RESPONSE_F))
        fabric_agent_note_rx(n, in_port, q.mad);
    if (!fabric_agent_deliver(f, n, &q))
        fabric_drop(f, &q, "switch agent not running");
}

bool fabric_agent_output(struct fabric *f, unsigned client, const struct fabric_mad *m)
{
    struct fabric_node *n;
    struct fabric_pkt p;
    unsigned hp, port;

    if (client >= f->num_clients || !f->clients[client].used)
        return false;
    n = &f->nodes[f->clients[client].node];
    if (!n->external || n->agent_client != (long)client)
        return false;
    memset(&p, 0, sizeof(p));
    memcpy(p.mad, m->mad, FABRIC_MAD_SIZE);
    p.sqp = m->sqp;
    p.dqp = m->dqp;
    p.node = n->index;
    if (m->dlid != FABRIC_PERMISSIVE_LID && m->dlid != 0) {
        /*
         * A request of the agent's own that waits for an answer (the IP
         * plane's SA join or path query) is a host's request: the ordinary
         * client path notes its TID, so the answer comes back to this client.
         */
        if (fabric_expects_answer(p.mad))
            return false;
        fabric_agent_route(f, n, &p, m->dlid); /* LID-routed answer or trap */
        return true;
    }
    if (mad_get_field(p.mad, 0, IB_MAD_MGMTCLASS_F) != IB_SMI_DIRECT_CLASS) {
        fabric_drop(f, &p, "agent sent a permissive DLID on a LID-routed class");
        return true;
    }
    /*
     * A directed-route request the agent originates itself (portzerod's
     * neighbour discovery: SubnGet(NodeInfo) out of one port, D bit clear)
     * leaves through the switch's kernel like any host's: the ordinary
     * client path (fabric_host_send) does the send-side hop and notes its
     * TID, so the answer comes back to this client.
     */
    if (!mad_get_field(p.mad, 0, IB_MAD_RESPONSE_F) &&
        !mad_get_field(p.mad, 0, IB_DRSMP_DIRECTION_F))
        return false;
    /* A directed-route answer: the agent's SMA set the hop pointer. */
    p.slid = p.dlid = FABRIC_PERMISSIVE_LID;
    hp = mad_get_field(p.mad, 0, IB_DRSMP_HOPPTR_F);
    if (hp == 0) {
        if (!fabric_to_client(f, n, 0, &p))
            fabric_drop(f, &p, "no requester on this switch");
        return true;
    }
    port = hp < 64 ? p.mad[FABRIC_RETURN_PATH_OFFS + hp] : 0;
    fabric_transmit(f, n, port, &p, false);
    return true;
}
