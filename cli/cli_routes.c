/*
 * cli_routes.c - `route check [all] [json]`: the route check of the live
 * LFTs run by the agent (traffic/pz_routes.h: the SA's tables through the
 * agent's own SA client), printed as pz-routecheck prints it; `show route
 * check [json]`: the last result again.  Exit status 0 clean, 1 findings
 * (unrouted pairs, loops, a cycle) or a failed check.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_internal.h"
#include "pz_routes.h"

#define CLI_ROUTES_POLL_NS 10000000ull /* the job looks at the check every 10 ms */

/* A running check. */
struct cli_routes_job {
    struct cli_job job;
    struct pz_routes *routes;
    bool json;
    uint64_t next_ns;
};

/* Write the last result's report to out; returns the exit status. */
static int cli_routes_print(struct pz_routes *rt, bool json, const struct cli_out *out)
{
    struct pz_routes_summary s = pz_routes_last(rt);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);

    if (!f) {
        cli_printf(out, "%% out of memory\n");
        return CLI_FAILED;
    }
    if (!pz_routes_report(rt, f, json)) {
        fclose(f);
        free(text);
        cli_printf(out, "%% no route check has finished yet\n");
        return CLI_FAILED;
    }
    fclose(f);
    out->write(out->arg, text, len);
    free(text);
    return s.unrouted_total || s.cycle ? CLI_FAILED : CLI_OK;
}

/* Job: wait for the check, then print it. */
static int cli_routes_poll(struct cli_job *job, uint64_t now, const struct cli_out *out)
{
    struct cli_routes_job *rj = (struct cli_routes_job *)job;

    switch (pz_routes_poll(rj->routes, now)) {
    case PZ_ROUTES_RUNNING:
    case PZ_ROUTES_IDLE:
        rj->next_ns = now + CLI_ROUTES_POLL_NS;
        return CLI_RUNNING;
    case PZ_ROUTES_FAILED:
        cli_printf(out, "%% route check failed: %s\n", pz_routes_error(rj->routes));
        return CLI_FAILED;
    case PZ_ROUTES_DONE:
        break;
    }
    return cli_routes_print(rj->routes, rj->json, out);
}

static uint64_t cli_routes_deadline(const struct cli_job *job)
{
    return ((const struct cli_routes_job *)job)->next_ns;
}

static void cli_routes_free(struct cli_job *job)
{
    free(job);
}

static const struct cli_job_ops cli_routes_ops = {
    .poll = cli_routes_poll,
    .deadline = cli_routes_deadline,
    .fd = NULL, /* polled by its deadline alone */
    .free = cli_routes_free,
};

/* Parse the trailing "[all] [json]" words (each at most once, in that order); 0 or -1. */
static int cli_routes_words(const struct cli_args *a, bool allow_all, bool *all, bool *json)
{
    unsigned i = 0;

    *all = *json = false;
    if (allow_all && i < a->argc && !strcmp(a->argv[i], "all")) {
        *all = true;
        i++;
    }
    if (i < a->argc && !strcmp(a->argv[i], "json")) {
        *json = true;
        i++;
    }
    return i == a->argc ? 0 : -1;
}

int cli_cmd_route_check(const struct cli_env *env, const struct cli_args *a,
                        const struct cli_out *out, struct cli_job **job)
{
    struct cli_routes_job *rj;
    bool all, json;
    int rc;

    if (cli_routes_words(a, true, &all, &json)) {
        cli_printf(out, "%% usage: route check [all] [json]\n");
        return CLI_USAGE;
    }
    if (!env->routes) {
        cli_printf(out, "%% no route check in this agent\n");
        return CLI_FAILED;
    }
    rj = calloc(1, sizeof(*rj));
    if (!rj) {
        cli_printf(out, "%% out of memory\n");
        return CLI_FAILED;
    }
    rc = pz_routes_start(env->routes, all, cli_now_ns());
    if (rc) {
        free(rj);
        cli_printf(out, "%% route check not started: %s\n",
                   rc == -EBUSY    ? "one is running"
                   : rc == -ENOENT ? "no subnet manager known (SM LID 0)"
                                   : "the SA request could not be sent");
        return CLI_FAILED;
    }
    rj->job.ops = &cli_routes_ops;
    rj->routes = env->routes;
    rj->json = json;
    rj->next_ns = cli_now_ns() + CLI_ROUTES_POLL_NS;
    *job = &rj->job;
    return CLI_RUNNING;
}

int cli_cmd_show_route_check(const struct cli_env *env, const struct cli_args *a,
                             const struct cli_out *out, struct cli_job **job)
{
    bool all, json;

    (void)job;
    if (cli_routes_words(a, false, &all, &json)) {
        cli_printf(out, "%% usage: show route check [json]\n");
        return CLI_USAGE;
    }
    if (!env->routes) {
        cli_printf(out, "%% no route check in this agent\n");
        return CLI_FAILED;
    }
    return cli_routes_print(env->routes, json, out);
}
