/*
 * smp_tool.c - raw SMPs for the tests of the external-agent path: one SMP
 * with its whole answer printed, a flood of SMPs with their timeouts
 * counted, and the M_Key of a switch set.  Run it through libumad2sim.so
 * like the diags (and libpzumad2sim.so, for all 256 bytes of an answer).
 *
 * usage: smp_tool [-y M_KEY] [-t TIMEOUT_MS] [-i TID] [-l LEN] query ROUTE ATTR MOD
 *          prints the answer MAD as 256 hex bytes (16 a line) and its status;
 *          -l: write only the first LEN (24..256) bytes of the SMP to umad
 *        smp_tool [-y M_KEY] [-t TIMEOUT_MS] flood ROUTE COUNT
 *          sends COUNT Get(NodeInfo) with umad timeout TIMEOUT_MS, waits
 *          until all came back (at most TIMEOUT_MS + 30 s after the last
 *          send), then prints "answered A timeouts T other O"
 *        smp_tool [-y M_KEY | -C CC_KEY] timeouts ROUTE LONG_MS SHORT_MS
 *          sends Get(NodeInfo) (-C: a CC Get(CongestionKeyInfo) with that
 *          CC_Key to LID ROUTE) with umad timeout LONG_MS, then one with
 *          SHORT_MS, and waits (up to LONG_MS + 60 s) for both to come back
 *          unanswered (umad status 110); prints "short S long L first WHICH"
 *          (S, L: ms from each send to its timeout; WHICH: short or long)
 *        smp_tool [-y M_KEY] mkey ROUTE NEW_KEY [PROTECT]
 *          PortInfo Set of port 0 with M_Key M_KEY (default 0): M_Key NEW_KEY,
 *          protect bits PROTECT (default 2), lease 0
 *
 * ROUTE: LID (LID-routed), D:P0,P1,... (directed route), LID:P0,P1,...
 * (hybrid: LID-routed to LID, then directed route; DrSLID = our LID).
 * Exit status: 0 done (query: answered with status 0), 1 failure, 2 usage.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "mad_header.h"

#define SMP_SIZE 256
#define SMP_PATH_OFFS 128 /* InitialPath; libibmad has it only as a whole */
#define SMP_TIMEOUT_STATUS 110

/* Where an SMP goes. */
struct smp_route {
    int lid;          /* LID-routed leg's destination, 0: none (pure DR) */
    unsigned hops;    /* directed-route hop count, with path[] */
    uint8_t path[64]; /* InitialPath[0..hops] */
    bool directed;    /* a DR SMP (class 0x81) */
};

/* The open umad port and its two SMI agents. */
struct smp_port {
    int fd;
    int agent_lid, agent_dr, agent_cc;
    uint16_t lid;
    uint8_t *umad; /* header + MAD */
    size_t umad_len;
    int send_len; /* MAD bytes written to umad (-l), SMP_SIZE by default */
};

static int usage(void)
{
    fprintf(stderr, "usage: smp_tool [-y M_KEY] [-t TIMEOUT_MS] [-i TID] [-l LEN] query ROUTE ATTR "
                    "MOD\n"
                    "       smp_tool [-y M_KEY] [-t TIMEOUT_MS] flood ROUTE COUNT\n"
                    "       smp_tool [-y M_KEY | -C CC_KEY] timeouts ROUTE LONG_MS SHORT_MS\n"
                    "       smp_tool [-y M_KEY] mkey ROUTE NEW_KEY [PROTECT]\n");
    return 2;
}

/* Parse "P0,P1,..." into r->path; returns 0 or -1. */
static int smp_parse_path(const char *s, struct smp_route *r)
{
    char *end;

    r->hops = 0;
    for (;;) {
        unsigned long p = strtoul(s, &end, 0);

        if (end == s || p > 255 || r->hops >= 64)
            return -1;
        r->path[r->hops++] = (uint8_t)p;
        if (*end == '\0')
            break;
        if (*end != ',')
            return -1;
        s = end + 1;
    }
    r->hops--; /* path[0] is the source, not a hop */
    r->directed = true;
    return 0;
}

/* Parse a ROUTE argument; returns 0 or -1. */
static int smp_parse_route(const char *s, struct smp_route *r)
{
    char *end;

    memset(r, 0, sizeof(*r));
    if (!strncmp(s, "D:", 2))
        return smp_parse_path(s + 2, r);
    r->lid = (int)strtol(s, &end, 0);
    if (end == s || r->lid <= 0 || r->lid >= 0xC000)
        return -1;
    if (*end == '\0')
        return 0;
    return *end == ':' ? smp_parse_path(end + 1, r) : -1;
}

