/*
 * test_ipoib6.c - IPv6 through the IPoIB endpoint (ipoib/ipoib6.c) over a
 * small fake UD fabric and a fake SA: the IPv6 groups joined after the
 * broadcast group (create-capable joins), solicitation and advertisement
 * between two endpoints with the IPoIB link-layer option, the queue
 * released on resolution, duplicate address detection, the host stack's
 * own neighbour discovery and MLD filtered, malformed messages counted and
 * unanswered, routing, a rejoin, and IPv4 beside it.  OpenSM, Linux and
 * tshark are the peers of the integration tests.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <arpa/inet.h>
#include <cmocka.h>
#include <infiniband/mad.h>

#include "ipoib.h"
#include "ipoib6.h"
#include "ipoib_nd.h"
#include "pzt_main.h"

#define MAX_NODES 3
#define PREFIX 0xfe80000000000000ull
#define MAX_MGIDS 16

struct fake;

/* One node: endpoint, identity, what it received. */
struct node {
    struct ipoib *ep;
    struct fake *fab;
    uint16_t lid;
    uint32_t qpn, qkey;
    uint64_t guid;
    uint8_t ll[16]; /* link-local */
    uint8_t last_pkt[4096];
    size_t last_len;
    unsigned delivered;
    struct ipoib_port port;
};

/* The fabric and its SA. */
struct fake {
    struct node nodes[MAX_NODES];
    unsigned n;
    uint64_t now;
    uint8_t mgids[MAX_MGIDS][16]; /* the SA's groups; MLID 0xc001 + index */
    unsigned n_mgids;
    unsigned joins6, joins4, leaves, paths;
    uint8_t last_join[256];
    unsigned dgrams;
    uint8_t last_mcast_body[4096];
    size_t last_mcast_len;
    unsigned sa_refuse_v6; /* MAD status for IPv6 joins */
    bool sa_silent_v6;     /* IPv6 joins and leaves go unanswered */
    uint32_t last_tid6;    /* the TID (low 32 bits) of the last IPv6 join or leave */
    uint32_t last_tid4;    /* ... of the last IPv4 join */
};

/* Deliver a datagram to node dst as its receive completion shows it. */
static void deliver_to(struct node *dst, const struct board_dgram_addr *tx, const struct node *src,
                       const void *buf, size_t len)
{
    struct board_dgram_addr rx = *tx;

    if (!dst->ep || tx->qkey != dst->qkey)
        return;
    rx.slid = src->lid;
    rx.src_qp = src->qpn;
    ipoib_input(dst->ep, &rx, buf, len, dst->fab->now);
}

/* Multicast to every node (the endpoints filter), unicast by LID and QPN. */
static int fake_send_dgram(void *ctx, const struct board_dgram_addr *a, const void *buf, size_t len)
{
    struct node *src = ctx;
    struct fake *f = src->fab;

    f->dgrams++;
    if (a->dlid >= 0xc000) {
        memcpy(f->last_mcast_body, buf, len);
        f->last_mcast_len = len;
        for (unsigned i = 0; i < f->n; i++)
            deliver_to(&f->nodes[i], a, src, buf, len);
        return 0;
    }
    for (unsigned i = 0; i < f->n; i++)
        if (f->nodes[i].lid == a->dlid && f->nodes[i].qpn == a->dst_qp)
            deliver_to(&f->nodes[i], a, src, buf, len);
    return 0;
}

/* The SA's MLID for mgid, made on first sight. */
static uint16_t mlid_of(struct fake *f, const uint8_t mgid[16])
{
    for (unsigned i = 0; i < f->n_mgids; i++)
        if (memcmp(f->mgids[i], mgid, 16) == 0)
            return (uint16_t)(0xc001 + i);
    assert_true(f->n_mgids < MAX_MGIDS);
    memcpy(f->mgids[f->n_mgids], mgid, 16);
    return (uint16_t)(0xc001 + f->n_mgids++);
}

