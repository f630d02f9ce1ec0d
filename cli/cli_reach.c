/*
 * cli_reach.c - `show reachability [json]`: the agent's view of every
 * other switch of the subnet (traffic/pz_reach.h): name, LID, GUID, status,
 * last round trip, hops, since when; `reachability check [json]`: probe
 * every switch now, wait for the answers (a job, like ping) and print the
 * same table with this check's verdicts.  The check exits 1 when a switch
 * with the echo service did not answer.  Hops are the links on the live
 * LID route to the switch as the last `route check` read the LFTs (blank
 * before one ran).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "cli_internal.h"
#include "cli_json.h"
#include "pz_reach.h"
#include "pz_routes.h"
#include "sma.h"

#define CLI_REACH_POLL_NS 10000000ull   /* the job looks at the probes every 10 ms */
#define CLI_REACH_GRACE_NS 200000000ull /* after the probe timeout, before giving up */

/* One row to print: a peer and, in a check, whether it answered. */
struct cli_reach_row {
    const struct reach_peer *p;
    enum reach_status shown; /* the status column */
    int hops;                /* links on the route to it, -1: not known */
};

/* Port 0's LID (0: none yet). */
static uint16_t cli_reach_own_lid(const struct cli_env *env)
{
    uint8_t pi[64];

    if (!env->sma || sma_local_get(env->sma, 0, IB_ATTR_PORT_INFO, 0, pi))
        return 0;
    return (uint16_t)mad_get_field(pi, 0, IB_PORT_LID_F);
}

/* Fill the rows' hop counts: the table's, else the last route check's. */
static void cli_reach_hops(const struct cli_env *env, struct cli_reach_row *rows, size_t n)
{
    uint16_t own = cli_reach_own_lid(env);

    for (size_t i = 0; i < n; i++)
        rows[i].hops = rows[i].p->hops      ? rows[i].p->hops
                       : own && env->routes ? pz_routes_hops(env->routes, own, rows[i].p->lid)
                                            : -1;
}

/* Print the rows as a table (text). */
static void cli_reach_text(const struct cli_reach_row *rows, size_t n, uint64_t now,
                           const struct cli_out *out)
{
    cli_printf(out, "%-20s %5s %-18s %-11s %9s %4s %8s\n", "Switch", "LID", "GUID", "Status",
               "RTT(ms)", "Hops", "Since(s)");
    for (size_t i = 0; i < n; i++) {
        const struct reach_peer *p = rows[i].p;
        char rtt[16] = "-", hops[12] = "-";

        if (rows[i].shown == REACH_REACHABLE)
            snprintf(rtt, sizeof(rtt), "%.3f", (double)p->rtt_ns / 1e6);
        if (rows[i].hops >= 0)
            snprintf(hops, sizeof(hops), "%d", rows[i].hops);
        cli_printf(out, "%-20.20s %5u 0x%016llx %-11s %9s %4s %8llu\n", p->name, p->lid,
                   (unsigned long long)p->guid, reach_status_name(rows[i].shown), rtt, hops,
                   (unsigned long long)(p->since_ns && now > p->since_ns
                                            ? (now - p->since_ns) / 1000000000ull
                                            : 0));
    }
}

