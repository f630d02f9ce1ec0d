/*
 * fabric_internal.h - the fabric's data structures, shared by its files:
 *   fabric.c         nodes, links and their coupling, timers
 *   fabric_route.c   the work queue: DR and LID routing, local delivery
 *   fabric_wire.c    a packet crossing a cable: link checks, loss, counters, capture
 *   fabric_mcast.c   multicast: replication through the MFTs
 *   fabric_pkey.c    the P_Key of a packet, partition enforcement at switch ports
 *   fabric_ctl.c     operator controls: cables, loss rate, capture, counters
 *   fabric_traffic*.c flows: paths, rates, counters (fabric_traffic_internal.h)
 *   fabric_errors.c  error injection into port counters
 *   fabric_host.c    what a node's own management stack does with a client's MAD
 *   fabric_client.c  attached clients: which one gets a MAD, timeouts, IsSM
 *   fabric_monitor.c the in-process switches' congestion monitors (node/'s), on or off
 *   fabric_dgram.c   port-0 UD datagrams (fabric_dgram.h)
 */
#ifndef PZ_FABRIC_INTERNAL_H
#define PZ_FABRIC_INTERNAL_H

#include "board_mem.h"
#include "fabric.h"
#include "node.h"
#include "sma.h"

#define FABRIC_MAX_HOPS 128     /* link traversals before a packet counts as looping */
#define FABRIC_CLIENT_TIDS 4096 /* recent request TIDs remembered per client */
#define FABRIC_POLL_ROUNDS 16   /* sma_poll/run rounds after one event, at most */
#define FABRIC_PERMISSIVE_LID 0xFFFF
#define FABRIC_MCAST_LID_MIN 0xC000 /* LIDs 0xC000..0xFFFE are multicast */
#define FABRIC_QUEUE_MAX 65536      /* queued packets at most (multicast storms) */
#define FABRIC_REQ_PKEYS 4096       /* P_Keys of recent GMP requests (a power of two) */
#define FABRIC_PPM 1000000u         /* drop_ppm of "drop everything" */

/* What the other end of a port's cable is. */
struct fabric_peer {
    bool cabled;       /* the topology has a cable here */
    bool unplugged;    /* pulled by the operator (fabric_link_set) */
    uint32_t drop_ppm; /* this cable's own loss, per million traversals (fabric_set_link_drop) */
    uint32_t node;
    uint8_t port;
};

/*
 * The receive record of an SMP handed to an external agent, for
 * board_mad_rx(): a ring of the last FABRIC_AGENT_RX per switch.
 */
#define FABRIC_AGENT_RX 1024
struct fabric_agent_rx {
    uint64_t tid;
    struct board_mad_rx rx;
};

/*
 * One emulated node: an in-memory board and the node/ object on it (SMA,
 * PMA, CC agent; on a switch the congestion monitor and its notices).
 */
struct fabric_node {
    struct fabric *f;
    uint32_t index;
    char name[TOPO_NAME_MAX + 1];
    char desc[TOPO_DESC_MAX + 1];
    bool is_switch;
    unsigned num_ports;
    struct board_mem *bm;
    struct board *board;
    struct node *node;          /* its SMA, PMA, CC agent and monitor (in-process nodes) */
    struct fabric_peer *peers;  /* [0..num_ports] */
    uint32_t *downed_seen;      /* [0..num_ports]: LinkDowned counts already coupled */
    bool dirty;                 /* its SMA must be polled soon */
    bool external;              /* served by an external agent, not by sma */
    long agent_client;          /* that agent's client id, or -1 */
    struct fabric_agent_rx *rx; /* external: receive records (a ring), or NULL */
    unsigned rx_head, rx_count;
    uint64_t timer_at;  /* its key in the deadline heap (fabric_timers.c) */
    uint32_t timer_pos; /* its slot there, or UINT32_MAX: not in it */
};

/* How a queued packet got where it is. */
enum fabric_pkt_kind {
    FABRIC_PKT_WIRE,  /* arrived over the cable of (node, port) */
    FABRIC_PKT_ROUTE, /* LID-routed, sent by the stack of (node, port): route it */
    FABRIC_PKT_SMA,   /* for the SMA of node, entering at port (DR hop count 0) */
};

/* A packet in the work queue. */
struct fabric_pkt {
    uint8_t mad[FABRIC_MAD_SIZE];
    uint16_t slid;
    uint16_t dlid; /* FABRIC_PERMISSIVE_LID on directed-route hops */
    uint32_t sqp;
    uint32_t dqp;
    uint32_t node;
    uint8_t port; /* ingress port (0: the node's own management port) */
    uint8_t kind; /* enum fabric_pkt_kind */
    uint16_t hops;
    uint16_t pkey; /* BTH P_Key; 0 until the sender's stack chose it */
    uint16_t len;  /* bytes of mad[] its sender filled; 0: all FABRIC_MAD_SIZE */
};

