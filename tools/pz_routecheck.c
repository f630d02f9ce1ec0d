/*
 * pz_routecheck.c - pz-routecheck: read the subnet's NodeRecords,
 * LinkRecords, LinearForwardingTableRecords and PortInfoRecords (the
 * ports' LMCs) from the SA and check the live routes to every LID
 * (traffic/route_check.h): unrouted switch pairs, forwarding loops, a
 * cycle in the channel dependency graph.
 *
 *   pz-routecheck [-C ca] [-P port] [-t ms] [--all] [--json] [--max-unrouted N]
 *
 * A libibumad client like the diags: on hardware through the kernel's
 * umad, in emulation through umad2sim (pz-attach).  It registers for the
 * SA class with rmpp_version 1 so that the MAD layer reassembles the
 * multi-segment GetTable answers; requests are built and answers taken
 * apart by mad/sa_query.  Exit status: 0 clean, 1 findings, 2 error.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "route_check.h"
#include "route_report.h"
#include "route_sa.h"
#include "sa_query.h"

#define RT_DEFAULT_TIMEOUT_MS 5000
#define RT_RETRIES 2
#define RT_EXIT_CLEAN 0
#define RT_EXIT_FINDINGS 1
#define RT_EXIT_ERROR 2
#define RT_HELP 100 /* rt_parse: usage printed on request */

/* The SA connection: the umad port, the agent, where the SA is. */
struct rt_sa {
    int fd, agent;
    uint16_t sm_lid;
    uint8_t sm_sl;
    int timeout_ms;
    uint64_t next_tid;
    void *buf; /* umad receive buffer (grows for big answers) */
    int buf_len;
};

/* Command-line options. */
struct rt_opts {
    const char *ca;
    int port;
    int timeout_ms;
    bool json, all, verbose;
    size_t max_unrouted; /* SIZE_MAX: all */
};

/* Seconds of the monotonic clock. */
static double rt_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Open the port and register for the SA class with RMPP; 0 or -1 (message printed). */
static int rt_sa_open(struct rt_sa *sa, const struct rt_opts *o)
{
    umad_port_t port;

    memset(sa, 0, sizeof(*sa));
    sa->fd = -1;
    sa->timeout_ms = o->timeout_ms;
    sa->next_tid = ((uint64_t)time(NULL) & 0xffff) << 16; /* low 32 bits: ours */
    if (umad_init() < 0 || umad_get_port(o->ca, o->port, &port) < 0) {
        fprintf(stderr, "pz-routecheck: no umad port %s:%d\n", o->ca ? o->ca : "(first)", o->port);
        return -1;
    }
    sa->sm_lid = (uint16_t)port.sm_lid;
    sa->sm_sl = (uint8_t)port.sm_sl;
    umad_release_port(&port);
    if (sa->sm_lid == 0) {
        fprintf(stderr, "pz-routecheck: the port knows no SM (SM LID 0)\n");
        return -1;
    }
    sa->fd = umad_open_port(o->ca, o->port);
    if (sa->fd < 0) {
        fprintf(stderr, "pz-routecheck: cannot open the umad port: %s\n", strerror(-sa->fd));
        return -1;
    }
    sa->agent = umad_register(sa->fd, IB_SA_CLASS, 2, 1, NULL);
    if (sa->agent < 0) {
        fprintf(stderr, "pz-routecheck: cannot register for the SA class\n");
        return -1;
    }
    if (o->verbose)
        fprintf(stderr, "pz-routecheck: SA at LID %u SL %u\n", sa->sm_lid, sa->sm_sl);
    return 0;
}

static void rt_sa_close(struct rt_sa *sa)
{
    if (sa->fd >= 0)
        umad_close_port(sa->fd);
    free(sa->buf);
    umad_done();
}

/* Make the receive buffer hold len MAD bytes; 0 or -1. */
static int rt_sa_reserve(struct rt_sa *sa, int len)
{
    void *p;

    if (sa->buf && sa->buf_len >= len)
        return 0;
    p = realloc(sa->buf, (size_t)umad_size() + (size_t)len);
    if (!p)
        return -1;
    sa->buf = p;
    sa->buf_len = len;
    return 0;
}

/*
 * Receive the answer with TID tid into sa->buf; returns its length, or -1
 * (timeout or error, message printed).  Answers to other TIDs (a retried
 * request's late answer) are skipped.
 */