/* Print the rows as one JSON object. */
static void cli_reach_json(const struct cli_reach_row *rows, size_t n, uint64_t now,
                           const struct cli_out *out)
{
    struct cli_json j;
    char guid[24];

    cli_json_begin(&j, out);
    cli_json_array(&j, "switches");
    for (size_t i = 0; i < n; i++) {
        const struct reach_peer *p = rows[i].p;

        cli_json_object(&j, NULL);
        cli_json_str(&j, "name", p->name);
        cli_json_uint(&j, "lid", p->lid);
        snprintf(guid, sizeof(guid), "0x%016llx", (unsigned long long)p->guid);
        cli_json_str(&j, "guid", guid);
        cli_json_str(&j, "status", reach_status_name(rows[i].shown));
        if (rows[i].shown == REACH_REACHABLE)
            cli_json_fixed(&j, "rtt_ms", p->rtt_ns / 1000u, 3);
        else
            cli_json_null(&j, "rtt_ms");
        if (rows[i].hops >= 0)
            cli_json_uint(&j, "hops", (uint64_t)rows[i].hops);
        else
            cli_json_null(&j, "hops");
        cli_json_uint(&j, "since_s",
                      p->since_ns && now > p->since_ns ? (now - p->since_ns) / 1000000000ull : 0);
        cli_json_uint(&j, "probes", p->probes);
        cli_json_uint(&j, "replies", p->replies);
        cli_json_close_object(&j);
    }
    cli_json_close_array(&j);
    cli_json_end(&j);
}

/* The agent's reachability, or NULL with a message printed. */
static struct pz_reach *cli_reach_of(const struct cli_env *env, const struct cli_out *out)
{
    if (!env->reach)
        cli_printf(out, "%% reachability is off (reach = off, or no port-0 datagrams)\n");
    return env->reach;
}

int cli_cmd_show_reachability(const struct cli_env *env, const struct cli_args *a,
                              const struct cli_out *out, struct cli_job **job)
{
    struct pz_reach *r = cli_reach_of(env, out);
    struct cli_reach_row *rows;
    const struct reach_peer *p;
    size_t n = 0;
    bool json;

    (void)job;
    if (cli_json_only(a, "show reachability [json]", &json, out))
        return CLI_USAGE;
    if (!r)
        return CLI_FAILED;
    p = pz_reach_peers(r, &n);
    rows = calloc(n ? n : 1, sizeof(*rows));
    if (!rows) {
        cli_printf(out, "%% out of memory\n");
        return CLI_FAILED;
    }
    for (size_t i = 0; i < n; i++)
        rows[i] = (struct cli_reach_row){.p = &p[i], .shown = p[i].status};
    cli_reach_hops(env, rows, n);
    if (json)
        cli_reach_json(rows, n, cli_now_ns(), out);
    else
        cli_reach_text(rows, n, cli_now_ns(), out);
    free(rows);
    return CLI_OK;
}

/* A running check: the replies each peer had when it started, by GUID. */
struct cli_reach_job {
    struct cli_job job;
    struct cli_env env; /* a copy: the caller's may not outlive the command */
    struct pz_reach *reach;
    bool json;
    uint64_t start_ns, give_up_ns, next_ns;
    size_t n;
    uint64_t *guid, *replies;
};

/* The replies peer p had at the start (UINT64_MAX: it was not known then). */
static uint64_t cli_reach_replies_at_start(const struct cli_reach_job *rj,
                                           const struct reach_peer *p)
{
    for (size_t i = 0; i < rj->n; i++)
        if (rj->guid[i] == p->guid)
            return rj->replies[i];
    return UINT64_MAX;
}

/* Whether every probed peer has its check probe answered or timed out. */
static bool cli_reach_settled(const struct cli_reach_job *rj)
{
    size_t n = 0;
    const struct reach_peer *p = pz_reach_peers(rj->reach, &n);

    for (size_t i = 0; i < n; i++)
        if (p[i].has_service && (p[i].outstanding || p[i].sent_ns < rj->start_ns))
            return false;
    return true;
}

