/*
 * ipoib6.c - the IPv6 half of the IPoIB endpoint: neighbour discovery with
 * the IPoIB link-layer option, the IPv6 multicast groups and the IPv6
 * datagram path (see ipoib6.h).  Neighbours share the IPv4 table of
 * ipoib.c: its queue, aging, retries and PathRecord queries.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ipoib_internal.h"

#define ICMP6_MLD_QUERY 130
#define ICMP6_MLD_REPORT 131
#define ICMP6_MLD_DONE 132
#define ICMP6_MLD2_REPORT 143
#define IP6_NH_HOPOPTS 0
#define LEAVE_TRIES 3 /* copies of a leave before it is given up */

/* ---- addresses ---------------------------------------------------------- */

/* Our mirrored address equal to addr, or NULL. */
static const struct ipoib6_addr *own_addr(const struct ipoib *ep,
                                          const uint8_t addr[IPOIB_IP6_ADDR_LEN])
{
    for (unsigned i = 0; i < ep->v6.n_addrs; i++)
        if (memcmp(ep->v6.addrs[i].addr, addr, IPOIB_IP6_ADDR_LEN) == 0)
            return &ep->v6.addrs[i];
    return NULL;
}

/*
 * The source for a solicitation of target: a usable address of ours in
 * target's prefix (link-local for link-local), else any usable one.
 * NULL when every address is still tentative.
 */
static const struct ipoib6_addr *source_for(const struct ipoib *ep,
                                            const uint8_t target[IPOIB_IP6_ADDR_LEN])
{
    const struct ipoib6_addr *any = NULL;

    for (unsigned i = 0; i < ep->v6.n_addrs; i++) {
        const struct ipoib6_addr *a = &ep->v6.addrs[i];
        unsigned plen = ipoib_ip6_is_linklocal(a->addr) ? 64 : a->prefix_len;
        if (a->tentative)
            continue;
        if (ipoib_ip6_prefix_match(a->addr, target, plen))
            return a;
        if (!any)
            any = a;
    }
    return any;
}

/* The IPv6 neighbour entry of addr, or NULL. */
static struct neigh *neigh6_find(struct ipoib *ep, const uint8_t addr[IPOIB_IP6_ADDR_LEN])
{
    for (unsigned i = 0; i < ep->cfg.neigh_max; i++) {
        struct neigh *n = &ep->neigh[i];
        if (n->state != NEIGH_FREE && n->v6 && memcmp(n->ip6, addr, IPOIB_IP6_ADDR_LEN) == 0)
            return n;
    }
    return NULL;
}

/* A new IPv6 neighbour entry for addr, or NULL when the table is busy. */
static struct neigh *neigh6_alloc(struct ipoib *ep, const uint8_t addr[IPOIB_IP6_ADDR_LEN])
{
    struct neigh *n = ipoib_neigh_alloc(ep);

    if (n) {
        n->v6 = true;
        memcpy(n->ip6, addr, IPOIB_IP6_ADDR_LEN);
    }
    return n;
}

/* ---- groups -------------------------------------------------------------- */

static void join6_ended(void *arg, int status, const uint8_t *mad, size_t len);
static void leave6_ended(void *arg, int status, const uint8_t *mad, size_t len);

/*
 * Join e (create-capable, with the broadcast group's parameters): a
 * transaction of ep->txns resent with its TID until answered, the interval
 * doubling from cfg.join_retry_ms up to 16 s, as the broadcast group's.
 * Returns 0 (the join is out, or stands for its next copy), or -ENOSPC (no
 * room for another transaction: e stays IDLE).
 */
static int send_join6(struct ipoib *ep, struct ipoib_mcast6 *e, uint64_t now)
{
    uint8_t mad[IPOIB_SA_MAD_LEN];
    struct mad_addr to = ipoib_sa_addr(ep);
    struct mad_txn_timing tm = {.timeout = ep->cfg.join_retry_ms,
                                .timeout_max = IPOIB_MCAST6_BACKOFF_MAX,
                                .tries = MAD_TXN_FOREVER};

    ipoib_mcast6_build_join(
        mad, 0, e->mgid, ep->own_gid, &ep->group, (uint16_t)(ep->cfg.pkey | 0x8000),
        e->kind == IPOIB_MCAST6_FULL ? IPOIB_JOIN_FULL : IPOIB_JOIN_SENDONLY_FULL);
    ipoib_mcast6_joining(e, -1, 0); /* before the send: an answer may come at once */
    if (mad_txn_start(&ep->txns, mad, &to, now, &tm, join6_ended, ep, &e->txn, &e->tid) ==
        -ENOSPC) {
        e->state = IPOIB_MCAST6_IDLE;
        e->txn = -1;
        return -ENOSPC;
    }
    return 0;
}

/*
 * Leave group e (a copy: the entry may be freed already), if it was
 * joined: a transaction of LEAVE_TRIES copies, cfg.retry_ms apart.
 */
