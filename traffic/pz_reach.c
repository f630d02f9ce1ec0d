/*
 * pz_reach.c - switch-to-switch reachability in portzerod (see pz_reach.h).
 */
#include "pz_reach.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/mad.h>

#include "board.h"
#include "mad.h"
#include "mad_txn.h"
#include "pz_echo.h"
#include "sa_query.h"
#include "sma.h"

/* Port 0's PortInfo is looked at this often (LID, SM, ClientReregister). */
#define PZ_REACH_PORT_NS 200000000ull
/* ... and this soon after an SMP Set. */
#define PZ_REACH_PORT_SOON_NS 5000000ull
/* An SA request unanswered 4 s is sent again, 3 times in all (OpenSM answers late while it
 * sweeps). */
static const struct mad_txn_timing pz_reach_sa_timing = {.timeout = 4000000000ull, .tries = 3};
/* Probes handed out per timer run at most (the rest on the next). */
#define PZ_REACH_PROBE_BATCH 32
/* Discovery asked again this soon after the SA was found to have lost the records. */
#define PZ_REACH_REDISCOVER_NS 2000000000ull
/* Register retried this soon after a failed Set. */
#define PZ_REACH_RETRY_NS 5000000000ull
/* Notices the trap queue had no room for are tried again this soon (TrapRepresses free it). */
#define PZ_REACH_NOTICE_RETRY_NS 100000000ull

/* The SA requests this module makes (each a mad/mad_txn transaction). */
enum pz_reach_kind {
    PZ_REACH_SET,      /* ServiceRecord Set (register, renew) */
    PZ_REACH_NODES,    /* NodeRecord GetTable (switches) */
    PZ_REACH_SERVICES, /* ServiceRecord GetTable (echo services) */
    PZ_REACH_KINDS,
};

/* One kind of SA request: which, and its transaction in flight. */
struct pz_reach_req {
    struct pz_reach *r;
    enum pz_reach_kind kind;
    int txn; /* -1: none out */
};

/* Port 0 as the SM configured it. */
struct pz_reach_port {
    uint16_t lid, sm_lid;
    uint8_t sm_sl;
    uint64_t gid_prefix;
    uint32_t rereg;
};

/* An echo service found at the SA. */
struct pz_reach_service {
    uint64_t port_guid;
    uint32_t qpn, qkey;
    uint64_t seen_ns; /* when the SA last listed it */
};

struct pz_reach {
    struct pz_reach_env env;
    struct reach *table;
    uint64_t timeout_ns;
    uint64_t refresh_ns, lease_ns;
    uint32_t lease_s;
    uint64_t node_guid, port_guid; /* this switch */
    struct pz_reach_port port;
    bool port_known;
    uint64_t next_port_ns;
    struct mad_txns txns; /* the SA requests */
    struct pz_reach_req req[PZ_REACH_KINDS];
    uint64_t txn_now;         /* the time of the answer or timer run that ends a transaction */
    bool registered;          /* the SA accepted the Set */
    uint64_t register_ns;     /* when the next Set is due (UINT64_MAX: none) */
    uint64_t discover_ns;     /* when the next discovery is due (UINT64_MAX: none) */
    struct reach_peer *nodes; /* the last NodeRecord answer: switches, identity only */
    uint64_t *node_port_guid; /* port 0's GUID of each (the echo service's GID) */
    size_t n_nodes;
    struct pz_reach_service *services; /* the last ServiceRecord answer */
    size_t n_services;
    bool have_nodes;
    uint64_t notice_ns; /* when notices are due to be tried (UINT64_MAX: none waits) */
    bool notices_held;  /* the last try found the trap queue full */
};

/* Format one log line and hand it to the agent's hook (none: dropped). */
static void pz_reach_log(const struct pz_reach *r, enum pz_reach_log_level level, const char *fmt,
                         ...) __attribute__((format(printf, 3, 4)));
static void pz_reach_log(const struct pz_reach *r, enum pz_reach_log_level level, const char *fmt,
                         ...)
{
    char msg[256];
    va_list ap;

    if (!r->env.log)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    r->env.log(r->env.log_arg, level, msg);
}

