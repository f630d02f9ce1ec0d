/*
 * snmp_notify.c - the notifications switch state changes call for: IF-MIB
 * linkDown/linkUp when a port's ifOperStatus enters or leaves down
 * (RFC 2863 5.), PORTZERO-MIB hot-spot onset/clear when the congestion
 * monitor moves a port into or out of the hot-spot class, reachability
 * lost/regained.  Found by comparing the state with what the last scan
 * saw (the monitor's event queue belongs to the agent's notice glue); sent
 * through net-snmp's notification machinery to the configured sinks.
 *
 * The enterprise of the generic notifications (coldStart, linkDown,
 * linkUp, authenticationFailure; net-snmp sends the last one itself) is
 * the switch's sysObjectID, as RFC 1157 defines a trap's enterprise
 * ("type of object generating trap, see sysObjectID").  net-snmp puts its
 * own Linux agent OID there (NETSNMP_SYSTEM_MIB, .1.3.6.1.4.1.8072.3.2.10)
 * in both the SNMPv1 Trap-PDU's enterprise field and the SNMPv2
 * notification's trailing snmpTrapEnterprise.0, before handing both PDUs
 * to its notification callbacks, which send them to every sink
 * (snmpNotifyTable: trapsink, trap2sink, informsink, trapsess and
 * SNMP-TARGET-MIB rows).  A callback of ours that runs first replaces it,
 * so both carry sysObjectID, and translating either into the other
 * (RFC 3584 3.1 and 3.2: the v1 enterprise is snmpTrapEnterprise.0's value
 * when present) gives the same enterprise.  PORTZERO-MIB's own
 * notifications carry no snmpTrapEnterprise.0; their SNMPv1 enterprise is
 * the notification OID less ".0.N" (RFC 3584 3.2), portzero's enterprise arc.
 */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>
#include <net-snmp/agent/agent_callbacks.h>

#include "cong_monitor.h"
#include "snmp_oids.h"
#include "snmp_port.h"
#include "snmp_system.h"

/* IF-MIB ifOperStatus down. */
#define IF_OPER_DOWN 2

/* Append an INTEGER (or another integer type) varbind name.idx = v. */
static void notify_add_int(netsnmp_variable_list **vars, const oid *name, size_t len, u_char type,
                           long v)
{
    snmp_varlist_add_variable(vars, name, len, type, &v, sizeof(v));
}

/* Start a notification's varbind list with snmpTrapOID.0 = trap. */
static netsnmp_variable_list *notify_start(const oid *trap, size_t len)
{
    static const oid trap_oid[] = {PZ_OID_SNMP_TRAP};
    netsnmp_variable_list *vars = NULL;

    snmp_varlist_add_variable(&vars, trap_oid, OID_LENGTH(trap_oid), ASN_OBJECT_ID, trap,
                              len * sizeof(oid));
    return vars;
}

/* Send and free a notification. */
static void notify_send(struct pz_snmp *s, netsnmp_variable_list *vars)
{
    if (!vars)
        return;
    send_v2trap(vars);
    snmp_free_varbind(vars);
    s->stats.notifications++;
}

/* linkDown / linkUp of ifIndex with ifIndex, ifAdminStatus, ifOperStatus. */
static void notify_link(struct pz_snmp *s, unsigned ifindex, bool up, unsigned admin, unsigned oper)
{
    static const oid down_oid[] = {PZ_OID_LINK_DOWN};
    static const oid up_oid[] = {PZ_OID_LINK_UP};
    oid col[] = {PZ_OID_IF_ENTRY, 1, ifindex};
    netsnmp_variable_list *vars = notify_start(up ? up_oid : down_oid, OID_LENGTH(up_oid));
    size_t len = OID_LENGTH(col);

    notify_add_int(&vars, col, len, ASN_INTEGER, ifindex);
    col[len - 2] = 7;
    notify_add_int(&vars, col, len, ASN_INTEGER, admin);
    col[len - 2] = 8;
    notify_add_int(&vars, col, len, ASN_INTEGER, oper);
    notify_send(s, vars);
}

/* Samples of history searched for the one that changed a port's class. */
#define NOTIFY_HISTORY 64

/*
 * The sample that moved port into its current class (the monitor's history,
 * newest first: the oldest of the newest run of that class), so the
 * notification carries the values the monitor decided on even when the scan
 * comes an interval later; the newest sample if the history lacks it.
 */