/* Open the first port, register both SMI classes; returns 0 or -1. */
static int smp_open(struct smp_port *p)
{
    umad_port_t port;

    if (umad_init() < 0 || (p->fd = umad_open_port(NULL, 0)) < 0)
        return -1;
    p->agent_lid = umad_register(p->fd, IB_SMI_CLASS, 1, 0, NULL);
    p->agent_dr = umad_register(p->fd, IB_SMI_DIRECT_CLASS, 1, 0, NULL);
    p->agent_cc = umad_register(p->fd, IB_CC_CLASS, 2, 0, NULL);
    if (p->agent_lid < 0 || p->agent_dr < 0 || p->agent_cc < 0 || umad_get_port(NULL, 0, &port) < 0)
        return -1;
    p->lid = (uint16_t)port.base_lid;
    umad_release_port(&port);
    /* The MAD starts at umad_get_mad() (64 bytes in), not at umad_size(). */
    p->umad_len = sizeof(struct ib_user_mad) + SMP_SIZE;
    p->umad = calloc(1, p->umad_len);
    if (!p->send_len)
        p->send_len = SMP_SIZE;
    return p->umad ? 0 : -1;
}

/* Build an SMP (method, attribute, modifier, M_Key, TID) along route r in mad. */
static void smp_build(const struct smp_port *p, const struct smp_route *r, uint8_t *mad,
                      unsigned method, unsigned attr, uint32_t mod, uint64_t mkey, uint64_t tid)
{
    mad_header_init(mad, r->directed ? IB_SMI_DIRECT_CLASS : IB_SMI_CLASS, 1, method, tid, attr,
                    mod);
    mad_set_field64(mad, 0, IB_MAD_MKEY_F, mkey);
    if (r->directed)
        mad_dr_init(mad, r->hops, 0, r->lid ? p->lid : 0xFFFF, 0xFFFF, r->path);
}

/* Send the SMP in p->umad along r; returns 0 or -1. */
static int smp_send(struct smp_port *p, const struct smp_route *r, int timeout_ms)
{
    umad_set_addr(p->umad, r->lid ? r->lid : 0xFFFF, 0, 0, 0);
    return umad_send(p->fd, r->directed ? p->agent_dr : p->agent_lid, p->umad, p->send_len,
                     timeout_ms, 0) < 0
               ? -1
               : 0;
}

/* Send a CC Get(CongestionKeyInfo) with cc_key and TID tid to LID r->lid (QP1); returns 0 or -1. */
static int smp_send_cc(struct smp_port *p, const struct smp_route *r, uint64_t cc_key, uint64_t tid,
                       int timeout_ms)
{
    uint8_t *mad = umad_get_mad(p->umad);

    memset(mad, 0, SMP_SIZE);
    mad_header_init(mad, IB_CC_CLASS, 2, IB_MAD_METHOD_GET, tid, IB_CC_ATTR_CONGESTION_KEY_INFO, 0);
    mad_set_field64(mad, 0, IB_CC_CCKEY_F, cc_key);
    umad_set_addr(p->umad, r->lid, 1, 0, IB_DEFAULT_QP1_QKEY);
    return umad_send(p->fd, p->agent_cc, p->umad, SMP_SIZE, timeout_ms, 0) < 0 ? -1 : 0;
}

/* Receive one MAD into p->umad within timeout_ms; returns 0 or -1. */
static int smp_recv(struct smp_port *p, int timeout_ms)
{
    int len = (int)(p->umad_len - umad_size());

    return umad_recv(p->fd, p->umad, &len, timeout_ms) < 0 ? -1 : 0;
}

/* The status of an answer (a DR SMP's status field leaves out the D bit). */
static unsigned st_status(const struct smp_route *r, uint8_t *mad)
{
    return mad_get_field(mad, 0, r->directed ? IB_DRSMP_STATUS_F : IB_MAD_STATUS_F);
}

