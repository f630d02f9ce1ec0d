/*
 * pzctl_cmd.c - the operator commands of pzfabric (pzctl_cmd.h): split a
 * request into arguments, check them strictly, act on the fabric and write
 * a text reply.  Any byte string is a valid input: what is not a command
 * gets an "error: ..." reply.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric_dgram.h"
#include "fabric_traffic.h"
#include "pzctl_cmd.h"
#include "pzctl_proto.h"

#define PZCTL_PERCENT_DECIMALS 4 /* 100% = 1000000 per million */
#define PZCTL_DOWN_LINES_MAX 1000
#define PZCTL_GBPS_DECIMALS 9 /* 1 b/s */
#define PZCTL_BPS_PER_GBPS 1000000000ull
#define PZCTL_FLOW_LINE_MAX 4096 /* room a flow-list line may need (long paths) */

/* A reply being written: out[0..len) of cap bytes, always NUL terminated. */
struct reply {
    char *out;
    size_t cap;
    size_t len;
    bool cut;
};

/* A request split into arguments (pointers into a NUL-terminated copy). */
struct request {
    char text[PZCTL_REQUEST_MAX + 1];
    char *argv[PZCTL_MAX_ARGS];
    unsigned argc;
};

struct command;

/*
 * One command being executed: the fabric, its clients, the request, the
 * reply, and the node and port its NODE PORT arguments name (commands whose
 * table entry says so).
 */
struct call {
    struct fabric *f;
    size_t clients;
    const struct request *q;
    struct reply *r;
    const struct command *cmd;
    size_t node;
    unsigned port;
};

/* Whether a command's first two arguments are NODE PORT, and which ports they may name. */
enum node_port_args {
    NO_NODE_PORT,   /* they are not */
    NODE_PORT,      /* a port 1..N */
    NODE_PORT_OR_0, /* also port 0 of a switch */
};

/*
 * A command: its name, how many arguments it takes after the name, its
 * usage line (the "usage:" error and the help list), a one-line
 * description (help), the function that runs it (0, or -1 with an error
 * reply) and whether the dispatcher resolves NODE PORT for it first.
 */
struct command {
    const char *name;
    unsigned min_args;
    unsigned max_args;
    const char *usage;
    const char *help;
    int (*run)(struct call *c);
    enum node_port_args node_port;
};

/* Append formatted text to the reply; output past its capacity is cut. */
static void __attribute__((format(printf, 2, 3))) say(struct reply *r, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (r->cut)
        return;
    va_start(ap, fmt);
    n = vsnprintf(r->out + r->len, r->cap - r->len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= r->cap - r->len) {
        r->cut = true;
        r->len = r->cap - 1;
        r->out[r->len] = '\0';
        return;
    }
    r->len += (size_t)n;
}

/* Start the reply over with "error: <message>"; returns -1 for the caller. */
static int __attribute__((format(printf, 2, 3))) fail(struct reply *r, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    int n;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    n = snprintf(r->out, r->cap, "%s%s\n", PZCTL_REPLY_ERROR, msg);
    r->len = n < 0 ? 0 : (size_t)n < r->cap ? (size_t)n : r->cap - 1;
    r->cut = false;
    return -1;
}

/* Answer "error: usage: <the command's usage line>"; returns -1. */
static int fail_usage(const struct call *c)
{
    return fail(c->r, "usage: %s", c->cmd->usage);
}

/* Answer "ok" and nothing more for rc 0, else "error: <strerror(-rc)>"; returns 0 or -1. */
static int reply_rc(struct reply *r, int rc)
{
    if (rc)
        return fail(r, "%s", strerror(-rc));
    say(r, "%s\n", PZCTL_REPLY_OK);
    return 0;
}

/* Replace control characters (other than the separators) by '?' for messages. */
static void sanitize(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s == 0x7F || ((unsigned char)*s < 0x20 && !strchr("\t\n\r", *s)))
            *s = '?';
}

/*
 * Split the request into arguments: one per line, or at blanks for a
 * request of a single line (a trailing newline does not count); control
 * characters become '?'.  Returns 0, or -1 with an error reply.
 */
