/*
 * cli_iperf.c - the iperf commands: `iperf -c ADDRESS [-u] [-b RATE]
 * [-t SECONDS] [-P N] [-l LEN] [-i SECONDS]` (an iperf 2 client run,
 * traffic/iperf_client, printed as iperf 2.1.8 prints it), `iperf server
 * on|off` (also `iperf -s on|off`), `show iperf` (the server's counters
 * and recent tests) and `traffic matrix RATE SECONDS ADDRESS...` (one UDP
 * stream to every peer at once, each peer's server report in a table) or
 * `traffic matrix tcp SECONDS ADDRESS...` (one TCP stream to every peer,
 * the bytes each acknowledged and the rate).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_internal.h"
#include "cli_json.h"
#ifdef PZ_HAVE_IP
#include "iperf_client.h"
#include "iperf_format.h"
#include "iperf_server.h"
#include "ipoib_ip6.h"
#include "pz_ipplane.h"
#endif

#ifdef PZ_HAVE_IP
#define NS_PER_S 1e9
/* A running job looks at its streams at least this often (connect lines). */
#define CLI_IPERF_TICK_NS 200000000ull
/* The most peers a matrix takes (the CLI's words limit it further). */
#define CLI_MATRIX_MAX_PEERS IPERF_CLIENT_MAX_STREAMS

/* A running iperf client or matrix. */
struct cli_iperf_job {
    struct cli_job job;
    struct iperf_client *run;
    struct iperf_client_config cfg;
    uint32_t dst[IPERF_CLIENT_MAX_STREAMS];
    uint8_t dst6[IPERF_CLIENT_MAX_STREAMS][16]; /* iperf -c with an IPv6 address, matrix peers */
    bool v6;                                    /* iperf -c to an IPv6 address */
    bool matrix6;                               /* a matrix with IPv6 peers (their dst[i] is 0) */
    char peer6[56];                             /* that address as given */
    uint32_t local;                             /* the switch's address, for the connect lines */
    bool matrix;
    unsigned interval_s; /* 0: no interval lines */
    unsigned intervals;  /* printed so far */
    uint64_t last_poll_ns;
    uint64_t last_bytes[IPERF_CLIENT_MAX_STREAMS];
    bool announced[IPERF_CLIENT_MAX_STREAMS];
    bool header; /* the "[ ID] Interval ..." line was printed (iperf prints it once) */
};

/* Print one "[ ID] from-to sec  bytes  rate" line. */
static void cli_iperf_line(const struct cli_out *out, const char *id, double from, double to,
                           uint64_t bytes, const char *tail)
{
    char b[32], r[32];
    double secs = to - from;

    cli_printf(out, "[%s] %.4f-%.4f sec  %s  %s%s\n", id, from, to,
               iperf_format_bytes((double)bytes, b, sizeof(b)),
               iperf_format_rate(secs > 0 ? bytes * 8.0 / secs : 0, r, sizeof(r)), tail);
}

/* The id column of stream i ("  1"). */
static const char *cli_iperf_id(unsigned i, char buf[8])
{
    snprintf(buf, 8, "%3u", (i + 1) % 1000u); /* streams are at most 64 */
    return buf;
}

/* Print the connect line of each stream that started since the last poll. */
static void cli_iperf_announce(struct cli_iperf_job *j, const struct cli_out *out)
{
    for (unsigned i = 0; i < j->cfg.nstreams; i++) {
        struct iperf_stream_result r = iperf_client_stream(j->run, i);
        char id[8], a[16], b[16];

        if (j->announced[i] || r.state == IPERF_STREAM_CONNECTING ||
            (r.state == IPERF_STREAM_FAILED && !r.start_ns))
            continue;
        j->announced[i] = true;
        cli_printf(out, "[%s] local %s port %u connected with %s port %u\n", cli_iperf_id(i, id),
                   j->v6 ? (r.local_text[0] ? r.local_text : "::") : cli_ipv4_str(j->local, a),
                   r.local_port, j->v6 ? j->peer6 : cli_ipv4_str(r.dst, b), (unsigned)j->cfg.port);
    }
    if (j->interval_s && !j->matrix && !j->header) {
        cli_printf(out, "[ ID] Interval       Transfer     Bandwidth\n");
        j->header = true;
    }
}

