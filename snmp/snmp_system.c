/*
 * snmp_system.c - how the agent names the switch, on top of net-snmp's
 * system module (SNMPv2-MIB system group), which keeps the values, their
 * configuration tokens, Sets and persistence:
 *
 *   - sysObjectID as configured (portzero's pzSwitchAgent unless the
 *     configuration's sysObjectID line says otherwise), noted once for the
 *     notifications' enterprise (snmp_notify.c);
 *   - sysName: net-snmp's default is the host name (gethostname), which on
 *     a switch names the management CPU's Linux, not the switch.  Unless
 *     the configuration sets sysName (read-only then, net-snmp's rule) or a
 *     manager Set it (net-snmp stores it as psysname in the state file and
 *     reads it back), a request reads the switch's NodeDescription, as the
 *     SMA answers it at that moment;
 *   - sysORTable: net-snmp registers only the SNMP framework modules it
 *     implements; IF-MIB and PORTZERO-MIB are added;
 *   - sysContact, sysName, sysLocation: a Set value with an octet outside
 *     printable ASCII is wrongValue (net-snmp stores it as a line of the
 *     state file, read back as configuration).
 *
 * net-snmp keeps sysName and sysObjectID in static buffers behind
 * "watcher" handlers and sysName's guard (negative: configured, positive:
 * Set, 0: default) behind an "update" handler of the same registration;
 * both are found through the registration of sysName.0 / sysObjectID.0.
 */
#include <stdlib.h>
#include <string.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>
#include <net-snmp/agent/agent_sysORTable.h>

#include "sma.h"
#include "snmp_internal.h"
#include "snmp_system.h"

/* What snmp_system_init found. */
struct snmp_system {
    oid object_id[MAX_OID_LEN]; /* sysObjectID.0 */
    size_t object_id_len;
    netsnmp_watcher_info *name; /* sysName's buffer (NULL: not found) */
    int *name_guard;            /* < 0 configured, > 0 Set over SNMP, 0 default */
};

static const oid sys_object_id_oid[] = {1, 3, 6, 1, 2, 1, 1, 2, 0};
static const oid sys_name_oid[] = {1, 3, 6, 1, 2, 1, 1, 5, 0};

/* sysORTable rows: IF-MIB's and PORTZERO-MIB's MODULE-IDENTITY. */
static oid sysor_if_mib[] = {1, 3, 6, 1, 2, 1, 31};
static oid sysor_portzero[] = {1, 3, 6, 1, 4, 1, PZ_SNMP_ENTERPRISE};
#define SYSOR_IF_MIB_DESCR                                                                         \
    "The MIB module to describe generic objects for network interface sub-layers"
#define SYSOR_PORTZERO_DESCR                                                                       \
    "The MIB module of portzero: InfiniBand switch ports, congestion and reachability"

/* Our handler's name in front of sysName's handlers, and of sysContact's and sysLocation's. */
#define SYSTEM_NAME_HANDLER "portzero-sysName"
#define SYSTEM_TEXT_HANDLER "portzero-sysText"

/* The registration that answers the instance name (one of net-snmp's); NULL if none. */
static netsnmp_handler_registration *system_registration(const oid *name, size_t len)
{
    netsnmp_subtree *t = netsnmp_subtree_find(name, len, NULL, "");

    return t ? t->reginfo : NULL;
}

/* The myvoid of the handler called hname in the registration of name; NULL if none. */
static void *system_handler_data(const oid *name, size_t len, const char *hname)
{
    netsnmp_handler_registration *reg = system_registration(name, len);
    netsnmp_mib_handler *h = reg ? netsnmp_find_handler_by_name(reg, hname) : NULL;

    return h ? h->myvoid : NULL;
}

/*
 * sysObjectID as configured into sys (net-snmp's watcher buffer holds it);
 * portzero's own if the buffer is not found.
 */
static void system_note_object_id(struct snmp_system *sys)
{
    const netsnmp_watcher_info *w =
        system_handler_data(sys_object_id_oid, OID_LENGTH(sys_object_id_oid), "watcher");
    static const oid pz_agent[] = {1, 3, 6, 1, 4, 1, PZ_SNMP_ENTERPRISE, 2, 1};
    size_t bytes = w && w->data_size_p ? *w->data_size_p : 0;

    if (w && bytes >= 2 * sizeof(oid) && bytes <= sizeof(sys->object_id)) {
        memcpy(sys->object_id, w->data, bytes);
        sys->object_id_len = bytes / sizeof(oid);
        return;
    }
    memcpy(sys->object_id, pz_agent, sizeof(pz_agent));
    sys->object_id_len = OID_LENGTH(pz_agent);
}

/*
 * Put the NodeDescription into sysName's buffer unless sysName is
 * configured or was Set: up to 64 bytes (the attribute's size, not always
 * NUL terminated), octets that a DisplayString (NVT ASCII) cannot hold
 * replaced by '?'.
 */
static void system_name_refresh(struct pz_snmp *s)
{
    const struct snmp_system *sys = s->sys;
    const char *desc = sma_node_description(s->p.sma);
    char *buf;
    size_t n = 0;

    if (!sys || !sys->name || !sys->name_guard || *sys->name_guard != 0 || !desc)
        return;
    buf = sys->name->data;
    while (n < 64 && n < sys->name->max_size && desc[n]) {
        unsigned char c = (unsigned char)desc[n];

        buf[n++] = c >= 0x20 && c < 0x7F ? (char)c : '?';
    }
    buf[n] = '\0';
}

