/*
 * dftree_sa.c - pz-dftree's SA and PMA requests (dftree_sa.h).  SA
 * requests and answers are built and taken apart by mad/sa_query; the
 * InformInfo, InformInfoRecord and PZ_CongestionMonitor layouts, which
 * libibmad has no fields for, by the byte offsets named here.
 */
#include "dftree_sa.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/mad.h>

#include "pma_vendor.h"
#include "sa_query.h"

/* InformInfo (IBA 15.2.5.12, OpenSM's ib_inform_info_t): byte offsets. */
#define II_GID 0
#define II_LID_BEGIN 16
#define II_LID_END 18
#define II_IS_GENERIC 22
#define II_SUBSCRIBE 23
#define II_TYPE 24
#define II_DEVICE_ID 26 /* TrapNumber when generic */
#define II_QPN 28       /* QPN 24 bits, RespTimeValue 5 bits */
#define II_VENDOR_ID 33 /* 24 bits; ProducerType when generic */
#define II_LEN 36
/* InformInfoRecord (IBA 15.2.5.13): SubscriberGID, Enum, reserved, InformInfo. */
#define IIR_GID 0
#define IIR_LEN 64

#define PC_EXT_ATTR 0x1D /* PortCountersExtended */

/* Write v big-endian into n bytes at p. */
static void put_be(uint8_t *p, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

/* Read n big-endian bytes at p. */
static uint64_t get_be(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;

    for (unsigned i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

/*
 * One SA request (built in req) and its parsed answer in *a; returns 0, the
 * MAD status (> 0; NO_RECORDS is 0 with no records), or -1 (no answer).
 */
static int dt_sa_call(struct dt_port *p, uint8_t *req, struct sa_answer *a, const char **why)
{
    const uint8_t *ans;
    int len, rc = dt_rpc(p, DT_AGENT_SA, p->sm_lid, req, &ans, &len);

    if (rc) {
        *why = rc == -ETIMEDOUT ? "the SA did not answer" : "cannot send to the SA";
        return -1;
    }
    if (sa_answer_parse(ans, (size_t)len, a, why))
        return -1;
    if (sa_status_code(a->status) == SA_STATUS_NO_RECORDS) {
        a->count = 0;
        return 0;
    }
    if (a->status) {
        *why = sa_status_name(a->status);
        return a->status;
    }
    return 0;
}

void dt_fabric_free(struct dt_fabric *f)
{
    free(f->nodes);
    f->nodes = NULL;
    f->count = 0;
}

const struct dt_node *dt_fabric_by_lid(const struct dt_fabric *f, uint16_t lid)
{
    for (size_t i = 0; i < f->count; i++)
        if (f->nodes[i].lid == lid)
            return &f->nodes[i];
    return NULL;
}

/* Fill in the link rates of the CA ports of f from every PortInfoRecord; 0 or -1. */
static int dt_sa_link_rates(struct dt_port *p, struct dt_fabric *f, const char **why)
{
    uint8_t req[IB_MAD_SIZE];
    struct sa_answer a;

    sa_query_build_all(req, IB_SA_ATTR_PORTINFORECORD, 0);
    if (dt_sa_call(p, req, &a, why))
        return -1;
    for (size_t i = 0; i < a.count; i++) {
        const uint8_t *rec = sa_answer_record(&a, i);
        /* PortInfoRecord: EndportLID 16, PortNum 8, Options 8, then PortInfo (IBA 15.2.5.3). */
        const uint8_t *pi = rec + 4;
        uint16_t lid = (uint16_t)get_be(rec, 2);

        if (a.stride < SA_PORT_INFO_RECORD_LEN)
            return -1;
        for (size_t n = 0; n < f->count; n++)
            if (!f->nodes[n].is_switch && f->nodes[n].lid == lid && f->nodes[n].port == rec[2])
                f->nodes[n].link_bps =
                    dt_link_data_bps(mad_get_field((void *)pi, 0, IB_PORT_LINK_WIDTH_ACTIVE_F),
                                     mad_get_field((void *)pi, 0, IB_PORT_LINK_SPEED_ACTIVE_F),
                                     mad_get_field((void *)pi, 0, IB_PORT_LINK_SPEED_EXT_ACTIVE_F));
    }
    return 0;
}

int dt_sa_read_fabric(struct dt_port *p, struct dt_fabric *f, const char **why)
{
    uint8_t req[IB_MAD_SIZE];
    struct sa_answer a;
    struct dt_fabric nf = {0};

    sa_query_build_all(req, IB_SA_ATTR_NODERECORD, 0);
    if (dt_sa_call(p, req, &a, why))
        return -1;
    nf.nodes = calloc(a.count ? a.count : 1, sizeof(*nf.nodes));
    if (!nf.nodes) {
        *why = "out of memory";
        return -1;
    }
    for (size_t i = 0; i < a.count; i++) {
        struct sa_node_record r;
        struct dt_node *n = &nf.nodes[nf.count];

        if (sa_node_record_decode(sa_answer_record(&a, i), a.stride, &r) || r.lid == 0)
            continue;
        n->lid = r.lid;
        n->is_switch = r.node_type == IB_NODE_SWITCH;
        n->port = n->is_switch ? 0 : r.local_port;
        n->guid = r.port_guid;
        memcpy(n->desc, r.desc, sizeof(n->desc));
        nf.count++;
    }
    if (dt_sa_link_rates(p, &nf, why)) {
        dt_fabric_free(&nf);
        return -1;
    }
    dt_fabric_free(f);
    *f = nf;
    return 0;
}

uint16_t dt_sa_peer_lid(struct dt_port *p, uint16_t switch_lid, unsigned port, const char **why)
{
    uint8_t req[IB_MAD_SIZE];
    struct sa_answer a;

    sa_query_build_by_lid(req, IB_SA_ATTR_LINKRECORD, 0, switch_lid); /* FromLID */
    if (dt_sa_call(p, req, &a, why))
        return 0;
    for (size_t i = 0; i < a.count; i++) {
        struct sa_link_record l;

        if (sa_link_record_decode(sa_answer_record(&a, i), a.stride, &l) == 0 &&
            l.from_lid == switch_lid && l.from_port == port)
            return l.to_lid;
    }
    *why = "the SA has no link out of that port";
    return 0;
}

int dt_sa_inform(struct dt_port *p, const struct dt_subscription *s)
{
    uint8_t req[IB_MAD_SIZE], ii[II_LEN] = {0};
    struct sa_answer a;
    const char *why;

    put_be(ii + II_LID_BEGIN, s->lid_begin, 2);
    put_be(ii + II_LID_END, s->lid_end, 2);
    ii[II_IS_GENERIC] = 0;
    ii[II_SUBSCRIBE] = s->subscribe;
    put_be(ii + II_TYPE, 0xFFFF, 2); /* every type */
    put_be(ii + II_DEVICE_ID, s->device_id, 2);
    put_be(ii + II_QPN, 0, 4); /* the SA takes the requester's QP (and Reports go there) */
    put_be(ii + II_VENDOR_ID, s->vendor_id & 0xFFFFFF, 3);
    sa_query_build(req, IB_MAD_METHOD_SET, IB_SA_ATTR_INFORMINFO, 0, 0, ii, sizeof(ii));
    return dt_sa_call(p, req, &a, &why);
}

int dt_sa_subscribed(struct dt_port *p)
{
    uint8_t req[IB_MAD_SIZE];
    struct sa_answer a;
    const char *why;

    sa_query_build_all(req, IB_SA_ATTR_INFORMINFORECORD, 0);
    if (dt_sa_call(p, req, &a, &why))
        return -1;
    for (size_t i = 0; i < a.count; i++) {
        const uint8_t *rec = sa_answer_record(&a, i);

        if (a.stride >= IIR_LEN && get_be(rec + IIR_GID + 8, 8) == p->port_guid)
            return 1;
    }
    return 0;
}

/* One PMA Get (attribute, modifier, PortSelect) to lid; data (192 bytes) in out. */
static int dt_pma_get(struct dt_port *p, uint16_t lid, unsigned attr, unsigned mod,
                      unsigned port_select, uint8_t *out)
{
    uint8_t req[IB_MAD_SIZE] = {0};
    const uint8_t *ans;
    int len, rc;

    mad_set_field(req, 0, IB_MAD_BASEVER_F, 1);
    mad_set_field(req, 0, IB_MAD_MGMTCLASS_F, IB_PERFORMANCE_CLASS);
    mad_set_field(req, 0, IB_MAD_CLASSVER_F, 1);
    mad_set_field(req, 0, IB_MAD_METHOD_F, IB_MAD_METHOD_GET);
    mad_set_field(req, 0, IB_MAD_ATTRID_F, attr);
    mad_set_field(req, 0, IB_MAD_ATTRMOD_F, mod);
    if (attr == PC_EXT_ATTR)
        mad_set_field(req + IB_PC_DATA_OFFS, 0, IB_PC_EXT_PORT_SELECT_F, port_select);
    rc = dt_rpc(p, DT_AGENT_PMA, lid, req, &ans, &len);
    if (rc)
        return -1;
    if (mad_get_field((void *)ans, 0, IB_MAD_STATUS_F))
        return (int)mad_get_field((void *)ans, 0, IB_MAD_STATUS_F);
    memcpy(out, ans + IB_PC_DATA_OFFS, IB_PC_DATA_SZ);
    return 0;
}

int dt_pma_monitor(struct dt_port *p, uint16_t lid, struct dt_monitor *m)
{
    uint8_t d[IB_PC_DATA_SZ];
    int rc = dt_pma_get(p, lid, PZ_ATTR_CONG_MONITOR, 0, 0, d);

    if (rc)
        return rc;
    memset(m, 0, sizeof(*m));
    m->num_ports = d[PZ_CM_NUM_PORTS];
    m->interval_ms = (unsigned)get_be(d + PZ_CM_INTERVAL, 4);
    m->rule.threshold = get_be(d + PZ_CM_THRESHOLD, 8);
    m->rule.low_util_pct = d[PZ_CM_LOW_UTIL];
    memcpy(m->hot_mask, d + PZ_CM_HOTSPOT_MASK, sizeof(m->hot_mask));
    return d[PZ_CM_VERSION] == PZ_CM_LAYOUT_VERSION ? 0 : IB_MAD_STS_INV_ATTR_VALUE;
}

int dt_pma_port_record(struct dt_port *p, uint16_t lid, unsigned port, struct dt_port_record *r)
{
    uint8_t d[IB_PC_DATA_SZ];
    int rc = dt_pma_get(p, lid, PZ_ATTR_CONG_MONITOR, port, 0, d);

    if (rc)
        return rc;
    r->cls = d[PZ_CMP_CLASS];
    r->util_permille = (unsigned)get_be(d + PZ_CMP_UTIL, 2);
    r->congestion = get_be(d + PZ_CMP_CONGESTION, 8);
    r->bandwidth = get_be(d + PZ_CMP_BANDWIDTH, 8);
    return 0;
}

int dt_pma_counters(struct dt_port *p, uint16_t lid, unsigned port, struct dt_reading *r)
{
    uint8_t d[IB_PC_DATA_SZ];
    struct timespec ts;
    int rc = dt_pma_get(p, lid, PC_EXT_ATTR, 0, port, d);

    if (rc)
        return rc;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    r->at_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    r->xmit_words = mad_get_field64(d, 0, IB_PC_EXT_XMT_BYTES_F);
    r->xmit_wait = mad_get_field64(d, 0, IB_PC_EXT_XMT_WAIT_F);
    return 0;
}