static int split_request(struct request *q, const char *req, size_t len, struct reply *r)
{
    const char *seps;
    char *save = NULL, *tok;

    if (len > PZCTL_REQUEST_MAX)
        return fail(r, "request longer than %d bytes", PZCTL_REQUEST_MAX);
    if (memchr(req, '\0', len))
        return fail(r, "request contains a NUL byte");
    memcpy(q->text, req, len);
    q->text[len] = '\0';
    while (len && q->text[len - 1] == '\n')
        q->text[--len] = '\0';
    sanitize(q->text);
    seps = strchr(q->text, '\n') ? "\r\n" : " \t\r";
    q->argc = 0;
    for (tok = strtok_r(q->text, seps, &save); tok; tok = strtok_r(NULL, seps, &save)) {
        if (q->argc == PZCTL_MAX_ARGS)
            return fail(r, "more than %d arguments", PZCTL_MAX_ARGS);
        q->argv[q->argc++] = tok;
    }
    if (q->argc == 0)
        return fail(r, "empty request (try \"help\")");
    return 0;
}

/* Parse a decimal number 0..max with nothing else around it; returns 0 or -1. */
static int parse_uint(const char *s, unsigned long max, unsigned long *v)
{
    char *end;

    if (*s < '0' || *s > '9' || strlen(s) > 20)
        return -1;
    errno = 0;
    *v = strtoul(s, &end, 10);
    return errno || *end || *v > max ? -1 : 0;
}

/*
 * Parse a percentage "D[.DDDD][%]" from 0 to 100 into parts per million;
 * returns 0 or -1.
 */
static int parse_percent(const char *s, uint32_t *ppm)
{
    unsigned long whole = 0, frac = 0;
    unsigned digits = 0;
    const char *p = s;

    if (*p < '0' || *p > '9')
        return -1;
    for (; *p >= '0' && *p <= '9'; p++) {
        whole = whole * 10 + (unsigned long)(*p - '0');
        if (whole > 100)
            return -1;
    }
    if (*p == '.') {
        for (p++; *p >= '0' && *p <= '9'; p++, digits++) {
            if (digits == PZCTL_PERCENT_DECIMALS)
                return -1;
            frac = frac * 10 + (unsigned long)(*p - '0');
        }
        if (digits == 0)
            return -1;
    }
    if (*p == '%')
        p++;
    if (*p)
        return -1;
    for (; digits < PZCTL_PERCENT_DECIMALS; digits++)
        frac *= 10;
    if (whole == 100 && frac)
        return -1;
    *ppm = (uint32_t)(whole * 10000 + frac);
    return 0;
}

/* Write ppm as a percentage without trailing zeros ("12.5%", "0%"). */
static void say_percent(struct reply *r, uint32_t ppm)
{
    char frac[8];
    size_t n;

    snprintf(frac, sizeof(frac), "%04u", (unsigned)(ppm % 10000));
    for (n = strlen(frac); n && frac[n - 1] == '0'; n--)
        frac[n - 1] = '\0';
    say(r, "%u%s%s%%", (unsigned)(ppm / 10000), n ? "." : "", frac);
}

/*
 * Resolve the call's NODE and PORT arguments (argv[1] and argv[2]; port
 * 1..N, or 0 too when allow0 and the node is a switch) into c->node and
 * c->port.  Returns 0, or -1 with an error reply.
 */
static int parse_node_port(struct call *c, bool allow0)
{
    struct fabric *f = c->f;
    struct reply *r = c->r;
    const char *node_arg = c->q->argv[1], *port_arg = c->q->argv[2];
    long idx = fabric_find_node(f, node_arg);
    unsigned long v;
    unsigned nports;

    if (idx < 0)
        return fail(r, "no node \"%s\" in the topology", node_arg);
    c->node = (size_t)idx;
    nports = fabric_node_num_ports(f, c->node);
    if (parse_uint(port_arg, 255, &v))
        return fail(r, "bad port number \"%s\"", port_arg);
    if (v > nports || (v == 0 && !(allow0 && fabric_node_is_switch(f, c->node))))
        return fail(r, "%s has no port %lu (ports 1..%u)", node_arg, v, nports);
    c->port = (unsigned)v;
    return 0;
}

