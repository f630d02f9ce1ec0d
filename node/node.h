/*
 * node.h - one switch (or CA) as its management port sees it: a board with
 * its SMA, PMA and Congestion Control agent, and on a switch the dFtree
 * congestion monitor, the notifier that tells the master SM of hot-spots,
 * and the neighbour discovery that says which ports face a CA.
 *
 * portzerod builds one over its board (mem or sim); pzfabric one per
 * emulated node over board_mem.  No I/O: a received MAD goes in through
 * node_process(), what the node sends comes out of node_poll() (traps,
 * notices) or, for its own requests (discovery SMPs), through the send
 * hook.  The caller calls node_poll() when node_next_deadline() comes.
 */
#ifndef PZ_NODE_H
#define PZ_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "board.h"
#include "cong_monitor.h"
#include "mad.h"
#include "mad_router.h"

struct sma;
struct pma;
struct cc_agent;
struct node;

/* How the node is set up. */
struct node_config {
    bool monitor;                   /* run the congestion monitor (switches) */
    struct cong_monitor_config mon; /* its tunables */
    bool notices;                   /* hot-spot notices to the master SM */
    bool discover;                  /* ask the neighbours which ports face a CA */
    uint64_t link_scan_ns;          /* scan the links this often (0: only when polled) */
};

/* How urgent a log line of the node is. */
enum node_log_level {
    NODE_LOG_WARN,
    NODE_LOG_INFO,
    NODE_LOG_DEBUG,
};

/* Transmit one MAD the node made itself (a discovery SMP); returns 0 or -1. */
typedef int (*node_send_fn)(void *arg, const uint8_t *mad, const struct mad_addr *to);
/* One log line of the monitor (without a prefix: the caller names the node). */
typedef void (*node_log_fn)(void *arg, enum node_log_level level, const char *msg);

/* The caller's side; each may be NULL. */
struct node_hooks {
    node_send_fn send;
    node_log_fn log;
    /*
     * What the congestion monitor samples a port with (PortXmitWait,
     * PortXmitData as the PMA's 64-bit counters have them); NULL: through
     * the PMA (cong_monitor_read_pma).  A board whose hardware counters
     * are 64 bits wide can be read directly (pzfabric's board_mem).
     */
    cong_read_fn read_xmit;
    void *arg;
};

/* The defaults: monitor off, notices on, no discovery, no link scan. */
void node_default_config(struct node_config *cfg);

/*
 * A node over board (not owned: the caller frees it after the node).
 * Returns NULL with a message in err (bad monitor settings, OOM).
 */
struct node *node_create(struct board *board, const struct node_config *cfg,
                         const struct node_hooks *hooks, char *err, size_t errlen);

/* Free the node (NULL is fine); the board stays. */
void node_destroy(struct node *n);

/*
 * One received MAD of len bytes (IB_MAD_SIZE, or more: a reassembled
 * multi-packet SA answer): requests by class to the SMA, PMA or CC agent;
 * answers by TID to the client that asked (discovery, the clients added with
 * node_add_client(), which get len), else to the class's agent (the SMA
 * forwards returning directed-route SMPs).  MAD_SEND when out must be sent
 * to *to; *how (may be NULL) says who had it.
 */
enum mad_verdict node_process(struct node *n, const struct mad_addr *from, const uint8_t *in,
                              size_t len, struct mad_addr *to, uint8_t *out, enum mad_route *how);

/*
 * A client for answers to requests someone else on the management port
 * sent through the same MAD port (mad_router_add_client); returns 0 or -1.
 */
int node_add_client(struct node *n, uint8_t mgmt_class, uint32_t tid_mask, uint32_t tid_tag,
                    mad_answer_fn fn, void *arg);

/*
 * Take what the switch recorded when an SMP request arrived (board_mad_rx):
 * its ingress port into *from, the MAD's bytes 192-255 and a DR SMP's hop
 * pointer into mad.  A board without a record leaves both as they are.
 */
void node_take_rx_record(struct node *n, uint8_t *mad, struct mad_addr *from);

/*
 * Run the work that is due (monitor sample, notices, discovery, the PMA's
 * counter poll) and return the next MAD the SMA sends (traps, notices):
 * MAD_SEND with out and *to, MAD_DROP when nothing is left.  Call it until
 * MAD_DROP.
 */
enum mad_verdict node_poll(struct node *n, struct mad_addr *to, uint8_t *out);

/* Board time at which node_poll() next has work; UINT64_MAX if never. */
uint64_t node_next_deadline(const struct node *n);

/*
 * Start the congestion monitor with cfg, or give the running one cfg;
 * returns 0, -EINVAL (bad settings) or -ENOMEM.
 */
int node_monitor_start(struct node *n, const struct cong_monitor_config *cfg);

/* Stop the congestion monitor, if it runs. */
void node_monitor_stop(struct node *n);

/* Tell the monitor what is at the far end of port's cable (a configured or known peer). */
void node_set_peer(struct node *n, unsigned port, enum cong_peer peer);

/* The low 32 TID bits of discovery SMPs: (TID & MASK) == TAG. */
#define NODE_DISC_TID_MASK 0xF0000000u
#define NODE_DISC_TID_TAG 0x50000000u

/*
 * Offer a received MAD to the neighbour discovery: true if it was the
 * answer to a discovery SMP (consumed), false if it is for the agents.
 */
bool node_discovery_take(struct node *n, const uint8_t *mad);

/* The parts, for the readers of the switch's state (CLI, SNMP, the fabric). */
struct board *node_board(const struct node *n);
struct sma *node_sma(const struct node *n);
struct pma *node_pma(const struct node *n);
struct cc_agent *node_cc(const struct node *n);
/* The congestion monitor, NULL when it does not run. */
struct cong_monitor *node_cong(const struct node *n);

#endif /* PZ_NODE_H */
