/*
 * ipoib.c - the IPoIB-UD endpoint: broadcast-group membership, IPoIB ARP,
 * peer resolution and the IPv4 datagram path (see ipoib.h).
 */
#include "ipoib.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipoib_arp.h"
#include "ipoib_internal.h"
#include "mad_txn.h"

#define RESOLVE_TRIES 3 /* ARP requests or path queries before giving up */
#define JOIN_BACKOFF_MAX_MS 16000
#define IPV4_HDR_MIN 20

void ipoib_log(const struct ipoib *ep, int level, const char *fmt, ...)
{
    char msg[256];
    va_list ap;

    if (!ep->ops.log)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    ep->ops.log(ep->ctx, level, msg);
}

/* Format a host-order IPv4 address into buf[16]; returns buf. */
static const char *ip_str(uint32_t ip, char buf[16])
{
    snprintf(buf, 16, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 0xff, (ip >> 8) & 0xff, ip & 0xff);
    return buf;
}

/* Format neighbour n's address (IPv4 or IPv6) into buf; returns buf. */
static const char *neigh_str(const struct neigh *n, char buf[46])
{
    return n->v6 ? ipoib_ip6_str(n->ip6, buf) : ip_str(n->ip, buf);
}

/*
 * The transaction layer's send callback: one SA request to the master SM
 * (each copy of a path query counted, as each query was when each was its
 * own); 0 or -1.
 */
static int sa_send(void *arg, const uint8_t *mad, const struct mad_addr *to)
{
    struct ipoib *ep = arg;

    if (mad_get_field((void *)mad, 0, IB_MAD_ATTRID_F) == IB_SA_ATTR_PATHRECORD)
        ep->stats.path_queries++;
    return ep->ops.send_sa(ep->ctx, mad, IPOIB_SA_MAD_LEN, to->dlid, to->sl) < 0 ? -1 : 0;
}

/* Where SA requests go: the master SM's LID and SL, QP1. */
struct mad_addr ipoib_sa_addr(const struct ipoib *ep)
{
    return (struct mad_addr){
        .dlid = ep->port.sm_lid, .sl = ep->port.sm_sl, .dst_qp = 1, .lid_routed = true};
}

/* The P_Key every datagram carries: the partition's, full member. */
static uint16_t send_pkey(const struct ipoib *ep)
{
    return (uint16_t)(ep->cfg.pkey | 0x8000);
}

/* Create: copy the config, fill defaults, allocate the neighbour table. */
struct ipoib *ipoib_create(const struct ipoib_config *cfg, const struct ipoib_ops *ops, void *ctx)
{
    struct ipoib *ep;

    if (!cfg || !ops || !ops->send_dgram || !ops->send_sa || !ops->deliver || !ops->set_qkey)
        return NULL;
    if ((cfg->pkey & 0x7fff) == 0 || cfg->qpn == 0 || cfg->qpn > IPOIB_QPN_MASK)
        return NULL;
    ep = calloc(1, sizeof(*ep));
    if (!ep)
        return NULL;
    ep->cfg = *cfg;
    ep->ops = *ops;
    ep->ctx = ctx;
    if (!ep->cfg.neigh_max)
        ep->cfg.neigh_max = 256;
    if (!ep->cfg.reachable_ms)
        ep->cfg.reachable_ms = 30000;
    if (!ep->cfg.retry_ms)
        ep->cfg.retry_ms = 1000;
    if (!ep->cfg.join_retry_ms)
        ep->cfg.join_retry_ms = 1000;
    ep->neigh = calloc(ep->cfg.neigh_max, sizeof(*ep->neigh));
    if (!ep->neigh) {
        free(ep);
        return NULL;
    }
    ipoib_bcast_mgid(ep->cfg.pkey, ep->bcast_mgid);
    ep->state = IPOIB_DOWN;
    mad_txns_init(&ep->txns, ep->cfg.tid_tag, 0, sa_send, ep);
    ep->join_txn = -1;
    if (ep->cfg.ip6 && ipoib6_init(ep) < 0) {
        free(ep->neigh);
        free(ep);
        return NULL;
    }
    return ep;
}

/* Drop the packets a neighbour holds; count them as unresolved if asked. */
static void neigh_drop_queue(struct ipoib *ep, struct neigh *n, bool count)
{
    for (unsigned i = 0; i < n->qn; i++) {
        free(n->q[i].buf);
        if (count)
            ep->stats.tx_dropped_unresolved++;
    }
    n->qn = 0;
}

