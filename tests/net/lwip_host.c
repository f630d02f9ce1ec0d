/*
 * lwip_host.c - a test host with the switch's IP plane (net/pz_ipplane:
 * IPoIB endpoint + lwIP + echo) attached to a CA of pzfabric, so the lwIP
 * side can be tested against real Linux tools before and apart from
 * portzerod's own wiring.
 *
 *   lwip_host --sockname NAME --ca CA --address A.B.C.D/PREFIX
 *             [--address6 X:Y::Z/PREFIX [--join6 GROUP]] [-v]
 *
 * With --address6 the plane carries IPv6 too (fe80::<IID of the port GUID>,
 * the address, SLAAC); --join6 joins an IPv6 group through lwIP's MLD (the
 * endpoint joins it through the SA).
 *
 * Prints "ready" once joined; SIGTERM/SIGINT: prints its counters as
 * "key value" lines and exits 0.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>

#include <infiniband/mad.h>

#include <lwip/mld6.h>
#include <lwip/tcpip.h>

#include "board_sim_dgram.h"
#include "ipoib6.h"
#include "pz_ipplane.h"
#include "pz_netif.h"
#include "pz_simclient.h"
#include "pz_tcp.h"
#include "pz_udp.h"

/* Port of the loop-served echo (pz_udp and pz_tcp), unlike the echo on 7 served in lwIP's thread.
 */
#define LOOP_ECHO_PORT 4007
#define LOOP_ECHO_CONNS 4

/* One TCP connection of the loop-served echo: bytes read but not yet written back. */
struct loop_echo_conn {
    struct pz_tcp_conn *c;
    uint8_t buf[8192];
    size_t len, off;
};

struct host {
    struct pz_simclient *sim;
    struct board_sim_dgram *dg;
    struct pz_ipplane *plane;
    uint64_t guid;
    int verbose;
    bool ready;
    struct pz_udp *udp;
    struct pz_tcp_port *tcp;
    struct loop_echo_conn conns[LOOP_ECHO_CONNS];
    unsigned long long udp_hook_echoes; /* answered by the plane's input hook */
};

/* The loop-served UDP echo: every datagram back to its sender. */
static unsigned loop_echo_udp(struct host *h)
{
    uint8_t buf[4096];
    struct pz_udp_addr from;
    unsigned echoed = 0;
    int n;

    while ((n = pz_udp_recv(h->udp, &from, buf, sizeof(buf))) >= 0) {
        pz_udp_send(h->udp, &from, buf, (size_t)n);
        echoed++;
    }
    return echoed;
}

/* Plane input hook: echo a datagram for the loop's port in the same pass. */
static void loop_echo_hook(void *arg)
{
    struct host *h = arg;

    if (h->udp && pz_udp_pending(h->udp))
        h->udp_hook_echoes += loop_echo_udp(h);
}

/* One TCP connection: write back what is pending, read more when it is all out. */
static void loop_echo_conn(struct loop_echo_conn *e)
{
    for (;;) {
        if (e->off < e->len) {
            int w = pz_tcp_write(e->c, e->buf + e->off, e->len - e->off);

            if (w < 0)
                break;
            e->off += (size_t)w;
            if (e->off < e->len)
                return; /* no send space: pz_tcp wakes us when there is */
        }
        int r = pz_tcp_read(e->c, e->buf, sizeof(e->buf));

        if (r == 0)
            return;
        if (r < 0)
            break;
        e->len = (size_t)r;
        e->off = 0;
    }
    pz_tcp_close(e->c); /* the peer closed and everything was echoed, or the connection is gone */
    e->c = NULL;
}

/* The loop-served TCP echo: accept, then serve every connection. */
static void loop_echo_tcp(struct host *h)
{
    struct pz_tcp_conn *c;

    pz_tcp_port_clear(h->tcp);
    while ((c = pz_tcp_accept(h->tcp))) {
        unsigned i;

        for (i = 0; i < LOOP_ECHO_CONNS && h->conns[i].c; i++)
            ;
        if (i == LOOP_ECHO_CONNS) {
            pz_tcp_abort(c);
            continue;
        }
        h->conns[i] = (struct loop_echo_conn){.c = c};
    }
    for (unsigned i = 0; i < LOOP_ECHO_CONNS; i++)
        if (h->conns[i].c)
            loop_echo_conn(&h->conns[i]);
}

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int h_send_dgram(void *ctx, const struct board_dgram_addr *a, const void *buf, size_t len)
{
    struct host *h = ctx;
    return board_sim_dgram_send(h->dg, a, buf, len);
}

static int h_send_sa(void *ctx, const void *mad, size_t len, uint16_t dlid, uint8_t sl)
{
    struct host *h = ctx;
    (void)sl;
    return pz_simclient_send_gmp(h->sim, dlid, mad, len);
}

static int h_set_qkey(void *ctx, uint32_t qkey)
{
    struct host *h = ctx;
    uint32_t qpn;
    return board_sim_dgram_open(h->dg, qkey, &qpn);
}

