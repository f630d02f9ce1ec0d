/*
 * pz_ip.c - the IP plane in portzerod (see pz_ip.h).
 */
#include "pz_ip.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "ipoib_ip6.h"
#include "pz_ipplane.h"
#include "pz_log.h"
#include "sma.h"

/* The port's state is re-read this often (and soon after an SMP Set). */
#define PZ_IP_PORT_NS 100000000ull
/* ... and this soon after the SM wrote to the switch. */
#define PZ_IP_PORT_SOON_NS 2000000ull
/* Without a QP descriptor (board = mem) the QP is polled this often. */
#define PZ_IP_QP_POLL_NS 10000000ull
/* Datagrams taken per wake at most. */
#define PZ_IP_DGRAM_BUDGET 64
/* The QP's Q_Key until the join gives the group's (the IPoIB default). */
#define PZ_IP_QKEY_INITIAL 0x00000B1Bu
/* The largest datagram payload a port-0 QP carries (4 KiB MTU). */
#define PZ_IP_DGRAM_MAX 4096

struct pz_ip {
    struct pz_ip_env env;
    uint16_t pkey;
    int qp;     /* board_qp handle */
    int qp_fd;  /* its descriptor, or -1 */
    int net_fd; /* pz_ipplane_fd */
    struct pz_ipplane *plane;
    uint64_t next_port_ns;
    uint64_t next_qp_ns; /* qp_fd < 0: next poll */
    bool qp_lost;
};

/* Milliseconds of the loop's clock, the plane's time base. */
static uint64_t pz_ip_now_ms(void)
{
    return pz_loop_now_ns() / 1000000u;
}

/* plane -> QP: one datagram. */
static int pz_ip_send_dgram(void *ctx, const struct board_dgram_addr *a, const void *buf,
                            size_t len)
{
    struct pz_ip *ip = ctx;

    return board_qp_send(ip->env.board, ip->qp, a, buf, len);
}

/* plane -> SA: a request MAD to the SM's LID and SL, through the umad port. */
static int pz_ip_send_sa(void *ctx, const void *mad, size_t len, uint16_t dlid, uint8_t sl)
{
    struct pz_ip *ip = ctx;
    uint8_t buf[IB_MAD_SIZE] = {0};
    struct mad_addr to = {.dlid = dlid, .sl = sl, .dst_qp = 1, .lid_routed = true};

    memcpy(buf, mad, len < sizeof(buf) ? len : sizeof(buf));
    if (mad_io_send(ip->env.io, buf, &to)) {
        pz_log(PZ_LOG_WARN, "ip: SA request to LID %u not sent", dlid);
        return -EIO;
    }
    pz_log(PZ_LOG_DEBUG, "ip: SA request attr 0x%04x to LID %u SL %u",
           (unsigned)mad_get_field(buf, 0, IB_MAD_ATTRID_F), dlid, sl);
    return 0;
}

/* plane -> QP: the group's Q_Key. */
static int pz_ip_set_qkey(void *ctx, uint32_t qkey)
{
    struct pz_ip *ip = ctx;

    return board_qp_set_qkey(ip->env.board, ip->qp, qkey);
}

/* plane -> log: the link's changes. */
static void pz_ip_link(void *ctx, bool up, unsigned mtu)
{
    (void)ctx;
    if (up)
        pz_log(PZ_LOG_INFO, "ip: link up, MTU %u", mtu);
    else
        pz_log(PZ_LOG_INFO, "ip: link down");
}

/* plane -> log: its lines at its level (0 error .. 3 debug). */
static void pz_ip_log(void *ctx, int level, const char *msg)
{
    (void)ctx;
    pz_log(level <= 0 ? PZ_LOG_ERROR : (enum pz_log_level)level, "ip: %s", msg);
}

static const struct pz_ipplane_ops pz_ip_ops = {
    .send_dgram = pz_ip_send_dgram,
    .send_sa = pz_ip_send_sa,
    .set_qkey = pz_ip_set_qkey,
    .link = pz_ip_link,
    .log = pz_ip_log,
};

/* Read port 0's state from the SMA and hand it to the plane. */
static void pz_ip_port_refresh(struct pz_ip *ip)
{
    uint8_t pi[64], pk[64];
    struct ipoib_port port = {0};

    if (sma_local_get(ip->env.sma, 0, IB_ATTR_PORT_INFO, 0, pi) ||
        sma_local_get(ip->env.sma, 0, IB_ATTR_PKEY_TBL, 0, pk))
        return;
    ipoib_port_from_attrs(pi, pk, ip->env.board->id->port_guid[0], ip->pkey, &port);
    port.reregister = sma_client_reregister_count(ip->env.sma, 0);
    pz_ipplane_port_update(ip->plane, &port, pz_ip_now_ms());
}