/* The fake SA: joins (IPv4 broadcast and IPv6), leaves and path queries, answered at once. */
static int fake_send_sa(void *ctx, const void *req, size_t len, uint16_t dlid, uint8_t sl)
{
    struct node *src = ctx;
    struct fake *f = src->fab;
    uint8_t mad[256], mgid[16], dgid[16];
    unsigned method;
    (void)dlid;
    (void)sl;

    assert_int_equal(len, 256);
    memcpy(mad, req, 256);
    method = mad_get_field(mad, 0, IB_MAD_METHOD_F);
    mad_set_field(mad, 0, IB_MAD_RESPONSE_F, 1);
    if (mad_get_field(mad, 0, IB_MAD_ATTRID_F) == IB_SA_ATTR_MCRECORD) {
        bool v6;

        mad_get_array(mad, IB_SA_DATA_OFFS, IB_SA_MCM_MGID_F, mgid);
        v6 = mgid[2] == 0x60 && mgid[3] == 0x1b;
        if (v6)
            f->last_tid6 = (uint32_t)mad_get_field64(mad, 0, IB_MAD_TRID_F);
        else
            f->last_tid4 = (uint32_t)mad_get_field64(mad, 0, IB_MAD_TRID_F);
        if (method == 0x15) {
            f->leaves++;
        } else {
            mad_set_field(mad, 0, IB_MAD_METHOD_F, IB_MAD_METHOD_GET);
            if (v6) {
                f->joins6++;
                memcpy(f->last_join, req, 256);
                mad_set_field(mad, 0, IB_MAD_STATUS_F, f->sa_refuse_v6);
            } else {
                f->joins4++;
                mad_set_field(mad, IB_SA_DATA_OFFS, IB_SA_MCM_QKEY_F, 0x0b1b);
                mad_set_field(mad, IB_SA_DATA_OFFS, IB_SA_MCM_MTU_F, 4);
                mad_set_field(mad, IB_SA_DATA_OFFS, IB_SA_MCM_SL_F, 2);
                mad_set_field(mad, IB_SA_DATA_OFFS, IB_SA_MCM_RATE_F, 3);
            }
            mad_set_field(mad, IB_SA_DATA_OFFS, IB_SA_MCM_MLID_F, mlid_of(f, mgid));
        }
        if (v6 && f->sa_silent_v6)
            return 0;
    } else {
        f->paths++;
        mad_set_field(mad, 0, IB_MAD_METHOD_F, IB_MAD_METHOD_GET);
        mad_get_array(mad, IB_SA_DATA_OFFS, IB_SA_PR_DGID_F, dgid);
        for (unsigned i = 0; i < f->n; i++)
            if (f->nodes[i].guid == ipoib_gid_guid(dgid))
                mad_set_field(mad, IB_SA_DATA_OFFS, IB_SA_PR_DLID_F, f->nodes[i].lid);
    }
    assert_true(ipoib_input_sa(src->ep, mad, sizeof(mad), f->now));
    return 0;
}

static void fake_deliver(void *ctx, const void *pkt, size_t len)
{
    struct node *n = ctx;
    memcpy(n->last_pkt, pkt, len);
    n->last_len = len;
    n->delivered++;
}

static int fake_set_qkey(void *ctx, uint32_t qkey)
{
    ((struct node *)ctx)->qkey = qkey;
    return 0;
}

static const struct ipoib_ops fake_ops = {
    .send_dgram = fake_send_dgram,
    .send_sa = fake_send_sa,
    .deliver = fake_deliver,
    .set_qkey = fake_set_qkey,
};

/* The 16 bytes of an address written as text. */
static void addr_of(const char *text, uint8_t out[16])
{
    assert_int_equal(inet_pton(AF_INET6, text, out), 1);
}

/* A node at lid with IPv4 10.0.0.<lid>/24 and IPv6 on, its port up at time 0. */
static struct node *up_node(struct fake *f, uint16_t lid)
{
    struct node *n = &f->nodes[f->n++];
    struct ipoib_config cfg = {
        .pkey = 0xffff,
        .qpn = 0x40 + lid,
        .addr = 0x0a000000u | lid,
        .netmask = 0xffffff00u,
        .neigh_max = 8,
        .tid_tag = (uint8_t)lid,
        .ip6 = true,
    };

    n->fab = f;
    n->lid = lid;
    n->qpn = cfg.qpn;
    n->guid = 0x0002c90300000000ull | lid;
    ipoib_ip6_linklocal(n->guid, n->ll);
    n->ep = ipoib_create(&cfg, &fake_ops, n);
    assert_non_null(n->ep);
    n->port = (struct ipoib_port){.active = true,
                                  .lid = lid,
                                  .gid_prefix = PREFIX,
                                  .port_guid = n->guid,
                                  .sm_lid = 1,
                                  .pkey_state = IPOIB_PKEY_FULL};
    ipoib_port_update(n->ep, &n->port, f->now);
    return n;
}

/* Give n its link-local address (usable unless tentative) and optionally a global /64. */
static void set_addrs(struct node *n, bool tentative, const char *global)
{
    struct ipoib6_addr a[2] = {{.prefix_len = 64, .tentative = tentative}};
    unsigned count = 1;

    memcpy(a[0].addr, n->ll, 16);
    if (global) {
        addr_of(global, a[1].addr);
        a[1].prefix_len = 64;
        count = 2;
    }
    assert_int_equal(ipoib6_set_addrs(n->ep, a, count, n->fab->now), 0);
}