static void send_leave6(struct ipoib *ep, const struct ipoib_mcast6 *e, uint64_t now)
{
    uint8_t mad[IPOIB_SA_MAD_LEN];
    struct mad_addr to = ipoib_sa_addr(ep);
    struct mad_txn_timing tm = {.timeout = ep->cfg.retry_ms, .tries = LEAVE_TRIES};
    char text[46];

    if (e->state != IPOIB_MCAST6_UP || ep->state != IPOIB_UP)
        return;
    ipoib_mcast6_build_leave(mad, 0, e->mgid, ep->own_gid, (uint16_t)(ep->cfg.pkey | 0x8000),
                             e->kind == IPOIB_MCAST6_FULL ? IPOIB_JOIN_FULL
                                                          : IPOIB_JOIN_SENDONLY_FULL);
    ep->v6.stats.mcast_leaves++;
    if (mad_txn_start(&ep->txns, mad, &to, now, &tm, leave6_ended, ep, NULL, NULL) == -ENOSPC)
        ipoib_log(ep, 1, "ipoib: no room to leave %s (too many SA requests out)",
                  ipoib_ip6_str(e->group, text));
}

/* End what a group entry had out (a copy: its join, or its membership). */
static void end_entry(struct ipoib *ep, const struct ipoib_mcast6 *e, uint64_t now)
{
    if (e->state == IPOIB_MCAST6_JOINING)
        mad_txn_cancel(&ep->txns, e->txn);
    else
        send_leave6(ep, e, now);
}

/*
 * Send the join of every group that wants one (only while the broadcast
 * group is joined).  With no room for another transaction, they wait
 * until join_retry_at.
 */
static void joins_due(struct ipoib *ep, uint64_t now)
{
    struct ipoib_mcast6 *e;

    ep->v6.join_retry_at = NO_DEADLINE;
    if (ep->state != IPOIB_UP)
        return;
    while ((e = ipoib_mcast6_next_idle(&ep->v6.groups)) != NULL) {
        if (send_join6(ep, e, now) == -ENOSPC) {
            ep->v6.join_retry_at = now + ep->cfg.join_retry_ms;
            return;
        }
    }
}

/*
 * Want membership of group (one more reference): a send-only join of it
 * still out ends (a full join follows), and a send-only entry evicted for
 * room ends what it had out.  Returns the entry, or NULL (table full).
 */
static struct ipoib_mcast6 *want_group(struct ipoib *ep, const uint8_t group[IPOIB_IP6_ADDR_LEN],
                                       uint64_t now)
{
    struct ipoib_mcast6 *e = ipoib_mcast6_find(&ep->v6.groups, group), evicted;

    if (e && e->kind == IPOIB_MCAST6_SENDONLY && e->state == IPOIB_MCAST6_JOINING)
        mad_txn_cancel(&ep->txns, e->txn);
    e = ipoib_mcast6_want(&ep->v6.groups, group, &evicted);
    if (evicted.state != IPOIB_MCAST6_FREE)
        end_entry(ep, &evicted, now);
    return e;
}

/* The all-nodes group's entry. */
static struct ipoib_mcast6 *all_nodes(struct ipoib *ep)
{
    uint8_t g[IPOIB_IP6_ADDR_LEN];

    ipoib_ip6_all_nodes(g);
    return ipoib_mcast6_find(&ep->v6.groups, g);
}

/*
 * Send the framed packet in ep->txbuf (len bytes) to IPv6 group `group`:
 * through its own IB group when joined, else (a group we only send to, its
 * send-only join under way) through all-nodes, whose members filter on the
 * IPv6 destination.  Returns 0 or -errno (counted).
 */
static int send_to_group(struct ipoib *ep, const uint8_t group[IPOIB_IP6_ADDR_LEN], size_t len,
                         uint64_t now)
{
    struct ipoib_mcast6 *e = ipoib_mcast6_find(&ep->v6.groups, group), evicted, *all;

    if (!e || e->kind == IPOIB_MCAST6_SENDONLY) {
        e = ipoib_mcast6_sendonly(&ep->v6.groups, group, now, &evicted);
        if (evicted.state != IPOIB_MCAST6_FREE)
            end_entry(ep, &evicted, now);
    }
    if (e && e->state == IPOIB_MCAST6_UP)
        return ipoib_send_group(ep, &e->info, len);
    if (e && e->state == IPOIB_MCAST6_IDLE)
        send_join6(ep, e, now);
    all = all_nodes(ep);
    if (all && all->state == IPOIB_MCAST6_UP)
        return ipoib_send_group(ep, &all->info, len);
    ep->v6.stats.tx_dropped_mcast++;
    return -EAGAIN;
}

/* ---- neighbour discovery out --------------------------------------------- */

/* Frame the IPv6 packet pkt into ep->txbuf; returns the framed length. */
static size_t frame6(struct ipoib *ep, const uint8_t *pkt, size_t len)
{
    ipoib_encap_write(IPOIB_ETHERTYPE_IPV6, ep->txbuf);
    memcpy(ep->txbuf + IPOIB_ENCAP_LEN, pkt, len);
    return IPOIB_ENCAP_LEN + len;
}