static void pz_reach_send_notices(struct pz_reach *r, uint64_t now);

/* CLOCK_MONOTONIC in ns: the agent loop's clock, the table's time base. */
static uint64_t pz_reach_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Read port 0's PortInfo into *p; false when the SMA has none. */
static bool pz_reach_read_port(const struct pz_reach *r, struct pz_reach_port *p)
{
    uint8_t pi[64];

    if (sma_local_get(r->env.sma, 0, IB_ATTR_PORT_INFO, 0, pi))
        return false;
    p->lid = (uint16_t)mad_get_field(pi, 0, IB_PORT_LID_F);
    p->sm_lid = (uint16_t)mad_get_field(pi, 0, IB_PORT_SMLID_F);
    p->sm_sl = (uint8_t)mad_get_field(pi, 0, IB_PORT_SMSL_F);
    p->gid_prefix = mad_get_field64(pi, 0, IB_PORT_GID_PREFIX_F);
    p->rereg = sma_client_reregister_count(r->env.sma, 0);
    return true;
}

/* Whether the SM has configured port 0 (a LID and an SM to talk to). */
static bool pz_reach_sm_known(const struct pz_reach *r)
{
    return r->port_known && r->port.lid && r->port.lid < 0xC000 && r->port.sm_lid &&
           r->port.sm_lid < 0xC000;
}

static void pz_reach_answered(void *arg, int status, const uint8_t *mad, size_t len);

/* Whether a request of kind is out. */
static bool pz_reach_out(const struct pz_reach *r, enum pz_reach_kind kind)
{
    return r->req[kind].txn >= 0;
}

/* Start the SA request of kind (mad built, its TID the layer's) at now; 0 or -1. */
static int pz_reach_send(struct pz_reach *r, enum pz_reach_kind kind, uint8_t *mad, uint64_t now)
{
    struct mad_addr to = {
        .dlid = r->port.sm_lid, .sl = r->port.sm_sl, .dst_qp = 1, .lid_routed = true};
    int rc = mad_txn_start(&r->txns, mad, &to, now, &pz_reach_sa_timing, pz_reach_answered,
                           &r->req[kind], &r->req[kind].txn, NULL);

    if (rc == -EIO) /* it stands: resent on its timer */
        pz_reach_log(r, PZ_REACH_LOG_WARN, "reach: SA request to LID %u not sent", r->port.sm_lid);
    return rc ? -1 : 0;
}

/* This switch's echo ServiceRecord. */
static void pz_reach_own_record(const struct pz_reach *r, struct sa_service_record *sr)
{
    memset(sr, 0, sizeof(*sr));
    sr->id = PZ_REACH_SERVICE_ID;
    mad_encode_field(sr->gid, IB_GID_PREFIX_F, (void *)&r->port.gid_prefix);
    mad_encode_field(sr->gid, IB_GID_GUID_F, (void *)&r->port_guid);
    sr->pkey = 0xFFFF;
    sr->lease = r->lease_s;
    snprintf(sr->name, sizeof(sr->name), "%s", PZ_REACH_SERVICE_NAME);
    sr->data32[0] = r->env.echo_qpn;
    sr->data32[1] = r->env.echo_qkey;
}

/* The component mask of the Set: OpenSM requires ServiceID and ServiceGID (the RID). */
#define PZ_REACH_SET_MASK                                                                          \
    (SA_SR_COMP_ID | SA_SR_COMP_GID | SA_SR_COMP_PKEY | SA_SR_COMP_LEASE | SA_SR_COMP_NAME |       \
     SA_SR_COMP_DATA32(0) | SA_SR_COMP_DATA32(1))

/* Send the ServiceRecord Set. */
static void pz_reach_send_set(struct pz_reach *r, uint64_t now)
{
    struct sa_service_record sr;
    uint8_t mad[IB_MAD_SIZE];

    pz_reach_own_record(r, &sr);
    sa_service_build(mad, IB_MAD_METHOD_SET, 0, &sr, PZ_REACH_SET_MASK);
    pz_reach_send(r, PZ_REACH_SET, mad, now);
}