/* Stop a neighbour's path query, if one is out. */
static void neigh_stop_query(struct ipoib *ep, struct neigh *n)
{
    if (n->state == NEIGH_PATH)
        mad_txn_cancel(&ep->txns, n->txn);
    n->txn = -1;
}

/* Free a neighbour entry and what it holds. */
static void neigh_free(struct ipoib *ep, struct neigh *n, bool count)
{
    neigh_stop_query(ep, n);
    neigh_drop_queue(ep, n, count);
    memset(n, 0, sizeof(*n));
}

/* Free everything. */
void ipoib_destroy(struct ipoib *ep)
{
    if (!ep)
        return;
    for (unsigned i = 0; i < ep->cfg.neigh_max; i++)
        neigh_free(ep, &ep->neigh[i], false);
    free(ep->neigh);
    ipoib6_fini(ep);
    free(ep);
}

/* The entry for ip, or NULL. */
static struct neigh *neigh_find(struct ipoib *ep, uint32_t ip)
{
    for (unsigned i = 0; i < ep->cfg.neigh_max; i++)
        if (ep->neigh[i].state != NEIGH_FREE && !ep->neigh[i].v6 && ep->neigh[i].ip == ip)
            return &ep->neigh[i];
    return NULL;
}

/*
 * A free entry for ip: an unused one, else the resolved one confirmed
 * longest ago (its packets, if any, are dropped).  NULL if every entry is
 * still resolving.
 */
static struct neigh *neigh_alloc(struct ipoib *ep, uint32_t ip)
{
    struct neigh *victim = NULL;

    for (unsigned i = 0; i < ep->cfg.neigh_max; i++) {
        struct neigh *n = &ep->neigh[i];
        if (n->state == NEIGH_FREE) {
            victim = n;
            break;
        }
        if (n->state == NEIGH_VALID && (!victim || n->updated < victim->updated))
            victim = n;
    }
    if (!victim)
        return NULL;
    neigh_free(ep, victim, true);
    victim->ip = ip;
    victim->deadline = NO_DEADLINE;
    victim->txn = -1;
    victim->owner = ep;
    return victim;
}

/* A free entry for an IPv6 neighbour (ipoib6.c fills in the address). */
struct neigh *ipoib_neigh_alloc(struct ipoib *ep)
{
    return neigh_alloc(ep, 0);
}

/* Flush every neighbour (a new join follows). */
static void neigh_flush_all(struct ipoib *ep)
{
    for (unsigned i = 0; i < ep->cfg.neigh_max; i++)
        if (ep->neigh[i].state != NEIGH_FREE)
            neigh_free(ep, &ep->neigh[i], true);
    ep->stats.flushes++;
}

/* Fill the GRH of a send to group g. */
static void mcast_grh(const struct ipoib *ep, const struct ipoib_group *g,
                      uint8_t grh[BOARD_DGRAM_GRH_LEN])
{
    memset(grh, 0, BOARD_DGRAM_GRH_LEN);
    grh[0] = (uint8_t)(0x60 | g->tclass >> 4);
    grh[1] = (uint8_t)(g->tclass << 4 | ((g->flow_label >> 16) & 0x0f));
    grh[2] = (uint8_t)(g->flow_label >> 8);
    grh[3] = (uint8_t)g->flow_label;
    grh[7] = g->hop_limit ? g->hop_limit : 0xff;
    memcpy(grh + 8, ep->own_gid, IPOIB_GID_LEN);
    memcpy(grh + 24, g->mgid, IPOIB_GID_LEN);
}

/*
 * Send header + body (already in ep->txbuf after the header room) to group
 * g.  Returns 0 or a negative errno.
 */
int ipoib_send_group(struct ipoib *ep, const struct ipoib_group *g, size_t len)
{
    struct board_dgram_addr a = {
        .dlid = g->mlid,
        .sl = g->sl,
        .has_grh = true,
        .pkey = send_pkey(ep),
        .dst_qp = IPOIB_MCAST_QPN,
        .qkey = g->qkey,
    };
    int rc;

    mcast_grh(ep, g, a.grh);
    rc = ep->ops.send_dgram(ep->ctx, &a, ep->txbuf, len);
    if (rc < 0)
        ep->stats.tx_errors++;
    return rc;
}

/* Send to the broadcast group. */
static int send_bcast(struct ipoib *ep, size_t len)
{
    return ipoib_send_group(ep, &ep->group, len);
}

