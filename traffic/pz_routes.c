/*
 * pz_routes.c - portzerod's route check over its own SA client
 * (pz_routes.h says what).  The four tables are asked one after the
 * other, each a transaction of mad/mad_txn: resent twice, with its TID,
 * after 4 s without an answer (pz_routes_timing), then the check fails,
 * except for the PortInfoRecords (the LMCs, asked last): without them the
 * check runs with LMC 0 for every port, as pz-routecheck does, and its
 * report says so.
 */
#include "pz_routes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/mad.h>

#include "mad.h"
#include "mad_txn.h"
#include "route_check.h"
#include "route_report.h"
#include "route_sa.h"
#include "sa_query.h"
#include "sma.h"

/* Each SA request: resent after 4 s without an answer, 3 sends in all. */
static const struct mad_txn_timing pz_routes_timing = {.timeout = 4000000000ull, .tries = 3};
#define PZ_ROUTES_TABLES 4

/* The tables a check reads, in order (PortInfoRecords after the NodeRecords they refer to). */
static const uint16_t pz_routes_attrs[PZ_ROUTES_TABLES] = {
    IB_SA_ATTR_NODERECORD,
    IB_SA_ATTR_LINKRECORD,
    IB_SA_ATTR_LFTRECORD,
    IB_SA_ATTR_PORTINFORECORD,
};

struct pz_routes {
    struct mad_txns txns; /* the SA requests (one in flight) */
    struct sma *sma;
    enum pz_routes_state state;
    bool all;
    unsigned table;      /* index into pz_routes_attrs of the request out */
    int txn;             /* its transaction */
    uint64_t now_ns;     /* caller's clock: the latest time it gave */
    uint64_t started_ns; /* CLOCK_MONOTONIC: the check's start (for its timing) */
    uint16_t sm_lid;
    uint8_t sm_sl;
    struct rc_fabric *building; /* the tables read so far */
    struct rc_fabric *fabric;   /* the last finished check's */
    struct rc_result result;
    bool have_result;
    struct rc_timing timing;
    struct pz_routes_summary last;
    char error[128];
};

/* Nanoseconds of CLOCK_MONOTONIC (the check's own time measure). */
static uint64_t pz_routes_mono_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct pz_routes *pz_routes_create(pz_routes_send_fn send, void *ctx, struct sma *sma)
{
    struct pz_routes *rt = calloc(1, sizeof(*rt));

    if (!rt)
        return NULL;
    mad_txns_init(&rt->txns, (uint8_t)(PZ_ROUTES_TID_TAG >> 24), 0, send, ctx);
    rt->sma = sma;
    rt->txn = -1;
    return rt;
}

void pz_routes_destroy(struct pz_routes *rt)
{
    if (!rt)
        return;
    rc_fabric_free(rt->building);
    rc_fabric_free(rt->fabric);
    rc_result_free(&rt->result);
    free(rt);
}

/* End the running check with an error. */
static void pz_routes_fail(struct pz_routes *rt, const char *why)
{
    mad_txn_cancel(&rt->txns, rt->txn);
    rt->txn = -1;
    snprintf(rt->error, sizeof(rt->error), "%s", why);
    rc_fabric_free(rt->building);
    rt->building = NULL;
    rt->state = PZ_ROUTES_FAILED;
}

static void pz_routes_answered(void *arg, int status, const uint8_t *mad, size_t len);

/* Ask for the current table (a transaction); 0 or -1 (not sent). */
static int pz_routes_send(struct pz_routes *rt, uint64_t now_ns)
{
    uint8_t mad[IB_MAD_SIZE];
    struct mad_addr to = {.dlid = rt->sm_lid, .sl = rt->sm_sl, .dst_qp = 1, .lid_routed = true};

    sa_query_build_all(mad, pz_routes_attrs[rt->table], PZ_ROUTES_TID_TAG);
    return mad_txn_start(&rt->txns, mad, &to, now_ns, &pz_routes_timing, pz_routes_answered, rt,
                         &rt->txn, NULL)
               ? -1
               : 0;
}

int pz_routes_start(struct pz_routes *rt, bool all, uint64_t now_ns)
{
    uint8_t pi[64];

    if (rt->state == PZ_ROUTES_RUNNING)
        return -EBUSY;
    rt->now_ns = now_ns;
    if (sma_local_get(rt->sma, 0, IB_ATTR_PORT_INFO, 0, pi))
        return -ENOENT;
    rt->sm_lid = (uint16_t)mad_get_field(pi, 0, IB_PORT_SMLID_F);
    rt->sm_sl = (uint8_t)mad_get_field(pi, 0, IB_PORT_SMSL_F);
    if (rt->sm_lid == 0 || rt->sm_lid >= 0xc000)
        return -ENOENT;
    mad_txns_set_lid(&rt->txns, (uint16_t)mad_get_field(pi, 0, IB_PORT_LID_F));
    rt->building = rc_fabric_new();
    if (!rt->building)
        return -ENOMEM;
    rt->all = all;
    rt->table = 0;
    rt->started_ns = pz_routes_mono_ns();
    rt->state = PZ_ROUTES_RUNNING;
    if (pz_routes_send(rt, now_ns)) {
        pz_routes_fail(rt, "the SA request could not be sent");
        return -EIO;
    }
    return 0;
}

