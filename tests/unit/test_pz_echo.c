/*
 * test_pz_echo.c - the switch-to-switch echo service (traffic/pz_echo.c) on
 * board_mem's in-memory datagram QP: the header codec and its errors, a
 * request answered byte for byte to its sender (SL, P_Key, QP, Q_Key, a GRH
 * with its GIDs swapped), malformed datagrams counted and never answered,
 * the per-wake budget, and ping runs between two boards (sequence numbers,
 * round trip from the manual clock, duplicates and corrupted replies as
 * strays, refused sends).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "board_mem.h"
#include "pz_echo.h"

#define QKEY 0x505a0001u
#define PEER_LID 7
#define PEER_QP 0x000123u

/* A switch with its datagram QP open and the service on it. */
struct node {
    struct board_mem *bm;
    struct pz_echo *e;
};

/* Make a node with LID lid (port 0). */
static void node_init(struct node *n, uint64_t guid, uint16_t lid)
{
    struct board_identity id;
    uint32_t qpn = 0;

    board_mem_default_switch_identity(&id, guid, 4);
    n->bm = board_mem_create(&id);
    assert_non_null(n->bm);
    board_mem_use_manual_clock(n->bm, 1000000);
    assert_int_equal(board_set_lid(board_mem_board(n->bm), 0, lid, 0), 0);
    assert_int_equal(board_dgram_open(board_mem_board(n->bm), QKEY, &qpn), 0);
    assert_int_equal(qpn, BOARD_MEM_DGRAM_QPN);
    n->e = pz_echo_create(board_mem_board(n->bm), QKEY);
    assert_non_null(n->e);
}

static void node_fini(struct node *n)
{
    pz_echo_destroy(n->e);
    board_mem_destroy(n->bm);
}

/* A request of len bytes: header, then byte i = i ^ 0x5A. */
static size_t make_request(uint8_t *buf, size_t len, uint32_t seq, uint64_t ts)
{
    struct pz_echo_hdr h = {.type = PZ_ECHO_REQUEST, .seq = seq, .ts_ns = ts};

    assert_int_equal(pz_echo_encode(buf, len, &h), PZ_ECHO_HDR_LEN);
    for (size_t i = PZ_ECHO_HDR_LEN; i < len; i++)
        buf[i] = (uint8_t)(i ^ 0x5A);
    return len;
}

/* The address a request from the peer arrives with. */
static struct board_dgram_addr from_peer(void)
{
    struct board_dgram_addr a = {.dlid = 1,
                                 .slid = PEER_LID,
                                 .sl = 3,
                                 .pkey = 0x8001,
                                 .src_qp = PEER_QP,
                                 .dst_qp = BOARD_MEM_DGRAM_QPN,
                                 .qkey = QKEY};
    return a;
}

static void test_codec(void **state)
{
    uint8_t buf[64];
    struct pz_echo_hdr h = {.type = PZ_ECHO_REPLY, .seq = 0xA1B2C3D4, .ts_ns = 0x0102030405060708};
    struct pz_echo_hdr d;
    static const uint8_t want[PZ_ECHO_HDR_LEN] = {'P',  'Z',  'E', 'C', 1, 2, 0, 0, 0xA1, 0xB2,
                                                  0xC3, 0xD4, 1,   2,   3, 4, 5, 6, 7,    8};

    assert_int_equal(pz_echo_encode(buf, 19, &h), 0);
    assert_int_equal(pz_echo_encode(buf, sizeof(buf), &h), PZ_ECHO_HDR_LEN);
    assert_memory_equal(buf, want, sizeof(want));
    assert_int_equal(pz_echo_decode(buf, PZ_ECHO_HDR_LEN, &d), PZ_ECHO_OK);
    assert_int_equal(d.type, PZ_ECHO_REPLY);
    assert_int_equal(d.seq, 0xA1B2C3D4);
    assert_true(d.ts_ns == 0x0102030405060708ull);
    buf[6] = 0xFF; /* flags are ignored */
    assert_int_equal(pz_echo_decode(buf, sizeof(buf), &d), PZ_ECHO_OK);
    assert_int_equal(pz_echo_decode(buf, PZ_ECHO_HDR_LEN - 1, &d), PZ_ECHO_SHORT);
    assert_int_equal(pz_echo_decode(NULL, 0, &d), PZ_ECHO_SHORT);
    buf[5] = 3;
    assert_int_equal(pz_echo_decode(buf, sizeof(buf), &d), PZ_ECHO_BAD_TYPE);
    buf[5] = 0;
    assert_int_equal(pz_echo_decode(buf, sizeof(buf), &d), PZ_ECHO_BAD_TYPE);
    buf[4] = 2;
    assert_int_equal(pz_echo_decode(buf, sizeof(buf), &d), PZ_ECHO_BAD_VERSION);
    buf[0] = 'Q';
    assert_int_equal(pz_echo_decode(buf, sizeof(buf), &d), PZ_ECHO_BAD_MAGIC);
}