/* Build m into ep->txbuf, framed; returns the framed length (0: did not fit). */
static size_t frame_nd(struct ipoib *ep, const struct ipoib_nd *m)
{
    size_t len = ipoib_nd_build(m, ep->v6.buf, sizeof(ep->v6.buf));

    if (!len)
        return 0;
    ep->v6.stats.tx_nd++;
    return frame6(ep, ep->v6.buf, len);
}

/* An NA for target (ours) from target, with our link-layer address. */
static void na_for(const struct ipoib *ep, const uint8_t target[IPOIB_IP6_ADDR_LEN],
                   struct ipoib_nd *m)
{
    memset(m, 0, sizeof(*m));
    m->type = IPOIB_ND_NA;
    memcpy(m->src, target, IPOIB_IP6_ADDR_LEN);
    memcpy(m->target, target, IPOIB_IP6_ADDR_LEN);
    m->na_flags = IPOIB_NA_OVERRIDE;
    m->has_tlla = true;
    ipoib_own_lladdr(ep, &m->tlla);
}

/* An NA for target (ours) to all-nodes: unsolicited, or the answer to a DAD probe. */
static void na_to_all(struct ipoib *ep, const uint8_t target[IPOIB_IP6_ADDR_LEN], uint64_t now)
{
    struct ipoib_nd m;
    size_t len;

    na_for(ep, target, &m);
    ipoib_ip6_all_nodes(m.dst);
    len = frame_nd(ep, &m);
    if (len)
        send_to_group(ep, m.dst, len, now);
}

/* Announce every usable address (after a join: a restarted endpoint has a new QPN). */
static void announce(struct ipoib *ep, uint64_t now)
{
    for (unsigned i = 0; i < ep->v6.n_addrs; i++)
        if (!ep->v6.addrs[i].tentative)
            na_to_all(ep, ep->v6.addrs[i].addr, now);
}

/* Solicit n: unicast to its known path when probing, else to its solicited-node group. */
void ipoib6_solicit(struct ipoib *ep, struct neigh *n, uint64_t now)
{
    const struct ipoib6_addr *src = source_for(ep, n->ip6);
    struct ipoib_nd m;
    size_t len;

    if (!src)
        return; /* nothing usable to ask from yet; the retry asks again */
    memset(&m, 0, sizeof(m));
    m.type = IPOIB_ND_NS;
    memcpy(m.src, src->addr, IPOIB_IP6_ADDR_LEN);
    memcpy(m.target, n->ip6, IPOIB_IP6_ADDR_LEN);
    m.has_slla = true;
    ipoib_own_lladdr(ep, &m.slla);
    if (n->state == NEIGH_VALID) {
        memcpy(m.dst, n->ip6, IPOIB_IP6_ADDR_LEN);
        len = frame_nd(ep, &m);
        if (len)
            ipoib_send_unicast(ep, ep->txbuf, len, n->lid, n->sl, n->ll.qpn);
        return;
    }
    ipoib_ip6_solicited_node(n->ip6, m.dst);
    len = frame_nd(ep, &m);
    if (len)
        send_to_group(ep, m.dst, len, now);
}

/* ---- neighbour discovery in ---------------------------------------------- */

/* Hand pkt to the host stack, counted. */
static void deliver6(struct ipoib *ep, const struct board_dgram_addr *a, const uint8_t *pkt,
                     size_t len)
{
    ep->stats.rx_packets++;
    ep->stats.rx_bytes += len;
    if (a->dlid >= 0xC000)
        ep->stats.rx_mcast6_packets++;
    ep->v6.stats.rx_packets++;
    ep->ops.deliver(ep->ctx, pkt, len);
}

/* A solicitation from :: (duplicate address detection) for one of our addresses. */
static void ns_dad(struct ipoib *ep, const struct board_dgram_addr *a, const uint8_t *pkt,
                   size_t len, const struct ipoib_nd *m, uint64_t now)
{
    const struct ipoib6_addr *t = own_addr(ep, m->target);
    char text[46];

    if (!t)
        return;
    ep->v6.stats.dad_conflicts++;
    ipoib_log(ep, 1, "ipoib: another node probes for %s, %s", ipoib_ip6_str(m->target, text),
              t->tentative ? "which we are probing too: a duplicate" : "which is ours: defended");
    if (t->tentative)
        deliver6(ep, a, pkt, len); /* the host stack's DAD marks it duplicated */
    else
        na_to_all(ep, t->addr, now);
}