/* Answer the error rc (negative errno) of a command on the cable at NODE PORT; returns -1. */
static int fail_cable(const struct call *c, int rc)
{
    if (rc == -ENOTCONN)
        return fail(c->r, "%s port %u has no cable", c->q->argv[1], c->port);
    return fail(c->r, "%s", strerror(-rc));
}

/* link-down / link-up NODE PORT: pull or plug the cable; returns 0 or -1. */
static int set_link(struct call *c, bool up)
{
    struct fabric *f = c->f;
    size_t peer_node;
    unsigned peer_port;
    int rc = fabric_link_set(f, c->node, c->port, up);

    if (rc && rc != -EALREADY)
        return fail_cable(c, rc);
    fabric_link_get(f, c->node, c->port, &peer_node, &peer_port);
    say(c->r, "%s\nlink %s[%u] - %s[%u] %s%s\n", PZCTL_REPLY_OK, fabric_node_name(f, c->node),
        c->port, fabric_node_name(f, peer_node), peer_port, rc ? "already " : "",
        up ? "up" : "down");
    return 0;
}

/* link-down NODE PORT. */
static int cmd_link_down(struct call *c)
{
    return set_link(c, false);
}

/* link-up NODE PORT. */
static int cmd_link_up(struct call *c)
{
    return set_link(c, true);
}

/* drop-rate PERCENT [SEED]. */
static int cmd_drop_rate(struct call *c)
{
    struct fabric *f = c->f;
    const struct request *q = c->q;
    struct reply *r = c->r;
    unsigned long long seed = 0;
    uint32_t ppm;
    char *end;

    if (parse_percent(q->argv[1], &ppm))
        return fail(r, "bad percentage \"%s\" (0 to 100, up to %d decimals)", q->argv[1],
                    PZCTL_PERCENT_DECIMALS);
    if (q->argc == 3) {
        errno = 0;
        seed = strtoull(q->argv[2], &end, 0);
        if (errno || *end || q->argv[2][0] < '0' || q->argv[2][0] > '9' || seed == 0)
            return fail(r, "bad seed \"%s\" (a non-zero number)", q->argv[2]);
    }
    fabric_set_drop_rate(f, ppm, seed);
    say(r, "%s\ndrop-rate ", PZCTL_REPLY_OK);
    say_percent(r, ppm);
    say(r, "\n");
    return 0;
}

/* link-drop NODE PORT PERCENT: the cable's own loss. */
static int cmd_link_drop(struct call *c)
{
    const struct request *q = c->q;
    struct reply *r = c->r;
    uint32_t ppm;
    int rc;

    if (parse_percent(q->argv[3], &ppm))
        return fail(r, "bad percentage \"%s\" (0 to 100, up to %d decimals)", q->argv[3],
                    PZCTL_PERCENT_DECIMALS);
    rc = fabric_set_link_drop(c->f, c->node, c->port, ppm);
    if (rc)
        return fail_cable(c, rc);
    say(r, "%s\nlink-drop %s[%u] ", PZCTL_REPLY_OK, fabric_node_name(c->f, c->node), c->port);
    say_percent(r, ppm);
    say(r, "\n");
    return 0;
}

/* The name of a link state for status. */
static const char *link_state_name(enum fabric_link_state st)
{
    switch (st) {
    case FABRIC_LINK_UP:
        return "up";
    case FABRIC_LINK_UNPLUGGED:
        return "unplugged";
    case FABRIC_LINK_DOWN:
        return "down";
    default:
        return "none";
    }
}

/* Count cables (each once) and list those not up, at most PZCTL_DOWN_LINES_MAX. */
static void status_links(struct fabric *f, struct reply *r, bool list)
{
    unsigned long total = 0, up = 0, listed = 0;

    for (size_t n = 0; n < fabric_num_nodes(f); n++) {
        for (unsigned p = 1; p <= fabric_node_num_ports(f, n); p++) {
            size_t rn;
            unsigned rp;
            enum fabric_link_state st = fabric_link_get(f, n, p, &rn, &rp);

            if (st == FABRIC_LINK_NONE || rn < n || (rn == n && rp < p))
                continue; /* no cable, or counted from its other end */
            total++;
            up += st == FABRIC_LINK_UP;
            if (list && st != FABRIC_LINK_UP && listed++ < PZCTL_DOWN_LINES_MAX)
                say(r, "link-not-up %s[%u] %s[%u] %s\n", fabric_node_name(f, n), p,
                    fabric_node_name(f, rn), rp, link_state_name(st));
        }
    }
    if (!list)
        say(r, "links %lu\nlinks-up %lu\nlinks-down %lu\n", total, up, total - up);
}

