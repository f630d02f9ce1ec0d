/*
 * test_fabric_datapath.c - the fabric's datapath through its API, without
 * a subnet manager: the boards are programmed directly (LIDs, port states,
 * LFTs, MFTs, P_Key tables, enforcement bits) and clients send MADs.
 *
 *   S1 [1] H1, [2] H2, [3] S2[3]        LIDs: S1 1, S2 2,
 *   S2 [1] H3, [2] H4, [3] S1[3]              H1 11, H2 12, H3 13, H4 14
 *
 * Checks multicast replication through the MFTs, partition enforcement
 * (inbound, outbound, limited members, SMPs exempt, answers with the
 * request's P_Key), random loss, pulling and plugging cables, the ports'
 * counters and the capture file.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <infiniband/mad.h>

#include "fabric.h"
#include "fabric_bed.h"
#include "fabric_internal.h"
#include "mad_header.h"
#include "pcap.h"
#include "pzt.h"
#include "pzt_main.h"

#define MLID 0xC001
#define MCAST_QP 0xFFFFFF
#define PART1_FULL 0x8001
#define PART2_FULL 0x8002
#define PART2_LIMITED 0x0002
#define PART3_FULL 0x8003
#define DELIVERED_MAX 64

/* What the fabric handed to clients. */
struct delivered {
    unsigned count;
    unsigned client[DELIVERED_MAX];
    struct fabric_mad mad[DELIVERED_MAX];
};

/* The fabric under test and what its clients got. */
struct bed {
    struct fabric *f;
    struct delivered got;
};

/* Record a MAD for a client (fabric_deliver_fn). */
static void record(void *arg, unsigned client, const struct fabric_mad *m)
{
    struct delivered *d = arg;

    if (d->count < DELIVERED_MAX) {
        d->client[d->count] = client;
        d->mad[d->count] = *m;
    }
    d->count++;
}

/* Set P_Key table entries 0..n-1 of (name, port), the rest invalid. */
static void set_pkeys(const struct bed *b, const char *name, unsigned port, const uint16_t *keys,
                      unsigned n)
{
    uint16_t block[BOARD_PKEY_BLOCK] = {0};

    memcpy(block, keys, n * sizeof(*keys));
    assert_int_equal(board_pkey_set(fbed_board(b->f, name), port, 0, block), 0);
}

/* Turn partition enforcement of a switch port on or off. */
static void enforce(const struct bed *b, const char *name, unsigned port, bool in, bool out)
{
    struct board_port_config cfg;

    assert_int_equal(board_port_config_get(fbed_board(b->f, name), port, &cfg), 0);
    cfg.part_enf_inbound = in;
    cfg.part_enf_outbound = out;
    assert_int_equal(board_port_config_set(fbed_board(b->f, name), port, &cfg), 0);
}

/*
 * CA ca's port 1 and the switch port (sw, port) facing it both hold keys[0..n-1];
 * the switch port enforces partitions both ways.
 */
static void ca_partition(const struct bed *b, const char *ca, const char *sw, unsigned port,
                         const uint16_t *keys, unsigned n)
{
    set_pkeys(b, ca, 1, keys, n);
    set_pkeys(b, sw, port, keys, n);
    enforce(b, sw, port, true, true);
}

/* Build the fabric: LIDs, Active links, LFTs, clients 0..3 at H1..H4. */
static int setup(void **state)
{
    static const char *const cas[4] = {"H1", "H2", "H3", "H4"};
    static const uint16_t lids[6] = {1, 2, 11, 12, 13, 14};
    static const uint8_t s1[6] = {0, 3, 1, 2, 3, 3}, s2[6] = {3, 0, 3, 3, 1, 2};
    struct bed *b = calloc(1, sizeof(*b));

    assert_non_null(b);
    b->f = fbed_2s4h_routed(lids, s1, s2, 6);
    fabric_set_deliver(b->f, record, &b->got);
    for (unsigned i = 0; i < 4; i++)
        assert_int_equal(fabric_client_attach(b->f, i, fbed_node(b->f, cas[i]), false), 0);
    *state = b;
    return 0;
}