/* Send len bytes of ep->txbuf (or buf) to one peer. Returns 0 or -errno. */
int ipoib_send_unicast(struct ipoib *ep, const uint8_t *buf, size_t len, uint16_t lid, uint8_t sl,
                       uint32_t qpn)
{
    struct board_dgram_addr a = {
        .dlid = lid,
        .sl = sl,
        .pkey = send_pkey(ep),
        .dst_qp = qpn & IPOIB_QPN_MASK,
        .qkey = ep->group.qkey,
    };
    int rc = ep->ops.send_dgram(ep->ctx, &a, buf, len);

    if (rc < 0)
        ep->stats.tx_errors++;
    return rc;
}

/* Our own IPoIB address: flags 0, our QPN, our GID. */
void ipoib_own_lladdr(const struct ipoib *ep, struct ipoib_lladdr *out)
{
    memset(out, 0, sizeof(*out));
    out->qpn = ep->cfg.qpn;
    memcpy(out->gid, ep->own_gid, IPOIB_GID_LEN);
}

/* Write an ARP message after the encapsulation header into ep->txbuf; returns its length. */
static size_t arp_to_txbuf(struct ipoib *ep, const struct ipoib_arp *arp)
{
    ipoib_encap_write(IPOIB_ETHERTYPE_ARP, ep->txbuf);
    ipoib_arp_build(arp, ep->txbuf + IPOIB_ENCAP_LEN);
    ep->stats.tx_arp++;
    return IPOIB_ENCAP_LEN + IPOIB_ARP_LEN;
}

/* Broadcast an ARP request for target (our own address: a gratuitous ARP). */
static void arp_request(struct ipoib *ep, uint32_t target)
{
    struct ipoib_arp arp = {.op = IPOIB_ARP_OP_REQUEST, .spa = ep->cfg.addr, .tpa = target};

    ipoib_own_lladdr(ep, &arp.sha);
    send_bcast(ep, arp_to_txbuf(ep, &arp));
}

/* Answer a request for our address, unicast to where it came from. */
static void arp_reply(struct ipoib *ep, const struct ipoib_arp *req, uint16_t lid, uint8_t sl)
{
    struct ipoib_arp arp = {.op = IPOIB_ARP_OP_REPLY, .spa = ep->cfg.addr, .tpa = req->spa};

    ipoib_own_lladdr(ep, &arp.sha);
    arp.tha = req->sha;
    ipoib_send_unicast(ep, ep->txbuf, arp_to_txbuf(ep, &arp), lid, sl, req->sha.qpn);
}

static void path_ended(void *arg, int status, const uint8_t *mad, size_t len);

/* Path queries: RESOLVE_TRIES sends, cfg.retry_ms apart. */
static struct mad_txn_timing path_timing(const struct ipoib *ep)
{
    return (struct mad_txn_timing){.timeout = ep->cfg.retry_ms, .tries = RESOLVE_TRIES};
}

/* Ask the SA for the path to a neighbour's GID (a transaction: the layer resends it). */
static void path_query(struct ipoib *ep, struct neigh *n, uint64_t now)
{
    uint8_t mad[IPOIB_SA_MAD_LEN];
    struct mad_addr to = ipoib_sa_addr(ep);
    struct mad_txn_timing tm = path_timing(ep);

    neigh_stop_query(ep, n);
    n->state = NEIGH_PATH; /* before: the answer may come back within the send */
    n->deadline = NO_DEADLINE;
    ipoib_sa_build_path_query(mad, 0, ep->own_gid, n->ll.gid, ep->cfg.pkey | 0x8000);
    if (mad_txn_start(&ep->txns, mad, &to, now, &tm, path_ended, n, &n->txn, &n->tid) == -ENOSPC) {
        n->txn = -1; /* no room: asked again after a retry interval */
        n->state = NEIGH_ARP;
        n->deadline = now + ep->cfg.retry_ms;
    }
}

/* Send the packets a neighbour held, now that it resolved. */
static void neigh_send_queue(struct ipoib *ep, struct neigh *n)
{
    for (unsigned i = 0; i < n->qn; i++) {
        if (ipoib_send_unicast(ep, n->q[i].buf, n->q[i].len, n->lid, n->sl, n->ll.qpn) == 0) {
            ep->stats.tx_packets++;
            ep->stats.tx_bytes += n->q[i].len - IPOIB_ENCAP_LEN;
        }
    }
    neigh_drop_queue(ep, n, false);
}

/* A neighbour's path is known: mark it valid and release its queue. */
static void neigh_resolved(struct ipoib *ep, struct neigh *n, uint16_t lid, uint8_t sl,
                           uint64_t now)
{
    n->lid = lid;
    n->sl = sl;
    neigh_stop_query(ep, n);
    n->state = NEIGH_VALID;
    n->updated = now;
    n->deadline = NO_DEADLINE;
    n->tries = 0;
    n->probing = false;
    neigh_send_queue(ep, n);
}

