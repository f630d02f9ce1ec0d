/*
 * cli_ib.c - the InfiniBand show commands: interfaces ib (PortInfo, counters),
 * congestion (the dFtree monitor), lft (the LinearForwardingTable); and
 * every one of them as `... json`.
 *
 * Switch state is read as the node's own management software reads it: the
 * SMA's attributes through sma_local_get() (decoded with libibmad's field
 * table, printed as smpquery prints them), the PMA's 64-bit software
 * counters, the congestion monitor's port views.
 */
#include <stdio.h>
#include <string.h>

#include <infiniband/mad.h>

#include "board.h"
#include "cli_internal.h"
#include "cli_json.h"
#include "cong_monitor.h"
#include "pma.h"
#include "sma.h"

/* A port's PortInfo fields as the CLI shows them. */
struct cli_port_info {
    unsigned port;
    char state[32]; /* PortState, e.g. Active */
    char phys[32];  /* PortPhysicalState, e.g. LinkUp */
    char width[32]; /* LinkWidthActive, e.g. 4X */
    char speed[32]; /* LinkSpeedExtActive if any, else LinkSpeedActive, e.g. 10.0 Gbps */
    unsigned mtu;   /* NeighborMTU in bytes */
    uint16_t peer;  /* the peer's LID, 0 unknown */
};

/* One counter of `show interfaces ib PORT counters`: its perfquery name and its place. */
struct cli_counter {
    enum MAD_FIELDS field; /* the libibmad field whose name perfquery prints */
    size_t offset;         /* in struct board_port_counters */
};

#define CLI_CTR(f, m)                                                                              \
    {                                                                                              \
        f, offsetof(struct board_port_counters, m)                                                 \
    }

/* The counters shown, in perfquery's order: PortCounters, then the extended data/packet counters.
 */
static const struct cli_counter cli_counters[] = {
    CLI_CTR(IB_PC_ERR_SYM_F, symbol_errors),
    CLI_CTR(IB_PC_LINK_RECOVERS_F, link_error_recovery),
    CLI_CTR(IB_PC_LINK_DOWNED_F, link_downed),
    CLI_CTR(IB_PC_ERR_RCV_F, rcv_errors),
    CLI_CTR(IB_PC_ERR_PHYSRCV_F, rcv_remote_phys_errors),
    CLI_CTR(IB_PC_ERR_SWITCH_REL_F, rcv_switch_relay_errors),
    CLI_CTR(IB_PC_XMT_DISCARDS_F, xmit_discards),
    CLI_CTR(IB_PC_ERR_XMTCONSTR_F, xmit_constraint_errors),
    CLI_CTR(IB_PC_ERR_RCVCONSTR_F, rcv_constraint_errors),
    CLI_CTR(IB_PC_ERR_LOCALINTEG_F, local_link_integrity_errors),
    CLI_CTR(IB_PC_ERR_EXCESS_OVR_F, excessive_buffer_overrun_errors),
    CLI_CTR(IB_PC_VL15_DROPPED_F, vl15_dropped),
    CLI_CTR(IB_PC_XMT_WAIT_F, xmit_wait),
    CLI_CTR(IB_PC_EXT_XMT_BYTES_F, xmit_data),
    CLI_CTR(IB_PC_EXT_RCV_BYTES_F, rcv_data),
    CLI_CTR(IB_PC_EXT_XMT_PKTS_F, xmit_pkts),
    CLI_CTR(IB_PC_EXT_RCV_PKTS_F, rcv_pkts),
    CLI_CTR(IB_PC_EXT_XMT_UPKTS_F, unicast_xmit_pkts),
    CLI_CTR(IB_PC_EXT_RCV_UPKTS_F, unicast_rcv_pkts),
    CLI_CTR(IB_PC_EXT_XMT_MPKTS_F, multicast_xmit_pkts),
    CLI_CTR(IB_PC_EXT_RCV_MPKTS_F, multicast_rcv_pkts),
};

#define CLI_NCOUNTERS (sizeof(cli_counters) / sizeof(cli_counters[0]))

