/*
 * ipoib.h - an IPoIB-UD endpoint (RFC 4391, IPv4) over a port's datagram
 * operations.
 *
 * The endpoint joins the partition's broadcast group through the SA, takes
 * the group's Q_Key, MTU and SL, answers and sends IPoIB ARP, resolves
 * peers' GIDs to LIDs (learned from the datagram that carried their ARP, or
 * asked of the SA), queues a few packets while it resolves, and rejoins when
 * the port, the SM or the partition changes.  It does no I/O and keeps no
 * clock: the caller feeds it datagrams, SA answers and the time, and gives it
 * functions to send with.  Two callers use it: portzerod (behind an lwIP
 * netif) and pz-iphost (behind a TUN device).
 */
#ifndef PZ_IPOIB_H
#define PZ_IPOIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "board.h"
#include "ipoib_sa.h"
#include "ipoib_wire.h"

/* Whether the port's P_Key table holds the endpoint's partition. */
enum ipoib_pkey_state {
    IPOIB_PKEY_ABSENT,  /* not in the table: cannot send in the partition */
    IPOIB_PKEY_LIMITED, /* only as a limited member: cannot join the broadcast group */
    IPOIB_PKEY_FULL,    /* full member */
};

/* What the caller knows about the port; passed on every change. */
struct ipoib_port {
    bool active;         /* PortState Active */
    uint16_t lid;        /* the port's LID (port 0's for a switch) */
    uint64_t gid_prefix; /* host order */
    uint64_t port_guid;  /* host order */
    uint16_t sm_lid;     /* MasterSMLID */
    uint8_t sm_sl;       /* MasterSMSL */
    enum ipoib_pkey_state pkey_state;
    uint32_t reregister; /* bumped by the caller when the SM asks for re-registration */
};

/*
 * Read a port's state from the attributes an SMA Get returns: PortInfo
 * (64 bytes) and the first P_KeyTable block (32 P_Keys, network order),
 * the port GUID (NodeInfo) and the endpoint's partition.  out->reregister
 * is left as it is (ipoib_port.c).
 */
void ipoib_port_from_attrs(const uint8_t portinfo[64], const uint8_t pkeys[64], uint64_t port_guid,
                           uint16_t pkey, struct ipoib_port *out);

/* Where partition pkey stands in one P_Key block: absent, limited or full member. */
enum ipoib_pkey_state ipoib_pkey_state_of(const uint8_t block[64], uint16_t pkey);

/* Settings, fixed at creation. */
struct ipoib_config {
    uint16_t pkey;          /* partition, default 0xffff */
    uint32_t qpn;           /* the port's UD QP number */
    uint32_t addr;          /* IPv4 address, host order; 0 = none */
    uint32_t netmask;       /* host order */
    uint32_t gateway;       /* host order; 0 = none */
    unsigned neigh_max;     /* neighbour entries; 0 = 256 */
    unsigned reachable_ms;  /* a resolved neighbour is trusted this long; 0 = 30000 */
    unsigned retry_ms;      /* ARP/NS, path query and IPv6 leave retry interval; 0 = 1000 */
    unsigned join_retry_ms; /* first join retry (IPv6 groups' too); doubles up to 16 s; 0 = 1000 */
    /*
     * The top byte of the low 32 bits of every SA TID it sends.  The high 32
     * bits belong to the MAD layer (the kernel's umad and umad2sim put their
     * agent number there), so answers are matched on the low 32 bits only.
     */
    uint8_t tid_tag;
    bool ip6;                /* carry IPv6 too (ipoib6.h) */
    uint8_t ip6_gateway[16]; /* IPv6 default router; :: = none (then the RAs' routers) */
};

/* Functions the endpoint calls; ctx is the caller's. */
struct ipoib_ops {
    /* Send one UD datagram; returns 0 or a negative errno. */
    int (*send_dgram)(void *ctx, const struct board_dgram_addr *a, const void *buf, size_t len);
    /* Send an SA request MAD to the SM at dlid/sl (QP1, GSI Q_Key); 0 or -errno. */
    int (*send_sa)(void *ctx, const void *mad, size_t len, uint16_t dlid, uint8_t sl);
    /* Hand one received IPv4 (or, with ip6, IPv6) packet to the host stack. */
    void (*deliver)(void *ctx, const void *pkt, size_t len);
    /* Give the UD QP the group's Q_Key; 0 or -errno. */
    int (*set_qkey)(void *ctx, uint32_t qkey);
    /* The link went up (joined; ip_mtu valid) or down. May be NULL. */
    void (*link)(void *ctx, bool up, unsigned ip_mtu);
    /* One log line (level 0 error .. 3 debug). May be NULL. */
    void (*log)(void *ctx, int level, const char *msg);
};