/*
 * Learn a sender's link address from its ARP (or neighbour discovery
 * message).  The datagram that carried it gives the path when its source
 * QP is the one the message names (the usual case); otherwise the SA is
 * asked.
 */
void ipoib_neigh_learn(struct ipoib *ep, struct neigh *n, const struct ipoib_lladdr *ll,
                       const struct board_dgram_addr *a, uint64_t now)
{
    bool same = n->state == NEIGH_VALID && ipoib_lladdr_equal(&n->ll, ll);

    n->ll = *ll;
    n->ll.flags = 0;
    if (a->src_qp == ll->qpn && a->slid != 0 && a->slid < 0xC000) {
        neigh_resolved(ep, n, a->slid, a->sl, now);
    } else if (same) {
        n->updated = now;
        n->probing = false;
        n->deadline = NO_DEADLINE;
    } else {
        n->tries = 1;
        path_query(ep, n, now);
    }
}

/* Handle one ARP message from the broadcast group or a peer. */
static void arp_input(struct ipoib *ep, const struct board_dgram_addr *a, const uint8_t *body,
                      size_t len, uint64_t now)
{
    struct ipoib_arp arp;
    enum ipoib_arp_parse_result r = ipoib_arp_parse(body, len, &arp);
    struct neigh *n;
    bool for_us;

    if (r != IPOIB_ARP_OK) {
        ep->stats.rx_dropped_arp++;
        ipoib_log(ep, 3, "ipoib: ARP dropped (%s)", ipoib_arp_parse_result_name(r));
        return;
    }
    ep->stats.rx_arp++;
    if (arp.spa == 0 || arp.spa == ep->cfg.addr)
        return; /* a probe, or our own gratuitous ARP / an address conflict */
    for_us = ep->cfg.addr != 0 && arp.tpa == ep->cfg.addr;
    n = neigh_find(ep, arp.spa);
    if (!n && for_us)
        n = neigh_alloc(ep, arp.spa);
    if (n)
        ipoib_neigh_learn(ep, n, &arp.sha, a, now);
    if (for_us && arp.op == IPOIB_ARP_OP_REQUEST && a->slid != 0 && a->slid < 0xC000)
        arp_reply(ep, &arp, a->slid, a->sl);
}

/*
 * Check an IPv4 header: version 4, header length, total length within len.
 * Returns the total length, or 0 if malformed.
 */
static size_t ipv4_check(const uint8_t *pkt, size_t len)
{
    size_t ihl, total;

    if (len < IPV4_HDR_MIN || pkt[0] >> 4 != 4)
        return 0;
    ihl = (size_t)(pkt[0] & 0x0f) * 4;
    total = be16_get(pkt + 2);
    if (ihl < IPV4_HDR_MIN || total < ihl || total > len)
        return 0;
    return total;
}

/* One received datagram: filter, then IPv4 to the host stack, ARP here. */
void ipoib_input(struct ipoib *ep, const struct board_dgram_addr *a, const uint8_t *payload,
                 size_t len, uint64_t now)
{
    int type;
    size_t iplen;

    if (ep->state != IPOIB_UP) {
        ep->stats.rx_dropped_down++;
        return;
    }
    if (a->qkey != ep->group.qkey) {
        ep->stats.rx_dropped_qkey++;
        return;
    }
    if (a->src_qp == ep->cfg.qpn && a->slid == ep->port.lid) {
        ep->stats.rx_looped++;
        return;
    }
    type = ipoib_encap_read(payload, len);
    if (type < 0) {
        ep->stats.rx_dropped_short++;
        return;
    }
    if (len - IPOIB_ENCAP_LEN > ipoib_ip_mtu(ep->group.mtu)) {
        ep->stats.rx_dropped_oversize++;
        return;
    }
    if (type == IPOIB_ETHERTYPE_ARP) {
        arp_input(ep, a, payload + IPOIB_ENCAP_LEN, len - IPOIB_ENCAP_LEN, now);
        return;
    }
    if (type == IPOIB_ETHERTYPE_IPV6 && ep->cfg.ip6) {
        ipoib6_input(ep, a, payload + IPOIB_ENCAP_LEN, len - IPOIB_ENCAP_LEN, now);
        return;
    }
    if (type != IPOIB_ETHERTYPE_IPV4) {
        ep->stats.rx_dropped_type++;
        return;
    }
    iplen = ipv4_check(payload + IPOIB_ENCAP_LEN, len - IPOIB_ENCAP_LEN);
    if (!iplen) {
        ep->stats.rx_dropped_ip++;
        return;
    }
    ep->stats.rx_packets++;
    ep->stats.rx_bytes += iplen;
    if (a->dlid >= 0xC000)
        ep->stats.rx_group_packets++; /* to the broadcast group's MLID */
    ep->ops.deliver(ep->ctx, payload + IPOIB_ENCAP_LEN, iplen);
}

