/*
 * mib_routes.c - PORTZERO-MIB's pzRouteCheck scalars: the last route check
 * the agent ran (traffic/pz_routes.h, the CLI's `route check`), as the caller
 * hands it over with pz_snmp_set_route_check():
 *   1 pzRouteCheckTime      Unsigned32, seconds since 1970 UTC (0: none ran)
 *   2 pzRouteCheckSwitches  Unsigned32
 *   3 pzRouteCheckPairs     Unsigned32, switch-to-switch pairs
 *   4 pzRouteCheckUnrouted  Unsigned32, of them without a route
 *   5 pzRouteCheckCycle     INTEGER true(1) / false(2)
 *   6 pzRouteCheckDuration  Unsigned32, microseconds of the check itself
 */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>

#include "pz_snmp.h"
#include "snmp_internal.h"
#include "snmp_mib.h"
#include "snmp_oids.h"

static const oid pz_route_check_oid[] = {PZ_OID_ROUTE_CHECK};

#define PZ_ROUTE_CHECK_LAST 6

/* Set var to an Unsigned32. */
static void pz_rc_u32(netsnmp_variable_list *var, uint64_t v)
{
    u_long u = (u_long)(v > 0xFFFFFFFFu ? 0xFFFFFFFFu : v);

    snmp_set_var_typed_value(var, ASN_UNSIGNED, &u, sizeof(u));
}

/* The value of scalar which (1 .. PZ_ROUTE_CHECK_LAST) into var; false for no such object. */
static bool pz_rc_value(const struct pz_snmp_route_check *rc, unsigned which,
                        netsnmp_variable_list *var)
{
    long truth = rc->cycle ? 1 : 2;

    switch (which) {
    case 1:
        pz_rc_u32(var, rc->valid && rc->when > 0 ? (uint64_t)rc->when : 0);
        return true;
    case 2:
        pz_rc_u32(var, rc->switches);
        return true;
    case 3:
        pz_rc_u32(var, rc->pairs);
        return true;
    case 4:
        pz_rc_u32(var, rc->unrouted);
        return true;
    case 5:
        snmp_set_var_typed_value(var, ASN_INTEGER, &truth, sizeof(truth));
        return true;
    case 6:
        pz_rc_u32(var, rc->check_us);
        return true;
    }
    return false;
}

/* GET handler of the pzRouteCheck scalars. */
static int pz_route_check_handler(netsnmp_mib_handler *handler, netsnmp_handler_registration *reg,
                                  netsnmp_agent_request_info *reqinfo,
                                  netsnmp_request_info *requests)
{
    struct pz_snmp *s = reg->my_reg_void;
    size_t len = OID_LENGTH(pz_route_check_oid);

    (void)handler;
    if (reqinfo->mode != MODE_GET)
        return SNMP_ERR_NOERROR;
    for (netsnmp_request_info *r = requests; r; r = r->next) {
        netsnmp_variable_list *var = r->requestvb;
        unsigned which = var->name_length > len ? (unsigned)var->name[len] : 0;

        if (!pz_rc_value(&s->route_check, which, var))
            netsnmp_set_request_error(reqinfo, r, SNMP_NOSUCHOBJECT);
    }
    return SNMP_ERR_NOERROR;
}

int snmp_mib_routes_register(struct pz_snmp *s)
{
    return snmp_mib_register_scalars(s, "pzRouteCheck", pz_route_check_oid,
                                     OID_LENGTH(pz_route_check_oid), pz_route_check_handler,
                                     HANDLER_CAN_RONLY, PZ_ROUTE_CHECK_LAST);
}

void pz_snmp_set_route_check(struct pz_snmp *s, const struct pz_snmp_route_check *rc)
{
    s->route_check = *rc;
}
