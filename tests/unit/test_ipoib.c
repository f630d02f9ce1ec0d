/*
 * test_ipoib.c - the IPoIB-UD endpoint library: wire formats, IPoIB ARP,
 * the SA join and path MADs (decoded with libibmad), and endpoints that
 * resolve each other and exchange IPv4 over a small fake UD fabric with a
 * fake SA.  The real SA (OpenSM) and the real fabric are in the integration
 * tests; this one checks each rule and each refusal in isolation.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <infiniband/mad.h>

#include "ipoib.h"
#include "ipoib_arp.h"
#include "ipoib_sa.h"
#include "ipoib_wire.h"
#include "pzt_main.h"
#include "pzt_fields.h"
#include "pzt_same.h"

#define MAX_EP 4
#define PREFIX 0xfe80000000000000ull

/* ---- wire ---------------------------------------------------------------- */

/* The broadcast MGID of the default partition, and the full-member bit forced. */
static void test_bcast_mgid(void **state)
{
    static const uint8_t want[16] = {0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0,    0,
                                     0,    0,    0,    0,    0xff, 0xff, 0xff, 0xff};
    uint8_t mgid[16];

    ipoib_bcast_mgid(0xffff, mgid);
    assert_memory_equal(mgid, want, 16);
    ipoib_bcast_mgid(0x7fff, mgid);
    assert_memory_equal(mgid, want, 16);
    ipoib_bcast_mgid(0x0012, mgid);
    assert_int_equal(mgid[4], 0x80);
    assert_int_equal(mgid[5], 0x12);
}

/* IPv4 multicast: the low 28 bits of the group after the signature. */
static void test_mcast_mgid(void **state)
{
    uint8_t mgid[16];

    ipoib_ipv4_mcast_mgid(0xffff, 0xEF123456u, mgid);
    assert_int_equal(mgid[1], 0x12);
    assert_int_equal(mgid[3], 0x1b);
    assert_int_equal(mgid[12], 0x0F);
    assert_int_equal(mgid[13], 0x12);
    assert_int_equal(mgid[14], 0x34);
    assert_int_equal(mgid[15], 0x56);
}

/* 20-byte link address: flags, 24-bit QPN, GID; round trip. */
static void test_lladdr(void **state)
{
    struct ipoib_lladdr a = {.flags = 0x80, .qpn = 0x123456}, b;
    uint8_t raw[20];

    ipoib_gid_make(PREFIX, 0x0002c90300001234ull, a.gid);
    ipoib_lladdr_pack(&a, raw);
    assert_int_equal(raw[0], 0x80);
    assert_int_equal(raw[1], 0x12);
    assert_int_equal(raw[3], 0x56);
    assert_int_equal(raw[4], 0xfe);
    assert_int_equal(raw[19], 0x34);
    ipoib_lladdr_unpack(raw, &b);
    assert_true(ipoib_lladdr_equal(&a, &b));
    assert_int_equal(b.flags, 0x80);
    assert_true(ipoib_gid_guid(b.gid) == 0x0002c90300001234ull);
    b.qpn++;
    assert_false(ipoib_lladdr_equal(&a, &b));
}

/* The encapsulation header and the MTU codes. */
static void test_encap_mtu(void **state)
{
    uint8_t h[4];

    ipoib_encap_write(IPOIB_ETHERTYPE_ARP, h);
    assert_int_equal(h[0], 0x08);
    assert_int_equal(h[1], 0x06);
    assert_int_equal(h[2] | h[3], 0);
    assert_int_equal(ipoib_encap_read(h, 4), 0x0806);
    assert_int_equal(ipoib_encap_read(h, 3), -1);
    assert_int_equal(ipoib_ip_mtu(4), 2044);
    assert_int_equal(ipoib_ip_mtu(5), 4092);
    assert_int_equal(ipoib_ip_mtu(1), 252);
    assert_int_equal(ipoib_ip_mtu(0), 0);
    assert_int_equal(ipoib_ip_mtu(6), 0);
}

/* ---- ARP ------------------------------------------------------------------ */

/* Build and parse agree; hardware type 32, hlen 20, 56 bytes. */
static void test_arp_roundtrip(void **state)
{
    struct ipoib_arp a = {.op = IPOIB_ARP_OP_REPLY, .spa = 0x0a000001, .tpa = 0x0a000002}, b;
    uint8_t raw[IPOIB_ARP_LEN + 4];

    a.sha.qpn = 0x48;
    ipoib_gid_make(PREFIX, 1, a.sha.gid);
    a.tha.qpn = 0x49;
    ipoib_gid_make(PREFIX, 2, a.tha.gid);
    ipoib_arp_build(&a, raw);
    assert_int_equal(raw[0] << 8 | raw[1], 32);
    assert_int_equal(raw[4], 20);
    assert_int_equal(raw[5], 4);
    assert_int_equal(ipoib_arp_parse(raw, IPOIB_ARP_LEN, &b), IPOIB_ARP_OK);
    assert_int_equal(b.op, IPOIB_ARP_OP_REPLY);
    assert_int_equal(b.spa, 0x0a000001);
    assert_int_equal(b.tpa, 0x0a000002);
    assert_true(ipoib_lladdr_equal(&a.sha, &b.sha));
    assert_true(ipoib_lladdr_equal(&a.tha, &b.tha));
    /* Trailing padding is ignored. */
    assert_int_equal(ipoib_arp_parse(raw, sizeof(raw), &b), IPOIB_ARP_OK);
}

/* Every malformed field gets its own reason. */
static void test_arp_refusals(void **state)
{
    /* One byte of a good ARP changed, and the reason it is refused. */
    static const struct {
        unsigned at;
        uint8_t value;
        enum ipoib_arp_parse_result want;
    } cases[] = {
        {1, 1, IPOIB_ARP_BAD_HTYPE}, /* Ethernet */
        {2, 0x86, IPOIB_ARP_BAD_PTYPE}, {4, 6, IPOIB_ARP_BAD_HLEN},
        {5, 16, IPOIB_ARP_BAD_PLEN},    {7, 3, IPOIB_ARP_BAD_OP},
    };
    struct ipoib_arp a = {.op = IPOIB_ARP_OP_REQUEST}, b;
    uint8_t raw[IPOIB_ARP_LEN], bad[IPOIB_ARP_LEN];

    ipoib_arp_build(&a, raw);
    assert_int_equal(ipoib_arp_parse(raw, IPOIB_ARP_LEN - 1, &b), IPOIB_ARP_SHORT);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        memcpy(bad, raw, sizeof(bad));
        bad[cases[i].at] = cases[i].value;
        assert_int_equal(ipoib_arp_parse(bad, sizeof(bad), &b), cases[i].want);
    }
    assert_string_equal(ipoib_arp_parse_result_name(IPOIB_ARP_BAD_HLEN), "hlen");
}