static void h_link(void *ctx, bool up, unsigned mtu)
{
    struct host *h = ctx;
    (void)mtu;
    if (up && !h->ready) {
        printf("ready\n");
        fflush(stdout);
        h->ready = true;
    }
}

static void h_log(void *ctx, int level, const char *msg)
{
    struct host *h = ctx;
    if (level <= 1 + h->verbose)
        fprintf(stderr, "lwip_host: %s\n", msg);
}

static const struct pz_ipplane_ops host_ops = {
    .send_dgram = h_send_dgram,
    .send_sa = h_send_sa,
    .set_qkey = h_set_qkey,
    .link = h_link,
    .log = h_log,
};

/* Join IPv6 group text through lwIP's MLD (as an application would); 0 or -1. */
static int join_group6(const char *text)
{
    ip6_addr_t g;
    err_t rc;

    memset(&g, 0, sizeof(g));
    if (inet_pton(AF_INET6, text, g.addr) != 1)
        return -1;
    LOCK_TCPIP_CORE();
    rc = mld6_joingroup(IP6_ADDR_ANY6, &g);
    UNLOCK_TCPIP_CORE();
    return rc == ERR_OK ? 0 : -1;
}

/* The CA port's state, read from the simulator. */
static void port_poll(struct host *h, uint64_t now)
{
    struct ipoib_port p = {0};

    if (pz_simclient_ipoib_port(h->sim, h->guid, 0xffff, &p) == 0)
        pz_ipplane_port_update(h->plane, &p, now);
}

int main(int argc, char **argv)
{
    const char *sock = NULL, *ca = NULL, *addr = NULL, *addr6 = NULL, *join6 = NULL;
    struct host h = {0};
    char err[256], ip[32], *slash;
    struct in_addr in;
    uint8_t ni[64];
    int plen = 24;
    sigset_t set;
    int sfd;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--sockname") && i + 1 < argc)
            sock = argv[++i];
        else if (!strcmp(argv[i], "--ca") && i + 1 < argc)
            ca = argv[++i];
        else if (!strcmp(argv[i], "--address") && i + 1 < argc)
            addr = argv[++i];
        else if (!strcmp(argv[i], "--address6") && i + 1 < argc)
            addr6 = argv[++i];
        else if (!strcmp(argv[i], "--join6") && i + 1 < argc)
            join6 = argv[++i];
        else if (!strcmp(argv[i], "-v"))
            h.verbose++;
    }
    if (!sock || !ca || !addr) {
        fprintf(stderr, "usage: lwip_host --sockname NAME --ca CA --address A.B.C.D/PREFIX "
                        "[--address6 X:Y::Z/PREFIX] [-v]\n");
        return 2;
    }
    snprintf(ip, sizeof(ip), "%s", addr);
    if ((slash = strchr(ip, '/'))) {
        *slash = '\0';
        plen = atoi(slash + 1);
    }
    if (inet_pton(AF_INET, ip, &in) != 1 || plen < 1 || plen > 30) {
        fprintf(stderr, "lwip_host: bad address %s\n", addr);
        return 2;
    }
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigprocmask(SIG_BLOCK, &set, NULL);
    sfd = signalfd(-1, &set, SFD_CLOEXEC);
    h.sim = pz_simclient_connect(sock, ca, err, sizeof(err));
    if (!h.sim || pz_simclient_nodeinfo(h.sim, ni)) {
        fprintf(stderr, "lwip_host: %s\n", h.sim ? "no NodeInfo" : err);
        return 1;
    }
    h.guid = mad_get_field64(ni, 0, IB_NODE_PORT_GUID_F);
    h.dg = board_sim_dgram_connect(sock, ca, 0x0b1b, err, sizeof(err));
    if (!h.dg) {
        fprintf(stderr, "lwip_host: %s\n", err);
        return 1;
    }
    struct pz_ipplane_config cfg = {.addr = ntohl(in.s_addr),
                                    .netmask = (uint32_t)(0xffffffffu << (32 - plen)),
                                    .qpn = board_sim_dgram_qpn(h.dg),
                                    .tid_tag = 0x4c,
                                    .echo = true,
                                    .ip6 = addr6 != NULL,
                                    .port_guid = h.guid};
    if (addr6) {
        char a6[64], *s6;
        snprintf(a6, sizeof(a6), "%s", addr6);
        s6 = strchr(a6, '/');
        cfg.ip6_prefix = 64;
        if (s6) {
            *s6 = '\0';
            cfg.ip6_prefix = (uint8_t)atoi(s6 + 1);
        }
        if (inet_pton(AF_INET6, a6, cfg.ip6_addr) != 1 || cfg.ip6_prefix < 1 ||
            cfg.ip6_prefix > 128) {
            fprintf(stderr, "lwip_host: bad IPv6 address %s\n", addr6);
            return 2;
        }
    }
    h.plane = pz_ipplane_create(&cfg, &host_ops, &h, err, sizeof(err));
    if (!h.plane) {
        fprintf(stderr, "lwip_host: %s\n", err);
        return 1;
    }
    h.udp = pz_udp_open(LOOP_ECHO_PORT, 0, err, sizeof(err));
    h.tcp = h.udp ? pz_tcp_listen(LOOP_ECHO_PORT, LOOP_ECHO_CONNS, err, sizeof(err)) : NULL;
    if (!h.tcp || pz_ipplane_add_input_hook(h.plane, loop_echo_hook, &h)) {
        fprintf(stderr, "lwip_host: %s\n", h.tcp ? "no room for an input hook" : err);
        return 1;
    }
    pz_udp_hooked(h.udp);
    if (join6 && join_group6(join6)) {
        fprintf(stderr, "lwip_host: cannot join %s\n", join6);
        return 1;
    }
    uint64_t next_port = 0;
    for (;;) {
        uint64_t now = now_ms(), d = pz_ipplane_next_deadline(h.plane);
        struct pollfd pfd[6] = {{.fd = board_sim_dgram_fd(h.dg), .events = POLLIN},
                                {.fd = pz_simclient_fd(h.sim), .events = POLLIN},
                                {.fd = pz_ipplane_fd(h.plane), .events = POLLIN},
                                {.fd = sfd, .events = POLLIN},
                                {.fd = pz_udp_fd(h.udp), .events = POLLIN},
                                {.fd = pz_tcp_port_fd(h.tcp), .events = POLLIN}};
        uint8_t buf[4096];
        struct board_dgram_addr a;
        uint16_t slid;
        uint32_t status;
        int n;

        if (next_port < d)
            d = next_port;
        if (poll(pfd, 6, d <= now ? 0 : (int)(d - now)) < 0 && errno != EINTR)
            break;
        now = now_ms();
        if (pfd[3].revents)
            break;
        if (pfd[4].revents)
            loop_echo_udp(&h);
        if (pfd[5].revents)
            loop_echo_tcp(&h);
        while ((n = board_sim_dgram_recv(h.dg, &a, buf, sizeof(buf))) != -EAGAIN) {
            if (n >= 0)
                pz_ipplane_input(h.plane, &a, buf, (size_t)n, now);
            else if (n != -EMSGSIZE && n != -EPROTO)
                goto out; /* the fabric is gone */
        }
        while ((n = pz_simclient_recv(h.sim, buf, &slid, &status)) != -EAGAIN) {
            if (n == 0 && status == 0)
                pz_ipplane_input_sa(h.plane, buf, 256, now);
            else if (n < 0 && n != -EPROTO)
                goto out;
        }
        if (now >= next_port) {
            port_poll(&h, now);
            next_port = now + 200;
        }
        pz_ipplane_poll(h.plane, now);
    }