/* The words of a show command without a trailing "json"; sets *json. */
static struct cli_args cli_strip_json(const struct cli_args *a, bool *json)
{
    struct cli_args r = *a;

    *json = r.argc && !strcmp(r.argv[r.argc - 1], "json");
    if (*json)
        r.argc--;
    return r;
}

/* Parse a port number of this switch (1..num_ports); prints why not. */
static int cli_parse_port(const struct cli_env *env, const char *s, const struct cli_out *out,
                          unsigned *port)
{
    if (!cli_parse_uint(s, 1, env->board->id->num_ports, port))
        return 0;
    cli_printf(out, "%% bad port: %s (1..%u)\n", s, env->board->id->num_ports);
    return -1;
}

/*
 * Decode one PortInfo field into text as smpquery prints it; a width or
 * speed of 0 (no link trained) is "-" (libibmad would warn on stderr).
 */
static void cli_pi_field(const uint8_t *pi, enum MAD_FIELDS f, char *buf, int len)
{
    uint32_t v = mad_get_field((void *)pi, 0, f);

    if (!v && f != IB_PORT_STATE_F && f != IB_PORT_PHYS_STATE_F)
        snprintf(buf, (size_t)len, "-");
    else
        mad_dump_val(f, buf, len, &v);
}

/* LinearFDBTop of the switch. */
static unsigned cli_lft_top(const struct cli_env *env)
{
    uint8_t si[64];

    if (sma_local_get(env->sma, 0, IB_ATTR_SWITCH_INFO, 0, si))
        return 0;
    return mad_get_field(si, 0, IB_SW_LINEAR_FDB_TOP_F);
}

/* One LFT block (64 entries) through the SMA; returns 0 or -1. */
static int cli_lft_block(const struct cli_env *env, unsigned block, uint8_t e[BOARD_LFT_BLOCK])
{
    uint8_t d[64];

    if (sma_local_get(env->sma, 0, IB_ATTR_LINEARFORWTBL, block, d))
        return -1;
    memcpy(e, d, BOARD_LFT_BLOCK);
    return 0;
}

/* Whether the monitor knows port faces a CA. */
static bool cli_faces_ca(const struct cli_env *env, unsigned port)
{
    struct cong_port_view v;

    return env->mon && !cong_monitor_port(env->mon, port, &v) && v.peer == CONG_PEER_CA;
}

/*
 * The peers' LIDs, known for ports that face a CA: a CA forwards nothing,
 * so every LID the LFT routes out of such a port is the CA's own; the
 * lowest is its base LID.  peer[port] = 0 where unknown.
 */
static void cli_peer_lids(const struct cli_env *env, uint16_t peer[BOARD_MAX_PORTS + 1])
{
    unsigned top = cli_lft_top(env);
    uint8_t e[BOARD_LFT_BLOCK];

    memset(peer, 0, sizeof(uint16_t) * (BOARD_MAX_PORTS + 1));
    if (!env->mon)
        return;
    for (unsigned lid = 1; lid <= top; lid++) {
        unsigned p;

        if ((lid == 1 || lid % BOARD_LFT_BLOCK == 0) &&
            cli_lft_block(env, lid / BOARD_LFT_BLOCK, e))
            return;
        p = e[lid % BOARD_LFT_BLOCK];
        if (p >= 1 && p <= BOARD_MAX_PORTS && !peer[p] && cli_faces_ca(env, p))
            peer[p] = (uint16_t)lid;
    }
}

/* Read port's PortInfo into *pi; returns 0 or -1. */
static int cli_port_info(const struct cli_env *env, unsigned port, struct cli_port_info *pi)
{
    uint8_t d[64];
    unsigned ext;

    if (sma_local_get(env->sma, 0, IB_ATTR_PORT_INFO, port, d))
        return -1;
    pi->port = port;
    cli_pi_field(d, IB_PORT_STATE_F, pi->state, sizeof(pi->state));
    cli_pi_field(d, IB_PORT_PHYS_STATE_F, pi->phys, sizeof(pi->phys));
    cli_pi_field(d, IB_PORT_LINK_WIDTH_ACTIVE_F, pi->width, sizeof(pi->width));
    ext = mad_get_field(d, 0, IB_PORT_LINK_SPEED_EXT_ACTIVE_F);
    cli_pi_field(d, ext ? IB_PORT_LINK_SPEED_EXT_ACTIVE_F : IB_PORT_LINK_SPEED_ACTIVE_F, pi->speed,
                 sizeof(pi->speed));
    pi->mtu = 128u << mad_get_field(d, 0, IB_PORT_NEIGHBOR_MTU_F);
    pi->peer = 0;
    return 0;
}