/* ---- SA MADs -------------------------------------------------------------- */

/* The 16-byte GID field of an SA MAD's record reads want. */
static void expect_sa_gid(uint8_t *mad, enum MAD_FIELDS field, const uint8_t *want)
{
    uint8_t got[16];

    mad_get_array(mad, IB_SA_DATA_OFFS, field, got);
    assert_memory_equal(got, want, 16);
}

/* The join is a SubnAdmSet(MCMemberRecord) with the Linux component mask. */
static void test_sa_join_request(void **state)
{
    uint8_t mad[256], mgid[16], pgid[16];

    ipoib_bcast_mgid(0xffff, mgid);
    ipoib_gid_make(PREFIX, 0x1234, pgid);
    ipoib_sa_build_join(mad, 0x0000000700000001ull, mgid, pgid, 0xffff, 1);
    PZT_EXPECT_FIELDS(mad, {IB_MAD_BASEVER_F, 1}, {IB_MAD_MGMTCLASS_F, IB_SA_CLASS},
                      {IB_MAD_CLASSVER_F, 2}, {IB_MAD_METHOD_F, IB_MAD_METHOD_SET},
                      {IB_MAD_ATTRID_F, IB_SA_ATTR_MCRECORD});
    assert_true(mad_get_field64(mad, 0, IB_MAD_TRID_F) == 0x0000000700000001ull);
    assert_true(mad_get_field64(mad, 0, IB_SA_COMPMASK_F) ==
                (1u << 0 | 1u << 1 | 1u << 7 | 1u << 16));
    expect_sa_gid(mad, IB_SA_MCM_MGID_F, mgid);
    expect_sa_gid(mad, IB_SA_MCM_PORTGID_F, pgid);
    assert_int_equal(mad_get_field(mad, IB_SA_DATA_OFFS, IB_SA_MCM_PKEY_F), 0xffff);
    assert_int_equal(mad_get_field(mad, IB_SA_DATA_OFFS, IB_SA_MCM_JOIN_STATE_F), 1);
}

/* The path query is a SubnAdmGet(PathRecord) for one path. */
static void test_sa_path_request(void **state)
{
    uint8_t mad[256], sgid[16], dgid[16];

    ipoib_gid_make(PREFIX, 1, sgid);
    ipoib_gid_make(PREFIX, 2, dgid);
    ipoib_sa_build_path_query(mad, 42, sgid, dgid, 0xffff);
    assert_int_equal(mad_get_field(mad, 0, IB_MAD_METHOD_F), IB_MAD_METHOD_GET);
    assert_int_equal(mad_get_field(mad, 0, IB_MAD_ATTRID_F), IB_SA_ATTR_PATHRECORD);
    assert_true(mad_get_field64(mad, 0, IB_SA_COMPMASK_F) ==
                (1u << 2 | 1u << 3 | 1u << 12 | 1u << 13));
    expect_sa_gid(mad, IB_SA_PR_DGID_F, dgid);
    expect_sa_gid(mad, IB_SA_PR_SGID_F, sgid);
    assert_int_equal(mad_get_field(mad, IB_SA_DATA_OFFS, IB_SA_PR_NPATH_F), 1);
    assert_int_equal(mad[IB_SA_DATA_OFFS + 50] << 8 | mad[IB_SA_DATA_OFFS + 51], 0xffff);
}

/* Turn a request into the SA's answer with the group's parameters. */
static void make_join_answer(uint8_t *mad, unsigned status, uint32_t qkey, uint16_t mlid,
                             unsigned mtu, unsigned sl)
{
    PZT_SET_FIELDS(mad, {IB_MAD_METHOD_F, IB_MAD_METHOD_GET}, {IB_MAD_RESPONSE_F, 1},
                   {IB_MAD_STATUS_F, status});
    mad_set_field(mad, IB_SA_DATA_OFFS, IB_SA_MCM_QKEY_F, qkey);
    mad_set_field(mad, IB_SA_DATA_OFFS, IB_SA_MCM_MLID_F, mlid);
    mad_set_field(mad, IB_SA_DATA_OFFS, IB_SA_MCM_MTU_F, mtu);
    mad_set_field(mad, IB_SA_DATA_OFFS, IB_SA_MCM_SL_F, sl);
    mad_set_field(mad, IB_SA_DATA_OFFS, IB_SA_MCM_RATE_F, 3);
}

