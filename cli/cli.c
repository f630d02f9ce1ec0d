/*
 * cli.c - the command table and the dispatcher (see cli.h).
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli_internal.h"

/* Longest command line taken. */
#define CLI_MAX_LINE 512

static int cli_cmd_help(const struct cli_env *env, const struct cli_args *a,
                        const struct cli_out *out, struct cli_job **job);

/* The command table: every command the switch's CLI has. */
static const struct cli_command cli_table[] = {
    {{"help", NULL},
     "[WORD...]",
     "list the commands (those beginning with WORD...)",
     true,
     cli_cmd_help},
    {{"?", NULL}, "[WORD...]", "list the commands", true, cli_cmd_help},
    {{"show", "version", NULL}, "[json]", "software version", true, cli_cmd_show_version},
    {{"show", "system", NULL},
     "[json]",
     "node, GUIDs, LID, master SM, uptime",
     true,
     cli_cmd_show_system},
    {{"show", "ip", NULL},
     "[json]",
     "the IP plane: address, IPoIB group, counters, neighbours",
     true,
     cli_cmd_show_ip},
    {{"show", "interfaces", "ib", NULL},
     "[PORT [counters]] [json]",
     "ports: state, width, speed, peer, MTU; or a port's counters",
     true,
     cli_cmd_show_interfaces_ib},
    {{"clear", "counters", NULL},
     "[PORT]",
     "reset the PortCounters/PortCountersExtended counters (perfquery -R)",
     false,
     cli_cmd_clear_counters},
    {{"show", "congestion", NULL},
     "[PORT] [json]",
     "the dFtree monitor: class, ticks/s, utilisation per port",
     true,
     cli_cmd_show_congestion},
    {{"show", "lft", NULL},
     "[LID] [json]",
     "the LinearForwardingTable up to LinearFDBTop, or one LID",
     true,
     cli_cmd_show_lft},
    {{"show", "log", NULL},
     "[LINES] [json]",
     "the agent's most recent log lines",
     true,
     cli_cmd_show_log},
    {{"show", "snmp", NULL},
     "[json]",
     "the SNMP engine, users/communities/sinks (no secrets), counters",
     true,
     cli_cmd_show_snmp},
    {{"ping", NULL},
     "ADDRESS [count N] [interval MS] [timeout MS] [size BYTES]",
     "ICMP echo from the switch's IP stack",
     true,
     cli_cmd_ping},
    {{"show", "iperf", NULL},
     "[json]",
     "the iperf server: on/off, counters, recent tests",
     true,
     cli_cmd_show_iperf},
    {{"iperf", NULL},
     "-c ADDRESS [-u] [-b RATE] [-t S] [-P N] [-l LEN] [-i S]",
     "iperf 2 client test from the switch",
     false,
     cli_cmd_iperf},
    {{"iperf", "server", NULL},
     "on|off",
     "the iperf 2 server on port 5001",
     false,
     cli_cmd_iperf_server},
    {{"route", "check", NULL},
     "[all] [json]",
     "check the live routes: unrouted switch pairs, loops, a dependency cycle",
     true,
     cli_cmd_route_check},
    {{"show", "reachability", NULL},
     "[json]",
     "the other switches: reachable or not, RTT, hops, since when",
     true,
     cli_cmd_show_reachability},
    {{"reachability", "check", NULL},
     "[json]",
     "probe every switch's port 0 now and print the table (exit 1: one unreachable)",
     true,
     cli_cmd_reachability_check},
    {{"show", "route", "check", NULL},
     "[json]",
     "the last route check's report",
     true,
     cli_cmd_show_route_check},
    {{"traffic", "matrix", NULL},
     "RATE|tcp SECONDS ADDRESS...",
     "UDP at RATE (or TCP) to every peer at once; per peer bytes",
     false,
     cli_cmd_traffic_matrix},
};

#define CLI_NCOMMANDS (sizeof(cli_table) / sizeof(cli_table[0]))