/* A ring buffer of packets that grows as needed. */
struct fabric_queue {
    struct fabric_pkt *items;
    size_t head;
    size_t count;
    size_t cap;
};

/* A request TID a client sent, and when (fabric.seq at the time). */
struct fabric_sent_tid {
    uint64_t tid;
    uint64_t seq;
};

/* An attached client. */
struct fabric_client {
    bool used;
    bool issm;
    bool sa_subscriber; /* it sent an SA Set(InformInfo): SA Reports are for it */
    uint32_t node;
    uint8_t port;
    uint64_t last_seq;            /* fabric.seq when it last sent anything */
    struct fabric_sent_tid *tids; /* ring of FABRIC_CLIENT_TIDS recent requests */
    unsigned tid_next;
    unsigned tid_count;
};

/* The client request being processed, for the timeout a real stack would report. */
struct fabric_run {
    bool active;
    unsigned client;
    bool answered;                /* something reached a client while it was processed */
    const struct fabric_mad *req; /* the request itself */
};

/*
 * A request handed to an external agent: timed out if no answer comes back
 * by its deadline, which is its client's own umad timeout (timeout x
 * (retries + 1), as libpzumad2sim.so passes it on) or, from a client that
 * does not say, FABRIC_AGENT_TIMEOUT_NS.  They wait in a min-heap on their
 * deadlines (fabric_deferred.c) of up to FABRIC_DEFERRED_MAX entries; beyond
 * that the one due first is timed out at once (never forgotten).
 */
#define FABRIC_DEFERRED_MAX 65536
/* As libibmad's default MAD timeout: an agent process may be slow under load. */
#define FABRIC_AGENT_TIMEOUT_NS 1000000000ull
struct fabric_deferred {
    unsigned client;
    uint64_t tid;
    uint64_t deadline_ns; /* CLOCK_MONOTONIC */
    uint64_t seq;         /* order of arrival: equal deadlines and TIDs, oldest first */
    struct fabric_mad req;
};

/* The heap of deferred requests, earliest deadline at items[0]. */
struct fabric_deferred_heap {
    struct fabric_deferred *items;
    size_t len;
    size_t cap;
    uint64_t next_seq;
};

/* The P_Key of a GMP request handed to the client at (node, port): its answer uses it. */
struct fabric_req_pkey {
    uint64_t tid;
    uint32_t node;
    uint8_t port;
    uint16_t pkey;
};

struct pz_pcap;

struct fabric {
    struct fabric_node *nodes;
    size_t num_nodes;
    struct fabric_client *clients;
    size_t num_clients; /* allocated entries */
    struct fabric_queue queue;
    uint32_t *dirty; /* stack of nodes whose SMA must be polled */
    size_t num_dirty;
    fabric_deliver_fn deliver;
    void *deliver_arg;
    struct fabric_run run;
    uint64_t seq; /* counts MADs from clients: orders their requests */
    struct fabric_stats stats;
    int verbose;
    bool coupling;                        /* inside a link-coupling change: do not recurse */
    struct fabric_deferred_heap deferred; /* requests waiting for external agents */
    struct pz_pcap *pcap;                 /* capture of every link traversal, or NULL */
    const char *pcap_name;
    uint32_t drop_ppm; /* packets lost per million link traversals */
    uint64_t rng;      /* xorshift64 state for the losses */
    struct fabric_req_pkey req_pkeys[FABRIC_REQ_PKEYS]; /* direct-mapped by fabric_req_slot() */
    struct fabric_traffic *traffic;   /* flows (fabric_traffic.c), NULL until the first */
    unsigned monitor_interval_ms;     /* switches' congestion monitors; 0: off */
    struct fabric_dgram_state *dgram; /* port-0 datagrams (fabric_dgram.c) */
    fabric_port_event_fn port_event;  /* port changes of external switches */
    void *port_event_arg;
    uint32_t *timer_heap; /* nodes with timed work, earliest first (fabric_timers.c) */
    size_t timer_len;
    uint32_t *timer_due;          /* fabric_timers_due()'s answer: nodes whose deadline passed */
    struct fabric_repath *repath; /* the hosts' slow-lane state (fabric_repath.c), NULL: none */
};

/* fabric.c */
void fabric_mark_dirty(struct fabric *f, struct fabric_node *n);
void fabric_poll_dirty(struct fabric *f);
bool fabric_port_up(const struct fabric_node *n, unsigned port, bool need_active);
bool fabric_port_enabled(const struct fabric_node *n, unsigned port);
/*
 * Tell both ends of the cable at (n, port) what the other end enables, so
 * that the link trains to the best width and speed both enable (as ibsim's
 * links and hardware do); before anything (re)connects them.
 */
