/*
 * pz_snmp.h - the SNMP agent of the switch: net-snmp 5.9's agent library
 * embedded as a master agent, fed datagrams by its caller.
 *
 * The caller owns the network (portzerod: lwIP's UDP 161 on the IPoIB
 * address; the tests: a Linux UDP socket).  It hands every received
 * datagram to pz_snmp_input() and transmits what the agent gives its send
 * callback.  The agent has no thread and no socket of its own: the caller
 * polls pz_snmp_fd() (readable when datagrams wait) and calls
 * pz_snmp_process() when it is readable or pz_snmp_timeout_ms() has passed,
 * on the thread that owns the switch state (the MIB handlers read the
 * board, the SMA, the PMA and the congestion monitor directly).
 *
 * net-snmp keeps its state in process globals, so a process holds at most
 * one agent at a time.
 */
#ifndef PZ_SNMP_H
#define PZ_SNMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "board.h"

struct sma;
struct pma;
struct cong_monitor;
struct pz_snmp;

/*
 * A UDP endpoint of either family: an IPv4 address (ipv6 false: addr, host
 * byte order) or an IPv6 one (addr6, network byte order; scope: the zone of
 * a link-local address as the caller's stack numbers it, 0 for none), and
 * the port in host byte order.  The agent hands an IPv6 peer to net-snmp as
 * its UDP/IPv6 domain does, so rocommunity6/com2sec6 lines apply to it and
 * rocommunity/com2sec lines to IPv4 peers.
 */
struct pz_snmp_peer {
    uint32_t addr;
    uint16_t port;
    bool ipv6;
    uint8_t addr6[16];
    uint32_t scope;
};

/*
 * Transmit one datagram to peer (an answer, or a notification to a sink);
 * called from pz_snmp_process() on the caller's thread.  Returns 0 or -1.
 */
typedef int (*pz_snmp_send_fn)(void *arg, const struct pz_snmp_peer *to, const void *buf,
                               size_t len);

/* What the agent serves and where it keeps its files. */
struct pz_snmp_params {
    const char *config_file; /* snmpd.conf tokens (NULL: none: no access at all) */
    const char *state_dir;   /* persistent state: engineBoots, users, ifAlias */
    pz_snmp_send_fn send;
    void *send_arg;
    const struct board *board;
    struct sma *sma;
    struct pma *pma;
    struct cong_monitor *cong; /* may be NULL: the congestion table is empty */
    unsigned mgmt_port;        /* external port the management path uses (0: none) */
    size_t max_message;        /* largest SNMP message (0: 8192) */
    bool defer_cold_start;     /* coldStart waits for pz_snmp_cold_start() */
};

/*
 * The IPoIB management interface, as the caller's IP stack sees it (one
 * row of ifTable after the external ports).  Counters are cumulative; a
 * counter that goes backwards marks a discontinuity.
 */
struct pz_snmp_mgmt_if {
    bool up;
    uint32_t ipv4; /* host byte order, 0: none */
    uint32_t mtu;
    uint8_t hw_addr[20]; /* IPoIB hardware address (QPN + GID) */
    uint64_t in_octets;
    uint64_t in_ucast_pkts;
    uint64_t in_mcast_pkts;
    uint64_t in_bcast_pkts; /* to the IPoIB broadcast address (the broadcast group) */
    uint64_t in_errors;
    uint64_t in_discards;
    uint64_t out_octets;
    uint64_t out_ucast_pkts;
    uint64_t out_mcast_pkts;
    uint64_t out_bcast_pkts; /* to the IPoIB broadcast address (the broadcast group) */
    uint64_t out_errors;
    uint64_t out_discards;
};

/* Switch-to-switch reachability of one peer switch (PORTZERO-MIB). */
struct pz_snmp_reach {
    uint16_t lid;
    uint64_t node_guid;
    bool reachable;
    bool lost;         /* gone from the subnet (pzReachStatus lost(3)); reachable is false */
    uint32_t rtt_us;   /* last round trip, 0: unknown */
    uint64_t since_ns; /* board time of the last change */
    char name[64];     /* NodeDescription */
};

/*
 * Start the agent: read the configuration, restore the persistent state
 * (engineBoots incremented and stored at once), register the MIBs and send
 * coldStart to the configured sinks (unless deferred: pz_snmp_cold_start).  Returns NULL with a
 * message in err.
 */
struct pz_snmp *pz_snmp_create(const struct pz_snmp_params *params, char *err, size_t errlen);

/*
 * Send the deferred coldStart (params.defer_cold_start) once the path to the
 * sinks is up; later calls do nothing.  Caller's thread = agent thread.
 */