/* status. */
static int cmd_status(struct call *c)
{
    struct fabric *f = c->f;
    struct reply *r = c->r;
    unsigned long long packets;
    struct fabric_stats st;
    struct fabric_dgram_stats dg;
    size_t switches = 0;
    const char *name;

    for (size_t n = 0; n < fabric_num_nodes(f); n++)
        switches += fabric_node_is_switch(f, n);
    fabric_get_stats(f, &st);
    say(r, "%s\nnodes %zu\nswitches %zu\ncas %zu\n", PZCTL_REPLY_OK, fabric_num_nodes(f), switches,
        fabric_num_nodes(f) - switches);
    status_links(f, r, false);
    say(r, "clients %zu\ndrop-rate ", c->clients);
    say_percent(r, fabric_drop_rate(f));
    if (fabric_capture(f, &name, &packets))
        say(r, "\ncapture %s\ncaptured %llu\n", name, packets);
    else
        say(r, "\ncapture off\n");
    say(r,
        "from-clients %llu\nto-clients %llu\nhops %llu\nsma-calls %llu\ntraps %llu\n"
        "dropped %llu\nlost %llu\npkey-dropped %llu\nmcast-delivered %llu\ntimeouts %llu\n",
        (unsigned long long)st.from_clients, (unsigned long long)st.to_clients,
        (unsigned long long)st.hops, (unsigned long long)st.sma_calls, (unsigned long long)st.traps,
        (unsigned long long)st.dropped, (unsigned long long)st.lost,
        (unsigned long long)st.pkey_dropped, (unsigned long long)st.mcast_delivered,
        (unsigned long long)st.timeouts);
    fabric_dgram_get_stats(f, &dg);
    say(r,
        "dgram-sent %llu\ndgram-refused %llu\ndgram-malformed %llu\ndgram-delivered %llu\n"
        "dgram-dropped %llu\ndgram-qkey-dropped %llu\ndgram-pkey-dropped %llu\n"
        "dgram-no-stack %llu\n",
        (unsigned long long)dg.sent, (unsigned long long)dg.refused,
        (unsigned long long)dg.malformed, (unsigned long long)dg.delivered,
        (unsigned long long)dg.dropped, (unsigned long long)dg.qkey_dropped,
        (unsigned long long)dg.pkey_dropped, (unsigned long long)dg.no_stack);
    status_links(f, r, true);
    return 0;
}

/* counters NODE PORT: the scalar hardware counters of the port. */
static int cmd_counters(struct call *c)
{
    struct reply *r = c->r;
    struct board_port_counters cnt;

    if (fabric_port_counters(c->f, c->node, c->port, &cnt))
        return fail(r, "cannot read the counters of %s port %u", c->q->argv[1], c->port);
#define PZCTL_COUNTER(name) say(r, #name " %llu\n", (unsigned long long)cnt.name)
    say(r, "%s\n", PZCTL_REPLY_OK);
    PZCTL_COUNTER(symbol_errors);
    PZCTL_COUNTER(link_error_recovery);
    PZCTL_COUNTER(link_downed);
    PZCTL_COUNTER(rcv_errors);
    PZCTL_COUNTER(rcv_remote_phys_errors);
    PZCTL_COUNTER(rcv_switch_relay_errors);
    PZCTL_COUNTER(xmit_discards);
    PZCTL_COUNTER(xmit_constraint_errors);
    PZCTL_COUNTER(rcv_constraint_errors);
    PZCTL_COUNTER(local_link_integrity_errors);
    PZCTL_COUNTER(excessive_buffer_overrun_errors);
    PZCTL_COUNTER(vl15_dropped);
    PZCTL_COUNTER(qp1_dropped);
    PZCTL_COUNTER(xmit_data);
    PZCTL_COUNTER(rcv_data);
    PZCTL_COUNTER(xmit_pkts);
    PZCTL_COUNTER(rcv_pkts);
    PZCTL_COUNTER(xmit_wait);
    PZCTL_COUNTER(unicast_xmit_pkts);
    PZCTL_COUNTER(unicast_rcv_pkts);
    PZCTL_COUNTER(multicast_xmit_pkts);
    PZCTL_COUNTER(multicast_rcv_pkts);
#undef PZCTL_COUNTER
    return 0;
}