static int rt_sa_recv(struct rt_sa *sa, uint64_t tid)
{
    for (;;) {
        int len = sa->buf_len, rc;

        rc = umad_recv(sa->fd, sa->buf, &len, sa->timeout_ms);
        if (rc < 0 && (rc == -ENOSPC || errno == ENOSPC) && len > sa->buf_len) {
            if (rt_sa_reserve(sa, len))
                return -1;
            continue; /* the kernel keeps the MAD for the next read */
        }
        if (rc < 0) {
            fprintf(stderr, "pz-routecheck: no SA answer: %s\n",
                    rc == -ETIMEDOUT || errno == ETIMEDOUT ? "timeout" : strerror(errno));
            return -1;
        }
        if (umad_status(sa->buf)) {
            fprintf(stderr, "pz-routecheck: SA request failed: %s\n",
                    strerror(umad_status(sa->buf)));
            return -1;
        }
        /* only the low 32 TID bits are ours: the MAD layer (the kernel, umad2sim)
         * writes its agent number into the high ones */
        if (len >= IB_SA_DATA_OFFS &&
            (uint32_t)mad_get_field64(umad_get_mad(sa->buf), 0, IB_MAD_TRID_F) == (uint32_t)tid)
            return len;
    }
}

/* One GetTable of attr_id: every record into the fabric.  0 or -1 (message printed). */
static int rt_sa_table(struct rt_sa *sa, uint16_t attr_id, const char *what, struct rc_fabric *f,
                       bool verbose)
{
    uint8_t req[IB_MAD_SIZE];
    void *umad = umad_alloc(1, umad_size() + IB_MAD_SIZE);
    uint64_t tid = ++sa->next_tid;
    struct sa_answer a;
    const char *why = "?";
    long n;
    int len;

    if (!umad || rt_sa_reserve(sa, 64 * 1024)) {
        umad_free(umad);
        return -1;
    }
    sa_query_build_all(req, attr_id, tid);
    memcpy(umad_get_mad(umad), req, sizeof(req));
    umad_set_addr(umad, sa->sm_lid, 1, sa->sm_sl, IB_DEFAULT_QP1_QKEY);
    if (umad_send(sa->fd, sa->agent, umad, IB_MAD_SIZE, sa->timeout_ms, RT_RETRIES) < 0) {
        fprintf(stderr, "pz-routecheck: cannot send the %s query\n", what);
        umad_free(umad);
        return -1;
    }
    umad_free(umad);
    len = rt_sa_recv(sa, tid);
    if (len < 0)
        return -1;
    if (sa_answer_parse(umad_get_mad(sa->buf), (size_t)len, &a, &why) ||
        (n = rc_fabric_add_sa_answer(f, &a, &why)) < 0) {
        fprintf(stderr, "pz-routecheck: bad %s answer: %s\n", what, why);
        if (verbose)
            for (int i = 0; i < len && i < 64; i++)
                fprintf(stderr, "%02x%s", ((uint8_t *)umad_get_mad(sa->buf))[i],
                        i % 16 == 15 ? "\n" : " ");
        return -1;
    }
    if (verbose)
        fprintf(stderr, "pz-routecheck: %ld %s (%d bytes)\n", n, what, len);
    return 0;
}

/*
 * Read the four tables; 0 or -1.  The PortInfoRecords (the LMCs) may be
 * missing: an SA without them (an error status, no records: route_sa.c) or
 * without an answer leaves every port at LMC 0, noted in the report.
 */
static int rt_read_tables(struct rt_sa *sa, struct rc_fabric *f, bool verbose)
{
    if (rt_sa_table(sa, IB_SA_ATTR_NODERECORD, "NodeRecords", f, verbose) ||
        rt_sa_table(sa, IB_SA_ATTR_LINKRECORD, "LinkRecords", f, verbose) ||
        rt_sa_table(sa, IB_SA_ATTR_LFTRECORD, "LFTRecords", f, verbose))
        return -1;
    if (rt_sa_table(sa, IB_SA_ATTR_PORTINFORECORD, "PortInfoRecords", f, verbose)) {
        fprintf(stderr, "pz-routecheck: going on with LMC 0 for every port\n");
        rc_fabric_set_lmc_known(f, false, "no PortInfoRecord answer");
    }
    return 0;
}