/* An IPv6 UDP-like packet (next header 17) of payload bytes from src to dst. */
static size_t make_ip6(uint8_t *pkt, const uint8_t src[16], const uint8_t dst[16], size_t payload)
{
    memset(pkt, 0x5a, 40 + payload);
    pkt[0] = 0x60;
    pkt[1] = pkt[2] = pkt[3] = 0;
    pkt[4] = (uint8_t)(payload >> 8);
    pkt[5] = (uint8_t)payload;
    pkt[6] = 17;
    pkt[7] = 64;
    memcpy(pkt + 8, src, 16);
    memcpy(pkt + 24, dst, 16);
    return 40 + payload;
}

static void free_fake(struct fake *f)
{
    for (unsigned i = 0; i < f->n; i++)
        ipoib_destroy(f->nodes[i].ep);
}

/* The IPv6 group entry of text on n, or fail. */
static struct ipoib6_group_info group_of(const struct node *n, const char *text)
{
    struct ipoib6_group_info g[IPOIB6_GROUPS_MAX];
    uint8_t want[16];
    unsigned count = ipoib6_groups(n->ep, g, IPOIB6_GROUPS_MAX);

    addr_of(text, want);
    for (unsigned i = 0; i < count; i++)
        if (memcmp(g[i].group, want, 16) == 0)
            return g[i];
    fail_msg("group %s not on the node", text);
    return g[0];
}

/* ---- tests ----------------------------------------------------------------- */

/*
 * After the broadcast group: all-nodes joined with a create-capable join;
 * an address brings its solicited-node group; a usable one is announced.
 */
static void test_groups_and_announce(void **state)
{
    struct fake f = {0};
    struct node *a = up_node(&f, 5);
    struct ipoib6_group_info g;
    uint8_t mgid[16], want_mgid[16];
    struct ipoib_nd m;

    assert_int_equal(ipoib_state(a->ep), IPOIB_UP);
    assert_int_equal(f.joins4, 1);
    assert_int_equal(f.joins6, 1);
    mad_get_array(f.last_join, IB_SA_DATA_OFFS, IB_SA_MCM_MGID_F, mgid);
    addr_of("ff12:601b:ffff::1", want_mgid);
    assert_memory_equal(mgid, want_mgid, 16);
    assert_true(mad_get_field64(f.last_join, 0, IB_SA_COMPMASK_F) & (1u << 2)); /* Q_Key: create */
    assert_int_equal(mad_get_field(f.last_join, IB_SA_DATA_OFFS, IB_SA_MCM_QKEY_F), 0x0b1b);
    g = group_of(a, "ff02::1");
    assert_int_equal(g.state, IPOIB_MCAST6_UP);
    assert_int_equal(g.mlid, 0xc002);

    set_addrs(a, false, NULL);
    assert_int_equal(f.joins6, 2);
    g = group_of(a, "ff02::1:ff00:5");
    assert_int_equal(g.state, IPOIB_MCAST6_UP);
    assert_false(g.sendonly);
    /* The announcement: an unsolicited NA to all-nodes with our QPN and GID. */
    assert_int_equal(f.last_mcast_body[0] << 8 | f.last_mcast_body[1], 0x86dd);
    assert_int_equal(ipoib_nd_parse(f.last_mcast_body + 4, f.last_mcast_len - 4, &m), IPOIB_ND_OK);
    assert_int_equal(m.type, IPOIB_ND_NA);
    assert_memory_equal(m.target, a->ll, 16);
    assert_int_equal(m.na_flags, IPOIB_NA_OVERRIDE);
    assert_true(m.has_tlla);
    assert_int_equal(m.tlla.qpn, a->qpn);
    assert_true(ipoib_gid_guid(m.tlla.gid) == a->guid);
    /* A global address in the same /104 shares the group: no new join. */
    set_addrs(a, false, "2001:db8::202:c903:0:5");
    assert_int_equal(f.joins6, 2);
    /* Dropping the global keeps the group (the link-local holds it); dropping both leaves it. */
    set_addrs(a, false, NULL);
    assert_int_equal(f.leaves, 0);
    assert_int_equal(ipoib6_set_addrs(a->ep, NULL, 0, 0), 0);
    assert_int_equal(f.leaves, 1);
    assert_int_equal(ipoib6_stats(a->ep)->mcast_leaves, 1);
    free_fake(&f);
}

/*
 * A to B's link-local: the packet waits, A solicits B's solicited-node
 * group with its option, B learns A from it and answers unicast, A learns
 * B's path from the datagram (no SA query) and releases the packet.
 */