/* Answers: good, refused, another group, short, not an answer. */
static void test_sa_parse_join(void **state)
{
    const struct ipoib_group want_group = {
        .qkey = 0x0b1b, .mlid = 0xc000, .mtu = 4, .sl = 3, .rate = 3};
    uint8_t req[256], mad[256], mgid[16], pgid[16];
    struct ipoib_group g;
    unsigned status;

    ipoib_bcast_mgid(0xffff, mgid);
    ipoib_gid_make(PREFIX, 0x1234, pgid);
    ipoib_sa_build_join(req, 9, mgid, pgid, 0xffff, 1);
    assert_int_equal(ipoib_sa_parse_join(req, 256, mgid, &g, &status), IPOIB_SA_NOT_ANSWER);

    memcpy(mad, req, 256);
    make_join_answer(mad, 0, 0x0b1b, 0xc000, 4, 3);
    assert_true(ipoib_sa_is_response(mad, 256));
    assert_int_equal(ipoib_sa_parse_join(mad, 256, mgid, &g, &status), IPOIB_SA_OK);
    PZT_EXPECT_SAME(g, want_group, qkey, mlid, mtu, sl, rate);
    assert_int_equal(ipoib_sa_parse_join(mad, IB_SA_DATA_OFFS + 10, mgid, &g, &status),
                     IPOIB_SA_SHORT);
    assert_int_equal(ipoib_sa_parse_join(mad, 20, mgid, &g, &status), IPOIB_SA_SHORT);

    memcpy(mad, req, 256);
    make_join_answer(mad, 2 << 8, 0, 0, 0, 0); /* SA status REQ_INVALID (ERR 1B12) */
    assert_int_equal(ipoib_sa_parse_join(mad, 256, mgid, &g, &status), IPOIB_SA_STATUS);
    assert_int_equal(status, 0x0200);

    memcpy(mad, req, 256);
    make_join_answer(mad, 0, 0x0b1b, 0x0005, 4, 0); /* a unicast LID as MLID */
    assert_int_equal(ipoib_sa_parse_join(mad, 256, mgid, &g, &status), IPOIB_SA_MISMATCH);

    memcpy(mad, req, 256);
    make_join_answer(mad, 0, 0x0b1b, 0xc000, 9, 0); /* MTU code out of range */
    assert_int_equal(ipoib_sa_parse_join(mad, 256, mgid, &g, &status), IPOIB_SA_MISMATCH);

    memcpy(mad, req, 256);
    make_join_answer(mad, 0, 0x0b1b, 0xc000, 4, 0);
    mgid[15] = 0xfe;
    assert_int_equal(ipoib_sa_parse_join(mad, 256, mgid, &g, &status), IPOIB_SA_MISMATCH);
}

/* A PathRecord answer gives DLID, SL and MTU. */
static void test_sa_parse_path(void **state)
{
    const struct ipoib_path want_path = {.dlid = 17, .slid = 3, .sl = 5, .mtu = 4, .pkey = 0xffff};
    uint8_t mad[256], sgid[16], dgid[16];
    struct ipoib_path p;
    unsigned status;

    ipoib_gid_make(PREFIX, 1, sgid);
    ipoib_gid_make(PREFIX, 2, dgid);
    ipoib_sa_build_path_query(mad, 42, sgid, dgid, 0xffff);
    mad_set_field(mad, 0, IB_MAD_METHOD_F, IB_MAD_METHOD_GET);
    mad_set_field(mad, 0, IB_MAD_RESPONSE_F, 1);
    mad_set_field(mad, IB_SA_DATA_OFFS, IB_SA_PR_DLID_F, 17);
    mad_set_field(mad, IB_SA_DATA_OFFS, IB_SA_PR_SLID_F, 3);
    mad_set_field(mad, IB_SA_DATA_OFFS, IB_SA_PR_SL_F, 5);
    mad[IB_SA_DATA_OFFS + 54] = 0x80 | 4;
    assert_int_equal(ipoib_sa_parse_path(mad, 256, dgid, &p, &status), IPOIB_SA_OK);
    PZT_EXPECT_SAME(p, want_path, dlid, slid, sl, mtu, pkey);
    mad_set_field(mad, IB_SA_DATA_OFFS, IB_SA_PR_DLID_F, 0);
    assert_int_equal(ipoib_sa_parse_path(mad, 256, dgid, &p, &status), IPOIB_SA_MISMATCH);
    mad_set_field(mad, 0, IB_MAD_STATUS_F, 3 << 8); /* no records */
    assert_int_equal(ipoib_sa_parse_path(mad, 256, dgid, &p, &status), IPOIB_SA_STATUS);
}

/* ---- the port from SMA attributes ------------------------------------------ */

/* PortInfo and P_Keys as an SMA Get returns them give the endpoint's port view. */
static void test_port_from_attrs(void **state)
{
    uint8_t pi[64] = {0}, pk[64] = {0};
    struct ipoib_port p = {.reregister = 7};

    PZT_SET_FIELDS(pi, {IB_PORT_STATE_F, 4}, {IB_PORT_LID_F, 0x1234}, {IB_PORT_SMLID_F, 3},
                   {IB_PORT_SMSL_F, 5});
    mad_set_field64(pi, 0, IB_PORT_GID_PREFIX_F, PREFIX);
    be16_put(pk + 2, 0x7fff); /* limited member of the default partition */
    ipoib_port_from_attrs(pi, pk, 0x42, 0xffff, &p);
    assert_true(p.active);
    assert_int_equal(p.lid, 0x1234);
    assert_int_equal(p.sm_lid, 3);
    assert_int_equal(p.sm_sl, 5);
    assert_true(p.gid_prefix == PREFIX);
    assert_true(p.port_guid == 0x42);
    assert_int_equal(p.pkey_state, IPOIB_PKEY_LIMITED);
    assert_int_equal(p.reregister, 7);
    be16_put(pk + 10, 0xffff);
    assert_int_equal(ipoib_pkey_state_of(pk, 0xffff), IPOIB_PKEY_FULL);
    assert_int_equal(ipoib_pkey_state_of(pk, 0x8012), IPOIB_PKEY_ABSENT);
    memset(pk, 0, sizeof(pk));
    be16_put(pk + 62, 0x8012); /* the last entry of the block counts */
    assert_int_equal(ipoib_pkey_state_of(pk, 0x0012), IPOIB_PKEY_FULL);
    assert_int_equal(ipoib_pkey_state_of(pk, 0xffff), IPOIB_PKEY_ABSENT);
    mad_set_field(pi, 0, IB_PORT_STATE_F, 2); /* Init */
    ipoib_port_from_attrs(pi, pk, 0x42, 0xffff, &p);
    assert_false(p.active);
}

/* ---- endpoints over a fake fabric ----------------------------------------- */

/* One node: endpoint, identity, what it received. */
struct node {
    struct ipoib *ep;
    struct fake *fab;
    uint16_t lid;
    uint32_t qpn;
    uint32_t qkey;
    uint64_t guid;
    uint32_t ip;
    uint8_t last_pkt[4096];
    size_t last_len;
    unsigned delivered;
    unsigned link_ups, link_downs;
    unsigned errors_logged;
    char last_log[256];
    struct ipoib_port port; /* as the SM configured it (joined_node) */
};