/* A MAD of class mgmt_class/method from client to dlid, QP dqp, len bytes (0: 256). */
static void send_mad_len(struct bed *b, unsigned client, unsigned mgmt_class, unsigned method,
                         uint16_t dlid, uint32_t dqp, uint64_t tid, uint16_t len)
{
    struct fabric_mad m;

    memset(&m, 0, sizeof(m));
    mad_header_init(m.mad, mgmt_class, mgmt_class == IB_SA_CLASS ? 2 : 1, method, tid, 0x10, 0);
    m.dlid = dlid;
    m.dqp = dqp;
    m.sqp = dqp == 0 ? 0 : 1;
    m.len = len;
    assert_int_equal(fabric_client_send(b->f, client, &m), 0);
}

/* A MAD of class mgmt_class/method from client to dlid, QP dqp (256 bytes). */
static void send_mad(struct bed *b, unsigned client, unsigned mgmt_class, unsigned method,
                     uint16_t dlid, uint32_t dqp, uint64_t tid)
{
    send_mad_len(b, client, mgmt_class, method, dlid, dqp, tid, 0);
}

/* The fabric's counters now. */
static struct fabric_stats stats(const struct bed *b)
{
    struct fabric_stats st;

    fabric_get_stats(b->f, &st);
    return st;
}

/* Program MLID in the MFTs: S1 to H1, H2, S2; S2 to H3, S1 (+ port 0 if s2_port0). */
static void program_mft(const struct bed *b, bool s2_port0)
{
    uint16_t masks[BOARD_MFT_BLOCK] = {0};

    masks[MLID - 0xC000] = 1u << 1 | 1u << 2 | 1u << 3;
    assert_int_equal(board_mft_set(fbed_board(b->f, "S1"), 0, 0, masks), 0);
    masks[MLID - 0xC000] = (uint16_t)(1u << 1 | 1u << 3 | (s2_port0 ? 1u : 0u));
    assert_int_equal(board_mft_set(fbed_board(b->f, "S2"), 0, 0, masks), 0);
}

/* A multicast packet from H1 reaches H2 and H3 once each, not H4, not H1 again. */
static void test_multicast_replication(void **state)
{
    struct bed *b = *state;

    program_mft(b, false);
    send_mad(b, 0, IB_VENDOR_RANGE1_START_CLASS, IB_MAD_METHOD_SEND, MLID, MCAST_QP, 1);
    assert_int_equal(stats(b).mcast_delivered, 2);
    assert_int_equal(FBED_COUNTER(b->f, "H1", 1, multicast_xmit_pkts), 1);
    assert_int_equal(FBED_COUNTER(b->f, "H1", 1, multicast_rcv_pkts), 0);
    assert_int_equal(FBED_COUNTER(b->f, "H2", 1, multicast_rcv_pkts), 1);
    assert_int_equal(FBED_COUNTER(b->f, "H3", 1, multicast_rcv_pkts), 1);
    assert_int_equal(FBED_COUNTER(b->f, "H4", 1, multicast_rcv_pkts), 0);
    assert_int_equal(FBED_COUNTER(b->f, "S1", 3, multicast_xmit_pkts), 1);
    assert_int_equal(FBED_COUNTER(b->f, "S2", 3, multicast_xmit_pkts), 0); /* not back to S1 */
    assert_int_equal(b->got.count, 0); /* no umad client gets multicast */
}

/* A port-0 bit delivers a copy to the switch itself; an MLID without ports is dropped. */
static void test_multicast_port0_and_empty(void **state)
{
    struct bed *b = *state;
    uint64_t dropped;

    program_mft(b, true);
    send_mad(b, 2, IB_VENDOR_RANGE1_START_CLASS, IB_MAD_METHOD_SEND, MLID, MCAST_QP, 2);
    /* From H3: S2 port 0 and S1 (then H1, H2). */
    assert_int_equal(stats(b).mcast_delivered, 3);
    assert_int_equal(FBED_COUNTER(b->f, "H3", 1, multicast_rcv_pkts), 0);
    dropped = stats(b).dropped;
    send_mad(b, 0, IB_VENDOR_RANGE1_START_CLASS, IB_MAD_METHOD_SEND, MLID + 1, MCAST_QP, 3);
    assert_int_equal(stats(b).mcast_delivered, 3);
    assert_int_equal(stats(b).dropped, dropped + 1);
    /* SMPs must not be multicast. */
    send_mad(b, 0, IB_SMI_CLASS, IB_MAD_METHOD_GET, MLID, 0, 4);
    assert_int_equal(stats(b).mcast_delivered, 3);
}

