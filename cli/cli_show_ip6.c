/*
 * cli_show_ip6.c - the IPv6 part of `show ip` (and of `show ip json`): the
 * addresses lwIP holds, the gateway and the routers RAs named, the IPv6
 * groups with their MGIDs and MLIDs, the IPv6 neighbours, the counters.
 */
#include <stdio.h>
#include <string.h>

#include "cli_internal.h"
#include "cli_json.h"

#ifdef PZ_HAVE_IP
#include "ipoib6.h"
#include "pz_ipplane.h"

#define SHOW6_MAX 32

/* A group's join state as one word. */
static const char *group_state(enum ipoib_mcast6_state st)
{
    switch (st) {
    case IPOIB_MCAST6_UP:
        return "joined";
    case IPOIB_MCAST6_JOINING:
        return "joining";
    default:
        return "waiting";
    }
}

/* An address's state as one word (RFC 4862's names). */
static const char *addr_state(enum pz_ip6_state st)
{
    switch (st) {
    case PZ_IP6_TENTATIVE:
        return "tentative";
    case PZ_IP6_DEPRECATED:
        return "deprecated";
    default:
        return "preferred";
    }
}

/* A lifetime left as text: "forever" or "<seconds> s"; returns buf. */
static const char *life_str(uint32_t life, char *buf, size_t size)
{
    if (life == PZ_IP6_LIFE_INFINITE)
        snprintf(buf, size, "forever");
    else
        snprintf(buf, size, "%u s", (unsigned)life);
    return buf;
}

/* One address: "<addr>/<len> (<state>)", with SLAAC's lifetimes left. */
static void show_addr(const struct pz_netif6_addr_info *a, bool first, const struct cli_out *out)
{
    char t[46], valid[24], pref[24];

    if (!a->autoconf) {
        cli_printf(out, "%-20s %s/%u (%s)\n", first ? "IPv6 address" : "",
                   ipoib_ip6_str(a->addr, t), a->prefix_len, addr_state(a->state));
        return;
    }
    cli_printf(out, "%-20s %s/%u (%s, SLAAC, valid %s, preferred %s)\n",
               first ? "IPv6 address" : "", ipoib_ip6_str(a->addr, t), a->prefix_len,
               addr_state(a->state), life_str(a->valid_life, valid, sizeof(valid)),
               life_str(a->pref_life, pref, sizeof(pref)));
}

/* The addresses, gateway and routers. */
static void show_addrs(const struct cli_env *env, const struct cli_out *out, uint64_t now)
{
    struct pz_netif6_addr_info a[IPOIB6_ADDRS_MAX];
    uint8_t routers[IPOIB6_ROUTERS_MAX][16];
    unsigned n = pz_ipplane_ip6_addr_info(env->plane, a, IPOIB6_ADDRS_MAX);
    unsigned nr = ipoib6_routers(pz_ipplane_endpoint(env->plane), routers, IPOIB6_ROUTERS_MAX, now);
    char t[46];

    for (unsigned i = 0; i < n; i++)
        show_addr(&a[i], i == 0, out);
    if (!n)
        cli_printf(out, "%-20s none\n", "IPv6 address");
    cli_printf(out, "%-20s %s\n", "IPv6 gateway",
               env->cfg->has_ip6_gateway ? ipoib_ip6_str(env->cfg->ip6_gateway, t) : "none");
    for (unsigned i = 0; i < nr && i < IPOIB6_ROUTERS_MAX; i++)
        cli_printf(out, "%-20s %s\n", i ? "" : "IPv6 routers (RA)", ipoib_ip6_str(routers[i], t));
}

/* The counters of the IPv6 half. */
static void show_counters(const struct ipoib6_stats *s, const struct cli_out *out)
{
    cli_printf(out, "%-20s %llu in, %llu out\n", "IPv6 packets", (unsigned long long)s->rx_packets,
               (unsigned long long)s->tx_packets);
    cli_printf(out, "%-20s %llu in, %llu out, %llu malformed, %llu duplicate address(es)\n",
               "Neighbour discovery", (unsigned long long)s->rx_nd, (unsigned long long)s->tx_nd,
               (unsigned long long)s->rx_dropped_nd, (unsigned long long)s->dad_conflicts);
    cli_printf(out, "%-20s %llu joins, %llu refused, %llu leaves\n", "IPv6 groups",
               (unsigned long long)s->mcast_joins, (unsigned long long)s->mcast_join_failures,
               (unsigned long long)s->mcast_leaves);
}