static void test_resolve(void **state)
{
    struct fake f = {0};
    struct node *a = up_node(&f, 5), *b = up_node(&f, 9);
    struct ipoib_neigh_info ni[8];
    uint8_t pkt[512];
    size_t len;
    unsigned count;

    set_addrs(a, false, NULL);
    set_addrs(b, false, NULL);
    b->delivered = 0;
    len = make_ip6(pkt, a->ll, b->ll, 100);
    assert_int_equal(ipoib_output(a->ep, pkt, len, 10), 0);
    assert_int_equal(b->delivered, 1);
    assert_int_equal(b->last_len, len);
    assert_memory_equal(b->last_pkt, pkt, len);
    assert_int_equal(f.paths, 0);
    assert_int_equal(ipoib6_stats(b->ep)->rx_nd, 1 + 1); /* A's announcement and the NS */
    count = ipoib_neighbours(a->ep, ni, 8);
    assert_int_equal(count, 1);
    assert_true(ni[0].v6);
    assert_memory_equal(ni[0].ip6, b->ll, 16);
    assert_int_equal(ni[0].lid, 9);
    assert_int_equal(ni[0].lladdr.qpn, b->qpn);
    assert_true(ni[0].resolved);
    /* B answers without soliciting: it learned A from the NS. */
    unsigned nd_before = (unsigned)ipoib6_stats(b->ep)->tx_nd;
    len = make_ip6(pkt, b->ll, a->ll, 20);
    assert_int_equal(ipoib_output(b->ep, pkt, len, 11), 0);
    assert_int_equal(ipoib6_stats(b->ep)->tx_nd, nd_before);
    assert_memory_equal(a->last_pkt, pkt, len);
    /* IPv4 beside it, the same pair. */
    uint8_t p4[64] = {0x45, 0, 0, 30};
    p4[12] = 10, p4[15] = 5, p4[16] = 10, p4[19] = 9;
    assert_int_equal(ipoib_output(a->ep, p4, 30, 12), 0);
    assert_int_equal(b->last_len, 30);
    assert_int_equal(b->last_pkt[0], 0x45);
    free_fake(&f);
}

/* A datagram to an IPv6 group is counted as IPv6 multicast on both ends, apart from
 * the IPv4 broadcast group's packets (IF-MIB's multicast vs broadcast counters). */
static void test_mcast6_counted(void **state)
{
    struct fake f = {0};
    struct node *a = up_node(&f, 5), *b = up_node(&f, 9);
    uint8_t all_nodes[16] = {0xff, 0x02, [15] = 1};
    uint8_t pkt[512];
    size_t len;
    uint64_t rx_group, tx_group, rx6, tx6;

    (void)state;
    set_addrs(a, false, NULL);
    set_addrs(b, false, NULL);
    b->delivered = 0;
    rx_group = ipoib_stats(b->ep)->rx_group_packets;
    tx_group = ipoib_stats(a->ep)->tx_group_packets;
    rx6 = ipoib_stats(b->ep)->rx_mcast6_packets;
    tx6 = ipoib_stats(a->ep)->tx_mcast6_packets;
    len = make_ip6(pkt, a->ll, all_nodes, 24);
    assert_int_equal(ipoib_output(a->ep, pkt, len, 10), 0);
    assert_int_equal(b->delivered, 1);
    assert_int_equal(ipoib_stats(a->ep)->tx_mcast6_packets, tx6 + 1);
    assert_int_equal(ipoib_stats(b->ep)->rx_mcast6_packets, rx6 + 1);
    assert_int_equal(ipoib_stats(a->ep)->tx_group_packets, tx_group);
    assert_int_equal(ipoib_stats(b->ep)->rx_group_packets, rx_group);
    free_fake(&f);
}

/* Nobody answers: three solicitations a second apart, then the queue is dropped. */
static void test_unresolved(void **state)
{
    struct fake f = {0};
    struct node *a = up_node(&f, 5);
    uint8_t pkt[256], dst[16];
    size_t len;

    set_addrs(a, false, NULL);
    addr_of("fe80::99", dst);
    len = make_ip6(pkt, a->ll, dst, 10);
    unsigned nd0 = (unsigned)ipoib6_stats(a->ep)->tx_nd;
    assert_int_equal(ipoib_output(a->ep, pkt, len, 0), 0);
    ipoib_poll(a->ep, 1000);
    ipoib_poll(a->ep, 2000);
    assert_int_equal(ipoib6_stats(a->ep)->tx_nd, nd0 + 3);
    ipoib_poll(a->ep, 3000);
    assert_int_equal(ipoib_neighbours(a->ep, NULL, 0), 0);
    assert_int_equal(ipoib_stats(a->ep)->tx_dropped_unresolved, 1);
    /* The peer's solicited-node group was joined send-only (JoinState 8). */
    struct ipoib6_group_info g = group_of(a, "ff02::1:ff00:99");
    assert_true(g.sendonly);
    free_fake(&f);
}