/* The match rules: low 15 bits, membership. */
static void test_pkey_match_rules(void **state)
{
    (void)state;
    assert_true(fabric_pkey_match_inbound(0x8001, 0x8001));
    assert_true(fabric_pkey_match_inbound(0x0001, 0x8001));
    assert_true(fabric_pkey_match_inbound(0x0001, 0x0001));  /* a limited member may send */
    assert_false(fabric_pkey_match_inbound(0x8001, 0x0001)); /* ... but not as a full one */
    assert_false(fabric_pkey_match_inbound(0x8001, 0x8002));
    assert_false(fabric_pkey_match_inbound(0x8000, 0x8000)); /* invalid P_Key */
    assert_true(fabric_pkey_match_outbound(0x8001, 0x0001));
    assert_true(fabric_pkey_match_outbound(0x0001, 0x8001));
    assert_false(fabric_pkey_match_outbound(0x0001, 0x0001)); /* two limited members */
    assert_false(fabric_pkey_match_outbound(0x0000, 0x0000));
}

/* H1 in partition 1 cannot reach H3 (partition 2): dropped leaving S2 towards H3. */
static void test_pkey_outbound_drop(void **state)
{
    struct bed *b = *state;
    const uint16_t h1[] = {PART1_FULL}, h3[] = {PART2_FULL};

    ca_partition(b, "H1", "S1", 1, h1, 1);
    ca_partition(b, "H3", "S2", 1, h3, 1);
    send_mad(b, 0, IB_PERFORMANCE_CLASS, IB_MAD_METHOD_GET, 13, 1, 10);
    assert_int_equal(stats(b).pkey_dropped, 1);
    assert_int_equal(FBED_COUNTER(b->f, "S2", 1, xmit_constraint_errors), 1);
    assert_int_equal(FBED_COUNTER(b->f, "S1", 1, rcv_constraint_errors), 0);
    assert_int_equal(FBED_COUNTER(b->f, "H3", 1, rcv_pkts), 0);
    /* The request comes back to H1's client as timed out. */
    assert_int_equal(b->got.count, 1);
    assert_int_equal(b->got.client[0], 0);
    assert_int_equal(b->got.mad[0].status, FABRIC_STATUS_TIMEOUT);
    /* The same from H2 (default partition, no enforcement at S1[2]): dropped at S2[1] too. */
    send_mad(b, 1, IB_PERFORMANCE_CLASS, IB_MAD_METHOD_GET, 13, 1, 11);
    assert_int_equal(FBED_COUNTER(b->f, "S2", 1, xmit_constraint_errors), 2);
    /* SMPs are exempt: an LID-routed SMP from H1 to S2 gets its answer. */
    send_mad(b, 0, IB_SMI_CLASS, IB_MAD_METHOD_GET, 2, 0, 12);
    assert_int_equal(stats(b).pkey_dropped, 2);
    assert_int_equal(b->got.count, 3);
    assert_int_equal(b->got.mad[2].status, 0);
}

/* A P_Key the ingress port does not have is dropped entering the switch. */
static void test_pkey_inbound_drop(void **state)
{
    struct bed *b = *state;
    const uint16_t h1[] = {PART1_FULL}, s1[] = {PART3_FULL};

    set_pkeys(b, "H1", 1, h1, 1);
    set_pkeys(b, "S1", 1, s1, 1);
    enforce(b, "S1", 1, true, false);
    send_mad(b, 0, IB_PERFORMANCE_CLASS, IB_MAD_METHOD_GET, 12, 1, 20);
    assert_int_equal(FBED_COUNTER(b->f, "S1", 1, rcv_constraint_errors), 1);
    assert_int_equal(FBED_COUNTER(b->f, "H2", 1, rcv_pkts), 0);
    /* Without enforcement it passes. */
    enforce(b, "S1", 1, false, false);
    send_mad(b, 0, IB_PERFORMANCE_CLASS, IB_MAD_METHOD_GET, 12, 1, 21);
    assert_int_equal(FBED_COUNTER(b->f, "H2", 1, rcv_pkts), 1);
    assert_int_equal(stats(b).pkey_dropped, 1);
}

