/*
 * snmp_persist.c - ifAlias values kept across restarts in net-snmp's
 * persistent file (<state_dir>/portzero-snmp.conf), as lines
 * "pzIfAlias <ifIndex> <alias as a quoted or hex octet string>" written by
 * net-snmp's store callback and read back with the rest of that file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include "snmp_internal.h"

#define PERSIST_TOKEN "pzIfAlias"

/*
 * net-snmp's config handlers take no user argument (and it frees store
 * callbacks' arguments at shut-down): the agent they serve is the one
 * registered last (one per process).
 */
static struct pz_snmp *persist_agent;

/* Parse one stored line: ifIndex and alias; bad lines are ignored. */
static void persist_parse(const char *token, char *line)
{
    struct pz_snmp *s = persist_agent;
    char alias[PZ_SNMP_ALIAS_MAX + 1];
    char *p = line, *end;
    size_t len = sizeof(alias);
    u_char *buf = (u_char *)alias;
    unsigned long ifindex;

    (void)token;
    if (!s || !line)
        return;
    ifindex = strtoul(p, &end, 10);
    if (end == p || ifindex < 1 || ifindex > s->num_if)
        return;
    memset(alias, 0, sizeof(alias));
    /* Returns what follows the string (NULL at the end of the line), not a status. */
    (void)read_config_read_octet_string(skip_white(end), &buf, &len);
    if (len > PZ_SNMP_ALIAS_MAX)
        return;
    memcpy(s->if_rows[ifindex - 1].alias, alias, len);
    s->if_rows[ifindex - 1].alias[len] = '\0';
}

/* Store callback: one line per non-empty ifAlias. */
static int persist_store(int major, int minor, void *server_arg, void *client_arg)
{
    struct pz_snmp *s = persist_agent;
    char line[16 + 4 * PZ_SNMP_ALIAS_MAX + 8];

    (void)major;
    (void)minor;
    (void)server_arg;
    (void)client_arg;
    if (!s)
        return SNMPERR_SUCCESS;
    for (unsigned i = 1; i <= s->num_if; i++) {
        const char *alias = s->if_rows[i - 1].alias;
        char *cp;

        if (!alias[0])
            continue;
        cp = line + snprintf(line, sizeof(line), PERSIST_TOKEN " %u ", i);
        read_config_save_octet_string(cp, (const u_char *)alias, strlen(alias));
        read_config_store(PZ_SNMP_APP, line);
    }
    return SNMPERR_SUCCESS;
}

void snmp_persist_register(struct pz_snmp *s)
{
    persist_agent = s;
    register_config_handler(PZ_SNMP_APP, PERSIST_TOKEN, persist_parse, NULL, NULL);
    /* No client argument: snmp_shutdown() frees the callbacks' arguments. */
    snmp_register_callback(SNMP_CALLBACK_LIBRARY, SNMP_CALLBACK_STORE_DATA, persist_store, NULL);
}

void snmp_persist_unregister(struct pz_snmp *s)
{
    /* snmp_shutdown() already dropped the callback and the config handler. */
    if (persist_agent == s)
        persist_agent = NULL;
}
