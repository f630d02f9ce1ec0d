/*
 * mib_if.c - IF-MIB (RFC 2863): ifNumber, ifTableLastChange, ifTable and
 * ifXTable, one row per external port (ifIndex = port) and one for the
 * IPoIB management interface (ifIndex = num_ports + 1).
 *
 * Port rows read the board (link status and enables), the PMA's 64-bit
 * software counters (never reset, so no discontinuity but an agent
 * restart: ifCounterDiscontinuityTime 0) and the SMA (ifAdminStatus Sets
 * go through its PortInfo Set).  Counter32 columns are the low 32 bits of
 * the 64-bit counters: they wrap, as SNMP counters must.
 */
#include <stdio.h>
#include <string.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>

#include "pma.h"
#include "sma.h"
#include "snmp_internal.h"
#include "snmp_mib.h"
#include "snmp_port.h"

/* IF-MIB roots. */
static const oid if_number_oid[] = {1, 3, 6, 1, 2, 1, 2, 1};
static const oid if_table_oid[] = {1, 3, 6, 1, 2, 1, 2, 2};
static const oid if_xtable_oid[] = {1, 3, 6, 1, 2, 1, 31, 1, 1};
static const oid if_table_last_change_oid[] = {1, 3, 6, 1, 2, 1, 31, 1, 5};

/* ifTable's columns (IF-MIB, RFC 2863 ifEntry). */
enum if_table_column {
    IF_INDEX = 1,
    IF_DESCR = 2,
    IF_TYPE = 3,
    IF_MTU = 4,
    IF_SPEED = 5,
    IF_PHYS_ADDRESS = 6,
    IF_ADMIN_STATUS = 7,
    IF_OPER_STATUS = 8,
    IF_LAST_CHANGE = 9,
    IF_IN_OCTETS = 10,
    IF_IN_UCAST_PKTS = 11,
    IF_IN_NUCAST_PKTS = 12,
    IF_IN_DISCARDS = 13,
    IF_IN_ERRORS = 14,
    IF_IN_UNKNOWN_PROTOS = 15,
    IF_OUT_OCTETS = 16,
    IF_OUT_UCAST_PKTS = 17,
    IF_OUT_NUCAST_PKTS = 18,
    IF_OUT_DISCARDS = 19,
    IF_OUT_ERRORS = 20,
    IF_OUT_QLEN = 21,
    IF_SPECIFIC = 22,
    IF_TABLE_LAST = IF_SPECIFIC,
};

/* ifXTable's columns (IF-MIB, RFC 2863 ifXEntry). */
enum if_xtable_column {
    IFX_NAME = 1,
    IFX_IN_MULTICAST_PKTS = 2,
    IFX_IN_BROADCAST_PKTS = 3,
    IFX_OUT_MULTICAST_PKTS = 4,
    IFX_OUT_BROADCAST_PKTS = 5,
    IFX_HC_IN_OCTETS = 6,
    IFX_HC_IN_UCAST_PKTS = 7,
    IFX_HC_IN_MULTICAST_PKTS = 8,
    IFX_HC_IN_BROADCAST_PKTS = 9,
    IFX_HC_OUT_OCTETS = 10,
    IFX_HC_OUT_UCAST_PKTS = 11,
    IFX_HC_OUT_MULTICAST_PKTS = 12,
    IFX_HC_OUT_BROADCAST_PKTS = 13,
    IFX_LINK_UP_DOWN_TRAP_ENABLE = 14,
    IFX_HIGH_SPEED = 15,
    IFX_PROMISCUOUS_MODE = 16,
    IFX_CONNECTOR_PRESENT = 17,
    IFX_ALIAS = 18,
    IFX_COUNTER_DISCONTINUITY_TIME = 19,
    IFX_TABLE_LAST = IFX_COUNTER_DISCONTINUITY_TIME,
};

/* ifOperStatus / ifAdminStatus values (RFC 2863). */
enum { IF_UP = 1, IF_DOWN = 2, IF_TESTING = 3, IF_DORMANT = 5 };

/* IANAifType infiniband(199). */
#define IF_TYPE_INFINIBAND 199

