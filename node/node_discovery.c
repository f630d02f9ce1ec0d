/*
 * node_discovery.c - the neighbour discovery that tells the congestion
 * monitor which ports face a CA.
 *
 * A switch's agent cannot ask its hardware what is cabled, so it asks the
 * neighbour: every NODE_SCAN_NS the ports' states are read; a port that
 * became Active gets a directed-route SubnGet(NodeInfo), HopCount 1,
 * InitialPath [0, port], DrSLID = DrDLID = 0xFFFF, sent through the send
 * hook; NodeType in the answer sets the peer.  No answer in 1 s: resent, 3
 * times, then retried every 10 s.  A port that leaves Active forgets its
 * peer (the cable may move) and is asked again when Active again.
 */
#include "node_internal.h"

#include <infiniband/mad.h>

#include "mad_header.h"

#define NODE_SCAN_NS 200000000ull          /* port states scanned this often */
#define NODE_DISC_TIMEOUT_NS 1000000000ull /* answer timeout of one discovery SMP */
#define NODE_DISC_TRIES 3                  /* sends before a port's discovery gives up */
#define NODE_DISC_RETRY_NS 10000000000ull  /* then it starts again this much later */
#define NODE_PERMISSIVE_LID 0xFFFF

void node_discovery_reset(struct node *n)
{
    for (unsigned p = 0; p <= n->num_ports; p++)
        n->ports[p] = (struct node_port){0};
    n->next_disc_scan_ns = 0;
}

uint64_t node_discovery_deadline(const struct node *n)
{
    uint64_t next = n->next_disc_scan_ns;

    for (unsigned p = 1; p <= n->num_ports; p++) {
        const struct node_port *pp = &n->ports[p];

        if ((pp->disc == NODE_DISC_WAIT || pp->disc == NODE_DISC_FAILED) && pp->deadline_ns < next)
            next = pp->deadline_ns;
    }
    return next;
}

/* Build the DR SubnGet(NodeInfo) out of port with HopCount 1 and TID tid. */
static void node_disc_smp(uint8_t *mad, unsigned port, uint32_t tid)
{
    const uint8_t path[2] = {0, (uint8_t)port}; /* InitialPath [0, port] */

    mad_header_init(mad, IB_SMI_DIRECT_CLASS, 1, IB_MAD_METHOD_GET, tid, IB_ATTR_NODE_INFO, 0);
    mad_dr_init(mad, 1, 0, NODE_PERMISSIVE_LID, NODE_PERMISSIVE_LID, path);
}

/* Send a discovery SMP out of port (a failed send counts as a try); returns 0 or -1. */
static int node_disc_send(struct node *n, unsigned port, uint64_t now)
{
    struct node_port *pp = &n->ports[port];
    struct mad_addr to = {.lid_routed = false, .dlid = NODE_PERMISSIVE_LID};
    uint8_t mad[IB_MAD_SIZE];

    pp->tid = NODE_DISC_TID_TAG | ((++n->disc_seq & 0xFFFFFu) << 8) | (port & 0xFFu);
    node_disc_smp(mad, port, pp->tid);
    pp->disc = NODE_DISC_WAIT;
    pp->tries++;
    pp->deadline_ns = now + NODE_DISC_TIMEOUT_NS;
    if (!n->hooks.send || n->hooks.send(n->hooks.arg, mad, &to)) {
        node_log(n, NODE_LOG_WARN, "discovery SMP out of port %u could not be sent", port);
        return -1;
    }
    node_log(n, NODE_LOG_DEBUG, "asked the neighbour at port %u for its NodeInfo", port);
    return 0;
}

/* Start discovering the neighbour of port. */
static void node_disc_start(struct node *n, unsigned port, uint64_t now)
{
    n->ports[port].tries = 0;
    node_disc_send(n, port, now);
}

