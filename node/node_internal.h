/*
 * node_internal.h - the node's state, shared by its files:
 *   node.c           the parts, MADs in (the router), the poll and its deadline
 *   node_monitor.c   the congestion monitor: start, stop, samples, their log lines
 *   node_notify.c    the notifier: hot-spot onsets and clears to the master SM
 *   node_discovery.c the neighbour discovery: which ports face a CA
 */
#ifndef PZ_NODE_INTERNAL_H
#define PZ_NODE_INTERNAL_H

#include "mad_txn.h"
#include "node.h"

/* Where a port's neighbour discovery stands. */
enum node_disc {
    NODE_DISC_IDLE = 0, /* port not Active, or never seen Active */
    NODE_DISC_WAIT,     /* a SubnGet(NodeInfo) is out */
    NODE_DISC_DONE,     /* the neighbour's NodeType is known */
    NODE_DISC_FAILED,   /* no answer after the last try: retry later */
};

/* The node's state of one port. */
struct node_port {
    bool active;          /* PortState Active at the last discovery scan */
    uint8_t disc;         /* enum node_disc */
    struct node *owner;   /* the node (discovery's completions find it from the port) */
    int txn;              /* the SMP out (WAIT): its transaction in disc_txns */
    uint64_t deadline_ns; /* retry time (FAILED) */
    bool notified_hot;    /* what the SM was last told: hot-spot or not */
};

struct node {
    struct board *board;
    struct sma *sma;
    struct pma *pma;
    struct cc_agent *cc;
    struct cong_monitor *mon; /* NULL: the monitor does not run */
    struct node_config cfg;
    struct node_hooks hooks;
    struct mad_router router;
    unsigned num_ports;
    struct node_port *ports;   /* [0..num_ports], 0 unused */
    struct mad_txns disc_txns; /* the discovery SMPs out (tag 0x50, requester: the GUID's) */
    uint64_t disc_now;         /* the time of the poll that ends a discovery */
    uint64_t next_disc_scan_ns;
    uint64_t next_link_scan_ns;
    uint16_t notified_sm; /* the master SM's LID the ports' notified_hot refer to (0: none yet) */
};

/* A log line through the caller's hook (printf-style). */
void node_log(const struct node *n, enum node_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* node_monitor.c: run a sample when one is due (events logged, notices queued). */
void node_monitor_poll(struct node *n, uint64_t now);
/* Board time of the monitor's next sample, UINT64_MAX if it does not run. */
uint64_t node_monitor_deadline(const struct node *n);

/* node_notify.c: tell the SM of every port whose hot-spot state it has not heard of. */
void node_notify(struct node *n);

/* node_discovery.c: the port scan and retries that are due; the next deadline. */
void node_discovery_poll(struct node *n, uint64_t now);
uint64_t node_discovery_deadline(const struct node *n);
/* Forget port's discovery when the monitor restarts. */
void node_discovery_reset(struct node *n);

#endif /* PZ_NODE_INTERNAL_H */