/* The agent of a handler registration. */
static struct pz_snmp *if_agent(netsnmp_handler_registration *reg)
{
    return reg->my_reg_void;
}

unsigned snmp_if_oper_status(struct pz_snmp *s, unsigned ifindex)
{
    const struct snmp_port_snap *ps;

    if (ifindex == s->num_if)
        return s->mgmt.up ? IF_UP : IF_DOWN;
    ps = snmp_port_snap(s, ifindex);
    if (!ps || !ps->ok_status)
        return IF_DOWN;
    switch (ps->st.port_state) {
    case BOARD_PORT_ACTIVE:
        return IF_UP;
    case BOARD_PORT_INIT:
    case BOARD_PORT_ARMED:
        return IF_DORMANT; /* trained, waiting for the SM to activate it */
    default:
        return IF_DOWN;
    }
}

/*
 * ifLastChange: sysUpTime when the row's ifOperStatus was first seen as it
 * is now, by a request or by the notification scan, whichever came first
 * (the scan runs up to a second apart: an answer read down with the time
 * the port had come up).  0 for the state the agent started in.  Returns it.
 */
uint32_t snmp_if_last_change(struct pz_snmp *s, unsigned ifindex)
{
    struct snmp_if_row *row = &s->if_rows[ifindex - 1];
    unsigned oper = snmp_if_oper_status(s, ifindex);

    if (row->lc_oper && row->lc_oper != oper)
        row->last_change = snmp_uptime();
    row->lc_oper = (uint8_t)oper;
    return row->last_change;
}

/* ifAdminStatus: down while the port is PortPhysicalState Disabled. */
unsigned snmp_if_admin_status(struct pz_snmp *s, unsigned ifindex)
{
    const struct snmp_port_snap *ps;

    if (ifindex == s->num_if)
        return IF_UP;
    ps = snmp_port_snap(s, ifindex);
    return ps && ps->ok_status && ps->st.phys_state == BOARD_PHYS_DISABLED ? IF_DOWN : IF_UP;
}

/* A 64-bit counter of a row, by name; 0 for a column the row lacks. */
enum if_counter {
    CNT_IN_OCTETS,
    CNT_IN_UCAST,
    CNT_IN_MCAST,
    CNT_IN_DISCARDS,
    CNT_IN_ERRORS,
    CNT_OUT_OCTETS,
    CNT_OUT_UCAST,
    CNT_OUT_MCAST,
    CNT_OUT_DISCARDS,
    CNT_OUT_ERRORS,
    CNT_IN_BCAST,
    CNT_OUT_BCAST,
};

/* The value of counter cnt of the management interface. */
static uint64_t if_mgmt_counter(const struct pz_snmp_mgmt_if *m, enum if_counter cnt)
{
    switch (cnt) {
    case CNT_IN_OCTETS:
        return m->in_octets;
    case CNT_IN_UCAST:
        return m->in_ucast_pkts;
    case CNT_IN_MCAST:
        return m->in_mcast_pkts;
    case CNT_IN_DISCARDS:
        return m->in_discards;
    case CNT_IN_ERRORS:
        return m->in_errors;
    case CNT_OUT_OCTETS:
        return m->out_octets;
    case CNT_OUT_UCAST:
        return m->out_ucast_pkts;
    case CNT_OUT_MCAST:
        return m->out_mcast_pkts;
    case CNT_OUT_DISCARDS:
        return m->out_discards;
    case CNT_OUT_ERRORS:
        return m->out_errors;
    case CNT_IN_BCAST:
        return m->in_bcast_pkts;
    case CNT_OUT_BCAST:
        return m->out_bcast_pkts;
    }
    return 0;
}

/*
 * The value of counter cnt of a port from the PMA's 64-bit counters:
 * octets are PortXmitData/PortRcvData (4-byte words) x 4, errors the sum of
 * the PortCounters error counters of that direction.
 */
