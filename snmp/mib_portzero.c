/*
 * mib_portzero.c - PORTZERO-MIB (mibs/PORTZERO-MIB.txt): the switch
 * scalars (LIDs, GUID), the InfiniBand port table (PortInfo state and
 * every PortCounters error counter, PortXmitWait), the congestion monitor
 * table and its writable settings, and the switch-to-switch reachability
 * table the caller fills (pz_snmp_set_reach).
 */
#include <string.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>

#include "cong_monitor.h"
#include "sma.h"
#include "snmp_mib.h"
#include "snmp_oids.h"
#include "snmp_port.h"

static const oid pz_switch_oid[] = {PZ_OID_SWITCH};
static const oid pz_port_table_oid[] = {PZ_OID_ROOT, 1, 2};
static const oid pz_cong_table_oid[] = {PZ_OID_ROOT, 1, 3};
static const oid pz_settings_oid[] = {PZ_OID_CONG_SETTINGS};
static const oid pz_reach_table_oid[] = {PZ_OID_ROOT, 1, 5};

/* Set var to an unsigned value of type (Gauge32, Unsigned32, TimeTicks). */
static void pz_set_u32(netsnmp_variable_list *var, u_char type, uint64_t v)
{
    u_long u = (u_long)(v > 0xFFFFFFFFu ? 0xFFFFFFFFu : v);

    snmp_set_var_typed_value(var, type, &u, sizeof(u));
}

/* Set var to an INTEGER. */
static void pz_set_int(netsnmp_variable_list *var, long v)
{
    snmp_set_var_typed_value(var, ASN_INTEGER, &v, sizeof(v));
}

/* Set var to a Counter64. */
static void pz_set_c64(netsnmp_variable_list *var, uint64_t v)
{
    struct counter64 c = {.high = (u_long)(v >> 32), .low = (u_long)(v & 0xFFFFFFFFu)};

    snmp_set_var_typed_value(var, ASN_COUNTER64, &c, sizeof(c));
}

/* sysUpTime (centiseconds) of a board time in the past, 0 if before the agent started. */
static uint32_t pz_uptime_of(struct pz_snmp *s, uint64_t board_ns)
{
    uint64_t now = board_now_ns(s->p.board);
    uint64_t ago_cs = now > board_ns ? (now - board_ns) / 10000000u : 0;
    uint32_t up = snmp_uptime();

    return ago_cs >= up ? 0 : up - (uint32_t)ago_cs;
}

/* Iterator over external ports 1..num_ports (loop and data context: the port). */
static netsnmp_variable_list *pz_port_next(void **loop, void **data, netsnmp_variable_list *index,
                                           netsnmp_iterator_info *info)
{
    const struct pz_snmp *s = info->myvoid;

    return snmp_mib_row_next(loop, data, index, (long)s->num_ports);
}

/* Iterator: the first port. */
static netsnmp_variable_list *pz_port_first(void **loop, void **data, netsnmp_variable_list *index,
                                            netsnmp_iterator_info *info)
{
    *loop = NULL;
    return pz_port_next(loop, data, index, info);
}

/* What a port whose counters cannot be read shows. */
static const struct board_port_counters pz_no_counters;

/* One PortCounters error counter (or XmitWait) of pzIbPortEntry column col. */
static bool pz_port_counter(const struct board_port_counters *c, unsigned col, uint64_t *v)
{
    const uint64_t values[] = {
        c->symbol_errors,
        c->link_error_recovery,
        c->link_downed,
        c->rcv_errors,
        c->rcv_remote_phys_errors,
        c->rcv_switch_relay_errors,
        c->xmit_discards,
        c->xmit_constraint_errors,
        c->rcv_constraint_errors,
        c->local_link_integrity_errors,
        c->excessive_buffer_overrun_errors,
        c->vl15_dropped,
        c->xmit_wait,
    };

    if (col < 12 || col >= 12 + sizeof(values) / sizeof(values[0]))
        return false;
    *v = values[col - 12];
    return true;
}