/* A solicitation: learn the sender, answer when the target is ours and usable. */
static void ns_input(struct ipoib *ep, const struct board_dgram_addr *a, const struct ipoib_nd *m,
                     uint64_t now)
{
    const struct ipoib6_addr *t = own_addr(ep, m->target);
    struct neigh *n = neigh6_find(ep, m->src);
    struct ipoib_nd na;
    size_t len;

    if (m->has_slla) {
        if (!n && t && !t->tentative)
            n = neigh6_alloc(ep, m->src);
        if (n)
            ipoib_neigh_learn(ep, n, &m->slla, a, now);
    }
    if (!t || t->tentative || a->slid == 0 || a->slid >= 0xC000)
        return;
    na_for(ep, t->addr, &na);
    na.na_flags |= IPOIB_NA_SOLICITED;
    memcpy(na.dst, m->src, IPOIB_IP6_ADDR_LEN);
    len = frame_nd(ep, &na);
    if (len)
        ipoib_send_unicast(ep, ep->txbuf, len, a->slid, a->sl,
                           m->has_slla ? m->slla.qpn : a->src_qp);
}

/* An advertisement: a duplicate of ours, or a neighbour's address. */
static void na_input(struct ipoib *ep, const struct board_dgram_addr *a, const uint8_t *pkt,
                     size_t len, const struct ipoib_nd *m, uint64_t now)
{
    const struct ipoib6_addr *t = own_addr(ep, m->target);
    struct neigh *n;
    char text[46];

    if (t) {
        ep->v6.stats.dad_conflicts++;
        ipoib_log(ep, 0, "ipoib: another node advertises our address %s",
                  ipoib_ip6_str(m->target, text));
        if (t->tentative)
            deliver6(ep, a, pkt, len);
        return;
    }
    n = neigh6_find(ep, m->target);
    if (n && m->has_tlla)
        ipoib_neigh_learn(ep, n, &m->tlla, a, now);
}

/* Remember router src for lifetime seconds (0: forget it). */
static void router_learn(struct ipoib *ep, const uint8_t src[IPOIB_IP6_ADDR_LEN], unsigned lifetime,
                         uint64_t now)
{
    struct ipoib6_router *free_slot = NULL, *oldest = NULL;

    for (unsigned i = 0; i < IPOIB6_ROUTERS_MAX; i++) {
        struct ipoib6_router *r = &ep->v6.routers[i];
        if (r->expires > now && memcmp(r->addr, src, IPOIB_IP6_ADDR_LEN) == 0) {
            r->expires = lifetime ? now + lifetime * 1000ull : 0;
            return;
        }
        if (r->expires <= now && !free_slot)
            free_slot = r;
        if (!oldest || r->expires < oldest->expires)
            oldest = r;
    }
    if (!lifetime)
        return;
    if (!free_slot)
        free_slot = oldest;
    memcpy(free_slot->addr, src, IPOIB_IP6_ADDR_LEN);
    free_slot->expires = now + lifetime * 1000ull;
}

/* Remember an on-link prefix for its valid lifetime (0: forget it). */
static void prefix_learn(struct ipoib *ep, const struct ipoib_nd_prefix *p, uint64_t now)
{
    struct ipoib6_prefix *free_slot = NULL;
    uint64_t expires =
        p->valid_lifetime == 0xffffffffu ? NO_DEADLINE - 1 : now + p->valid_lifetime * 1000ull;

    if (!(p->flags & IPOIB_ND_PREFIX_ONLINK) || p->len > 128 || ipoib_ip6_is_linklocal(p->prefix))
        return;
    for (unsigned i = 0; i < IPOIB6_PREFIXES_MAX; i++) {
        struct ipoib6_prefix *e = &ep->v6.prefixes[i];
        if (e->expires > now && e->len == p->len &&
            ipoib_ip6_prefix_match(e->prefix, p->prefix, p->len)) {
            e->expires = p->valid_lifetime ? expires : 0;
            return;
        }
        if (e->expires <= now && !free_slot)
            free_slot = e;
    }
    if (!p->valid_lifetime || !free_slot)
        return;
    memcpy(free_slot->prefix, p->prefix, IPOIB_IP6_ADDR_LEN);
    free_slot->len = p->len;
    free_slot->expires = expires;
}

/* An RA: the router and its on-link prefixes; the host stack takes it too (SLAAC, MTU). */
static void ra_input(struct ipoib *ep, const struct board_dgram_addr *a, const uint8_t *pkt,
                     size_t len, const struct ipoib_nd *m, uint64_t now)
{
    struct neigh *n;

    router_learn(ep, m->src, m->ra_lifetime, now);
    for (unsigned i = 0; i < m->n_prefix; i++)
        prefix_learn(ep, &m->prefix[i], now);
    if (m->has_slla) {
        n = neigh6_find(ep, m->src);
        if (!n && m->ra_lifetime)
            n = neigh6_alloc(ep, m->src);
        if (n)
            ipoib_neigh_learn(ep, n, &m->slla, a, now);
    }
    deliver6(ep, a, pkt, len);
}