out:;
    const struct ipoib_stats *s = ipoib_stats(pz_ipplane_endpoint(h.plane));
    printf("rx_packets %llu\ntx_packets %llu\nrx_dropped_ip %llu\n",
           (unsigned long long)s->rx_packets, (unsigned long long)s->tx_packets,
           (unsigned long long)s->rx_dropped_ip);
    struct pz_netif_stats ns = pz_ipplane_netif_stats(h.plane);
    printf("netif_rx_delivered %llu\nnetif_tx_direct %llu\nnetif_tx_queued %llu\n",
           (unsigned long long)ns.rx_delivered, (unsigned long long)ns.tx_direct,
           (unsigned long long)ns.tx_queued);
    printf("udp_hook_echoes %llu\n", h.udp_hook_echoes);
    const struct ipoib6_stats *s6 = ipoib6_stats(pz_ipplane_endpoint(h.plane));
    printf("ip6_rx_packets %llu\nip6_tx_packets %llu\nip6_rx_nd %llu\nip6_tx_nd %llu\n"
           "ip6_rx_dropped_nd %llu\nip6_dad_conflicts %llu\nip6_mcast_joins %llu\n"
           "ip6_rx_dropped_dst %llu\nip6_tx_dropped_no_route %llu\nip6_tx_dropped_mcast %llu\n",
           (unsigned long long)s6->rx_packets, (unsigned long long)s6->tx_packets,
           (unsigned long long)s6->rx_nd, (unsigned long long)s6->tx_nd,
           (unsigned long long)s6->rx_dropped_nd, (unsigned long long)s6->dad_conflicts,
           (unsigned long long)s6->mcast_joins, (unsigned long long)s6->rx_dropped_dst,
           (unsigned long long)s6->tx_dropped_no_route, (unsigned long long)s6->tx_dropped_mcast);
    struct ipoib6_addr a6[8];
    unsigned n6 = pz_ipplane_ip6_addrs(h.plane, a6, 8);
    for (unsigned i = 0; i < n6; i++) {
        char t[46];
        printf("ip6_address %s %s\n", ipoib_ip6_str(a6[i].addr, t),
               a6[i].tentative ? "tentative" : "usable");
    }
    for (unsigned i = 0; i < LOOP_ECHO_CONNS; i++)
        pz_tcp_abort(h.conns[i].c);
    pz_tcp_unlisten(h.tcp);
    pz_udp_close(h.udp);
    pz_ipplane_destroy(h.plane);
    board_sim_dgram_close(h.dg);
    pz_simclient_close(h.sim);
    return 0;
}