/* query: print the answer's 256 bytes; returns the exit status. */
static int st_query(struct smp_port *p, const struct smp_route *r, unsigned attr, uint32_t mod,
                    uint64_t mkey, uint64_t tid, int timeout_ms)
{
    uint8_t *mad = umad_get_mad(p->umad);

    smp_build(p, r, mad, IB_MAD_METHOD_GET, attr, mod, mkey, tid);
    if (smp_send(p, r, timeout_ms))
        return 1;
    do {
        if (smp_recv(p, timeout_ms)) {
            printf("no answer\n");
            return 1;
        }
    } while ((uint32_t)mad_get_field64(mad, 0, IB_MAD_TRID_F) != (uint32_t)tid);
    if (umad_status(p->umad)) {
        printf("umad status %d\n", umad_status(p->umad));
        return 1;
    }
    for (unsigned i = 0; i < SMP_SIZE; i++)
        printf("%02x%s", mad[i], i % 16 == 15 ? "\n" : "");
    printf("status 0x%04x\n", st_status(r, mad));
    return st_status(r, mad) ? 1 : 0;
}

/* Milliseconds since an arbitrary start. */
static long long smp_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* flood: count Get(NodeInfo) sent, answers and timeouts back; returns the exit status. */
static int st_flood(struct smp_port *p, const struct smp_route *r, unsigned count, uint64_t mkey,
                    int timeout_ms)
{
    uint8_t *mad = umad_get_mad(p->umad);
    unsigned answered = 0, timeouts = 0, other = 0;
    uint8_t *seen = calloc(count, 1);
    long long deadline;

    if (!seen)
        return 1;
    for (unsigned i = 0; i < count; i++) {
        smp_build(p, r, mad, IB_MAD_METHOD_GET, IB_ATTR_NODE_INFO, 0, mkey, 0x50000000u + i);
        if (smp_send(p, r, timeout_ms))
            return 1;
    }
    /* Timeouts come timeout_ms after their send: room for a loaded machine. */
    deadline = smp_now_ms() + timeout_ms + 30000;
    while (answered + timeouts < count && smp_now_ms() < deadline) {
        uint32_t n;

        if (smp_recv(p, (int)(deadline - smp_now_ms())))
            break;
        n = (uint32_t)mad_get_field64(mad, 0, IB_MAD_TRID_F) - 0x50000000u;
        if (n >= count || seen[n]) {
            other++;
            continue;
        }
        seen[n] = 1;
        if (umad_status(p->umad) == SMP_TIMEOUT_STATUS)
            timeouts++;
        else if (!umad_status(p->umad))
            answered++;
        else
            other++;
    }
    printf("answered %u timeouts %u other %u\n", answered, timeouts, other);
    free(seen);
    return 0;
}

/*
 * mkey: PortInfo Set of port 0 (sent with M_Key mkey) of M_Key new_key and
 * protect bits protect; returns the exit status.
 */
static int st_mkey(struct smp_port *p, const struct smp_route *r, uint64_t mkey, uint64_t new_key,
                   unsigned protect, int timeout_ms)
{
    uint8_t *mad = umad_get_mad(p->umad);
    uint8_t pi[IB_SMP_DATA_SIZE];

    smp_build(p, r, mad, IB_MAD_METHOD_GET, IB_ATTR_PORT_INFO, 0, mkey, 0x4d4b0001u);
    if (smp_send(p, r, timeout_ms) || smp_recv(p, timeout_ms) || umad_status(p->umad))
        return 1;
    memcpy(pi, mad + IB_SMP_DATA_OFFS, sizeof(pi));
    mad_set_field64(pi, 0, IB_PORT_MKEY_F, new_key);
    mad_set_field(pi, 0, IB_PORT_MKEY_PROT_BITS_F, protect);
    mad_set_field(pi, 0, IB_PORT_MKEY_LEASE_F, 0);
    smp_build(p, r, mad, IB_MAD_METHOD_SET, IB_ATTR_PORT_INFO, 0, mkey, 0x4d4b0002u);
    memcpy(mad + IB_SMP_DATA_OFFS, pi, sizeof(pi));
    if (smp_send(p, r, timeout_ms) || smp_recv(p, timeout_ms) || umad_status(p->umad) ||
        st_status(r, mad))
        return 1;
    printf("mkey 0x%016" PRIx64 " protect %u\n",
           mad_get_field64(mad + IB_SMP_DATA_OFFS, 0, IB_PORT_MKEY_F),
           mad_get_field(mad + IB_SMP_DATA_OFFS, 0, IB_PORT_MKEY_PROT_BITS_F));
    return 0;
}

/*
 * timeouts: a request with umad timeout long_ms, then one with short_ms;
 * prints when each came back timed out (ms after its send) and which came
 * first; returns the exit status (1 if either was answered or never came).
 */