/*
 * Whether a Set value of sysContact, sysName or sysLocation is one that
 * net-snmp can keep: printable ASCII only.  net-snmp stores a Set value as
 * a line of the state file (psyscontact, psysname, psyslocation) and reads
 * it back as configuration: a CR or LF in it (DisplayString allows CR LF)
 * wrote lines of its own there, such as "rocommunity evil", which the next
 * start obeyed.
 */
static bool system_text_ok(const netsnmp_variable_list *var)
{
    if (var->type != ASN_OCTET_STR)
        return true; /* net-snmp's watcher answers wrongType */
    for (size_t i = 0; i < var->val_len; i++)
        if (var->val.string[i] < 0x20 || var->val.string[i] > 0x7E)
            return false;
    return true;
}

/*
 * Injected above net-snmp's handlers of sysContact, sysName and sysLocation:
 * a read of sysName first refreshes its default; a Set of a value
 * system_text_ok refuses is wrongValue (RESERVE1).  The rest is net-snmp's.
 */
static int system_text_handler(netsnmp_mib_handler *handler, netsnmp_handler_registration *reg,
                               netsnmp_agent_request_info *reqinfo, netsnmp_request_info *requests)
{
    bool is_name = strcmp(handler->handler_name, SYSTEM_NAME_HANDLER) == 0;

    if (is_name && (reqinfo->mode == MODE_GET || reqinfo->mode == MODE_GETNEXT ||
                    reqinfo->mode == MODE_GETBULK))
        system_name_refresh(handler->myvoid);
    if (reqinfo->mode == MODE_SET_RESERVE1) {
        bool refused = false;

        for (netsnmp_request_info *r = requests; r; r = r->next)
            if (!r->processed && !system_text_ok(r->requestvb)) {
                netsnmp_set_request_error(reqinfo, r, SNMP_ERR_WRONGVALUE);
                refused = true;
            }
        if (refused)
            return SNMP_ERR_NOERROR;
    }
    return netsnmp_call_next_handler(handler, reg, reqinfo, requests);
}

/*
 * Put system_text_handler, called hname, in front of the handlers of the
 * scalar name (an instance); 0 or -1.
 */
static int system_text_inject(struct pz_snmp *s, const oid *name, size_t len, const char *hname)
{
    netsnmp_handler_registration *reg = system_registration(name, len);
    netsnmp_mib_handler *h;

    if (!reg)
        return 0; /* not served: nothing to guard */
    h = netsnmp_create_handler(hname, system_text_handler);
    if (!h)
        return -1;
    h->myvoid = s;
    if (netsnmp_inject_handler(reg, h) != SNMPERR_SUCCESS) {
        netsnmp_handler_free(h);
        return -1;
    }
    return 0;
}

/*
 * Find sysName's buffer and guard (without them, another net-snmp build,
 * sysName stays net-snmp's) and put system_text_handler in front of the
 * three writable system scalars.  Returns 0 or -1 (out of memory).
 */
static int system_hook(struct pz_snmp *s)
{
    static const oid sys_contact_oid[] = {1, 3, 6, 1, 2, 1, 1, 4, 0};
    static const oid sys_location_oid[] = {1, 3, 6, 1, 2, 1, 1, 6, 0};

    s->sys->name = system_handler_data(sys_name_oid, OID_LENGTH(sys_name_oid), "watcher");
    s->sys->name_guard = system_handler_data(sys_name_oid, OID_LENGTH(sys_name_oid), "update");
    if (!s->sys->name || !s->sys->name_guard || s->sys->name->max_size < 1)
        s->sys->name = NULL;
    if (system_text_inject(s, sys_contact_oid, OID_LENGTH(sys_contact_oid), SYSTEM_TEXT_HANDLER) !=
            0 ||
        system_text_inject(s, sys_name_oid, OID_LENGTH(sys_name_oid), SYSTEM_NAME_HANDLER) != 0 ||
        system_text_inject(s, sys_location_oid, OID_LENGTH(sys_location_oid),
                           SYSTEM_TEXT_HANDLER) != 0)
        return -1;
    system_name_refresh(s);
    return 0;
}

int snmp_system_init(struct pz_snmp *s)
{
    s->sys = calloc(1, sizeof(*s->sys));
    if (!s->sys)
        return -1;
    system_note_object_id(s->sys);
    if (register_sysORTable(sysor_if_mib, OID_LENGTH(sysor_if_mib), SYSOR_IF_MIB_DESCR) != 0 ||
        register_sysORTable(sysor_portzero, OID_LENGTH(sysor_portzero), SYSOR_PORTZERO_DESCR) != 0)
        return -1;
    return system_hook(s);
}

void snmp_system_free(struct pz_snmp *s)
{
    free(s->sys);
    s->sys = NULL;
}

const oid *snmp_system_object_id(const struct pz_snmp *s, size_t *len)
{
    *len = s->sys->object_id_len;
    return s->sys->object_id;
}