/* The fabric: nodes, an SA that answers or refuses, and a clock. */
struct fake {
    struct node nodes[MAX_EP];
    unsigned n;
    uint64_t now;
    unsigned sa_status; /* MAD status the SA answers joins with */
    bool sa_silent;     /* the SA answers nothing */
    unsigned joins_seen, paths_seen;
    uint64_t last_join_tid; /* the TID of the last join sent */
    uint64_t last_path_tid; /* ... and of the last path query */
    unsigned dgrams;        /* datagrams carried */
    bool drop_arp_replies;
    struct board_dgram_addr last_mcast;
};

/* Deliver a datagram to node dst (as the receive completion shows it). */
static void deliver_to(struct node *dst, const struct board_dgram_addr *tx, const struct node *src,
                       const void *buf, size_t len)
{
    struct board_dgram_addr rx = *tx;

    if (!dst->ep || tx->qkey != dst->qkey)
        return; /* the QP's Q_Key filter */
    rx.slid = src->lid;
    rx.src_qp = src->qpn;
    ipoib_input(dst->ep, &rx, buf, len, dst->fab->now);
}

/* ops.send_dgram: multicast to every other joined node (and back to self), unicast by LID+QPN. */
static int fake_send_dgram(void *ctx, const struct board_dgram_addr *a, const void *buf, size_t len)
{
    struct node *src = ctx;
    struct fake *f = src->fab;

    f->dgrams++;
    if (a->dlid >= 0xc000) {
        f->last_mcast = *a;
        for (unsigned i = 0; i < f->n; i++)
            deliver_to(&f->nodes[i], a, src, buf, len);
        return 0;
    }
    if (f->drop_arp_replies && len >= 2 && ((const uint8_t *)buf)[1] == 0x06)
        return 0;
    for (unsigned i = 0; i < f->n; i++)
        if (f->nodes[i].lid == a->dlid && f->nodes[i].qpn == a->dst_qp)
            deliver_to(&f->nodes[i], a, src, buf, len);
    return 0;
}

/* ops.send_sa: the fake SA answers joins and path queries at once. */
static int fake_send_sa(void *ctx, const void *req, size_t len, uint16_t dlid, uint8_t sl)
{
    struct node *src = ctx;
    struct fake *f = src->fab;
    uint8_t mad[256];
    uint8_t dgid[16];
    (void)dlid;
    (void)sl;

    assert_int_equal(len, 256);
    memcpy(mad, req, 256);
    if (mad_get_field(mad, 0, IB_MAD_ATTRID_F) == IB_SA_ATTR_MCRECORD) {
        f->joins_seen++;
        f->last_join_tid = mad_get_field64(mad, 0, IB_MAD_TRID_F);
        if (f->sa_silent)
            return 0;
        make_join_answer(mad, f->sa_status, 0x0b1b, 0xc001, 4, 2);
    } else {
        f->paths_seen++;
        f->last_path_tid = mad_get_field64(mad, 0, IB_MAD_TRID_F);
        if (f->sa_silent)
            return 0;
        mad_set_field(mad, 0, IB_MAD_METHOD_F, IB_MAD_METHOD_GET);
        mad_set_field(mad, 0, IB_MAD_RESPONSE_F, 1);
        mad_get_array(mad, IB_SA_DATA_OFFS, IB_SA_PR_DGID_F, dgid);
        for (unsigned i = 0; i < f->n; i++)
            if (f->nodes[i].guid == ipoib_gid_guid(dgid))
                mad_set_field(mad, IB_SA_DATA_OFFS, IB_SA_PR_DLID_F, f->nodes[i].lid);
        mad_set_field(mad, IB_SA_DATA_OFFS, IB_SA_PR_SL_F, 1);
    }
    ipoib_input_sa(src->ep, mad, sizeof(mad), f->now);
    return 0;
}

/* ops.deliver: keep the packet. */
static void fake_deliver(void *ctx, const void *pkt, size_t len)
{
    struct node *n = ctx;
    memcpy(n->last_pkt, pkt, len);
    n->last_len = len;
    n->delivered++;
}

/* ops.set_qkey: the QP's filter. */
static int fake_set_qkey(void *ctx, uint32_t qkey)
{
    ((struct node *)ctx)->qkey = qkey;
    return 0;
}

/* ops.link: count. */
static void fake_link(void *ctx, bool up, unsigned mtu)
{
    struct node *n = ctx;
    if (up) {
        assert_int_equal(mtu, 2044);
        n->link_ups++;
    } else {
        n->link_downs++;
    }
}

/* ops.log: count errors, keep the last line. */
static void fake_log(void *ctx, int level, const char *msg)
{
    struct node *n = ctx;
    if (level == 0)
        n->errors_logged++;
    snprintf(n->last_log, sizeof(n->last_log), "%s", msg);
}

static const struct ipoib_ops fake_ops = {
    .send_dgram = fake_send_dgram,
    .send_sa = fake_send_sa,
    .deliver = fake_deliver,
    .set_qkey = fake_set_qkey,
    .link = fake_link,
    .log = fake_log,
};

/* The port as the SM configured it. */
static struct ipoib_port port_of(const struct node *n)
{
    return (struct ipoib_port){.active = true,
                               .lid = n->lid,
                               .gid_prefix = PREFIX,
                               .port_guid = n->guid,
                               .sm_lid = 1,
                               .sm_sl = 0,
                               .pkey_state = IPOIB_PKEY_FULL};
}

/* Add a node at LID lid with address 10.0.0.<host>/24. */
static struct node *add_node(struct fake *f, uint16_t lid, unsigned host)
{
    struct node *n = &f->nodes[f->n++];
    struct ipoib_config cfg = {
        .pkey = 0xffff,
        .qpn = 0x40 + lid,
        .addr = 0x0a000000u | host,
        .netmask = 0xffffff00u,
        .gateway = 0x0a0000feu,
        .neigh_max = 4,
        .tid_tag = (uint8_t)lid,
    };

    n->fab = f;
    n->lid = lid;
    n->qpn = cfg.qpn;
    n->guid = 0x0002c90300000000ull | lid;
    n->ip = cfg.addr;
    n->ep = ipoib_create(&cfg, &fake_ops, n);
    assert_non_null(n->ep);
    return n;
}

