/*
 * ipoib_internal.h - the endpoint's state and the functions its two halves
 * share: ipoib.c (broadcast group, ARP, neighbours, IPv4) and ipoib6.c
 * (IPv6: neighbour discovery, the IPv6 groups).  Not for callers of the
 * library.
 */
#ifndef PZ_IPOIB_INTERNAL_H
#define PZ_IPOIB_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "ipoib.h"
#include "ipoib6.h"
#include "ipoib_mcast6.h"
#include "mad_txn.h"

/*
 * Packets held per neighbour while it resolves: the first datagrams of a
 * UDP stream to a new peer (an iperf -u test: ~4 a ms at 50 Mbit/s) wait
 * through ARP and the PathRecord query instead of being dropped.  Linux
 * bounds its unresolved queue by bytes (unres_qlen_bytes, 212992: ~100
 * full-size IPoIB packets); 3 was its old packet limit.
 */
#define NEIGH_QUEUE_MAX 64
#define NO_DEADLINE UINT64_MAX

/* Where a neighbour entry stands. */
enum neigh_state {
    NEIGH_FREE,
    NEIGH_ARP,   /* ARP request (IPv6: solicitation) out, no answer yet */
    NEIGH_PATH,  /* link address known, PathRecord query out */
    NEIGH_VALID, /* resolved */
};

/* A packet waiting for its neighbour to resolve. */
struct pending_pkt {
    uint8_t *buf;
    size_t len;
};

/* One neighbour, IPv4 or IPv6: its link address and the path to it. */
struct neigh {
    enum neigh_state state;
    uint32_t ip; /* IPv4 (host order), when !v6 */
    bool v6;
    uint8_t ip6[IPOIB_IP6_ADDR_LEN]; /* when v6 */
    struct ipoib_lladdr ll;
    uint16_t lid;
    uint8_t sl;
    uint64_t updated;  /* when last confirmed */
    uint64_t deadline; /* next retry, or NO_DEADLINE */
    unsigned tries;
    bool probing; /* VALID but old: a request asks whether it still holds */
    int txn;      /* the path query out (a transaction of ep->txns), if state == NEIGH_PATH */
    uint32_t tid; /* its TID's low 32 bits */
    struct ipoib *owner;
    struct pending_pkt q[NEIGH_QUEUE_MAX];
    unsigned qn;
};

/* The IPv6 half of the endpoint (ipoib6.c). */
struct ipoib6 {
    bool on;
    struct ipoib6_addr addrs[IPOIB6_ADDRS_MAX];
    unsigned n_addrs;
    struct ipoib_mcast6_table groups;
    struct ipoib6_router routers[IPOIB6_ROUTERS_MAX];
    struct ipoib6_prefix prefixes[IPOIB6_PREFIXES_MAX];
    struct ipoib6_stats stats;
    uint64_t join_retry_at; /* joins that found no room for a transaction: tried again then */
    uint8_t buf[IPOIB_IP6_HDR_LEN + 256]; /* a neighbour discovery message being built */
};

struct ipoib {
    struct ipoib_config cfg;
    struct ipoib_ops ops;
    void *ctx;
    struct ipoib_port port;
    bool port_known;
    enum ipoib_state state;
    struct ipoib_group group;
    uint8_t bcast_mgid[IPOIB_GID_LEN];
    uint8_t own_gid[IPOIB_GID_LEN];
    struct mad_txns txns; /* the SA requests: the join and the path queries */
    int join_txn;         /* the join out (JOINING), or -1 */
    uint32_t join_tid;    /* its TID's low 32 bits */
    bool join_answered;   /* its last copy was answered (refused): a resend is no timeout */
    uint64_t sa_now;      /* the time of the answer or poll that ends a transaction */
    struct neigh *neigh;
    struct ipoib_stats stats;
    struct ipoib6 v6;
    uint8_t txbuf[IPOIB_ENCAP_LEN + BOARD_DGRAM_MAX_PAYLOAD];
};

/* ---- ipoib.c, for ipoib6.c ---- */

/* Where SA requests go (the master SM), for transactions of ep->txns. */
struct mad_addr ipoib_sa_addr(const struct ipoib *ep);

/* Send len bytes of ep->txbuf to group g (GRH to its MGID). Returns 0 or -errno. */
int ipoib_send_group(struct ipoib *ep, const struct ipoib_group *g, size_t len);

/* Send len bytes of buf to one peer. Returns 0 or -errno. */
int ipoib_send_unicast(struct ipoib *ep, const uint8_t *buf, size_t len, uint16_t lid, uint8_t sl,
                       uint32_t qpn);

/* A free neighbour entry (the oldest resolved one evicted), or NULL. */
struct neigh *ipoib_neigh_alloc(struct ipoib *ep);

/*
 * Learn neighbour n's link address ll from a message that came in datagram
 * a: resolved at once when a's source QP is ll's, else a PathRecord query.
 */
void ipoib_neigh_learn(struct ipoib *ep, struct neigh *n, const struct ipoib_lladdr *ll,
                       const struct board_dgram_addr *a, uint64_t now);

/*
 * Send the framed packet in ep->txbuf (framed_len bytes) through neighbour
 * n, or queue it while n resolves.  Returns 0 sent, 1 queued, or -errno.
 */
int ipoib_output_neigh(struct ipoib *ep, struct neigh *n, size_t framed_len, uint64_t now);

/* Count one sent IP packet of len bytes. */
void ipoib_count_tx(struct ipoib *ep, size_t len);

/* ---- ipoib6.c, for ipoib.c ---- */

/* Set up the IPv6 half (when cfg.ip6). Returns 0 or -1 (no memory). */
int ipoib6_init(struct ipoib *ep);
void ipoib6_fini(struct ipoib *ep);

/* One received IPv6 datagram body (after the encapsulation header). */
void ipoib6_input(struct ipoib *ep, const struct board_dgram_addr *a, const uint8_t *pkt,
                  size_t len, uint64_t now);

/* One IPv6 packet of the host stack. Returns 0 sent or queued, or -errno. */
int ipoib6_output(struct ipoib *ep, const uint8_t *pkt, size_t len, uint64_t now);

/* The broadcast group was joined: join the IPv6 groups, announce the addresses. */
void ipoib6_up(struct ipoib *ep, uint64_t now);

/* The endpoint went down: the IPv6 groups wait for the next join. */
void ipoib6_down(struct ipoib *ep);

/*
 * An SA answer with our tag that no IPv4 request awaits: true if it
 * answered an IPv6 group's join or leave (transactions of ep->txns).
 */
bool ipoib6_input_sa(struct ipoib *ep, uint64_t tid, const uint8_t *mad, size_t len, uint64_t now);

/* Send a solicitation for neighbour n (multicast while resolving, unicast when probing). */
void ipoib6_solicit(struct ipoib *ep, struct neigh *n, uint64_t now);

/* Joins that waited for room for a transaction (the transactions resend themselves). */
void ipoib6_poll(struct ipoib *ep, uint64_t now);
uint64_t ipoib6_next_deadline(const struct ipoib *ep);

/* Print one log line through the endpoint's ops.log, if there is one (ipoib.c). */
void ipoib_log(const struct ipoib *ep, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