/* Print the interval lines due by now. */
static void cli_iperf_intervals(struct cli_iperf_job *j, uint64_t now, const struct cli_out *out)
{
    uint64_t start = iperf_client_start_ns(j->run);

    while (j->interval_s && (j->intervals + 1) * j->interval_s <= j->cfg.seconds &&
           now >= start + (uint64_t)((j->intervals + 1) * j->interval_s * NS_PER_S)) {
        double from = j->intervals * (double)j->interval_s, to = from + j->interval_s;
        uint64_t sum = 0;
        char id[8];

        for (unsigned i = 0; i < j->cfg.nstreams; i++) {
            struct iperf_stream_result r = iperf_client_stream(j->run, i);

            cli_iperf_line(out, cli_iperf_id(i, id), from, to, r.bytes - j->last_bytes[i], "");
            sum += r.bytes - j->last_bytes[i];
            j->last_bytes[i] = r.bytes;
        }
        if (j->cfg.nstreams > 1)
            cli_iperf_line(out, "SUM", from, to, sum, "");
        j->intervals++;
    }
}

/* A stream's test time in seconds. */
static double cli_iperf_secs(const struct iperf_stream_result *r)
{
    return r->end_ns > r->start_ns ? (r->end_ns - r->start_ns) / NS_PER_S : 0;
}

/* The lost/total text of a server report ("0/182 (0%)"). */
static const char *cli_iperf_loss(const struct iperf_report *rep, char *buf, size_t len)
{
    double pct = rep->datagrams ? 100.0 * (double)rep->lost / (double)rep->datagrams : 0;

    snprintf(buf, len, "%llu/%llu (%.2g%%)", (unsigned long long)rep->lost,
             (unsigned long long)rep->datagrams, pct);
    return buf;
}

/* Print a UDP stream's server report as iperf does. */
static void cli_iperf_server_report(const struct cli_out *out, const char *id,
                                    const struct iperf_report *rep)
{
    double secs = rep->stop_sec + rep->stop_usec / 1e6;
    double jitter_ms = (rep->jitter_sec + rep->jitter_usec / 1e6) * 1e3;
    char tail[96], loss[48];

    cli_printf(out, "[%s] Server Report:\n", id);
    cli_printf(
        out, "[ ID] Interval       Transfer     Bandwidth        Jitter   Lost/Total Datagrams\n");
    snprintf(tail, sizeof(tail), "  %6.3f ms %s", jitter_ms,
             cli_iperf_loss(rep, loss, sizeof(loss)));
    cli_iperf_line(out, id, 0, secs, rep->bytes, tail);
    if (rep->outorder)
        cli_printf(out, "[%s] 0.0000-%.4f sec  %llu datagrams received out-of-order\n", id, secs,
                   (unsigned long long)rep->outorder);
}

/* Print the summary of an iperf -c run; returns the exit status. */
static int cli_iperf_summary(struct cli_iperf_job *j, const struct cli_out *out)
{
    uint64_t sum = 0;
    double longest = 0;
    int status = CLI_OK;
    char id[8];

    cli_iperf_announce(j, out);
    if (!j->header)
        cli_printf(out, "[ ID] Interval       Transfer     Bandwidth\n");
    for (unsigned i = 0; i < j->cfg.nstreams; i++) {
        struct iperf_stream_result r = iperf_client_stream(j->run, i);
        double secs = cli_iperf_secs(&r);

        cli_iperf_id(i, id);
        if (r.state == IPERF_STREAM_FAILED && !r.start_ns) {
            cli_printf(out, "[%s] connect failed: no connection to %s port %u\n", id,
                       j->v6 ? j->peer6 : cli_ipv4_str(r.dst, (char[16]){0}),
                       (unsigned)j->cfg.port);
            status = CLI_FAILED;
            continue;
        }
        cli_iperf_line(out, id, 0, secs, r.bytes, "");
        sum += r.bytes;
        longest = secs > longest ? secs : longest;
        if (r.state == IPERF_STREAM_FAILED) {
            cli_printf(out, "[%s] connection closed by the server before the end\n", id);
            status = CLI_FAILED;
        }
        if (!j->cfg.udp)
            continue;
        cli_printf(out, "[%s] Sent %llu datagrams\n", id, (unsigned long long)r.datagrams);
        if (r.have_report) {
            cli_iperf_server_report(out, id, &r.report);
        } else {
            cli_printf(out, "[%s] WARNING: did not receive ack of last datagram after %d tries.\n",
                       id, 200);
            status = CLI_FAILED;
        }
    }
    if (j->cfg.nstreams > 1)
        cli_iperf_line(out, "SUM", 0, longest, sum, "");
    return status;
}