static uint64_t if_port_counter(const struct board_port_counters *c, enum if_counter cnt)
{
    switch (cnt) {
    case CNT_IN_OCTETS:
        return c->rcv_data * 4;
    case CNT_IN_UCAST:
        return c->unicast_rcv_pkts;
    case CNT_IN_MCAST:
        return c->multicast_rcv_pkts;
    case CNT_IN_DISCARDS:
        return c->vl15_dropped;
    case CNT_IN_ERRORS:
        return c->rcv_errors + c->rcv_remote_phys_errors + c->rcv_switch_relay_errors +
               c->rcv_constraint_errors;
    case CNT_OUT_OCTETS:
        return c->xmit_data * 4;
    case CNT_OUT_UCAST:
        return c->unicast_xmit_pkts;
    case CNT_OUT_MCAST:
        return c->multicast_xmit_pkts;
    case CNT_OUT_DISCARDS:
        return c->xmit_discards;
    case CNT_OUT_ERRORS:
        return c->xmit_constraint_errors;
    case CNT_IN_BCAST:
    case CNT_OUT_BCAST:
        return 0; /* InfiniBand has no broadcast */
    }
    return 0;
}

/* Counter cnt of row ifindex (0 if unreadable). */
static uint64_t if_counter(struct pz_snmp *s, unsigned ifindex, enum if_counter cnt)
{
    const struct board_port_counters *c;

    if (ifindex == s->num_if)
        return if_mgmt_counter(&s->mgmt, cnt);
    c = snmp_port_counters(s, ifindex);
    return c ? if_port_counter(c, cnt) : 0;
}

/*
 * ifInNUcastPkts / ifOutNUcastPkts (deprecated, RFC 2863): multicast plus
 * broadcast packets of the direction (in: true).
 */
static uint64_t if_nucast(struct pz_snmp *s, unsigned ifindex, bool in)
{
    return if_counter(s, ifindex, in ? CNT_IN_MCAST : CNT_OUT_MCAST) +
           if_counter(s, ifindex, in ? CNT_IN_BCAST : CNT_OUT_BCAST);
}

/* ifHighSpeed: the signalling rate in Mb/s (lanes x lane rate), 0 without a link. */
static uint32_t if_high_speed(struct pz_snmp *s, unsigned ifindex)
{
    const struct snmp_port_snap *ps;

    if (ifindex == s->num_if)
        return 0; /* the IPoIB interface has no rate of its own */
    ps = snmp_port_snap(s, ifindex);
    if (!ps || !ps->ok_status || snmp_if_oper_status(s, ifindex) == IF_DOWN)
        return 0;
    return (uint32_t)(snmp_port_signal_kbps(&ps->st) / 1000);
}

/* ifMtu: NeighborMTU in bytes for a port, the IP MTU for the management interface. */
static int32_t if_mtu(struct pz_snmp *s, unsigned ifindex)
{
    const struct snmp_port_snap *ps;

    if (ifindex == s->num_if)
        return (int32_t)s->mgmt.mtu;
    ps = snmp_port_snap(s, ifindex);
    if (!ps || !ps->ok_config || ps->cfg.neighbor_mtu < 1 || ps->cfg.neighbor_mtu > 5)
        return 0;
    return 128 << ps->cfg.neighbor_mtu;
}

/* Set var to a Counter32 (low 32 bits: wraps). */
static void if_set_c32(netsnmp_variable_list *var, uint64_t v)
{
    u_long c = (u_long)(v & 0xFFFFFFFFu);

    snmp_set_var_typed_value(var, ASN_COUNTER, &c, sizeof(c));
}

/* Set var to a Counter64. */
static void if_set_c64(netsnmp_variable_list *var, uint64_t v)
{
    struct counter64 c = {.high = (u_long)(v >> 32), .low = (u_long)(v & 0xFFFFFFFFu)};

    snmp_set_var_typed_value(var, ASN_COUNTER64, &c, sizeof(c));
}

/* Set var to an INTEGER. */
static void if_set_int(netsnmp_variable_list *var, long v)
{
    snmp_set_var_typed_value(var, ASN_INTEGER, &v, sizeof(v));
}

/* Set var to a Gauge32 / TimeTicks of type. */
static void if_set_unsigned(netsnmp_variable_list *var, u_char type, uint64_t v)
{
    u_long u = (u_long)(v > 0xFFFFFFFFu ? 0xFFFFFFFFu : v);

    snmp_set_var_typed_value(var, type, &u, sizeof(u));
}

