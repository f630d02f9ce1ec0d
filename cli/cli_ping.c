/*
 * cli_ping.c - `ping ADDRESS [count N] [interval MS] [timeout MS] [size BYTES]`:
 * ICMP echo (ICMPv6 for an IPv6 ADDRESS, "fe80::1%ib0" too) from the
 * switch's lwIP stack (traffic/ip_ping), printed as iputils' ping prints
 * it.  Exit status 0 when a reply came, 1 when none.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_internal.h"
#ifdef PZ_HAVE_IP
#include "ip_ping.h"
#endif

#ifdef PZ_HAVE_IP
/* A running ping. */
struct cli_ping_job {
    struct cli_job job;
    struct ip_ping *ping;
    char dst[56]; /* as given: A.B.C.D, or IPv6 with its %ib0 */
    unsigned size;
};

/* The mean deviation of the RTTs in ms, as iputils computes it: sqrt(E[rtt^2] - E[rtt]^2). */
static double cli_ping_mdev_ms(const struct ip_ping_stats *st)
{
    double mean = st->rtt_sum_ns / 1e6 / st->received;
    double var = st->rtt_sumsq_ms2 / st->received - mean * mean;

    return var > 0 ? sqrt(var) : 0;
}

/* Print the summary (at now) and return the exit status. */
static int cli_ping_summary(struct cli_ping_job *pj, uint64_t now, const struct cli_out *out)
{
    struct ip_ping_stats st = ip_ping_stats(pj->ping);
    unsigned sent = st.sent + st.errors;
    uint64_t ms = st.first_sent_ns && now > st.first_sent_ns
                      ? (now - st.first_sent_ns + 500000) / 1000000
                      : 0;
    cli_printf(out, "\n--- %s ping statistics ---\n", pj->dst);
    cli_printf(out, "%u packets transmitted, %u received, %u%% packet loss, time %llums\n", sent,
               st.received, sent ? (sent - st.received) * 100 / sent : 0, (unsigned long long)ms);
    if (st.received)
        cli_printf(out, "rtt min/avg/max/mdev = %.3f/%.3f/%.3f/%.3f ms\n", st.rtt_min_ns / 1e6,
                   st.rtt_sum_ns / 1e6 / st.received, st.rtt_max_ns / 1e6, cli_ping_mdev_ms(&st));
    else
        cli_printf(out, "%s unreachable\n", pj->dst);
    return st.received ? CLI_OK : CLI_FAILED;
}

/* Send what is due and print a line for each reply that came. */
static void cli_ping_replies(struct cli_ping_job *pj, uint64_t now, const struct cli_out *out)
{
    struct ip_ping_reply r[16];
    unsigned n;

    while ((n = ip_ping_poll(pj->ping, now, r, 16)) > 0)
        for (unsigned i = 0; i < n; i++)
            cli_printf(out, "%u bytes from %s: icmp_seq=%u ttl=%u time=%.3f ms\n", pj->size + 8,
                       pj->dst, r[i].seq + 1u, r[i].ttl, r[i].rtt_ns / 1e6);
}

/* Job: send what is due, print the replies; at the end the summary. */
static int cli_ping_poll(struct cli_job *job, uint64_t now, const struct cli_out *out)
{
    struct cli_ping_job *pj = (struct cli_ping_job *)job;

    cli_ping_replies(pj, now, out);
    if (!ip_ping_done(pj->ping, now))
        return CLI_RUNNING;
    return cli_ping_summary(pj, now, out);
}

static uint64_t cli_ping_deadline(const struct cli_job *job)
{
    const struct cli_ping_job *pj = (const struct cli_ping_job *)job;

    return ip_ping_next_deadline(pj->ping);
}

static int cli_ping_fd(const struct cli_job *job)
{
    const struct cli_ping_job *pj = (const struct cli_ping_job *)job;

    return ip_ping_fd(pj->ping);
}