/* Two limited members cannot talk; a full member can talk to a limited one. */
static void test_pkey_limited_members(void **state)
{
    struct bed *b = *state;
    const uint16_t limited[] = {PART2_LIMITED}, full[] = {PART2_FULL};

    ca_partition(b, "H3", "S2", 1, limited, 1);
    ca_partition(b, "H4", "S2", 2, limited, 1);
    send_mad(b, 3, IB_PERFORMANCE_CLASS, IB_MAD_METHOD_GET, 13, 1, 30);
    assert_int_equal(FBED_COUNTER(b->f, "S2", 2, rcv_constraint_errors), 0); /* may send */
    assert_int_equal(FBED_COUNTER(b->f, "S2", 1, xmit_constraint_errors),
                     1); /* not to a limited one */
    ca_partition(b, "H3", "S2", 1, full, 1);
    send_mad(b, 3, IB_PERFORMANCE_CLASS, IB_MAD_METHOD_GET, 13, 1, 31);
    assert_int_equal(FBED_COUNTER(b->f, "S2", 1, xmit_constraint_errors), 1);
    assert_int_equal(FBED_COUNTER(b->f, "H3", 1, rcv_pkts), 1);
}

/* An answer carries the request's P_Key, not the answering port's entry 0. */
static void test_pkey_answer_uses_request_pkey(void **state)
{
    struct bed *b = *state;
    const uint16_t h1[] = {PART1_FULL}, h3[] = {PART2_FULL, PART1_FULL};

    ca_partition(b, "H1", "S1", 1, h1, 1);
    ca_partition(b, "H3", "S2", 1, h3, 2);
    assert_int_equal(fabric_client_set_issm(b->f, 2, true), 0); /* H3 takes SA requests */
    b->got.count = 0;
    send_mad(b, 0, IB_SA_CLASS, IB_MAD_METHOD_GET, 13, 1, 40);
    assert_int_equal(b->got.count, 1);
    assert_int_equal(b->got.client[0], 2);
    send_mad(b, 2, IB_SA_CLASS, IB_MAD_METHOD_GET | 0x80, 11, 1, 40);
    assert_int_equal(b->got.count, 2);
    assert_int_equal(b->got.client[1], 0); /* 0x8001, as asked; 0x8002 would be dropped */
    assert_int_equal(stats(b).pkey_dropped, 0);
    /* An unsolicited SA "answer" from H3 carries its entry 0 (0x8002): dropped at S1[1]. */
    send_mad(b, 2, IB_SA_CLASS, IB_MAD_METHOD_GET | 0x80, 11, 1, 41);
    assert_int_equal(stats(b).pkey_dropped, 1);
    assert_int_equal(FBED_COUNTER(b->f, "S1", 1, xmit_constraint_errors), 1);
}

/*
 * An external switch's agent may ask the SA too (the IP plane joins and
 * resolves): its LID-routed request reaches the SM's client, and the answer
 * comes back to the agent; its answers and traps keep the agent's path.
 */
static void test_agent_own_requests(void **state)
{
    struct bed *b = *state;
    size_t s2 = fbed_node(b->f, "S2");

    assert_int_equal(fabric_client_attach(b->f, 4, s2, false), 0);
    assert_int_equal(fabric_agent_attach(b->f, s2, 4), 0);
    assert_int_equal(fabric_client_set_issm(b->f, 0, true), 0); /* H1: the SM and SA */
    b->got.count = 0;
    send_mad(b, 4, IB_SA_CLASS, IB_MAD_METHOD_SET, 11, 1, 0x5A00000001ull); /* a join */
    assert_int_equal(b->got.count, 1);
    assert_int_equal(b->got.client[0], 0);
    assert_int_equal(b->got.mad[0].slid, 2); /* from S2's port 0 */
    send_mad(b, 0, IB_SA_CLASS, IB_MAD_METHOD_GET | 0x80, 2, 1, 0x5A00000001ull);
    assert_int_equal(b->got.count, 2);
    assert_int_equal(b->got.client[1], 4); /* the answer reaches the agent */
    assert_true(mad_get_field64(b->got.mad[1].mad, 0, IB_MAD_TRID_F) == 0x5A00000001ull);
    /* A trap of the agent's (a notice) still goes out as the agent's, unanswered. */
    send_mad(b, 4, IB_SMI_CLASS, IB_MAD_METHOD_TRAP, 11, 0, 0x5A00000002ull);
    assert_int_equal(b->got.count, 3);
    assert_int_equal(b->got.client[2], 0);
    assert_int_equal(stats(b).timeouts, 0);
}