/*
 * Duplicate address detection: a probe for B's tentative address goes to
 * B's host stack (which marks it duplicated); for a usable one B defends it
 * with an NA to all-nodes, which A's host stack sees while A is tentative.
 */
static void test_dad(void **state)
{
    struct fake f = {0};
    struct node *a = up_node(&f, 5), *b = up_node(&f, 9);
    uint8_t probe[128];
    struct ipoib_nd m = {.type = IPOIB_ND_NS};
    size_t len;

    memcpy(m.target, b->ll, 16);
    ipoib_ip6_solicited_node(b->ll, m.dst);
    len = ipoib_nd_build(&m, probe, sizeof(probe));
    set_addrs(b, true, NULL);
    set_addrs(a, true, NULL);
    b->delivered = 0;
    /* A's host stack probes B's address (as lwIP would): it goes out as it is. */
    assert_int_equal(ipoib_output(a->ep, probe, len, 5), 0);
    assert_int_equal(b->delivered, 1);
    assert_memory_equal(b->last_pkt, probe, len);
    assert_int_equal(ipoib6_stats(b->ep)->dad_conflicts, 1);
    /* Usable now: B defends with an NA (S=0, O=1) to all-nodes. */
    set_addrs(b, false, NULL);
    a->delivered = 0;
    b->delivered = 0;
    ipoib_output(a->ep, probe, len, 6);
    assert_int_equal(b->delivered, 0);
    assert_int_equal(ipoib6_stats(b->ep)->dad_conflicts, 2);
    assert_int_equal(ipoib_nd_parse(f.last_mcast_body + 4, f.last_mcast_len - 4, &m), IPOIB_ND_OK);
    assert_int_equal(m.type, IPOIB_ND_NA);
    assert_int_equal(m.na_flags, IPOIB_NA_OVERRIDE);
    free_fake(&f);
}

/* The host stack's own NS/NA and MLD do not go out; its RS gets our option. */
static void test_output_filter(void **state)
{
    struct fake f = {0};
    struct node *a = up_node(&f, 5);
    uint8_t pkt[256], mld[128];
    struct ipoib_nd m = {.type = IPOIB_ND_NS};
    size_t len;
    unsigned dgrams;

    set_addrs(a, false, NULL);
    dgrams = f.dgrams;
    /* lwIP's NS: an option of length 1 it never filled. */
    memcpy(m.src, a->ll, 16);
    addr_of("fe80::9", m.target);
    ipoib_ip6_solicited_node(m.target, m.dst);
    len = ipoib_nd_build(&m, pkt, sizeof(pkt));
    memcpy(pkt + len, (const uint8_t[]){1, 1, 0, 0, 0, 0, 0, 0}, 8);
    pkt[5] += 8;
    assert_int_equal(ipoib_output(a->ep, pkt, len + 8, 1), 0);
    m.type = IPOIB_ND_NA;
    len = ipoib_nd_build(&m, pkt, sizeof(pkt));
    assert_int_equal(ipoib_output(a->ep, pkt, len, 1), 0);
    assert_int_equal(ipoib6_stats(a->ep)->tx_nd_suppressed, 2);
    /* An MLDv2 report behind a hop-by-hop header. */
    memset(mld, 0, sizeof(mld));
    mld[0] = 0x60;
    mld[5] = 8 + 8;
    mld[6] = 0;
    mld[7] = 1;
    memcpy(mld + 8, a->ll, 16);
    addr_of("ff02::16", mld + 24);
    mld[40] = 58; /* hop-by-hop: next header ICMPv6, length 0 (8 bytes) */
    mld[48] = 143;
    assert_int_equal(ipoib_output(a->ep, mld, 56, 1), 0);
    assert_int_equal(ipoib6_stats(a->ep)->tx_mld_suppressed, 1);
    assert_int_equal(f.dgrams, dgrams);
    /* An RS from lwIP goes out with our 24-byte option. */
    memset(&m, 0, sizeof(m));
    m.type = IPOIB_ND_RS;
    memcpy(m.src, a->ll, 16);
    addr_of("ff02::2", m.dst);
    len = ipoib_nd_build(&m, pkt, sizeof(pkt));
    assert_int_equal(ipoib_output(a->ep, pkt, len, 2), 0);
    assert_int_equal(f.dgrams, dgrams + 1);
    assert_int_equal(ipoib_nd_parse(f.last_mcast_body + 4, f.last_mcast_len - 4, &m), IPOIB_ND_OK);
    assert_int_equal(m.type, IPOIB_ND_RS);
    assert_true(m.has_slla);
    assert_int_equal(m.slla.qpn, a->qpn);
    free_fake(&f);
}