/* True if dst goes to the broadcast group: limited or subnet broadcast, or multicast. */
static bool is_group_dest(const struct ipoib *ep, uint32_t dst)
{
    uint32_t mask = ep->cfg.netmask;

    if (dst == 0xffffffffu || (dst >> 28) == 0xe)
        return true;
    return mask && mask != 0xffffffffu && (dst & mask) == (ep->cfg.addr & mask) &&
           (dst & ~mask) == ~mask;
}

/* The neighbour a packet to dst goes through: dst itself on-link, else the gateway (0: none). */
static uint32_t next_hop(const struct ipoib *ep, uint32_t dst)
{
    if ((dst & ep->cfg.netmask) == (ep->cfg.addr & ep->cfg.netmask))
        return dst;
    return ep->cfg.gateway;
}

/* Keep a copy of the framed packet in ep->txbuf on n's queue; -ENOBUFS if full. */
static int neigh_enqueue(struct ipoib *ep, struct neigh *n, size_t framed_len)
{
    uint8_t *copy;

    if (n->qn >= NEIGH_QUEUE_MAX)
        return -ENOBUFS;
    copy = malloc(framed_len);
    if (!copy)
        return -ENOBUFS;
    memcpy(copy, ep->txbuf, framed_len);
    n->q[n->qn].buf = copy;
    n->q[n->qn].len = framed_len;
    n->qn++;
    return 0;
}

/* Ask for n's link address: an ARP request, or for IPv6 a solicitation. */
static void neigh_request(struct ipoib *ep, struct neigh *n, uint64_t now)
{
    if (n->v6)
        ipoib6_solicit(ep, n, now);
    else
        arp_request(ep, n->ip);
}

/* Start resolving n with a request. */
static void neigh_start_arp(struct ipoib *ep, struct neigh *n, uint64_t now)
{
    n->state = NEIGH_ARP;
    n->tries = 1;
    n->deadline = now + ep->cfg.retry_ms;
    neigh_request(ep, n, now);
}

/*
 * Send a framed packet of framed_len bytes in ep->txbuf through neighbour n
 * (fresh from ipoib_neigh_alloc: resolving starts), or queue it while n
 * resolves.  Returns 0 sent, 1 queued, or a negative errno (counted).
 */
int ipoib_output_neigh(struct ipoib *ep, struct neigh *n, size_t framed_len, uint64_t now)
{
    int rc;

    if (n->state == NEIGH_VALID) {
        rc = ipoib_send_unicast(ep, ep->txbuf, framed_len, n->lid, n->sl, n->ll.qpn);
        if (!n->probing && now - n->updated >= ep->cfg.reachable_ms) {
            /* Old: keep using it, and ask whether it still holds. */
            n->probing = true;
            n->tries = 1;
            n->deadline = now + ep->cfg.retry_ms;
            neigh_request(ep, n, now);
        }
        return rc;
    }
    rc = neigh_enqueue(ep, n, framed_len);
    if (n->state == NEIGH_FREE)
        neigh_start_arp(ep, n, now);
    if (rc < 0) {
        ep->stats.tx_dropped_unresolved++;
        return rc;
    }
    return 1;
}

/* Send to IPv4 next hop nh through its entry, made if there is none. */
static int output_unicast(struct ipoib *ep, uint32_t nh, size_t framed_len, uint64_t now)
{
    struct neigh *n = neigh_find(ep, nh);

    if (!n)
        n = neigh_alloc(ep, nh);
    if (!n) {
        ep->stats.tx_dropped_unresolved++;
        return -ENOBUFS;
    }
    return ipoib_output_neigh(ep, n, framed_len, now);
}

