/*
 * snmp_internal.h - what the files of snmp/ share: the agent instance, the
 * transport, the MIB registrations and the notifications.
 */
#ifndef PZ_SNMP_INTERNAL_H
#define PZ_SNMP_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "pz_snmp.h"

/* The application name: config type, persistent file <state_dir>/portzero-snmp.conf. */
#define PZ_SNMP_APP "portzero-snmp"

/* Datagrams waiting for pz_snmp_process(). */
#define PZ_SNMP_QUEUE_LEN 64

/* ifAlias: DisplayString (SIZE(0..64)), RFC 2863. */
#define PZ_SNMP_ALIAS_MAX 64

/*
 * The private-enterprise arc of PORTZERO-MIB: a placeholder number (no IANA
 * assignment yet), 1.3.6.1.4.1.PZ_SNMP_ENTERPRISE.
 */
#define PZ_SNMP_ENTERPRISE 99999

/* One queued datagram. */
struct snmp_dgram {
    struct pz_snmp_peer from;
    size_t len;
    uint8_t *buf;
};

/* Notifications held while sending fails (snmp_hold.c): how many, and for how long. */
#define PZ_SNMP_HOLD_LEN 32
#define PZ_SNMP_HOLD_NS (60ull * 1000000000u)
#define PZ_SNMP_HOLD_RETRY_MS 200

/* One held notification: its sink, a copy of the datagram, when it was first sent. */
struct snmp_held {
    struct pz_snmp_peer to;
    uint8_t *buf;
    size_t len;
    uint64_t since_ns;
};

/* What the agent remembers of one ifTable row between requests. */
struct snmp_if_row {
    char alias[PZ_SNMP_ALIAS_MAX + 1];
    uint8_t oper;          /* last ifOperStatus the notification scan saw */
    uint8_t lc_oper;       /* the ifOperStatus last_change is the start of (0: none yet) */
    uint32_t last_change;  /* sysUpTime (centiseconds) of the last ifOperStatus change */
    uint8_t hotspot_class; /* last congestion class seen (enum cong_port_class) */
    bool hotspot_valid;    /* hotspot_class has been read once */
};

struct snmp_sink;
struct snmp_system;

/* Datagrams of one family waiting for the agent's session of that family. */
struct snmp_rxq {
    struct snmp_dgram queue[PZ_SNMP_QUEUE_LEN];
    unsigned head, count;
};

/* The agent. */
struct pz_snmp {
    struct pz_snmp_params p;
    int efd;        /* eventfd: readable while a queue is not empty; the IPv4 session's */
    int efd6;       /* the IPv6 session's descriptor for net-snmp's fd_set (never polled) */
    bool signalled; /* efd written and not yet read (under lock) */
    pthread_mutex_t lock;
    struct snmp_rxq rx[2]; /* [peer.ipv6]: what the IPv4 and the IPv6 session read */
    struct pz_snmp_stats stats;
    void *server;            /* netsnmp_transport of the agent's IPv4 session (UDP domain) */
    void *server6;           /* and of its IPv6 session (UDP/IPv6 domain) */
    struct snmp_sink *sinks; /* notification sinks' receive queues (snmp_sink.c), under lock */
    size_t num_sinks;

    unsigned num_ports;          /* external ports: ifIndex 1..num_ports */
    unsigned num_if;             /* num_ports + 1 (the management interface) */
    struct snmp_if_row *if_rows; /* [ifIndex - 1] */
    struct pz_snmp_mgmt_if mgmt;
    uint32_t mgmt_discontinuity; /* sysUpTime of the last backwards step */

    struct pz_snmp_reach *reach;
    size_t num_reach;

    struct pz_snmp_route_check route_check; /* the last route check (mib_routes.c) */
    struct snmp_system *sys;                /* sysObjectID, sysName's default (snmp_system.c) */

    struct snmp_port_snap *snaps;            /* [port], snmp_port.c */
    uint64_t gen;                            /* request generation of the snapshots */
    bool cold_sent;                          /* coldStart went out */
    struct snmp_held held[PZ_SNMP_HOLD_LEN]; /* notifications waiting for a path (snmp_hold.c) */
    unsigned held_head, held_count;
    uint64_t scan_ns; /* board time of the last link/hot-spot scan */
};

/* sysUpTime now, in centiseconds since the agent started. */
uint32_t snmp_uptime(void);