/* Malformed discovery: counted by reason, never answered, never delivered. */
static void test_malformed(void **state)
{
    struct fake f = {0};
    struct node *a = up_node(&f, 5), *b = up_node(&f, 9);
    struct ipoib_nd m = {.type = IPOIB_ND_NS, .has_slla = true};
    struct board_dgram_addr rx = {.slid = 5, .src_qp = 0x45, .qkey = 0x0b1b, .dlid = 0xc003};
    uint8_t frame[256];
    size_t len;
    unsigned dgrams;

    set_addrs(b, false, NULL);
    memcpy(m.src, a->ll, 16);
    memcpy(m.target, b->ll, 16);
    ipoib_ip6_solicited_node(b->ll, m.dst);
    ipoib_own_lladdr(a->ep, &m.slla);
    frame[0] = 0x86, frame[1] = 0xdd, frame[2] = frame[3] = 0;
    len = ipoib_nd_build(&m, frame + 4, sizeof(frame) - 4);
    frame[4 + 60] ^= 1; /* the checksum no longer holds */
    dgrams = f.dgrams;
    b->delivered = 0;
    ipoib_input(b->ep, &rx, frame, 4 + len, 1);
    frame[4 + 60] ^= 1;
    frame[4 + 7] = 64; /* hop limit */
    ipoib_input(b->ep, &rx, frame, 4 + len, 1);
    assert_int_equal(f.dgrams, dgrams);
    assert_int_equal(b->delivered, 0);
    assert_int_equal(ipoib6_stats(b->ep)->rx_dropped_nd, 2);
    assert_int_equal(ipoib6_stats(b->ep)->rx_dropped_nd_reason[IPOIB_ND_CHECKSUM], 1);
    assert_int_equal(ipoib6_stats(b->ep)->rx_dropped_nd_reason[IPOIB_ND_HOPLIMIT], 1);
    assert_int_equal(ipoib_neighbours(b->ep, NULL, 0), 0);
    /* A payload length past the datagram: a malformed IPv6 header. */
    frame[4 + 7] = 255;
    frame[4 + 5] += 1;
    ipoib_input(b->ep, &rx, frame, 4 + len, 1);
    assert_int_equal(ipoib6_stats(b->ep)->rx_dropped_ip6, 1);
    /* Unicast to an address that is not ours: dropped. */
    uint8_t pkt[128], other[16];
    addr_of("fe80::77", other);
    len = make_ip6(pkt, a->ll, other, 8);
    memcpy(frame + 4, pkt, len);
    ipoib_input(b->ep, &rx, frame, 4 + len, 1);
    assert_int_equal(ipoib6_stats(b->ep)->rx_dropped_dst, 1);
    assert_int_equal(b->delivered, 0);
    free_fake(&f);
}

/* Off-link: no route without a gateway; an RA's router becomes the next hop. */
static void test_routing(void **state)
{
    struct fake f = {0};
    struct node *a = up_node(&f, 5), *r = up_node(&f, 9);
    uint8_t pkt[256], far[16], ra[256], routers[4][16];
    struct ipoib_nd m = {.type = IPOIB_ND_RA, .ra_lifetime = 600, .has_slla = true};
    struct board_dgram_addr rx = {.slid = 9, .src_qp = 0x49, .qkey = 0x0b1b, .dlid = 0xc002};
    struct ipoib_neigh_info ni[8];
    size_t len;

    set_addrs(a, false, "2001:db8::202:c903:0:5");
    set_addrs(r, false, NULL);
    addr_of("2001:db8:99::1", far);
    len = make_ip6(pkt, a->ll, far, 8);
    assert_int_equal(ipoib_output(a->ep, pkt, len, 1), -ENETUNREACH);
    assert_int_equal(ipoib6_stats(a->ep)->tx_dropped_no_route, 1);
    /* On-link (our /64): resolved directly. */
    addr_of("2001:db8::1234", far);
    len = make_ip6(pkt, a->ll, far, 8);
    assert_int_equal(ipoib_output(a->ep, pkt, len, 1), 0);
    /* r advertises itself as a default router. */
    memcpy(m.src, r->ll, 16);
    ipoib_ip6_all_nodes(m.dst);
    ipoib_own_lladdr(r->ep, &m.slla);
    ra[0] = 0x86, ra[1] = 0xdd, ra[2] = ra[3] = 0;
    len = ipoib_nd_build(&m, ra + 4, sizeof(ra) - 4);
    a->delivered = 0;
    ipoib_input(a->ep, &rx, ra, 4 + len, 2);
    assert_int_equal(a->delivered, 1); /* the host stack gets it too (SLAAC) */
    assert_int_equal(ipoib6_routers(a->ep, routers, 4, 3), 1);
    assert_memory_equal(routers[0], r->ll, 16);
    addr_of("2001:db8:99::1", far);
    len = make_ip6(pkt, a->ll, far, 8);
    r->delivered = 0;
    unsigned nd = (unsigned)ipoib6_stats(a->ep)->tx_nd;
    assert_int_equal(ipoib_output(a->ep, pkt, len, 3), 0);
    /*
     * It reached r's endpoint at once (r known from its RA: no solicitation),
     * which drops it: an endpoint hands its host stack only its own addresses
     * (the switch does not forward).
     */
    assert_int_equal(ipoib6_stats(a->ep)->tx_nd, nd);
    assert_int_equal(ipoib6_stats(r->ep)->rx_dropped_dst, 1);
    assert_int_equal(r->delivered, 0);
    unsigned count = ipoib_neighbours(a->ep, ni, 8);
    bool router_known = false;
    for (unsigned i = 0; i < count && i < 8; i++)
        router_known |= ni[i].v6 && memcmp(ni[i].ip6, r->ll, 16) == 0 && ni[i].resolved;
    assert_true(router_known);
    /* Its lifetime runs out. */
    assert_int_equal(ipoib6_routers(a->ep, routers, 4, 2 + 600 * 1000), 0);
    free_fake(&f);
}