/*
 * Parse a rate "D[.DDDDDDDDD]" in Gb/s (at most FABRIC_FLOW_BPS_MAX) into
 * bits per second; returns 0 or -1.
 */
static int parse_gbps(const char *s, uint64_t *bps)
{
    uint64_t whole = 0, frac = 0;
    unsigned digits = 0;
    const char *p = s;

    if (*p < '0' || *p > '9')
        return -1;
    for (; *p >= '0' && *p <= '9'; p++) {
        whole = whole * 10 + (uint64_t)(*p - '0');
        if (whole > FABRIC_FLOW_BPS_MAX / PZCTL_BPS_PER_GBPS)
            return -1;
    }
    if (*p == '.') {
        for (p++; *p >= '0' && *p <= '9'; p++, digits++) {
            if (digits == PZCTL_GBPS_DECIMALS)
                return -1;
            frac = frac * 10 + (uint64_t)(*p - '0');
        }
        if (digits == 0)
            return -1;
    }
    if (*p)
        return -1;
    for (; digits < PZCTL_GBPS_DECIMALS; digits++)
        frac *= 10;
    *bps = whole * PZCTL_BPS_PER_GBPS + frac;
    return *bps > FABRIC_FLOW_BPS_MAX ? -1 : 0;
}

/* Write bps in Gb/s without trailing zeros ("12.5", "100"). */
static void say_gbps(struct reply *r, uint64_t bps)
{
    char frac[16];
    size_t n;

    snprintf(frac, sizeof(frac), "%09llu", (unsigned long long)(bps % PZCTL_BPS_PER_GBPS));
    for (n = strlen(frac); n && frac[n - 1] == '0'; n--)
        frac[n - 1] = '\0';
    say(r, "%llu%s%s", (unsigned long long)(bps / PZCTL_BPS_PER_GBPS), n ? "." : "", frac);
}

/* Resolve a CA argument (name or description); returns its node index, or -1 with an error
 * reply. */
static long parse_ca(struct fabric *f, const char *arg, struct reply *r)
{
    long idx = fabric_find_node(f, arg);

    if (idx < 0)
        return fail(r, "no node \"%s\" in the topology", arg);
    if (fabric_node_is_switch(f, (size_t)idx))
        return fail(r, "%s is a switch, not a CA", arg);
    return idx;
}

/* flow-add SRC DST GBPS [--sl SL]: prints the new flow's id. */
static int cmd_flow_add(struct call *c)
{
    struct fabric *f = c->f;
    const struct request *q = c->q;
    struct reply *r = c->r;
    unsigned long sl = 0;
    long src, dst;
    uint64_t bps;
    unsigned id;
    int rc;

    if ((q->argc != 4 && q->argc != 6) || (q->argc == 6 && strcmp(q->argv[4], "--sl")))
        return fail_usage(c);
    src = parse_ca(f, q->argv[1], r);
    dst = src < 0 ? -1 : parse_ca(f, q->argv[2], r);
    if (dst < 0)
        return -1;
    if (src == dst)
        return fail(r, "SRC and DST are the same CA");
    if (parse_gbps(q->argv[3], &bps) || bps == 0)
        return fail(r, "bad rate \"%s\" (Gb/s, more than 0, at most %llu, up to %d decimals)",
                    q->argv[3], FABRIC_FLOW_BPS_MAX / PZCTL_BPS_PER_GBPS, PZCTL_GBPS_DECIMALS);
    if (q->argc == 6 && parse_uint(q->argv[5], BOARD_NUM_SLS - 1, &sl))
        return fail(r, "bad SL \"%s\" (0..15)", q->argv[5]);
    rc = fabric_flow_add(f, (size_t)src, (size_t)dst, bps, (unsigned)sl, &id);
    if (rc == -ENOSPC)
        return fail(r, "too many flows (at most %d)", FABRIC_FLOWS_MAX);
    if (rc)
        return fail(r, "%s", strerror(-rc));
    say(r, "%s\n%u\n", PZCTL_REPLY_OK, id);
    return 0;
}