/* A matrix stream's peer as text (IPv4 dotted, IPv6 RFC 5952); returns buf. */
static const char *cli_matrix_peer(const struct iperf_stream_result *r, char buf[46])
{
    return r->v6 ? ipoib_ip6_str(r->dst6, buf) : cli_ipv4_str(r->dst, buf);
}

/* The matrix's peer column: 15 wide (IPv4), or as wide as its longest IPv6 peer. */
static int cli_matrix_width(struct cli_iperf_job *j)
{
    int width = 15;

    for (unsigned i = 0; i < j->cfg.nstreams; i++) {
        struct iperf_stream_result r = iperf_client_stream(j->run, i);
        char ip[46];
        int len = (int)strlen(cli_matrix_peer(&r, ip));

        width = len > width ? len : width;
    }
    return width;
}

/* Print the matrix table; returns the exit status (1 when a peer sent no report). */
static int cli_matrix_summary(struct cli_iperf_job *j, const struct cli_out *out)
{
    unsigned reported = 0;
    int w = cli_matrix_width(j);

    cli_printf(out, "%-*s %12s %12s %-18s %10s  %s\n", w, "Peer", "Sent", "Received", "Lost/Total",
               "Jitter", "Rate");
    for (unsigned i = 0; i < j->cfg.nstreams; i++) {
        struct iperf_stream_result r = iperf_client_stream(j->run, i);
        char ip[46], loss[48], rate[32];
        double secs;

        cli_matrix_peer(&r, ip);
        if (!r.have_report) {
            cli_printf(out, "%-*s %12llu %12s %-18s %10s  %s\n", w, ip, (unsigned long long)r.bytes,
                       "-", "no report", "-", "-");
            continue;
        }
        reported++;
        secs = r.report.stop_sec + r.report.stop_usec / 1e6;
        cli_printf(
            out, "%-*s %12llu %12llu %-18s %7.3f ms  %s\n", w, ip, (unsigned long long)r.bytes,
            (unsigned long long)r.report.bytes, cli_iperf_loss(&r.report, loss, sizeof(loss)),
            (r.report.jitter_sec + r.report.jitter_usec / 1e6) * 1e3,
            iperf_format_rate(secs > 0 ? r.report.bytes * 8.0 / secs : 0, rate, sizeof(rate)));
    }
    cli_printf(out, "%u of %u peers reported\n", reported, j->cfg.nstreams);
    return reported == j->cfg.nstreams ? CLI_OK : CLI_FAILED;
}

/* What a TCP matrix stream's end says ("done", "no connection", "closed early"). */
static const char *cli_matrix_tcp_state(const struct iperf_stream_result *r)
{
    if (r->state != IPERF_STREAM_FAILED)
        return "done";
    return r->start_ns ? "closed early" : "no connection";
}

/*
 * Print the TCP matrix table (bytes the peer acknowledged, so what it
 * received, and the rate over the stream's time); returns the exit status
 * (1 when a stream did not connect or was closed early).
 */