/* One neighbour discovery message: checked, then handled by type. */
static void nd_input(struct ipoib *ep, const struct board_dgram_addr *a, const uint8_t *pkt,
                     size_t len, uint64_t now)
{
    struct ipoib_nd m;
    enum ipoib_nd_result r = ipoib_nd_parse(pkt, len, &m);

    if (r != IPOIB_ND_OK) {
        ep->v6.stats.rx_dropped_nd++;
        ep->v6.stats.rx_dropped_nd_reason[r]++;
        ipoib_log(ep, 3, "ipoib: neighbour discovery dropped (%s)", ipoib_nd_result_name(r));
        return;
    }
    ep->v6.stats.rx_nd++;
    switch (m.type) {
    case IPOIB_ND_NS:
        if (ipoib_ip6_is_unspecified(m.src))
            ns_dad(ep, a, pkt, len, &m, now);
        else
            ns_input(ep, a, &m, now);
        break;
    case IPOIB_ND_NA:
        na_input(ep, a, pkt, len, &m, now);
        break;
    case IPOIB_ND_RA:
        ra_input(ep, a, pkt, len, &m, now);
        break;
    default:
        break; /* RS: the switch is not a router */
    }
}

/*
 * Check an IPv6 header: version 6, the payload within len.  Returns the
 * packet's length (header + payload), or 0 if malformed.
 */
static size_t ipv6_check(const uint8_t *pkt, size_t len)
{
    size_t total;

    if (len < IPOIB_IP6_HDR_LEN || pkt[0] >> 4 != 6)
        return 0;
    total = IPOIB_IP6_HDR_LEN + be16_get(pkt + 4);
    return total <= len ? total : 0;
}

/* True if dst is ours: one of our addresses, or a group we are a member of. */
static bool for_us(struct ipoib *ep, const uint8_t dst[IPOIB_IP6_ADDR_LEN])
{
    const struct ipoib_mcast6 *e;

    if (!ipoib_ip6_is_multicast(dst))
        return own_addr(ep, dst) != NULL;
    e = ipoib_mcast6_find(&ep->v6.groups, dst);
    return e && e->kind == IPOIB_MCAST6_FULL;
}

/* A received IPv6 datagram: neighbour discovery here, the rest to the host stack. */
void ipoib6_input(struct ipoib *ep, const struct board_dgram_addr *a, const uint8_t *pkt,
                  size_t len, uint64_t now)
{
    size_t total = ipv6_check(pkt, len);

    if (!total) {
        ep->v6.stats.rx_dropped_ip6++;
        return;
    }
    if (ipoib_nd_is_nd(pkt, total)) {
        nd_input(ep, a, pkt, total, now);
        return;
    }
    if (!for_us(ep, pkt + 24)) {
        ep->v6.stats.rx_dropped_dst++;
        return;
    }
    deliver6(ep, a, pkt, total);
}

/* ---- the host stack's packets --------------------------------------------- */

/*
 * The ICMPv6 type of pkt when it is ICMPv6 (directly, or after one
 * hop-by-hop header as MLD sends it), else -1.
 */
static int icmp6_type(const uint8_t *pkt, size_t len)
{
    size_t off = IPOIB_IP6_HDR_LEN;
    uint8_t nh = pkt[6];

    if (nh == IP6_NH_HOPOPTS) {
        if (len < off + 8)
            return -1;
        nh = pkt[off];
        off += ((size_t)pkt[off + 1] + 1) * 8;
    }
    if (nh != IPOIB_IP6_NH_ICMP6 || len < off + 1)
        return -1;
    return pkt[off];
}

/*
 * Whether to send the host stack's packet: its neighbour discovery and MLD
 * are the endpoint's business (lwIP would send a 6-byte link-layer option,
 * and on IB the SA join is the membership).  A DAD probe (from ::, no
 * option) goes out as it is; an RS, or a valid RA (a router behind the
 * endpoint: its prefixes, MTU and lifetimes kept, other options dropped),
 * gets our option.  Returns the packet to
 * send (pkt, or ep->v6.buf) and its length in *len, or NULL (counted).
 */
static const uint8_t *filter_out(struct ipoib *ep, const uint8_t *pkt, size_t *len, uint64_t now)
{
    int type = icmp6_type(pkt, *len);
    struct ipoib_nd m;

    if (type == ICMP6_MLD_QUERY || type == ICMP6_MLD_REPORT || type == ICMP6_MLD_DONE ||
        type == ICMP6_MLD2_REPORT) {
        ep->v6.stats.tx_mld_suppressed++;
        return NULL;
    }
    if (type < IPOIB_ND_RS || type > IPOIB_ND_REDIRECT || pkt[6] != IPOIB_IP6_NH_ICMP6)
        return pkt;
    if (type == IPOIB_ND_NS && ipoib_ip6_is_unspecified(pkt + 8))
        return pkt;
    if (type == IPOIB_ND_RS) {
        memset(&m, 0, sizeof(m));
        m.type = IPOIB_ND_RS;
        memcpy(m.src, pkt + 8, IPOIB_IP6_ADDR_LEN);
        memcpy(m.dst, pkt + 24, IPOIB_IP6_ADDR_LEN);
        m.has_slla = !ipoib_ip6_is_unspecified(m.src);
        ipoib_own_lladdr(ep, &m.slla);
        *len = ipoib_nd_build(&m, ep->v6.buf, sizeof(ep->v6.buf));
        ep->v6.stats.tx_nd++;
        return *len ? ep->v6.buf : NULL;
    }
    if (type == IPOIB_ND_RA && ipoib_nd_parse(pkt, *len, &m) == IPOIB_ND_OK) {
        /*
         * A router behind the endpoint (Linux behind TUN): its RA with our
         * option; the prefixes it calls on-link are on-link for us too.
         */
        for (unsigned i = 0; i < m.n_prefix; i++)
            prefix_learn(ep, &m.prefix[i], now);
        m.has_slla = true;
        ipoib_own_lladdr(ep, &m.slla);
        *len = ipoib_nd_build(&m, ep->v6.buf, sizeof(ep->v6.buf));
        ep->v6.stats.tx_nd++;
        return *len ? ep->v6.buf : NULL;
    }
    ep->v6.stats.tx_nd_suppressed++;
    return NULL;
}

