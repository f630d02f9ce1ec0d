/*
 * node_discovery.c - the neighbour discovery that tells the congestion
 * monitor which ports face a CA.
 *
 * A switch's agent cannot ask its hardware what is cabled, so it asks the
 * neighbour: every NODE_SCAN_NS the ports' states are read; a port that
 * became Active gets a directed-route SubnGet(NodeInfo), HopCount 1,
 * InitialPath [0, port], DrSLID = DrDLID = 0xFFFF, sent through the send
 * hook as a mad/mad_txn transaction (TID tag 0x50, the requester part from
 * the port GUID: a DR answer comes straight back, no LID needed); NodeType
 * in the answer sets the peer.  No answer in 1 s: resent with its TID, 3
 * sends in all, then a new discovery every 10 s.  A port that leaves Active forgets its
 * peer (the cable may move) and is asked again when Active again.
 */
#include "node_internal.h"

#include <errno.h>

#include <infiniband/mad.h>

#include "mad_header.h"

#define NODE_SCAN_NS 200000000ull          /* port states scanned this often */
#define NODE_DISC_TIMEOUT_NS 1000000000ull /* answer timeout of one discovery SMP */
/* A discovery SMP: resent after 1 s without an answer, 3 sends before the port gives up. */
static const struct mad_txn_timing node_disc_timing = {.timeout = NODE_DISC_TIMEOUT_NS, .tries = 3};
#define NODE_DISC_RETRY_NS 10000000000ull /* then it starts again this much later */
#define NODE_PERMISSIVE_LID 0xFFFF

/* The node's send hook as the transaction layer's send callback: 0 or -1. */
static int node_disc_send_mad(void *arg, const uint8_t *mad, const struct mad_addr *to)
{
    struct node *n = arg;

    return n->hooks.send ? n->hooks.send(n->hooks.arg, mad, to) : -1;
}

void node_discovery_reset(struct node *n)
{
    for (unsigned p = 0; p <= n->num_ports; p++)
        n->ports[p] = (struct node_port){.owner = n, .txn = -1};
    mad_txns_init(&n->disc_txns, (uint8_t)(NODE_DISC_TID_TAG >> 24), n->board->id->port_guid[0],
                  node_disc_send_mad, n);
    n->next_disc_scan_ns = 0;
}

uint64_t node_discovery_deadline(const struct node *n)
{
    uint64_t next = n->next_disc_scan_ns, t = mad_txn_deadline(&n->disc_txns);

    if (t < next)
        next = t;
    for (unsigned p = 1; p <= n->num_ports; p++) {
        const struct node_port *pp = &n->ports[p];

        if (pp->disc == NODE_DISC_FAILED && pp->deadline_ns < next)
            next = pp->deadline_ns;
    }
    return next;
}

/* Build the DR SubnGet(NodeInfo) out of port with HopCount 1 (the TID is the layer's). */
static void node_disc_smp(uint8_t *mad, unsigned port)
{
    const uint8_t path[2] = {0, (uint8_t)port}; /* InitialPath [0, port] */

    mad_header_init(mad, IB_SMI_DIRECT_CLASS, 1, IB_MAD_METHOD_GET, 0, IB_ATTR_NODE_INFO, 0);
    mad_dr_init(mad, 1, 0, NODE_PERMISSIVE_LID, NODE_PERMISSIVE_LID, path);
}

static void node_disc_ended(void *arg, int status, const uint8_t *mad, size_t len);

/*
 * Start discovering the neighbour of port: its SMP a transaction (a failed
 * send counts as a try; the layer resends).  With the table full the port
 * tries again after one timeout.
 */
