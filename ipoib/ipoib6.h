/*
 * ipoib6.h - IPv6 on an IPoIB endpoint (RFC 4391 with RFC 4861/4862).
 *
 * The endpoint carries IPv6 beside IPv4 when its config says ip6.  It does
 * neighbour discovery itself, as it does ARP: it answers Neighbor
 * Solicitations for the addresses the host stack gives it
 * (ipoib6_set_addrs), resolves next hops with solicitations carrying its
 * 20-byte IPoIB address, learns neighbours and routers from what it
 * receives, and joins the IPv6 groups through the SA (all-nodes, the
 * solicited-node group of each address, and what ipoib6_join asks for).
 * The host stack sees plain IPv6 packets: the 20-byte link-layer address
 * never reaches it.
 */
#ifndef PZ_IPOIB6_H
#define PZ_IPOIB6_H

#include <stdbool.h>
#include <stdint.h>

#include "ipoib.h"
#include "ipoib_ip6.h"
#include "ipoib_mcast6.h"
#include "ipoib_nd.h"

#define IPOIB6_ADDRS_MAX 8   /* addresses of the host stack mirrored */
#define IPOIB6_ROUTERS_MAX 4 /* default routers learned from RAs */
#define IPOIB6_PREFIXES_MAX 8
#define IPOIB6_GROUPS_MAX 32   /* IPv6 groups, member and send-only */
#define IPOIB6_SENDONLY_MAX 16 /* of which send-only */

/* One address of the host stack, as the endpoint must know it to answer for it. */
struct ipoib6_addr {
    uint8_t addr[IPOIB_IP6_ADDR_LEN];
    uint8_t prefix_len; /* on-link prefix; 128: none (link-local addresses use 64) */
    bool tentative;     /* under duplicate address detection: not answered for */
};

/* A router an RA named, or an on-link prefix it gave. */
struct ipoib6_router {
    uint8_t addr[IPOIB_IP6_ADDR_LEN];
    uint64_t expires; /* ms; 0: free entry */
};

struct ipoib6_prefix {
    uint8_t prefix[IPOIB_IP6_ADDR_LEN];
    uint8_t len;
    uint64_t expires; /* ms; 0: free entry */
};

/* IPv6 counters. */
struct ipoib6_stats {
    uint64_t rx_packets, tx_packets; /* IPv6 carried, neighbour discovery not counted */
    uint64_t rx_nd, tx_nd;           /* neighbour discovery messages handled and sent */
    uint64_t rx_dropped_nd;          /* malformed or refused neighbour discovery */
    uint64_t rx_dropped_nd_reason[IPOIB_ND_RESULT_COUNT];
    uint64_t rx_dropped_ip6;    /* malformed IPv6 header or length */
    uint64_t rx_dropped_dst;    /* not to one of our addresses or groups */
    uint64_t tx_dropped_bad;    /* not IPv6, or too long */
    uint64_t tx_nd_suppressed;  /* the host stack's own NS/NA (the endpoint sends its own) */
    uint64_t tx_mld_suppressed; /* MLD reports and queries: on IB the SA join is the membership */
    uint64_t tx_dropped_mcast;  /* to a group not joined and all-nodes not joined either */
    uint64_t tx_dropped_no_route;
    uint64_t mcast_joins, mcast_join_failures, mcast_leaves;
    uint64_t dad_conflicts; /* a duplicate of one of our addresses seen */
};

/* One IPv6 group as `show ip` lists it. */
struct ipoib6_group_info {
    uint8_t group[IPOIB_IP6_ADDR_LEN];
    uint8_t mgid[IPOIB_GID_LEN];
    bool sendonly;
    enum ipoib_mcast6_state state;
    uint16_t mlid; /* when UP */
};

/*
 * Tell the endpoint the host stack's IPv6 addresses (n ≤ IPOIB6_ADDRS_MAX,
 * more are ignored), replacing the previous set: the solicited-node group of
 * each is joined (and of an address gone, left); an address that stops being
 * tentative is announced with an unsolicited NA.  Returns 0, or -EINVAL when
 * the endpoint has no IPv6.
 */
int ipoib6_set_addrs(struct ipoib *ep, const struct ipoib6_addr *addrs, unsigned n, uint64_t now);

/*
 * Join or leave IPv6 multicast group `group` for the host stack (MLD's
 * groups).  Counted: a group joined twice is left on the second leave.
 * Returns 0, -EINVAL (not multicast, or no IPv6) or -ENOSPC.
 */
int ipoib6_join(struct ipoib *ep, const uint8_t group[IPOIB_IP6_ADDR_LEN], uint64_t now);
int ipoib6_leave(struct ipoib *ep, const uint8_t group[IPOIB_IP6_ADDR_LEN], uint64_t now);

/* Copy up to max groups into out; returns how many there are. */
unsigned ipoib6_groups(const struct ipoib *ep, struct ipoib6_group_info *out, unsigned max);

/* Copy up to max default routers (from RAs, alive at now) into out; returns how many. */
unsigned ipoib6_routers(const struct ipoib *ep, uint8_t (*out)[IPOIB_IP6_ADDR_LEN], unsigned max,
                        uint64_t now);

/* The IPv6 counters. */
const struct ipoib6_stats *ipoib6_stats(const struct ipoib *ep);

#endif