void fabric_tell_peers(struct fabric *f, struct fabric_node *n, unsigned port);

/* fabric_timers.c: the deadline heap of every in-process node's SMA, PMA and monitor. */
/* Build the heap from every node's deadlines; returns 0 or -ENOMEM. */
int fabric_timers_init(struct fabric *f);
void fabric_timers_free(struct fabric *f);
/* Re-key node n after anything that may have moved its deadlines. */
void fabric_timer_update(struct fabric *f, struct fabric_node *n);
/* Re-key every node (after a fabric-wide configuration change). */
void fabric_timers_all(struct fabric *f);
/*
 * Take every node whose deadline has passed out of the heap into
 * f->timer_due; returns how many.  The caller runs their work and
 * fabric_timer_update()s each of them.
 */
size_t fabric_timers_due(struct fabric *f);

/* fabric_route.c */
int fabric_enqueue(struct fabric *f, const struct fabric_pkt *p);
void fabric_run_queue(struct fabric *f);
void fabric_sma_output(struct fabric *f, struct fabric_node *n, unsigned in_port,
                       const struct mad_addr *addr, const uint8_t *mad, unsigned hops);
void fabric_drop(struct fabric *f, const struct fabric_pkt *p, const char *why);
uint16_t fabric_port_lid(const struct fabric_node *n, unsigned port);
/* Whether dlid is in the LID range (LID, LMC) of the end port behind port. */
bool fabric_lid_is_mine(const struct fabric_node *n, unsigned port, uint16_t dlid);

/* fabric_repath.c: the emulated hosts' side of dFtree (fabric_repath.h) */
/*
 * A LID-routed MAD reached CA n: if it is a dFtree repath notice
 * (dftree/dftree_notice.h), the host takes it (moves its flows, answers or
 * drops it) and this returns true; otherwise false.
 */
bool fabric_repath_local(struct fabric *f, struct fabric_node *n, unsigned in_port,
                         const struct fabric_pkt *p);
/* Free the hosts' dFtree state (fabric_destroy). */
void fabric_repath_free(struct fabric *f);

/* fabric_wire.c */
void fabric_transmit(struct fabric *f, struct fabric_node *n, unsigned port, struct fabric_pkt *p,
                     bool need_active);
bool fabric_port_plugged(const struct fabric_node *n, unsigned port);

/* What one packet on a link counts in the ports' hardware counters. */
struct fabric_wire_pkt {
    uint32_t words; /* LRH..ICRC in 4-byte words */
    uint8_t sl;
    uint8_t vl; /* the VL of this link (15: an SMP) */
    bool mcast; /* multicast DLID */
};
struct pz_pcap_ud;
/* Count w at (n, port) as sent (xmit) or received. */
void fabric_wire_count(struct fabric_node *n, unsigned port, const struct fabric_wire_pkt *w,
                       bool xmit);
/* Count a packet that arrived corrupted (lost to the drop rate) at (r, rport). */
void fabric_wire_count_lost(struct fabric_node *r, unsigned rport);
/* Whether the drop rate loses this link traversal. */
bool fabric_wire_lost(struct fabric *f, const struct fabric_node *n, unsigned port);
/* The VL sl takes from in_port to out_port of n (its SL2VL table; a CA: its port's). */
unsigned fabric_wire_vl(const struct fabric_node *n, unsigned in_port, unsigned out_port,
                        unsigned sl);
/* Append a packet to the capture file, if any; a failing file stops the capture. */
void fabric_wire_capture(struct fabric *f, const struct pz_pcap_ud *ud);

/* fabric_dgram.c: set up (0 or -ENOMEM) and free the port-0 datagram state. */
int fabric_dgram_init(struct fabric *f);
void fabric_dgram_destroy(struct fabric *f);

/* fabric_mcast.c */
void fabric_mcast_route(struct fabric *f, struct fabric_node *n, unsigned in_port,
                        struct fabric_pkt *p);

/* fabric_pkey.c */
bool fabric_pkey_exempt(const struct fabric_pkt *p);
bool fabric_pkey_match_inbound(uint16_t pkt_pkey, uint16_t entry);
bool fabric_pkey_match_outbound(uint16_t pkt_pkey, uint16_t entry);
void fabric_pkey_choose(struct fabric *f, struct fabric_node *n, unsigned port,
                        struct fabric_pkt *p);
void fabric_pkey_note_request(struct fabric *f, const struct fabric_node *n, unsigned port,
                              const struct fabric_pkt *p);
bool fabric_pkey_inbound_ok(struct fabric *f, struct fabric_node *n, unsigned port,
                            const struct fabric_pkt *p);
bool fabric_pkey_outbound_ok(struct fabric *f, struct fabric_node *n, unsigned port,
                             const struct fabric_pkt *p);