/* flow-del ID. */
static int cmd_flow_del(struct call *c)
{
    struct fabric *f = c->f;
    const struct request *q = c->q;
    struct reply *r = c->r;
    unsigned long id;

    if (parse_uint(q->argv[1], UINT32_MAX, &id))
        return fail(r, "bad flow id \"%s\"", q->argv[1]);
    if (fabric_flow_del(f, (unsigned)id))
        return fail(r, "no flow %lu", id);
    say(r, "%s\n", PZCTL_REPLY_OK);
    return 0;
}

/*
 * flow-list: one line per flow, "ID SRC DST SL DEMAND ACHIEVED STATE MOVED
 * HOP...", rates in Gb/s, MOVED "moved=-" (never) or "moved=S.mmm" (board
 * time in seconds of its last lane move, fabric_repath.h), each hop
 * "TXNODE:PORT>RXNODE:PORT" (an unrouted
 * flow: as far as it got, then "(why)"); a last "... N more flows" line
 * when the reply is full.
 */
static int cmd_flow_list(struct call *c)
{
    struct fabric *f = c->f;
    struct reply *r = c->r;
    struct fabric_flow_info *fi;

    fi = malloc(sizeof(*fi));
    if (!fi)
        return fail(r, "out of memory");
    say(r, "%s\n", PZCTL_REPLY_OK);
    for (size_t i = 0; fabric_flow_get(f, i, fi) == 0; i++) {
        if (r->cap - r->len < PZCTL_FLOW_LINE_MAX) {
            say(r, "... %zu more flows (the reply is full)\n", fabric_flow_count(f) - i);
            break;
        }
        say(r, "%u %s %s %u ", fi->id, fabric_node_name(f, fi->src), fabric_node_name(f, fi->dst),
            fi->sl);
        say_gbps(r, fi->demand_bps);
        say(r, " ");
        say_gbps(r, fi->rate_bps);
        say(r, " %s", fi->routed ? "routed" : "unrouted");
        if (fi->moved_ns)
            say(r, " moved=%llu.%03llu", (unsigned long long)(fi->moved_ns / 1000000000u),
                (unsigned long long)(fi->moved_ns / 1000000u % 1000u));
        else
            say(r, " moved=-");
        for (unsigned k = 0; k < fi->num_hops; k++)
            say(r, " %s:%u>%s:%u", fabric_node_name(f, fi->hops[k].tx_node), fi->hops[k].tx_port,
                fabric_node_name(f, fi->hops[k].rx_node), fi->hops[k].rx_port);
        if (!fi->routed)
            say(r, " (%s)", fi->why);
        say(r, "\n");
    }
    free(fi);
    return 0;
}

/* ca-rate NODE GBPS: the CA's receive rate (0: its link rate). */
static int cmd_ca_rate(struct call *c)
{
    struct fabric *f = c->f;
    const struct request *q = c->q;
    struct reply *r = c->r;
    long node;
    uint64_t bps;

    node = parse_ca(f, q->argv[1], r);
    if (node < 0)
        return -1;
    if (parse_gbps(q->argv[2], &bps))
        return fail(r, "bad rate \"%s\" (Gb/s, 0 = link rate, at most %llu, up to %d decimals)",
                    q->argv[2], FABRIC_FLOW_BPS_MAX / PZCTL_BPS_PER_GBPS, PZCTL_GBPS_DECIMALS);
    if (fabric_ca_rate_set(f, (size_t)node, bps))
        return fail(r, "cannot set the receive rate of %s", q->argv[1]);
    say(r, "%s\n", PZCTL_REPLY_OK);
    return 0;
}

