/*
 * route_report.c - text and JSON reports of a route check (route_report.h).
 */
#include "route_report.h"

/* The description of the node that owns lid, or "?" when none does. */
static const char *rc_name(const struct rc_fabric *f, uint16_t lid)
{
    const char *n = rc_fabric_lid_name(f, lid, NULL);

    return n && *n ? n : "?";
}

/* The LID of switch index i. */
static uint16_t rc_sw_lid(const struct rc_fabric *f, uint32_t i)
{
    size_t n;
    const struct rc_switch *sw = rc_fabric_switches(f, &n);

    return i < n ? sw[i].lid : 0;
}

bool rc_result_has_findings(const struct rc_result *r)
{
    return r->nunrouted > 0 || r->loop_routes > 0 || r->cycle;
}

/* "name (LID n)" of a switch index. */
static void rc_text_switch(FILE *out, const struct rc_fabric *f, uint32_t i)
{
    uint16_t lid = rc_sw_lid(f, i);

    fprintf(out, "%s (LID %u)", rc_name(f, lid), lid);
}

/* The unrouted list, one route a line. */
static void rc_text_unrouted(FILE *out, const struct rc_fabric *f, const struct rc_result *r)
{
    if (r->nunrouted == 0)
        return;
    fprintf(out, "unrouted (%zu%s):\n", r->nunrouted,
            r->nunrouted_kept < r->nunrouted ? ", the first listed" : "");
    for (size_t i = 0; i < r->nunrouted_kept; i++) {
        const struct rc_unrouted *u = &r->unrouted[i];

        fputs("  ", out);
        rc_text_switch(out, f, u->src);
        fprintf(out, " -> %s (LID %u): %s at ", rc_name(f, u->dlid), u->dlid,
                rc_reason_name((enum rc_reason)u->reason));
        rc_text_switch(out, f, u->at);
        if (u->reason == RC_NO_LINK || u->reason == RC_WRONG_CA)
            fprintf(out, " port %u", u->port);
        fputc('\n', out);
    }
}

/* The loops, one a line: "to LID n: a -> b -> a". */
static void rc_text_loops(FILE *out, const struct rc_fabric *f, const struct rc_result *r)
{
    fprintf(out, "loops: %s", r->loop_routes ? "" : "none\n");
    if (!r->loop_routes)
        return;
    fprintf(out, "%zu routes\n", r->loop_routes);
    for (size_t i = 0; i < r->nloops; i++) {
        const struct rc_loop *l = &r->loops[i];

        fprintf(out, "  to %s (LID %u): ", rc_name(f, l->dlid), l->dlid);
        for (size_t k = 0; k < l->len; k++) {
            rc_text_switch(out, f, l->sw[k]);
            fputs(" -> ", out);
        }
        rc_text_switch(out, f, l->sw[0]);
        fputc('\n', out);
    }
}

/* The cycle, one channel a line. */
static void rc_text_cycle(FILE *out, const struct rc_fabric *f, const struct rc_result *r)
{
    fprintf(out, "channel dependency graph: %zu channels, %zu dependencies, cycle: %s\n",
            r->channels, r->dependencies, r->cycle ? "yes" : "no");
    if (!r->cycle)
        return;
    fprintf(out, "cycle (%zu channels):\n", r->cycle_len);
    for (size_t i = 0; i < r->cycle_len; i++) {
        const struct rc_channel *c = &r->cycle_channels[i];

        fputs("  ", out);
        rc_text_switch(out, f, c->from);
        fprintf(out, " port %u -> ", c->port);
        rc_text_switch(out, f, c->to);
        fputc('\n', out);
    }
}

/* The LIDs line: how many the switches and CA ports own, and where their LMCs came from. */
static void rc_text_lids(FILE *out, const struct rc_fabric *f, const struct rc_result *r)
{
    const char *why;

    fprintf(out, "LIDs: switches %zu, CA ports %zu", r->switch_lids, r->ca_lids);
    if (rc_fabric_lmc_known(f, &why))
        fprintf(out, " (LMC from PortInfoRecords: %zu ports above 0, at most %u)\n", r->lmc_ports,
                r->max_lmc);
    else
        fprintf(out, " (LMC not read: %s; every port taken as LMC 0)\n", why);
}

void rc_report_text(FILE *out, const struct rc_fabric *f, const struct rc_result *r,
                    const struct rc_timing *t)
{
    fprintf(out, "switches: %zu, CA ports: %zu, links: %zu, LFT blocks: %zu\n", r->switches,
            r->endpoints, rc_fabric_links(f), rc_fabric_lft_blocks(f));
    rc_text_lids(out, f, r);
    fprintf(out, "switch-to-switch pairs: %zu, routed: %zu, unrouted: %zu\n", r->pairs, r->routed,
            r->pairs - r->routed);
    if (r->ca_pairs)
        fprintf(out, "switch-to-CA routes: %zu, routed: %zu, unrouted: %zu\n", r->ca_pairs,
                r->ca_routed, r->ca_pairs - r->ca_routed);
    fprintf(out, "longest route: %u links\n", r->max_hops);
    rc_text_unrouted(out, f, r);
    rc_text_loops(out, f, r);
    rc_text_cycle(out, f, r);
    if (t && t->read_s >= 0)
        fprintf(out, "time: tables read %.3f s, check %.3f s\n", t->read_s, t->check_s);
    fprintf(out, "result: %s\n", rc_result_has_findings(r) ? "FINDINGS" : "clean");
}