/* Send the GetTable of the switches' NodeRecords. */
static void pz_reach_send_nodes(struct pz_reach *r, uint64_t now)
{
    uint8_t rec[SA_NODE_RECORD_LEN] = {0}, mad[IB_MAD_SIZE];

    /* NodeRecord: LID (2), reserved (2), NodeInfo (40) ...; NodeType is
     * NodeInfo's second byte, component mask bit 4 (IBA 15.2.5.2). */
    mad_set_field(rec + 4, 0, IB_NODE_TYPE_F, IB_NODE_SWITCH);
    sa_query_build(mad, IB_MAD_METHOD_GET_TABLE, IB_SA_ATTR_NODERECORD, 0, 1ull << 4, rec,
                   sizeof(rec));
    pz_reach_send(r, PZ_REACH_NODES, mad, now);
}

/* Send the GetTable of the echo services' ServiceRecords. */
static void pz_reach_send_services(struct pz_reach *r, uint64_t now)
{
    struct sa_service_record sr = {.id = PZ_REACH_SERVICE_ID};
    uint8_t mad[IB_MAD_SIZE];

    sa_service_build(mad, IB_MAD_METHOD_GET_TABLE, 0, &sr, SA_SR_COMP_ID);
    pz_reach_send(r, PZ_REACH_SERVICES, mad, now);
}

/* Send a request of kind (a transaction: its retries are the layer's). */
static void pz_reach_start(struct pz_reach *r, enum pz_reach_kind kind, uint64_t now)
{
    if (kind == PZ_REACH_SET)
        pz_reach_send_set(r, now);
    else if (kind == PZ_REACH_NODES)
        pz_reach_send_nodes(r, now);
    else
        pz_reach_send_services(r, now);
}

/* Delete the ServiceRecord (shutdown): sent once, the answer not awaited. */
static void pz_reach_send_delete(struct pz_reach *r)
{
    struct sa_service_record sr;
    uint8_t mad[IB_MAD_SIZE];
    uint64_t now = pz_reach_now();

    struct mad_addr to = {
        .dlid = r->port.sm_lid, .sl = r->port.sm_sl, .dst_qp = 1, .lid_routed = true};
    int id = -1;

    pz_reach_own_record(r, &sr);
    sa_service_build(mad, IB_MAD_METHOD_DELETE, 0, &sr,
                     SA_SR_COMP_ID | SA_SR_COMP_GID | SA_SR_COMP_PKEY);
    mad_txn_cancel_all(&r->txns); /* room for it; nothing more is awaited */
    if (mad_txn_start(&r->txns, mad, &to, now, &(struct mad_txn_timing){.timeout = 1, .tries = 1},
                      NULL, NULL, &id, NULL))
        pz_reach_log(r, PZ_REACH_LOG_WARN, "reach: SA request to LID %u not sent", r->port.sm_lid);
    mad_txn_cancel(&r->txns, id); /* its TID the layer's, its answer not awaited */
    pz_reach_log(r, PZ_REACH_LOG_INFO, "reach: echo service record deleted at the SA");
}

/* The echo service of the port with GUID port_guid, or NULL. */
static const struct pz_reach_service *pz_reach_service_of(const struct pz_reach *r,
                                                          uint64_t port_guid)
{
    for (size_t i = 0; i < r->n_services; i++)
        if (r->services[i].port_guid == port_guid)
            return &r->services[i];
    return NULL;
}

/* Hand the table the switches found, with their echo services. */
static void pz_reach_update_peers(struct pz_reach *r)
{
    uint64_t now = pz_reach_now();

    for (size_t i = 0; i < r->n_nodes; i++) {
        struct reach_peer *p = &r->nodes[i];
        const struct pz_reach_service *s = pz_reach_service_of(r, r->node_port_guid[i]);

        p->has_service = s != NULL;
        p->qpn = s ? s->qpn : 0;
        p->qkey = s ? s->qkey : 0;
    }
    if (reach_set_peers(r->table, r->nodes, r->n_nodes, now))
        pz_reach_log(r, PZ_REACH_LOG_WARN, "reach: cannot take %zu peers", r->n_nodes);
}