/* Fill pzIbPortEntry column col of port; false for no such column. */
static bool pz_port_value(struct pz_snmp *s, unsigned port, unsigned col,
                          netsnmp_variable_list *var)
{
    const struct snmp_port_snap *ps = snmp_port_snap(s, port);
    const struct board_port_counters *c;
    uint64_t v;

    if (!ps)
        return false;
    switch (col) {
    case 2:
        pz_set_u32(var, ASN_UNSIGNED,
                   sma_lid(s->p.sma, 0)); /* a switch's ports share port 0's LID */
        return true;
    case 3:
        pz_set_u32(var, ASN_UNSIGNED, ps->cfg.width_enabled);
        return true;
    case 4:
        pz_set_u32(var, ASN_UNSIGNED, ps->st.width_active);
        return true;
    case 5:
        pz_set_u32(var, ASN_UNSIGNED, ps->cfg.speed_enabled);
        return true;
    case 6:
        pz_set_u32(var, ASN_UNSIGNED, ps->st.speed_active);
        return true;
    case 7:
        pz_set_u32(var, ASN_UNSIGNED, ps->st.speed_ext_active);
        return true;
    case 8:
        pz_set_int(var, ps->st.port_state);
        return true;
    case 9:
        pz_set_int(var, ps->st.phys_state);
        return true;
    case 10:
        pz_set_u32(var, ASN_UNSIGNED, ps->cfg.oper_vls);
        return true;
    case 11:
        pz_set_u32(var, ASN_UNSIGNED,
                   ps->cfg.neighbor_mtu >= 1 && ps->cfg.neighbor_mtu <= 5
                       ? 128u << ps->cfg.neighbor_mtu
                       : 0);
        return true;
    }
    c = snmp_port_counters(s, port); /* unreadable: zeros, as IF-MIB's columns */
    if (!pz_port_counter(c ? c : &pz_no_counters, col, &v))
        return false;
    pz_set_c64(var, v);
    return true;
}

/* Fill pzCongEntry column col of port; false for no such column. */
static bool pz_cong_value(struct pz_snmp *s, unsigned port, unsigned col,
                          netsnmp_variable_list *var)
{
    struct cong_port_view v;

    if (!s->p.cong || cong_monitor_port(s->p.cong, port, &v) != 0)
        return false;
    switch (col) {
    case PZ_CONG_CLASS:
        pz_set_int(var, v.cls);
        return true;
    case PZ_CONG_TICKS:
        pz_set_u32(var, ASN_GAUGE, v.last.congestion);
        return true;
    case PZ_CONG_UTIL:
        pz_set_u32(var, ASN_GAUGE, v.last.util_permille);
        return true;
    case PZ_CONG_SINCE:
        pz_set_u32(var, ASN_TIMETICKS, v.changes ? pz_uptime_of(s, v.since_ns) : 0);
        return true;
    case PZ_CONG_PEER:
        pz_set_int(var, v.peer);
        return true;
    }
    return false;
}

/* GET handler of the two port-indexed tables (read-only). */
static int pz_port_handler(netsnmp_mib_handler *handler, netsnmp_handler_registration *reg,
                           netsnmp_agent_request_info *reqinfo, netsnmp_request_info *requests)
{
    struct pz_snmp *s = reg->my_reg_void;
    bool cong = netsnmp_oid_equals(reg->rootoid, reg->rootoid_len, pz_cong_table_oid,
                                   OID_LENGTH(pz_cong_table_oid)) == 0;

    (void)handler;
    if (reqinfo->mode != MODE_GET)
        return SNMP_ERR_NOERROR;
    for (netsnmp_request_info *r = requests; r; r = r->next) {
        netsnmp_table_request_info *ti = netsnmp_extract_table_info(r);
        unsigned port = (unsigned)(uintptr_t)netsnmp_extract_iterator_context(r);
        bool ok;

        if (r->processed || !ti)
            continue;
        ok = port && (cong ? pz_cong_value(s, port, ti->colnum, r->requestvb)
                           : pz_port_value(s, port, ti->colnum, r->requestvb));
        if (!ok)
            netsnmp_set_request_error(reqinfo, r, SNMP_NOSUCHINSTANCE);
    }
    return SNMP_ERR_NOERROR;
}

/* Iterator over the reachability entries (loop context: entry number + 1). */
static netsnmp_variable_list *pz_reach_next(void **loop, void **data, netsnmp_variable_list *index,
                                            netsnmp_iterator_info *info)
{
    struct pz_snmp *s = info->myvoid;
    size_t i = (size_t)(uintptr_t)*loop;
    u_long lid;

    if (i >= s->num_reach)
        return NULL;
    lid = s->reach[i].lid;
    *loop = (void *)(uintptr_t)(i + 1);
    *data = *loop;
    snmp_set_var_typed_value(index, ASN_UNSIGNED, &lid, sizeof(lid));
    return index;
}

/* Iterator: the first reachability entry. */
static netsnmp_variable_list *pz_reach_first(void **loop, void **data, netsnmp_variable_list *index,
                                             netsnmp_iterator_info *info)
{
    *loop = NULL;
    return pz_reach_next(loop, data, index, info);
}