/* A JSON string (quotes, backslashes and control bytes escaped). */
static void rc_json_str(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;

        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

/* {"name": ..., "lid": n} of a LID. */
static void rc_json_node(FILE *out, const struct rc_fabric *f, uint16_t lid)
{
    fputs("{\"name\": ", out);
    rc_json_str(out, rc_name(f, lid));
    fprintf(out, ", \"lid\": %u}", lid);
}

static void rc_json_unrouted(FILE *out, const struct rc_fabric *f, const struct rc_result *r)
{
    fputs("  \"unrouted_list\": [", out);
    for (size_t i = 0; i < r->nunrouted_kept; i++) {
        const struct rc_unrouted *u = &r->unrouted[i];

        fputs(i ? ",\n    {\"src\": " : "\n    {\"src\": ", out);
        rc_json_node(out, f, rc_sw_lid(f, u->src));
        fputs(", \"dst\": ", out);
        rc_json_node(out, f, u->dlid);
        fputs(", \"reason\": ", out);
        rc_json_str(out, rc_reason_name((enum rc_reason)u->reason));
        fputs(", \"at\": ", out);
        rc_json_node(out, f, rc_sw_lid(f, u->at));
        fprintf(out, ", \"port\": %u}", u->port);
    }
    fputs("],\n", out);
}

static void rc_json_loops(FILE *out, const struct rc_fabric *f, const struct rc_result *r)
{
    fputs("  \"loops\": [", out);
    for (size_t i = 0; i < r->nloops; i++) {
        const struct rc_loop *l = &r->loops[i];

        fputs(i ? ",\n    {\"dst\": " : "\n    {\"dst\": ", out);
        rc_json_node(out, f, l->dlid);
        fputs(", \"switches\": [", out);
        for (size_t k = 0; k < l->len; k++) {
            fputs(k ? ", " : "", out);
            rc_json_node(out, f, rc_sw_lid(f, l->sw[k]));
        }
        fputs("]}", out);
    }
    fputs("],\n", out);
}

static void rc_json_cycle(FILE *out, const struct rc_fabric *f, const struct rc_result *r)
{
    fputs("  \"cycle_channels\": [", out);
    for (size_t i = 0; i < r->cycle_len; i++) {
        const struct rc_channel *c = &r->cycle_channels[i];

        fputs(i ? ",\n    {\"from\": " : "\n    {\"from\": ", out);
        rc_json_node(out, f, rc_sw_lid(f, c->from));
        fprintf(out, ", \"port\": %u, \"to\": ", c->port);
        rc_json_node(out, f, rc_sw_lid(f, c->to));
        fputc('}', out);
    }
    fputs("]", out);
}

void rc_report_json(FILE *out, const struct rc_fabric *f, const struct rc_result *r,
                    const struct rc_timing *t)
{
    const char *why;
    bool known = rc_fabric_lmc_known(f, &why);

    fprintf(out,
            "{\n  \"switches\": %zu, \"endpoints\": %zu, \"links\": %zu, \"lft_blocks\": %zu,\n"
            "  \"channels\": %zu, \"dependencies\": %zu,\n"
            "  \"pairs\": %zu, \"routed\": %zu, \"unrouted\": %zu,\n"
            "  \"ca_pairs\": %zu, \"ca_routed\": %zu, \"unrouted_total\": %zu,\n"
            "  \"max_hops\": %u, \"loop_routes\": %zu, \"cycle\": %s,\n",
            r->switches, r->endpoints, rc_fabric_links(f), rc_fabric_lft_blocks(f), r->channels,
            r->dependencies, r->pairs, r->routed, r->pairs - r->routed, r->ca_pairs, r->ca_routed,
            r->nunrouted, r->max_hops, r->loop_routes, r->cycle ? "true" : "false");
    fprintf(out,
            "  \"switch_lids\": %zu, \"ca_lids\": %zu, \"lmc_ports\": %zu, \"max_lmc\": %u,\n"
            "  \"lmc_known\": %s, \"lmc_note\": ",
            r->switch_lids, r->ca_lids, r->lmc_ports, r->max_lmc, known ? "true" : "false");
    if (known)
        fputs("null", out);
    else
        rc_json_str(out, why);
    fputs(",\n", out);
    if (t && t->read_s >= 0)
        fprintf(out, "  \"read_seconds\": %.6f, \"check_seconds\": %.6f,\n", t->read_s, t->check_s);
    rc_json_unrouted(out, f, r);
    rc_json_loops(out, f, r);
    rc_json_cycle(out, f, r);
    fputs("\n}\n", out);
}