/* Take a NodeRecord table: every switch but this one. */
static void pz_reach_take_nodes(struct pz_reach *r, const struct sa_answer *a)
{
    struct reach_peer *nodes = calloc(a->count ? a->count : 1, sizeof(*nodes));
    uint64_t *guids = calloc(a->count ? a->count : 1, sizeof(*guids));
    size_t n = 0;

    if (!nodes || !guids) {
        free(nodes);
        free(guids);
        return;
    }
    for (size_t i = 0; i < a->count; i++) {
        struct sa_node_record nr;

        if (sa_node_record_decode(sa_answer_record(a, i), a->stride, &nr) ||
            nr.node_type != IB_NODE_SWITCH || nr.node_guid == r->node_guid)
            continue;
        nodes[n] = (struct reach_peer){.guid = nr.node_guid, .lid = nr.lid};
        guids[n] = nr.port_guid; /* a switch's NodeRecord carries port 0's GUID */
        snprintf(nodes[n].name, sizeof(nodes[n].name), "%s", nr.desc);
        n++;
    }
    free(r->nodes);
    free(r->node_port_guid);
    r->nodes = nodes;
    r->node_port_guid = guids;
    r->n_nodes = n;
    if (!r->have_nodes)
        pz_reach_log(r, PZ_REACH_LOG_INFO, "reach: %zu other switches in the subnet", n);
    r->have_nodes = true;
}

/* Insert or refresh the echo service of port_guid in sv[*n] (room for one more); seen now. */
static void pz_reach_service_seen(struct pz_reach_service *sv, size_t *n, uint64_t port_guid,
                                  uint32_t qpn, uint32_t qkey, uint64_t now)
{
    size_t i;

    for (i = 0; i < *n && sv[i].port_guid != port_guid; i++)
        ;
    if (i == *n)
        (*n)++;
    sv[i] =
        (struct pz_reach_service){.port_guid = port_guid, .qpn = qpn, .qkey = qkey, .seen_ns = now};
}

/*
 * Take a ServiceRecord table: the echo services (not this switch's own),
 * merged with those known: a record missing from the SA's table is kept for
 * two refresh intervals before its switch counts as agent-less.  After an
 * SM restart every agent registers again, each when it notices (at once
 * with a ClientReregister, else at its next discovery), so the SA's table
 * is incomplete for a while; without the grace, the peers would flap to
 * no-agent and back.  When this switch's own record is missing although the
 * SA accepted it, the SA lost it: it is registered again at once and the
 * table asked again soon.
 */
static void pz_reach_take_services(struct pz_reach *r, const struct sa_answer *a, uint64_t now)
{
    struct pz_reach_service *sv = calloc(r->n_services + a->count + 1, sizeof(*sv));
    uint64_t grace = 2 * r->refresh_ns;
    bool own = false;
    size_t n = 0, k = 0;

    if (!sv)
        return;
    for (size_t i = 0; i < r->n_services; i++)
        if (now - r->services[i].seen_ns < grace)
            sv[n++] = r->services[i];
    for (size_t i = 0; i < a->count; i++) {
        struct sa_service_record sr;
        uint64_t guid = 0;

        if (sa_service_record_decode(sa_answer_record(a, i), a->stride, &sr) ||
            sr.id != PZ_REACH_SERVICE_ID)
            continue;
        mad_decode_field(sr.gid, IB_GID_GUID_F, &guid);
        own |= guid == r->port_guid;
        if (guid == r->port_guid || !sr.data32[0] || sr.data32[0] > 0xFFFFFF)
            continue;
        pz_reach_service_seen(sv, &n, guid, sr.data32[0], sr.data32[1], now);
        k++;
    }
    free(r->services);
    r->services = sv;
    r->n_services = n;
    pz_reach_log(r, PZ_REACH_LOG_DEBUG, "reach: %zu echo services at the SA, %zu kept", k, n);
    if (!own && r->registered && !pz_reach_out(r, PZ_REACH_SET)) {
        pz_reach_log(r, PZ_REACH_LOG_INFO,
                     "reach: the SA lost the echo service record: registering again");
        r->registered = false;
        r->register_ns = now;
        r->discover_ns = now + PZ_REACH_REDISCOVER_NS;
    }
}