/* ifDescr / ifName text of a row into out. */
static void if_names(struct pz_snmp *s, unsigned ifindex, bool descr, char *out, size_t len)
{
    if (ifindex == s->num_if)
        snprintf(out, len, descr ? "portzero IPoIB management interface (port 0)" : "ib0");
    else if (descr)
        snprintf(out, len, "InfiniBand switch port %u", ifindex);
    else
        snprintf(out, len, "IB1/%u", ifindex);
}

/* Fill one ifTable column of row ifindex; returns false for no such column. */
static bool if_table_value(struct pz_snmp *s, unsigned ifindex, unsigned col,
                           netsnmp_variable_list *var)
{
    char text[80];
    static const oid zero_dot_zero[] = {0, 0};

    switch (col) {
    case IF_INDEX:
        if_set_int(var, ifindex);
        return true;
    case IF_DESCR:
        if_names(s, ifindex, true, text, sizeof(text));
        snmp_set_var_typed_value(var, ASN_OCTET_STR, text, strlen(text));
        return true;
    case IF_TYPE:
        if_set_int(var, IF_TYPE_INFINIBAND);
        return true;
    case IF_MTU:
        if_set_int(var, if_mtu(s, ifindex));
        return true;
    case IF_SPEED:
        if_set_unsigned(var, ASN_GAUGE, (uint64_t)if_high_speed(s, ifindex) * 1000000u);
        return true;
    case IF_PHYS_ADDRESS:
        if (ifindex == s->num_if)
            snmp_set_var_typed_value(var, ASN_OCTET_STR, s->mgmt.hw_addr, sizeof(s->mgmt.hw_addr));
        else
            snmp_set_var_typed_value(var, ASN_OCTET_STR, "", 0);
        return true;
    case IF_ADMIN_STATUS:
        if_set_int(var, snmp_if_admin_status(s, ifindex));
        return true;
    case IF_OPER_STATUS:
        snmp_if_last_change(s, ifindex); /* a change seen here dates from now */
        if_set_int(var, snmp_if_oper_status(s, ifindex));
        return true;
    case IF_LAST_CHANGE:
        if_set_unsigned(var, ASN_TIMETICKS, snmp_if_last_change(s, ifindex));
        return true;
    case IF_IN_OCTETS:
        if_set_c32(var, if_counter(s, ifindex, CNT_IN_OCTETS));
        return true;
    case IF_IN_UCAST_PKTS:
        if_set_c32(var, if_counter(s, ifindex, CNT_IN_UCAST));
        return true;
    case IF_IN_DISCARDS:
        if_set_c32(var, if_counter(s, ifindex, CNT_IN_DISCARDS));
        return true;
    case IF_IN_ERRORS:
        if_set_c32(var, if_counter(s, ifindex, CNT_IN_ERRORS));
        return true;
    case IF_IN_NUCAST_PKTS:
        if_set_c32(var, if_nucast(s, ifindex, true));
        return true;
    case IF_IN_UNKNOWN_PROTOS:
        if_set_c32(var, 0); /* ifInUnknownProtos: IB switch ports have no protocols */
        return true;
    case IF_OUT_OCTETS:
        if_set_c32(var, if_counter(s, ifindex, CNT_OUT_OCTETS));
        return true;
    case IF_OUT_UCAST_PKTS:
        if_set_c32(var, if_counter(s, ifindex, CNT_OUT_UCAST));
        return true;
    case IF_OUT_DISCARDS:
        if_set_c32(var, if_counter(s, ifindex, CNT_OUT_DISCARDS));
        return true;
    case IF_OUT_ERRORS:
        if_set_c32(var, if_counter(s, ifindex, CNT_OUT_ERRORS));
        return true;
    case IF_OUT_NUCAST_PKTS:
        if_set_c32(var, if_nucast(s, ifindex, false));
        return true;
    case IF_OUT_QLEN:
        if_set_unsigned(var, ASN_GAUGE, 0);
        return true;
    case IF_SPECIFIC:
        snmp_set_var_typed_value(var, ASN_OBJECT_ID, zero_dot_zero, sizeof(zero_dot_zero));
        return true;
    }
    return false;
}