/* One port's line of `show interfaces ib`. */
static void cli_port_line(const struct cli_port_info *pi, const struct cli_out *out)
{
    char peer[8] = "";

    if (pi->peer)
        snprintf(peer, sizeof(peer), "%u", pi->peer);
    cli_printf(out, "%-4u %-12s %-20s %-5s %-13s %-8s %u\n", pi->port, pi->state, pi->phys,
               pi->width, pi->speed, peer, pi->mtu);
}

/* One port's object of `show interfaces ib json`. */
static void cli_port_json(const struct cli_port_info *pi, struct cli_json *j)
{
    cli_json_object(j, NULL);
    cli_json_uint(j, "port", pi->port);
    cli_json_str(j, "state", pi->state);
    cli_json_str(j, "phys_state", pi->phys);
    cli_json_str(j, "width", pi->width);
    cli_json_str(j, "speed", pi->speed);
    if (pi->peer)
        cli_json_uint(j, "peer_lid", pi->peer);
    else
        cli_json_null(j, "peer_lid");
    cli_json_uint(j, "mtu", pi->mtu);
    cli_json_close_object(j);
}

/* `show interfaces ib [PORT] [json]`: ports first..last. */
static int cli_show_ports(const struct cli_env *env, unsigned first, unsigned last, bool json,
                          const struct cli_out *out)
{
    uint16_t peer[BOARD_MAX_PORTS + 1];
    struct cli_port_info pi;
    struct cli_json j;

    cli_peer_lids(env, peer);
    if (json) {
        cli_json_begin(&j, out);
        cli_json_array(&j, "ports");
    } else {
        cli_printf(out, "%-4s %-12s %-20s %-5s %-13s %-8s %s\n", "Port", "State", "Phys state",
                   "Width", "Speed", "Peer LID", "MTU");
    }
    for (unsigned p = first; p <= last; p++) {
        if (cli_port_info(env, p, &pi)) {
            cli_printf(out, "%% port %u: PortInfo unreadable\n", p);
            return CLI_FAILED;
        }
        pi.peer = peer[p];
        if (json)
            cli_port_json(&pi, &j);
        else
            cli_port_line(&pi, out);
    }
    if (json) {
        cli_json_close_array(&j);
        cli_json_end(&j);
    }
    return CLI_OK;
}

/* `show interfaces ib PORT counters [json]`: port's counters since their last reset. */
static int cli_show_counters(const struct cli_env *env, unsigned port, bool json,
                             const struct cli_out *out)
{
    struct pma_counters c;
    struct cli_json j;

    if (!env->pma || pma_port_counters_since_reset(env->pma, port, &c)) {
        cli_printf(out, "%% port %u: no counters\n", port);
        return CLI_FAILED;
    }
    if (json) {
        cli_json_begin(&j, out);
        cli_json_uint(&j, "port", port);
        cli_json_object(&j, "counters");
    } else {
        cli_printf(out, "Port %u counters (since the last clear)\n", port);
    }
    for (size_t i = 0; i < CLI_NCOUNTERS; i++) {
        const char *name = mad_field_name(cli_counters[i].field);
        uint64_t v;

        memcpy(&v, (const uint8_t *)&c.total + cli_counters[i].offset, sizeof(v));
        if (json)
            cli_json_uint(&j, name, v);
        else
            cli_printf(out, "%-32s %llu\n", name, (unsigned long long)v);
    }
    if (json) {
        cli_json_close_object(&j);
        cli_json_end(&j);
    }
    return CLI_OK;
}