/* Take the answer to the Set: registered, renewed at half the lease. */
static void pz_reach_take_set(struct pz_reach *r, const struct sa_answer *a, uint64_t now)
{
    if (a->status) {
        pz_reach_log(r, PZ_REACH_LOG_WARN,
                     "reach: the SA refused the echo service record (%s, status 0x%04x)",
                     sa_status_name(a->status), a->status);
        r->register_ns = now + PZ_REACH_RETRY_NS;
        return;
    }
    if (!r->registered) {
        pz_reach_log(r, PZ_REACH_LOG_INFO,
                     "reach: echo service registered at the SA (ServiceID 0x%016llx, QPN 0x%06x, "
                     "lease %u s)",
                     (unsigned long long)PZ_REACH_SERVICE_ID, (unsigned)r->env.echo_qpn,
                     r->lease_s);
        /*
         * The other agents register when this one does (all start with the
         * subnet, or all after the SM's ClientReregister): look again soon
         * rather than a whole refresh interval later.
         */
        if (r->discover_ns > now + PZ_REACH_REDISCOVER_NS)
            r->discover_ns = now + PZ_REACH_REDISCOVER_NS;
    }
    r->registered = true;
    r->register_ns = now + r->lease_ns / 2;
}

/* What a kind of request is called in the log. */
static const char *pz_reach_kind_name(enum pz_reach_kind kind)
{
    return kind == PZ_REACH_SET     ? "the service record Set"
           : kind == PZ_REACH_NODES ? "the NodeRecord GetTable"
                                    : "the ServiceRecord GetTable";
}

/* A request of kind ended: its answer (status 0), or no answer after the tries. */
static void pz_reach_answered(void *arg, int status, const uint8_t *mad, size_t len)
{
    struct pz_reach_req *q = arg;
    struct pz_reach *r = q->r;
    uint64_t now = r->txn_now;
    struct sa_answer a;
    const char *why = "";

    q->txn = -1;
    if (status) {
        pz_reach_log(r, PZ_REACH_LOG_WARN, "reach: no SA answer to %s after %u tries",
                     pz_reach_kind_name(q->kind), pz_reach_sa_timing.tries);
        if (q->kind == PZ_REACH_SET)
            r->register_ns = now + PZ_REACH_RETRY_NS;
        return;
    }
    sa_answer_parse(mad, len, &a, &why); /* pz_reach_take_mad parsed it */
    if (q->kind == PZ_REACH_SET) {
        pz_reach_take_set(r, &a, now);
        return;
    }
    if (a.status && sa_status_code(a.status) != SA_STATUS_NO_RECORDS) {
        pz_reach_log(r, PZ_REACH_LOG_WARN, "reach: SA GetTable refused (%s, status 0x%04x)",
                     sa_status_name(a.status), a.status);
        return;
    }
    if (a.truncated)
        pz_reach_log(r, PZ_REACH_LOG_WARN,
                     "reach: SA table arrived truncated (no RMPP reassembly)");
    if (a.status)
        a.count = 0; /* no records: an empty table */
    if (q->kind == PZ_REACH_NODES)
        pz_reach_take_nodes(r, &a);
    else
        pz_reach_take_services(r, &a, now);
    if (r->have_nodes)
        pz_reach_update_peers(r);
}