static int cli_matrix_tcp_summary(struct cli_iperf_job *j, const struct cli_out *out)
{
    unsigned completed = 0;
    uint64_t sum = 0;
    char rate[32];
    int w = cli_matrix_width(j);

    cli_printf(out, "%-*s %12s %10s %14s  %s\n", w, "Peer", "Received", "Seconds", "Rate", "State");
    for (unsigned i = 0; i < j->cfg.nstreams; i++) {
        struct iperf_stream_result r = iperf_client_stream(j->run, i);
        double secs = cli_iperf_secs(&r);
        char ip[46];

        completed += r.state != IPERF_STREAM_FAILED;
        sum += r.bytes;
        cli_printf(out, "%-*s %12llu %10.4f %14s  %s\n", w, cli_matrix_peer(&r, ip),
                   (unsigned long long)r.bytes, secs,
                   iperf_format_rate(secs > 0 ? r.bytes * 8.0 / secs : 0, rate, sizeof(rate)),
                   cli_matrix_tcp_state(&r));
    }
    cli_printf(out, "%-*s %12llu\n", w, "Total", (unsigned long long)sum);
    cli_printf(out, "%u of %u peers completed\n", completed, j->cfg.nstreams);
    return completed == j->cfg.nstreams ? CLI_OK : CLI_FAILED;
}

/* Job: connect lines, interval lines; at the end the summary. */
static int cli_iperf_poll(struct cli_job *job, uint64_t now, const struct cli_out *out)
{
    struct cli_iperf_job *j = (struct cli_iperf_job *)job;

    j->last_poll_ns = now;
    if (!j->matrix) {
        cli_iperf_announce(j, out);
        cli_iperf_intervals(j, now, out);
    }
    if (!iperf_client_done(j->run))
        return CLI_RUNNING;
    if (!j->matrix)
        return cli_iperf_summary(j, out);
    return j->cfg.udp ? cli_matrix_summary(j, out) : cli_matrix_tcp_summary(j, out);
}

/* The job's next work: the next interval line, or a look at the streams. */
static uint64_t cli_iperf_deadline(const struct cli_job *job)
{
    const struct cli_iperf_job *j = (const struct cli_iperf_job *)job;
    uint64_t next =
        (j->last_poll_ns ? j->last_poll_ns : iperf_client_start_ns(j->run)) + CLI_IPERF_TICK_NS;

    if (j->interval_s) {
        uint64_t iv = iperf_client_start_ns(j->run) +
                      (uint64_t)((j->intervals + 1) * j->interval_s * NS_PER_S);

        next = iv < next ? iv : next;
    }
    return next;
}

static int cli_iperf_fd(const struct cli_job *job)
{
    const struct cli_iperf_job *j = (const struct cli_iperf_job *)job;

    return iperf_client_fd(j->run);
}

static void cli_iperf_free(struct cli_job *job)
{
    struct cli_iperf_job *j = (struct cli_iperf_job *)job;

    iperf_client_stop(j->run);
    free(j);
}

static const struct cli_job_ops cli_iperf_ops = {
    .poll = cli_iperf_poll,
    .deadline = cli_iperf_deadline,
    .fd = cli_iperf_fd,
    .free = cli_iperf_free,
};

/* Start the job's run; returns CLI_RUNNING with *job set, or CLI_FAILED (printed). */
static int cli_iperf_launch(const struct cli_env *env, struct cli_iperf_job *j,
                            const struct cli_out *out, struct cli_job **job)
{
    j->cfg.dst = j->dst;
    j->cfg.dst6 = j->v6 || j->matrix6 ? (const uint8_t(*)[16])j->dst6 : NULL;
    j->local = env->cfg ? env->cfg->ip_address : 0;
    j->run = iperf_client_start(&j->cfg);
    if (!j->run) {
        free(j);
        cli_printf(out, "%% cannot start the test\n");
        return CLI_FAILED;
    }
    j->job.ops = &cli_iperf_ops;
    *job = &j->job;
    return CLI_RUNNING;
}

