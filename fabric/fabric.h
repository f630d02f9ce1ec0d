/*
 * fabric.h - the emulated InfiniBand fabric of pzfabric.
 *
 * Every node of a topology is an in-memory board answered by its own
 * portzero SMA instance (switches as switches, CAs with the SMA in CA
 * mode); links join ports of two boards.  The fabric moves MADs between
 * nodes as a work queue, one hop per step: directed-route SMPs through each
 * node's SMA, LID-routed packets through the switches' forwarding tables.
 *
 * Clients (OpenSM, the diags, ... behind a transport such as sim_server)
 * attach to a port of a node and exchange MADs with the fabric as that
 * node's management stack would: the fabric does what the local kernel
 * does with what a client sends, and hands the client what reaches it.
 * Clients are numbered by the caller; numbers may be reused after detach.
 */
#ifndef PZ_FABRIC_H
#define PZ_FABRIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "board.h"
#include "topo.h"

#define FABRIC_MAD_SIZE 256
#define FABRIC_TICK_NS 50000000u  /* how often fabric_tick() wants to run */
#define FABRIC_STATUS_TIMEOUT 110 /* ETIMEDOUT, as umad reports a request nobody answered */

struct fabric;

/* A MAD crossing the boundary between the fabric and a client. */
struct fabric_mad {
    uint8_t mad[FABRIC_MAD_SIZE];
    uint16_t slid;   /* LRH source LID (0xFFFF for directed route) */
    uint16_t dlid;   /* LRH destination LID (0xFFFF: directed route) */
    uint32_t sqp;    /* source QP */
    uint32_t dqp;    /* destination QP */
    uint32_t status; /* to a client: 0, or FABRIC_STATUS_TIMEOUT */
    uint16_t len;    /* bytes of mad[] the sender filled; 0: all FABRIC_MAD_SIZE */
    /*
     * A client's request: how long its umad_send() waits for the answer
     * (timeout x (retries + 1)), in ms, when the client says (libpzumad2sim.so
     * does); 0: unknown.  What an external agent's request may wait.
     */
    uint32_t timeout_ms;
};

/* Where the fabric hands a MAD for client number client. */
typedef void (*fabric_deliver_fn)(void *arg, unsigned client, const struct fabric_mad *m);

/* A port of an externally served node may have changed its status. */
typedef void (*fabric_port_event_fn)(void *arg, size_t node, unsigned port);

/* Traffic counters, for logs and tests. */
struct fabric_stats {
    uint64_t from_clients;
    uint64_t to_clients;
    uint64_t hops;            /* link traversals */
    uint64_t sma_calls;       /* MADs given to an SMA */
    uint64_t traps;           /* MADs produced by sma_poll() */
    uint64_t dropped;         /* every packet that went nowhere, for whatever reason */
    uint64_t timeouts;        /* requests returned to clients with FABRIC_STATUS_TIMEOUT */
    uint64_t lost;            /* of the dropped: lost on a link to the drop rate */
    uint64_t pkey_dropped;    /* of the dropped: partition enforcement at a switch port */
    uint64_t mcast_delivered; /* multicast copies that reached an end port or switch port 0 */
};

/*
 * Build the fabric of topology t (which need not outlive it): one board and
 * one SMA per node, all cables plugged in.  verbose: 0 errors only, 1 more,
 * 2 every packet.  Returns NULL on OOM or a node the board refuses.
 */
struct fabric *fabric_create(const struct topo *t, int verbose);

/*
 * Run a dFtree congestion monitor on every in-process switch, sampling every
 * interval_ms (>= 100; 0 switches them off).  fabric_create() starts them at
 * 1000 ms.  Returns 0, -EINVAL or -ENOMEM.
 */
int fabric_set_monitor(struct fabric *f, unsigned interval_ms);

/* Tear down the fabric, its nodes and clients. */
void fabric_destroy(struct fabric *f);

/* Set where MADs for clients go (before any client attaches). */
void fabric_set_deliver(struct fabric *f, fabric_deliver_fn fn, void *arg);

/* Number of nodes; index of the node named (or described) name, or -1. */
size_t fabric_num_nodes(const struct fabric *f);
long fabric_find_node(const struct fabric *f, const char *name);
const char *fabric_node_name(const struct fabric *f, size_t node);