/* A minimal IPv4 packet (20-byte header + payload) from src to dst. */
static size_t make_ip(uint8_t *pkt, uint32_t src, uint32_t dst, size_t payload)
{
    size_t len = 20 + payload;

    memset(pkt, 0xab, len);
    pkt[0] = 0x45;
    pkt[2] = (uint8_t)(len >> 8);
    pkt[3] = (uint8_t)len;
    for (int i = 0; i < 4; i++) {
        pkt[12 + i] = (uint8_t)(src >> (24 - 8 * i));
        pkt[16 + i] = (uint8_t)(dst >> (24 - 8 * i));
    }
    return len;
}

static void free_fake(struct fake *f)
{
    for (unsigned i = 0; i < f->n; i++)
        ipoib_destroy(f->nodes[i].ep);
}

/* A node (add_node) whose port comes up as the SM configured it (n->port) at time 0. */
static struct node *joined_node(struct fake *f, uint16_t lid, unsigned host)
{
    struct node *n = add_node(f, lid, host);

    n->port = port_of(n);
    ipoib_port_update(n->ep, &n->port, 0);
    return n;
}

/* Two nodes, a (LID 5, 10.0.0.1) and b (LID 9, 10.0.0.2), both joined at time 0. */
static void joined_pair(struct fake *f, struct node **a, struct node **b)
{
    *a = joined_node(f, 5, 1);
    *b = joined_node(f, 9, 2);
}

/* A 10-byte IPv4 packet from from to to, sent at now: ipoib_output's result. */
static int send_small(struct node *from, const struct node *to, uint64_t now)
{
    uint8_t pkt[64];
    size_t len = make_ip(pkt, from->ip, to->ip, 10);

    return ipoib_output(from->ep, pkt, len, now);
}

/* Join: Q_Key adopted, link up, gratuitous ARP sent to the group with a GRH. */
static void test_join(void **state)
{
    struct fake f = {0};
    struct node *a = add_node(&f, 5, 1);
    struct ipoib_port p = port_of(a);

    assert_int_equal(ipoib_state(a->ep), IPOIB_DOWN);
    ipoib_port_update(a->ep, &p, 0);
    assert_int_equal(ipoib_state(a->ep), IPOIB_UP);
    assert_int_equal(a->qkey, 0x0b1b);
    assert_int_equal(a->link_ups, 1);
    assert_int_equal(ipoib_mtu(a->ep), 2044);
    assert_int_equal(ipoib_group(a->ep)->mlid, 0xc001);
    assert_int_equal(f.last_mcast.dlid, 0xc001);
    assert_int_equal(f.last_mcast.dst_qp, IPOIB_MCAST_QPN);
    assert_int_equal(f.last_mcast.sl, 2);
    assert_true(f.last_mcast.has_grh);
    assert_int_equal(f.last_mcast.grh[24], 0xff); /* DGID = MGID */
    assert_int_equal(f.last_mcast.grh[27], 0x1b);
    assert_int_equal(ipoib_stats(a->ep)->tx_arp, 1);
    /* The same port state again changes nothing. */
    ipoib_port_update(a->ep, &p, 10);
    assert_int_equal(f.joins_seen, 1);
    free_fake(&f);
}

/* A refused join is retried with a doubling backoff, capped at 16 s. */
static void test_join_retry(void **state)
{
    struct fake f = {.sa_status = 2 << 8};
    struct node *a = add_node(&f, 5, 1);
    struct ipoib_port p = port_of(a);
    uint64_t t = 0;

    ipoib_port_update(a->ep, &p, t);
    assert_int_equal(ipoib_state(a->ep), IPOIB_JOINING);
    assert_int_equal(a->errors_logged, 1);
    assert_non_null(strstr(a->last_log, "0x0200"));
    assert_int_equal(ipoib_next_deadline(a->ep), 1000);
    uint64_t want[] = {1000, 3000, 7000, 15000, 31000, 47000};
    for (unsigned i = 0; i < 6; i++) {
        assert_int_equal(ipoib_next_deadline(a->ep), want[i]);
        t = want[i];
        ipoib_poll(a->ep, t);
    }
    assert_int_equal(f.joins_seen, 7);
    assert_int_equal(ipoib_stats(a->ep)->join_failures, 7);
    f.sa_status = 0;
    ipoib_poll(a->ep, ipoib_next_deadline(a->ep));
    assert_int_equal(ipoib_state(a->ep), IPOIB_UP);
    free_fake(&f);
}

/* A silent SA: each unanswered join counts as a timeout. */
static void test_join_timeout(void **state)
{
    struct fake f = {.sa_silent = true};
    struct node *a = add_node(&f, 5, 1);
    struct ipoib_port p = port_of(a);

    ipoib_port_update(a->ep, &p, 0);
    ipoib_poll(a->ep, 999);
    assert_int_equal(f.joins_seen, 1);
    ipoib_poll(a->ep, 1000);
    ipoib_poll(a->ep, 3000);
    assert_int_equal(f.joins_seen, 3);
    assert_int_equal(ipoib_stats(a->ep)->join_timeouts, 2);
    /* The three copies are one join, with one TID (a late answer to the first would do). */
    /* A forged answer (a TID no request of ours has) is consumed and counted, never adopted. */
    uint8_t mad[256], mgid[16], gid[16];
    ipoib_bcast_mgid(0xffff, mgid);
    ipoib_gid_make(PREFIX, a->guid, gid);
    ipoib_sa_build_join(mad, (uint64_t)5 << 24 | 1, mgid, gid, 0xffff, 1);
    make_join_answer(mad, 0, 0x0b1b, 0xc001, 4, 0);
    assert_true(ipoib_input_sa(a->ep, mad, 256, 3001));
    assert_int_equal(ipoib_state(a->ep), IPOIB_JOINING);
    assert_int_equal(ipoib_stats(a->ep)->sa_dropped, 1);
    /* Another client's TID is not ours. */
    mad_set_field64(mad, 0, IB_MAD_TRID_F, (uint64_t)6 << 24 | 1);
    assert_false(ipoib_input_sa(a->ep, mad, 256, 3001));
    /*
     * The answer to the join that is out is adopted whatever the MAD layer
     * wrote into the high 32 bits (its agent number).
     */
    mad_set_field64(mad, 0, IB_MAD_TRID_F, (uint64_t)0xabcd << 32 | f.last_join_tid);
    assert_true(ipoib_input_sa(a->ep, mad, 256, 3002));
    assert_int_equal(ipoib_state(a->ep), IPOIB_UP);
    free_fake(&f);
}