/* `iperf server on|off` (argument: on or off), `iperf -s on|off` (through cli_cmd_iperf). */
static int cli_iperf_server_switch(const struct cli_env *env, const char *word,
                                   const struct cli_out *out)
{
    bool on = word && !strcmp(word, "on");

    if (!word || (!on && strcmp(word, "off"))) {
        cli_printf(out, "%% usage: iperf server on|off\n");
        return CLI_USAGE;
    }
    if (!env->plane) { /* an agent without ip_address */
        cli_printf(out, "%% no IP plane (ip_address is not set)\n");
        return CLI_FAILED;
    }
    if (pz_ipplane_iperf_server(env->plane, on)) {
        cli_printf(out, "%% cannot start the iperf server on port %d\n", IPERF_PORT);
        return CLI_FAILED;
    }
    cli_printf(out, "iperf server %s (TCP and UDP port %d)\n", on ? "on" : "off", IPERF_PORT);
    return CLI_OK;
}

/* Whether k is one of the options of iperf -c that take a value (-c -b -t -P -l -i). */
static bool cli_iperf_value_option(const char *k)
{
    return k[0] == '-' && k[1] != '\0' && strchr("cbtPli", k[1]) && k[2] == '\0';
}

/* Parse iperf -c's options into j; returns 0 or -1 (printed). */
static int cli_iperf_options(const struct cli_args *a, const struct cli_out *out,
                             struct cli_iperf_job *j, double *rate)
{
    for (unsigned i = 0; i < a->argc; i++) {
        const char *k = a->argv[i], *v = i + 1 < a->argc ? a->argv[i + 1] : NULL;
        int bad = 0;

        if (!strcmp(k, "-u")) {
            j->cfg.udp = true;
            continue;
        }
        if (!cli_iperf_value_option(k)) {
            cli_printf(out, "%% unknown option: %s\n", k); /* -r, -d, -R...: not supported */
            return -1;
        }
        if (!v)
            bad = 1;
        else if (!strcmp(k, "-c")) {
            bad = cli_parse_ipv4(v, &j->dst[0]);
            if (bad && !cli_parse_ip6(v, j->dst6[0])) {
                bad = 0;
                j->v6 = true;
                snprintf(j->peer6, sizeof(j->peer6), "%s", v);
            }
        } else if (!strcmp(k, "-b"))
            bad = !(*rate = iperf_parse_rate(v));
        else if (!strcmp(k, "-t"))
            bad = cli_parse_uint(v, 1, IPERF_CLIENT_MAX_SECONDS, &j->cfg.seconds);
        else if (!strcmp(k, "-P"))
            bad = cli_parse_uint(v, 1, IPERF_CLIENT_MAX_STREAMS, &j->cfg.nstreams);
        else if (!strcmp(k, "-l"))
            bad = cli_parse_uint(v, IPERF_CLIENT_HDR_LEN, 1024 * 1024, &j->cfg.len);
        else if (!strcmp(k, "-i"))
            bad = cli_parse_uint(v, 1, IPERF_CLIENT_MAX_SECONDS, &j->interval_s);
        else
            bad = 1;
        if (bad) {
            cli_printf(out, "%% bad option: %s %s\n", k, v ? v : "(no value)");
            return -1;
        }
        i++;
    }
    return 0;
}

int cli_cmd_iperf(const struct cli_env *env, const struct cli_args *a, const struct cli_out *out,
                  struct cli_job **job)
{
    struct cli_iperf_job *j;
    double rate = 1e6; /* iperf's UDP default, 1 Mbit/s */
    char ip[16], r[32];