/* Monotonic time in ns (the clock of the fabric's deadlines). */
static uint64_t mono_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A PMA Get from client to dlid whose client waits timeout_ms (0: does not say). */
static void send_timed(struct bed *b, unsigned client, uint16_t dlid, uint64_t tid,
                       uint32_t timeout_ms)
{
    struct fabric_mad m;

    memset(&m, 0, sizeof(m));
    mad_header_init(m.mad, IB_PERFORMANCE_CLASS, 1, IB_MAD_METHOD_GET, tid, 0x12, 0);
    m.dlid = dlid;
    m.dqp = 1;
    m.sqp = 1;
    m.timeout_ms = timeout_ms;
    assert_int_equal(fabric_client_send(b->f, client, &m), 0);
}

/*
 * A request handed to an external agent waits its own client's timeout: a
 * 100 ms one sent after a 3000 ms one is due first; once answered, the
 * other is; a client that does not say gets the 1 s default.
 */
static void test_agent_request_deadlines(void **state)
{
    struct bed *b = *state;
    size_t s2 = fbed_node(b->f, "S2");
    uint64_t t0, t1, d;

    assert_int_equal(fabric_client_attach(b->f, 4, s2, false), 0);
    assert_int_equal(fabric_agent_attach(b->f, s2, 4), 0);
    b->got.count = 0;
    t0 = mono_ns();
    send_timed(b, 0, 2, 0x7100000001ull, 3000);
    send_timed(b, 0, 2, 0x7100000002ull, 100);
    t1 = mono_ns();
    assert_int_equal(b->got.count, 2); /* both handed to the agent, none timed out */
    assert_int_equal(b->got.client[0], 4);
    d = fabric_agent_next_deadline(b->f);
    assert_true(d >= t0 + 100000000u && d <= t1 + 100000000u);
    /* The agent answers the short one: the long one is due next. */
    send_mad(b, 4, IB_PERFORMANCE_CLASS, IB_MAD_METHOD_GET_RESPONSE, 11, 1, 0x7100000002ull);
    assert_int_equal(b->got.client[2], 0);
    d = fabric_agent_next_deadline(b->f);
    assert_true(d >= t0 + 3000000000ull && d <= t1 + 3000000000ull);
    send_mad(b, 4, IB_PERFORMANCE_CLASS, IB_MAD_METHOD_GET_RESPONSE, 11, 1, 0x7100000001ull);
    assert_true(fabric_agent_next_deadline(b->f) == UINT64_MAX);
    /* No timeout given: FABRIC_AGENT_TIMEOUT_NS. */
    t0 = mono_ns();
    send_timed(b, 0, 2, 0x7100000003ull, 0);
    t1 = mono_ns();
    d = fabric_agent_next_deadline(b->f);
    assert_true(d >= t0 + FABRIC_AGENT_TIMEOUT_NS && d <= t1 + FABRIC_AGENT_TIMEOUT_NS);
    assert_int_equal(stats(b).timeouts, 0);
}

/* The deferred heap hands entries back in deadline order, whatever was taken out between. */
static void test_deferred_heap_order(void **state)
{
    struct fabric_deferred_heap h = {0};
    struct fabric_deferred d = {0}, out;
    uint64_t x = 88172645463325252ull, last = 0;
    unsigned n = 0;

    (void)state;
    for (unsigned i = 0; i < 1000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
        d.deadline_ns = x % 5000;
        d.tid = i;
        d.client = i % 3;
        assert_int_equal(fabric_deferred_add(&h, &d), 0);
    }
    for (unsigned i = 0; i < 1000; i += 7) { /* answered out of order */
        long k = fabric_deferred_find(&h, (long)(i % 3), i);

        assert_true(k >= 0);
        fabric_deferred_remove(&h, (size_t)k, NULL);
    }
    fabric_deferred_drop_client(&h, 2); /* a client left */
    while (h.len) {
        fabric_deferred_remove(&h, 0, &out);
        assert_true(out.deadline_ns >= last);
        assert_true(out.tid % 7 != 0 && out.client != 2);
        last = out.deadline_ns;
        n++;
    }
    assert_int_equal(n, 571); /* i % 7 != 0 and i % 3 != 2 */
    fabric_deferred_free(&h);
}