/* Whether a P_Key table entry of (n, port) matches pkey (inbound or outbound rule). */
bool fabric_pkey_table_matches(const struct fabric_node *n, unsigned port, uint16_t pkey,
                               bool inbound);
/* Whether pkey (membership bit included) is an entry of the P_Key table of (n, port). */
bool fabric_pkey_in_table(const struct fabric_node *n, unsigned port, uint16_t pkey);
/*
 * Partition enforcement at switch port (n, port) for a packet with pkey
 * entering (inbound) or leaving it: true if it passes; false if refused
 * (counted as a constraint error and in pkey_dropped, logged).
 */
bool fabric_pkey_port_allows(struct fabric *f, struct fabric_node *n, unsigned port, uint16_t pkey,
                             uint16_t slid, uint16_t dlid, bool inbound);

/* fabric_host.c */
void fabric_host_send(struct fabric *f, const struct fabric_client *c, const struct fabric_mad *m);
int fabric_host_get_attr(struct fabric *f, struct fabric_node *n, unsigned port, uint16_t attr_id,
                         uint32_t attr_mod, uint8_t data[64]);

/* fabric_gmp.c */
/*
 * Hand a MAD that ends at n (entering at in_port) to its node/ object;
 * returns the verdict, out and *to filled when MAD_SEND.
 */
enum mad_verdict fabric_node_process(struct fabric *f, struct fabric_node *n, unsigned in_port,
                                     const struct fabric_pkt *p, struct mad_addr *to, uint8_t *out);
bool fabric_gmp_local(struct fabric *f, struct fabric_node *n, unsigned in_port,
                      const struct fabric_pkt *p);

/* fabric_monitor.c: the hooks of node n's node/ object (its monitor's log lines). */
struct node_hooks fabric_node_hooks(struct fabric_node *n);

/* fabric_deferred.c */
/* Add a copy of d (its seq is set here); returns 0, -ENOSPC (full) or -ENOMEM. */
int fabric_deferred_add(struct fabric_deferred_heap *h, const struct fabric_deferred *d);
/* The index of the oldest entry with tid (of client, any client if < 0), or -1. */
long fabric_deferred_find(const struct fabric_deferred_heap *h, long client, uint64_t tid);
/* Take entry i out of the heap, into *out if out is not NULL. */
void fabric_deferred_remove(struct fabric_deferred_heap *h, size_t i, struct fabric_deferred *out);
/* Forget every entry of client (it left; its number may be reused). */
void fabric_deferred_drop_client(struct fabric_deferred_heap *h, unsigned client);
/* The earliest deadline (CLOCK_MONOTONIC ns), UINT64_MAX when none waits. */
uint64_t fabric_deferred_next(const struct fabric_deferred_heap *h);
void fabric_deferred_free(struct fabric_deferred_heap *h);

/* fabric_agent.c */
bool fabric_agent_deliver(struct fabric *f, struct fabric_node *n, const struct fabric_pkt *p);
void fabric_agent_smp(struct fabric *f, struct fabric_node *n, unsigned in_port,
                      const struct fabric_pkt *p);
bool fabric_agent_output(struct fabric *f, unsigned client, const struct fabric_mad *m);
void fabric_agent_settle(struct fabric *f, unsigned client, const uint8_t *mad);
void fabric_agent_expire(struct fabric *f);
/* When the first deferred request times out (CLOCK_MONOTONIC ns), UINT64_MAX if none waits. */
uint64_t fabric_agent_next_deadline(const struct fabric *f);
void fabric_agent_lost(struct fabric *f, const uint8_t *mad);
void fabric_agent_client_gone(struct fabric *f, unsigned client);
void fabric_agent_free(struct fabric *f);

/* fabric_client.c */
/* What a client receives of packet p: its MAD, LIDs, QPs and length, status 0. */
void fabric_mad_of(struct fabric_mad *m, const struct fabric_pkt *p);
bool fabric_to_client(struct fabric *f, struct fabric_node *n, unsigned port,
                      const struct fabric_pkt *p);
bool fabric_has_sm_client(const struct fabric *f, const struct fabric_node *n, unsigned port);
void fabric_clients_free(struct fabric *f);
void fabric_client_timeout(struct fabric *f, unsigned client, const struct fabric_mad *m);
bool fabric_expects_answer(const uint8_t *mad);

/* Whether dlid is a multicast LID (permissive 0xFFFF is not). */
static inline bool fabric_lid_is_mcast(uint16_t dlid)
{
    return dlid >= FABRIC_MCAST_LID_MIN && dlid != FABRIC_PERMISSIVE_LID;
}

/* The port a node's management stack uses: 0 on a switch, the CA port itself. */
static inline unsigned fabric_end_port(const struct fabric_node *n, unsigned port)
{
    return n->is_switch ? 0 : port;
}

#endif /* PZ_FABRIC_INTERNAL_H */
