/*
 * pz_ip_snmp.c - the SNMP agent on the IP plane (see pz_ip_snmp.h).
 *
 * Datagrams: lwIP's receive callback queues them (pz_udp), the loop hands
 * them to the agent (pz_snmp_input) and runs it (pz_snmp_process) on its
 * own thread, which owns the switch state the MIB handlers read: right
 * after the plane took the datagram from the QP (an input hook of the
 * plane), or when pz_udp's descriptor wakes the loop (datagrams lwIP's
 * thread queued).  Answers and traps go out from UDP 161 through
 * pz_udp_send, from this thread straight to the QP.
 */
#include "pz_ip_snmp.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipoib.h"
#include "pz_ipplane.h"
#include "pz_log.h"
#include "pz_routes.h"
#include "pz_snmp.h"
#include "pz_udp.h"
#include "reach.h"

#define PZ_SNMP_PORT 161
#define PZ_SNMP_QUEUE 64
/* The IPoIB interface's row is refreshed this often. */
#define PZ_SNMP_MIF_NS 1000000000ull

struct pz_ip_snmp {
    struct pz_ip_snmp_env env;
    struct pz_udp *udp;
    struct pz_snmp *snmp;
    uint32_t addr; /* the switch's address, for the interface row */
    uint64_t next_mif_ns;
};

/* The agent's peer of a UDP peer (either family; lwIP's zone as the IPv6 scope). */
static struct pz_snmp_peer pz_ip_snmp_peer(const struct pz_udp_addr *a)
{
    struct pz_snmp_peer p = {.addr = a->v4, .port = a->port, .ipv6 = a->ipv6, .scope = a->zone};

    memcpy(p.addr6, a->v6, sizeof(p.addr6));
    return p;
}

/* The agent sends a datagram (an answer or a notification) to a peer of either family. */
static int pz_ip_snmp_send(void *arg, const struct pz_snmp_peer *to, const void *buf, size_t len)
{
    struct pz_ip_snmp *s = arg;
    struct pz_udp_addr a = {.ipv6 = to->ipv6,
                            .v4 = to->addr,
                            .zone = (uint8_t)(to->scope <= 255 ? to->scope : 0),
                            .port = to->port};

    memcpy(a.v6, to->addr6, sizeof(a.v6));
    return pz_udp_send(s->udp, &a, buf, len) ? -1 : 0;
}

/* The IPoIB interface's row from the endpoint's state and counters. */
static void pz_ip_snmp_mgmt_if(struct pz_ip_snmp *s);

/* The last route check into the MIB (pzRouteCheck): a copy of a few numbers. */
static void pz_ip_snmp_route_check(struct pz_ip_snmp *s)
{
    struct pz_routes_summary r;

    if (!s->env.routes)
        return;
    r = pz_routes_last(s->env.routes);
    pz_snmp_set_route_check(s->snmp, &(struct pz_snmp_route_check){.valid = r.valid,
                                                                   .when = r.when,
                                                                   .switches = r.switches,
                                                                   .pairs = r.pairs,
                                                                   .unrouted = r.unrouted,
                                                                   .cycle = r.cycle,
                                                                   .check_us = r.check_us});
}

/* Loop: datagrams arrived on UDP 161: into the agent's queue, then answered. */
static void pz_ip_snmp_on_udp(void *arg, int fd)
{
    struct pz_ip_snmp *s = arg;
    uint8_t buf[8192];
    struct pz_udp_addr from;
    struct pz_snmp_peer peer;
    unsigned taken = 0;
    int n;

    (void)fd;
    while ((n = pz_udp_recv(s->udp, &from, buf, sizeof(buf))) >= 0) {
        peer = pz_ip_snmp_peer(&from);
        pz_snmp_input_now(s->snmp, &peer, buf, (size_t)n); /* processed below */
        taken++;
    }
    if (!taken)
        return; /* an input hook answered them already */
    /* Answer at once (this is the agent's thread), not a poll round later. */
    pz_ip_snmp_mgmt_if(s);
    pz_ip_snmp_route_check(s);
    pz_snmp_process(s->snmp);
}