/* Frame and send one IPv4 packet. */
int ipoib_output(struct ipoib *ep, const uint8_t *pkt, size_t len, uint64_t now)
{
    uint32_t dst, nh;
    int rc;

    if (ep->state != IPOIB_UP) {
        ep->stats.tx_dropped_down++;
        return -ENETDOWN;
    }
    if (ep->cfg.ip6 && len > 0 && pkt[0] >> 4 == 6)
        return ipoib6_output(ep, pkt, len, now);
    if (len > ipoib_ip_mtu(ep->group.mtu) || !ipv4_check(pkt, len)) {
        ep->stats.tx_dropped_bad++;
        return -EINVAL;
    }
    dst = be32_get(pkt + 16);
    ipoib_encap_write(IPOIB_ETHERTYPE_IPV4, ep->txbuf);
    memcpy(ep->txbuf + IPOIB_ENCAP_LEN, pkt, len);
    if (is_group_dest(ep, dst)) {
        rc = send_bcast(ep, IPOIB_ENCAP_LEN + len);
        if (rc == 0)
            ep->stats.tx_group_packets++;
    } else {
        nh = next_hop(ep, dst);
        if (!nh) {
            ep->stats.tx_dropped_no_route++;
            return -ENETUNREACH;
        }
        rc = output_unicast(ep, nh, IPOIB_ENCAP_LEN + len, now);
        if (rc == 1)
            return 0; /* queued: counted when it goes out */
    }
    if (rc == 0)
        ipoib_count_tx(ep, len);
    return rc;
}

/* One more IP packet of len bytes out. */
void ipoib_count_tx(struct ipoib *ep, size_t len)
{
    ep->stats.tx_packets++;
    ep->stats.tx_bytes += len;
}

/* Leave the UP/JOINING state: the link goes down and the neighbours go. */
static void go_down(struct ipoib *ep)
{
    bool was_up = ep->state == IPOIB_UP;

    ep->state = IPOIB_DOWN;
    mad_txn_cancel(&ep->txns, ep->join_txn);
    ep->join_txn = -1;
    neigh_flush_all(ep);
    if (ep->cfg.ip6)
        ipoib6_down(ep);
    if (was_up && ep->ops.link)
        ep->ops.link(ep->ctx, false, 0);
}

static void join_ended(void *arg, int status, const uint8_t *mad, size_t len);

/*
 * Join the broadcast group: a transaction resent (with its TID) until
 * answered, the interval doubling from cfg.join_retry_ms up to 16 s.
 */
static void send_join(struct ipoib *ep, uint64_t now)
{
    uint8_t mad[IPOIB_SA_MAD_LEN];
    struct mad_addr to = ipoib_sa_addr(ep);
    struct mad_txn_timing tm = {.timeout = ep->cfg.join_retry_ms,
                                .timeout_max = JOIN_BACKOFF_MAX_MS,
                                .tries = MAD_TXN_FOREVER};

    ep->state = IPOIB_JOINING;
    ep->join_answered = false;
    mad_txn_cancel(&ep->txns, ep->join_txn);
    ipoib_sa_build_join(mad, 0, ep->bcast_mgid, ep->own_gid, ep->cfg.pkey | 0x8000, 1);
    if (mad_txn_start(&ep->txns, mad, &to, now, &tm, join_ended, ep, &ep->join_txn,
                      &ep->join_tid) == -ENOSPC)
        ep->join_txn = -1; /* never: the join is started first */
}

/* True if the port can carry IPoIB: active, addressed, an SM, full membership. */
static bool port_usable(const struct ipoib_port *p)
{
    return p->active && p->lid != 0 && p->lid < 0xC000 && p->sm_lid != 0 && p->sm_lid < 0xC000 &&
           p->pkey_state == IPOIB_PKEY_FULL;
}

/* True if a change from old to new needs a new join. */
static bool port_changed(const struct ipoib_port *old, const struct ipoib_port *new)
{
    return old->active != new->active || old->lid != new->lid || old->sm_lid != new->sm_lid ||
           old->gid_prefix != new->gid_prefix || old->port_guid != new->port_guid ||
           old->pkey_state != new->pkey_state || old->reregister != new->reregister;
}

/* Say once why the port cannot carry IPoIB, when the reason is the partition. */
static void log_pkey_problem(const struct ipoib *ep, const struct ipoib_port *p)
{
    if (!p->active || p->pkey_state == IPOIB_PKEY_FULL)
        return;
    ipoib_log(ep, 0,
              "ipoib: port holds P_Key 0x%04x %s; IPoIB needs full membership "
              "(OpenSM partitions.conf: Default=0x7fff,ipoib,rate=2,mtu=4 : ALL=full ;)",
              ep->cfg.pkey & 0x7fff,
              p->pkey_state == IPOIB_PKEY_LIMITED ? "as a limited member only" : "not at all");
}