/*
 * A MAD reaches its client with the length its sender gave (an SA answer's
 * records end there); the SMA's own answers are whole MADs.
 */
static void test_length_kept(void **state)
{
    struct bed *b = *state;

    assert_int_equal(fabric_client_set_issm(b->f, 2, true), 0); /* H3 takes SA requests */
    b->got.count = 0;
    send_mad_len(b, 0, IB_SA_CLASS, IB_MAD_METHOD_GET, 13, 1, 50, 56);
    assert_int_equal(b->got.count, 1);
    assert_int_equal(b->got.client[0], 2);
    assert_int_equal(b->got.mad[0].len, 56);
    send_mad_len(b, 2, IB_SA_CLASS, IB_MAD_METHOD_GET | 0x80, 11, 1, 50, 56 + 2 * 64);
    assert_int_equal(b->got.count, 2);
    assert_int_equal(b->got.client[1], 0);
    assert_int_equal(b->got.mad[1].len, 56 + 2 * 64);
    send_mad_len(b, 0, IB_SMI_CLASS, IB_MAD_METHOD_GET, 11, 0, 51, 64);
    assert_int_equal(b->got.count, 3);
    assert_int_equal(b->got.client[2], 0);
    assert_true(b->got.mad[2].len == 0 || b->got.mad[2].len == FABRIC_MAD_SIZE);
}

/* Width, speed and extended speed active at (name, port). */
static void assert_modes(const struct fabric *f, const char *name, unsigned port, unsigned width,
                         unsigned speed, unsigned speed_ext)
{
    struct board_port_status st;

    assert_int_equal(board_port_status(fbed_board(f, name), port, &st), 0);
    assert_int_equal(st.width_active, width);
    assert_int_equal(st.speed_active, speed);
    assert_int_equal(st.speed_ext_active, speed_ext);
}

/*
 * A link trains to the best mode both ends enable (as ibsim's links): one
 * end's w=1 or annotation makes both ends 1x; a port that never trained
 * reports 4x SDR; a link that goes down keeps its modes.
 */
static void test_link_modes(void **state)
{
    static const char text[] = "Switch 4 \"S\"\n"
                               "[1] \"A\"[1] w=1\n"
                               "[2] \"B\"[1] # \"B\" lid 3 4xQDR\n"
                               "[3] \"C\"[1]\n"
                               "Hca 1 \"A\"\n[1] \"S\"[1]\n"
                               "Hca 1 \"B\"\n[1] \"S\"[2] e=1\n"
                               "Hca 1 \"C\"\n[1] \"S\"[3] s=3 e=0\n";
    char err[TOPO_ERR_MAX];
    struct topo *t = topo_parse(text, sizeof(text) - 1, "modes", err);
    struct fabric *f;

    (void)state;
    assert_non_null(t);
    f = fabric_create(t, 0);
    topo_free(t);
    assert_non_null(f);
    assert_modes(f, "S", 1, 0x1, 0x4, 0x2); /* 1x at its end: 1x, QDR + EDR */
    assert_modes(f, "A", 1, 0x1, 0x4, 0x2);
    assert_modes(f, "S", 2, 0x2, 0x4, 0x0); /* 4xQDR at one end, FDR only at the other */
    assert_modes(f, "B", 1, 0x2, 0x4, 0x0);
    assert_modes(f, "S", 3, 0x2, 0x2, 0x0); /* DDR, no extended speed */
    assert_modes(f, "C", 1, 0x2, 0x2, 0x0);
    assert_modes(f, "S", 4, 0x2, 0x1, 0x0); /* never trained: 4x SDR */
    assert_int_equal(fabric_link_set(f, fbed_node(f, "C"), 1, false), 0);
    assert_modes(f, "S", 3, 0x2, 0x2, 0x0); /* down: its last modes */
    fabric_destroy(f);
}