static struct cong_sample notify_change_sample(struct pz_snmp *s, unsigned port,
                                               const struct cong_port_view *v)
{
    struct cong_sample h[NOTIFY_HISTORY];
    unsigned n = cong_monitor_history(s->p.cong, port, h, NOTIFY_HISTORY), i = 0;

    while (i < n && h[i].cls == v->cls)
        i++;
    return i > 0 && i < n ? h[i - 1] : v->last;
}

/* Hot-spot onset/clear of port with its class, congestion and utilisation. */
static void notify_hotspot(struct pz_snmp *s, unsigned port, bool onset,
                           const struct cong_port_view *v)
{
    struct cong_sample c = notify_change_sample(s, port, v);
    oid trap[] = {PZ_OID_NOTIFY, onset ? PZ_NOTIFY_HOTSPOT_ONSET : PZ_NOTIFY_HOTSPOT_CLEAR};
    oid col[] = {PZ_OID_CONG_ENTRY, PZ_CONG_CLASS, port};
    netsnmp_variable_list *vars = notify_start(trap, OID_LENGTH(trap));
    size_t len = OID_LENGTH(col);

    notify_add_int(&vars, col, len, ASN_INTEGER, v->cls);
    col[len - 2] = PZ_CONG_TICKS;
    notify_add_int(&vars, col, len, ASN_GAUGE,
                   (long)(c.congestion > 0xFFFFFFFFu ? 0xFFFFFFFFu : c.congestion));
    col[len - 2] = PZ_CONG_UTIL;
    notify_add_int(&vars, col, len, ASN_GAUGE, c.util_permille);
    notify_send(s, vars);
}

void snmp_notify_reach(struct pz_snmp *s, const struct pz_snmp_reach *peer)
{
    oid trap[] = {PZ_OID_NOTIFY, peer->reachable ? PZ_NOTIFY_REACH_REGAINED : PZ_NOTIFY_REACH_LOST};
    oid col[] = {PZ_OID_REACH_ENTRY, PZ_REACH_STATUS, peer->lid};
    netsnmp_variable_list *vars = notify_start(trap, OID_LENGTH(trap));

    notify_add_int(&vars, col, OID_LENGTH(col), ASN_INTEGER,
                   peer->reachable ? 1
                   : peer->lost    ? 3
                                   : 2);
    notify_send(s, vars);
}

/* Compare one port's ifOperStatus with the last scan; note the change, maybe notify. */
static void notify_scan_link(struct pz_snmp *s, unsigned ifindex, bool send)
{
    struct snmp_if_row *row = &s->if_rows[ifindex - 1];
    unsigned oper = snmp_if_oper_status(s, ifindex);
    unsigned was = row->oper;

    snmp_if_last_change(s, ifindex);
    row->oper = (uint8_t)oper;
    if (!was || was == oper)
        return;
    if (!send || (oper != IF_OPER_DOWN && was != IF_OPER_DOWN))
        return;
    notify_link(s, ifindex, oper != IF_OPER_DOWN, snmp_if_admin_status(s, ifindex), oper);
}

/* Compare one port's congestion class with the last scan; maybe notify. */
static void notify_scan_cong(struct pz_snmp *s, unsigned port, bool send)
{
    struct snmp_if_row *row = &s->if_rows[port - 1];
    struct cong_port_view v;
    bool was_hot, hot;

    if (!s->p.cong || cong_monitor_port(s->p.cong, port, &v) != 0)
        return;
    was_hot = row->hotspot_valid && row->hotspot_class == CONG_PORT_HOTSPOT;
    hot = v.cls == CONG_PORT_HOTSPOT;
    row->hotspot_class = v.cls;
    row->hotspot_valid = true;
    if (send && hot != was_hot)
        notify_hotspot(s, port, hot, &v);
}

void snmp_notify_scan(struct pz_snmp *s, bool send)
{
    snmp_port_invalidate(s);
    for (unsigned i = 1; i <= s->num_if; i++) {
        notify_scan_link(s, i, send);
        if (i <= s->num_ports)
            notify_scan_cong(s, i, send);
    }
}

/* Whether trap (len sub-identifiers) is one of SNMPv2-MIB's snmpTraps (coldStart...). */
static bool notify_is_generic(const oid *trap, size_t len)
{
    static const oid snmp_traps[] = {PZ_OID_SNMP_TRAPS};

    return len == OID_LENGTH(snmp_traps) + 1 &&
           snmp_oid_compare(trap, OID_LENGTH(snmp_traps), snmp_traps, OID_LENGTH(snmp_traps)) == 0;
}