static void test_request_answered(void **state)
{
    struct node n;
    uint8_t req[300], got[BOARD_DGRAM_MAX_PAYLOAD];
    struct board_dgram_addr a = from_peer(), to;
    struct pz_echo_stats st;

    node_init(&n, 0x1111, 1);
    make_request(req, sizeof(req), 42, 0x123456789);
    assert_int_equal(board_mem_dgram_deliver(n.bm, &a, req, sizeof(req)), 0);
    assert_int_equal(pz_echo_poll(n.e, 64), 1);
    assert_int_equal(board_mem_dgram_pop_sent(n.bm, &to, got, sizeof(got)), (int)sizeof(req));
    assert_int_equal(got[5], PZ_ECHO_REPLY);
    got[5] = PZ_ECHO_REQUEST;
    assert_memory_equal(got, req, sizeof(req)); /* everything else unchanged */
    assert_int_equal(to.dlid, PEER_LID);
    assert_int_equal(to.slid, 1);
    assert_int_equal(to.dst_qp, PEER_QP);
    assert_int_equal(to.src_qp, BOARD_MEM_DGRAM_QPN);
    assert_int_equal(to.sl, 3);
    assert_int_equal(to.pkey, 0x8001);
    assert_int_equal(to.qkey, QKEY);
    assert_false(to.has_grh);
    assert_int_equal(board_mem_dgram_pop_sent(n.bm, &to, got, sizeof(got)), -EAGAIN);
    pz_echo_stats(n.e, &st);
    assert_int_equal(st.received, 1);
    assert_int_equal(st.requests, 1);
    assert_int_equal(st.replies_sent, 1);
    assert_int_equal(st.malformed, 0);
    /* Nothing waiting: nothing taken. */
    assert_int_equal(pz_echo_poll(n.e, 64), 0);
    node_fini(&n);
}

static void test_grh_swapped(void **state)
{
    struct node n;
    uint8_t req[PZ_ECHO_HDR_LEN], got[64];
    struct board_dgram_addr a = from_peer(), to;

    node_init(&n, 0x1111, 1);
    a.has_grh = true;
    for (unsigned i = 0; i < BOARD_DGRAM_GRH_LEN; i++)
        a.grh[i] = (uint8_t)i;
    make_request(req, sizeof(req), 1, 0);
    assert_int_equal(board_mem_dgram_deliver(n.bm, &a, req, sizeof(req)), 0);
    assert_int_equal(pz_echo_poll(n.e, 64), 1);
    assert_int_equal(board_mem_dgram_pop_sent(n.bm, &to, got, sizeof(got)), PZ_ECHO_HDR_LEN);
    assert_true(to.has_grh);
    assert_memory_equal(to.grh, a.grh, 8);
    assert_memory_equal(to.grh + 8, a.grh + 24, 16);
    assert_memory_equal(to.grh + 24, a.grh + 8, 16);
    node_fini(&n);
}