/* On-link: link-local, in a prefix of ours, or in an RA's on-link prefix. */
static bool on_link(const struct ipoib *ep, const uint8_t dst[IPOIB_IP6_ADDR_LEN], uint64_t now)
{
    if (ipoib_ip6_is_linklocal(dst))
        return true;
    for (unsigned i = 0; i < ep->v6.n_addrs; i++)
        if (ep->v6.addrs[i].prefix_len < 128 &&
            ipoib_ip6_prefix_match(ep->v6.addrs[i].addr, dst, ep->v6.addrs[i].prefix_len))
            return true;
    for (unsigned i = 0; i < IPOIB6_PREFIXES_MAX; i++)
        if (ep->v6.prefixes[i].expires > now &&
            ipoib_ip6_prefix_match(ep->v6.prefixes[i].prefix, dst, ep->v6.prefixes[i].len))
            return true;
    return false;
}

/* The next hop toward dst: itself on-link, else the gateway, else a router; NULL: none. */
static const uint8_t *next_hop6(const struct ipoib *ep, const uint8_t dst[IPOIB_IP6_ADDR_LEN],
                                uint64_t now)
{
    if (on_link(ep, dst, now))
        return dst;
    if (!ipoib_ip6_is_unspecified(ep->cfg.ip6_gateway))
        return ep->cfg.ip6_gateway;
    for (unsigned i = 0; i < IPOIB6_ROUTERS_MAX; i++)
        if (ep->v6.routers[i].expires > now)
            return ep->v6.routers[i].addr;
    return NULL;
}

/* Send one IPv6 packet of the host stack. */
int ipoib6_output(struct ipoib *ep, const uint8_t *pkt, size_t len, uint64_t now)
{
    size_t total = ipv6_check(pkt, len), framed;
    const uint8_t *nh;
    struct neigh *n;
    int rc;

    if (!total || total > ipoib_ip_mtu(ep->group.mtu)) {
        ep->v6.stats.tx_dropped_bad++;
        return -EINVAL;
    }
    pkt = filter_out(ep, pkt, &total, now);
    if (!pkt)
        return 0;
    framed = frame6(ep, pkt, total);
    if (ipoib_ip6_is_multicast(pkt + 24)) {
        rc = send_to_group(ep, pkt + 24, framed, now);
        if (rc == 0)
            ep->stats.tx_mcast6_packets++;
    } else {
        nh = next_hop6(ep, pkt + 24, now);
        if (!nh) {
            ep->v6.stats.tx_dropped_no_route++;
            return -ENETUNREACH;
        }
        n = neigh6_find(ep, nh);
        if (!n)
            n = neigh6_alloc(ep, nh);
        if (!n) {
            ep->stats.tx_dropped_unresolved++;
            return -ENOBUFS;
        }
        rc = ipoib_output_neigh(ep, n, framed, now);
        if (rc == 1)
            return 0; /* queued: counted when it goes out */
    }
    if (rc == 0) {
        ipoib_count_tx(ep, total);
        ep->v6.stats.tx_packets++;
    }
    return rc;
}

/* ---- life cycle ------------------------------------------------------------ */

/* IPv6 on: the group table, with all-nodes wanted. */
int ipoib6_init(struct ipoib *ep)
{
    uint8_t all[IPOIB_IP6_ADDR_LEN];

    memset(&ep->v6, 0, sizeof(ep->v6));
    if (ipoib_mcast6_init(&ep->v6.groups, IPOIB6_GROUPS_MAX, IPOIB6_SENDONLY_MAX, ep->cfg.pkey,
                          ep->bcast_mgid[1] & 0x0f, ep->cfg.join_retry_ms) < 0)
        return -1;
    ipoib_ip6_all_nodes(all);
    ep->v6.join_retry_at = NO_DEADLINE;
    want_group(ep, all, 0);
    ep->v6.on = true;
    return 0;
}

