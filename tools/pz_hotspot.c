/*
 * pz_hotspot.c - pz-hotspot: read (and tune) a switch's congestion monitor
 * through the vendor-specific PMA attribute PZ_CongestionMonitor (0xFF30).
 *
 *   pz-hotspot [-C ca] [-P port] [-t ms] LID            summary + non-normal ports
 *   pz-hotspot [-C ca] [-P port] [-t ms] LID PORT       one port's record
 *   pz-hotspot [...] --set interval=MS,threshold=N,util=P,clear=P,history=N LID
 *
 * A libibmad client like the diags (perfquery): it runs against hardware
 * through the kernel's umad, or against pzfabric/ibsim through
 * LD_PRELOAD=libumad2sim.so.  Requests go through mad_rpc(), not
 * pma_query_via(): the port is chosen by the AttributeModifier, which
 * pma_query_via() always sends as 0.  Output is one "key=value" line per
 * record, for people and scripts alike (board times, *_ns, are the switch's
 * monotonic clock).  Exit status: 0 done, 1 the agent
 * answered with an error status, 2 bad usage or no answer.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "pma_vendor.h"

#define HS_DEFAULT_TIMEOUT_MS 1000
#define HS_MAX_PORTS 255

/* Names of enum cong_port_class and enum cong_peer values, as on the wire. */
static const char *const hs_class_names[] = {"normal", "hot-spot", "low-util", "congested"};
static const char *const hs_peer_names[] = {"unknown", "ca", "switch"};

/* A connection to one switch's PMA. */
struct hs_conn {
    struct ibmad_port *port;
    ib_portid_t dest;
    int timeout_ms;
};

/* Name of a class value. */
static const char *hs_class(unsigned v)
{
    return v < 4 ? hs_class_names[v] : "unknown";
}

/* Name of a peer value. */
static const char *hs_peer(unsigned v)
{
    return v < 3 ? hs_peer_names[v] : "unknown";
}

/*
 * Send one PZ_CongestionMonitor request (method, modifier, payload) and put
 * the answer's 192 data bytes into resp.  Returns 0, the MAD status (> 0),
 * or -1 when nothing came back.
 */
static int hs_rpc(struct hs_conn *c, int method, unsigned mod, uint8_t *payload, uint8_t *resp)
{
    ib_rpc_t rpc;

    memset(&rpc, 0, sizeof(rpc));
    rpc.mgtclass = IB_PERFORMANCE_CLASS;
    rpc.method = method;
    rpc.attr.id = PZ_ATTR_CONG_MONITOR;
    rpc.attr.mod = mod;
    rpc.timeout = c->timeout_ms;
    rpc.dataoffs = IB_PC_DATA_OFFS;
    rpc.datasz = IB_PC_DATA_SZ;
    if (mad_rpc(c->port, &rpc, &c->dest, payload, resp))
        return 0;
    return rpc.rstatus ? (int)rpc.rstatus : -1;
}

/* Report a failed request; returns the exit status (1 error status, 2 no answer). */
static int hs_fail(const char *what, int rc)
{
    if (rc > 0) {
        fprintf(stderr, "pz-hotspot: %s: MAD status 0x%04x%s\n", what, (unsigned)rc,
                (rc & 0x1C) == 0x0C   ? " (no congestion monitor there)"
                : (rc & 0x1C) == 0x1C ? " (invalid field)"
                                      : "");
        return 1;
    }
    fprintf(stderr, "pz-hotspot: %s: no answer\n", what);
    return 2;
}

/* Nanoseconds between a board time and the answer's "now", in ms (0 if in the future). */
static uint64_t hs_age_ms(uint64_t now, uint64_t then)
{
    return now > then ? (now - then) / 1000000u : 0;
}

/* Print the summary line. */
static void hs_print_summary(unsigned lid, const uint8_t *s)
{
    printf("lid=%u version=%u ports=%u interval_ms=%" PRIu64 " threshold=%" PRIu64
           " low_util=%u clear=%u history=%u samples=%" PRIu64 " invalid=%" PRIu64
           " events=%" PRIu64 " tick_ns=%" PRIu64 "\n",
           lid, s[PZ_CM_VERSION], s[PZ_CM_NUM_PORTS], be_get(s + PZ_CM_INTERVAL, 4),
           be_get(s + PZ_CM_THRESHOLD, 8), s[PZ_CM_LOW_UTIL], s[PZ_CM_CLEAR], s[PZ_CM_HISTORY],
           be_get(s + PZ_CM_SAMPLES, 4), be_get(s + PZ_CM_INVALID, 4), be_get(s + PZ_CM_EVENTS, 4),
           be_get(s + PZ_CM_TICK_NS, 2));
}