void pz_reach_take_mad(void *arg, const uint8_t *mad, size_t len)
{
    struct pz_reach *r = arg;
    struct sa_answer a;
    const char *why = "";

    if (sa_answer_parse(mad, len, &a, &why)) {
        pz_reach_log(r, PZ_REACH_LOG_DEBUG, "reach: SA answer dropped: %s", why);
        return;
    }
    r->txn_now = pz_reach_now();
    if (!mad_txn_answer(&r->txns, mad, len))
        pz_reach_log(r, PZ_REACH_LOG_DEBUG, "reach: stray SA answer TID 0x%08x", (unsigned)a.tid);
}

/* Look at port 0: a new LID, SM or a ClientReregister calls for a new Set and discovery. */
static void pz_reach_check_port(struct pz_reach *r, uint64_t now)
{
    struct pz_reach_port p;

    r->next_port_ns = now + PZ_REACH_PORT_NS;
    if (!pz_reach_read_port(r, &p))
        return;
    if (r->port_known && p.lid == r->port.lid && p.sm_lid == r->port.sm_lid &&
        p.rereg == r->port.rereg && p.gid_prefix == r->port.gid_prefix)
        return;
    if (r->port_known && p.sm_lid != r->port.sm_lid)
        reach_notice_new_sm(r->table); /* it has been told nothing */
    r->notice_ns = now;
    if (r->port_known)
        pz_reach_log(r, PZ_REACH_LOG_INFO,
                     "reach: port 0 now LID %u, SM LID %u (ClientReregister %u): registering and "
                     "discovering again",
                     p.lid, p.sm_lid, p.rereg);
    r->port = p;
    r->port_known = true;
    r->registered = false;
    mad_txns_set_lid(&r->txns, p.lid);
    for (int k = 0; k < PZ_REACH_KINDS; k++) {
        mad_txn_cancel(&r->txns, r->req[k].txn);
        r->req[k].txn = -1;
    }
    r->register_ns = now;
    r->discover_ns = now;
}

/* Resend or give up the SA requests that timed out. */
static void pz_reach_sa_timeouts(struct pz_reach *r, uint64_t now)
{
    r->txn_now = now;
    mad_txn_poll(&r->txns, now);
}

/* Start what is due: the Set (register or renew), the discovery. */
static void pz_reach_sa_due(struct pz_reach *r, uint64_t now)
{
    if (!pz_reach_sm_known(r))
        return;
    if (now >= r->register_ns && !pz_reach_out(r, PZ_REACH_SET)) {
        r->register_ns = UINT64_MAX;
        pz_reach_start(r, PZ_REACH_SET, now);
    }
    if (now >= r->discover_ns) {
        r->discover_ns = now + r->refresh_ns;
        if (!pz_reach_out(r, PZ_REACH_NODES))
            pz_reach_start(r, PZ_REACH_NODES, now);
        if (!pz_reach_out(r, PZ_REACH_SERVICES))
            pz_reach_start(r, PZ_REACH_SERVICES, now);
    }
}

/* Send the probes that are due. */
static void pz_reach_send_probes(struct pz_reach *r, uint64_t now)
{
    struct reach_probe pr[PZ_REACH_PROBE_BATCH];
    size_t n;

    do {
        n = reach_due(r->table, now, pr, PZ_REACH_PROBE_BATCH);
        for (size_t i = 0; i < n; i++) {
            int rc = pz_echo_probe_send(r->env.echo, pr[i].dlid, pr[i].qpn, pr[i].qkey, pr[i].seq);

            if (rc)
                pz_reach_log(r, PZ_REACH_LOG_DEBUG, "reach: probe to LID %u not sent (%s)",
                             pr[i].dlid, strerror(-rc));
        }
    } while (n == PZ_REACH_PROBE_BATCH);
}

uint64_t pz_reach_deadline(void *arg)
{
    struct pz_reach *r = arg;
    uint64_t next = r->next_port_ns, t;

    if (pz_reach_sm_known(r)) {
        if (r->register_ns < next)
            next = r->register_ns;
        if (r->discover_ns < next)
            next = r->discover_ns;
    }
    if ((t = mad_txn_deadline(&r->txns)) < next)
        next = t;
    if (r->notice_ns < next)
        next = r->notice_ns;
    if ((t = reach_next_deadline(r->table)) < next)
        next = t;
    return next;
}