/* Free the group table. */
void ipoib6_fini(struct ipoib *ep)
{
    if (ep->v6.on)
        ipoib_mcast6_fini(&ep->v6.groups);
    ep->v6.on = false;
}

/* Joined the broadcast group: join the IPv6 groups (with its parameters). */
void ipoib6_up(struct ipoib *ep, uint64_t now)
{
    if (ipoib_ip_mtu(ep->group.mtu) < IPOIB_IP6_MIN_MTU) {
        ipoib_log(ep, 0, "ipoib: IPv6 needs an IP MTU of 1280, the group gives %u",
                  ipoib_ip_mtu(ep->group.mtu));
        return;
    }
    joins_due(ep, now);
}

/* Down: the joins out end; the groups wait for the next join; send-only ones are forgotten. */
void ipoib6_down(struct ipoib *ep)
{
    for (unsigned i = 0; i < ep->v6.groups.max; i++)
        if (ep->v6.groups.g[i].state == IPOIB_MCAST6_JOINING)
            mad_txn_cancel(&ep->txns, ep->v6.groups.g[i].txn);
    ipoib_mcast6_reset(&ep->v6.groups);
    ep->v6.join_retry_at = NO_DEADLINE;
}

/*
 * An SA answer with our tag that is neither the broadcast join's nor a
 * path query's: an IPv6 join's (a refusal is counted and logged, and the
 * join's next copy asks again; an acceptance ends the transaction:
 * join6_ended), or a leave's.  Returns false when it is none of ours.
 */
bool ipoib6_input_sa(struct ipoib *ep, uint64_t tid, const uint8_t *mad, size_t len, uint64_t now)
{
    struct ipoib_mcast6 *e = ipoib_mcast6_find_tid(&ep->v6.groups, tid);
    struct ipoib_group g;
    unsigned status;
    enum ipoib_sa_result r;
    char text[46];
    uint64_t due;

    if (!e)
        return mad_txn_answer(&ep->txns, mad, len); /* a leave's: leave6_ended */
    r = ipoib_sa_parse_join(mad, len, e->mgid, &g, &status);
    if (r != IPOIB_SA_OK) {
        due = mad_txn_due(&ep->txns, e->txn);
        ep->v6.stats.mcast_join_failures++;
        ipoib_mcast6_answer(e, NULL);
        ipoib_log(ep, 0, "ipoib: join of %s refused (%s, MAD status 0x%04x); retry in %u ms",
                  ipoib_ip6_str(e->group, text), r == IPOIB_SA_STATUS ? "SA status" : "bad answer",
                  status, (unsigned)(due > now ? due - now : 0));
        return true;
    }
    mad_txn_answer(&ep->txns, mad, len);
    return true;
}

/* An IPv6 join ended with an accepting answer (joins run until answered): the group is up. */
static void join6_ended(void *arg, int status, const uint8_t *mad, size_t len)
{
    struct ipoib *ep = arg;
    struct ipoib_mcast6 *e;
    struct ipoib_group g;
    unsigned mad_status;
    char text[46];

    if (status)
        return;
    e = ipoib_mcast6_find_tid(&ep->v6.groups, ipoib_sa_tid(mad));
    if (!e || ipoib_sa_parse_join(mad, len, e->mgid, &g, &mad_status) != IPOIB_SA_OK)
        return;
    ipoib_mcast6_answer(e, &g);
    ep->v6.stats.mcast_joins++;
    ipoib_log(ep, 2, "ipoib: joined %s: MLID 0x%04x", ipoib_ip6_str(e->group, text), g.mlid);
    if (e == all_nodes(ep))
        announce(ep, ep->sa_now);
}

/* A leave ended: answered (a refusal logged), or given up after LEAVE_TRIES copies. */
static void leave6_ended(void *arg, int status, const uint8_t *mad, size_t len)
{
    struct ipoib *ep = arg;
    unsigned mad_status =
        mad && len >= IB_SA_DATA_OFFS ? mad_get_field((void *)mad, 0, IB_MAD_STATUS_F) : 0;

    if (status)
        ipoib_log(ep, 1, "ipoib: an IPv6 group leave went unanswered after %u tries", LEAVE_TRIES);
    else if (mad_status)
        ipoib_log(ep, 1, "ipoib: an IPv6 group leave refused (MAD status 0x%04x)", mad_status);
}

/* Joins that waited for room. */
void ipoib6_poll(struct ipoib *ep, uint64_t now)
{
    if (now >= ep->v6.join_retry_at)
        joins_due(ep, now);
}

/* When joins that waited for room are tried again. */
uint64_t ipoib6_next_deadline(const struct ipoib *ep)
{
    return ep->state == IPOIB_UP ? ep->v6.join_retry_at : NO_DEADLINE;
}

/* ---- the API of ipoib6.h ---------------------------------------------------- */