/* The groups: address, MGID, MLID, membership, state. */
static void show_groups(const struct ipoib *ep, const struct cli_out *out)
{
    struct ipoib6_group_info g[SHOW6_MAX];
    unsigned n = ipoib6_groups(ep, g, SHOW6_MAX);
    char t[46], m[46];

    cli_printf(out, "\n%-26s %-32s %-7s %-9s %s\n", "IPv6 group", "MGID", "MLID", "Member",
               "State");
    for (unsigned i = 0; i < n && i < SHOW6_MAX; i++)
        cli_printf(out, "%-26s %-32s 0x%04x  %-9s %s\n", ipoib_ip6_str(g[i].group, t),
                   ipoib_ip6_str(g[i].mgid, m), g[i].mlid, g[i].sendonly ? "send-only" : "full",
                   group_state(g[i].state));
}

/* The IPv6 entries of the neighbour table. */
static void show_neighbours(const struct ipoib *ep, const struct cli_out *out)
{
    struct ipoib_neigh_info nb[64];
    unsigned n = ipoib_neighbours(ep, nb, 64);
    char t[46];

    cli_printf(out, "\n%-26s %-6s %-3s %-9s %s\n", "IPv6 neighbour", "LID", "SL", "QPN", "State");
    for (unsigned i = 0; i < n && i < 64; i++)
        if (nb[i].v6)
            cli_printf(out, "%-26s %-6u %-3u 0x%06x  %s\n", ipoib_ip6_str(nb[i].ip6, t), nb[i].lid,
                       nb[i].sl, (unsigned)nb[i].lladdr.qpn,
                       nb[i].resolved ? "resolved" : "resolving");
}

void cli_show_ip6(const struct cli_env *env, const struct cli_out *out, uint64_t now)
{
    const struct ipoib *ep = pz_ipplane_endpoint(env->plane);

    if (!env->cfg->ip6)
        return;
    cli_printf(out, "\n");
    show_addrs(env, out, now);
    show_counters(ipoib6_stats(ep), out);
    show_groups(ep, out);
    show_neighbours(ep, out);
}

void cli_show_ip6_json(const struct cli_env *env, struct cli_json *j, uint64_t now)
{
    const struct ipoib *ep = pz_ipplane_endpoint(env->plane);
    const struct ipoib6_stats *s = ipoib6_stats(ep);
    struct pz_netif6_addr_info a[IPOIB6_ADDRS_MAX];
    struct ipoib6_group_info g[SHOW6_MAX];
    unsigned n, ng;
    char t[46];

    if (!env->cfg->ip6)
        return;
    n = pz_ipplane_ip6_addr_info(env->plane, a, IPOIB6_ADDRS_MAX);
    ng = ipoib6_groups(ep, g, SHOW6_MAX);
    (void)now;
    cli_json_object(j, "ipv6");
    cli_json_array(j, "addresses");
    for (unsigned i = 0; i < n; i++) {
        cli_json_object(j, NULL);
        cli_json_str(j, "address", ipoib_ip6_str(a[i].addr, t));
        cli_json_uint(j, "prefix_len", a[i].prefix_len);
        cli_json_str(j, "state", addr_state(a[i].state));
        cli_json_str(j, "origin", a[i].autoconf ? "slaac" : "static");
        if (a[i].autoconf) { /* seconds left; 4294967295: infinite, as in an RA */
            cli_json_uint(j, "valid_lifetime", a[i].valid_life);
            cli_json_uint(j, "preferred_lifetime", a[i].pref_life);
        }
        cli_json_close_object(j);
    }
    cli_json_close_array(j);
    cli_json_array(j, "groups");
    for (unsigned i = 0; i < ng && i < SHOW6_MAX; i++) {
        cli_json_object(j, NULL);
        cli_json_str(j, "group", ipoib_ip6_str(g[i].group, t));
        cli_json_str(j, "mgid", ipoib_ip6_str(g[i].mgid, t));
        cli_json_uint(j, "mlid", g[i].mlid);
        cli_json_bool(j, "send_only", g[i].sendonly);
        cli_json_str(j, "state", group_state(g[i].state));
        cli_json_close_object(j);
    }
    cli_json_close_array(j);
    cli_json_uint(j, "rx_packets", s->rx_packets);
    cli_json_uint(j, "tx_packets", s->tx_packets);
    cli_json_uint(j, "nd_in", s->rx_nd);
    cli_json_uint(j, "nd_out", s->tx_nd);
    cli_json_uint(j, "nd_malformed", s->rx_dropped_nd);
    cli_json_uint(j, "dad_conflicts", s->dad_conflicts);
    cli_json_close_object(j);
}
#endif
