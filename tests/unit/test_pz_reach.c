/*
 * test_pz_reach.c - portzerod's reachability glue (traffic/pz_reach.c) on an
 * in-memory switch: nothing before the SM is known; then the ServiceRecord
 * Set (component mask, GID, name, QPN and Q_Key, lease), the two GetTables
 * (NodeRecord of switches, ServiceRecord of the echo ServiceID) to the SM's
 * LID; answers taken by TID (peers: switches only, not itself, with their
 * echo QP); probes sent as echo requests, a reply makes the peer reachable,
 * misses make it unreachable with a vendor notice 0x0003 to the SM and the
 * publisher called; a ClientReregister sends the Set again; a lost record
 * is registered again; garbage answers are dropped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <infiniband/mad.h>

#include "board_mem.h"
#include "mad.h"
#include "pz_echo.h"
#include "pz_reach.h"
#include "pzt.h"
#include "sa_query.h"
#include "sma.h"
#include "pzt_main.h"
#include "pzt_fields.h"

#define MS 1000000ull
#define SW_LID 0x21
#define SM_LID 0x05
#define PEER_LID 0x30
#define PEER_GUID 0x0002c90300aa0000ull
#define PEER_QPN 0x000207u
#define N_TRAP 10 /* vendor trap number, Notice byte 10 (sma/README.md) */

/* A switch with the echo service and the reachability glue, and what it sent to the SA. */
struct fx {
    struct pzt_node *n;
    struct pz_echo *echo;
    struct pz_reach *r;
    uint32_t qpn;
    struct pzt_sent sent; /* what the send callback was handed */
    unsigned published;   /* publisher calls */
    size_t last_published;
};