int cli_cmd_show_interfaces_ib(const struct cli_env *env, const struct cli_args *a,
                               const struct cli_out *out, struct cli_job **job)
{
    bool json;
    struct cli_args r = cli_strip_json(a, &json);
    unsigned port;

    (void)job;
    if (!r.argc)
        return cli_show_ports(env, 1, env->board->id->num_ports, json, out);
    if (r.argc > 2 || (r.argc == 2 && strcmp(r.argv[1], "counters"))) {
        cli_printf(out, "%% usage: show interfaces ib [PORT [counters]] [json]\n");
        return CLI_USAGE;
    }
    if (cli_parse_port(env, r.argv[0], out, &port))
        return CLI_USAGE;
    if (r.argc == 2)
        return cli_show_counters(env, port, json, out);
    return cli_show_ports(env, port, port, json, out);
}

/* `clear counters [PORT]`: a PortCounters and PortCountersExtended reset of every counter
 * of PORT (every port without one), as perfquery -R does. */
int cli_cmd_clear_counters(const struct cli_env *env, const struct cli_args *a,
                           const struct cli_out *out, struct cli_job **job)
{
    unsigned port = PMA_ALL_PORTS;

    (void)job;
    if (a->argc > 1) {
        cli_printf(out, "%% usage: clear counters [PORT]\n");
        return CLI_USAGE;
    }
    if (a->argc == 1 && cli_parse_port(env, a->argv[0], out, &port))
        return CLI_USAGE;
    if (!env->pma || pma_clear_counters(env->pma, port)) {
        cli_printf(out, "%% no counters to clear\n");
        return CLI_FAILED;
    }
    if (port == PMA_ALL_PORTS)
        cli_printf(out, "Counters cleared on every port\n");
    else
        cli_printf(out, "Counters cleared on port %u\n", port);
    return CLI_OK;
}

/* Seconds since board time t (0 when t is in the future). */
static uint64_t cli_secs_since(const struct cli_env *env, uint64_t t)
{
    uint64_t now = board_now_ns(env->board);

    return now > t ? (now - t) / 1000000000u : 0;
}

/* The peer's name for `show congestion`. */
static const char *cli_peer_name(uint8_t peer)
{
    return peer == CONG_PEER_CA ? "ca" : peer == CONG_PEER_SWITCH ? "switch" : "unknown";
}

/* One port of `show congestion`, as a line or an object. */
static void cli_congestion_port(const struct cli_env *env, unsigned port,
                                const struct cong_port_view *v, struct cli_json *j,
                                const struct cli_out *out)
{
    const char *cls = cong_port_class_name((enum cong_port_class)v->cls);
    uint64_t since = cli_secs_since(env, v->since_ns);

    if (!j) {
        cli_printf(out, "%-4u %-10s %-8s %14llu %6u.%u%% %10llus\n", port, cls,
                   cli_peer_name(v->peer), (unsigned long long)v->last.congestion,
                   v->last.util_permille / 10, v->last.util_permille % 10,
                   (unsigned long long)since);
        return;
    }
    cli_json_object(j, NULL);
    cli_json_uint(j, "port", port);
    cli_json_str(j, "class", cls);
    cli_json_str(j, "peer", cli_peer_name(v->peer));
    cli_json_bool(j, "valid", v->valid);
    cli_json_uint(j, "congestion_ticks_per_s", v->last.congestion);
    cli_json_uint(j, "bandwidth_bytes_per_s", v->last.bandwidth);
    cli_json_fixed(j, "utilisation_percent", v->last.util_permille, 1);
    cli_json_uint(j, "since_s", since);
    cli_json_uint(j, "changes", v->changes);
    cli_json_close_object(j);
}

