/*
 * pz_ipplane.c - the IP plane: endpoint + lwIP netif + services (see
 * pz_ipplane.h).  Only wiring: the endpoint's deliver and link callbacks go
 * to the netif; what lwIP sends on the owner's thread goes to the endpoint
 * at once, what its own thread sends drains from the netif's queue.
 */
#include "pz_ipplane.h"

#include <stdio.h>
#include <stdlib.h>

#include <string.h>

#include "ip_echo.h"
#include "ipoib6.h"
#include "iperf_server.h"
#include "iperf_wire.h"
#include "pz_netif.h"

struct pz_ipplane {
    struct pz_ipplane_ops ops;
    void *ctx;
    struct ipoib *ep;
    struct pz_netif *netif;
    struct ip_echo *echo;
    struct iperf_server *iperf;
    uint64_t now; /* ms: the latest time the owner gave, for sends between its calls */
    struct {
        void (*fn)(void *arg);
        void *arg;
    } hooks[PZ_IPPLANE_MAX_HOOKS];
    unsigned nhooks;
    bool ip6;
    struct ipoib6_addr addrs6[IPOIB6_ADDRS_MAX]; /* lwIP's, as last given to the endpoint */
    unsigned n_addrs6;
    bool tentative6; /* one of them is under DAD: look again within a second */
};

static void sync_addrs6(struct pz_ipplane *p, uint64_t now);

#define ADDR6_RECHECK_MS 1000 /* lwIP's DAD ends on its own thread, 1 s after it starts */

/* Note the owner's time (ms); returns it. */
static uint64_t plane_clock(struct pz_ipplane *p, uint64_t now)
{
    if (now > p->now)
        p->now = now;
    return now;
}

/* lwIP -> ipoib on the owner's thread: one packet to the wire at once. */
static void plane_send_now(void *ctx, const void *pkt, size_t len)
{
    struct pz_ipplane *p = ctx;

    ipoib_output(p->ep, pkt, len, p->now);
}

/* ipoib -> owner: datagrams. */
static int plane_send_dgram(void *ctx, const struct board_dgram_addr *a, const void *buf,
                            size_t len)
{
    struct pz_ipplane *p = ctx;
    return p->ops.send_dgram(p->ctx, a, buf, len);
}

/* ipoib -> owner: SA requests. */
static int plane_send_sa(void *ctx, const void *mad, size_t len, uint16_t dlid, uint8_t sl)
{
    struct pz_ipplane *p = ctx;
    return p->ops.send_sa(p->ctx, mad, len, dlid, sl);
}

/* ipoib -> lwIP: a received packet. */
static void plane_deliver(void *ctx, const void *pkt, size_t len)
{
    struct pz_ipplane *p = ctx;
    pz_netif_deliver(p->netif, pkt, len);
}

/* ipoib -> owner: the QP's Q_Key. */
static int plane_set_qkey(void *ctx, uint32_t qkey)
{
    struct pz_ipplane *p = ctx;
    return p->ops.set_qkey(p->ctx, qkey);
}

/* ipoib -> lwIP (and the owner): link state. */
static void plane_link(void *ctx, bool up, unsigned mtu)
{
    struct pz_ipplane *p = ctx;

    pz_netif_link(p->netif, up, mtu);
    if (p->ops.link)
        p->ops.link(p->ctx, up, mtu);
}

/* ipoib -> owner: log lines. */
static void plane_log(void *ctx, int level, const char *msg)
{
    struct pz_ipplane *p = ctx;
    if (p->ops.log)
        p->ops.log(p->ctx, level, msg);
}

static const struct ipoib_ops plane_ipoib_ops = {
    .send_dgram = plane_send_dgram,
    .send_sa = plane_send_sa,
    .deliver = plane_deliver,
    .set_qkey = plane_set_qkey,
    .link = plane_link,
    .log = plane_log,
};

struct pz_ipplane *pz_ipplane_create(const struct pz_ipplane_config *cfg,
                                     const struct pz_ipplane_ops *ops, void *ctx, char *err,
                                     size_t errlen)
{
    struct pz_ipplane *p = calloc(1, sizeof(*p));
    struct ipoib_config icfg = {.pkey = cfg->pkey ? cfg->pkey : 0xffff,
                                .qpn = cfg->qpn,
                                .addr = cfg->addr,
                                .netmask = cfg->netmask,
                                .gateway = cfg->gateway,
                                .tid_tag = cfg->tid_tag,
                                .ip6 = cfg->ip6};
    struct pz_netif_config ncfg = {.addr = cfg->addr,
                                   .netmask = cfg->netmask,
                                   .gateway = cfg->gateway,
                                   .ip6 = cfg->ip6,
                                   .port_guid = cfg->port_guid,
                                   .ip6_prefix = cfg->ip6_prefix};

    if (!p) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    p->ops = *ops;
    p->ctx = ctx;
    p->ip6 = cfg->ip6;
    memcpy(icfg.ip6_gateway, cfg->ip6_gateway, 16);
    memcpy(ncfg.ip6_addr, cfg->ip6_addr, 16);
    p->ep = ipoib_create(&icfg, &plane_ipoib_ops, p);
    if (!p->ep) {
        snprintf(err, errlen, "bad IPoIB settings (P_Key 0x%04x, QPN 0x%x)", icfg.pkey, icfg.qpn);
        goto fail;
    }
    p->netif = pz_netif_create(&ncfg, err, errlen);
    if (!p->netif)
        goto fail;
    pz_netif_set_sender(p->netif, plane_send_now, p);
    if (p->ip6)
        sync_addrs6(p, 0); /* the link-local, tentative: looked at again each second */
    if (cfg->echo && !(p->echo = ip_echo_start(0, 0))) {
        snprintf(err, errlen, "cannot start the echo service on port %d", IP_ECHO_PORT);
        goto fail;
    }
    if (cfg->iperf_server && pz_ipplane_iperf_server(p, true)) {
        snprintf(err, errlen, "cannot start the iperf server on port %d", IPERF_PORT);
        goto fail;
    }
    return p;
fail:
    pz_ipplane_destroy(p);
    return NULL;
}