/* Plane: a datagram went through lwIP on this thread: answer it if it was ours. */
static void pz_ip_snmp_on_input(void *arg)
{
    struct pz_ip_snmp *s = arg;

    if (pz_udp_pending(s->udp))
        pz_ip_snmp_on_udp(s, -1);
}

/* Loop: the agent has datagrams queued: answer them (the interface row current). */
static void pz_ip_snmp_on_queue(void *arg, int fd)
{
    struct pz_ip_snmp *s = arg;

    (void)fd;
    pz_ip_snmp_mgmt_if(s);
    pz_ip_snmp_route_check(s);
    pz_snmp_process(s->snmp);
}

/* The IPoIB interface's row from the endpoint's state and counters. */
static void pz_ip_snmp_mgmt_if(struct pz_ip_snmp *s)
{
    struct pz_snmp_mgmt_if mif = {0};
    const struct ipoib *ep;
    const struct ipoib_stats *st;
    struct ipoib_lladdr ll;

    if (!s->env.plane)
        return;
    ep = pz_ipplane_endpoint(s->env.plane);
    st = ipoib_stats(ep);
    mif.up = ipoib_state(ep) == IPOIB_UP;
    mif.ipv4 = s->addr;
    mif.mtu = ipoib_mtu(ep);
    ipoib_own_lladdr(ep, &ll);
    ipoib_lladdr_pack(&ll, mif.hw_addr);
    mif.in_octets = st->rx_bytes;
    /* Packets through the broadcast group went to the IPoIB broadcast address; those
     * through an IPv6 group (all-nodes, solicited-node, MLD's) are multicast. */
    mif.in_ucast_pkts = st->rx_packets - st->rx_group_packets - st->rx_mcast6_packets;
    mif.in_bcast_pkts = st->rx_group_packets;
    mif.in_mcast_pkts = st->rx_mcast6_packets;
    mif.in_discards = st->rx_dropped_down + st->rx_dropped_qkey + st->rx_dropped_type;
    mif.in_errors =
        st->rx_dropped_short + st->rx_dropped_ip + st->rx_dropped_arp + st->rx_dropped_oversize;
    mif.out_octets = st->tx_bytes;
    mif.out_ucast_pkts = st->tx_packets - st->tx_group_packets - st->tx_mcast6_packets;
    mif.out_bcast_pkts = st->tx_group_packets;
    mif.out_mcast_pkts = st->tx_mcast6_packets;
    mif.out_errors = st->tx_errors;
    mif.out_discards = st->tx_dropped_down + st->tx_dropped_no_route + st->tx_dropped_unresolved +
                       st->tx_dropped_bad;
    pz_snmp_set_mgmt_if(s->snmp, &mif);
    /* coldStart sent before the IPoIB link is up would be lost: it waits. */
    if (mif.up)
        pz_snmp_cold_start(s->snmp);
}

/* Loop: when the agent next has timed work (its alarms, the interface row). */
static uint64_t pz_ip_snmp_deadline(void *arg)
{
    struct pz_ip_snmp *s = arg;
    uint64_t t = pz_loop_now_ns() + (uint64_t)pz_snmp_timeout_ms(s->snmp) * 1000000u;

    return t < s->next_mif_ns ? t : s->next_mif_ns;
}

/* Loop: run the agent's timers (alarms, link and hot-spot scans, storing state). */
static void pz_ip_snmp_on_timer(void *arg, uint64_t now)
{
    struct pz_ip_snmp *s = arg;

    if (now >= s->next_mif_ns) {
        s->next_mif_ns = now + PZ_SNMP_MIF_NS;
        pz_ip_snmp_mgmt_if(s);
    }
    pz_snmp_process(s->snmp);
}

/* Start the agent proper; returns 0 or -1 with a message in err. */
static int pz_ip_snmp_start(struct pz_ip_snmp *s, const struct pz_config *cfg, char *err,
                            size_t errlen)
{
    struct pz_snmp_params p = {
        .config_file = cfg->snmp_config,
        .state_dir = cfg->state_dir,
        .send = pz_ip_snmp_send,
        .send_arg = s,
        .board = s->env.board,
        .sma = s->env.sma,
        .pma = s->env.pma,
        /* The handlers only read it; the monitor stays the agent loop's. */
        .cong = s->env.mon,
        .mgmt_port = 0, /* management through port 0: no external port is the path */
        /* What the UDP port can send: net-snmp answers tooBig (or a shorter GETBULK)
         * beyond it, instead of building an answer the send then refuses. */
        .max_message = PZ_UDP_MAX,
        /* The IPoIB link comes up after the SM's sweep: coldStart waits for it. */
        .defer_cold_start = s->env.plane != NULL,
    };

    s->udp = pz_udp_open(PZ_SNMP_PORT, PZ_SNMP_QUEUE, err, errlen);
    if (!s->udp)
        return -1;
    s->snmp = pz_snmp_create(&p, err, errlen);
    return s->snmp ? 0 : -1;
}