/*
 * A router behind the endpoint (Linux behind TUN): its RA goes out with our
 * option, and the prefix it advertises as on-link is on-link for us too.
 */
static void test_host_router(void **state)
{
    struct fake f = {0};
    struct node *a = up_node(&f, 5), *b = up_node(&f, 9);
    struct ipoib_nd m = {.type = IPOIB_ND_RA, .ra_lifetime = 0, .n_prefix = 1};
    uint8_t ra[256], pkt[256], dst[16];
    size_t len;

    set_addrs(a, false, NULL);
    set_addrs(b, false, NULL);
    memcpy(m.src, a->ll, 16);
    ipoib_ip6_all_nodes(m.dst);
    addr_of("fd00:79::", m.prefix[0].prefix);
    m.prefix[0].len = 64;
    m.prefix[0].flags = IPOIB_ND_PREFIX_ONLINK | IPOIB_ND_PREFIX_AUTO;
    m.prefix[0].valid_lifetime = 3600;
    len = ipoib_nd_build(&m, ra, sizeof(ra));
    b->delivered = 0;
    assert_int_equal(ipoib_output(a->ep, ra, len, 1), 0);
    assert_int_equal(b->delivered, 1); /* b's host stack gets the RA (SLAAC) */
    assert_int_equal(ipoib_nd_parse(b->last_pkt, b->last_len, &m), IPOIB_ND_OK);
    assert_true(m.has_slla);
    assert_int_equal(m.slla.qpn, a->qpn);
    /* A packet to the advertised prefix: resolved directly, not "no route". */
    addr_of("fd00:79::1234", dst);
    len = make_ip6(pkt, a->ll, dst, 8);
    assert_int_equal(ipoib_output(a->ep, pkt, len, 2), 0);
    assert_int_equal(ipoib6_stats(a->ep)->tx_dropped_no_route, 0);
    free_fake(&f);
}

/* A rejoin (ClientReregister): the broadcast group first, then every IPv6 group, then NAs. */
static void test_rejoin(void **state)
{
    struct fake f = {0};
    struct node *a = up_node(&f, 5);
    unsigned joins4, joins6, nd;

    set_addrs(a, false, "2001:db8::1:5");
    joins4 = f.joins4;
    joins6 = f.joins6;
    nd = (unsigned)ipoib6_stats(a->ep)->tx_nd;
    assert_int_equal(joins6, 3); /* all-nodes and two solicited-node groups */
    a->port.reregister++;
    ipoib_port_update(a->ep, &a->port, 100);
    assert_int_equal(f.joins4, joins4 + 1);
    assert_int_equal(f.joins6, joins6 + 3);
    assert_int_equal(ipoib6_stats(a->ep)->tx_nd, nd + 2); /* both addresses announced */
    assert_int_equal(group_of(a, "ff02::1:ff01:5").state, IPOIB_MCAST6_UP);
    free_fake(&f);
}