/* 100% loss loses everything (the sender times out); a seeded 50% about half. */
static void test_drop_rate(void **state)
{
    struct bed *b = *state;
    uint64_t lost;

    assert_int_equal(fabric_set_drop_rate(b->f, FABRIC_PPM + 1, 0), -EINVAL);
    assert_int_equal(fabric_set_drop_rate(b->f, FABRIC_PPM, 0), 0);
    send_mad(b, 0, IB_PERFORMANCE_CLASS, IB_MAD_METHOD_GET, 12, 1, 50);
    assert_int_equal(stats(b).lost, 1);
    assert_int_equal(FBED_COUNTER(b->f, "H1", 1, xmit_pkts), 1);
    assert_int_equal(FBED_COUNTER(b->f, "S1", 1, rcv_errors), 1);
    assert_int_equal(b->got.mad[0].status, FABRIC_STATUS_TIMEOUT);
    assert_int_equal(fabric_set_drop_rate(b->f, FABRIC_PPM / 2, 12345), 0);
    assert_int_equal(fabric_drop_rate(b->f), FABRIC_PPM / 2);
    for (int i = 0; i < 200; i++)
        send_mad(b, 0, IB_VENDOR_RANGE1_START_CLASS, IB_MAD_METHOD_SEND, 11 + 1, 1, 100 + i);
    lost = stats(b).lost - 1;
    /* Each send crosses two links until lost: expect about 150 of 200 lost. */
    assert_true(lost > 100 && lost < 190);
    assert_int_equal(fabric_set_drop_rate(b->f, 0, 0), 0);
    lost = stats(b).lost;
    send_mad(b, 0, IB_VENDOR_RANGE1_START_CLASS, IB_MAD_METHOD_SEND, 12, 1, 400);
    assert_int_equal(stats(b).lost, lost);
}

/* SwitchInfo.PortStateChange of switch name (after clearing it first if clear). */
static unsigned port_state_change(const struct bed *b, const char *name, bool clear)
{
    struct sma *sma = node_sma(b->f->nodes[fbed_node(b->f, name)].node);
    struct mad_addr in = {.port = 0}, out_addr;
    uint8_t mad[PZT_MAD], out[PZT_MAD], si[64];
    const uint8_t path[1] = {0};

    assert_int_equal(sma_local_get(sma, 0, IB_ATTR_SWITCH_INFO, 0, si), 0);
    if (clear && mad_get_field(si, 0, IB_SW_STATE_CHANGE_F)) {
        /* A Set with PortStateChange 1 clears it (write 1 to clear), as OpenSM does. */
        pzt_dr_smp(mad, IB_MAD_METHOD_SET, IB_ATTR_SWITCH_INFO, 0, 0, 77, 0, 0, path, 0xFFFF,
                   0xFFFF);
        memcpy(mad + 64, si, sizeof(si));
        assert_int_equal(sma_process(sma, &in, mad, sizeof(mad), &out_addr, out), MAD_SEND);
        assert_int_equal(sma_local_get(sma, 0, IB_ATTR_SWITCH_INFO, 0, si), 0);
    }
    return mad_get_field(si, 0, IB_SW_STATE_CHANGE_F);
}