/* Take the port's new state; rejoin on any change that matters. */
void ipoib_port_update(struct ipoib *ep, const struct ipoib_port *port, uint64_t now)
{
    bool known = ep->port_known, changed = !known || port_changed(&ep->port, port);

    ep->port_known = true;
    ep->port.sm_sl = port->sm_sl;
    if (!changed)
        return;
    if (known && port_usable(port))
        ipoib_log(ep, 2,
                  "ipoib: port now LID %u, SM LID %u, ClientReregister %u (was LID %u, SM LID %u, "
                  "%u): joining the broadcast group again",
                  port->lid, port->sm_lid, (unsigned)port->reregister, ep->port.lid,
                  ep->port.sm_lid, (unsigned)ep->port.reregister);
    if (ep->port.pkey_state != port->pkey_state || !ep->port.active)
        log_pkey_problem(ep, port);
    if (ep->state != IPOIB_DOWN)
        go_down(ep);
    ep->port = *port;
    ipoib_gid_make(port->gid_prefix, port->port_guid, ep->own_gid);
    mad_txns_set_lid(&ep->txns, port->lid);
    if (port_usable(port))
        send_join(ep, now);
}

/*
 * An answer to the join out: a refusal (or a Q_Key the QP cannot take) is
 * counted and logged, and the join's next copy goes out at its time; a
 * good one ends the transaction (join_ended adopts the group).
 */
static void join_answer(struct ipoib *ep, const uint8_t *mad, size_t len, uint64_t now)
{
    struct ipoib_group g;
    unsigned status;
    enum ipoib_sa_result r = ipoib_sa_parse_join(mad, len, ep->bcast_mgid, &g, &status);
    uint64_t due = mad_txn_due(&ep->txns, ep->join_txn);

    ep->join_answered = true;
    if (r != IPOIB_SA_OK) {
        ep->stats.join_failures++;
        ipoib_log(ep, 0,
                  "ipoib: broadcast group join refused (%s, MAD status 0x%04x); retry in %u ms",
                  r == IPOIB_SA_STATUS ? "SA status" : "bad answer", status,
                  (unsigned)(due > now ? due - now : 0));
        return;
    }
    if (ep->ops.set_qkey(ep->ctx, g.qkey) < 0) {
        ep->stats.join_failures++;
        ipoib_log(ep, 0, "ipoib: cannot set the QP's Q_Key to 0x%08x", g.qkey);
        return;
    }
    mad_txn_answer(&ep->txns, mad, len);
}

/* The join ended with a good answer: adopt the group, the link is up. */
static void join_ended(void *arg, int status, const uint8_t *mad, size_t len)
{
    struct ipoib *ep = arg;
    struct ipoib_group g;
    unsigned mad_status;
    char ip[16];

    ep->join_txn = -1;
    if (status || ipoib_sa_parse_join(mad, len, ep->bcast_mgid, &g, &mad_status) != IPOIB_SA_OK)
        return; /* no timeout (it runs until answered); join_answer checked the answer */
    ep->group = g;
    ep->state = IPOIB_UP;
    ep->stats.joins++;
    ipoib_log(ep, 2, "ipoib: joined the broadcast group: MLID 0x%04x Q_Key 0x%08x MTU %u SL %u, %s",
              g.mlid, g.qkey, ipoib_ip_mtu(g.mtu), g.sl, ip_str(ep->cfg.addr, ip));
    if (ep->ops.link)
        ep->ops.link(ep->ctx, true, ipoib_ip_mtu(g.mtu));
    if (ep->cfg.addr)
        arp_request(ep, ep->cfg.addr); /* gratuitous */
    if (ep->cfg.ip6)
        ipoib6_up(ep, ep->sa_now);
}

/* An answer to neighbour n's path query: a failure is counted (the query's next copy asks
 * again); a path ends the transaction (path_ended resolves n). */
static void path_answer(struct ipoib *ep, struct neigh *n, const uint8_t *mad, size_t len)
{
    struct ipoib_path p;
    unsigned status;

    if (ipoib_sa_parse_path(mad, len, n->ll.gid, &p, &status) != IPOIB_SA_OK) {
        ep->stats.path_failures++;
        return;
    }
    mad_txn_answer(&ep->txns, mad, len);
}

/* A neighbour's path query ended: its path (status 0), or no answer after the tries. */
static void path_ended(void *arg, int status, const uint8_t *mad, size_t len)
{
    struct neigh *n = arg;
    struct ipoib *ep = n->owner;
    struct ipoib_path p;
    unsigned mad_status;
    char ip[46];

    n->txn = -1;
    if (status) {
        ep->stats.path_failures++;
        ipoib_log(ep, 2, "ipoib: %s unresolved after %u tries", neigh_str(n, ip), RESOLVE_TRIES);
        neigh_free(ep, n, true);
        return;
    }
    if (ipoib_sa_parse_path(mad, len, n->ll.gid, &p, &mad_status) == IPOIB_SA_OK)
        neigh_resolved(ep, n, p.dlid, p.sl, ep->sa_now);
}

