/*
 * cli_show.c - the show commands: version, system, ip.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "board.h"
#include "cli_internal.h"
#include "cli_json.h"
#include "sma.h"
#ifdef PZ_HAVE_IP
#include "ipoib.h"
#include "pz_ipplane.h"
#endif

#ifndef PZ_VERSION
#define PZ_VERSION "0.0.0"
#endif

/* A 64-bit GUID as 0x%016llx text into buf[19]; returns buf. */
static const char *cli_guid_str(uint64_t guid, char buf[19])
{
    snprintf(buf, 19, "0x%016llx", (unsigned long long)guid);
    return buf;
}

int cli_cmd_show_version(const struct cli_env *env, const struct cli_args *a,
                         const struct cli_out *out, struct cli_job **job)
{
    struct cli_json j;
    bool json;

    (void)env;
    (void)job;
    if (cli_json_only(a, "show version [json]", &json, out))
        return CLI_USAGE;
    if (!json) {
        cli_printf(out, "portzero %s (portzerod, the switch management agent)\n", PZ_VERSION);
        return CLI_OK;
    }
    cli_json_begin(&j, out);
    cli_json_str(&j, "name", "portzero");
    cli_json_str(&j, "version", PZ_VERSION);
    cli_json_end(&j);
    return CLI_OK;
}

int cli_cmd_show_system(const struct cli_env *env, const struct cli_args *a,
                        const struct cli_out *out, struct cli_job **job)
{
    const struct board_identity *id = env->board->id;
    uint64_t up = (cli_now_ns() - env->start_ns) / 1000000000u;
    char desc[65], guid[19];
    struct cli_json j;
    bool json;

    (void)job;
    if (cli_json_only(a, "show system [json]", &json, out))
        return CLI_USAGE;
    memcpy(desc, sma_node_description(env->sma), 64);
    desc[64] = '\0';
    if (json) {
        cli_json_begin(&j, out);
        cli_json_str(&j, "node_description", desc);
        cli_json_str(&j, "node_guid", cli_guid_str(id->node_guid, guid));
        cli_json_str(&j, "port0_guid", cli_guid_str(id->port_guid[0], guid));
        cli_json_uint(&j, "ports", id->num_ports);
        cli_json_uint(&j, "lid", sma_lid(env->sma, 0));
        cli_json_uint(&j, "master_sm_lid", sma_master_sm_lid(env->sma, 0));
        cli_json_uint(&j, "uptime_s", up);
        cli_json_end(&j);
        return CLI_OK;
    }
    cli_printf(out, "%-20s %s\n", "Node description", desc);
    cli_printf(out, "%-20s 0x%016llx\n", "Node GUID", (unsigned long long)id->node_guid);
    cli_printf(out, "%-20s 0x%016llx\n", "Port 0 GUID", (unsigned long long)id->port_guid[0]);
    cli_printf(out, "%-20s %u\n", "Ports", id->num_ports);
    cli_printf(out, "%-20s %u\n", "LID", sma_lid(env->sma, 0));
    cli_printf(out, "%-20s %u\n", "Master SM LID", sma_master_sm_lid(env->sma, 0));
    cli_printf(out, "%-20s %llud %02lluh %02llum %02llus\n", "Uptime",
               (unsigned long long)(up / 86400), (unsigned long long)(up / 3600 % 24),
               (unsigned long long)(up / 60 % 60), (unsigned long long)(up % 60));
    return CLI_OK;
}

#ifdef PZ_HAVE_IP
/* CLOCK_MONOTONIC in ms: the IP plane's clock. */
static uint64_t cli_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The join state's name. */
static const char *cli_ipoib_state(enum ipoib_state st)
{
    switch (st) {
    case IPOIB_UP:
        return "up";
    case IPOIB_JOINING:
        return "joining";
    default:
        return "down";
    }
}

/* The neighbour table. */
static void cli_show_neighbours(const struct ipoib *ep, const struct cli_out *out)
{
    struct ipoib_neigh_info nb[64];
    unsigned n = ipoib_neighbours(ep, nb, 64);
    char ip[16];

    cli_printf(out, "\n%-16s %-6s %-3s %-9s %s\n", "Neighbour", "LID", "SL", "QPN", "State");
    for (unsigned i = 0; i < n && i < 64; i++)
        if (!nb[i].v6) /* IPv6 ones: cli_show_ip6 */
            cli_printf(out, "%-16s %-6u %-3u 0x%06x  %s\n", cli_ipv4_str(nb[i].ip, ip), nb[i].lid,
                       nb[i].sl, (unsigned)nb[i].lladdr.qpn,
                       nb[i].resolved ? "resolved" : "resolving");
    if (n > 64)
        cli_printf(out, "(%u more)\n", n - 64);
}