    if (!env->plane) {
        cli_printf(out, "%% no IP plane (ip_address is not configured)\n");
        return CLI_FAILED;
    }
    if (a->argc && !strcmp(a->argv[0], "-s"))
        return cli_iperf_server_switch(env, a->argc == 2 ? a->argv[1] : NULL, out);
    j = calloc(1, sizeof(*j));
    if (!j)
        return CLI_FAILED;
    j->cfg = (struct iperf_client_config){.seconds = 10, .nstreams = 1, .port = IPERF_PORT};
    if (cli_iperf_options(a, out, j, &rate) || (!j->dst[0] && !j->v6) ||
        (j->cfg.udp && j->cfg.len &&
         (j->cfg.len < IPERF_UDP_LEN_MIN || j->cfg.len > IPERF_UDP_LEN_MAX))) {
        cli_printf(out,
                   "%% usage: iperf -c ADDRESS [-u] [-b RATE] [-t SECONDS] [-P N] "
                   "[-l LEN] [-i SECONDS]  (UDP: -l %d..%d)\n",
                   IPERF_UDP_LEN_MIN, IPERF_UDP_LEN_MAX);
        free(j);
        return CLI_USAGE;
    }
    if (!j->cfg.len)
        j->cfg.len = j->cfg.udp ? 1470 : 128 * 1024; /* iperf's defaults */
    j->cfg.rate_bps = (uint64_t)rate;
    for (unsigned i = 1; i < j->cfg.nstreams; i++) {
        j->dst[i] = j->dst[0];
        memcpy(j->dst6[i], j->dst6[0], 16);
    }
    cli_printf(out, "------------------------------------------------------------\n");
    cli_printf(out, "Client connecting to %s, %s port %d\n",
               j->v6 ? j->peer6 : cli_ipv4_str(j->dst[0], ip), j->cfg.udp ? "UDP" : "TCP",
               IPERF_PORT);
    if (j->cfg.udp)
        cli_printf(out, "Sending %u byte datagrams, rate %s per stream\n", j->cfg.len,
                   iperf_format_rate(rate, r, sizeof(r)));
    cli_printf(out, "------------------------------------------------------------\n");
    return cli_iperf_launch(env, j, out, job);
}

int cli_cmd_iperf_server(const struct cli_env *env, const struct cli_args *a,
                         const struct cli_out *out, struct cli_job **job)
{
    (void)job;
    if (!env->plane) {
        cli_printf(out, "%% no IP plane (ip_address is not configured)\n");
        return CLI_FAILED;
    }
    return cli_iperf_server_switch(env, a->argc == 1 ? a->argv[0] : NULL, out);
}

/*
 * One matrix peer into j's stream i: IPv4 into dst[i], or IPv6 (a
 * link-local with or without %ib0) into dst6[i] with dst[i] 0.  The
 * unspecified addresses are no peer.  Returns 0 or -1 (printed).
 */
static int cli_matrix_peer_parse(const char *s, struct cli_iperf_job *j, unsigned i,
                                 const struct cli_out *out)
{
    static const uint8_t any6[16];

    if (!cli_parse_ipv4(s, &j->dst[i]) && j->dst[i])
        return 0;
    j->dst[i] = 0;
    if (!cli_parse_ip6(s, j->dst6[i]) && memcmp(j->dst6[i], any6, 16) != 0) {
        j->matrix6 = true;
        return 0;
    }
    cli_printf(out, "%% not an address: %s\n", s);
    return -1;
}

/*
 * Parse the matrix's arguments into j: `RATE SECONDS ADDRESS...` (UDP) or
 * `tcp SECONDS ADDRESS...`; returns 0 or -1 (printed).
 */
static int cli_matrix_options(const struct cli_args *a, const struct cli_out *out,
                              struct cli_iperf_job *j, double *rate)
{
    bool tcp = a->argc && !strcmp(a->argv[0], "tcp");
    unsigned first = 2; /* the first address's word */

    j->cfg = (struct iperf_client_config){
        .udp = !tcp, .len = tcp ? 128 * 1024 : 1470, .port = IPERF_PORT};
    j->cfg.nstreams = a->argc > first ? a->argc - first : 0;
    if (a->argc <= first || (!tcp && !(*rate = iperf_parse_rate(a->argv[0]))) ||
        cli_parse_uint(a->argv[1], 1, IPERF_CLIENT_MAX_SECONDS, &j->cfg.seconds) ||
        j->cfg.nstreams > CLI_MATRIX_MAX_PEERS) {
        cli_printf(out, "%% usage: traffic matrix RATE SECONDS ADDRESS...\n"
                        "%%        traffic matrix tcp SECONDS ADDRESS...\n");
        return -1;
    }
    for (unsigned i = 0; i < j->cfg.nstreams; i++)
        if (cli_matrix_peer_parse(a->argv[i + first], j, i, out))
            return -1;
    return 0;
}