static void test_malformed_dropped(void **state)
{
    struct node n;
    uint8_t req[64], bad[64], got[64];
    struct board_dgram_addr a = from_peer(), to;
    struct pz_echo_stats st;

    node_init(&n, 0x1111, 1);
    make_request(req, sizeof(req), 5, 0);
    /* Short, empty, bad magic, bad version, bad type, and a reply nobody asked for. */
    assert_int_equal(board_mem_dgram_deliver(n.bm, &a, req, PZ_ECHO_HDR_LEN - 1), 0);
    assert_int_equal(board_mem_dgram_deliver(n.bm, &a, NULL, 0), 0);
    memcpy(bad, req, sizeof(bad));
    bad[3] = 'X';
    assert_int_equal(board_mem_dgram_deliver(n.bm, &a, bad, sizeof(bad)), 0);
    memcpy(bad, req, sizeof(bad));
    bad[4] = 9;
    assert_int_equal(board_mem_dgram_deliver(n.bm, &a, bad, sizeof(bad)), 0);
    memcpy(bad, req, sizeof(bad));
    bad[5] = 0x7F;
    assert_int_equal(board_mem_dgram_deliver(n.bm, &a, bad, sizeof(bad)), 0);
    memcpy(bad, req, sizeof(bad));
    bad[5] = PZ_ECHO_REPLY;
    assert_int_equal(board_mem_dgram_deliver(n.bm, &a, bad, sizeof(bad)), 0);
    assert_int_equal(pz_echo_poll(n.e, 64), 6);
    assert_int_equal(board_mem_dgram_pop_sent(n.bm, &to, got, sizeof(got)), -EAGAIN);
    pz_echo_stats(n.e, &st);
    assert_int_equal(st.received, 6);
    assert_int_equal(st.malformed, 5);
    assert_int_equal(st.stray_replies, 1);
    assert_int_equal(st.requests, 0);
    assert_int_equal(st.replies_sent, 0);
    /* Oversized input through the direct entry point: malformed, no overflow. */
    pz_echo_input(n.e, &a, req, BOARD_DGRAM_MAX_PAYLOAD + 1);
    pz_echo_stats(n.e, &st);
    assert_int_equal(st.malformed, 6);
    node_fini(&n);
}

static void test_budget(void **state)
{
    struct node n;
    uint8_t req[40], got[64];
    struct board_dgram_addr a = from_peer(), to;
    int sent = 0;

    node_init(&n, 0x1111, 1);
    for (uint32_t i = 0; i < 10; i++) {
        make_request(req, sizeof(req), i, 0);
        assert_int_equal(board_mem_dgram_deliver(n.bm, &a, req, sizeof(req)), 0);
    }
    assert_int_equal(pz_echo_poll(n.e, 4), 4);
    while (board_mem_dgram_pop_sent(n.bm, &to, got, sizeof(got)) > 0)
        sent++;
    assert_int_equal(sent, 4);
    assert_int_equal(pz_echo_poll(n.e, 4), 4);
    assert_int_equal(pz_echo_poll(n.e, 4), 2);
    assert_int_equal(pz_echo_poll(n.e, 4), 0);
    node_fini(&n);
}

/* What the reply callback saw. */
struct seen {
    unsigned calls;
    uint32_t seq[16];
    uint64_t rtt[16];
    uint16_t slid;
};

static void on_reply(void *arg, uint32_t seq, uint64_t rtt_ns, const struct board_dgram_addr *from,
                     size_t len)
{
    struct seen *s = arg;

    assert_int_equal(len, 64);
    if (s->calls < 16) {
        s->seq[s->calls] = seq;
        s->rtt[s->calls] = rtt_ns;
    }
    s->slid = from->slid;
    s->calls++;
}

/* Carry everything src sent to dst, as the fabric would (SLID, QPs); returns how many. */
static int carry(struct node *src, struct node *dst, uint8_t corrupt_seq_idx)
{
    uint8_t buf[BOARD_DGRAM_MAX_PAYLOAD];
    struct board_dgram_addr a;
    int n, count = 0;

    while ((n = board_mem_dgram_pop_sent(src->bm, &a, buf, sizeof(buf))) >= 0) {
        if (count == corrupt_seq_idx && n > PZ_ECHO_HDR_LEN)
            buf[n - 1] ^= 0xFF;
        a.dst_qp = BOARD_MEM_DGRAM_QPN;
        assert_int_equal(board_mem_dgram_deliver(dst->bm, &a, buf, (size_t)n), 0);
        count++;
    }
    return count;
}

/*
 * The n datagrams a sent carried to b and answered there, rtt_ns later on a's
 * clock the n replies carried back and taken by a.
 */