/* Take what waits on the QP (at most PZ_IP_DGRAM_BUDGET) into the plane. */
static void pz_ip_take_dgrams(struct pz_ip *ip)
{
    uint8_t buf[PZ_IP_DGRAM_MAX];
    struct board_dgram_addr a;

    for (int i = 0; i < PZ_IP_DGRAM_BUDGET; i++) {
        int n = board_qp_recv(ip->env.board, ip->qp, &a, buf, sizeof(buf));

        if (n >= 0) {
            pz_ipplane_input(ip->plane, &a, buf, (size_t)n, pz_ip_now_ms());
            continue;
        }
        if (n == -EAGAIN)
            return;
        if (n == -EMSGSIZE || n == -EPROTO)
            continue; /* one bad datagram, counted by the board */
        if (!ip->qp_lost)
            pz_log(PZ_LOG_ERROR, "ip: the port-0 QP failed (%s): IP plane stopped", strerror(-n));
        ip->qp_lost = true;
        if (ip->qp_fd >= 0)
            pz_loop_remove_fd(ip->env.loop, ip->qp_fd);
        return;
    }
}

/* Loop: the QP has datagrams. */
static void pz_ip_on_qp(void *arg, int fd)
{
    (void)fd;
    pz_ip_take_dgrams(arg);
}

/* Loop: lwIP queued packets for the wire. */
static void pz_ip_on_net(void *arg, int fd)
{
    struct pz_ip *ip = arg;

    (void)fd;
    pz_ipplane_poll(ip->plane, pz_ip_now_ms());
}

/* Loop: when the plane next has timed work (ns). */
static uint64_t pz_ip_deadline(void *arg)
{
    struct pz_ip *ip = arg;
    uint64_t ms = pz_ipplane_next_deadline(ip->plane);
    uint64_t next = ms == UINT64_MAX ? UINT64_MAX : ms * 1000000u;

    if (ip->next_port_ns < next)
        next = ip->next_port_ns;
    if (ip->qp_fd < 0 && !ip->qp_lost && ip->next_qp_ns < next)
        next = ip->next_qp_ns;
    return next;
}

/* Loop: run the plane's timers, re-read the port, poll a QP without a descriptor. */
static void pz_ip_on_timer(void *arg, uint64_t now)
{
    struct pz_ip *ip = arg;

    if (now >= ip->next_port_ns) {
        ip->next_port_ns = now + PZ_IP_PORT_NS;
        pz_ip_port_refresh(ip);
    }
    if (ip->qp_fd < 0 && !ip->qp_lost && now >= ip->next_qp_ns) {
        ip->next_qp_ns = now + PZ_IP_QP_POLL_NS;
        pz_ip_take_dgrams(ip);
    }
    pz_ipplane_poll(ip->plane, now / 1000000u);
}

/* The netmask of a prefix length (host order). */
static uint32_t pz_ip_netmask(unsigned prefix_len)
{
    return prefix_len ? (uint32_t)(0xFFFFFFFFull << (32 - prefix_len)) : 0;
}

/* Log the IPv6 addresses the plane starts with: the link-local, the configured one. */
static void pz_ip_log_ip6(const struct pz_config *cfg, uint64_t port_guid)
{
    uint8_t ll[16];
    char a[46], g[46];

    ipoib_ip6_linklocal(port_guid, ll);
    ipoib_ip6_str(ll, a);
    if (!cfg->ip6_address.prefix_len) {
        pz_log(PZ_LOG_INFO, "ip: IPv6 %s/64 (and SLAAC)", a);
        return;
    }
    pz_log(PZ_LOG_INFO, "ip: IPv6 %s/64, %s/%u", a, ipoib_ip6_str(cfg->ip6_address.addr, g),
           cfg->ip6_address.prefix_len);
}