/* A limited-member P_Key: no join, one clear error naming the partitions.conf line. */
static void test_limited_pkey(void **state)
{
    struct fake f = {0};
    struct node *a = add_node(&f, 5, 1);
    struct ipoib_port p = port_of(a);

    p.pkey_state = IPOIB_PKEY_LIMITED;
    ipoib_port_update(a->ep, &p, 0);
    assert_int_equal(f.joins_seen, 0);
    assert_int_equal(ipoib_state(a->ep), IPOIB_DOWN);
    assert_int_equal(a->errors_logged, 1);
    assert_non_null(strstr(a->last_log, "ALL=full"));
    p.pkey_state = IPOIB_PKEY_FULL;
    ipoib_port_update(a->ep, &p, 5);
    assert_int_equal(ipoib_state(a->ep), IPOIB_UP);
    free_fake(&f);
}

/* Two nodes: the first packet waits for ARP, the path comes from the datagram, no SA query. */
static void test_resolve_and_send(void **state)
{
    struct fake f = {0};
    struct node *a, *b;
    uint8_t pkt[2048];
    size_t len;

    joined_pair(&f, &a, &b);
    len = make_ip(pkt, a->ip, b->ip, 100);
    assert_int_equal(ipoib_output(a->ep, pkt, len, 10), 0);
    assert_int_equal(b->delivered, 1);
    assert_int_equal(b->last_len, len);
    assert_memory_equal(b->last_pkt, pkt, len);
    assert_int_equal(f.paths_seen, 0);
    /* b learned a from the request; its answer needs no ARP. */
    unsigned arps = (unsigned)ipoib_stats(b->ep)->tx_arp;
    len = make_ip(pkt, b->ip, a->ip, 30);
    assert_int_equal(ipoib_output(b->ep, pkt, len, 11), 0);
    assert_int_equal(a->delivered, 1);
    assert_int_equal(ipoib_stats(b->ep)->tx_arp, arps);
    struct ipoib_neigh_info ni[4];
    assert_int_equal(ipoib_neighbours(a->ep, ni, 4), 1);
    assert_int_equal(ni[0].ip, b->ip);
    assert_int_equal(ni[0].lid, 9);
    assert_int_equal(ni[0].lladdr.qpn, b->qpn);
    assert_true(ni[0].resolved);
    assert_int_equal(ipoib_stats(a->ep)->tx_packets, 1);
    assert_int_equal(ipoib_stats(a->ep)->tx_bytes, 120);
    free_fake(&f);
}

/* No ARP reply: three requests, then the queued packets are dropped and counted. */
static void test_unresolved(void **state)
{
    struct fake f = {0};
    struct node *a = joined_node(&f, 5, 1);
    uint8_t pkt[256];
    size_t len = make_ip(pkt, a->ip, 0x0a000063, 10);

    for (int i = 0; i < 66; i++)
        ipoib_output(a->ep, pkt, len, 1);
    assert_int_equal(ipoib_stats(a->ep)->tx_dropped_unresolved, 2); /* queue of 64 */
    ipoib_poll(a->ep, 1001);
    ipoib_poll(a->ep, 2001);
    assert_int_equal(ipoib_stats(a->ep)->tx_arp, 1 + 3);
    ipoib_poll(a->ep, 3001);
    assert_int_equal(ipoib_stats(a->ep)->tx_dropped_unresolved, 66);
    assert_int_equal(ipoib_neighbours(a->ep, NULL, 0), 0);
    assert_true(ipoib_next_deadline(a->ep) == UINT64_MAX);
    free_fake(&f);
}

/* Off-link goes to the gateway; no gateway, no route; broadcast and multicast to the group. */
static void test_routing(void **state)
{
    struct fake f = {0};
    struct node *a = joined_node(&f, 5, 1), *gw = joined_node(&f, 7, 0xfe);
    uint8_t pkt[256];
    size_t len = make_ip(pkt, a->ip, 0xc0a80101, 10); /* 192.168.1.1: via 10.0.0.254 */
    assert_int_equal(ipoib_output(a->ep, pkt, len, 1), 0);
    assert_int_equal(gw->delivered, 1);
    len = make_ip(pkt, a->ip, 0x0a0000ff, 10); /* subnet broadcast */
    unsigned before = gw->delivered;
    assert_int_equal(ipoib_output(a->ep, pkt, len, 2), 0);
    assert_int_equal(gw->delivered, before + 1);
    len = make_ip(pkt, a->ip, 0xe0000001, 10); /* 224.0.0.1 */
    assert_int_equal(ipoib_output(a->ep, pkt, len, 3), 0);
    assert_int_equal(gw->delivered, before + 2);
    assert_int_equal(a->delivered, 0); /* own multicast not looped back */
    assert_true(ipoib_stats(a->ep)->rx_looped >= 2);
    free_fake(&f);

    struct fake g = {0};
    struct node *c = add_node(&g, 5, 1);
    struct ipoib_port pc = port_of(c);
    struct ipoib_config cfg = {
        .pkey = 0xffff, .qpn = 0x99, .addr = 0x0a000001, .netmask = 0xffffff00};
    ipoib_destroy(c->ep);
    c->ep = ipoib_create(&cfg, &fake_ops, c);
    ipoib_port_update(c->ep, &pc, 0);
    len = make_ip(pkt, c->ip, 0xc0a80101, 10);
    assert_int_equal(ipoib_output(c->ep, pkt, len, 1), -ENETUNREACH);
    assert_int_equal(ipoib_stats(c->ep)->tx_dropped_no_route, 1);
    free_fake(&g);
}