static void round_trip(struct node *a, struct node *b, int n, uint64_t rtt_ns)
{
    assert_int_equal(carry(a, b, 0xFF), n);
    assert_int_equal(pz_echo_poll(b->e, 64), n);
    board_mem_advance_ns(a->bm, rtt_ns);
    assert_int_equal(carry(b, a, 0xFF), n);
    assert_int_equal(pz_echo_poll(a->e, 64), n);
}

static void test_ping(void **state)
{
    struct node a, b;
    struct pz_echo_ping p = {
        .dlid = 2, .dst_qp = BOARD_MEM_DGRAM_QPN, .pkey = 0xFFFF, .count = 5, .len = 64};
    struct pz_echo_ping_result r;
    struct pz_echo_stats st;
    struct seen s = {0};

    node_init(&a, 0x1111, 1);
    node_init(&b, 0x2222, 2);
    pz_echo_ping_result(a.e, &r);
    assert_int_equal(r.sent, 0);
    assert_int_equal(pz_echo_ping_start(a.e, &p, on_reply, &s), 5);
    round_trip(&a, &b, 5, 2500);
    pz_echo_ping_result(a.e, &r);
    assert_int_equal(r.first_seq, 0);
    assert_int_equal(r.sent, 5);
    assert_int_equal(r.received, 5);
    assert_true(r.rtt_min_ns == 2500 && r.rtt_max_ns == 2500 && r.rtt_sum_ns == 5 * 2500);
    assert_int_equal(s.calls, 5);
    for (unsigned i = 0; i < 5; i++)
        assert_int_equal(s.seq[i], i);
    assert_int_equal(s.slid, 2);

    /* A second run: new sequence numbers; a duplicate and a corrupted reply are strays. */
    assert_int_equal(pz_echo_ping_start(a.e, &p, on_reply, &s), 5);
    assert_int_equal(carry(&a, &b, 0xFF), 5);
    assert_int_equal(pz_echo_poll(b.e, 64), 5);
    assert_int_equal(carry(&b, &a, 1), 5); /* the second reply's padding is damaged */
    assert_int_equal(pz_echo_poll(a.e, 64), 5);
    pz_echo_ping_result(a.e, &r);
    assert_int_equal(r.first_seq, 5);
    assert_int_equal(r.received, 4);
    assert_int_equal(s.seq[5], 5);
    assert_int_equal(s.seq[6], 7);
    {
        uint8_t rep[64];
        struct board_dgram_addr from = from_peer();
        struct pz_echo_hdr h = {.type = PZ_ECHO_REPLY, .seq = 5, .ts_ns = 0};

        /* Sequence 5 again (duplicate) and sequence 0 (the first run's): strays. */
        pz_echo_encode(rep, sizeof(rep), &h);
        for (size_t i = PZ_ECHO_HDR_LEN; i < sizeof(rep); i++)
            rep[i] = (uint8_t)(5 + i);
        pz_echo_input(a.e, &from, rep, sizeof(rep));
        h.seq = 0;
        pz_echo_encode(rep, sizeof(rep), &h);
        pz_echo_input(a.e, &from, rep, sizeof(rep));
    }
    pz_echo_stats(a.e, &st);
    assert_int_equal(st.replies, 9);
    assert_int_equal(st.stray_replies, 3);
    assert_int_equal(st.pings_sent, 10);
    assert_int_equal(st.requests, 0);
    pz_echo_stats(b.e, &st);
    assert_int_equal(st.requests, 10);
    assert_int_equal(st.replies_sent, 10);
    node_fini(&a);
    node_fini(&b);
}

/* What the probe handler saw. */
struct probe_seen {
    unsigned calls;
    uint32_t seq;
    uint64_t rtt;
    uint16_t slid;
};

static void on_probe(void *arg, uint32_t seq, uint64_t rtt_ns, const struct board_dgram_addr *from)
{
    struct probe_seen *s = arg;

    s->calls++;
    s->seq = seq;
    s->rtt = rtt_ns;
    s->slid = from->slid;
}

/* Carry one probe a -> b -> a with rtt_ns on a's clock; returns nothing. */
static void probe_round_trip(struct node *a, struct node *b, uint32_t seq, uint64_t rtt_ns)
{
    assert_int_equal(pz_echo_probe_send(a->e, 2, BOARD_MEM_DGRAM_QPN, QKEY, seq), 0);
    round_trip(a, b, 1, rtt_ns);
}