/* The age of a port's newest sample as text: ms before the answer, "-" if it has none. */
static const char *hs_sample_age(const uint8_t *r, char *buf, size_t len)
{
    uint64_t t = be_get(r + PZ_CMP_SAMPLE_TIME, 8);

    if (t == 0)
        return "-";
    snprintf(buf, len, "%" PRIu64, hs_age_ms(be_get(r + PZ_CMP_NOW, 8), t));
    return buf;
}

/*
 * Print a port record's main line; now_ns (the answer's board time) and
 * since_ns (the last class change's) are the switch's own clock, for a
 * script that times the monitor by its samples rather than by its own clock.
 */
static void hs_print_port(const uint8_t *r)
{
    uint64_t now = be_get(r + PZ_CMP_NOW, 8);
    char age[24];

    printf("port=%u class=%s peer=%s valid=%u link_up=%u congestion=%" PRIu64 " bandwidth=%" PRIu64
           " util_permille=%" PRIu64 " link_bps=%" PRIu64 " sample_age_ms=%s"
           " since_ms=%" PRIu64 " changes=%" PRIu64 " invalid=%" PRIu64 " now_ns=%" PRIu64
           " since_ns=%" PRIu64 "\n",
           r[PZ_CMP_PORT], hs_class(r[PZ_CMP_CLASS]), hs_peer(r[PZ_CMP_PEER]),
           r[PZ_CMP_FLAGS] & PZ_CMP_F_VALID ? 1 : 0, r[PZ_CMP_FLAGS] & PZ_CMP_F_LINK_UP ? 1 : 0,
           be_get(r + PZ_CMP_CONGESTION, 8), be_get(r + PZ_CMP_BANDWIDTH, 8),
           be_get(r + PZ_CMP_UTIL, 2), be_get(r + PZ_CMP_LINK_RATE, 8),
           hs_sample_age(r, age, sizeof(age)), hs_age_ms(now, be_get(r + PZ_CMP_SINCE, 8)),
           be_get(r + PZ_CMP_CHANGES, 4), be_get(r + PZ_CMP_INVALID, 4), now,
           be_get(r + PZ_CMP_SINCE, 8));
}

/* Print a port record's history entries, newest first (time_ns: the sample's board time). */
static void hs_print_history(const uint8_t *r)
{
    uint64_t now = be_get(r + PZ_CMP_NOW, 8);
    unsigned n = r[PZ_CMP_HIST_COUNT] <= PZ_CMP_HIST_MAX ? r[PZ_CMP_HIST_COUNT] : PZ_CMP_HIST_MAX;

    for (unsigned i = 0; i < n; i++) {
        const uint8_t *e = r + PZ_CMP_HIST + i * PZ_CMP_HIST_ENTRY;

        printf("  sample=%u age_ms=%" PRIu64 " congestion=%" PRIu64 " bandwidth=%" PRIu64
               " util_permille=%" PRIu64 " class=%s time_ns=%" PRIu64 "\n",
               i, hs_age_ms(now, be_get(e + PZ_CMH_TIME, 8)), be_get(e + PZ_CMH_CONGESTION, 8),
               be_get(e + PZ_CMH_BANDWIDTH, 8), be_get(e + PZ_CMH_UTIL, 2),
               hs_class(e[PZ_CMH_CLASS]), be_get(e + PZ_CMH_TIME, 8));
    }
}

/* The summary and a line for every port that is not normal. */
static int hs_summary(struct hs_conn *c, unsigned lid)
{
    uint8_t s[IB_PC_DATA_SZ], r[IB_PC_DATA_SZ];
    int rc = hs_rpc(c, IB_MAD_METHOD_GET, 0, NULL, s);

    if (rc)
        return hs_fail("summary", rc);
    hs_print_summary(lid, s);
    for (unsigned p = 1; p <= s[PZ_CM_NUM_PORTS]; p++) {
        if (!pz_mask_test(s + PZ_CM_HOTSPOT_MASK, p) && !pz_mask_test(s + PZ_CM_LOW_UTIL_MASK, p) &&
            !pz_mask_test(s + PZ_CM_CONGESTED_MASK, p))
            continue;
        rc = hs_rpc(c, IB_MAD_METHOD_GET, p, NULL, r);
        if (rc)
            return hs_fail("port record", rc);
        hs_print_port(r);
    }
    return 0;
}

/* One port's record and its history. */
static int hs_port(struct hs_conn *c, unsigned port)
{
    uint8_t r[IB_PC_DATA_SZ];
    int rc = hs_rpc(c, IB_MAD_METHOD_GET, port, NULL, r);

    if (rc)
        return hs_fail("port record", rc);
    hs_print_port(r);
    hs_print_history(r);
    return 0;
}

/* Parse an unsigned number into *v (bounded by max); returns 0 or -1. */
static int hs_number(const char *s, uint64_t max, uint64_t *v)
{
    char *end;
    unsigned long long n;

    errno = 0;
    n = strtoull(s, &end, 0);
    if (errno || end == s || *end || s[0] == '-' || n > max)
        return -1;
    *v = n;
    return 0;
}