/* Print the check's table; returns 1 when a probed peer did not answer. */
static int cli_reach_report(struct cli_reach_job *rj, const struct cli_out *out)
{
    size_t n = 0, lost = 0;
    const struct reach_peer *p = pz_reach_peers(rj->reach, &n);
    struct cli_reach_row *rows = calloc(n ? n : 1, sizeof(*rows));

    if (!rows) {
        cli_printf(out, "%% out of memory\n");
        return CLI_FAILED;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t before = cli_reach_replies_at_start(rj, &p[i]);
        bool answered = before != UINT64_MAX && p[i].replies > before;

        rows[i].p = &p[i];
        rows[i].shown = p[i].status == REACH_LOST && !p[i].has_service ? REACH_LOST
                        : !p[i].has_service                            ? REACH_NO_AGENT
                        : answered                                     ? REACH_REACHABLE
                                                                       : REACH_UNREACHABLE;
        lost += rows[i].shown == REACH_UNREACHABLE || rows[i].shown == REACH_LOST;
    }
    cli_reach_hops(&rj->env, rows, n);
    if (rj->json)
        cli_reach_json(rows, n, cli_now_ns(), out);
    else {
        cli_reach_text(rows, n, cli_now_ns(), out);
        cli_printf(out, "%zu switches, %zu unreachable\n", n, lost);
    }
    free(rows);
    return lost ? CLI_FAILED : CLI_OK;
}

/* Job: wait until every probe is answered or timed out, then print. */
static int cli_reach_poll(struct cli_job *job, uint64_t now, const struct cli_out *out)
{
    struct cli_reach_job *rj = (struct cli_reach_job *)job;

    if (now < rj->give_up_ns && !cli_reach_settled(rj)) {
        rj->next_ns = now + CLI_REACH_POLL_NS;
        return CLI_RUNNING;
    }
    return cli_reach_report(rj, out);
}

static uint64_t cli_reach_deadline(const struct cli_job *job)
{
    return ((const struct cli_reach_job *)job)->next_ns;
}

static void cli_reach_free(struct cli_job *job)
{
    struct cli_reach_job *rj = (struct cli_reach_job *)job;

    free(rj->guid);
    free(rj->replies);
    free(rj);
}

static const struct cli_job_ops cli_reach_ops = {
    .poll = cli_reach_poll,
    .deadline = cli_reach_deadline,
    .fd = NULL,
    .free = cli_reach_free,
};

/* Remember every peer's reply count; 0 or -1 (out of memory). */
static int cli_reach_snapshot(struct cli_reach_job *rj)
{
    size_t n = 0;
    const struct reach_peer *p = pz_reach_peers(rj->reach, &n);

    rj->guid = calloc(n ? n : 1, sizeof(*rj->guid));
    rj->replies = calloc(n ? n : 1, sizeof(*rj->replies));
    if (!rj->guid || !rj->replies)
        return -1;
    for (size_t i = 0; i < n; i++) {
        rj->guid[i] = p[i].guid;
        rj->replies[i] = p[i].replies;
    }
    rj->n = n;
    return 0;
}

int cli_cmd_reachability_check(const struct cli_env *env, const struct cli_args *a,
                               const struct cli_out *out, struct cli_job **job)
{
    struct pz_reach *r = cli_reach_of(env, out);
    struct cli_reach_job *rj;
    uint64_t now = cli_now_ns();
    bool json;

    if (cli_json_only(a, "reachability check [json]", &json, out))
        return CLI_USAGE;
    if (!r)
        return CLI_FAILED;
    if (!pz_reach_discovered(r)) {
        cli_printf(out, "%% no switches discovered yet (the SM or its SA has not answered)\n");
        return CLI_FAILED;
    }
    rj = calloc(1, sizeof(*rj));
    if (!rj || (rj->reach = r, cli_reach_snapshot(rj))) {
        if (rj)
            cli_reach_free(&rj->job);
        cli_printf(out, "%% out of memory\n");
        return CLI_FAILED;
    }
    rj->job.ops = &cli_reach_ops;
    rj->env = *env;
    rj->json = json;
    rj->start_ns = now;
    rj->give_up_ns = now + pz_reach_timeout_ns(r) + CLI_REACH_GRACE_NS;
    rj->next_ns = now + CLI_REACH_POLL_NS;
    pz_reach_probe_all(r, now);
    *job = &rj->job;
    return CLI_RUNNING;
}