/* Transport (snmp_transport.c). */
int snmp_transport_register(struct pz_snmp *s);
/* The agent's server transport of one family (net-snmp's UDP or UDP/IPv6 domain); NULL on OOM. */
void *snmp_transport_open_server(struct pz_snmp *s, bool ipv6);
/* Whether two peers are the same address (of the same family, zone aside) and port. */
bool snmp_peer_equal(const struct pz_snmp_peer *a, const struct pz_snmp_peer *b);
void snmp_transport_forget(struct pz_snmp *s);
void snmp_queue_drain(struct pz_snmp *s);

/*
 * Notifications out (snmp_hold.c): send to `to`, or hold a copy when that
 * fails or older ones still wait (always 0: a held notification is sent
 * later or counted dropped).  snmp_hold_flush retries the held ones, in
 * order; snmp_hold_count says how many wait; snmp_hold_free drops them.
 */
int snmp_hold_send(struct pz_snmp *s, const struct pz_snmp_peer *to, const void *buf, size_t len);
void snmp_hold_flush(struct pz_snmp *s);
unsigned snmp_hold_count(const struct pz_snmp *s);
void snmp_hold_free(struct pz_snmp *s);

/* Notification sinks' receive side (snmp_sink.c); each takes the agent's lock. */
/* Register a sink transport: its destination and descriptor; 0 or -ENOMEM. */
int snmp_sink_add(struct pz_snmp *s, const struct pz_snmp_peer *to, int fd);
/* Forget the sink of descriptor fd (its transport closes), dropping what waits. */
void snmp_sink_remove(struct pz_snmp *s, int fd);
/* Take the oldest datagram queued for the sink of descriptor fd; false if none. */
bool snmp_sink_pop(struct pz_snmp *s, int fd, struct snmp_dgram *d);
/*
 * Queue a copy of a datagram from `from` for every sink at that address and
 * wake their descriptors; 0, -ENOENT (no sink there) or -ENOBUFS (dropped).
 */
int snmp_sink_push(struct pz_snmp *s, const struct pz_snmp_peer *from, const void *buf, size_t len);
/* Set the descriptors of sinks with datagrams in fds (a netsnmp_large_fd_set); how many wait. */
unsigned snmp_sink_fds(struct pz_snmp *s, void *fds);
/* How many datagrams wait for sinks. */
unsigned snmp_sink_queued(struct pz_snmp *s);
/* Drop every datagram waiting for a sink (no session read them). */
void snmp_sink_drop_all(struct pz_snmp *s);
/* Free the table (after net-snmp closed its sessions). */
void snmp_sink_free(struct pz_snmp *s);

/* IF-MIB (mib_if.c). */
int snmp_mib_if_register(struct pz_snmp *s);
unsigned snmp_if_oper_status(struct pz_snmp *s, unsigned ifindex);
unsigned snmp_if_admin_status(struct pz_snmp *s, unsigned ifindex);
/* ifLastChange of a row, first noting an ifOperStatus change a request or the scan sees. */
uint32_t snmp_if_last_change(struct pz_snmp *s, unsigned ifindex);

/* PORTZERO-MIB (mib_portzero.c; the pzRouteCheck scalars: mib_routes.c). */
int snmp_mib_portzero_register(struct pz_snmp *s);
int snmp_mib_routes_register(struct pz_snmp *s);

/* ifAlias persistence (snmp_persist.c). */
void snmp_persist_register(struct pz_snmp *s);
void snmp_persist_unregister(struct pz_snmp *s);

/* Notifications (snmp_notify.c). */
/*
 * createUser's arguments args name a user (into name) that a createUser
 * line of the configuration file at path creates too; false otherwise
 * (the line came from another file: the persistent one).
 */
bool snmp_conf_user_configured(const char *path, const char *args, char *name, size_t cap);
/* Whether the configuration file at path has a line of token (any case). */
bool snmp_conf_sets(const char *path, const char *token);

void snmp_notify_scan(struct pz_snmp *s, bool send);
/*
 * Stamp the switch's sysObjectID on the generic notifications net-snmp
 * builds (snmp_notify_register; 0 or -1), before they reach any sink;
 * snmp_notify_unregister undoes it.
 */
int snmp_notify_register(struct pz_snmp *s);
void snmp_notify_unregister(struct pz_snmp *s);
void snmp_notify_reach(struct pz_snmp *s, const struct pz_snmp_reach *peer);

#endif /* PZ_SNMP_INTERNAL_H */