/* Pulling a cable takes both ends down and sets the switch's PortStateChange. */
static void test_link_pull_and_plug(void **state)
{
    struct bed *b = *state;
    struct board_port_status st;
    size_t peer;
    unsigned peer_port;

    assert_int_equal(port_state_change(b, "S1", true), 0);
    assert_int_equal(fabric_link_set(b->f, fbed_node(b->f, "S1"), 4, false), -ENOTCONN);
    assert_int_equal(fabric_link_set(b->f, fbed_node(b->f, "S1"), 9, false), -EINVAL);
    assert_int_equal(fabric_link_set(b->f, fbed_node(b->f, "H1"), 0, false), -EINVAL);
    assert_int_equal(fabric_link_get(b->f, fbed_node(b->f, "S1"), 1, &peer, &peer_port),
                     FABRIC_LINK_UP);
    assert_int_equal(peer, fbed_node(b->f, "H1"));
    assert_int_equal(peer_port, 1);
    assert_int_equal(fabric_link_set(b->f, fbed_node(b->f, "H1"), 1, false), 0);
    assert_int_equal(fabric_link_set(b->f, fbed_node(b->f, "S1"), 1, false), -EALREADY);
    assert_int_equal(fabric_link_get(b->f, fbed_node(b->f, "S1"), 1, NULL, NULL),
                     FABRIC_LINK_UNPLUGGED);
    board_port_status(fbed_board(b->f, "S1"), 1, &st);
    assert_int_equal(st.port_state, BOARD_PORT_DOWN);
    assert_int_equal(st.phys_state, BOARD_PHYS_POLLING);
    board_port_status(fbed_board(b->f, "H1"), 1, &st);
    assert_int_equal(st.port_state, BOARD_PORT_DOWN);
    assert_int_equal(FBED_COUNTER(b->f, "H1", 1, link_downed), 1);
    assert_int_equal(port_state_change(b, "S1", false), 1);
    /* Nothing crosses it; the sender times out. */
    send_mad(b, 0, IB_PERFORMANCE_CLASS, IB_MAD_METHOD_GET, 12, 1, 60);
    assert_int_equal(b->got.mad[b->got.count - 1].status, FABRIC_STATUS_TIMEOUT);
    /* Plugged back: both ends retrain to Init (LinkUp). */
    assert_int_equal(fabric_link_set(b->f, fbed_node(b->f, "S1"), 1, true), 0);
    assert_int_equal(fabric_link_get(b->f, fbed_node(b->f, "H1"), 1, NULL, NULL), FABRIC_LINK_UP);
    board_port_status(fbed_board(b->f, "H1"), 1, &st);
    assert_int_equal(st.port_state, BOARD_PORT_INIT);
    assert_int_equal(st.phys_state, BOARD_PHYS_LINKUP);
    board_port_status(fbed_board(b->f, "S1"), 1, &st);
    assert_int_equal(st.port_state, BOARD_PORT_INIT);
    assert_int_equal(port_state_change(b, "S1", true), 0);
    assert_int_equal(fabric_link_set(b->f, fbed_node(b->f, "S1"), 1, false), 0);
    assert_int_equal(fabric_link_set(b->f, fbed_node(b->f, "S1"), 1, true), 0);
    assert_int_equal(port_state_change(b, "S1", false), 1);
}

/* The capture holds one record per link traversal. */
static void test_capture(void **state)
{
    struct bed *b = *state;
    char path[] = "/tmp/test_fabric_datapath.XXXXXX";
    int fd = mkstemp(path);
    struct pz_pcap *cap;
    unsigned long long packets;
    const char *name;
    FILE *fp;
    long size;

    assert_true(fd >= 0);
    close(fd);
    cap = pz_pcap_open(path, NULL, 0);
    assert_non_null(cap);
    assert_false(fabric_capture(b->f, &name, &packets));
    fabric_set_capture(b->f, cap, path);
    /* H1 - S1 - S2 - H3, and H3's PMA answers back the same way: 6 traversals. */
    send_mad(b, 0, IB_PERFORMANCE_CLASS, IB_MAD_METHOD_GET, 13, 1, 70);
    assert_true(fabric_capture(b->f, &name, &packets));
    assert_string_equal(name, path);
    assert_int_equal(packets, 6);
    assert_int_equal(stats(b).hops, 6);
    fabric_set_capture(b->f, NULL, NULL);
    assert_int_equal(pz_pcap_close(cap), 0);
    fp = fopen(path, "rb");
    assert_non_null(fp);
    fseek(fp, 0, SEEK_END);
    size = ftell(fp);
    fclose(fp);
    unlink(path);
    assert_int_equal(size, 24 + 6 * (16 + 290));
}

PZT_MAIN_SETUP(setup, fbed_teardown, test_multicast_replication, test_multicast_port0_and_empty,
               test_pkey_match_rules, test_pkey_outbound_drop, test_pkey_inbound_drop,
               test_pkey_limited_members, test_pkey_answer_uses_request_pkey, test_length_kept,
               test_agent_own_requests, test_agent_request_deadlines, test_deferred_heap_order,
               test_link_modes, test_drop_rate, test_link_pull_and_plug, test_capture)