/*
 * Attach client number client at node (switch: its management port 0; CA:
 * its first port, as ibsim does).  issm: the client is a subnet manager.
 * Returns 0, -EINVAL (bad node), -EEXIST (number in use) or -ENOMEM.
 */
int fabric_client_attach(struct fabric *f, unsigned client, size_t node, bool issm);

/* Detach a client; clears PortInfo:CapabilityMask.IsSM if it was the port's last SM. */
void fabric_client_detach(struct fabric *f, unsigned client);

/* Whether client number client is attached. */
bool fabric_client_attached(const struct fabric *f, unsigned client);

/* The node and port a client is attached at; returns 0 or -ENOENT. */
int fabric_client_where(const struct fabric *f, unsigned client, size_t *node, unsigned *port);

/* Mark the client a subnet manager or not: sets/clears IsSM of its port; returns 0 or -errno. */
int fabric_client_set_issm(struct fabric *f, unsigned client, bool issm);

/*
 * The ClientReregister count (sma_client_reregister_count) of the client's
 * port into *count.  Returns 0, -ENOENT (no such client) or -EIO (its node
 * is served by an external agent).
 */
int fabric_client_rereg_count(struct fabric *f, unsigned client, uint32_t *count);

/*
 * Read one SMP attribute (64 bytes) of the client's node as its local
 * management stack would (a Get with hop count 0 from the client's port).
 * Returns 0, -ENOENT (no such client) or -EIO (the SMA did not answer).
 */
int fabric_client_get_attr(struct fabric *f, unsigned client, uint16_t attr_id, uint32_t attr_mod,
                           uint8_t data[64]);

/*
 * A client sends a MAD: process it and everything it causes before
 * returning.  A request that reaches nobody comes back to the client with
 * status FABRIC_STATUS_TIMEOUT.  Returns 0, or -ENOENT for an unknown client.
 */
int fabric_client_send(struct fabric *f, unsigned client, const struct fabric_mad *m);

/*
 * Run the timers whose deadline has passed (SMA link changes, traps, M_Key
 * leases; PMA polls; congestion monitor samples) and deliver what they send.
 * Costs O(due nodes · log nodes), not a walk over the fabric.
 */
void fabric_tick(struct fabric *f);

/*
 * Board time (CLOCK_MONOTONIC ns, as board_now_ns() of an in-process node)
 * of the earliest deadline of an in-process node's timed work or of a
 * request waiting for an external agent; UINT64_MAX if none.  A server loop
 * wakes then and calls fabric_run_timers(), so that timed work runs on time,
 * not at the next fabric_tick(): a PortSamplesControl session of 10 ms must
 * sample 10 ms of traffic, and a request whose client waits 100 ms times out
 * after 100 ms.
 */
uint64_t fabric_next_deadline(const struct fabric *f);

/* fabric_tick() without its traffic work: only the timers and agent timeouts that are due. */
void fabric_run_timers(struct fabric *f);

/* Who hears of port changes of external switches (board_server.c pushes them to the agent). */
void fabric_set_port_event(struct fabric *f, fabric_port_event_fn fn, void *arg);

/*
 * Let the SMAs of nodes whose ports changed since the last call (a board
 * write by an external agent, a cable pulled) react at once: PortStateChange
 * traps and the like.  Costs nothing when nothing changed.
 */
void fabric_settle(struct fabric *f);

/*
 * External agents (portzerod with board = sim).  A switch served by one is
 * "external": the fabric does the directed-route hop processing for it (as a
 * switch's kernel would) and hands the agent, through its umad client, only
 * the SMPs that end at the switch; the agent reaches the switch's tables
 * over board/sim.  Without an attached agent an external switch answers no
 * SMP.
 */

/* Make switch node external (pzfabric --agent); returns 0 or -EINVAL. */
int fabric_agent_expect(struct fabric *f, size_t node);

/*
 * Let client (attached at switch node) serve it; the switch becomes
 * external.  Returns 0, -EINVAL (not a switch), -ENOENT (client not attached
 * there) or -EBUSY (another agent serves it).
 */
int fabric_agent_attach(struct fabric *f, size_t node, unsigned client);

/* The agent of node went away: the switch stays external and unreachable. */
void fabric_agent_detach(struct fabric *f, size_t node);