/* The source of proxy_arp(): a multicast from QP 0x777 of LID 33. */
static const struct board_dgram_addr proxy_rx = {
    .dlid = 0xc001, .slid = 33, .qkey = 0x0b1b, .src_qp = 0x777};

/*
 * The framed ARP request for a's address from 10.0.0.9 (port GUID ...09),
 * naming QPN 0x55 while it arrives from QP 0x777 (proxy_rx: a proxy): the
 * endpoint must ask the SA for the path.  Fills buf[60] and *arp.
 */
static void proxy_arp(const struct node *a, struct ipoib_arp *arp, uint8_t buf[60])
{
    *arp = (struct ipoib_arp){.op = IPOIB_ARP_OP_REQUEST, .spa = 0x0a000009, .tpa = a->ip};
    arp->sha.qpn = 0x55;
    ipoib_gid_make(PREFIX, 0x0002c90300000009ull, arp->sha.gid);
    ipoib_encap_write(IPOIB_ETHERTYPE_ARP, buf);
    ipoib_arp_build(arp, buf + 4);
}

/* The ARP reply is lost: the sender asks the SA for the path after learning only the address. */
static void test_path_query_when_qp_differs(void **state)
{
    struct fake f = {0};
    struct node *a = joined_node(&f, 5, 1);
    struct ipoib_arp arp;
    uint8_t buf[60];

    /* A peer without an endpoint, known to the fake SA only (LID 9). */
    struct node *b = &f.nodes[f.n++];
    b->fab = &f;
    b->lid = 9;
    b->qpn = 0x55;
    b->guid = 0x0002c90300000009ull;
    proxy_arp(a, &arp, buf);
    ipoib_input(a->ep, &proxy_rx, buf, 60, 1);
    assert_int_equal(f.paths_seen, 1);
    struct ipoib_neigh_info ni[4];
    assert_int_equal(ipoib_neighbours(a->ep, ni, 4), 1);
    assert_true(ni[0].resolved);
    assert_int_equal(ni[0].lid, 9);
    assert_int_equal(ni[0].sl, 1);
    free_fake(&f);
}

/*
 * An unanswered path query: sent 3 times 1 s apart with one TID (each copy
 * counted), then the neighbour is given up; an answer to it after that is
 * consumed and counted, never adopted.
 */
static void test_path_query_retries(void **state)
{
    struct fake f = {0};
    struct node *a = joined_node(&f, 5, 1);
    struct ipoib_arp arp;
    struct ipoib_neigh_info ni[4];
    uint8_t buf[60], mad[256], sgid[16], dgid[16];
    uint64_t tid;

    proxy_arp(a, &arp, buf);
    f.sa_silent = true;
    ipoib_input(a->ep, &proxy_rx, buf, 60, 1);
    assert_int_equal(f.paths_seen, 1);
    tid = f.last_path_tid;
    assert_int_equal(tid >> 24, 5); /* the endpoint's tag */
    ipoib_poll(a->ep, 1000);
    assert_int_equal(f.paths_seen, 1);
    ipoib_poll(a->ep, 1001);
    ipoib_poll(a->ep, 2001);
    assert_int_equal(f.paths_seen, 3);
    assert_int_equal(f.last_path_tid, tid); /* every copy the same request */
    assert_int_equal(ipoib_stats(a->ep)->path_queries, 3);
    assert_int_equal(ipoib_neighbours(a->ep, ni, 4), 1);
    assert_false(ni[0].resolved);
    ipoib_poll(a->ep, 3001);
    assert_int_equal(f.paths_seen, 3);
    assert_int_equal(ipoib_stats(a->ep)->path_failures, 1);
    assert_int_equal(ipoib_neighbours(a->ep, ni, 4), 0);
    /* The answer after the give-up: a stray. */
    ipoib_gid_make(PREFIX, a->guid, sgid);
    memcpy(dgid, arp.sha.gid, 16);
    ipoib_sa_build_path_query(mad, tid, sgid, dgid, 0xffff);
    mad_set_field(mad, 0, IB_MAD_METHOD_F, IB_MAD_METHOD_GET);
    mad_set_field(mad, 0, IB_MAD_RESPONSE_F, 1);
    assert_true(ipoib_input_sa(a->ep, mad, 256, 3002));
    assert_int_equal(ipoib_stats(a->ep)->sa_dropped, 1);
    assert_int_equal(ipoib_neighbours(a->ep, ni, 4), 0);
    free_fake(&f);
}