/* All tables read: run the check and keep it as the last result. */
static void pz_routes_finish(struct pz_routes *rt)
{
    struct rc_options o = {.all_routes = rt->all};
    struct rc_result r;
    uint64_t t0 = pz_routes_mono_ns(), t1;

    if (rc_check(rt->building, &o, &r)) {
        pz_routes_fail(rt, "no switch in the SA's NodeRecords (or no memory)");
        return;
    }
    t1 = pz_routes_mono_ns();
    rc_result_free(&rt->result);
    rc_fabric_free(rt->fabric);
    rt->result = r;
    rt->fabric = rt->building;
    rt->building = NULL;
    rt->have_result = true;
    rt->timing.read_s = (double)(t0 - rt->started_ns) / 1e9;
    rt->timing.check_s = (double)(t1 - t0) / 1e9;
    rt->last = (struct pz_routes_summary){
        .valid = true,
        .when = (int64_t)time(NULL),
        .switches = (uint32_t)r.switches,
        .pairs = (uint32_t)r.pairs,
        .unrouted = (uint32_t)(r.pairs - r.routed),
        .unrouted_total = (uint32_t)r.nunrouted,
        .cycle = r.cycle,
        .check_us = (uint32_t)((t1 - t0) / 1000),
    };
    rt->state = PZ_ROUTES_DONE;
}

/* The current table is read (or given up, the PortInfoRecords): ask the next, or run the check. */
static void pz_routes_next(struct pz_routes *rt)
{
    if (++rt->table == PZ_ROUTES_TABLES) {
        pz_routes_finish(rt);
        return;
    }
    if (pz_routes_send(rt, rt->now_ns)) /* its timer from the latest time the caller gave */
        pz_routes_fail(rt, "the SA request could not be sent");
}

/* The current table's answer (status 0) or its timeout: add it and go on, or fail. */
static void pz_routes_answered(void *arg, int status, const uint8_t *mad, size_t len)
{
    struct pz_routes *rt = arg;
    struct sa_answer a;
    const char *why = "?";
    char msg[128];

    rt->txn = -1;
    if (status && pz_routes_attrs[rt->table] == IB_SA_ATTR_PORTINFORECORD) {
        rc_fabric_set_lmc_known(rt->building, false, "no PortInfoRecord answer");
        pz_routes_next(rt);
        return;
    }
    if (status) {
        pz_routes_fail(rt, "no answer from the SA");
        return;
    }
    sa_answer_parse(mad, len, &a, &why); /* pz_routes_take_mad parsed it */
    if (rc_fabric_add_sa_answer(rt->building, &a, &why) < 0) {
        if (a.attr_id == IB_SA_ATTR_PORTINFORECORD) {
            snprintf(msg, sizeof(msg), "a bad PortInfoRecord answer (%s)", why);
            rc_fabric_set_lmc_known(rt->building, false, msg);
        } else {
            snprintf(msg, sizeof(msg), "SA answer (attribute 0x%04x): %s", a.attr_id, why);
            pz_routes_fail(rt, msg);
            return;
        }
    }
    pz_routes_next(rt);
}

void pz_routes_take_mad(void *arg, const uint8_t *mad, size_t len)
{
    struct pz_routes *rt = arg;
    struct sa_answer a;
    const char *why = "?";

    if (rt->state != PZ_ROUTES_RUNNING || sa_answer_parse(mad, len, &a, &why) ||
        a.attr_id != pz_routes_attrs[rt->table])
        return;                          /* not an answer to the table asked */
    mad_txn_answer(&rt->txns, mad, len); /* a stray (another TID) changes nothing */
}

enum pz_routes_state pz_routes_poll(struct pz_routes *rt, uint64_t now_ns)
{
    if (now_ns > rt->now_ns)
        rt->now_ns = now_ns;
    if (rt->state == PZ_ROUTES_RUNNING)
        mad_txn_poll(&rt->txns, now_ns);
    return rt->state;
}

const char *pz_routes_error(const struct pz_routes *rt)
{
    return rt->error;
}

bool pz_routes_report(const struct pz_routes *rt, FILE *out, bool json)
{
    if (!rt->have_result)
        return false;
    (json ? rc_report_json : rc_report_text)(out, rt->fabric, &rt->result, &rt->timing);
    return true;
}

struct pz_routes_summary pz_routes_last(const struct pz_routes *rt)
{
    return rt->last;
}

int pz_routes_hops(const struct pz_routes *rt, uint16_t src_lid, uint16_t dlid)
{
    return rt && rt->have_result ? rc_route_hops(rt->fabric, src_lid, dlid) : -1;
}