/* Retry or give up discoveries whose answer did not come in time. */
static void node_disc_timeouts(struct node *n, uint64_t now)
{
    for (unsigned p = 1; p <= n->num_ports; p++) {
        struct node_port *pp = &n->ports[p];

        if (pp->deadline_ns > now)
            continue;
        if (pp->disc == NODE_DISC_FAILED && pp->active) {
            node_disc_start(n, p, now);
        } else if (pp->disc == NODE_DISC_WAIT && pp->tries < NODE_DISC_TRIES) {
            node_disc_send(n, p, now);
        } else if (pp->disc == NODE_DISC_WAIT) {
            node_log(n, NODE_LOG_WARN, "no answer from the neighbour at port %u", p);
            pp->disc = NODE_DISC_FAILED;
            pp->deadline_ns = now + NODE_DISC_RETRY_NS;
        }
    }
}

/*
 * Read every port's state: a port that became Active has its neighbour
 * discovered; one that left Active forgets it (the cable may move).
 */
static void node_disc_scan(struct node *n, uint64_t now)
{
    for (unsigned p = 1; p <= n->num_ports; p++) {
        struct node_port *pp = &n->ports[p];
        struct board_port_status st;
        bool active =
            board_port_status(n->board, p, &st) == 0 && st.port_state == BOARD_PORT_ACTIVE;

        if (active && !pp->active) {
            pp->active = true;
            node_disc_start(n, p, now);
        } else if (!active && pp->active) {
            pp->active = false;
            pp->disc = NODE_DISC_IDLE;
            cong_monitor_set_peer(n->mon, p, CONG_PEER_UNKNOWN);
        }
    }
}

void node_discovery_poll(struct node *n, uint64_t now)
{
    if (now >= n->next_disc_scan_ns) {
        n->next_disc_scan_ns = now + NODE_SCAN_NS;
        node_disc_scan(n, now);
    }
    node_disc_timeouts(n, now);
}

/* The peer a NodeInfo NodeType stands for. */
static enum cong_peer node_peer_of(unsigned node_type)
{
    switch (node_type) {
    case 1: /* channel adapter */
        return CONG_PEER_CA;
    case 2: /* switch */
        return CONG_PEER_SWITCH;
    default: /* a router, or nonsense: never a hot-spot */
        return CONG_PEER_UNKNOWN;
    }
}

/* Whether mad is a DR GetResp with the discovery tag for one of the ports. */
static bool node_disc_is_answer(const struct node *n, const uint8_t *mad, uint32_t tid)
{
    unsigned port = tid & 0xFFu;

    return (tid & NODE_DISC_TID_MASK) == NODE_DISC_TID_TAG &&
           mad_get_field((void *)mad, 0, IB_MAD_MGMTCLASS_F) == IB_SMI_DIRECT_CLASS &&
           mad_get_field((void *)mad, 0, IB_MAD_METHOD_F) == IB_MAD_METHOD_GET &&
           mad_get_field((void *)mad, 0, IB_MAD_RESPONSE_F) && port != 0 && port <= n->num_ports;
}

bool node_discovery_take(struct node *n, const uint8_t *mad)
{
    /* Only the low 32 TID bits are ours: the MAD layer owns the high ones. */
    uint32_t tid = (uint32_t)mad_get_field64((void *)mad, 0, IB_MAD_TRID_F);
    unsigned port = tid & 0xFFu, type;
    struct node_port *pp;

    if (!n || !n->mon || !n->cfg.discover || !node_disc_is_answer(n, mad, tid))
        return false;
    pp = &n->ports[port];
    if (pp->disc != NODE_DISC_WAIT || pp->tid != tid)
        return true; /* a late answer to an SMP already given up on: ours, ignored */
    if (mad_get_field((void *)mad, 0, IB_MAD_ATTRID_F) != IB_ATTR_NODE_INFO ||
        mad_get_field((void *)mad, 0, IB_DRSMP_STATUS_F) != 0) {
        node_log(n, NODE_LOG_WARN, "the neighbour at port %u refused NodeInfo", port);
        return true; /* retried at the timeout */
    }
    type = mad_get_field((void *)mad, IB_SMP_DATA_OFFS, IB_NODE_TYPE_F);
    pp->disc = NODE_DISC_DONE;
    cong_monitor_set_peer(n->mon, port, node_peer_of(type));
    node_log(n, NODE_LOG_INFO, "port %u faces a %s", port,
             type == 1   ? "CA"
             : type == 2 ? "switch"
                         : "router or unknown node");
    return true;
}