/* Garbage in: counted by reason, nothing delivered, nothing crashes. */
static void test_bad_input(void **state)
{
    struct fake f = {0};
    struct node *a = add_node(&f, 5, 1);
    struct ipoib_port pa = port_of(a);
    struct board_dgram_addr rx = {.dlid = 5, .slid = 9, .qkey = 0x0b1b, .src_qp = 0x49};
    uint8_t buf[4200];

    ipoib_input(a->ep, &rx, buf, 10, 0);
    assert_int_equal(ipoib_stats(a->ep)->rx_dropped_down, 1);
    ipoib_port_update(a->ep, &pa, 0);

    memset(buf, 0, sizeof(buf));
    ipoib_input(a->ep, &rx, buf, 3, 0);
    assert_int_equal(ipoib_stats(a->ep)->rx_dropped_short, 1);
    ipoib_encap_write(IPOIB_ETHERTYPE_IPV6, buf);
    ipoib_input(a->ep, &rx, buf, 60, 0);
    assert_int_equal(ipoib_stats(a->ep)->rx_dropped_type, 1);
    ipoib_encap_write(IPOIB_ETHERTYPE_IPV4, buf);
    make_ip(buf + 4, 0x0a000009, a->ip, 100);
    ipoib_input(a->ep, &rx, buf, 4 + 50, 0); /* truncated: total length 120 */
    assert_int_equal(ipoib_stats(a->ep)->rx_dropped_ip, 1);
    buf[4] = 0x65; /* version 6 in an IPv4 frame */
    ipoib_input(a->ep, &rx, buf, 4 + 120, 0);
    assert_int_equal(ipoib_stats(a->ep)->rx_dropped_ip, 2);
    buf[4] = 0x43; /* IHL 3 */
    ipoib_input(a->ep, &rx, buf, 4 + 120, 0);
    assert_int_equal(ipoib_stats(a->ep)->rx_dropped_ip, 3);
    buf[4] = 0x45;
    ipoib_input(a->ep, &rx, buf, 4 + 2045, 0); /* over the group MTU */
    assert_int_equal(ipoib_stats(a->ep)->rx_dropped_oversize, 1);
    rx.qkey = 0x1234;
    ipoib_input(a->ep, &rx, buf, 4 + 120, 0);
    assert_int_equal(ipoib_stats(a->ep)->rx_dropped_qkey, 1);
    rx.qkey = 0x0b1b;
    ipoib_input(a->ep, &rx, buf, 4 + 120 + 7, 0); /* link padding is fine */
    assert_int_equal(a->delivered, 1);
    assert_int_equal(a->last_len, 120);
    ipoib_encap_write(IPOIB_ETHERTYPE_ARP, buf);
    buf[4 + 4] = 6; /* hlen 6: an Ethernet ARP */
    ipoib_input(a->ep, &rx, buf, 4 + 56, 0);
    assert_int_equal(ipoib_stats(a->ep)->rx_dropped_arp, 1);
    ipoib_input(a->ep, &rx, buf, 4 + 20, 0);
    assert_int_equal(ipoib_stats(a->ep)->rx_dropped_arp, 2);

    /* Bad packets out. */
    uint8_t pkt[4200];
    size_t len = make_ip(pkt, a->ip, 0x0a000002, 2100);
    assert_int_equal(ipoib_output(a->ep, pkt, len, 1), -EINVAL);
    pkt[0] = 0x60;
    assert_int_equal(ipoib_output(a->ep, pkt, 40, 1), -EINVAL);
    assert_int_equal(ipoib_stats(a->ep)->tx_dropped_bad, 2);
    /* Garbage SA MADs: not ours, or short. */
    memset(buf, 0xff, 256);
    assert_false(ipoib_input_sa(a->ep, buf, 10, 1));
    free_fake(&f);
}

/* The SM restarts with new LIDs: link down, neighbours flushed, join again. */
static void test_rejoin(void **state)
{
    struct fake f = {0};
    struct node *a, *b;

    joined_pair(&f, &a, &b);
    send_small(a, b, 1);
    assert_int_equal(b->delivered, 1);
    assert_int_equal(ipoib_neighbours(a->ep, NULL, 0), 1);

    a->port.sm_sl = 3; /* an SL change alone: no rejoin */
    ipoib_port_update(a->ep, &a->port, 2);
    assert_int_equal(f.joins_seen, 2);

    b->lid = 19;
    b->port.lid = 19;
    a->lid = 15;
    a->port.lid = 15;
    ipoib_port_update(b->ep, &b->port, 3);
    ipoib_port_update(a->ep, &a->port, 3);
    assert_int_equal(a->link_downs, 1);
    assert_int_equal(a->link_ups, 2);
    assert_int_equal(f.joins_seen, 4);
    assert_int_equal(ipoib_neighbours(a->ep, NULL, 0), 0);
    send_small(a, b, 4);
    assert_int_equal(b->delivered, 2);

    a->port.reregister++; /* ClientReregister */
    ipoib_port_update(a->ep, &a->port, 5);
    assert_int_equal(f.joins_seen, 5);
    a->port.active = false;
    ipoib_port_update(a->ep, &a->port, 6);
    assert_int_equal(ipoib_state(a->ep), IPOIB_DOWN);
    assert_int_equal(send_small(a, b, 7), -ENETDOWN);
    free_fake(&f);
}

/* An old neighbour is used and probed; no answer within three tries: forgotten. */
static void test_stale_probe(void **state)
{
    struct fake f = {0};
    struct node *a, *b;

    joined_pair(&f, &a, &b);
    assert_int_equal(send_small(a, b, 1), 0);
    /* 30 s later: still sent at once, plus a probe that b answers. */
    f.now = 30001;
    send_small(a, b, 30001);
    assert_int_equal(b->delivered, 2);
    struct ipoib_neigh_info ni[4];
    ipoib_neighbours(a->ep, ni, 4);
    assert_true(ni[0].updated == 30001);
    /* b goes silent. */
    f.drop_arp_replies = true;
    b->qkey = 0; /* and deaf */
    f.now = 60002;
    send_small(a, b, 60002);
    ipoib_poll(a->ep, 61002);
    ipoib_poll(a->ep, 62002);
    ipoib_poll(a->ep, 63002);
    assert_int_equal(ipoib_neighbours(a->ep, NULL, 0), 0);
    free_fake(&f);
}

/* Bad configurations are refused. */
static void test_create_refusals(void **state)
{
    struct ipoib_config cfg = {.pkey = 0xffff, .qpn = 0x48};
    struct ipoib *ep;

    assert_null(ipoib_create(NULL, &fake_ops, NULL));
    cfg.pkey = 0x8000;
    assert_null(ipoib_create(&cfg, &fake_ops, NULL));
    cfg.pkey = 0xffff;
    cfg.qpn = 0;
    assert_null(ipoib_create(&cfg, &fake_ops, NULL));
    cfg.qpn = 0x1000000;
    assert_null(ipoib_create(&cfg, &fake_ops, NULL));
    cfg.qpn = 0x48;
    struct ipoib_ops ops = fake_ops;
    ops.deliver = NULL;
    assert_null(ipoib_create(&cfg, &ops, NULL));
    ep = ipoib_create(&cfg, &fake_ops, NULL);
    assert_non_null(ep);
    ipoib_destroy(ep);
    ipoib_destroy(NULL);
}

PZT_MAIN(test_bcast_mgid, test_mcast_mgid, test_lladdr, test_encap_mtu, test_arp_roundtrip,
         test_arp_refusals, test_sa_join_request, test_sa_path_request, test_sa_parse_join,
         test_sa_parse_path, test_port_from_attrs, test_join, test_join_retry, test_join_timeout,
         test_limited_pkey, test_resolve_and_send, test_unresolved, test_routing,
         test_path_query_when_qp_differs, test_path_query_retries, test_bad_input, test_rejoin,
         test_stale_probe, test_create_refusals)