static void rt_usage(FILE *out)
{
    fputs("usage: pz-routecheck [-C ca] [-P port] [-t ms] [--all] [--json]\n"
          "                     [--max-unrouted N] [-v]\n"
          "  -C, --Ca CA         the umad device (default: the first)\n"
          "  -P, --Port PORT     its port (default: the first active)\n"
          "  -t, --timeout MS    per SA query (default 5000)\n"
          "  -a, --all           also routes to CA ports (dependencies and unrouted)\n"
          "  -j, --json          the report as JSON\n"
          "  -m, --max-unrouted N  list at most N unrouted routes (default: all)\n"
          "  -v, --verbose       record counts and sizes on stderr\n"
          "exit status: 0 clean, 1 findings (unrouted, loops, cycle), 2 error\n",
          out);
}

/* Parse a decimal or 0x number min..max, nothing around it, into *v; 0 or -1. */
static int rt_number(const char *s, unsigned long long min, unsigned long long max,
                     unsigned long long *v)
{
    char *end;

    if (*s < '0' || *s > '9') /* no sign, blank or empty string */
        return -1;
    errno = 0;
    *v = strtoull(s, &end, 0);
    return errno || *end || *v < min || *v > max ? -1 : 0;
}

/* Parse the command line; 0, or the exit status to leave with. */
static int rt_parse(int argc, char **argv, struct rt_opts *o)
{
    static const struct option longs[] = {
        {"Ca", required_argument, NULL, 'C'},
        {"Port", required_argument, NULL, 'P'},
        {"timeout", required_argument, NULL, 't'},
        {"all", no_argument, NULL, 'a'},
        {"json", no_argument, NULL, 'j'},
        {"max-unrouted", required_argument, NULL, 'm'},
        {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    unsigned long long v;
    int c;

    *o = (struct rt_opts){.timeout_ms = RT_DEFAULT_TIMEOUT_MS, .max_unrouted = SIZE_MAX};
    while ((c = getopt_long(argc, argv, "C:P:t:ajm:vh", longs, NULL)) != -1) {
        switch (c) {
        case 'C':
            o->ca = optarg;
            break;
        case 'P':
            if (rt_number(optarg, 0, 254, &v))
                goto bad;
            o->port = (int)v;
            break;
        case 't':
            if (rt_number(optarg, 1, INT_MAX, &v))
                goto bad;
            o->timeout_ms = (int)v;
            break;
        case 'a':
            o->all = true;
            break;
        case 'j':
            o->json = true;
            break;
        case 'm':
            if (rt_number(optarg, 0, SIZE_MAX, &v))
                goto bad;
            o->max_unrouted = (size_t)v;
            break;
        case 'v':
            o->verbose = true;
            break;
        case 'h':
            rt_usage(stdout);
            return RT_HELP;
        default:
            goto bad;
        }
    }
    if (optind == argc)
        return 0;
bad:
    rt_usage(stderr);
    return RT_EXIT_ERROR;
}

int main(int argc, char **argv)
{
    struct rt_opts o;
    struct rt_sa sa;
    struct rc_fabric *f = NULL;
    struct rc_result r;
    struct rc_options ro;
    struct rc_timing t;
    int rc = rt_parse(argc, argv, &o);
    double t0;

    if (rc)
        return rc == RT_HELP ? RT_EXIT_CLEAN : rc;
    rc = RT_EXIT_ERROR;
    t0 = rt_now();
    if (rt_sa_open(&sa, &o) == 0 && (f = rc_fabric_new()) &&
        rt_read_tables(&sa, f, o.verbose) == 0) {
        t.read_s = rt_now() - t0;
        /* the check keeps at least one when limited (its 0 means all): -m 0 lists none */
        ro = (struct rc_options){.all_routes = o.all,
                                 .max_unrouted = o.max_unrouted == SIZE_MAX ? 0
                                                 : o.max_unrouted           ? o.max_unrouted
                                                                            : 1};
        t0 = rt_now();
        if (rc_check(f, &ro, &r) == 0) {
            t.check_s = rt_now() - t0;
            if (o.max_unrouted == 0)
                r.nunrouted_kept = 0;
            (o.json ? rc_report_json : rc_report_text)(stdout, f, &r, &t);
            rc = rc_result_has_findings(&r) ? RT_EXIT_FINDINGS : RT_EXIT_CLEAN;
            rc_result_free(&r);
        } else {
            fprintf(stderr, "pz-routecheck: no switch in the SA's NodeRecords\n");
        }
    }
    rc_fabric_free(f);
    rt_sa_close(&sa);
    return rc;
}