struct pz_ip_snmp *pz_ip_snmp_create(const struct pz_config *cfg, const struct pz_ip_snmp_env *env,
                                     char *err, size_t errlen)
{
    struct pz_ip_snmp *s = calloc(1, sizeof(*s));

    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->env = *env;
    s->addr = cfg->ip_address.addr;
    if (pz_ip_snmp_start(s, cfg, err, errlen) ||
        pz_loop_add_fd(env->loop, pz_udp_fd(s->udp), pz_ip_snmp_on_udp, s) ||
        pz_loop_add_fd(env->loop, pz_snmp_fd(s->snmp), pz_ip_snmp_on_queue, s) ||
        pz_loop_add_timer(env->loop, pz_ip_snmp_deadline, pz_ip_snmp_on_timer, s) ||
        (env->plane && pz_ipplane_add_input_hook(env->plane, pz_ip_snmp_on_input, s))) {
        if (!*err)
            snprintf(err, errlen, "the event loop is full");
        pz_ip_snmp_destroy(s);
        return NULL;
    }
    if (env->plane)
        pz_udp_hooked(s->udp);
    pz_ip_snmp_mgmt_if(s);
    pz_log(PZ_LOG_INFO, "snmp: agent on UDP %u (IPv4%s; config %s, state in %s)", PZ_SNMP_PORT,
           cfg->ip6 ? " and IPv6" : "", cfg->snmp_config, cfg->state_dir);
    return s;
}

void pz_ip_snmp_destroy(struct pz_ip_snmp *s)
{
    if (!s)
        return;
    if (s->env.plane)
        pz_ipplane_remove_input_hooks(s->env.plane, s);
    if (s->udp)
        pz_loop_remove_fd(s->env.loop, pz_udp_fd(s->udp));
    if (s->snmp)
        pz_loop_remove_fd(s->env.loop, pz_snmp_fd(s->snmp));
    pz_loop_remove_timers(s->env.loop, s);
    pz_snmp_destroy(s->snmp);
    pz_udp_close(s->udp);
    free(s);
}

void pz_ip_snmp_set_reach(void *arg, const struct reach_peer *peers, size_t n)
{
    struct pz_ip_snmp *s = arg;
    struct pz_snmp_reach *rows;
    size_t k = 0;

    if (!s)
        return;
    rows = calloc(n ? n : 1, sizeof(*rows));
    if (!rows)
        return;
    /* only peers with a verdict: an unknown or agent-less one has no status in the MIB */
    for (size_t i = 0; i < n; i++) {
        if (peers[i].status != REACH_REACHABLE && peers[i].status != REACH_UNREACHABLE &&
            peers[i].status != REACH_LOST)
            continue;
        rows[k] = (struct pz_snmp_reach){.lid = peers[i].lid,
                                         .node_guid = peers[i].guid,
                                         .reachable = peers[i].status == REACH_REACHABLE,
                                         .lost = peers[i].status == REACH_LOST,
                                         .rtt_us = (uint32_t)(peers[i].rtt_ns / 1000u),
                                         .since_ns = peers[i].since_ns};
        snprintf(rows[k].name, sizeof(rows[k].name), "%.*s", (int)sizeof(rows[k].name) - 1,
                 peers[i].name);
        k++;
    }
    if (pz_snmp_set_reach(s->snmp, rows, k))
        pz_log(PZ_LOG_WARN, "snmp: reachability table not replaced (out of memory)");
    free(rows);
}

struct pz_snmp *pz_ip_snmp_agent(struct pz_ip_snmp *s)
{
    return s ? s->snmp : NULL;
}
