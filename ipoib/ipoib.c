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

/*
 * Packets held per neighbour while it resolves: the first datagrams of a
 * UDP stream to a new peer (an iperf -u test: ~4 a ms at 50 Mbit/s) wait
 * through ARP and the PathRecord query instead of being dropped.  Linux
 * bounds its unresolved queue by bytes (unres_qlen_bytes, 212992: ~100
 * full-size IPoIB packets); 3 was its old packet limit.
 */
#define NEIGH_QUEUE_MAX 64
#define RESOLVE_TRIES 3 /* ARP requests or path queries before giving up */
#define JOIN_BACKOFF_MAX_MS 16000
#define IPV4_HDR_MIN 20
#define NO_DEADLINE UINT64_MAX

/* Where a neighbour entry stands. */
enum neigh_state {
    NEIGH_FREE,
    NEIGH_ARP,   /* ARP request out, no answer yet */
    NEIGH_PATH,  /* link address known, PathRecord query out */
    NEIGH_VALID, /* resolved */
};

/* A packet waiting for its neighbour to resolve. */
struct pending_pkt {
    uint8_t *buf;
    size_t len;
};

/* One IPv4 neighbour: its link address and the path to it. */
struct neigh {
    enum neigh_state state;
    uint32_t ip;
    struct ipoib_lladdr ll;
    uint16_t lid;
    uint8_t sl;
    uint64_t updated;  /* when last confirmed */
    uint64_t deadline; /* next retry, or NO_DEADLINE */
    unsigned tries;
    bool probing; /* VALID but old: an ARP request asks whether it still holds */
    uint64_t tid; /* the path query out, if state == NEIGH_PATH */
    struct pending_pkt q[NEIGH_QUEUE_MAX];
    unsigned qn;
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
    uint64_t join_tid;
    uint64_t join_deadline;
    unsigned join_backoff;
    uint32_t tid_low;
    struct neigh *neigh;
    struct ipoib_stats stats;
    uint8_t txbuf[IPOIB_ENCAP_LEN + BOARD_DGRAM_MAX_PAYLOAD];
};