/* A refused IPv6 join: logged, retried with the backoff; IPv4 stays up. */
static void test_refused_join(void **state)
{
    struct fake f = {.sa_refuse_v6 = 0x0200};
    struct node *a = up_node(&f, 5);

    assert_int_equal(ipoib_state(a->ep), IPOIB_UP);
    assert_int_equal(group_of(a, "ff02::1").state, IPOIB_MCAST6_JOINING);
    assert_int_equal(ipoib6_stats(a->ep)->mcast_join_failures, 1);
    assert_int_equal(ipoib_next_deadline(a->ep), 1000);
    f.sa_refuse_v6 = 0;
    f.now = 1000;
    ipoib_poll(a->ep, 1000);
    assert_int_equal(group_of(a, "ff02::1").state, IPOIB_MCAST6_UP);
    assert_int_equal(f.joins6, 2);
    free_fake(&f);
}

/*
 * IPv6 joins and leaves are transactions of the endpoint's mad_txn layer:
 * an unanswered join is sent again with the same TID after 1, 2, 4 s; a
 * leave 3 times 1 s apart with one TID, then given up; a join still out
 * for a group that goes is ended (no more copies, no leave); every request
 * has a TID of its own (IPv4's join too).
 */
static void test_join_leave_txn(void **state)
{
    struct fake f = {.sa_silent_v6 = true};
    struct node *a = up_node(&f, 5);
    uint8_t g[16];
    uint32_t join_tid, leave_tid;

    assert_int_equal(ipoib_state(a->ep), IPOIB_UP);
    assert_int_equal(f.joins6, 1);
    join_tid = f.last_tid6;
    assert_int_not_equal(join_tid, f.last_tid4);
    assert_int_equal(join_tid >> 24, 5); /* the endpoint's tag */
    assert_int_equal(ipoib_next_deadline(a->ep), 1000);
    f.now = 1000;
    ipoib_poll(a->ep, f.now);
    assert_int_equal(f.joins6, 2);
    assert_int_equal(f.last_tid6, join_tid); /* the copy keeps its TID */
    assert_int_equal(ipoib_next_deadline(a->ep), 3000);
    f.now = 3000;
    ipoib_poll(a->ep, f.now);
    assert_int_equal(f.joins6, 3);
    assert_int_equal(f.last_tid6, join_tid);
    assert_int_equal(ipoib_next_deadline(a->ep), 7000);
    assert_int_equal(ipoib6_stats(a->ep)->mcast_join_failures, 0);
    assert_int_equal(group_of(a, "ff02::1").state, IPOIB_MCAST6_JOINING);
    f.sa_silent_v6 = false;
    f.now = 7000;
    ipoib_poll(a->ep, f.now);
    assert_int_equal(f.joins6, 4);
    assert_int_equal(group_of(a, "ff02::1").state, IPOIB_MCAST6_UP);
    assert_int_equal(ipoib_stats(a->ep)->sa_dropped, 0);

    /* MLD's group joined, then left while the SA is silent: 3 copies of one leave. */
    addr_of("ff02::1:3", g);
    assert_int_equal(ipoib6_join(a->ep, g, f.now), 0);
    assert_int_equal(group_of(a, "ff02::1:3").state, IPOIB_MCAST6_UP);
    f.sa_silent_v6 = true;
    assert_int_equal(ipoib6_leave(a->ep, g, f.now), 0);
    assert_int_equal(f.leaves, 1);
    leave_tid = f.last_tid6;
    assert_int_not_equal(leave_tid, join_tid);
    for (unsigned i = 1; i <= 3; i++) {
        f.now += 1000;
        ipoib_poll(a->ep, f.now);
        assert_int_equal(f.leaves, i < 3 ? i + 1 : 3); /* then given up */
        assert_int_equal(f.last_tid6, leave_tid);
    }
    assert_true(ipoib_next_deadline(a->ep) == UINT64_MAX);
    assert_int_equal(ipoib6_stats(a->ep)->mcast_leaves, 1);

    /* A group that goes while its join is out: the join ends, nothing is left. */
    assert_int_equal(ipoib6_join(a->ep, g, f.now), 0);
    assert_int_equal(f.joins6, 6);
    assert_int_equal(group_of(a, "ff02::1:3").state, IPOIB_MCAST6_JOINING);
    assert_int_equal(ipoib6_leave(a->ep, g, f.now), 0);
    assert_true(ipoib_next_deadline(a->ep) == UINT64_MAX);
    f.now += 20000;
    ipoib_poll(a->ep, f.now);
    assert_int_equal(f.joins6, 6);
    assert_int_equal(f.leaves, 3);
    free_fake(&f);
}

PZT_MAIN(test_groups_and_announce, test_resolve, test_mcast6_counted, test_unresolved, test_dad,
         test_output_filter, test_malformed, test_routing, test_host_router, test_rejoin,
         test_refused_join, test_join_leave_txn)
