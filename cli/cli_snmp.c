/*
 * cli_snmp.c - `show snmp [json]`: the SNMP agent's engine (ID, boots,
 * time), its configured users, communities and sinks without secrets
 * (snmp/'s pz_snmp_conf_items), and the SNMPv2-MIB snmp group counters.
 */
#include <stdio.h>
#include <string.h>

#include "cli_internal.h"
#include "cli_json.h"

#ifdef PZ_HAVE_SNMP
#include "pz_snmp.h"

#define CLI_SNMP_ITEMS 64

/* The engine ID as hex into buf (2 per byte + NUL); returns buf. */
static const char *cli_snmp_engine_hex(const struct pz_snmp_info *in, char *buf, size_t cap)
{
    size_t len = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < in->engine_id_len && len + 3 <= cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%02x", in->engine_id[i]);
    return buf;
}

/* The snmp group counters by their SNMPv2-MIB names, in text or JSON. */
static void cli_snmp_counters(const struct pz_snmp_info *in, const struct cli_out *out,
                              struct cli_json *j)
{
    const struct {
        const char *name;
        uint64_t v;
    } c[] = {
        {"snmpInPkts", in->in_pkts},
        {"snmpOutPkts", in->out_pkts},
        {"snmpInBadVersions", in->in_bad_versions},
        {"snmpInBadCommunityNames", in->in_bad_community_names},
        {"snmpInBadCommunityUses", in->in_bad_community_uses},
        {"snmpInASNParseErrs", in->in_asn_parse_errs},
        {"snmpSilentDrops", in->silent_drops},
        {"snmpProxyDrops", in->proxy_drops},
        {"datagramsIn", in->agent.datagrams_in},
        {"datagramsDropped", in->agent.datagrams_dropped},
        {"datagramsOut", in->agent.datagrams_out},
        {"sendErrors", in->agent.send_errors},
        {"notifications", in->agent.notifications},
        {"notificationsHeld", in->agent.notifications_held},
        {"notificationsDropped", in->agent.notifications_dropped},
    };

    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        if (j)
            cli_json_uint(j, c[i].name, c[i].v);
        else
            cli_printf(out, "  %-26s %llu\n", c[i].name, (unsigned long long)c[i].v);
    }
}

/* show snmp as one JSON object. */
static void cli_snmp_json(const struct pz_snmp_info *in, const struct pz_snmp_conf_item *it,
                          size_t n, const struct cli_out *out)
{
    struct cli_json j;
    char hex[80];

    cli_json_begin(&j, out);
    cli_json_bool(&j, "agent", true);
    cli_json_str(&j, "engine_id", cli_snmp_engine_hex(in, hex, sizeof(hex)));
    cli_json_uint(&j, "engine_boots", in->engine_boots);
    cli_json_uint(&j, "engine_time", in->engine_time);
    cli_json_array(&j, "config");
    for (size_t i = 0; i < n; i++) {
        cli_json_object(&j, NULL);
        cli_json_str(&j, "kind", it[i].kind);
        cli_json_str(&j, "name", it[i].name);
        cli_json_str(&j, "detail", it[i].detail);
        cli_json_close_object(&j);
    }
    cli_json_close_array(&j);
    cli_json_object(&j, "counters");
    cli_snmp_counters(in, out, &j);
    cli_json_close_object(&j);
    cli_json_end(&j);
}

int cli_cmd_show_snmp(const struct cli_env *env, const struct cli_args *a,
                      const struct cli_out *out, struct cli_job **job)
{
    struct pz_snmp_conf_item items[CLI_SNMP_ITEMS];
    struct pz_snmp_info in;
    struct cli_json j;
    char hex[80];
    size_t n;
    bool json;

    (void)job;
    if (cli_json_only(a, "show snmp [json]", &json, out))
        return CLI_USAGE;
    if (!env->snmp) {
        if (json) {
            cli_json_begin(&j, out);
            cli_json_bool(&j, "agent", false);
            cli_json_end(&j);
        } else {
            cli_printf(out, "SNMP agent: off (no snmp_config)\n");
        }
        return CLI_OK;
    }
    pz_snmp_get_info(env->snmp, &in);
    n = pz_snmp_conf_items(env->snmp, items, CLI_SNMP_ITEMS);
    if (json) {
        cli_snmp_json(&in, items, n, out);
        return CLI_OK;
    }
    cli_printf(out, "%-20s %s\n", "Engine ID", cli_snmp_engine_hex(&in, hex, sizeof(hex)));
    cli_printf(out, "%-20s %u\n", "Engine boots", in.engine_boots);
    cli_printf(out, "%-20s %u s\n", "Engine time", in.engine_time);
    cli_printf(out, "\n%-12s %-24s %s\n", "Configured", "Name", "Detail");
    for (size_t i = 0; i < n; i++)
        cli_printf(out, "%-12s %-24s %s\n", items[i].kind, items[i].name, items[i].detail);
    cli_printf(out, "\nCounters\n");
    cli_snmp_counters(&in, out, NULL);
    return CLI_OK;
}
#else
int cli_cmd_show_snmp(const struct cli_env *env, const struct cli_args *a,
                      const struct cli_out *out, struct cli_job **job)
{
    (void)env;
    (void)a;
    (void)job;
    cli_printf(out, "SNMP agent: not built (no net-snmp)\n");
    return CLI_OK;
}
#endif