/*
 * A generic SNMPv1 Trap-PDU's enterprise becomes sysObjectID, and so does
 * the snmpTrapEnterprise.0 varbind net-snmp leaves in it from the SNMPv2
 * notification it translated; 0 or -1 (out of memory).
 */
static int notify_stamp_v1(struct pz_snmp *s, netsnmp_pdu *pdu)
{
    static const oid enterprise_oid[] = {PZ_OID_SNMP_TRAP_ENTERPRISE};
    netsnmp_variable_list *ent =
        find_varbind_in_list(pdu->variables, enterprise_oid, OID_LENGTH(enterprise_oid));
    size_t len;
    const oid *id = snmp_system_object_id(s, &len);
    oid *copy;

    if (pdu->trap_type == SNMP_TRAP_ENTERPRISESPECIFIC)
        return 0; /* its enterprise names the notification */
    copy = snmp_duplicate_objid(id, len);
    if (!copy)
        return -1;
    free(pdu->enterprise);
    pdu->enterprise = copy;
    pdu->enterprise_length = len;
    if (ent && snmp_set_var_typed_value(ent, ASN_OBJECT_ID, id, len * sizeof(oid)) != 0)
        return -1;
    return 0;
}

/* A generic SNMPv2 notification's snmpTrapEnterprise.0 becomes sysObjectID; 0 or -1. */
static int notify_stamp_v2(struct pz_snmp *s, netsnmp_pdu *pdu)
{
    static const oid trap_oid[] = {PZ_OID_SNMP_TRAP};
    static const oid enterprise_oid[] = {PZ_OID_SNMP_TRAP_ENTERPRISE};
    netsnmp_variable_list *trap =
        find_varbind_in_list(pdu->variables, trap_oid, OID_LENGTH(trap_oid));
    netsnmp_variable_list *ent =
        find_varbind_in_list(pdu->variables, enterprise_oid, OID_LENGTH(enterprise_oid));
    size_t len;
    const oid *id = snmp_system_object_id(s, &len);

    if (!trap || !ent || trap->type != ASN_OBJECT_ID ||
        !notify_is_generic(trap->val.objid, trap->val_len / sizeof(oid)))
        return 0;
    return snmp_set_var_typed_value(ent, ASN_OBJECT_ID, id, len * sizeof(oid)) == 0 ? 0 : -1;
}

/*
 * net-snmp's SEND_TRAP1 / SEND_TRAP2 callback, ahead of the one that sends
 * (snmpNotifyTable's): the template PDU (serverarg) of a notification
 * about to go to the sinks gets the switch's enterprise.  Returns 0.
 */
static int notify_stamp(int major, int minor, void *serverarg, void *clientarg)
{
    struct pz_snmp *s = clientarg;
    netsnmp_pdu *pdu = serverarg;
    int rc;

    (void)major;
    if (!pdu)
        return 0;
    rc = minor == SNMPD_CALLBACK_SEND_TRAP1 ? notify_stamp_v1(s, pdu) : notify_stamp_v2(s, pdu);
    if (rc != 0)
        snmp_log(LOG_ERR, "portzero: out of memory setting a notification's enterprise\n");
    return 0;
}

int snmp_notify_register(struct pz_snmp *s)
{
    if (netsnmp_register_callback(SNMP_CALLBACK_APPLICATION, SNMPD_CALLBACK_SEND_TRAP1,
                                  notify_stamp, s, NETSNMP_CALLBACK_HIGHEST_PRIORITY) != 0 ||
        netsnmp_register_callback(SNMP_CALLBACK_APPLICATION, SNMPD_CALLBACK_SEND_TRAP2,
                                  notify_stamp, s, NETSNMP_CALLBACK_HIGHEST_PRIORITY) != 0)
        return -1;
    return 0;
}

void snmp_notify_unregister(struct pz_snmp *s)
{
    snmp_unregister_callback(SNMP_CALLBACK_APPLICATION, SNMPD_CALLBACK_SEND_TRAP1, notify_stamp, s,
                             1);
    snmp_unregister_callback(SNMP_CALLBACK_APPLICATION, SNMPD_CALLBACK_SEND_TRAP2, notify_stamp, s,
                             1);
}