static void node_disc_start(struct node *n, unsigned port, uint64_t now)
{
    struct node_port *pp = &n->ports[port];
    struct mad_addr to = {.lid_routed = false, .dlid = NODE_PERMISSIVE_LID};
    uint8_t mad[IB_MAD_SIZE];
    int rc;

    node_disc_smp(mad, port);
    pp->disc = NODE_DISC_WAIT; /* before: the answer may come back within the send */
    rc = mad_txn_start(&n->disc_txns, mad, &to, now, &node_disc_timing, node_disc_ended, pp,
                       &pp->txn, NULL);
    if (rc == -ENOSPC) {
        pp->txn = -1;
        pp->disc = NODE_DISC_FAILED;
        pp->deadline_ns = now + NODE_DISC_TIMEOUT_NS;
        return;
    }
    if (rc) {
        node_log(n, NODE_LOG_WARN, "discovery SMP out of port %u could not be sent", port);
        return;
    }
    node_log(n, NODE_LOG_DEBUG, "asked the neighbour at port %u for its NodeInfo", port);
}

/* Start again the discoveries whose retry time came (FAILED, still Active). */
static void node_disc_retries(struct node *n, uint64_t now)
{
    for (unsigned p = 1; p <= n->num_ports; p++) {
        struct node_port *pp = &n->ports[p];

        if (pp->disc == NODE_DISC_FAILED && pp->active && pp->deadline_ns <= now)
            node_disc_start(n, p, now);
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
            mad_txn_cancel(&n->disc_txns, pp->txn);
            pp->txn = -1;
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
    n->disc_now = now;
    mad_txn_poll(&n->disc_txns, now);
    node_disc_retries(n, now);
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

/*
 * Whether mad is a DR GetResp with the discovery tag and this node's
 * requester part: an answer to one of its discovery SMPs, in flight or not.
 */
static bool node_disc_is_answer(const struct node *n, const uint8_t *mad, uint32_t tid)
{
    return (tid & NODE_DISC_TID_MASK) == NODE_DISC_TID_TAG &&
           (uint16_t)(tid >> 8) == n->disc_txns.requester &&
           mad_get_field((void *)mad, 0, IB_MAD_MGMTCLASS_F) == IB_SMI_DIRECT_CLASS &&
           mad_get_field((void *)mad, 0, IB_MAD_METHOD_F) == IB_MAD_METHOD_GET &&
           mad_get_field((void *)mad, 0, IB_MAD_RESPONSE_F);
}

/* A port's discovery ended: the neighbour's NodeInfo (status 0), or no answer. */
static void node_disc_ended(void *arg, int status, const uint8_t *mad, size_t len)
{
    struct node_port *pp = arg;
    struct node *n = pp->owner;
    unsigned port = (unsigned)(pp - n->ports), type;

    (void)len;
    pp->txn = -1;
    if (status) {
        node_log(n, NODE_LOG_WARN, "no answer from the neighbour at port %u", port);
        pp->disc = NODE_DISC_FAILED;
        pp->deadline_ns = n->disc_now + NODE_DISC_RETRY_NS;
        return;
    }
    type = mad_get_field((void *)mad, IB_SMP_DATA_OFFS, IB_NODE_TYPE_F);
    pp->disc = NODE_DISC_DONE;
    cong_monitor_set_peer(n->mon, port, node_peer_of(type));
    node_log(n, NODE_LOG_INFO, "port %u faces a %s", port,
             type == 1   ? "CA"
             : type == 2 ? "switch"
                         : "router or unknown node");
}

bool node_discovery_take(struct node *n, const uint8_t *mad)
{
    /* Only the low 32 TID bits are ours: the MAD layer owns the high ones. */
    uint32_t tid = (uint32_t)mad_get_field64((void *)mad, 0, IB_MAD_TRID_F);

    if (!n || !n->mon || !n->cfg.discover || !node_disc_is_answer(n, mad, tid))
        return false;
    if (mad_get_field((void *)mad, 0, IB_MAD_ATTRID_F) != IB_ATTR_NODE_INFO ||
        mad_get_field((void *)mad, 0, IB_DRSMP_STATUS_F) != 0) {
        node_log(n, NODE_LOG_WARN, "a neighbour refused NodeInfo (TID 0x%08x)", (unsigned)tid);
        return true; /* ours; its transaction resends at the timeout */
    }
    mad_txn_answer(&n->disc_txns, mad, IB_MAD_SIZE); /* a duplicate or late one: ignored */
    return true;
}