/* Open the QP and the plane; returns 0 or -1 with a message in err. */
static int pz_ip_open(struct pz_ip *ip, const struct pz_config *cfg, char *err, size_t errlen)
{
    uint32_t qpn = 0;
    int rc = board_qp_open(ip->env.board, PZ_IP_QKEY_INITIAL, &qpn);

    if (rc < 0) {
        snprintf(err, errlen, "cannot open a port-0 QP for IPoIB: %s", strerror(-rc));
        return -1;
    }
    ip->qp = rc;
    ip->qp_fd = board_qp_fd(ip->env.board, ip->qp);
    struct pz_ipplane_config pcfg = {
        .addr = cfg->ip_address.addr,
        .netmask = pz_ip_netmask(cfg->ip_address.prefix_len),
        .gateway = cfg->ip_gateway.addr,
        .pkey = ip->pkey,
        .qpn = qpn,
        .tid_tag = (uint8_t)(PZ_IP_TID_TAG >> 24),
        .echo = true,
        .iperf_server = cfg->iperf_server,
        .ip6 = cfg->ip6,
        .port_guid = ip->env.board->id->port_guid[0],
        .ip6_prefix = (uint8_t)cfg->ip6_address.prefix_len,
    };

    memcpy(pcfg.ip6_addr, cfg->ip6_address.addr, 16);
    memcpy(pcfg.ip6_gateway, cfg->ip6_gateway.addr, 16);
    ip->plane = pz_ipplane_create(&pcfg, &pz_ip_ops, ip, err, errlen);
    if (!ip->plane)
        return -1;
    ip->net_fd = pz_ipplane_fd(ip->plane);
    pz_log(PZ_LOG_INFO, "ip: %u.%u.%u.%u/%u on IPoIB (P_Key 0x%04x, QPN 0x%06x)",
           cfg->ip_address.addr >> 24, cfg->ip_address.addr >> 16 & 0xFF,
           cfg->ip_address.addr >> 8 & 0xFF, cfg->ip_address.addr & 0xFF,
           cfg->ip_address.prefix_len, (unsigned)ip->pkey, (unsigned)qpn);
    if (cfg->ip6)
        pz_ip_log_ip6(cfg, ip->env.board->id->port_guid[0]);
    return 0;
}

/* Register the descriptors and the timer; returns 0 or -1. */
static int pz_ip_register(struct pz_ip *ip)
{
    if (pz_loop_add_fd(ip->env.loop, ip->net_fd, pz_ip_on_net, ip) ||
        (ip->qp_fd >= 0 && pz_loop_add_fd(ip->env.loop, ip->qp_fd, pz_ip_on_qp, ip)))
        return -1;
    return pz_loop_add_timer(ip->env.loop, pz_ip_deadline, pz_ip_on_timer, ip);
}

struct pz_ip *pz_ip_create(const struct pz_config *cfg, const struct pz_ip_env *env, char *err,
                           size_t errlen)
{
    struct pz_ip *ip = calloc(1, sizeof(*ip));

    if (!ip) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    ip->env = *env;
    ip->qp = -1;
    ip->qp_fd = -1;
    ip->net_fd = -1;
    ip->pkey = (uint16_t)(cfg->ipoib_pkey | 0x8000);
    if (!board_has_qps(env->board)) {
        snprintf(err, errlen, "the board has no port-0 QPs: no IP plane");
        goto fail;
    }
    if (pz_ip_open(ip, cfg, err, errlen))
        goto fail;
    if (pz_ip_register(ip)) {
        snprintf(err, errlen, "the event loop is full");
        goto fail;
    }
    pz_ip_port_refresh(ip);
    return ip;
fail:
    pz_ip_destroy(ip);
    return NULL;
}

bool pz_ip_take_mad(struct pz_ip *ip, const uint8_t *mad)
{
    if (!ip || mad_get_field((void *)mad, 0, IB_MAD_MGMTCLASS_F) != IB_SA_CLASS ||
        !mad_get_field((void *)mad, 0, IB_MAD_RESPONSE_F))
        return false;
    return pz_ipplane_input_sa(ip->plane, mad, IB_MAD_SIZE, pz_ip_now_ms());
}

void pz_ip_port_changed(struct pz_ip *ip)
{
    uint64_t soon = pz_loop_now_ns() + PZ_IP_PORT_SOON_NS;

    if (ip && soon < ip->next_port_ns)
        ip->next_port_ns = soon;
}

struct pz_ipplane *pz_ip_plane(const struct pz_ip *ip)
{
    return ip ? ip->plane : NULL;
}

void pz_ip_destroy(struct pz_ip *ip)
{
    if (!ip)
        return;
    if (ip->net_fd >= 0)
        pz_loop_remove_fd(ip->env.loop, ip->net_fd);
    if (ip->qp_fd >= 0)
        pz_loop_remove_fd(ip->env.loop, ip->qp_fd);
    pz_loop_remove_timers(ip->env.loop, ip);
    pz_ipplane_destroy(ip->plane);
    if (ip->qp >= 0)
        board_qp_close(ip->env.board, ip->qp);
    free(ip);
}