/* Fill one ifXTable column of row ifindex; returns false for no such column. */
static bool if_xtable_value(struct pz_snmp *s, unsigned ifindex, unsigned col,
                            netsnmp_variable_list *var)
{
    char text[80];
    const char *alias = s->if_rows[ifindex - 1].alias;

    switch (col) {
    case IFX_NAME:
        if_names(s, ifindex, false, text, sizeof(text));
        snmp_set_var_typed_value(var, ASN_OCTET_STR, text, strlen(text));
        return true;
    case IFX_IN_MULTICAST_PKTS:
        if_set_c32(var, if_counter(s, ifindex, CNT_IN_MCAST));
        return true;
    case IFX_OUT_MULTICAST_PKTS:
        if_set_c32(var, if_counter(s, ifindex, CNT_OUT_MCAST));
        return true;
    case IFX_IN_BROADCAST_PKTS:
        if_set_c32(var, if_counter(s, ifindex, CNT_IN_BCAST));
        return true;
    case IFX_OUT_BROADCAST_PKTS:
        if_set_c32(var, if_counter(s, ifindex, CNT_OUT_BCAST));
        return true;
    case IFX_HC_IN_OCTETS:
        if_set_c64(var, if_counter(s, ifindex, CNT_IN_OCTETS));
        return true;
    case IFX_HC_IN_UCAST_PKTS:
        if_set_c64(var, if_counter(s, ifindex, CNT_IN_UCAST));
        return true;
    case IFX_HC_IN_MULTICAST_PKTS:
        if_set_c64(var, if_counter(s, ifindex, CNT_IN_MCAST));
        return true;
    case IFX_HC_OUT_OCTETS:
        if_set_c64(var, if_counter(s, ifindex, CNT_OUT_OCTETS));
        return true;
    case IFX_HC_OUT_UCAST_PKTS:
        if_set_c64(var, if_counter(s, ifindex, CNT_OUT_UCAST));
        return true;
    case IFX_HC_OUT_MULTICAST_PKTS:
        if_set_c64(var, if_counter(s, ifindex, CNT_OUT_MCAST));
        return true;
    case IFX_HC_IN_BROADCAST_PKTS:
        if_set_c64(var, if_counter(s, ifindex, CNT_IN_BCAST));
        return true;
    case IFX_HC_OUT_BROADCAST_PKTS:
        if_set_c64(var, if_counter(s, ifindex, CNT_OUT_BCAST));
        return true;
    case IFX_LINK_UP_DOWN_TRAP_ENABLE:
        if_set_int(var, 1); /* ifLinkUpDownTrapEnable: enabled */
        return true;
    case IFX_HIGH_SPEED:
        if_set_unsigned(var, ASN_GAUGE, if_high_speed(s, ifindex));
        return true;
    case IFX_PROMISCUOUS_MODE:
        if_set_int(var, 2); /* ifPromiscuousMode: false */
        return true;
    case IFX_CONNECTOR_PRESENT:
        if_set_int(var, ifindex == s->num_if ? 2 : 1); /* ifConnectorPresent */
        return true;
    case IFX_ALIAS:
        snmp_set_var_typed_value(var, ASN_OCTET_STR, alias, strlen(alias));
        return true;
    case IFX_COUNTER_DISCONTINUITY_TIME:
        if_set_unsigned(var, ASN_TIMETICKS, ifindex == s->num_if ? s->mgmt_discontinuity : 0);
        return true;
    }
    return false;
}

/* Iterator: the row after *loop (ifIndex), or NULL after the last. */
static netsnmp_variable_list *if_next(void **loop, void **data, netsnmp_variable_list *index,
                                      netsnmp_iterator_info *info)
{
    const struct pz_snmp *s = info->myvoid;

    return snmp_mib_row_next(loop, data, index, (long)s->num_if);
}