/* True if addr is in the list. */
static bool listed(const struct ipoib6_addr *list, unsigned n, const uint8_t *addr)
{
    for (unsigned i = 0; i < n; i++)
        if (memcmp(list[i].addr, addr, IPOIB_IP6_ADDR_LEN) == 0)
            return true;
    return false;
}

/* Drop one reference to group; on the last, end its join or leave it, and free it. */
static void unwant(struct ipoib *ep, const uint8_t group[IPOIB_IP6_ADDR_LEN], uint64_t now)
{
    struct ipoib_mcast6 *e;

    if (!ipoib_mcast6_unwant(&ep->v6.groups, group))
        return;
    e = ipoib_mcast6_find(&ep->v6.groups, group);
    end_entry(ep, e, now);
    ipoib_mcast6_remove(e);
}

/* Replace the mirror: solicited-node groups follow, new usable addresses are announced. */
int ipoib6_set_addrs(struct ipoib *ep, const struct ipoib6_addr *addrs, unsigned n, uint64_t now)
{
    struct ipoib6_addr old[IPOIB6_ADDRS_MAX];
    unsigned n_old = ep->v6.n_addrs;
    uint8_t sn[IPOIB_IP6_ADDR_LEN];
    const struct ipoib_mcast6 *all;

    if (!ep->v6.on)
        return -EINVAL;
    if (n > IPOIB6_ADDRS_MAX)
        n = IPOIB6_ADDRS_MAX;
    memcpy(old, ep->v6.addrs, sizeof(old));
    for (unsigned i = 0; i < n_old; i++) {
        if (listed(addrs, n, old[i].addr))
            continue;
        ipoib_ip6_solicited_node(old[i].addr, sn);
        unwant(ep, sn, now);
    }
    for (unsigned i = 0; i < n; i++) {
        if (listed(old, n_old, addrs[i].addr))
            continue;
        ipoib_ip6_solicited_node(addrs[i].addr, sn);
        want_group(ep, sn, now);
    }
    if (n)
        memcpy(ep->v6.addrs, addrs, n * sizeof(*addrs));
    ep->v6.n_addrs = n;
    joins_due(ep, now);
    all = all_nodes(ep);
    for (unsigned i = 0; i < n; i++) {
        const struct ipoib6_addr *was = NULL;
        for (unsigned j = 0; j < n_old; j++)
            if (memcmp(old[j].addr, addrs[i].addr, IPOIB_IP6_ADDR_LEN) == 0)
                was = &old[j];
        if (!addrs[i].tentative && (!was || was->tentative) && all && all->state == IPOIB_MCAST6_UP)
            na_to_all(ep, addrs[i].addr, now);
    }
    return 0;
}

/* MLD's join: one more reference, joined when the endpoint is up. */
int ipoib6_join(struct ipoib *ep, const uint8_t group[IPOIB_IP6_ADDR_LEN], uint64_t now)
{
    if (!ep->v6.on || !ipoib_ip6_is_multicast(group))
        return -EINVAL;
    if (!want_group(ep, group, now))
        return -ENOSPC;
    joins_due(ep, now);
    return 0;
}

/* MLD's leave: one reference less, left on the last. */
int ipoib6_leave(struct ipoib *ep, const uint8_t group[IPOIB_IP6_ADDR_LEN], uint64_t now)
{
    if (!ep->v6.on || !ipoib_ip6_is_multicast(group))
        return -EINVAL;
    unwant(ep, group, now);
    return 0;
}

/* Copy the groups out. */
unsigned ipoib6_groups(const struct ipoib *ep, struct ipoib6_group_info *out, unsigned max)
{
    unsigned count = 0;

    if (!ep->v6.on)
        return 0;
    for (unsigned i = 0; i < ep->v6.groups.max; i++) {
        const struct ipoib_mcast6 *e = &ep->v6.groups.g[i];
        if (e->state == IPOIB_MCAST6_FREE)
            continue;
        if (count < max) {
            memcpy(out[count].group, e->group, IPOIB_IP6_ADDR_LEN);
            memcpy(out[count].mgid, e->mgid, IPOIB_GID_LEN);
            out[count].sendonly = e->kind == IPOIB_MCAST6_SENDONLY;
            out[count].state = e->state;
            out[count].mlid = e->state == IPOIB_MCAST6_UP ? e->info.mlid : 0;
        }
        count++;
    }
    return count;
}

/* Copy the routers alive at now out. */
unsigned ipoib6_routers(const struct ipoib *ep, uint8_t (*out)[IPOIB_IP6_ADDR_LEN], unsigned max,
                        uint64_t now)
{
    unsigned count = 0;

    for (unsigned i = 0; i < IPOIB6_ROUTERS_MAX; i++) {
        if (ep->v6.routers[i].expires <= now)
            continue;
        if (count < max)
            memcpy(out[count], ep->v6.routers[i].addr, IPOIB_IP6_ADDR_LEN);
        count++;
    }
    return count;
}

/* The counters. */
const struct ipoib6_stats *ipoib6_stats(const struct ipoib *ep)
{
    return &ep->v6.stats;
}
