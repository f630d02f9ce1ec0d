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
#include <string.h>
#include <time.h>

#include <infiniband/mad.h>

#include "fabric_internal.h"
#include "pzf_log.h"
#include "smi_dr.h"

#define FABRIC_RETURN_PATH_OFFS 192 /* libibmad has the path only as a whole */

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
}

void fabric_agent_client_gone(struct fabric *f, unsigned client)
{
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

/* Remember that the request being processed now waits for the agent. */
static void fabric_agent_defer(struct fabric *f, const uint8_t *mad)
{
    struct fabric_deferred *slot = &f->deferred[0];

    if (!f->run.active || !f->run.req)
        return;
    f->run.answered = true; /* answered later, or timed out by fabric_agent_expire */
    for (size_t i = 0; i < FABRIC_DEFERRED_MAX; i++) {
        if (!f->deferred[i].used) {
            slot = &f->deferred[i];
            break;
        }
        if (f->deferred[i].deadline_ns < slot->deadline_ns)
            slot = &f->deferred[i]; /* full: reuse the oldest */
    }
    if (!slot->used)
        f->num_deferred++;
    slot->used = true;
    slot->client = f->run.client;
    slot->tid = mad_get_field64((void *)mad, 0, IB_MAD_TRID_F);
    slot->deadline_ns = fabric_agent_now() + FABRIC_AGENT_TIMEOUT_NS;
    slot->req = *f->run.req;
}

void fabric_agent_settle(struct fabric *f, unsigned client, const uint8_t *mad)
{
    uint64_t tid;

    if (!f->num_deferred || !mad_get_field((void *)mad, 0, IB_MAD_RESPONSE_F))
        return;
    tid = mad_get_field64((void *)mad, 0, IB_MAD_TRID_F);
    for (size_t i = 0; i < FABRIC_DEFERRED_MAX; i++) {
        if (f->deferred[i].used && f->deferred[i].client == client && f->deferred[i].tid == tid) {
            f->deferred[i].used = false;
            f->num_deferred--;
        }
    }
}

void fabric_agent_expire(struct fabric *f)
{
    uint64_t now;

    if (!f->num_deferred)
        return;
    now = fabric_agent_now();
    for (size_t i = 0; i < FABRIC_DEFERRED_MAX; i++) {
        struct fabric_deferred *d = &f->deferred[i];

        if (!d->used || d->deadline_ns > now)
            continue;
        d->used = false;
        f->num_deferred--;
        if (fabric_client_attached(f, d->client))
            fabric_client_timeout(f, d->client, &d->req);
    }
}

/* Hand a MAD that ends at switch n to its agent; false if there is none. */
bool fabric_agent_deliver(struct fabric *f, struct fabric_node *n, const struct fabric_pkt *p)
{
    struct fabric_mad m;

    if (n->agent_client < 0 || !fabric_client_attached(f, (unsigned)n->agent_client))
        return false;
    memcpy(m.mad, p->mad, sizeof(m.mad));
    m.slid = p->slid;
    m.dlid = p->dlid;
    m.sqp = p->sqp;
    m.dqp = p->dqp;
    m.status = 0;
    m.len = p->len;
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