/* Fill pzReachEntry column col of entry e; false for no such column. */
static bool pz_reach_value(struct pz_snmp *s, const struct pz_snmp_reach *e, unsigned col,
                           netsnmp_variable_list *var)
{
    uint8_t guid[8];

    switch (col) {
    case PZ_REACH_GUID:
        for (int i = 0; i < 8; i++)
            guid[i] = (uint8_t)(e->node_guid >> (56 - 8 * i));
        snmp_set_var_typed_value(var, ASN_OCTET_STR, guid, sizeof(guid));
        return true;
    case PZ_REACH_NAME:
        snmp_set_var_typed_value(var, ASN_OCTET_STR, e->name, strnlen(e->name, sizeof(e->name)));
        return true;
    case PZ_REACH_STATUS:
        pz_set_int(var, e->reachable ? 1 : e->lost ? 3 : 2);
        return true;
    case PZ_REACH_RTT:
        pz_set_u32(var, ASN_UNSIGNED, e->rtt_us);
        return true;
    case PZ_REACH_SINCE:
        pz_set_u32(var, ASN_TIMETICKS, pz_uptime_of(s, e->since_ns));
        return true;
    }
    return false;
}

/* GET handler of the reachability table. */
static int pz_reach_handler(netsnmp_mib_handler *handler, netsnmp_handler_registration *reg,
                            netsnmp_agent_request_info *reqinfo, netsnmp_request_info *requests)
{
    struct pz_snmp *s = reg->my_reg_void;

    (void)handler;
    if (reqinfo->mode != MODE_GET)
        return SNMP_ERR_NOERROR;
    for (netsnmp_request_info *r = requests; r; r = r->next) {
        netsnmp_table_request_info *ti = netsnmp_extract_table_info(r);
        size_t i = (size_t)(uintptr_t)netsnmp_extract_iterator_context(r);

        if (r->processed || !ti)
            continue;
        if (!i || i > s->num_reach ||
            !pz_reach_value(s, &s->reach[i - 1], ti->colnum, r->requestvb))
            netsnmp_set_request_error(reqinfo, r, SNMP_NOSUCHINSTANCE);
    }
    return SNMP_ERR_NOERROR;
}

/* The switch scalars: 1 pzSwitchLid, 2 pzMasterSmLid, 3 pzNodeGuid, 4 pzNumPorts. */
static int pz_switch_handler(netsnmp_mib_handler *handler, netsnmp_handler_registration *reg,
                             netsnmp_agent_request_info *reqinfo, netsnmp_request_info *requests)
{
    struct pz_snmp *s = reg->my_reg_void;
    uint8_t guid[8];

    (void)handler;
    if (reqinfo->mode != MODE_GET)
        return SNMP_ERR_NOERROR;
    for (netsnmp_request_info *r = requests; r; r = r->next) {
        netsnmp_variable_list *var = r->requestvb;

        switch (var->name_length > OID_LENGTH(pz_switch_oid) ? var->name[OID_LENGTH(pz_switch_oid)]
                                                             : 0) {
        case 1:
            pz_set_u32(var, ASN_UNSIGNED, sma_lid(s->p.sma, 0));
            break;
        case 2:
            pz_set_u32(var, ASN_UNSIGNED, sma_master_sm_lid(s->p.sma, 0));
            break;
        case 3:
            for (int i = 0; i < 8; i++)
                guid[i] = (uint8_t)(s->p.board->id->node_guid >> (56 - 8 * i));
            snmp_set_var_typed_value(var, ASN_OCTET_STR, guid, sizeof(guid));
            break;
        case 4:
            pz_set_u32(var, ASN_UNSIGNED, s->num_ports);
            break;
        default:
            netsnmp_set_request_error(reqinfo, r, SNMP_NOSUCHOBJECT);
        }
    }
    return SNMP_ERR_NOERROR;
}

/* Write one setting into cfg; returns an SNMP error status. */
static int pz_setting_apply(struct cong_monitor_config *cfg, unsigned which, u_long v)
{
    switch (which) {
    case 1:
        cfg->interval_ms = (uint32_t)v;
        break;
    case 2:
        cfg->threshold_ticks = v;
        break;
    case 3:
        cfg->low_util_percent = (uint8_t)(v > 255 ? 0 : v);
        break;
    case 4:
        cfg->clear_percent = (uint8_t)(v > 255 ? 0 : v);
        break;
    default:
        return SNMP_ERR_NOTWRITABLE;
    }
    return cong_monitor_config_check(cfg) == 0 ? SNMP_ERR_NOERROR : SNMP_ERR_WRONGVALUE;
}

/*
 * The monitor settings: 1 interval (ms), 2 threshold (ticks/s), 3 low
 * utilisation (%), 4 clear (% of the threshold); Unsigned32, writable.  A
 * value the monitor refuses is wrongValue; every value of one Set is
 * checked together in RESERVE1 and applied in COMMIT.
 */