/* Iterator: the first row (ifIndex 1). */
static netsnmp_variable_list *if_first(void **loop, void **data, netsnmp_variable_list *index,
                                       netsnmp_iterator_info *info)
{
    *loop = NULL;
    return if_next(loop, data, index, info);
}

/*
 * Whether an ifAlias value is a DisplayString (RFC 2579: NVT ASCII, CR only
 * before LF or NUL) that ifAlias can keep: NUL (also after CR) is refused,
 * since the alias is kept and stored as a C string and would read back cut.
 */
static bool if_alias_ok(const u_char *v, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (v[i] == 0 || v[i] > 127)
            return false;
        if (v[i] == '\r' && (i + 1 == len || v[i + 1] != '\n'))
            return false;
    }
    return true;
}

/* RESERVE1 check of an ifAlias or ifAdminStatus Set; returns an SNMP error status. */
static int if_set_check(struct pz_snmp *s, unsigned ifindex, bool xtable, unsigned col,
                        netsnmp_variable_list *var)
{
    int rc;

    if (xtable && col == IFX_ALIAS) {
        rc = netsnmp_check_vb_type_and_max_size(var, ASN_OCTET_STR, PZ_SNMP_ALIAS_MAX);
        if (rc == SNMP_ERR_NOERROR && !if_alias_ok(var->val.string, var->val_len))
            rc = SNMP_ERR_WRONGVALUE;
        return rc;
    }
    if (xtable || col != IF_ADMIN_STATUS)
        return SNMP_ERR_NOTWRITABLE;
    rc = netsnmp_check_vb_type(var, ASN_INTEGER);
    if (rc != SNMP_ERR_NOERROR)
        return rc;
    if (*var->val.integer != IF_UP && *var->val.integer != IF_DOWN)
        return *var->val.integer == IF_TESTING ? SNMP_ERR_INCONSISTENTVALUE : SNMP_ERR_WRONGVALUE;
    /* Taking down the path this request came by, or the management interface itself. */
    if (ifindex == s->num_if || (s->p.mgmt_port && ifindex == s->p.mgmt_port))
        return SNMP_ERR_INCONSISTENTVALUE;
    return SNMP_ERR_NOERROR;
}

/* COMMIT of a checked Set; returns an SNMP error status. */
static int if_set_commit(struct pz_snmp *s, unsigned ifindex, bool xtable,
                         netsnmp_variable_list *var)
{
    if (xtable) {
        struct snmp_if_row *row = &s->if_rows[ifindex - 1];
        size_t n = var->val_len;

        memcpy(row->alias, var->val.string, n);
        row->alias[n] = '\0';
        snmp_store_needed(NULL);
        return SNMP_ERR_NOERROR;
    }
    if (snmp_port_admin_set(s, ifindex, *var->val.integer == IF_UP) != 0)
        return SNMP_ERR_COMMITFAILED;
    return SNMP_ERR_NOERROR;
}

/* The handler of both tables: GET (GETNEXT/GETBULK via the iterator) and SET. */
static int if_handler(netsnmp_mib_handler *handler, netsnmp_handler_registration *reg,
                      netsnmp_agent_request_info *reqinfo, netsnmp_request_info *requests)
{
    struct pz_snmp *s = if_agent(reg);
    bool xtable = netsnmp_oid_equals(reg->rootoid, reg->rootoid_len, if_xtable_oid,
                                     OID_LENGTH(if_xtable_oid)) == 0;

    (void)handler;
    for (netsnmp_request_info *r = requests; r; r = r->next) {
        netsnmp_table_request_info *ti = netsnmp_extract_table_info(r);
        unsigned ifindex = (unsigned)(uintptr_t)netsnmp_extract_iterator_context(r);
        int err = SNMP_ERR_NOERROR;

        if (r->processed || !ti)
            continue;
        if (!ifindex || ifindex > s->num_if) {
            if (reqinfo->mode == MODE_GET)
                netsnmp_set_request_error(reqinfo, r, SNMP_NOSUCHINSTANCE);
            else if (reqinfo->mode == MODE_SET_RESERVE1)
                netsnmp_set_request_error(reqinfo, r, SNMP_ERR_NOCREATION);
            continue;
        }
        switch (reqinfo->mode) {
        case MODE_GET:
            if (!(xtable ? if_xtable_value(s, ifindex, ti->colnum, r->requestvb)
                         : if_table_value(s, ifindex, ti->colnum, r->requestvb)))
                netsnmp_set_request_error(reqinfo, r, SNMP_NOSUCHOBJECT);
            break;
        case MODE_SET_RESERVE1:
            err = if_set_check(s, ifindex, xtable, ti->colnum, r->requestvb);
            break;
        case MODE_SET_COMMIT:
            err = if_set_commit(s, ifindex, xtable, r->requestvb);
            break;
        default:
            break;
        }
        if (err != SNMP_ERR_NOERROR)
            netsnmp_set_request_error(reqinfo, r, err);
    }
    return SNMP_ERR_NOERROR;
}