/*
 * The receive record (ingress port, DR hop state) of the SMP with this TID
 * that was handed to the agent of switch node last; records are kept in
 * delivery order and older ones are forgotten.  0, or -ENOENT.
 */
int fabric_agent_mad_rx(struct fabric *f, size_t node, uint64_t tid, struct board_mad_rx *rx);

/* The in-memory board of a node (what board/sim requests act on). */
const struct board *fabric_node_board(const struct fabric *f, size_t node);

/* Whether node is a switch. */
bool fabric_node_is_switch(const struct fabric *f, size_t node);

/* A snapshot of the fabric's counters. */
void fabric_get_stats(const struct fabric *f, struct fabric_stats *stats);

/*
 * Operator controls (pzfabric-ctl).  A cable joins two ports; pulling it
 * takes both ends Down (PhysState Polling, LinkDowned counts up), plugging
 * it back lets both retrain to Init (the SM then arms and activates them).
 * The switches' SMAs see the change at once (SwitchInfo.PortStateChange,
 * Trap 128 to the master SM).
 */

/* The state of the cable at a port. */
enum fabric_link_state {
    FABRIC_LINK_NONE = 0,  /* no cable in the topology */
    FABRIC_LINK_UP,        /* both ends trained (PhysState LinkUp) */
    FABRIC_LINK_DOWN,      /* plugged, but an end is not trained (Disabled, Polling) */
    FABRIC_LINK_UNPLUGGED, /* pulled with fabric_link_set() */
};

/* Number of ports of node, 0 for no such node. */
unsigned fabric_node_num_ports(const struct fabric *f, size_t node);

/*
 * The cable at (node, port): its state, and its far end in *peer_node and
 * *peer_port (either may be NULL).  FABRIC_LINK_NONE for a port without a
 * cable or out of range.
 */
enum fabric_link_state fabric_link_get(const struct fabric *f, size_t node, unsigned port,
                                       size_t *peer_node, unsigned *peer_port);

/*
 * Pull (up false) or plug back (up true) the cable at (node, port), and run
 * what the SMAs send about it.  Returns 0, -EINVAL (no such node or port),
 * -ENOTCONN (the topology has no cable there) or -EALREADY (it already is).
 */
int fabric_link_set(struct fabric *f, size_t node, unsigned port, bool up);

/*
 * Lose ppm of every million link traversals at random (0: none, 1000000:
 * all); seed != 0 restarts the generator with it.  Returns 0 or -EINVAL.
 */
int fabric_set_drop_rate(struct fabric *f, uint32_t ppm, uint64_t seed);

/* The loss rate in packets per million link traversals. */
uint32_t fabric_drop_rate(const struct fabric *f);

/*
 * Lose ppm per million traversals of the cable at (node, port), both
 * directions, on top of the fabric-wide rate.  Returns 0, -EINVAL (no such
 * port, ppm > 10^6) or -ENOTCONN (no cable).
 */
int fabric_set_link_drop(struct fabric *f, size_t node, unsigned port, uint32_t ppm);

/* The cable's own loss at (node, port), per million (0: none or no such port). */
uint32_t fabric_link_drop(const struct fabric *f, size_t node, unsigned port);

struct pz_pcap;

/*
 * Write every link traversal to capture (NULL: stop); the caller still owns
 * it and name (what status reports, e.g. the file name).
 */
void fabric_set_capture(struct fabric *f, struct pz_pcap *capture, const char *name);

/*
 * The capture's name and packets written so far; returns false when there
 * is no capture (none set, or stopped by a write error).
 */
bool fabric_capture(const struct fabric *f, const char **name, unsigned long long *packets);

/* Copy the hardware counters of (node, port) into *c; returns 0 or -EINVAL. */
int fabric_port_counters(const struct fabric *f, size_t node, unsigned port,
                         struct board_port_counters *c);

/*
 * Count one SMP dropped at node's port (the port it entered by) for want of
 * a VL15 buffer: its VL15Dropped, wrapping at the board's counter width.
 * Nothing for a node or port that does not exist.
 */
void fabric_count_vl15_dropped(struct fabric *f, size_t node, unsigned port);

#endif /* PZ_FABRIC_H */