void pz_reach_on_timer(void *arg, uint64_t now)
{
    struct pz_reach *r = arg;

    if (now >= r->next_port_ns)
        pz_reach_check_port(r, now);
    pz_reach_sa_timeouts(r, now);
    pz_reach_sa_due(r, now);
    reach_expire(r->table, now);
    pz_reach_send_probes(r, now);
    pz_reach_send_notices(r, now);
}

/* Echo: a probe reply came back. */
static void pz_reach_on_reply(void *arg, uint32_t seq, uint64_t rtt_ns,
                              const struct board_dgram_addr *from)
{
    struct pz_reach *r = arg;

    if (!reach_reply(r->table, seq, from->slid, rtt_ns, pz_reach_now()))
        pz_reach_log(r, PZ_REACH_LOG_DEBUG, "reach: late or foreign probe reply %u from LID %u",
                     (unsigned)seq, from->slid);
}

/* Queue the vendor notice of a peer's status now (and how many changes it sums up); returns 0,
 * or -1 when the trap queue has no room for it. */
static int pz_reach_notice(struct pz_reach *r, const struct reach_peer *p)
{
    uint8_t details[12] = {0};
    uint16_t trap = p->status == REACH_REACHABLE ? PZ_REACH_TRAP_REGAINED : PZ_REACH_TRAP_LOST;

    details[0] = (uint8_t)(p->lid >> 8);
    details[1] = (uint8_t)p->lid;
    for (int i = 0; i < 8; i++)
        details[2 + i] = (uint8_t)(p->guid >> (56 - 8 * i));
    details[10] = (uint8_t)p->status;
    details[11] = (uint8_t)p->notice_changes;
    if (!sma_vendor_notice_room(r->env.sma) ||
        sma_send_vendor_notice(r->env.sma, trap, details, sizeof(details)))
        return -1;
    pz_reach_log(r, PZ_REACH_LOG_INFO,
                 "reach: %s notice (trap 0x%04x) for LID %u queued for SM LID %u (%u change%s)",
                 trap == PZ_REACH_TRAP_LOST ? "reachability lost" : "reachability regained", trap,
                 p->lid, r->port.sm_lid, p->notice_changes, p->notice_changes == 1 ? "" : "s");
    return 0;
}

/* Queue the notices that are due while the trap queue has room; the rest wait for room (logged
 * once each time the queue fills). */
static void pz_reach_send_notices(struct pz_reach *r, uint64_t now)
{
    const struct reach_peer *peers;
    size_t i, n;

    if (now < r->notice_ns)
        return;
    r->notice_ns = UINT64_MAX;
    if (!pz_reach_sm_known(r))
        return; /* sent once the SM is known (pz_reach_check_port) */
    peers = reach_peers(r->table, &n);
    while (reach_notice_due(r->table, &i)) {
        if (pz_reach_notice(r, &peers[i])) {
            if (!r->notices_held)
                pz_reach_log(r, PZ_REACH_LOG_INFO,
                             "reach: trap queue full: notices held until the SM represses the "
                             "queued ones");
            r->notices_held = true;
            r->notice_ns = now + PZ_REACH_NOTICE_RETRY_NS;
            return;
        }
        reach_notice_told(r->table, i);
    }
    r->notices_held = false;
}

/* Hand the peers to the publisher (the SNMP agent), if there is one. */
static void pz_reach_publish(struct pz_reach *r)
{
    size_t n = 0;
    const struct reach_peer *p = reach_peers(r->table, &n);

    if (r->env.publish)
        r->env.publish(r->env.publish_arg, p, n);
}