/* A probe is answered like any request; its reply goes to the probe handler only. */
static void test_probe(void **state)
{
    struct node a, b;
    struct probe_seen ps = {0};
    struct seen s = {0};
    struct pz_echo_stats st;
    struct pz_echo_ping_result r;
    struct pz_echo_ping p = {
        .dlid = 2, .dst_qp = BOARD_MEM_DGRAM_QPN, .pkey = 0xFFFF, .count = 1, .len = 64};

    node_init(&a, 0x1111, 1);
    node_init(&b, 0x2222, 2);
    assert_int_equal(pz_echo_probe_send(a.e, 0, BOARD_MEM_DGRAM_QPN, QKEY, 7), -EINVAL);
    assert_int_equal(pz_echo_probe_send(a.e, 2, 1, QKEY, 7), -EINVAL);
    /* Without a handler a probe reply is a stray. */
    probe_round_trip(&a, &b, 1, 500);
    pz_echo_stats(a.e, &st);
    assert_int_equal(st.stray_replies, 1);
    assert_int_equal(st.probe_replies, 0);
    /* During a ping run (sequence 0 in flight) a probe with sequence 0 is not the run's. */
    pz_echo_set_probe_handler(a.e, on_probe, &ps);
    assert_int_equal(pz_echo_ping_start(a.e, &p, on_reply, &s), 1);
    assert_int_equal(pz_echo_probe_send(a.e, 2, BOARD_MEM_DGRAM_QPN, QKEY, 0), 0);
    round_trip(&a, &b, 2, 900);
    assert_int_equal(ps.calls, 1);
    assert_int_equal(ps.seq, 0);
    assert_int_equal(ps.rtt, 900);
    assert_int_equal(ps.slid, 2);
    pz_echo_ping_result(a.e, &r);
    assert_int_equal(r.received, 1);
    assert_int_equal(s.calls, 1);
    pz_echo_stats(a.e, &st);
    assert_int_equal(st.probes_sent, 2);
    assert_int_equal(st.probe_replies, 1);
    assert_int_equal(st.replies, 1);
    node_fini(&a);
    node_fini(&b);
}

static void test_ping_errors(void **state)
{
    struct node a;
    struct pz_echo_ping p = {.dlid = 2, .dst_qp = 0x10, .pkey = 0xFFFF, .count = 3, .len = 64};
    struct pz_echo_ping bad;
    struct pz_echo_stats st;

    node_init(&a, 0x1111, 1);
    bad = p;
    bad.len = PZ_ECHO_HDR_LEN - 1;
    assert_int_equal(pz_echo_ping_start(a.e, &bad, NULL, NULL), -EINVAL);
    bad = p;
    bad.count = 0;
    assert_int_equal(pz_echo_ping_start(a.e, &bad, NULL, NULL), -EINVAL);
    bad.count = PZ_ECHO_MAX_PINGS + 1;
    assert_int_equal(pz_echo_ping_start(a.e, &bad, NULL, NULL), -EINVAL);
    bad = p;
    bad.dst_qp = 1;
    assert_int_equal(pz_echo_ping_start(a.e, &bad, NULL, NULL), -EINVAL);
    bad = p;
    bad.len = BOARD_DGRAM_MAX_PAYLOAD + 1;
    assert_int_equal(pz_echo_ping_start(a.e, &bad, NULL, NULL), -EINVAL);
    /* DLID 0: the board refuses every send; counted, none posted. */
    bad = p;
    bad.dlid = 0;
    assert_int_equal(pz_echo_ping_start(a.e, &bad, NULL, NULL), 0);
    pz_echo_stats(a.e, &st);
    assert_int_equal(st.send_errors, 3);
    assert_int_equal(st.pings_sent, 0);
    /* The largest payload goes. */
    p.len = BOARD_DGRAM_MAX_PAYLOAD;
    p.count = 1;
    assert_int_equal(pz_echo_ping_start(a.e, &p, NULL, NULL), 1);
    node_fini(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_codec),       cmocka_unit_test(test_request_answered),
        cmocka_unit_test(test_grh_swapped), cmocka_unit_test(test_malformed_dropped),
        cmocka_unit_test(test_budget),      cmocka_unit_test(test_ping),
        cmocka_unit_test(test_ping_errors), cmocka_unit_test(test_probe),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