void pz_ipplane_port_update(struct pz_ipplane *p, const struct ipoib_port *port, uint64_t now)
{
    ipoib_port_update(p->ep, port, plane_clock(p, now));
}

void pz_ipplane_input(struct pz_ipplane *p, const struct board_dgram_addr *a,
                      const uint8_t *payload, size_t len, uint64_t now)
{
    ipoib_input(p->ep, a, payload, len, plane_clock(p, now));
    for (unsigned i = 0; i < p->nhooks; i++)
        p->hooks[i].fn(p->hooks[i].arg);
}

int pz_ipplane_add_input_hook(struct pz_ipplane *p, void (*fn)(void *arg), void *arg)
{
    if (p->nhooks >= PZ_IPPLANE_MAX_HOOKS)
        return -1;
    p->hooks[p->nhooks].fn = fn;
    p->hooks[p->nhooks].arg = arg;
    p->nhooks++;
    return 0;
}

void pz_ipplane_remove_input_hooks(struct pz_ipplane *p, void *arg)
{
    unsigned kept = 0;

    for (unsigned i = 0; i < p->nhooks; i++)
        if (p->hooks[i].arg != arg)
            p->hooks[kept++] = p->hooks[i];
    p->nhooks = kept;
}

bool pz_ipplane_input_sa(struct pz_ipplane *p, const uint8_t *mad, size_t len, uint64_t now)
{
    return ipoib_input_sa(p->ep, mad, len, plane_clock(p, now));
}

int pz_ipplane_fd(const struct pz_ipplane *p)
{
    return pz_netif_fd(p->netif);
}

/*
 * Give the endpoint lwIP's IPv6 addresses when they changed (a DAD ended,
 * SLAAC added one), so it answers neighbour discovery for them.
 */
static void sync_addrs6(struct pz_ipplane *p, uint64_t now)
{
    struct ipoib6_addr a[IPOIB6_ADDRS_MAX];
    unsigned n = pz_netif_ip6_addrs(p->netif, a, IPOIB6_ADDRS_MAX);

    p->tentative6 = false;
    for (unsigned i = 0; i < n; i++)
        p->tentative6 |= a[i].tentative;
    if (n == p->n_addrs6 && memcmp(a, p->addrs6, n * sizeof(a[0])) == 0)
        return;
    memcpy(p->addrs6, a, n * sizeof(a[0]));
    p->n_addrs6 = n;
    ipoib6_set_addrs(p->ep, a, n, now);
}

void pz_ipplane_poll(struct pz_ipplane *p, uint64_t now)
{
    pz_netif_drain(p->netif, p->ep, plane_clock(p, now));
    if (p->ip6)
        sync_addrs6(p, now);
    ipoib_poll(p->ep, now);
}

uint64_t pz_ipplane_next_deadline(const struct pz_ipplane *p)
{
    uint64_t d = ipoib_next_deadline(p->ep);

    if (p->ip6 && p->tentative6 && p->now + ADDR6_RECHECK_MS < d)
        d = p->now + ADDR6_RECHECK_MS;
    return d;
}

struct ipoib *pz_ipplane_endpoint(const struct pz_ipplane *p)
{
    return p->ep;
}

unsigned pz_ipplane_ip6_addrs(const struct pz_ipplane *p, struct ipoib6_addr *out, unsigned max)
{
    return p->ip6 ? pz_netif_ip6_addrs(p->netif, out, max) : 0;
}

unsigned pz_ipplane_ip6_addr_info(const struct pz_ipplane *p, struct pz_netif6_addr_info *out,
                                  unsigned max)
{
    return p->ip6 ? pz_netif_ip6_addr_info(p->netif, out, max) : 0;
}

struct pz_netif_stats pz_ipplane_netif_stats(const struct pz_ipplane *p)
{
    return pz_netif_stats(p->netif);
}

int pz_ipplane_iperf_server(struct pz_ipplane *p, bool on)
{
    if (on && !p->iperf)
        p->iperf = iperf_server_start(0);
    else if (!on && p->iperf) {
        iperf_server_stop(p->iperf);
        p->iperf = NULL;
    }
    return on && !p->iperf ? -1 : 0;
}

struct iperf_server *pz_ipplane_iperf(const struct pz_ipplane *p)
{
    return p->iperf;
}

void pz_ipplane_destroy(struct pz_ipplane *p)
{
    if (!p)
        return;
    iperf_server_stop(p->iperf);
    ip_echo_stop(p->echo);
    pz_netif_destroy(p->netif);
    ipoib_destroy(p->ep);
    free(p);
}