/* Table: a peer's status changed: log, notify the SM and the NMS. */
static void pz_reach_on_change(void *arg, const struct reach_peer *p, enum reach_status old)
{
    struct pz_reach *r = arg;

    if (p->status == REACH_REACHABLE)
        pz_reach_log(r, PZ_REACH_LOG_INFO,
                     "reach: %s (LID %u, GUID 0x%016llx) %s -> reachable (rtt %.3f ms)", p->name,
                     p->lid, (unsigned long long)p->guid, reach_status_name(old),
                     (double)p->rtt_ns / 1e6);
    else
        pz_reach_log(r, PZ_REACH_LOG_INFO, "reach: %s (LID %u, GUID 0x%016llx) %s -> %s", p->name,
                     p->lid, (unsigned long long)p->guid, reach_status_name(old),
                     reach_status_name(p->status));
    if (p->notice_changes)
        r->notice_ns = 0; /* pz_reach_send_notices at the next timer run */
    pz_reach_publish(r);
}

struct pz_reach *pz_reach_create(const struct pz_reach_config *cfg, const struct pz_reach_env *env,
                                 char *err, size_t errlen)
{
    struct reach_config rc = {.interval_ns = cfg->interval_ms * 1000000ull,
                              .timeout_ns = cfg->timeout_ms * 1000000ull,
                              .lost_after = cfg->lost_after,
                              .lost_keep_ns = cfg->lost_keep_s * 1000000000ull};
    struct pz_reach *r;

    if (!env->echo) {
        snprintf(err, errlen, "no echo service (port-0 datagrams off)");
        return NULL;
    }
    if (rc.timeout_ns >= rc.interval_ns) {
        snprintf(err, errlen, "reach_timeout_ms must be less than reach_interval_ms");
        return NULL;
    }
    r = calloc(1, sizeof(*r));
    if (!r || !(r->table = reach_create(&rc, pz_reach_on_change, r))) {
        free(r);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    r->env = *env;
    r->timeout_ns = rc.timeout_ns;
    r->refresh_ns = cfg->refresh_s * 1000000000ull;
    r->lease_s = cfg->lease_s;
    r->lease_ns = cfg->lease_s * 1000000000ull;
    r->node_guid = env->board->id->node_guid;
    r->port_guid = env->board->id->port_guid[0];
    r->register_ns = UINT64_MAX;
    r->discover_ns = UINT64_MAX;
    mad_txns_init(&r->txns, (uint8_t)(PZ_REACH_TID_TAG >> 24), r->port_guid, env->send,
                  env->send_ctx);
    for (int k = 0; k < PZ_REACH_KINDS; k++)
        r->req[k] = (struct pz_reach_req){.r = r, .kind = (enum pz_reach_kind)k, .txn = -1};
    r->notice_ns = UINT64_MAX;
    pz_echo_set_probe_handler(env->echo, pz_reach_on_reply, r);
    return r;
}

void pz_reach_destroy(struct pz_reach *r)
{
    if (!r)
        return;
    if (r->registered && pz_reach_sm_known(r))
        pz_reach_send_delete(r);
    pz_echo_set_probe_handler(r->env.echo, NULL, NULL);
    reach_destroy(r->table);
    free(r->nodes);
    free(r->node_port_guid);
    free(r->services);
    free(r);
}

void pz_reach_port_changed(struct pz_reach *r)
{
    uint64_t soon = pz_reach_now() + PZ_REACH_PORT_SOON_NS;

    if (r && soon < r->next_port_ns)
        r->next_port_ns = soon;
}

int pz_reach_probe_all(struct pz_reach *r, uint64_t now_ns)
{
    size_t n = 0;
    const struct reach_peer *p = reach_peers(r->table, &n);
    int probed = 0;

    if (!r->have_nodes)
        return -ENOENT;
    reach_probe_all_now(r->table, now_ns);
    for (size_t i = 0; i < n; i++)
        probed += p[i].has_service;
    return probed;
}

const struct reach_peer *pz_reach_peers(const struct pz_reach *r, size_t *n)
{
    return reach_peers(r->table, n);
}

uint64_t pz_reach_timeout_ns(const struct pz_reach *r)
{
    return r->timeout_ns;
}

bool pz_reach_discovered(const struct pz_reach *r)
{
    return r->have_nodes;
}