void cli_printf(const struct cli_out *out, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    out->write(out->arg, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

/* Whether the n typed words begin cmd's words (each a prefix of the word at its place). */
static bool cli_begins(const struct cli_command *cmd, const char *const *words, int n)
{
    for (int w = 0; w < n; w++)
        if (!cmd->words[w] || strncmp(cmd->words[w], words[w], strlen(words[w])))
            return false;
    return true;
}

/*
 * Print the commands the user may run whose words the n typed words begin,
 * one line each ("?" left out); returns how many.
 */
static int cli_list(const char *const *words, int n, bool read_only, const struct cli_out *out)
{
    int listed = 0;

    for (size_t i = 0; i < CLI_NCOMMANDS; i++) {
        char name[64] = "";
        size_t len = 0;

        for (int w = 0; cli_table[i].words[w]; w++)
            len += (size_t)snprintf(name + len, sizeof(name) - len, "%s%s", w ? " " : "",
                                    cli_table[i].words[w]);
        if (!strcmp(name, "?") || (read_only && !cli_table[i].read_only) ||
            !cli_begins(&cli_table[i], words, n))
            continue;
        cli_printf(out, "  %-18s %-40s %s\n", name, cli_table[i].usage, cli_table[i].help);
        listed++;
    }
    return listed;
}

/* List the commands the user may run (help WORD...: those beginning with the words). */
static int cli_cmd_help(const struct cli_env *env, const struct cli_args *a,
                        const struct cli_out *out, struct cli_job **job)
{
    (void)env;
    (void)job;
    if (cli_list(a->argv, (int)a->argc, a->read_only, out) == 0) {
        cli_printf(out, "%% no command begins with those words\n");
        return CLI_USAGE;
    }
    return CLI_OK;
}

/* Split line into words (in place); returns how many, or -1 for too many. */
static int cli_split(char *line, const char *words[CLI_MAX_WORDS])
{
    int n = 0;

    for (char *p = line; *p;) {
        while (*p && isspace((unsigned char)*p))
            *p++ = '\0';
        if (!*p)
            break;
        if (n == CLI_MAX_WORDS)
            return -1;
        words[n++] = p;
        while (*p && !isspace((unsigned char)*p))
            p++;
    }
    return n;
}

/* How many words of cmd the typed words match (each a prefix), or 0 when they do not. */
static int cli_match(const struct cli_command *cmd, const char **words, int n)
{
    int w = 0;

    for (; cmd->words[w]; w++) {
        if (w >= n || strncmp(cmd->words[w], words[w], strlen(words[w])))
            return 0;
    }
    return w;
}

/*
 * The command the words name: the one whose words all match, preferring an
 * exact word over an abbreviation.  NULL when none, or *ambiguous when
 * several match equally.
 */
static const struct cli_command *cli_lookup(const char **words, int n, int *used, bool *ambiguous)
{
    const struct cli_command *best = NULL;
    int best_exact = -1;

    *ambiguous = false;
    for (size_t i = 0; i < CLI_NCOMMANDS; i++) {
        int m = cli_match(&cli_table[i], words, n), exact = 0;

        if (!m)
            continue;
        for (int w = 0; w < m; w++)
            exact += !strcmp(cli_table[i].words[w], words[w]);
        if (!best || m > *used || (m == *used && exact > best_exact)) {
            best = &cli_table[i];
            best_exact = exact;
            *used = m;
            *ambiguous = false;
        } else if (m == *used && exact == best_exact) {
            *ambiguous = true;
        }
    }
    return best;
}

/* Whether the typed words begin a longer command the user may run (e.g. a bare "show"). */
static bool cli_incomplete(const char *const *words, int n, bool read_only)
{
    if (n >= CLI_MAX_CMD_WORDS)
        return false;
    for (size_t i = 0; i < CLI_NCOMMANDS; i++)
        if (cli_table[i].words[n] && cli_begins(&cli_table[i], words, n) &&
            (!read_only || cli_table[i].read_only))
            return true;
    return false;
}

int cli_run(const struct cli_env *env, const char *line, bool read_only, const struct cli_out *out,
            struct cli_job **job)
{
    char buf[CLI_MAX_LINE];
    const char *words[CLI_MAX_WORDS];
    struct cli_args args = {0};
    const struct cli_command *cmd;
    bool ambiguous;
    int n, used = 0;

    *job = NULL;
    if (strlen(line) >= sizeof(buf)) {
        cli_printf(out, "%% line too long (at most %d characters)\n", CLI_MAX_LINE - 1);
        return CLI_USAGE;
    }
    strcpy(buf, line);
    n = cli_split(buf, words);
    if (n < 0) {
        cli_printf(out, "%% too many words (at most %d)\n", CLI_MAX_WORDS);
        return CLI_USAGE;
    }
    if (n == 0)
        return CLI_OK;
    cmd = cli_lookup(words, n, &used, &ambiguous);
    if (!cmd && !ambiguous && cli_incomplete(words, n, read_only)) {
        cli_printf(out, "%% incomplete command: %s; it goes on as one of:\n", line);
        cli_list(words, n, read_only, out);
        return CLI_USAGE;
    }
    if (!cmd || ambiguous) {
        cli_printf(out, "%% %s command: %s (try help)\n", ambiguous ? "ambiguous" : "unknown",
                   line);
        return CLI_USAGE;
    }
    if (read_only && !cmd->read_only) {
        cli_printf(out, "%% not allowed for this user\n");
        return CLI_DENIED;
    }
    args.argc = (unsigned)(n - used);
    args.read_only = read_only;
    for (unsigned i = 0; i < args.argc; i++)
        args.argv[i] = words[used + (int)i];
    return cmd->run(env, &args, out, job);
}

/* Whether word is already in cands[0..n). */
static bool cli_has_word(const char **cands, size_t n, const char *word)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(cands[i], word))
            return true;
    return false;
}