int cli_cmd_show_congestion(const struct cli_env *env, const struct cli_args *a,
                            const struct cli_out *out, struct cli_job **job)
{
    bool json;
    struct cli_args r = cli_strip_json(a, &json);
    const struct cong_monitor *m;
    unsigned first = 1, last;
    struct cli_json j;

    (void)job;
    if (r.argc > 1) {
        cli_printf(out, "%% usage: show congestion [PORT] [json]\n");
        return CLI_USAGE;
    }
    if (r.argc && cli_parse_port(env, r.argv[0], out, &first))
        return CLI_USAGE;
    if (!env->mon) {
        if (json)
            cli_printf(out, "{\"monitor\":\"off\"}\n");
        else
            cli_printf(out, "Congestion monitor: off\n");
        return CLI_OK;
    }
    m = env->mon;
    last = r.argc ? first : cong_monitor_num_ports(m);
    if (json) {
        cli_json_begin(&j, out);
        cli_json_str(&j, "monitor", "on");
        cli_json_uint(&j, "samples", cong_monitor_samples(m));
        cli_json_array(&j, "ports");
    } else {
        cli_printf(out, "%-4s %-10s %-8s %14s %8s %11s\n", "Port", "Class", "Peer", "Ticks/s",
                   "Util", "Since");
    }
    for (unsigned p = first; p <= last; p++) {
        struct cong_port_view v;

        if (!cong_monitor_port(m, p, &v))
            cli_congestion_port(env, p, &v, json ? &j : NULL, out);
    }
    if (json) {
        cli_json_close_array(&j);
        cli_json_end(&j);
    }
    return CLI_OK;
}

/* One LFT entry, as a line or an object. */
static void cli_lft_entry(unsigned lid, unsigned port, struct cli_json *j,
                          const struct cli_out *out)
{
    if (!j) {
        if (port == BOARD_LFT_DROP)
            cli_printf(out, "%-6u drop\n", lid);
        else
            cli_printf(out, "%-6u %u\n", lid, port);
        return;
    }
    cli_json_object(j, NULL);
    cli_json_uint(j, "lid", lid);
    if (port == BOARD_LFT_DROP)
        cli_json_null(j, "port");
    else
        cli_json_uint(j, "port", port);
    cli_json_close_object(j);
}

/* The LFT entries first..last; drops only when one LID was asked for. */
static int cli_lft_range(const struct cli_env *env, unsigned first, unsigned last, bool drops,
                         struct cli_json *j, const struct cli_out *out)
{
    uint8_t e[BOARD_LFT_BLOCK];

    for (unsigned lid = first; lid <= last; lid++) {
        if ((lid == first || lid % BOARD_LFT_BLOCK == 0) &&
            cli_lft_block(env, lid / BOARD_LFT_BLOCK, e)) {
            cli_printf(out, "%% LFT block %u unreadable\n", lid / BOARD_LFT_BLOCK);
            return CLI_FAILED;
        }
        if (drops || e[lid % BOARD_LFT_BLOCK] != BOARD_LFT_DROP)
            cli_lft_entry(lid, e[lid % BOARD_LFT_BLOCK], j, out);
    }
    return CLI_OK;
}

int cli_cmd_show_lft(const struct cli_env *env, const struct cli_args *a, const struct cli_out *out,
                     struct cli_job **job)
{
    bool json;
    struct cli_args r = cli_strip_json(a, &json);
    unsigned top = cli_lft_top(env), lid = 0;
    struct cli_json j;
    int rc;

    (void)job;
    if (r.argc > 1 || (r.argc && cli_parse_uint(r.argv[0], 0, 0xBFFF, &lid))) {
        cli_printf(out, "%% usage: show lft [LID] [json] (LID 0..49151)\n");
        return CLI_USAGE;
    }
    if (r.argc && lid >= env->board->id->lft_cap) {
        cli_printf(out, "%% LID %u beyond LinearFDBCap %u\n", lid, env->board->id->lft_cap);
        return CLI_FAILED;
    }
    if (json) {
        cli_json_begin(&j, out);
        cli_json_uint(&j, "linear_fdb_top", top);
        cli_json_array(&j, "entries");
    } else {
        cli_printf(out, "LinearFDBTop %u\n%-6s %s\n", top, "LID", "Port");
    }
    if (r.argc)
        rc = cli_lft_range(env, lid, lid, true, json ? &j : NULL, out);
    else
        rc = cli_lft_range(env, 0, top, false, json ? &j : NULL, out);
    if (json) {
        cli_json_close_array(&j);
        cli_json_end(&j);
    }
    return rc;
}