/* Register one of the two tables (columns 1..last, rows in ifIndex order); 0 or -1. */
static int if_register_table(struct pz_snmp *s, const char *name, const oid *root, size_t len,
                             unsigned last)
{
    const struct snmp_mib_table t = {.name = name,
                                     .root = root,
                                     .root_len = len,
                                     .handler = if_handler,
                                     .modes = HANDLER_CAN_RWRITE,
                                     .index = ASN_INTEGER,
                                     .sorted = true,
                                     .min_col = 1,
                                     .max_col = last,
                                     .first = if_first,
                                     .next = if_next};

    return snmp_mib_register_table(s, &t);
}

/* ifNumber: the rows of ifTable. */
static int if_number_handler(netsnmp_mib_handler *handler, netsnmp_handler_registration *reg,
                             netsnmp_agent_request_info *reqinfo, netsnmp_request_info *requests)
{
    struct pz_snmp *s = if_agent(reg);

    (void)handler;
    if (reqinfo->mode == MODE_GET)
        for (netsnmp_request_info *r = requests; r; r = r->next)
            if_set_int(r->requestvb, s->num_if);
    return SNMP_ERR_NOERROR;
}

/*
 * ifTableLastChange (ifGeneralInformationGroup): sysUpTime of the last
 * creation or deletion of an ifTable row, 0 if none since the agent
 * started.  The rows never change: one per external port (fixed by the
 * switch) and the IPoIB management interface, which has its row from the
 * start (ifOperStatus down while IPoIB is down), so it is always 0.
 */
static int if_table_last_change_handler(netsnmp_mib_handler *handler,
                                        netsnmp_handler_registration *reg,
                                        netsnmp_agent_request_info *reqinfo,
                                        netsnmp_request_info *requests)
{
    (void)handler;
    (void)reg;
    if (reqinfo->mode == MODE_GET)
        for (netsnmp_request_info *r = requests; r; r = r->next)
            if_set_unsigned(r->requestvb, ASN_TIMETICKS, 0);
    return SNMP_ERR_NOERROR;
}

/* Register a read-only scalar (root.0) answered by fn; 0 or -1. */
static int if_register_scalar(struct pz_snmp *s, const char *name, const oid *root, size_t len,
                              Netsnmp_Node_Handler *fn)
{
    netsnmp_handler_registration *reg =
        netsnmp_create_handler_registration(name, fn, root, len, HANDLER_CAN_RONLY);

    if (!reg)
        return -1;
    reg->my_reg_void = s;
    return netsnmp_register_scalar(reg) == MIB_REGISTERED_OK ? 0 : -1;
}

int snmp_mib_if_register(struct pz_snmp *s)
{
    if (if_register_scalar(s, "ifNumber", if_number_oid, OID_LENGTH(if_number_oid),
                           if_number_handler) != 0 ||
        if_register_scalar(s, "ifTableLastChange", if_table_last_change_oid,
                           OID_LENGTH(if_table_last_change_oid), if_table_last_change_handler) != 0)
        return -1;
    if (if_register_table(s, "ifTable", if_table_oid, OID_LENGTH(if_table_oid), IF_TABLE_LAST) != 0)
        return -1;
    return if_register_table(s, "ifXTable", if_xtable_oid, OID_LENGTH(if_xtable_oid),
                             IFX_TABLE_LAST);
}
