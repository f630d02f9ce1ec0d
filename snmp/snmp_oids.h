/*
 * snmp_oids.h - the OIDs the agent sends in notifications: IF-MIB and
 * PORTZERO-MIB (mibs/PORTZERO-MIB.txt, under the placeholder enterprise
 * PZ_SNMP_ENTERPRISE).
 */
#ifndef PZ_SNMP_OIDS_H
#define PZ_SNMP_OIDS_H

#include "snmp_internal.h"

#define PZ_OID_SNMP_TRAP 1, 3, 6, 1, 6, 3, 1, 1, 4, 1, 0            /* snmpTrapOID.0 */
#define PZ_OID_SNMP_TRAP_ENTERPRISE 1, 3, 6, 1, 6, 3, 1, 1, 4, 3, 0 /* snmpTrapEnterprise.0 */
#define PZ_OID_SNMP_TRAPS                                                                          \
    1, 3, 6, 1, 6, 3, 1, 1, 5 /* snmpTraps: coldStart.. authenticationFailure */
#define PZ_OID_LINK_DOWN 1, 3, 6, 1, 6, 3, 1, 1, 5, 3
#define PZ_OID_LINK_UP 1, 3, 6, 1, 6, 3, 1, 1, 5, 4
#define PZ_OID_IF_ENTRY 1, 3, 6, 1, 2, 1, 2, 2, 1 /* + column, ifIndex */

#define PZ_OID_ROOT 1, 3, 6, 1, 4, 1, PZ_SNMP_ENTERPRISE
#define PZ_OID_NOTIFY PZ_OID_ROOT, 0    /* + 1 onset, 2 clear, 3 lost, 4 regained */
#define PZ_OID_SWITCH PZ_OID_ROOT, 1, 1 /* pzSwitch scalars */
#define PZ_OID_PORT_ENTRY PZ_OID_ROOT, 1, 2, 1
#define PZ_OID_CONG_ENTRY PZ_OID_ROOT, 1, 3, 1
#define PZ_OID_CONG_SETTINGS PZ_OID_ROOT, 1, 4
#define PZ_OID_REACH_ENTRY PZ_OID_ROOT, 1, 5, 1
#define PZ_OID_ROUTE_CHECK PZ_OID_ROOT, 1, 7 /* pzRouteCheck scalars (mib_routes.c) */

/* Notifications of PORTZERO-MIB. */
enum {
    PZ_NOTIFY_HOTSPOT_ONSET = 1,
    PZ_NOTIFY_HOTSPOT_CLEAR = 2,
    PZ_NOTIFY_REACH_LOST = 3,
    PZ_NOTIFY_REACH_REGAINED = 4
};

/* pzCongEntry columns. */
enum {
    PZ_CONG_CLASS = 2,
    PZ_CONG_TICKS = 3,
    PZ_CONG_UTIL = 4,
    PZ_CONG_SINCE = 5,
    PZ_CONG_PEER = 6
};

/* pzReachEntry columns. */
enum {
    PZ_REACH_GUID = 2,
    PZ_REACH_NAME = 3,
    PZ_REACH_STATUS = 4,
    PZ_REACH_RTT = 5,
    PZ_REACH_SINCE = 6
};

#endif /* PZ_SNMP_OIDS_H */