/* Match an SA answer to our join or a path query by TID (the low 32 bits). */
bool ipoib_input_sa(struct ipoib *ep, const uint8_t *mad, size_t len, uint64_t now)
{
    uint32_t tid;

    if (!ipoib_sa_is_response(mad, len))
        return false;
    tid = (uint32_t)ipoib_sa_tid(mad);
    if ((uint8_t)(tid >> 24) != ep->cfg.tid_tag)
        return false;
    ep->sa_now = now;
    if (mad_txn_busy(&ep->txns, ep->join_txn) && tid == ep->join_tid) {
        join_answer(ep, mad, len, now);
        return true;
    }
    for (unsigned i = 0; i < ep->cfg.neigh_max; i++) {
        struct neigh *n = &ep->neigh[i];
        if (n->state == NEIGH_PATH && n->txn >= 0 && n->tid == tid) {
            path_answer(ep, n, mad, len);
            return true;
        }
    }
    if (ep->cfg.ip6 && ipoib6_input_sa(ep, tid, mad, len, now))
        return true;
    ep->stats.sa_dropped++;
    return true;
}

/*
 * A neighbour's ARP (IPv6: solicitation) retry is due: ask again, or give
 * up after RESOLVE_TRIES.
 */
static void neigh_retry(struct ipoib *ep, struct neigh *n, uint64_t now)
{
    char ip[46];

    if (n->tries >= RESOLVE_TRIES) {
        ipoib_log(ep, 2, "ipoib: %s unresolved after %u tries", neigh_str(n, ip), n->tries);
        neigh_free(ep, n, true);
        return;
    }
    n->tries++;
    n->deadline = now + ep->cfg.retry_ms;
    neigh_request(ep, n, now);
}

/* Run what is due at now: the SA requests' copies and timeouts, the ARP retries. */
void ipoib_poll(struct ipoib *ep, uint64_t now)
{
    uint32_t join_sent = mad_txn_sent(&ep->txns, ep->join_txn);

    ep->sa_now = now;
    mad_txn_poll(&ep->txns, now);
    if (mad_txn_sent(&ep->txns, ep->join_txn) > join_sent) {
        if (!ep->join_answered)
            ep->stats.join_timeouts++;
        ep->join_answered = false;
    }
    if (ep->state != IPOIB_UP)
        return;
    for (unsigned i = 0; i < ep->cfg.neigh_max; i++) {
        struct neigh *n = &ep->neigh[i];
        if (n->state != NEIGH_FREE && n->deadline != NO_DEADLINE && now >= n->deadline)
            neigh_retry(ep, n, now);
    }
    if (ep->cfg.ip6)
        ipoib6_poll(ep, now);
}

/* The earliest of the SA requests' next copies and every neighbour's ARP retry. */
uint64_t ipoib_next_deadline(const struct ipoib *ep)
{
    uint64_t d = mad_txn_deadline(&ep->txns);

    if (ep->state != IPOIB_UP)
        return d;
    for (unsigned i = 0; i < ep->cfg.neigh_max; i++)
        if (ep->neigh[i].state != NEIGH_FREE && ep->neigh[i].deadline < d)
            d = ep->neigh[i].deadline;
    if (ep->cfg.ip6 && ipoib6_next_deadline(ep) < d)
        d = ipoib6_next_deadline(ep);
    return d;
}

/* Accessors. */
enum ipoib_state ipoib_state(const struct ipoib *ep)
{
    return ep->state;
}

const struct ipoib_group *ipoib_group(const struct ipoib *ep)
{
    return &ep->group;
}

const struct ipoib_stats *ipoib_stats(const struct ipoib *ep)
{
    return &ep->stats;
}

unsigned ipoib_mtu(const struct ipoib *ep)
{
    return ep->state == IPOIB_UP ? ipoib_ip_mtu(ep->group.mtu) : 0;
}

/* Copy the neighbours out; returns how many there are. */
unsigned ipoib_neighbours(const struct ipoib *ep, struct ipoib_neigh_info *out, unsigned max)
{
    unsigned count = 0;

    for (unsigned i = 0; i < ep->cfg.neigh_max; i++) {
        const struct neigh *n = &ep->neigh[i];
        if (n->state == NEIGH_FREE)
            continue;
        if (count < max) {
            out[count] = (struct ipoib_neigh_info){
                .ip = n->ip,
                .v6 = n->v6,
                .lladdr = n->ll,
                .lid = n->lid,
                .sl = n->sl,
                .resolved = n->state == NEIGH_VALID,
                .updated = n->updated,
            };
            memcpy(out[count].ip6, n->ip6, sizeof(n->ip6));
        }
        count++;
    }
    return count;
}