int cli_cmd_traffic_matrix(const struct cli_env *env, const struct cli_args *a,
                           const struct cli_out *out, struct cli_job **job)
{
    struct cli_iperf_job *j;
    double rate = 0;
    char r[32];

    if (!env->plane) {
        cli_printf(out, "%% no IP plane (ip_address is not configured)\n");
        return CLI_FAILED;
    }
    j = calloc(1, sizeof(*j));
    if (!j)
        return CLI_FAILED;
    if (cli_matrix_options(a, out, j, &rate)) {
        free(j);
        return CLI_USAGE;
    }
    j->cfg.rate_bps = (uint64_t)rate;
    j->matrix = true;
    if (j->cfg.udp)
        cli_printf(out, "Traffic matrix: UDP %s to each of %u peers for %u s, %u-byte datagrams\n",
                   iperf_format_rate(rate, r, sizeof(r)), j->cfg.nstreams, j->cfg.seconds,
                   j->cfg.len);
    else
        cli_printf(out, "Traffic matrix: TCP to each of %u peers for %u s, %u-byte writes\n",
                   j->cfg.nstreams, j->cfg.seconds, j->cfg.len);
    return cli_iperf_launch(env, j, out, job);
}

/* A test's peer address as text (IPv4 dotted, IPv6 RFC 5952); returns buf. */
static const char *peer_addr_str(const struct iperf_server_test *t, char buf[46])
{
    return t->peer_v6 ? ipoib_ip6_str(t->peer6, buf) : cli_ipv4_str(t->peer, buf);
}

/* A test's peer with its port: "A.B.C.D:port" or "[X:Y::Z]:port"; returns buf. */
static const char *peer_port_str(const struct iperf_server_test *t, char buf[56])
{
    char ip[46];

    snprintf(buf, 56, t->peer_v6 ? "[%s]:%u" : "%s:%u", peer_addr_str(t, ip), t->peer_port);
    return buf;
}

/* `show iperf json`: the server's counters and recent tests as one JSON object. */
static void cli_show_iperf_json(struct iperf_server *srv, const struct cli_out *out)
{
    struct iperf_server_test t[IPERF_SERVER_HISTORY];
    struct iperf_server_stats st;
    struct cli_json j;
    unsigned n;
    char ip[46];

    cli_json_begin(&j, out);
    cli_json_bool(&j, "server", srv != NULL);
    if (!srv) {
        cli_json_end(&j);
        return;
    }
    st = iperf_server_stats(srv);
    cli_json_uint(&j, "port", IPERF_PORT);
    cli_json_uint(&j, "tcp_tests", st.tcp_tests);
    cli_json_uint(&j, "tcp_bytes", st.tcp_bytes);
    cli_json_uint(&j, "udp_tests", st.udp_tests);
    cli_json_uint(&j, "udp_datagrams", st.udp_datagrams);
    cli_json_uint(&j, "udp_bytes", st.udp_bytes);
    cli_json_uint(&j, "reports_sent", st.reports_sent);
    cli_json_uint(&j, "refused", st.refused);
    cli_json_uint(&j, "malformed", st.malformed);
    n = iperf_server_history(srv, t, IPERF_SERVER_HISTORY);
    cli_json_array(&j, "recent_tests");
    for (unsigned i = 0; i < n; i++) {
        cli_json_object(&j, NULL);
        cli_json_str(&j, "proto", t[i].udp ? "UDP" : "TCP");
        cli_json_str(&j, "peer", peer_addr_str(&t[i], ip));
        cli_json_uint(&j, "peer_port", t[i].peer_port);
        cli_json_uint(&j, "bytes", t[i].bytes);
        cli_json_fixed(&j, "seconds", t[i].duration_us, 6);
        if (t[i].udp) {
            cli_json_uint(&j, "datagrams", t[i].datagrams);
            cli_json_uint(&j, "lost", t[i].lost);
            cli_json_bool(&j, "ended", t[i].ended);
            cli_json_fixed(&j, "jitter_ms", (uint64_t)(t[i].jitter_ms * 1000.0 + 0.5), 3);
        }
        cli_json_close_object(&j);
    }
    cli_json_close_array(&j);
    cli_json_end(&j);
}