/* Counters, for logs, SNMP and tests. */
struct ipoib_stats {
    uint64_t rx_packets, rx_bytes, tx_packets, tx_bytes;
    uint64_t rx_group_packets, tx_group_packets;   /* of rx/tx_packets: via the broadcast group */
    uint64_t rx_mcast6_packets, tx_mcast6_packets; /* of rx/tx_packets: via an IPv6 group */
    uint64_t rx_arp, tx_arp;
    uint64_t rx_dropped_short;      /* no room for the header */
    uint64_t rx_dropped_type;       /* not IPv4 or ARP (IPv6 included) */
    uint64_t rx_dropped_ip;         /* malformed IPv4 header or length */
    uint64_t rx_dropped_arp;        /* malformed ARP */
    uint64_t rx_dropped_oversize;   /* longer than the group MTU */
    uint64_t rx_dropped_down;       /* arrived while not joined */
    uint64_t rx_dropped_qkey;       /* wrong Q_Key */
    uint64_t rx_looped;             /* our own multicast, dropped */
    uint64_t tx_dropped_down;       /* not joined */
    uint64_t tx_dropped_no_route;   /* off-link and no gateway */
    uint64_t tx_dropped_unresolved; /* ARP or path resolution failed, or queue full */
    uint64_t tx_dropped_bad;        /* not an IPv4 packet, or longer than the MTU */
    uint64_t tx_errors;             /* send_dgram failed */
    uint64_t joins, join_failures, join_timeouts;
    uint64_t path_queries, path_failures;
    uint64_t sa_dropped; /* SA MADs with our TID prefix that matched nothing or were garbage */
    uint64_t flushes;    /* neighbour flushes (rejoins) */
};

/* The endpoint's join state. */
enum ipoib_state {
    IPOIB_DOWN,    /* waiting for an active port with a LID, an SM and the P_Key */
    IPOIB_JOINING, /* join sent, waiting for the answer or the retry */
    IPOIB_UP,      /* member of the broadcast group */
};

struct ipoib;

/* Create an endpoint; returns NULL on a bad config or no memory. */
struct ipoib *ipoib_create(const struct ipoib_config *cfg, const struct ipoib_ops *ops, void *ctx);

/* Free it (no callbacks). */
void ipoib_destroy(struct ipoib *ep);

/*
 * Tell the endpoint the port's state at time now (ms).  A change of LID,
 * SM, GID prefix, P_Key state or re-registration count, or the port going
 * down, flushes the neighbours and starts a new join.
 */
void ipoib_port_update(struct ipoib *ep, const struct ipoib_port *port, uint64_t now);

/* One received datagram (payload after the GRH, i.e. starting with the 4-byte header). */
void ipoib_input(struct ipoib *ep, const struct board_dgram_addr *a, const uint8_t *payload,
                 size_t len, uint64_t now);

/*
 * Offer a received SA MAD; returns true if it answered one of the
 * endpoint's requests (consumed, even if it refused), false if not ours.
 */
bool ipoib_input_sa(struct ipoib *ep, const uint8_t *mad, size_t len, uint64_t now);

/*
 * Send one IPv4 packet (header included; with ip6 an IPv6 one too).
 * Returns 0 when sent or queued for resolution, a negative errno when dropped (counted).
 */
int ipoib_output(struct ipoib *ep, const uint8_t *pkt, size_t len, uint64_t now);

/* Run the timers due at now: join retries, ARP and path retries, aging. */
void ipoib_poll(struct ipoib *ep, uint64_t now);

/* The next time ipoib_poll has work, or UINT64_MAX. */
uint64_t ipoib_next_deadline(const struct ipoib *ep);

/* The join state, the group (valid when UP) and the counters. */
enum ipoib_state ipoib_state(const struct ipoib *ep);
const struct ipoib_group *ipoib_group(const struct ipoib *ep);
const struct ipoib_stats *ipoib_stats(const struct ipoib *ep);

/* The IP MTU while UP, else 0. */
unsigned ipoib_mtu(const struct ipoib *ep);

/* Our own link-layer address. */
void ipoib_own_lladdr(const struct ipoib *ep, struct ipoib_lladdr *out);

/* A neighbour as a caller sees it (for `show ip` and tests). */
struct ipoib_neigh_info {
    uint32_t ip; /* IPv4, when !v6 */
    bool v6;
    uint8_t ip6[16]; /* when v6 */
    struct ipoib_lladdr lladdr;
    uint16_t lid;
    uint8_t sl;
    bool resolved;
    uint64_t updated; /* ms */
};

/* Copy up to max neighbours into out; returns how many exist. */
unsigned ipoib_neighbours(const struct ipoib *ep, struct ipoib_neigh_info *out, unsigned max);

#endif