static void cli_ping_free(struct cli_job *job)
{
    struct cli_ping_job *pj = (struct cli_ping_job *)job;

    ip_ping_stop(pj->ping);
    free(pj);
}

/* Ctrl-C: the replies that came, then the statistics so far (iputils' ping on SIGINT). */
static int cli_ping_interrupt(struct cli_job *job, uint64_t now, const struct cli_out *out)
{
    struct cli_ping_job *pj = (struct cli_ping_job *)job;

    cli_ping_replies(pj, now, out);
    return cli_ping_summary(pj, now, out);
}

static const struct cli_job_ops cli_ping_ops = {
    .poll = cli_ping_poll,
    .deadline = cli_ping_deadline,
    .fd = cli_ping_fd,
    .free = cli_ping_free,
    .interrupt = cli_ping_interrupt,
};

/* Parse "keyword value" options into count, interval, timeout, size; 0 or -1 (printed). */
static int cli_ping_options(const struct cli_args *a, const struct cli_out *out, unsigned *count,
                            unsigned *interval, unsigned *timeout, unsigned *size)
{
    for (unsigned i = 1; i < a->argc; i += 2) {
        const char *k = a->argv[i], *v = i + 1 < a->argc ? a->argv[i + 1] : NULL;
        int bad = !v;

        if (v && !strcmp(k, "count"))
            bad = cli_parse_uint(v, 1, IP_PING_MAX_COUNT, count);
        else if (v && !strcmp(k, "interval"))
            bad = cli_parse_uint(v, 10, 60000, interval);
        else if (v && !strcmp(k, "timeout"))
            bad = cli_parse_uint(v, 1, 60000, timeout);
        else if (v && !strcmp(k, "size"))
            bad = cli_parse_uint(v, 8, 1472, size);
        else
            bad = 1;
        if (bad) {
            cli_printf(out, "%% bad option: %s %s\n", k, v ? v : "(no value)");
            return -1;
        }
    }
    return 0;
}

int cli_cmd_ping(const struct cli_env *env, const struct cli_args *a, const struct cli_out *out,
                 struct cli_job **job)
{
    unsigned count = 5, interval = 1000, timeout = 2000, size = 56;
    struct cli_ping_job *pj;
    uint32_t dst = 0;
    uint8_t dst6[16];
    bool v6 = false;

    bool ok =
        a->argc && (!cli_parse_ipv4(a->argv[0], &dst) || (v6 = !cli_parse_ip6(a->argv[0], dst6)));

    if (!ok) {
        cli_printf(out,
                   "%% usage: ping ADDRESS [count N] [interval MS] [timeout MS] [size BYTES]\n");
        return CLI_USAGE;
    }
    if (cli_ping_options(a, out, &count, &interval, &timeout, &size))
        return CLI_USAGE;
    if (!env->plane) {
        cli_printf(out, "%% no IP plane (ip_address is not configured)\n");
        return CLI_FAILED;
    }
    pj = calloc(1, sizeof(*pj));
    if (pj)
        pj->ping = v6 ? ip_ping_start6(dst6, count, interval, timeout, size)
                      : ip_ping_start(dst, count, interval, timeout, size);
    if (!pj || !pj->ping) {
        free(pj);
        cli_printf(out, "%% cannot start the ping\n");
        return CLI_FAILED;
    }
    pj->job.ops = &cli_ping_ops;
    snprintf(pj->dst, sizeof(pj->dst), "%s", a->argv[0]);
    pj->size = size;
    cli_printf(out, "PING %s %u(%u) bytes of data.\n", pj->dst, size, size + (v6 ? 48 : 28));
    *job = &pj->job;
    return CLI_RUNNING;
}
#else
int cli_cmd_ping(const struct cli_env *env, const struct cli_args *a, const struct cli_out *out,
                 struct cli_job **job)
{
    (void)env;
    (void)a;
    (void)job;
    cli_printf(out, "%% no IP plane in this build\n");
    return CLI_FAILED;
}
#endif
