/*
 * snmp_info.c - what the CLI's `show snmp` reads: the engine (ID, boots,
 * time), the SNMPv2-MIB snmp group counters, and the configured users,
 * communities and notification sinks with their secrets left out.
 *
 * The configured access is read back from the configuration file's own
 * lines: net-snmp keeps communities and sinks in private tables with no
 * listing API, and the file is what the operator wrote.
 */
#include <stdio.h>
#include <string.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include "snmp_internal.h"

void pz_snmp_get_info(const struct pz_snmp *s, struct pz_snmp_info *info)
{
    memset(info, 0, sizeof(*info));
    info->engine_id_len = snmpv3_get_engineID(info->engine_id, sizeof(info->engine_id));
    info->engine_boots = (uint32_t)snmpv3_local_snmpEngineBoots();
    info->engine_time = (uint32_t)snmpv3_local_snmpEngineTime();
    info->in_pkts = snmp_get_statistic(STAT_SNMPINPKTS);
    info->out_pkts = snmp_get_statistic(STAT_SNMPOUTPKTS);
    info->in_bad_versions = snmp_get_statistic(STAT_SNMPINBADVERSIONS);
    info->in_bad_community_names = snmp_get_statistic(STAT_SNMPINBADCOMMUNITYNAMES);
    info->in_bad_community_uses = snmp_get_statistic(STAT_SNMPINBADCOMMUNITYUSES);
    info->in_asn_parse_errs = snmp_get_statistic(STAT_SNMPINASNPARSEERRS);
    info->silent_drops = snmp_get_statistic(STAT_SNMPSILENTDROPS);
    info->proxy_drops = snmp_get_statistic(STAT_SNMPPROXYDROPS);
    pz_snmp_get_stats(s, &info->agent);
}

/* Copy the words words[from..n) joined by spaces into out. */
static void snmp_join(char *out, size_t cap, char **words, int from, int n)
{
    size_t len = 0;

    out[0] = '\0';
    for (int i = from; i < n && len < cap; i++)
        len += (size_t)snprintf(out + len, cap - len, "%s%s", i > from ? " " : "", words[i]);
}

/*
 * One configuration line's words as an item without secrets; false for a line
 * that is not access or a sink.  createUser: name and protocols (no pass
 * phrases); rouser/rwuser: name and the rest; communities: the string hidden,
 * the source and view kept; sinks: the host and port (the community hidden).
 */
static bool snmp_item(char **w, int n, struct pz_snmp_conf_item *it)
{
    int u = 1;

    snprintf(it->kind, sizeof(it->kind), "%s", w[0]);
    if (!strcmp(w[0], "createUser")) {
        if (n > 2 && !strcmp(w[1], "-e"))
            u = 3;
        if (u >= n)
            return false;
        snprintf(it->name, sizeof(it->name), "%s", w[u]);
        snprintf(it->detail, sizeof(it->detail), "%s %s", u + 1 < n ? w[u + 1] : "noauth",
                 u + 3 < n ? w[u + 3] : "nopriv");
        return true;
    }
    if (!strcmp(w[0], "rouser") || !strcmp(w[0], "rwuser")) {
        if (n > 2 && !strcmp(w[1], "-s"))
            u = 3;
        if (u >= n)
            return false;
        snprintf(it->name, sizeof(it->name), "%s", w[u]);
        snmp_join(it->detail, sizeof(it->detail), w, u + 1, n);
        return true;
    }
    if (!strncmp(w[0], "rocommunity", 11) || !strncmp(w[0], "rwcommunity", 11)) {
        snprintf(it->name, sizeof(it->name), "(hidden)");
        snmp_join(it->detail, sizeof(it->detail), w, 2, n);
        return n > 1;
    }
    if (!strcmp(w[0], "trapsink") || !strcmp(w[0], "trap2sink") || !strcmp(w[0], "informsink")) {
        snprintf(it->name, sizeof(it->name), "%s", n > 1 ? w[1] : "");
        snprintf(it->detail, sizeof(it->detail), "port %s", n > 3 ? w[3] : "162");
        return n > 1;
    }
    return false;
}

size_t pz_snmp_conf_items(const struct pz_snmp *s, struct pz_snmp_conf_item *items, size_t max)
{
    FILE *f = s->p.config_file ? fopen(s->p.config_file, "r") : NULL;
    char line[512];
    size_t count = 0;

    if (!f)
        return 0;
    while (count < max && fgets(line, sizeof(line), f)) {
        char *w[16], *save = NULL, *tok;
        int n = 0;

        for (tok = strtok_r(line, " \t\r\n", &save); tok && n < 16;
             tok = strtok_r(NULL, " \t\r\n", &save))
            w[n++] = tok;
        if (n && w[0][0] != '#' && snmp_item(w, n, &items[count]))
            count++;
    }
    fclose(f);
    return count;
}