int cli_cmd_show_iperf(const struct cli_env *env, const struct cli_args *a,
                       const struct cli_out *out, struct cli_job **job)
{
    struct iperf_server *srv = env->plane ? pz_ipplane_iperf(env->plane) : NULL;
    struct iperf_server_test t[IPERF_SERVER_HISTORY];
    struct iperf_server_stats st;
    unsigned n;
    int width = 21;
    bool json;

    (void)job;
    if (cli_json_only(a, "show iperf [json]", &json, out))
        return CLI_USAGE;
    if (json) {
        cli_show_iperf_json(srv, out);
        return CLI_OK;
    }
    if (!srv) {
        cli_printf(out, "iperf server    off\n");
        return CLI_OK;
    }
    st = iperf_server_stats(srv);
    cli_printf(out, "iperf server    on (TCP and UDP port %d)\n", IPERF_PORT);
    cli_printf(out, "TCP tests       %llu (%llu bytes)\n", (unsigned long long)st.tcp_tests,
               (unsigned long long)st.tcp_bytes);
    cli_printf(out, "UDP tests       %llu (%llu datagrams, %llu bytes, %llu reports sent)\n",
               (unsigned long long)st.udp_tests, (unsigned long long)st.udp_datagrams,
               (unsigned long long)st.udp_bytes, (unsigned long long)st.reports_sent);
    cli_printf(out, "Refused         %llu\nMalformed       %llu\n", (unsigned long long)st.refused,
               (unsigned long long)st.malformed);
    n = iperf_server_history(srv, t, IPERF_SERVER_HISTORY);
    if (!n)
        return CLI_OK;
    for (unsigned i = 0; i < n; i++) { /* the peer column fits the longest (IPv6) */
        char peer[56];
        int len = (int)strlen(peer_port_str(&t[i], peer));
        width = len > width ? len : width;
    }
    cli_printf(out, "Recent tests (newest first):\n");
    cli_printf(out, "  %-5s %-*s %12s %10s %-16s %s\n", "Proto", width, "Peer", "Bytes", "Seconds",
               "Lost/Total", "Jitter");
    for (unsigned i = 0; i < n; i++) {
        char peer[56], loss[48] = "-", jitter[24] = "-";

        peer_port_str(&t[i], peer);
        if (t[i].udp) {
            snprintf(loss, sizeof(loss), "%llu/%llu%s", (unsigned long long)t[i].lost,
                     (unsigned long long)t[i].datagrams, t[i].ended ? "" : " silent");
            snprintf(jitter, sizeof(jitter), "%.3f ms", t[i].jitter_ms);
        }
        cli_printf(out, "  %-5s %-*s %12llu %10.4f %-16s %s\n", t[i].udp ? "UDP" : "TCP", width,
                   peer, (unsigned long long)t[i].bytes, t[i].duration_us / 1e6, loss, jitter);
    }
    return CLI_OK;
}
#else
/* No lwIP in this build: every iperf command says so. */
static int cli_iperf_none(const struct cli_out *out, struct cli_job **job)
{
    (void)job;
    cli_printf(out, "%% no IP plane in this build\n");
    return CLI_FAILED;
}

int cli_cmd_iperf(const struct cli_env *env, const struct cli_args *a, const struct cli_out *out,
                  struct cli_job **job)
{
    (void)env;
    (void)a;
    return cli_iperf_none(out, job);
}

int cli_cmd_traffic_matrix(const struct cli_env *env, const struct cli_args *a,
                           const struct cli_out *out, struct cli_job **job)
{
    (void)env;
    (void)a;
    return cli_iperf_none(out, job);
}

int cli_cmd_show_iperf(const struct cli_env *env, const struct cli_args *a,
                       const struct cli_out *out, struct cli_job **job)
{
    (void)env;
    (void)a;
    return cli_iperf_none(out, job);
}

int cli_cmd_iperf_server(const struct cli_env *env, const struct cli_args *a,
                         const struct cli_out *out, struct cli_job **job)
{
    (void)env;
    (void)a;
    return cli_iperf_none(out, job);
}
#endif