size_t cli_complete(const char *line, size_t len, bool read_only, const char **cands, size_t max)
{
    char buf[CLI_MAX_LINE];
    const char *words[CLI_MAX_WORDS];
    const char *prefix = "";
    size_t found = 0;
    int n;

    if (len >= sizeof(buf))
        return 0;
    memcpy(buf, line, len);
    buf[len] = '\0';
    n = cli_split(buf, words);
    if (n < 0)
        return 0;
    if (n > 0 && len && !isspace((unsigned char)line[len - 1]))
        prefix = words[--n]; /* the word being typed */
    if (n >= CLI_MAX_CMD_WORDS - 1)
        return 0;
    for (size_t i = 0; i < CLI_NCOMMANDS && found < max; i++) {
        const struct cli_command *cmd = &cli_table[i];
        int w;

        if (read_only && !cmd->read_only)
            continue;
        for (w = 0; w < n && cmd->words[w] && !strncmp(cmd->words[w], words[w], strlen(words[w]));
             w++)
            ;
        if (w < n || !cmd->words[n] || strncmp(cmd->words[n], prefix, strlen(prefix)) ||
            cli_has_word(cands, found, cmd->words[n]) || !strcmp(cmd->words[n], "?"))
            continue;
        cands[found++] = cmd->words[n];
    }
    return found;
}

int cli_job_poll(struct cli_job *job, uint64_t now, const struct cli_out *out)
{
    return job->ops->poll(job, now, out);
}

uint64_t cli_job_deadline(const struct cli_job *job)
{
    return job->ops->deadline(job);
}

int cli_job_fd(const struct cli_job *job)
{
    return job->ops->fd ? job->ops->fd(job) : -1;
}

void cli_job_free(struct cli_job *job)
{
    if (job)
        job->ops->free(job);
}

int cli_job_interrupt(struct cli_job *job, uint64_t now, const struct cli_out *out)
{
    int status = CLI_FAILED;

    if (!job)
        return status;
    if (job->ops->interrupt)
        status = job->ops->interrupt(job, now, out);
    job->ops->free(job);
    return status;
}

int cli_parse_ipv4(const char *s, uint32_t *out)
{
    unsigned v[4];
    char tail;

    if (sscanf(s, "%3u.%3u.%3u.%3u%c", &v[0], &v[1], &v[2], &v[3], &tail) != 4)
        return -1;
    for (int i = 0; i < 4; i++)
        if (v[i] > 255)
            return -1;
    *out = v[0] << 24 | v[1] << 16 | v[2] << 8 | v[3];
    return 0;
}

int cli_parse_ip6(const char *s, uint8_t out[16])
{
    char buf[64];
    const char *zone = strchr(s, '%');
    size_t len = zone ? (size_t)(zone - s) : strlen(s);

    if (len >= sizeof(buf) || (zone && strcmp(zone, "%ib0") != 0))
        return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    return inet_pton(AF_INET6, buf, out) == 1 ? 0 : -1;
}

struct cli_args cli_strip_json(const struct cli_args *a, bool *json)
{
    struct cli_args r = *a;

    *json = r.argc && !strcmp(r.argv[r.argc - 1], "json");
    if (*json)
        r.argc--;
    return r;
}

int cli_json_only(const struct cli_args *a, const char *usage, bool *json,
                  const struct cli_out *out)
{
    struct cli_args rest = cli_strip_json(a, json);

    if (!rest.argc)
        return CLI_OK;
    *json = false;
    cli_printf(out, "%% usage: %s\n", usage);
    return CLI_USAGE;
}

int cli_parse_uint(const char *s, unsigned min, unsigned max, unsigned *out)
{
    char *end;
    unsigned long v;

    if (!isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    v = strtoul(s, &end, 10);
    if (errno || *end || v < min || v > max)
        return -1;
    *out = (unsigned)v;
    return 0;
}

const char *cli_ipv4_str(uint32_t ip, char buf[16])
{
    snprintf(buf, 16, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 0xFF, (ip >> 8) & 0xFF, ip & 0xFF);
    return buf;
}

uint64_t cli_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