/* Print one log line through ops.log, if there is one. */
static void ep_log(const struct ipoib *ep, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void ep_log(const struct ipoib *ep, int level, const char *fmt, ...)
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

/* A fresh SA transaction ID: our tag, a 24-bit counter that skips 0 (high word 0). */
static uint64_t next_tid(struct ipoib *ep)
{
    ep->tid_low = (ep->tid_low + 1) & 0xFFFFFFu;
    if (ep->tid_low == 0)
        ep->tid_low = 1;
    return (uint64_t)ep->cfg.tid_tag << 24 | ep->tid_low;
}

/* Whether two TIDs are the same request as far as ours go: the low 32 bits. */
static bool tid_same(uint64_t a, uint64_t b)
{
    return (uint32_t)a == (uint32_t)b;
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
    ep->join_deadline = NO_DEADLINE;
    ep->join_backoff = ep->cfg.join_retry_ms;
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

/* Free a neighbour entry and what it holds. */
static void neigh_free(struct ipoib *ep, struct neigh *n, bool count)
{
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
    free(ep);
}

/* The entry for ip, or NULL. */
static struct neigh *neigh_find(struct ipoib *ep, uint32_t ip)
{
    for (unsigned i = 0; i < ep->cfg.neigh_max; i++)
        if (ep->neigh[i].state != NEIGH_FREE && ep->neigh[i].ip == ip)
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
    return victim;
}

/* Flush every neighbour (a new join follows). */
static void neigh_flush_all(struct ipoib *ep)
{
    for (unsigned i = 0; i < ep->cfg.neigh_max; i++)
        if (ep->neigh[i].state != NEIGH_FREE)
            neigh_free(ep, &ep->neigh[i], true);
    ep->stats.flushes++;
}

/* Fill the GRH of a send to the broadcast group. */
static void mcast_grh(const struct ipoib *ep, uint8_t grh[BOARD_DGRAM_GRH_LEN])
{
    const struct ipoib_group *g = &ep->group;

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
 * Send header + body (already in ep->txbuf after the header room) to the
 * broadcast group.  Returns 0 or a negative errno.
 */
static int send_bcast(struct ipoib *ep, size_t len)
{
    struct board_dgram_addr a = {
        .dlid = ep->group.mlid,
        .sl = ep->group.sl,
        .has_grh = true,
        .pkey = send_pkey(ep),
        .dst_qp = IPOIB_MCAST_QPN,
        .qkey = ep->group.qkey,
    };
    int rc;

    mcast_grh(ep, a.grh);
    rc = ep->ops.send_dgram(ep->ctx, &a, ep->txbuf, len);
    if (rc < 0)
        ep->stats.tx_errors++;
    return rc;
}

/* Send len bytes of ep->txbuf (or buf) to one peer. Returns 0 or -errno. */
static int send_unicast(struct ipoib *ep, const uint8_t *buf, size_t len, uint16_t lid, uint8_t sl,
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
    send_unicast(ep, ep->txbuf, arp_to_txbuf(ep, &arp), lid, sl, req->sha.qpn);
}

/* Ask the SA for the path to a neighbour's GID. */
static void path_query(struct ipoib *ep, struct neigh *n, uint64_t now)
{
    uint8_t mad[IPOIB_SA_MAD_LEN];

    n->tid = next_tid(ep);
    ipoib_sa_build_path_query(mad, n->tid, ep->own_gid, n->ll.gid, ep->cfg.pkey | 0x8000);
    ep->stats.path_queries++;
    ep->ops.send_sa(ep->ctx, mad, sizeof(mad), ep->port.sm_lid, ep->port.sm_sl);
    n->deadline = now + ep->cfg.retry_ms;
}

/* Send the packets a neighbour held, now that it resolved. */
static void neigh_send_queue(struct ipoib *ep, struct neigh *n)
{
    for (unsigned i = 0; i < n->qn; i++) {
        if (send_unicast(ep, n->q[i].buf, n->q[i].len, n->lid, n->sl, n->ll.qpn) == 0) {
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
    n->state = NEIGH_VALID;
    n->updated = now;
    n->deadline = NO_DEADLINE;
    n->tries = 0;
    n->probing = false;
    n->tid = 0;
    neigh_send_queue(ep, n);
}

/*
 * Learn a sender's link address from its ARP.  The datagram that carried
 * it gives the path when its source QP is the one the ARP names (the usual
 * case); otherwise the SA is asked.
 */
static void arp_learn(struct ipoib *ep, struct neigh *n, const struct ipoib_arp *arp,
                      const struct board_dgram_addr *a, uint64_t now)
{
    bool same = n->state == NEIGH_VALID && ipoib_lladdr_equal(&n->ll, &arp->sha);

    n->ll = arp->sha;
    n->ll.flags = 0;
    if (a->src_qp == arp->sha.qpn && a->slid != 0 && a->slid < 0xC000) {
        neigh_resolved(ep, n, a->slid, a->sl, now);
    } else if (same) {
        n->updated = now;
        n->probing = false;
        n->deadline = NO_DEADLINE;
    } else {
        n->state = NEIGH_PATH;
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
        ep_log(ep, 3, "ipoib: ARP dropped (%s)", ipoib_arp_parse_result_name(r));
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
        arp_learn(ep, n, &arp, a, now);
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
    total = mad_be16(pkt + 2);
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

/* Start resolving nh with an ARP request. */
static void neigh_start_arp(struct ipoib *ep, struct neigh *n, uint64_t now)
{
    n->state = NEIGH_ARP;
    n->tries = 1;
    n->deadline = now + ep->cfg.retry_ms;
    arp_request(ep, n->ip);
}

/*
 * Send a framed packet of framed_len bytes in ep->txbuf to next hop nh, or
 * queue it while nh resolves.  Returns 0 sent, 1 queued, or a negative
 * errno (counted).
 */
static int output_unicast(struct ipoib *ep, uint32_t nh, size_t framed_len, uint64_t now)
{
    struct neigh *n = neigh_find(ep, nh);
    int rc;

    if (n && n->state == NEIGH_VALID) {
        rc = send_unicast(ep, ep->txbuf, framed_len, n->lid, n->sl, n->ll.qpn);
        if (!n->probing && now - n->updated >= ep->cfg.reachable_ms) {
            /* Old: keep using it, and ask whether it still holds. */
            n->probing = true;
            n->tries = 1;
            n->deadline = now + ep->cfg.retry_ms;
            arp_request(ep, nh);
        }
        return rc;
    }
    if (!n) {
        n = neigh_alloc(ep, nh);
        if (!n) {
            ep->stats.tx_dropped_unresolved++;
            return -ENOBUFS;
        }
        rc = neigh_enqueue(ep, n, framed_len);
        neigh_start_arp(ep, n, now);
    } else {
        rc = neigh_enqueue(ep, n, framed_len);
    }
    if (rc < 0) {
        ep->stats.tx_dropped_unresolved++;
        return rc;
    }
    return 1;
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
    if (len > ipoib_ip_mtu(ep->group.mtu) || !ipv4_check(pkt, len)) {
        ep->stats.tx_dropped_bad++;
        return -EINVAL;
    }
    dst = mad_be32(pkt + 16);
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
    if (rc == 0) {
        ep->stats.tx_packets++;
        ep->stats.tx_bytes += len;
    }
    return rc;
}

/* Leave the UP/JOINING state: the link goes down and the neighbours go. */
static void go_down(struct ipoib *ep)
{
    bool was_up = ep->state == IPOIB_UP;

    ep->state = IPOIB_DOWN;
    ep->join_tid = 0;
    ep->join_deadline = NO_DEADLINE;
    neigh_flush_all(ep);
    if (was_up && ep->ops.link)
        ep->ops.link(ep->ctx, false, 0);
}

/* Send a join of the broadcast group and arm its retry. */
static void send_join(struct ipoib *ep, uint64_t now)
{
    uint8_t mad[IPOIB_SA_MAD_LEN];

    ep->state = IPOIB_JOINING;
    ep->join_tid = next_tid(ep);
    ipoib_sa_build_join(mad, ep->join_tid, ep->bcast_mgid, ep->own_gid, ep->cfg.pkey | 0x8000, 1);
    ep->ops.send_sa(ep->ctx, mad, sizeof(mad), ep->port.sm_lid, ep->port.sm_sl);
    ep->join_deadline = now + ep->join_backoff;
    if (ep->join_backoff < JOIN_BACKOFF_MAX_MS)
        ep->join_backoff =
            ep->join_backoff * 2 > JOIN_BACKOFF_MAX_MS ? JOIN_BACKOFF_MAX_MS : ep->join_backoff * 2;
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
    ep_log(ep, 0,
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
        ep_log(ep, 2,
               "ipoib: port now LID %u, SM LID %u, ClientReregister %u (was LID %u, SM LID %u, "
               "%u): joining the broadcast group again",
               port->lid, port->sm_lid, (unsigned)port->reregister, ep->port.lid, ep->port.sm_lid,
               (unsigned)ep->port.reregister);
    if (ep->port.pkey_state != port->pkey_state || !ep->port.active)
        log_pkey_problem(ep, port);
    if (ep->state != IPOIB_DOWN)
        go_down(ep);
    ep->port = *port;
    ipoib_gid_make(port->gid_prefix, port->port_guid, ep->own_gid);
    ep->join_backoff = ep->cfg.join_retry_ms;
    if (port_usable(port))
        send_join(ep, now);
}

/* The answer to our join: adopt the group, or wait for the retry. */
static void join_answer(struct ipoib *ep, const uint8_t *mad, size_t len, uint64_t now)
{
    struct ipoib_group g;
    unsigned status;
    enum ipoib_sa_result r = ipoib_sa_parse_join(mad, len, ep->bcast_mgid, &g, &status);
    char ip[16];

    if (r != IPOIB_SA_OK) {
        ep->stats.join_failures++;
        ep_log(ep, 0, "ipoib: broadcast group join refused (%s, MAD status 0x%04x); retry in %u ms",
               r == IPOIB_SA_STATUS ? "SA status" : "bad answer", status,
               (unsigned)(ep->join_deadline > now ? ep->join_deadline - now : 0));
        ep->join_tid = 0;
        return;
    }
    if (ep->ops.set_qkey(ep->ctx, g.qkey) < 0) {
        ep->stats.join_failures++;
        ep_log(ep, 0, "ipoib: cannot set the QP's Q_Key to 0x%08x", g.qkey);
        ep->join_tid = 0;
        return;
    }
    ep->group = g;
    ep->state = IPOIB_UP;
    ep->join_tid = 0;
    ep->join_deadline = NO_DEADLINE;
    ep->join_backoff = ep->cfg.join_retry_ms;
    ep->stats.joins++;
    ep_log(ep, 2, "ipoib: joined the broadcast group: MLID 0x%04x Q_Key 0x%08x MTU %u SL %u, %s",
           g.mlid, g.qkey, ipoib_ip_mtu(g.mtu), g.sl, ip_str(ep->cfg.addr, ip));
    if (ep->ops.link)
        ep->ops.link(ep->ctx, true, ipoib_ip_mtu(g.mtu));
    if (ep->cfg.addr)
        arp_request(ep, ep->cfg.addr); /* gratuitous */
}

/* The answer to a path query of neighbour n. */
static void path_answer(struct ipoib *ep, struct neigh *n, const uint8_t *mad, size_t len,
                        uint64_t now)
{
    struct ipoib_path p;
    unsigned status;

    if (ipoib_sa_parse_path(mad, len, n->ll.gid, &p, &status) != IPOIB_SA_OK) {
        ep->stats.path_failures++;
        n->tid = 0; /* the retry timer asks again */
        return;
    }
    neigh_resolved(ep, n, p.dlid, p.sl, now);
}

/* Match an SA answer to our join or a path query by TID. */
bool ipoib_input_sa(struct ipoib *ep, const uint8_t *mad, size_t len, uint64_t now)
{
    uint64_t tid;

    if (!ipoib_sa_is_response(mad, len))
        return false;
    tid = ipoib_sa_tid(mad);
    if ((uint8_t)(tid >> 24) != ep->cfg.tid_tag)
        return false;
    if (ep->join_tid && tid_same(tid, ep->join_tid)) {
        join_answer(ep, mad, len, now);
        return true;
    }
    for (unsigned i = 0; i < ep->cfg.neigh_max; i++) {
        struct neigh *n = &ep->neigh[i];
        if (n->state == NEIGH_PATH && tid_same(n->tid, tid)) {
            path_answer(ep, n, mad, len, now);
            return true;
        }
    }
    ep->stats.sa_dropped++;
    return true;
}

/* A neighbour's retry is due: ask again, or give up after RESOLVE_TRIES. */
static void neigh_retry(struct ipoib *ep, struct neigh *n, uint64_t now)
{
    char ip[16];

    if (n->tries >= RESOLVE_TRIES) {
        if (n->state == NEIGH_PATH)
            ep->stats.path_failures++;
        ep_log(ep, 2, "ipoib: %s unresolved after %u tries", ip_str(n->ip, ip), n->tries);
        neigh_free(ep, n, true);
        return;
    }
    n->tries++;
    n->deadline = now + ep->cfg.retry_ms;
    if (n->state == NEIGH_PATH)
        path_query(ep, n, now);
    else
        arp_request(ep, n->ip);
}

/* Run what is due at now. */
void ipoib_poll(struct ipoib *ep, uint64_t now)
{
    if (ep->state == IPOIB_JOINING && now >= ep->join_deadline) {
        if (ep->join_tid)
            ep->stats.join_timeouts++;
        send_join(ep, now);
    }
    if (ep->state != IPOIB_UP)
        return;
    for (unsigned i = 0; i < ep->cfg.neigh_max; i++) {
        struct neigh *n = &ep->neigh[i];
        if (n->state != NEIGH_FREE && n->deadline != NO_DEADLINE && now >= n->deadline)
            neigh_retry(ep, n, now);
    }
}

/* The earliest of the join retry and every neighbour's retry. */
uint64_t ipoib_next_deadline(const struct ipoib *ep)
{
    uint64_t d = ep->state == IPOIB_JOINING ? ep->join_deadline : NO_DEADLINE;

    if (ep->state != IPOIB_UP)
        return d;
    for (unsigned i = 0; i < ep->cfg.neigh_max; i++)
        if (ep->neigh[i].state != NEIGH_FREE && ep->neigh[i].deadline < d)
            d = ep->neigh[i].deadline;
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
                .lladdr = n->ll,
                .lid = n->lid,
                .sl = n->sl,
                .resolved = n->state == NEIGH_VALID,
                .updated = n->updated,
            };
        }
        count++;
    }
    return count;
}