/* CLOCK_MONOTONIC ns (the glue's clock). */
static uint64_t mono(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The send callback: record the MAD. */
static int fx_send(void *arg, const uint8_t *mad, const struct mad_addr *to)
{
    struct fx *f = arg;

    pzt_sent_add(&f->sent, mad, to);
    return 0;
}

/* The publisher: count. */
static void fx_publish(void *arg, const struct reach_peer *peers, size_t n)
{
    struct fx *f = arg;

    (void)peers;
    f->published++;
    f->last_published = n;
}

static struct fx *fx_new(void)
{
    /* reach_refresh_s at portzerod's default */
    static const struct pz_reach_config cfg = {
        .interval_ms = 1000, .timeout_ms = 300, .lost_after = 2, .refresh_s = 30, .lease_s = 60};
    struct fx *f = test_calloc(1, sizeof(*f));
    char err[160] = "";

    struct board_identity id;

    board_mem_default_switch_identity(&id, 0x0002c90000001000ull, 4);
    id.port0_client_rereg = true; /* IsClientReregistrationSupported on port 0 */
    f->n = pzt_node_new(&id);
    assert_non_null(f->n);
    assert_int_equal(board_dgram_open(f->n->board, PZ_ECHO_QKEY_DEFAULT, &f->qpn), 0);
    f->echo = pz_echo_create(f->n->board, PZ_ECHO_QKEY_DEFAULT);
    assert_non_null(f->echo);
    struct pz_reach_env env = {.board = f->n->board,
                               .sma = f->n->sma,
                               .echo = f->echo,
                               .echo_qpn = f->qpn,
                               .echo_qkey = PZ_ECHO_QKEY_DEFAULT,
                               .send = fx_send,
                               .send_ctx = f,
                               .publish = fx_publish,
                               .publish_arg = f};
    f->r = pz_reach_create(&cfg, &env, err, sizeof(err));
    assert_non_null(f->r);
    return f;
}

static void fx_free(struct fx *f)
{
    pz_reach_destroy(f->r);
    pz_echo_destroy(f->echo);
    pzt_node_free(f->n);
    test_free(f);
}

/* The sent MAD of (method, attribute), searching from index from; its index or -1. */
static int fx_find(const struct fx *f, unsigned from, unsigned method, unsigned attr)
{
    for (unsigned i = from; i < f->sent.num && i < PZT_SENT_MAX; i++)
        if (mad_get_field((void *)f->sent.mad[i], 0, IB_MAD_METHOD_F) == method &&
            mad_get_field((void *)f->sent.mad[i], 0, IB_MAD_ATTRID_F) == attr)
            return (int)i;
    return -1;
}

/* An SA answer header for request i: method, status, stride (bytes). */
static void answer_header(const struct fx *f, unsigned i, uint8_t *b, unsigned method,
                          uint16_t status, size_t stride)
{
    memset(b, 0, SA_HEADER_LEN);
    memcpy(b, f->sent.mad[i], 24);
    PZT_SET_FIELDS(b, {IB_MAD_METHOD_F, method & 0x7F}, {IB_MAD_RESPONSE_F, 1},
                   {IB_MAD_STATUS_F, status});
    /* the MAD layer's agent number in the high TID bits */
    mad_set_field64(b, 0, IB_MAD_TRID_F,
                    mad_get_field64((void *)f->sent.mad[i], 0, IB_MAD_TRID_F) |
                        0x0000000700000000ull);
    mad_set_field(b, 0, IB_SA_ATTROFFS_F, (uint32_t)(stride / 8));
}

/* A NodeRecord (IBA offsets: LID 0, NodeInfo 4). */
static void node_record(uint8_t *rec, uint16_t lid, uint8_t type, uint64_t node_guid,
                        uint64_t port_guid, const char *desc)
{
    memset(rec, 0, 112);
    be16_put(rec, lid);
    rec[4] = 1;
    rec[5] = 1;
    rec[6] = type;
    rec[7] = 8;
    be64_put(rec + 16, node_guid); /* NodeGUID at NodeInfo 12 */
    be64_put(rec + 24, port_guid); /* PortGUID at NodeInfo 20 */
    memcpy(rec + 44, desc, strlen(desc));
}

/* Answer the NodeRecord GetTable (request i): this switch, the peer, a CA. */
static void fx_answer_nodes(struct fx *f, unsigned i)
{
    uint8_t b[SA_HEADER_LEN + 3 * 112];
    const struct board_identity *id = f->n->board->id;

    answer_header(f, i, b, 0x92, 0, 112);
    node_record(b + SA_HEADER_LEN, SW_LID, IB_NODE_SWITCH, id->node_guid, id->port_guid[0], "self");
    node_record(b + SA_HEADER_LEN + 112, PEER_LID, IB_NODE_SWITCH, PEER_GUID, PEER_GUID,
                "peer-switch");
    node_record(b + SA_HEADER_LEN + 224, 0x40, IB_NODE_CA, 0x1234, 0x1235, "a-ca");
    pz_reach_take_mad(f->r, b, sizeof(b));
}

/* Answer the ServiceRecord GetTable (request i) with the peer's record and, when own, ours. */
static void fx_answer_services(struct fx *f, unsigned i, bool own)
{
    uint8_t b[SA_HEADER_LEN + 2 * 176], tmp[256];
    struct sa_service_record sr = {.id = PZ_REACH_SERVICE_ID, .pkey = 0xFFFF, .lease = 60};
    uint64_t prefix = 0xfe80000000000000ull, guid = PEER_GUID;

    answer_header(f, i, b, 0x92, 0, 176);
    mad_encode_field(sr.gid, IB_GID_PREFIX_F, &prefix);
    mad_encode_field(sr.gid, IB_GID_GUID_F, &guid);
    sr.data32[0] = PEER_QPN;
    sr.data32[1] = PZ_ECHO_QKEY_DEFAULT;
    sa_service_build(tmp, IB_MAD_METHOD_SET, 0, &sr, 0);
    memcpy(b + SA_HEADER_LEN, tmp + SA_HEADER_LEN, 176);
    guid = f->n->board->id->port_guid[0];
    mad_encode_field(sr.gid, IB_GID_GUID_F, &guid);
    sr.data32[0] = f->qpn;
    sa_service_build(tmp, IB_MAD_METHOD_SET, 0, &sr, 0);
    memcpy(b + SA_HEADER_LEN + 176, tmp + SA_HEADER_LEN, 176);
    pz_reach_take_mad(f->r, b, own ? sizeof(b) : SA_HEADER_LEN + 176);
}

/* Answer the Set (request i) with status. */
static void fx_answer_set(struct fx *f, unsigned i, uint16_t status)
{
    uint8_t b[256];

    memcpy(b, f->sent.mad[i], 256);
    answer_header(f, i, b, IB_MAD_METHOD_GET_RESPONSE, status, 176);
    pz_reach_take_mad(f->r, b, sizeof(b));
}

/* The vendor trap numbers the SMA sends now into traps[] (at most max); returns the count. */
static unsigned fx_traps(struct fx *f, unsigned *traps, unsigned max)
{
    struct pzt_result r;
    unsigned count = 0;

    while (count < 16 && sma_poll(f->n->sma, &r.addr, r.mad) == MAD_SEND) {
        if (mad_get_field((void *)(r.mad + 64), 0, IB_NOTICE_IS_GENERIC_F))
            continue;
        if (count < max)
            traps[count] = be16_get(r.mad + 64 + N_TRAP);
        count++;
    }
    return count;
}

/* The one peer of the table. */
static const struct reach_peer *fx_peer(const struct fx *f)
{
    size_t n = 0;
    const struct reach_peer *p = pz_reach_peers(f->r, &n);

    assert_int_equal(n, 1);
    return p;
}

/* Bring the fixture to a discovered peer: LID assigned, requests answered. */
static void fx_discover(struct fx *f)
{
    pzt_assign_lid(f->n, SW_LID, SM_LID, 18);
    pz_reach_on_timer(f->r, mono());
    assert_int_equal(f->sent.num, 3);
    fx_answer_set(f, (unsigned)fx_find(f, 0, IB_MAD_METHOD_SET, IB_SA_ATTR_SERVICERECORD), 0);
    fx_answer_nodes(f, (unsigned)fx_find(f, 0, IB_MAD_METHOD_GET_TABLE, IB_SA_ATTR_NODERECORD));
    fx_answer_services(
        f, (unsigned)fx_find(f, 0, IB_MAD_METHOD_GET_TABLE, IB_SA_ATTR_SERVICERECORD), true);
}

/* No LID, no SM: nothing goes to the SA. */
static void test_nothing_before_sm(void **state)
{
    struct fx *f = fx_new();

    pz_reach_on_timer(f->r, mono());
    assert_int_equal(f->sent.num, 0);
    assert_false(pz_reach_discovered(f->r));
    assert_int_equal(pz_reach_probe_all(f->r, mono()), -ENOENT);
    fx_free(f);
}

/* The Set and the two GetTables, field by field. */
static void test_requests(void **state)
{
    struct fx *f = fx_new();
    struct sa_service_record sr;
    uint64_t guid = 0;
    int set, nodes, services;

    pzt_assign_lid(f->n, SW_LID, SM_LID, 18);
    pz_reach_on_timer(f->r, mono());
    assert_int_equal(f->sent.num, 3);
    set = fx_find(f, 0, IB_MAD_METHOD_SET, IB_SA_ATTR_SERVICERECORD);
    nodes = fx_find(f, 0, IB_MAD_METHOD_GET_TABLE, IB_SA_ATTR_NODERECORD);
    services = fx_find(f, 0, IB_MAD_METHOD_GET_TABLE, IB_SA_ATTR_SERVICERECORD);
    assert_true(set >= 0 && nodes >= 0 && services >= 0);
    for (unsigned i = 0; i < 3; i++) {
        assert_int_equal(f->sent.to[i].dlid, SM_LID);
        assert_int_equal(f->sent.to[i].dst_qp, 1);
        assert_true(f->sent.to[i].lid_routed);
        assert_int_equal(mad_get_field((void *)f->sent.mad[i], 0, IB_MAD_MGMTCLASS_F), IB_SA_CLASS);
        assert_int_equal(mad_get_field((void *)f->sent.mad[i], 0, IB_MAD_CLASSVER_F), 2);
        assert_int_equal((uint32_t)mad_get_field64((void *)f->sent.mad[i], 0, IB_MAD_TRID_F) &
                             PZ_REACH_TID_MASK,
                         PZ_REACH_TID_TAG);
    }
    assert_int_equal(mad_get_field64((void *)f->sent.mad[set], 0, IB_SA_COMPMASK_F),
                     SA_SR_COMP_ID | SA_SR_COMP_GID | SA_SR_COMP_PKEY | SA_SR_COMP_LEASE |
                         SA_SR_COMP_NAME | SA_SR_COMP_DATA32(0) | SA_SR_COMP_DATA32(1));
    assert_int_equal(sa_service_record_decode(f->sent.mad[set] + SA_HEADER_LEN, 176, &sr), 0);
    assert_true(sr.id == PZ_REACH_SERVICE_ID);
    mad_decode_field(sr.gid, IB_GID_GUID_F, &guid);
    assert_true(guid == f->n->board->id->port_guid[0]);
    assert_int_equal(sr.pkey, 0xFFFF);
    assert_int_equal(sr.lease, 60);
    assert_string_equal(sr.name, "portzero-echo");
    assert_int_equal(sr.data32[0], f->qpn);
    assert_int_equal(sr.data32[1], PZ_ECHO_QKEY_DEFAULT);
    /* NodeRecords of switches only: NodeType, component mask bit 4 */
    assert_int_equal(mad_get_field64((void *)f->sent.mad[nodes], 0, IB_SA_COMPMASK_F), 1u << 4);
    assert_int_equal(f->sent.mad[nodes][SA_HEADER_LEN + 6], IB_NODE_SWITCH);
    assert_int_equal(mad_get_field64((void *)f->sent.mad[services], 0, IB_SA_COMPMASK_F),
                     SA_SR_COMP_ID);
    assert_int_equal(sa_service_record_decode(f->sent.mad[services] + SA_HEADER_LEN, 176, &sr), 0);
    assert_true(sr.id == PZ_REACH_SERVICE_ID);
    fx_free(f);
}

/* Discovery, a probe answered, then misses: unreachable, notice 0x0003, published. */
static void test_probe_reply_and_loss(void **state)
{
    struct fx *f = fx_new();
    struct board_dgram_addr a, from = {.slid = PEER_LID, .src_qp = PEER_QPN, .pkey = 0xFFFF};
    struct pz_echo_hdr h;
    uint8_t buf[256];
    unsigned traps[4];
    uint64_t t0;
    int len;

    fx_discover(f);
    assert_true(pz_reach_discovered(f->r));
    assert_string_equal(fx_peer(f)->name, "peer-switch");
    assert_true(fx_peer(f)->has_service);
    assert_int_equal(fx_peer(f)->qpn, PEER_QPN);
    assert_int_equal(fx_peer(f)->lid, PEER_LID);
    /* probe now */
    t0 = mono();
    assert_int_equal(pz_reach_probe_all(f->r, t0), 1);
    pz_reach_on_timer(f->r, t0);
    len = board_mem_dgram_pop_sent(f->n->bm, &a, buf, sizeof(buf));
    assert_int_equal(len, PZ_ECHO_HDR_LEN);
    assert_int_equal(a.dlid, PEER_LID);
    assert_int_equal(a.dst_qp, PEER_QPN);
    assert_int_equal(pz_echo_decode(buf, (size_t)len, &h), PZ_ECHO_OK);
    assert_int_equal(h.flags, PZ_ECHO_FLAG_PROBE);
    /* the reply: the same datagram, type 2, from the peer */
    buf[5] = PZ_ECHO_REPLY;
    assert_int_equal(board_mem_dgram_deliver(f->n->bm, &from, buf, (size_t)len), 0);
    pz_echo_poll(f->echo, 8);
    assert_int_equal(fx_peer(f)->status, REACH_REACHABLE);
    assert_true(f->published >= 1);
    assert_int_equal(fx_traps(f, traps, 4), 0); /* unknown -> reachable: no notice */
    /* two probes go unanswered */
    pz_reach_on_timer(f->r, t0 + 1100 * MS);
    pz_reach_on_timer(f->r, t0 + 1500 * MS);
    assert_int_equal(fx_peer(f)->status, REACH_REACHABLE);
    pz_reach_on_timer(f->r, t0 + 2100 * MS);
    pz_reach_on_timer(f->r, t0 + 2500 * MS);
    assert_int_equal(fx_peer(f)->status, REACH_UNREACHABLE);
    assert_int_equal(fx_traps(f, traps, 4), 1);
    assert_int_equal(traps[0], PZ_REACH_TRAP_LOST);
    assert_int_equal(f->last_published, 1);
    fx_free(f);
}

/* A ClientReregister sends the Set and the GetTables again. */
static void test_reregister(void **state)
{
    struct fx *f = fx_new();
    uint8_t pi[64];
    unsigned before;

    fx_discover(f);
    before = f->sent.num;
    assert_int_equal(pzt_get(f->n, IB_ATTR_PORT_INFO, 0, pi), 0);
    mad_set_field(pi, 0, IB_PORT_CLIENT_REREG_F, 1);
    pzt_set(f->n, IB_ATTR_PORT_INFO, 0, pi, NULL);
    pz_reach_port_changed(f->r);
    assert_int_equal(sma_client_reregister_count(f->n->sma, 0), 1);
    pz_reach_on_timer(f->r, mono() + 300 * MS);
    assert_true(fx_find(f, before, IB_MAD_METHOD_SET, IB_SA_ATTR_SERVICERECORD) >= 0);
    assert_true(fx_find(f, before, IB_MAD_METHOD_GET_TABLE, IB_SA_ATTR_NODERECORD) >= 0);
    fx_free(f);
}

/* A ServiceRecord table without this switch's record: the Set goes out again. */
static void test_lost_record(void **state)
{
    struct fx *f = fx_new();
    unsigned before;

    fx_discover(f);
    before = f->sent.num;
    pz_reach_on_timer(f->r, mono() + 31000 * MS); /* the refresh */
    int services = fx_find(f, before, IB_MAD_METHOD_GET_TABLE, IB_SA_ATTR_SERVICERECORD);

    assert_true(services >= 0);
    fx_answer_services(f, (unsigned)services, false);
    assert_true(fx_peer(f)->has_service); /* the table was kept */
    pz_reach_on_timer(f->r, mono() + 31000 * MS);
    assert_true(fx_find(f, before, IB_MAD_METHOD_SET, IB_SA_ATTR_SERVICERECORD) >= 0);
    fx_free(f);
}

/* Garbage, truncated, foreign and refused answers leave the table alone. */
static void test_bad_answers(void **state)
{
    struct fx *f = fx_new();
    uint8_t b[600];

    fx_discover(f);
    for (unsigned i = 0; i < sizeof(b); i++)
        b[i] = (uint8_t)(i * 37 + 11);
    for (size_t len = 0; len <= sizeof(b); len += 7)
        pz_reach_take_mad(f->r, b, len);
    memset(b, 0, sizeof(b));
    b[0] = 1;
    b[1] = IB_SA_CLASS;
    b[3] = 0x92;
    be32_put(b + 12, PZ_REACH_TID_TAG | 0x200001); /* an old services TID */
    pz_reach_take_mad(f->r, b, 256);
    assert_int_equal(fx_peer(f)->lid, PEER_LID);
    assert_true(fx_peer(f)->has_service);
    fx_free(f);
}

PZT_MAIN(test_nothing_before_sm, test_requests, test_probe_reply_and_loss, test_reregister,
         test_lost_record, test_bad_answers)