void pz_snmp_cold_start(struct pz_snmp *s);

/* Store the persistent state and shut net-snmp down (NULL is fine). */
void pz_snmp_destroy(struct pz_snmp *s);

/*
 * Queue one datagram received from peer (any thread).  Returns 0, or
 * -ENOBUFS (queue full: dropped, as a full socket buffer drops it),
 * -EMSGSIZE (larger than max_message).
 */
int pz_snmp_input(struct pz_snmp *s, const struct pz_snmp_peer *from, const void *buf, size_t len);

/*
 * The same on the agent's thread when pz_snmp_process() runs next (an
 * answer in the same pass): pz_snmp_fd is not signalled, which saves an
 * eventfd write and read per request.  Same returns.
 */
int pz_snmp_input_now(struct pz_snmp *s, const struct pz_snmp_peer *from, const void *buf,
                      size_t len);

/* A descriptor that polls readable while datagrams wait for pz_snmp_process(). */
int pz_snmp_fd(const struct pz_snmp *s);

/*
 * Do the agent's work: answer every queued datagram, run net-snmp's due
 * alarms and retransmissions, and send the notifications that switch
 * state changes call for (link up/down, hot-spot onset/clear).
 */
void pz_snmp_process(struct pz_snmp *s);

/* Milliseconds until pz_snmp_process() has timed work (at most 1000). */
int pz_snmp_timeout_ms(const struct pz_snmp *s);

/* Replace the management interface's row (caller's thread = agent thread). */
void pz_snmp_set_mgmt_if(struct pz_snmp *s, const struct pz_snmp_mgmt_if *mif);

/*
 * Replace the reachability table (n entries, copied); a peer whose
 * reachable flag changed since the last call raises reachability
 * lost/regained, a peer new to the table that is unreachable raises
 * reachability lost (its first verdict).  Returns 0 or -ENOMEM.
 */
int pz_snmp_set_reach(struct pz_snmp *s, const struct pz_snmp_reach *peers, size_t n);

/* The last route check the agent ran (PORTZERO-MIB pzRouteCheck). */
struct pz_snmp_route_check {
    bool valid;        /* one has run */
    int64_t when;      /* its end, seconds since 1970 UTC */
    uint32_t switches; /* switches in the SA's NodeRecords */
    uint32_t pairs;    /* switch-to-switch pairs */
    uint32_t unrouted; /* of them without a route */
    bool cycle;        /* a cycle in the channel dependency graph */
    uint32_t check_us; /* the check itself, microseconds */
};

/* Hand over the last route check (copied; the caller's thread = agent thread). */
void pz_snmp_set_route_check(struct pz_snmp *s, const struct pz_snmp_route_check *rc);

/* Counters of the agent itself (for the CLI and the tests). */
struct pz_snmp_stats {
    uint64_t datagrams_in;
    uint64_t datagrams_dropped; /* queue full or too large */
    uint64_t datagrams_out;
    uint64_t send_errors;
    uint64_t notifications;
    uint64_t notifications_held;    /* a send failed: kept and sent again (snmp_hold.c) */
    uint64_t notifications_dropped; /* held too long (60 s) or pushed out (32 held) */
};

/* A snapshot of the agent's counters. */
void pz_snmp_get_stats(const struct pz_snmp *s, struct pz_snmp_stats *st);

/* The engine and the SNMPv2-MIB snmp group (RFC 3418), for `show snmp`. */
struct pz_snmp_info {
    uint8_t engine_id[32];
    size_t engine_id_len;
    uint32_t engine_boots, engine_time;
    uint32_t in_pkts, out_pkts, in_bad_versions, in_bad_community_names;
    uint32_t in_bad_community_uses, in_asn_parse_errs, silent_drops, proxy_drops;
    struct pz_snmp_stats agent;
};

/* A snapshot of the engine and its counters (agent thread). */
void pz_snmp_get_info(const struct pz_snmp *s, struct pz_snmp_info *info);

/* One configured user, community or sink, without its secrets. */
struct pz_snmp_conf_item {
    char kind[16];   /* the token: createUser, rouser, rocommunity, trap2sink... */
    char name[64];   /* user name, sink host; "(hidden)" for a community string */
    char detail[96]; /* protocols, security level and view, source, port */
};

/* The configured access and sinks, from the configuration file (at most max); the count. */
size_t pz_snmp_conf_items(const struct pz_snmp *s, struct pz_snmp_conf_item *items, size_t max);

#endif /* PZ_SNMP_H */