/* error-inject NODE PORT KIND COUNT. */
static int cmd_error_inject(struct call *c)
{
    const struct request *q = c->q;
    struct reply *r = c->r;
    unsigned long count;
    int rc;

    if (parse_uint(q->argv[4], UINT32_MAX, &count) || count == 0)
        return fail(r, "bad count \"%s\" (1..%lu)", q->argv[4], (unsigned long)UINT32_MAX);
    rc = fabric_error_inject(c->f, c->node, c->port, q->argv[3], count);
    if (rc == -ENOENT)
        return fail(r, "unknown error kind \"%.64s\" (kinds: %s)", q->argv[3],
                    fabric_error_kinds());
    return reply_rc(r, rc);
}

static int cmd_help(struct call *c);

/* The commands, in the order help lists them. */
static const struct command commands[] = {
    {"status", 0, 0, "status",
     "nodes, links up/down, clients, drop rate, capture, packet counters, links not up", cmd_status,
     NO_NODE_PORT},
    {"link-down", 2, 2, "link-down NODE PORT", "pull the cable at NODE's PORT (both ends)",
     cmd_link_down, NODE_PORT},
    {"link-up", 2, 2, "link-up NODE PORT", "plug it back in", cmd_link_up, NODE_PORT},
    {"drop-rate", 1, 2, "drop-rate PERCENT [SEED]",
     "lose PERCENT (0..100, up to 4 decimals) of the link traversals at random", cmd_drop_rate,
     NO_NODE_PORT},
    {"link-drop", 3, 3, "link-drop NODE PORT PERCENT",
     "the cable at NODE's PORT loses PERCENT of its traversals", cmd_link_drop, NODE_PORT},
    {"counters", 2, 2, "counters NODE PORT", "the port's hardware counters", cmd_counters,
     NODE_PORT_OR_0},
    {"flow-add", 3, 5, "flow-add SRC DST GBPS [--sl SL]",
     "a flow of GBPS Gb/s from CA SRC to CA DST; prints its id", cmd_flow_add, NO_NODE_PORT},
    {"flow-del", 1, 1, "flow-del ID", "remove a flow", cmd_flow_del, NO_NODE_PORT},
    {"flow-list", 0, 0, "flow-list", "every flow: rates, state, path", cmd_flow_list, NO_NODE_PORT},
    {"ca-rate", 2, 2, "ca-rate NODE GBPS", "a CA's receive rate (0: its link rate)", cmd_ca_rate,
     NO_NODE_PORT},
    {"error-inject", 4, 4, "error-inject NODE PORT KIND COUNT",
     "add COUNT errors of KIND to a port's counters", cmd_error_inject, NODE_PORT_OR_0},
    {"help", 0, PZCTL_MAX_ARGS - 1, "help", "this list (arguments are ignored)", cmd_help,
     NO_NODE_PORT},
};

/* help: each command's usage line, then its description indented. */
static int cmd_help(struct call *c)
{
    say(c->r, "%s\n", PZCTL_REPLY_OK);
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        say(c->r, "%s\n    %s\n", commands[i].usage, commands[i].help);
    return 0;
}

/* Find the command named name; returns it or NULL. */
static const struct command *find_command(const char *name)
{
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (!strcmp(commands[i].name, name))
            return &commands[i];
    return NULL;
}

/*
 * Run the request's command after checking its argument count and
 * resolving its NODE PORT arguments; returns 0, or -1 with an error reply.
 */
static int dispatch(struct call *c)
{
    const char *name = c->q->argv[0];
    unsigned nargs = c->q->argc - 1;

    c->cmd = find_command(name);
    if (!c->cmd)
        return fail(c->r, "unknown command \"%.64s\" (try \"help\")", name);
    if (nargs < c->cmd->min_args || nargs > c->cmd->max_args)
        return fail_usage(c);
    if (c->cmd->node_port != NO_NODE_PORT &&
        parse_node_port(c, c->cmd->node_port == NODE_PORT_OR_0))
        return -1;
    return c->cmd->run(c);
}

size_t pzctl_execute(struct fabric *f, size_t clients, const char *req, size_t len, char *out,
                     size_t cap)
{
    struct reply r = {.out = out, .cap = cap};
    struct request *q = calloc(1, sizeof(*q));
    struct call c = {.f = f, .clients = clients, .q = q, .r = &r};

    out[0] = '\0';
    if (!q) {
        fail(&r, "out of memory");
        return r.len;
    }
    if (split_request(q, req, len, &r) == 0)
        dispatch(&c);
    free(q);
    return r.len;
}