static int st_timeouts(struct smp_port *p, const struct smp_route *r, uint64_t mkey,
                       const uint64_t *cc_key, int long_ms, int short_ms)
{
    const uint64_t tids[2] = {0x54310001u, 0x54310002u}; /* long, short */
    uint8_t *mad = umad_get_mad(p->umad);
    long long sent[2], took[2] = {-1, -1}, deadline;
    int first = -1;

    if (cc_key && (r->directed || !r->lid))
        return 1; /* a GMP goes LID-routed */
    for (int k = 0; k < 2; k++) {
        int rc;

        sent[k] = smp_now_ms();
        if (cc_key) {
            rc = smp_send_cc(p, r, *cc_key, tids[k], k ? short_ms : long_ms);
        } else {
            smp_build(p, r, mad, IB_MAD_METHOD_GET, IB_ATTR_NODE_INFO, 0, mkey, tids[k]);
            rc = smp_send(p, r, k ? short_ms : long_ms);
        }
        if (rc)
            return 1;
    }
    deadline = smp_now_ms() + long_ms + 60000;
    while ((took[0] < 0 || took[1] < 0) && smp_now_ms() < deadline) {
        uint32_t tid;
        int k;

        if (smp_recv(p, (int)(deadline - smp_now_ms())))
            break;
        tid = (uint32_t)mad_get_field64(mad, 0, IB_MAD_TRID_F);
        k = tid == (uint32_t)tids[0] ? 0 : tid == (uint32_t)tids[1] ? 1 : -1;
        if (k < 0 || took[k] >= 0)
            continue;
        if (umad_status(p->umad) != SMP_TIMEOUT_STATUS) {
            printf("%s answered (umad status %d)\n", k ? "short" : "long", umad_status(p->umad));
            return 1;
        }
        took[k] = smp_now_ms() - sent[k];
        if (first < 0)
            first = k;
    }
    if (took[0] < 0 || took[1] < 0) {
        printf("not back: short %lld long %lld\n", took[1], took[0]);
        return 1;
    }
    printf("short %lld long %lld first %s\n", took[1], took[0], first ? "short" : "long");
    return 0;
}

int main(int argc, char **argv)
{
    uint64_t mkey = 0, tid = 0x12345678u, cc_key = 0;
    bool cc = false;
    int timeout = 1000, opt;
    struct smp_route r;
    struct smp_port p = {0};

    while ((opt = getopt(argc, argv, "y:t:i:l:C:")) != -1) {
        switch (opt) {
        case 'y':
            mkey = strtoull(optarg, NULL, 0);
            break;
        case 't':
            timeout = atoi(optarg);
            break;
        case 'i':
            tid = strtoull(optarg, NULL, 0);
            break;
        case 'C':
            cc = true;
            cc_key = strtoull(optarg, NULL, 0);
            break;
        case 'l':
            p.send_len = atoi(optarg);
            if (p.send_len < 24 || p.send_len > SMP_SIZE)
                return usage();
            break;
        default:
            return usage();
        }
    }
    if (argc - optind < 3 || smp_parse_route(argv[optind + 1], &r))
        return usage();
    if (smp_open(&p)) {
        fprintf(stderr, "smp_tool: cannot open the local port\n");
        return 1;
    }
    if (!strcmp(argv[optind], "query") && argc - optind == 4)
        return st_query(&p, &r, (unsigned)strtoul(argv[optind + 2], NULL, 0),
                        (uint32_t)strtoul(argv[optind + 3], NULL, 0), mkey, tid, timeout);
    if (!strcmp(argv[optind], "flood") && argc - optind == 3)
        return st_flood(&p, &r, (unsigned)strtoul(argv[optind + 2], NULL, 0), mkey, timeout);
    if (!strcmp(argv[optind], "mkey") && (argc - optind == 3 || argc - optind == 4))
        return st_mkey(&p, &r, mkey, strtoull(argv[optind + 2], NULL, 0),
                       argc - optind == 4 ? (unsigned)strtoul(argv[optind + 3], NULL, 0) : 2,
                       timeout);
    if (!strcmp(argv[optind], "timeouts") && argc - optind == 4)
        return st_timeouts(&p, &r, mkey, cc ? &cc_key : NULL, atoi(argv[optind + 2]),
                           atoi(argv[optind + 3]));
    return usage();
}