static int pz_settings_handler(netsnmp_mib_handler *handler, netsnmp_handler_registration *reg,
                               netsnmp_agent_request_info *reqinfo, netsnmp_request_info *requests)
{
    struct pz_snmp *s = reg->my_reg_void;
    struct cong_monitor_config cfg;

    (void)handler;
    if (!s->p.cong) {
        for (netsnmp_request_info *r = requests; r; r = r->next)
            netsnmp_set_request_error(
                reqinfo, r, reqinfo->mode == MODE_GET ? SNMP_NOSUCHOBJECT : SNMP_ERR_NOTWRITABLE);
        return SNMP_ERR_NOERROR;
    }
    cong_monitor_get_config(s->p.cong, &cfg);
    for (netsnmp_request_info *r = requests; r; r = r->next) {
        netsnmp_variable_list *var = r->requestvb;
        /* The scalar helpers extend reg->rootoid while they run: index by the group's length. */
        unsigned which = var->name_length > OID_LENGTH(pz_settings_oid)
                             ? (unsigned)var->name[OID_LENGTH(pz_settings_oid)]
                             : 0;
        const uint64_t values[] = {cfg.interval_ms, cfg.threshold_ticks, cfg.low_util_percent,
                                   cfg.clear_percent};
        int err = SNMP_ERR_NOERROR;

        if (reqinfo->mode == MODE_GET) {
            if (which >= 1 && which <= 4)
                pz_set_u32(var, ASN_UNSIGNED, values[which - 1]);
            else
                netsnmp_set_request_error(reqinfo, r, SNMP_NOSUCHOBJECT);
            continue;
        }
        if (reqinfo->mode == MODE_SET_RESERVE1) {
            err = netsnmp_check_vb_type(var, ASN_UNSIGNED);
            if (err == SNMP_ERR_NOERROR)
                err = pz_setting_apply(&cfg, which, *var->val.integer);
        } else if (reqinfo->mode == MODE_SET_COMMIT) {
            pz_setting_apply(&cfg, which, *var->val.integer);
            if (cong_monitor_set_config(s->p.cong, &cfg) != 0)
                err = SNMP_ERR_COMMITFAILED;
        }
        if (err != SNMP_ERR_NOERROR)
            netsnmp_set_request_error(reqinfo, r, err);
    }
    return SNMP_ERR_NOERROR;
}

/* Register a read-only table (columns 2..last) iterated by first/next with handler fn; 0 or -1. */
static int pz_register_table(struct pz_snmp *s, const char *name, const oid *root, size_t len,
                             Netsnmp_Node_Handler *fn, u_char index_type, unsigned last,
                             Netsnmp_First_Data_Point *first, Netsnmp_Next_Data_Point *next)
{
    /*
     * The port tables (INTEGER index) come in port order: a GETNEXT stops at
     * the row after the asked one.  The reachability table comes in the
     * caller's order: searched whole.
     */
    const struct snmp_mib_table t = {.name = name,
                                     .root = root,
                                     .root_len = len,
                                     .handler = fn,
                                     .modes = HANDLER_CAN_RONLY,
                                     .index = index_type,
                                     .sorted = index_type == ASN_INTEGER,
                                     .min_col = 2,
                                     .max_col = last,
                                     .first = first,
                                     .next = next};

    return snmp_mib_register_table(s, &t);
}

int snmp_mib_portzero_register(struct pz_snmp *s)
{
    if (snmp_mib_register_scalars(s, "pzSwitch", pz_switch_oid, OID_LENGTH(pz_switch_oid),
                                  pz_switch_handler, HANDLER_CAN_RONLY, 4) != 0)
        return -1;
    if (snmp_mib_register_scalars(s, "pzCongSettings", pz_settings_oid, OID_LENGTH(pz_settings_oid),
                                  pz_settings_handler, HANDLER_CAN_RWRITE, 4) != 0)
        return -1;
    if (pz_register_table(s, "pzIbPortTable", pz_port_table_oid, OID_LENGTH(pz_port_table_oid),
                          pz_port_handler, ASN_INTEGER, 24, pz_port_first, pz_port_next) != 0)
        return -1;
    if (pz_register_table(s, "pzCongTable", pz_cong_table_oid, OID_LENGTH(pz_cong_table_oid),
                          pz_port_handler, ASN_INTEGER, PZ_CONG_PEER, pz_port_first,
                          pz_port_next) != 0)
        return -1;
    return pz_register_table(s, "pzReachTable", pz_reach_table_oid, OID_LENGTH(pz_reach_table_oid),
                             pz_reach_handler, ASN_UNSIGNED, PZ_REACH_SINCE, pz_reach_first,
                             pz_reach_next);
}