/*
 * Apply "key=value,..." to a summary about to be Set.  The agent validates
 * the values; only the syntax is checked here.  Returns 0 or -1.
 */
static int hs_apply_settings(char *spec, uint8_t *s)
{
    for (char *tok = strtok(spec, ","); tok; tok = strtok(NULL, ",")) {
        char *eq = strchr(tok, '=');
        uint64_t v;

        if (!eq)
            return -1;
        *eq = '\0';
        if (!strcmp(tok, "interval") && !hs_number(eq + 1, UINT32_MAX, &v))
            be_put(s + PZ_CM_INTERVAL, v, 4);
        else if (!strcmp(tok, "threshold") && !hs_number(eq + 1, UINT64_MAX, &v))
            be_put(s + PZ_CM_THRESHOLD, v, 8);
        else if (!strcmp(tok, "util") && !hs_number(eq + 1, 255, &v))
            s[PZ_CM_LOW_UTIL] = (uint8_t)v;
        else if (!strcmp(tok, "clear") && !hs_number(eq + 1, 255, &v))
            s[PZ_CM_CLEAR] = (uint8_t)v;
        else if (!strcmp(tok, "history") && !hs_number(eq + 1, 255, &v))
            s[PZ_CM_HISTORY] = (uint8_t)v;
        else
            return -1;
    }
    return 0;
}

/* Read the summary, change what spec says, Set it and print the result. */
static int hs_set(struct hs_conn *c, unsigned lid, char *spec)
{
    uint8_t s[IB_PC_DATA_SZ], r[IB_PC_DATA_SZ];
    int rc = hs_rpc(c, IB_MAD_METHOD_GET, 0, NULL, s);

    if (rc)
        return hs_fail("summary", rc);
    if (hs_apply_settings(spec, s) != 0) {
        fprintf(stderr, "pz-hotspot: bad --set list (keys: interval, threshold, util, clear, "
                        "history; KEY=NUMBER,...)\n");
        return 2;
    }
    rc = hs_rpc(c, IB_MAD_METHOD_SET, 0, s, r);
    if (rc)
        return hs_fail("set", rc);
    hs_print_summary(lid, r);
    return 0;
}

static void hs_usage(void)
{
    fprintf(stderr,
            "usage: pz-hotspot [-C ca] [-P port] [-t ms] [--set KEY=N,...] LID [PORT]\n"
            "  LID          the switch (its port 0 LID)\n"
            "  PORT         show that port's record and recent samples\n"
            "  --set LIST   change the monitor: interval=MS threshold=TICKS_PER_S util=PERCENT\n"
            "               clear=PERCENT history=N\n");
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"set", required_argument, NULL, 's'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int mgmt_classes[] = {IB_PERFORMANCE_CLASS};
    struct hs_conn c = {.timeout_ms = HS_DEFAULT_TIMEOUT_MS};
    char *ca = NULL, *set = NULL;
    uint64_t lid, port = 0, v;
    int ca_port = 0, opt, rc;

    while ((opt = getopt_long(argc, argv, "C:P:t:h", opts, NULL)) != -1) {
        switch (opt) {
        case 'C':
            ca = optarg;
            break;
        case 'P':
            if (hs_number(optarg, 254, &v))
                return hs_usage(), 2;
            ca_port = (int)v;
            break;
        case 't':
            if (hs_number(optarg, 3600000, &v) || v == 0)
                return hs_usage(), 2;
            c.timeout_ms = (int)v;
            break;
        case 's':
            set = optarg;
            break;
        default:
            hs_usage();
            return opt == 'h' ? 0 : 2;
        }
    }
    if (argc - optind < 1 || argc - optind > 2 || hs_number(argv[optind], 0xBFFF, &lid) ||
        lid == 0 ||
        (argc - optind == 2 &&
         (hs_number(argv[optind + 1], HS_MAX_PORTS, &port) || port == 0 || set))) {
        hs_usage();
        return 2;
    }
    c.port = mad_rpc_open_port(ca, ca_port, mgmt_classes, 1);
    if (!c.port) {
        fprintf(stderr, "pz-hotspot: cannot open %s port %d\n", ca ? ca : "the default CA",
                ca_port);
        return 2;
    }
    mad_rpc_set_timeout(c.port, c.timeout_ms);
    memset(&c.dest, 0, sizeof(c.dest));
    ib_portid_set(&c.dest, (int)lid, 0, 0);
    c.dest.qp = 1;
    c.dest.qkey = IB_DEFAULT_QP1_QKEY;
    if (set)
        rc = hs_set(&c, (unsigned)lid, set);
    else if (port)
        rc = hs_port(&c, (unsigned)port);
    else
        rc = hs_summary(&c, (unsigned)lid);
    mad_rpc_close_port(c.port);
    return rc;
}