/* `show ip json`: what `show ip` prints, as one JSON object. */
static void cli_show_ip_json(const struct cli_env *env, const struct cli_out *out)
{
    const struct cli_config *cfg = env->cfg;
    const struct ipoib *ep = pz_ipplane_endpoint(env->plane);
    const struct ipoib_stats *st = ipoib_stats(ep);
    struct ipoib_neigh_info nb[64];
    unsigned n = ipoib_neighbours(ep, nb, 64);
    struct cli_json j;
    char ip[16];

    cli_json_begin(&j, out);
    cli_json_str(&j, "address", cli_ipv4_str(cfg->ip_address, ip));
    cli_json_uint(&j, "prefix_len", cfg->prefix_len);
    if (cfg->ip_gateway)
        cli_json_str(&j, "gateway", cli_ipv4_str(cfg->ip_gateway, ip));
    else
        cli_json_null(&j, "gateway");
    cli_json_str(&j, "ipoib_state", cli_ipoib_state(ipoib_state(ep)));
    cli_json_uint(&j, "pkey", cfg->ipoib_pkey | 0x8000);
    if (ipoib_state(ep) == IPOIB_UP) {
        const struct ipoib_group *g = ipoib_group(ep);

        cli_json_uint(&j, "mtu", ipoib_mtu(ep));
        cli_json_uint(&j, "broadcast_mlid", g->mlid);
        cli_json_uint(&j, "qkey", g->qkey);
        cli_json_uint(&j, "sl", g->sl);
    }
    cli_json_uint(&j, "rx_packets", st->rx_packets);
    cli_json_uint(&j, "rx_bytes", st->rx_bytes);
    cli_json_uint(&j, "tx_packets", st->tx_packets);
    cli_json_uint(&j, "tx_bytes", st->tx_bytes);
    cli_json_uint(&j, "joins", st->joins);
    cli_json_uint(&j, "join_failures", st->join_failures);
    cli_json_uint(&j, "rejoins", st->flushes);
    cli_json_array(&j, "neighbours");
    for (unsigned i = 0; i < n && i < 64; i++) {
        if (nb[i].v6)
            continue;
        cli_json_object(&j, NULL);
        cli_json_str(&j, "ip", cli_ipv4_str(nb[i].ip, ip));
        cli_json_uint(&j, "lid", nb[i].lid);
        cli_json_uint(&j, "sl", nb[i].sl);
        cli_json_uint(&j, "qpn", nb[i].lladdr.qpn);
        cli_json_bool(&j, "resolved", nb[i].resolved);
        cli_json_close_object(&j);
    }
    cli_json_close_array(&j);
    cli_show_ip6_json(env, &j, cli_now_ms());
    cli_json_end(&j);
}

int cli_cmd_show_ip(const struct cli_env *env, const struct cli_args *a, const struct cli_out *out,
                    struct cli_job **job)
{
    const struct cli_config *cfg = env->cfg;
    const struct ipoib *ep;
    const struct ipoib_stats *st;
    struct pz_netif_stats ns;
    char ip[16], gw[16];
    struct cli_json j;
    bool json;

    (void)job;
    if (cli_json_only(a, "show ip [json]", &json, out))
        return CLI_USAGE;
    if (!env->plane && json) {
        cli_json_begin(&j, out);
        cli_json_str(&j, "ipoib_state", "off");
        cli_json_end(&j);
        return CLI_OK;
    }
    if (!env->plane) {
        cli_printf(out, "IP plane: off (no ip_address configured)\n");
        return CLI_OK;
    }
    if (json) {
        cli_show_ip_json(env, out);
        return CLI_OK;
    }
    ep = pz_ipplane_endpoint(env->plane);
    st = ipoib_stats(ep);
    ns = pz_ipplane_netif_stats(env->plane);
    cli_printf(out, "%-20s %s/%u\n", "Address", cli_ipv4_str(cfg->ip_address, ip), cfg->prefix_len);
    cli_printf(out, "%-20s %s\n", "Gateway",
               cfg->ip_gateway ? cli_ipv4_str(cfg->ip_gateway, gw) : "none");
    cli_printf(out, "%-20s %s\n", "IPoIB state", cli_ipoib_state(ipoib_state(ep)));
    cli_printf(out, "%-20s 0x%04x\n", "P_Key", cfg->ipoib_pkey | 0x8000);
    if (ipoib_state(ep) == IPOIB_UP) {
        const struct ipoib_group *g = ipoib_group(ep);

        cli_printf(out, "%-20s %u\n", "MTU", ipoib_mtu(ep));
        cli_printf(out, "%-20s 0x%04x (Q_Key 0x%08x, SL %u)\n", "Broadcast MLID", g->mlid,
                   (unsigned)g->qkey, g->sl);
    }
    cli_printf(out, "%-20s %llu packets, %llu bytes\n", "Received",
               (unsigned long long)st->rx_packets, (unsigned long long)st->rx_bytes);
    cli_printf(out, "%-20s %llu packets, %llu bytes\n", "Sent", (unsigned long long)st->tx_packets,
               (unsigned long long)st->tx_bytes);
    cli_printf(out,
               "%-20s %llu unresolved, %llu not joined, lwIP in %llu, out %llu"
               " (%llu taken past a full lwIP mailbox)\n",
               "Dropped", (unsigned long long)st->tx_dropped_unresolved,
               (unsigned long long)(st->tx_dropped_down + st->rx_dropped_down),
               (unsigned long long)ns.rx_dropped, (unsigned long long)ns.tx_dropped,
               (unsigned long long)ns.rx_direct);
    cli_printf(out, "%-20s %llu joins, %llu failures, %llu rejoins\n", "Group",
               (unsigned long long)st->joins, (unsigned long long)st->join_failures,
               (unsigned long long)st->flushes);
    cli_show_neighbours(ep, out);
    cli_show_ip6(env, out, cli_now_ms());
    return CLI_OK;
}
#else
int cli_cmd_show_ip(const struct cli_env *env, const struct cli_args *a, const struct cli_out *out,
                    struct cli_job **job)
{
    (void)env;
    (void)a;
    (void)job;
    cli_printf(out, "IP plane: not built (no lwIP)\n");
    return CLI_OK;
}
#endif
