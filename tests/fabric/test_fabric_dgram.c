/*
 * test_fabric_dgram.c - port-0 UD datagrams through the fabric API on a
 * hand-built fabric (no subnet manager: LIDs, port states, LFTs, MFTs,
 * P_Keys and SL2VL are programmed on the boards directly):
 *
 *   S1 [1] H1, [2] H2, [3] S2[3]        LIDs: S1 1, S2 2,
 *   S2 [1] H3, [2] H4, [3] S1[3]              H1 11, H2 12, H3 13, H4 14
 *
 * Stacks are attached at S1 and S2 (fabric_dgram_attach, as dgram_server.c
 * does; a second QP with another Q_Key at S2) and, in-process, on H4's
 * board_mem (board_dgram_* ops, and two QPs with board_qp_*).  Checks the
 * delivered fields, Q_Key and P_Key handling, unroutable and looping
 * datagrams, cables, the drop rate, multicast through the MFTs with a GRH,
 * NeighborMTU, the exact counters (per SL and per VL too), the capture, the
 * MAD per-VL counting, and the "<sockname>:dgram" wire format.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>
#include <infiniband/mad.h>

#include "board_mem.h"
#include "board_sim_dgram.h"
#include "fabric.h"
#include "fabric_bed.h"
#include "fabric_dgram.h"
#include "fabric_internal.h"
#include "mad_header.h"
#include "pcap.h"
#include "pzt_main.h"

#define MLID 0xC001
#define QKEY 0x0B1B
#define GOT_MAX 16

/* One datagram a stack received. */
struct got {
    size_t node;
    struct board_dgram_addr a;
    size_t len;
    uint8_t payload[BOARD_DGRAM_MAX_PAYLOAD];
};

/* The fabric under test, the stacks' QP numbers and what they received. */
struct bed {
    struct fabric *f;
    uint32_t qpn_s1, qpn_s2;
    unsigned count;
    struct got got[GOT_MAX];
};

/* Record a datagram for a stack (fabric_dgram_rx_fn). */
static void record(void *arg, size_t node, const struct board_dgram_addr *a, const uint8_t *payload,
                   size_t len)
{
    struct bed *b = arg;

    if (b->count < GOT_MAX) {
        struct got *g = &b->got[b->count];

        g->node = node;
        g->a = *a;
        g->len = len;
        memcpy(g->payload, payload, len);
    }
    b->count++;
}

/* The datagram counters now. */
static struct fabric_dgram_stats dstats(const struct bed *b)
{
    struct fabric_dgram_stats st;

    fabric_dgram_get_stats(b->f, &st);
    return st;
}

/* Build the fabric and attach stacks at S1 and S2 (Q_Key QKEY). */
static int setup(void **state)
{
    /* S1 routes LID 50 towards S2, which has no entry for it. */
    static const uint16_t lids[7] = {1, 2, 11, 12, 13, 14, 50};
    static const uint8_t s1[7] = {0, 3, 1, 2, 3, 3, 3}, s2[7] = {3, 0, 3, 3, 1, 2, BOARD_LFT_DROP};
    struct bed *b = calloc(1, sizeof(*b));

    assert_non_null(b);
    b->f = fbed_2s4h_routed(lids, s1, s2, 7);
    assert_int_equal(fabric_dgram_attach(b->f, fbed_node(b->f, "S1"), QKEY, record, b, &b->qpn_s1),
                     0);
    assert_int_equal(fabric_dgram_attach(b->f, fbed_node(b->f, "S2"), QKEY, record, b, &b->qpn_s2),
                     0);
    assert_int_not_equal(b->qpn_s1, b->qpn_s2);
    *state = b;
    return 0;
}

/* An address to dlid / qpn with Q_Key QKEY, P_Key 0xFFFF, SL sl. */
static struct board_dgram_addr to(uint16_t dlid, uint32_t qpn, uint8_t sl)
{
    return (struct board_dgram_addr){
        .dlid = dlid, .sl = sl, .pkey = 0xFFFF, .dst_qp = qpn, .qkey = QKEY};
}

/* Send len bytes of a pattern from the stack of name; returns fabric_dgram_send's result. */
static int send_from(struct bed *b, const char *name, const struct board_dgram_addr *a, size_t len)
{
    static uint8_t payload[BOARD_DGRAM_MAX_PAYLOAD + 1];

    for (size_t i = 0; i < sizeof(payload); i++)
        payload[i] = (uint8_t)(i * 7 + 1);
    return fabric_dgram_send(b->f, fbed_node(b->f, name), a, payload, len);
}

/* Words a datagram of len payload bytes counts per link (LRH..ICRC / 4). */
static uint64_t words(size_t len, bool grh)
{
    return (28 + (grh ? 40 : 0) + len + (4 - len % 4) % 4 + 4) / 4;
}

/* Unicast S1 -> S2: every field as sent, counters exact (per SL, per VL). */
static void test_unicast(void **state)
{
    struct bed *b = *state;
    struct board_dgram_addr a = to(2, b->qpn_s2, 2);
    uint8_t vl[16] = {0};

    vl[2] = 3; /* S1: SL 2 from port 0 to port 3 on VL 3 */
    assert_int_equal(board_sl2vl_set(fbed_board(b->f, "S1"), 0, 3, vl), 0);
    assert_int_equal(send_from(b, "S1", &a, 1001), 0);
    assert_int_equal(b->count, 1);
    assert_int_equal(b->got[0].node, fbed_node(b->f, "S2"));
    assert_int_equal(b->got[0].a.slid, 1);
    assert_int_equal(b->got[0].a.dlid, 2);
    assert_int_equal(b->got[0].a.sl, 2);
    assert_int_equal(b->got[0].a.src_qp, b->qpn_s1);
    assert_int_equal(b->got[0].a.dst_qp, b->qpn_s2);
    assert_int_equal(b->got[0].a.qkey, QKEY);
    assert_int_equal(b->got[0].a.pkey, 0xFFFF);
    assert_false(b->got[0].a.has_grh);
    assert_int_equal(b->got[0].len, 1001);
    for (size_t i = 0; i < 1001; i++)
        assert_int_equal(b->got[0].payload[i], (uint8_t)(i * 7 + 1));
    assert_int_equal(FBED_COUNTER(b->f, "S1", 3, xmit_pkts), 1);
    assert_int_equal(FBED_COUNTER(b->f, "S1", 3, unicast_xmit_pkts), 1);
    assert_int_equal(FBED_COUNTER(b->f, "S1", 3, xmit_data), words(1001, false));
    assert_int_equal(FBED_COUNTER(b->f, "S1", 3, xmit_data_sl[2]), words(1001, false));
    assert_int_equal(FBED_COUNTER(b->f, "S2", 3, rcv_pkts), 1);
    assert_int_equal(FBED_COUNTER(b->f, "S2", 3, unicast_rcv_pkts), 1);
    assert_int_equal(FBED_COUNTER(b->f, "S2", 3, rcv_data), words(1001, false));
    assert_int_equal(FBED_COUNTER(b->f, "S2", 3, rcv_data_sl[2]), words(1001, false));
    assert_int_equal(FBED_COUNTER(b->f, "S2", 3, vl_op_packets[3]), 1);
    assert_int_equal(FBED_COUNTER(b->f, "S2", 3, vl_op_data[3]), words(1001, false));
    assert_int_equal(FBED_COUNTER(b->f, "S2", 3, op_rcv_pkts), 1);
    assert_int_equal(FBED_COUNTER(b->f, "S2", 3, multicast_rcv_pkts), 0);
    assert_int_equal(dstats(b).sent, 1);
    assert_int_equal(dstats(b).delivered, 1);
    assert_int_equal(dstats(b).hops, 1);
    assert_int_equal(dstats(b).dropped, 0);

    /* A switch's datagram to its own LID stays inside it: no link counts it. */
    a = to(1, b->qpn_s1, 0);
    assert_int_equal(send_from(b, "S1", &a, 4), 0);
    assert_int_equal(b->count, 2);
    assert_int_equal(b->got[1].node, fbed_node(b->f, "S1"));
    assert_int_equal(FBED_COUNTER(b->f, "S1", 3, xmit_pkts), 1);
}

/* Q_Keys: a wrong one is dropped at the receiving QP; a controlled one sends the QP's own. */
static void test_qkey(void **state)
{
    struct bed *b = *state;
    struct board_dgram_addr a = to(2, b->qpn_s2, 0);

    a.qkey = QKEY + 1;
    assert_int_equal(send_from(b, "S1", &a, 8), 0);
    assert_int_equal(b->count, 0);
    assert_int_equal(dstats(b).qkey_dropped, 1);
    assert_int_equal(FBED_COUNTER(b->f, "S2", 3, rcv_pkts), 1); /* it crossed the link */

    a.qkey = BOARD_DGRAM_QKEY_CONTROLLED | 0x1234; /* use the sender's QP's Q_Key */
    assert_int_equal(send_from(b, "S1", &a, 8), 0);
    assert_int_equal(b->count, 1);
    assert_int_equal(b->got[0].a.qkey, QKEY);

    /* A new Q_Key (after an IPoIB join): the old one no longer reaches the QP. */
    assert_int_equal(fabric_dgram_set_qkey(b->f, fbed_node(b->f, "S2"), 0x77), 0);
    a.qkey = QKEY;
    assert_int_equal(send_from(b, "S1", &a, 8), 0);
    assert_int_equal(b->count, 1);
    a.qkey = 0x77;
    assert_int_equal(send_from(b, "S1", &a, 8), 0);
    assert_int_equal(b->count, 2);
    assert_int_equal(dstats(b).qkey_dropped, 2);
    /* A QP number nobody has. */
    a.dst_qp = b->qpn_s2 + 100;
    assert_int_equal(send_from(b, "S1", &a, 8), 0);
    assert_int_equal(b->count, 2);
    assert_int_equal(dstats(b).no_stack, 1);
}

/* P_Keys: the sender's table, switch port enforcement, the receiver's table. */
static void test_pkey(void **state)
{
    struct bed *b = *state;
    struct board_dgram_addr a = to(2, b->qpn_s2, 0);
    uint16_t keys[BOARD_PKEY_BLOCK] = {0xFFFF, 0x8001};
    struct board_port_config cfg;

    /* Not in S1 port 0's table: refused at the sender. */
    a.pkey = 0x8001;
    assert_int_equal(send_from(b, "S1", &a, 8), -EACCES);
    assert_int_equal(dstats(b).refused, 1);
    assert_int_equal(FBED_COUNTER(b->f, "S1", 3, xmit_pkts), 0);

    /* In S1's, not in S2 port 0's: dropped at the receiving QP. */
    assert_int_equal(board_pkey_set(fbed_board(b->f, "S1"), 0, 0, keys), 0);
    assert_int_equal(send_from(b, "S1", &a, 8), 0);
    assert_int_equal(b->count, 0);
    assert_int_equal(dstats(b).pkey_dropped, 1);

    /* In both: delivered with that P_Key. */
    assert_int_equal(board_pkey_set(fbed_board(b->f, "S2"), 0, 0, keys), 0);
    assert_int_equal(send_from(b, "S1", &a, 8), 0);
    assert_int_equal(b->count, 1);
    assert_int_equal(b->got[0].a.pkey, 0x8001);

    /* S2 port 3 enforces inbound with only the default partition: dropped there. */
    keys[1] = 0;
    assert_int_equal(board_pkey_set(fbed_board(b->f, "S2"), 3, 0, keys), 0);
    assert_int_equal(board_port_config_get(fbed_board(b->f, "S2"), 3, &cfg), 0);
    cfg.part_enf_inbound = true;
    assert_int_equal(board_port_config_set(fbed_board(b->f, "S2"), 3, &cfg), 0);
    assert_int_equal(send_from(b, "S1", &a, 8), 0);
    assert_int_equal(b->count, 1);
    assert_int_equal(FBED_COUNTER(b->f, "S2", 3, rcv_constraint_errors), 1);
    assert_int_equal(dstats(b).pkey_dropped, 2);
    a.pkey = 0xFFFF; /* the default partition passes */
    assert_int_equal(send_from(b, "S1", &a, 8), 0);
    assert_int_equal(b->count, 2);
}

/* No LFT entry: dropped where the route ends and counted as a switch relay error. */
static void test_unroutable(void **state)
{
    struct bed *b = *state;
    struct board_dgram_addr a = to(50, b->qpn_s2, 0);

    assert_int_equal(send_from(b, "S1", &a, 8), 0);
    assert_int_equal(b->count, 0);
    assert_int_equal(FBED_COUNTER(b->f, "S1", 3, xmit_pkts), 1);
    assert_int_equal(FBED_COUNTER(b->f, "S2", 3, rcv_pkts), 1);
    assert_int_equal(FBED_COUNTER(b->f, "S2", 3, rcv_switch_relay_errors), 1);
    assert_int_equal(FBED_COUNTER(b->f, "S2", 3, dlid_mapping_errors), 1);
    assert_int_equal(dstats(b).dropped, 1);
    /* Unroutable at the sender itself: no link, no error counter. */
    a.dlid = 51;
    assert_int_equal(send_from(b, "S1", &a, 8), 0);
    assert_int_equal(FBED_COUNTER(b->f, "S1", 3, xmit_pkts), 1);
    assert_int_equal(dstats(b).dropped, 2);
    /* A CA port behind a switch without a stack: counted, not delivered. */
    a.dlid = 13;
    assert_int_equal(send_from(b, "S1", &a, 8), 0);
    assert_int_equal(FBED_COUNTER(b->f, "H3", 1, rcv_pkts), 1);
    assert_int_equal(dstats(b).no_stack, 1);
    assert_int_equal(b->count, 0);
}

/* Bad send requests are refused and carry nothing. */
static void test_bad_sends(void **state)
{
    struct bed *b = *state;
    struct board_dgram_addr a = to(2, 1, 0); /* QP1 is the GSI, not a datagram QP */

    assert_int_equal(send_from(b, "S1", &a, 8), -EINVAL);
    a = to(MLID, b->qpn_s2, 0); /* multicast needs QP 0xFFFFFF */
    assert_int_equal(send_from(b, "S1", &a, 8), -EINVAL);
    a = to(2, BOARD_DGRAM_MCAST_QPN, 0); /* and QP 0xFFFFFF a multicast LID */
    assert_int_equal(send_from(b, "S1", &a, 8), -EINVAL);
    a = to(2, b->qpn_s2, 16);
    assert_int_equal(send_from(b, "S1", &a, 8), -EINVAL);
    a = to(2, b->qpn_s2, 0);
    assert_int_equal(send_from(b, "S1", &a, BOARD_DGRAM_MAX_PAYLOAD + 1), -EINVAL);
    assert_int_equal(send_from(b, "H1", &a, 8), -ENOTCONN); /* no stack on H1 */
    assert_int_equal(fabric_dgram_send(b->f, 99, &a, "x", 1), -EINVAL);
    assert_int_equal(dstats(b).refused, 6);
    assert_int_equal(dstats(b).sent, 0);
    assert_int_equal(FBED_COUNTER(b->f, "S1", 3, xmit_pkts), 0);
    /*
     * Up to FABRIC_DGRAM_QPS_MAX stacks (QPs) per node, each its own QP;
     * detaching frees them, and the new stack has a new QP.
     */
    uint32_t qpn;
    for (unsigned i = 1; i < FABRIC_DGRAM_QPS_MAX; i++) {
        assert_int_equal(fabric_dgram_attach(b->f, fbed_node(b->f, "S1"), 1, record, b, &qpn), 0);
        assert_int_not_equal(qpn, b->qpn_s1);
    }
    assert_int_equal(fabric_dgram_attach(b->f, fbed_node(b->f, "S1"), 1, record, b, &qpn), -EBUSY);
    fabric_dgram_detach(b->f, fbed_node(b->f, "S1"));
    assert_int_equal(fabric_dgram_attach(b->f, fbed_node(b->f, "S1"), 1, record, b, &qpn), 0);
    assert_int_not_equal(qpn, b->qpn_s1);
}

/* Pulled cables and links that are not Active carry nothing; the drop rate loses datagrams. */
static void test_links_and_loss(void **state)
{
    struct bed *b = *state;
    struct board_dgram_addr a = to(2, b->qpn_s2, 0);

    assert_int_equal(fabric_link_set(b->f, fbed_node(b->f, "S1"), 3, false), 0);
    assert_int_equal(send_from(b, "S1", &a, 8), 0);
    assert_int_equal(b->count, 0);
    assert_int_equal(FBED_COUNTER(b->f, "S1", 3, xmit_pkts), 0);
    assert_int_equal(fabric_link_set(b->f, fbed_node(b->f, "S1"), 3, true), 0); /* back to Init */
    assert_int_equal(send_from(b, "S1", &a, 8), 0);
    assert_int_equal(b->count, 0);
    assert_int_equal(dstats(b).dropped, 2);
    fbed_activate(b->f, "S1", 3);
    fbed_activate(b->f, "S2", 3);
    assert_int_equal(send_from(b, "S1", &a, 8), 0);
    assert_int_equal(b->count, 1);

    assert_int_equal(fabric_set_drop_rate(b->f, 1000000, 7), 0);
    assert_int_equal(send_from(b, "S1", &a, 8), 0);
    assert_int_equal(b->count, 1);
    assert_int_equal(dstats(b).lost, 1);
    assert_int_equal(FBED_COUNTER(b->f, "S1", 3, xmit_pkts), 2);  /* sent, */
    assert_int_equal(FBED_COUNTER(b->f, "S2", 3, rcv_errors), 1); /* arrived corrupted */
    assert_int_equal(fabric_set_drop_rate(b->f, 0, 0), 0);
}

/* Multicast through the MFTs, with a GRH: S2's stack, not H3 (no stack), not S1 itself. */
static void test_multicast(void **state)
{
    struct bed *b = *state;
    struct board_dgram_addr a = to(MLID, BOARD_DGRAM_MCAST_QPN, 0);
    uint16_t masks[BOARD_MFT_BLOCK] = {0};

    masks[MLID - 0xC000] = 1u << 0 | 1u << 3; /* S1: its own port 0 and S2 */
    assert_int_equal(board_mft_set(fbed_board(b->f, "S1"), 0, 0, masks), 0);
    masks[MLID - 0xC000] = 1u << 0 | 1u << 1 | 1u << 3; /* S2: port 0, H3, back to S1 */
    assert_int_equal(board_mft_set(fbed_board(b->f, "S2"), 0, 0, masks), 0);
    a.has_grh = true;
    a.grh[7] = 1;                 /* HopLimit */
    memset(a.grh + 24, 0xEE, 16); /* DGID */
    a.grh[24] = 0xFF;
    assert_int_equal(send_from(b, "S1", &a, 100), 0);
    assert_int_equal(b->count, 1);
    assert_int_equal(b->got[0].node, fbed_node(b->f, "S2"));
    assert_true(b->got[0].a.has_grh);
    assert_int_equal(b->got[0].a.grh[0] >> 4, 6);                                     /* IPVer */
    assert_int_equal(b->got[0].a.grh[4] << 8 | b->got[0].a.grh[5], 12 + 8 + 100 + 4); /* PayLen */
    assert_int_equal(b->got[0].a.grh[6], 0x1B);                                       /* NxtHdr */
    assert_memory_equal(b->got[0].a.grh + 24, a.grh + 24, 16);
    assert_int_equal(b->got[0].a.dst_qp, BOARD_DGRAM_MCAST_QPN);
    assert_int_equal(FBED_COUNTER(b->f, "S1", 3, multicast_xmit_pkts), 1);
    assert_int_equal(FBED_COUNTER(b->f, "S1", 3, xmit_data), words(100, true));
    assert_int_equal(FBED_COUNTER(b->f, "S2", 3, multicast_rcv_pkts), 1);
    assert_int_equal(FBED_COUNTER(b->f, "H3", 1, multicast_rcv_pkts), 1);
    assert_int_equal(FBED_COUNTER(b->f, "S2", 3, multicast_xmit_pkts),
                     0); /* not back where it came from */
    assert_int_equal(dstats(b).delivered, 1);
    assert_int_equal(dstats(b).no_stack, 1); /* H3 */
}

/* A payload longer than the egress port's NeighborMTU is discarded there. */
static void test_mtu(void **state)
{
    struct bed *b = *state;
    struct board_dgram_addr a = to(2, b->qpn_s2, 0);
    struct board_port_config cfg;

    assert_int_equal(board_port_config_get(fbed_board(b->f, "S1"), 3, &cfg), 0);
    cfg.neighbor_mtu = 1; /* 256 */
    assert_int_equal(board_port_config_set(fbed_board(b->f, "S1"), 3, &cfg), 0);
    assert_int_equal(send_from(b, "S1", &a, 257), 0);
    assert_int_equal(b->count, 0);
    assert_int_equal(FBED_COUNTER(b->f, "S1", 3, xmit_discards), 1);
    assert_int_equal(FBED_COUNTER(b->f, "S1", 3, neighbor_mtu_discards), 1);
    assert_int_equal(send_from(b, "S1", &a, 256), 0);
    assert_int_equal(b->count, 1);
}

/* An in-process stack on H4's board_mem: open, receive, send back. */
static void test_board_mem_stack(void **state)
{
    struct bed *b = *state;
    const struct board *h4 = fbed_board(b->f, "H4");
    struct board_dgram_addr a, got;
    uint8_t buf[64];
    uint32_t qpn = 0;

    a = to(14, BOARD_MEM_DGRAM_QPN, 0);
    assert_int_equal(send_from(b, "S1", &a, 10), 0); /* not open yet */
    assert_int_equal(dstats(b).no_stack, 1);
    assert_true(board_has_dgram(h4));
    assert_int_equal(board_dgram_fd(h4), -1);
    assert_int_equal(board_dgram_open(h4, QKEY, &qpn), 0);
    assert_int_equal(qpn, BOARD_MEM_DGRAM_QPN);
    assert_int_equal(board_dgram_recv(h4, &got, buf, sizeof(buf)), -EAGAIN);
    assert_int_equal(send_from(b, "S1", &a, 10), 0);
    assert_int_equal(board_dgram_recv(h4, &got, buf, sizeof(buf)), 10);
    assert_int_equal(got.slid, 1);
    assert_int_equal(got.src_qp, b->qpn_s1);
    assert_int_equal(buf[9], (uint8_t)(9 * 7 + 1));
    assert_int_equal(send_from(b, "S1", &a, 10), 0);
    assert_int_equal(board_dgram_recv(h4, &got, buf, 5), -EMSGSIZE); /* dropped */
    assert_int_equal(board_dgram_recv(h4, &got, buf, sizeof(buf)), -EAGAIN);

    a = to(1, b->qpn_s1, 0);
    assert_int_equal(board_dgram_send(h4, &a, "reply", 5), 0);
    assert_int_equal(b->count, 1);
    assert_int_equal(b->got[0].a.slid, 14);
    assert_int_equal(b->got[0].a.src_qp, BOARD_MEM_DGRAM_QPN);
    assert_memory_equal(b->got[0].payload, "reply", 5);
    assert_int_equal(FBED_COUNTER(b->f, "H4", 1, xmit_pkts), 1);
}

/* A board_mem of its own: without a send hook, sends queue for the test to read. */
static void test_board_mem_queues(void **state)
{
    struct board_identity id;
    struct board_mem *bm;
    struct board_dgram_addr a = {.dlid = 5, .dst_qp = 9, .qkey = 0x80000000u}, got;
    uint8_t buf[8];

    (void)state;
    board_mem_default_switch_identity(&id, 0x77, 4);
    bm = board_mem_create(&id);
    assert_non_null(bm);
    assert_int_equal(board_dgram_send(board_mem_board(bm), &a, "ab", 2), -ENOTCONN);
    assert_int_equal(board_dgram_open(board_mem_board(bm), 0x42, NULL), 0);
    assert_int_equal(board_dgram_send(board_mem_board(bm), &a, "ab", 2), 0);
    assert_int_equal(board_mem_dgram_pop_sent(bm, &got, buf, sizeof(buf)), 2);
    assert_int_equal(got.qkey, 0x42); /* controlled Q_Key: the QP's */
    assert_int_equal(got.src_qp, BOARD_MEM_DGRAM_QPN);
    for (int i = 0; i < BOARD_MEM_DGRAM_QUEUE; i++)
        assert_int_equal(board_mem_dgram_deliver(bm, &a, "x", 1), 0);
    assert_int_equal(board_mem_dgram_deliver(bm, &a, "x", 1), -ENOBUFS);
    assert_int_equal(board_mem_dgram_overflows(bm), 1);
    a.dst_qp = 0;
    assert_int_equal(board_dgram_send(board_mem_board(bm), &a, "ab", 2), -EINVAL);
    board_mem_destroy(bm); /* frees what is still queued */
}

#define QKEY_ECHO 0x505A0001u

/*
 * Two QPs with different Q_Keys on one board_mem (no fabric): each receives
 * only what is delivered to it and sends with its own QP number and Q_Key;
 * handle 0 is the dgram_* QP; at most BOARD_QP_MAX at once.
 */
static void test_board_mem_qps(void **state)
{
    struct board_identity id;
    struct board_mem *bm;
    const struct board *bd;
    struct board_dgram_addr a = {.dlid = 5, .dst_qp = 9, .qkey = BOARD_DGRAM_QKEY_CONTROLLED}, got;
    uint32_t qpn_ip = 0, qpn_echo = 0, qkey = 0;
    uint8_t buf[8];
    int ip, echo;

    (void)state;
    board_mem_default_switch_identity(&id, 0x78, 4);
    bm = board_mem_create(&id);
    assert_non_null(bm);
    bd = board_mem_board(bm);
    assert_true(board_has_qps(bd));
    ip = board_qp_open(bd, QKEY, &qpn_ip);
    echo = board_qp_open(bd, QKEY_ECHO, &qpn_echo);
    assert_int_equal(ip, 0);
    assert_int_equal(echo, 1);
    assert_int_equal(qpn_ip, BOARD_MEM_DGRAM_QPN);
    assert_int_equal(qpn_echo, BOARD_MEM_DGRAM_QPN + 1);
    assert_true(board_mem_qp_info(bm, echo, NULL, &qkey));
    assert_int_equal(qkey, QKEY_ECHO);
    /* Receiving: each QP its own queue. */
    assert_int_equal(board_mem_qp_deliver(bm, echo, &a, "echo", 4), 0);
    assert_int_equal(board_qp_recv(bd, ip, &got, buf, sizeof(buf)), -EAGAIN);
    assert_int_equal(board_qp_recv(bd, echo, &got, buf, sizeof(buf)), 4);
    assert_memory_equal(buf, "echo", 4);
    assert_int_equal(board_mem_qp_deliver(bm, ip, &a, "ip", 2), 0);
    assert_int_equal(board_qp_recv(bd, echo, &got, buf, sizeof(buf)), -EAGAIN);
    assert_int_equal(board_dgram_recv(bd, &got, buf, sizeof(buf)), 2); /* dgram_* is handle 0 */
    assert_memory_equal(buf, "ip", 2);
    /* Sending: each QP its own number and (controlled) Q_Key. */
    assert_int_equal(board_qp_send(bd, echo, &a, "e", 1), 0);
    assert_int_equal(board_qp_send(bd, ip, &a, "i", 1), 0);
    assert_int_equal(board_mem_dgram_pop_sent(bm, &got, buf, sizeof(buf)), 1);
    assert_int_equal(got.src_qp, qpn_echo);
    assert_int_equal(got.qkey, QKEY_ECHO);
    assert_int_equal(board_mem_dgram_pop_sent(bm, &got, buf, sizeof(buf)), 1);
    assert_int_equal(got.src_qp, qpn_ip);
    assert_int_equal(got.qkey, QKEY);
    /* A new Q_Key (an IPoIB join); dgram_open changes handle 0's. */
    assert_int_equal(board_qp_set_qkey(bd, echo, 0x1234), 0);
    assert_int_equal(board_dgram_open(bd, 0x0B1C, NULL), 0);
    assert_int_equal(board_qp_send(bd, echo, &a, "e", 1), 0);
    assert_int_equal(board_mem_dgram_pop_sent(bm, &got, buf, sizeof(buf)), 1);
    assert_int_equal(got.qkey, 0x1234);
    assert_true(board_mem_dgram_is_open(bm, NULL, &qkey));
    assert_int_equal(qkey, 0x0B1C);
    /* Limits and closed handles. */
    for (int i = 2; i < BOARD_QP_MAX; i++)
        assert_int_equal(board_qp_open(bd, 1, NULL), i);
    assert_int_equal(board_qp_open(bd, 1, NULL), -ENOSPC);
    assert_int_equal(board_mem_qp_deliver(bm, echo, &a, "x", 1), 0);
    board_qp_close(bd, echo);         /* drops what waits */
    board_qp_close(bd, BOARD_QP_MAX); /* ignored */
    assert_int_equal(board_qp_recv(bd, echo, &got, buf, sizeof(buf)), -EBADF);
    assert_int_equal(board_qp_send(bd, echo, &a, "e", 1), -EBADF);
    assert_int_equal(board_qp_set_qkey(bd, echo, 1), -EBADF);
    assert_int_equal(board_qp_send(bd, -1, &a, "e", 1), -EBADF);
    assert_int_equal(board_qp_fd(bd, ip), -1);
    assert_int_equal(board_mem_qp_deliver(bm, echo, &a, "x", 1), -ENOTCONN);
    assert_int_equal(board_qp_open(bd, 7, &qpn_echo), echo); /* the free handle again */
    assert_int_equal(board_qp_recv(bd, echo, &got, buf, sizeof(buf)), -EAGAIN);
    board_mem_destroy(bm);
}

/* Two QPs on H4's board_mem through the fabric: each gets its own datagrams. */
static void test_board_mem_qps_fabric(void **state)
{
    struct bed *b = *state;
    const struct board *h4 = fbed_board(b->f, "H4");
    struct board_dgram_addr a, got;
    uint32_t qpn_ip = 0, qpn_echo = 0;
    uint8_t buf[64];
    int ip = board_qp_open(h4, QKEY, &qpn_ip);
    int echo = board_qp_open(h4, QKEY_ECHO, &qpn_echo);

    assert_true(ip >= 0 && echo >= 0 && qpn_ip != qpn_echo);
    a = to(14, qpn_echo, 0);
    a.qkey = QKEY_ECHO;
    assert_int_equal(send_from(b, "S1", &a, 12), 0);
    assert_int_equal(board_qp_recv(h4, ip, &got, buf, sizeof(buf)), -EAGAIN);
    assert_int_equal(board_qp_recv(h4, echo, &got, buf, sizeof(buf)), 12);
    assert_int_equal(got.dst_qp, qpn_echo);
    assert_int_equal(got.src_qp, b->qpn_s1);
    a = to(14, qpn_ip, 0);
    assert_int_equal(send_from(b, "S1", &a, 11), 0);
    assert_int_equal(board_qp_recv(h4, echo, &got, buf, sizeof(buf)), -EAGAIN);
    assert_int_equal(board_qp_recv(h4, ip, &got, buf, sizeof(buf)), 11);
    assert_int_equal(got.dst_qp, qpn_ip);
    a.dst_qp = qpn_echo; /* the IPoIB Q_Key at the echo QP: a Q_Key violation */
    assert_int_equal(send_from(b, "S1", &a, 10), 0);
    assert_int_equal(dstats(b).qkey_dropped, 1);
    assert_int_equal(board_qp_recv(h4, echo, &got, buf, sizeof(buf)), -EAGAIN);
    assert_int_equal(board_qp_recv(h4, ip, &got, buf, sizeof(buf)), -EAGAIN);
    /* Each sends as itself. */
    a = to(1, b->qpn_s1, 0);
    assert_int_equal(board_qp_send(h4, echo, &a, "pong", 4), 0);
    assert_int_equal(b->count, 1);
    assert_int_equal(b->got[0].a.src_qp, qpn_echo);
    assert_int_equal(b->got[0].a.slid, 14);
    assert_int_equal(dstats(b).delivered, 3);
}

/*
 * Two attached QPs with different Q_Keys on S2 (as two "<sockname>:dgram"
 * connections): unicast by QP number, multicast by Q_Key, each sends as
 * itself, detaching one leaves the other.
 */
static void test_two_attached_qps(void **state)
{
    struct bed *b = *state;
    struct bed echo = {.f = b->f};
    size_t s2 = fbed_node(b->f, "S2");
    struct board_dgram_addr a;
    uint16_t masks[BOARD_MFT_BLOCK] = {0};
    uint32_t qpn_echo = 0;

    assert_int_equal(fabric_dgram_attach(b->f, s2, QKEY_ECHO, record, &echo, &qpn_echo), 0);
    assert_int_not_equal(qpn_echo, b->qpn_s2);
    a = to(2, qpn_echo, 0);
    a.qkey = QKEY_ECHO;
    assert_int_equal(send_from(b, "S1", &a, 20), 0);
    assert_int_equal(echo.count, 1);
    assert_int_equal(b->count, 0);
    assert_int_equal(echo.got[0].a.dst_qp, qpn_echo);
    assert_int_equal(echo.got[0].len, 20);
    a = to(2, b->qpn_s2, 0);
    assert_int_equal(send_from(b, "S1", &a, 21), 0);
    assert_int_equal(b->count, 1);
    assert_int_equal(echo.count, 1);
    assert_int_equal(b->got[0].a.dst_qp, b->qpn_s2);
    a = to(2, qpn_echo, 0); /* QKEY at the echo QP */
    assert_int_equal(send_from(b, "S1", &a, 22), 0);
    assert_int_equal(dstats(b).qkey_dropped, 1);
    assert_int_equal(b->count + echo.count, 2);
    /* Multicast: every QP of the port whose Q_Key is the datagram's. */
    masks[MLID - 0xC000] = 1u << 3;
    assert_int_equal(board_mft_set(fbed_board(b->f, "S1"), 0, 0, masks), 0);
    masks[MLID - 0xC000] = 1u << 0;
    assert_int_equal(board_mft_set(fbed_board(b->f, "S2"), 0, 0, masks), 0);
    a = to(MLID, BOARD_DGRAM_MCAST_QPN, 0);
    a.qkey = QKEY_ECHO;
    assert_int_equal(send_from(b, "S1", &a, 30), 0);
    assert_int_equal(echo.count, 2);
    assert_int_equal(b->count, 1);
    a.qkey = QKEY;
    assert_int_equal(send_from(b, "S1", &a, 31), 0);
    assert_int_equal(echo.count, 2);
    assert_int_equal(b->count, 2);
    assert_int_equal(b->got[1].len, 31);
    a.qkey = 0x77; /* neither */
    assert_int_equal(send_from(b, "S1", &a, 32), 0);
    assert_int_equal(dstats(b).qkey_dropped, 2);
    assert_int_equal(b->count + echo.count, 4);
    /* Each sends as itself (fabric_dgram_send_qp); an unknown QP sends nothing. */
    a = to(1, b->qpn_s1, 0);
    assert_int_equal(fabric_dgram_send_qp(b->f, s2, qpn_echo, &a, "x", 1), 0);
    assert_int_equal(b->count, 3);
    assert_int_equal(b->got[2].a.src_qp, qpn_echo);
    assert_int_equal(fabric_dgram_send_qp(b->f, s2, 0x123456, &a, "x", 1), -ENOTCONN);
    /* A new Q_Key for one QP; detaching it leaves the other. */
    assert_int_equal(fabric_dgram_set_qkey_qp(b->f, s2, qpn_echo, 0x99), 0);
    assert_int_equal(fabric_dgram_set_qkey_qp(b->f, s2, 0x123456, 0x99), -ENOENT);
    a = to(2, qpn_echo, 0);
    a.qkey = 0x99;
    assert_int_equal(send_from(b, "S1", &a, 5), 0);
    assert_int_equal(echo.count, 3);
    fabric_dgram_detach_qp(b->f, s2, qpn_echo);
    assert_int_equal(send_from(b, "S1", &a, 5), 0);
    assert_int_equal(echo.count, 3);
    a = to(2, b->qpn_s2, 0);
    assert_int_equal(send_from(b, "S1", &a, 6), 0);
    assert_int_equal(b->count, 4);
}

/* Every link traversal is captured: LRH (LNH global), GRH, BTH 0x64, DETH, payload. */
static void test_capture(void **state)
{
    struct bed *b = *state;
    struct board_dgram_addr a = to(2, b->qpn_s2, 5);
    char path[] = "/tmp/pz-dgram-XXXXXX";
    char err[128];
    uint8_t file[4096];
    struct pz_pcap *p;
    int fd = mkstemp(path);
    ssize_t n;
    const uint8_t *pkt;

    assert_true(fd >= 0);
    p = pz_pcap_open(path, err, sizeof(err));
    assert_non_null(p);
    fabric_set_capture(b->f, p, path);
    a.has_grh = true;
    assert_int_equal(send_from(b, "S1", &a, 13), 0);
    fabric_set_capture(b->f, NULL, NULL);
    assert_int_equal(pz_pcap_close(p), 0);
    n = read(fd, file, sizeof(file));
    close(fd);
    unlink(path);
    assert_int_equal(n, 24 + 16 + 8 + 40 + 12 + 8 + 16 + 4 + 2);
    pkt = file + 24 + 16;
    assert_int_equal(pkt[1], 5 << 4 | 3);                 /* SL 5, LNH global */
    assert_int_equal(pkt[2] << 8 | pkt[3], 2);            /* DLID */
    assert_int_equal(pkt[6] << 8 | pkt[7], 1);            /* SLID */
    assert_int_equal(pkt[8] >> 4, 6);                     /* GRH IPVer */
    assert_int_equal(pkt[48], PZ_IB_OPCODE_UD_SEND_ONLY); /* BTH */
    assert_int_equal(pkt[49] >> 4 & 3, 3);                /* PadCnt */
    assert_int_equal(pkt[53] << 16 | pkt[54] << 8 | pkt[55], b->qpn_s2);
    assert_int_equal((uint32_t)(pkt[60] << 24 | pkt[61] << 16 | pkt[62] << 8 | pkt[63]), QKEY);
    assert_int_equal(pkt[65] << 16 | pkt[66] << 8 | pkt[67], b->qpn_s1);
    assert_int_equal(pkt[68], 1); /* the payload's first byte */
    assert_int_equal(pkt[84] | pkt[85] << 8 | pkt[86] << 16 | (uint32_t)pkt[87] << 24,
                     pz_ib_icrc_global(pkt, 84));
}

/* MADs count per VL too: SMPs on VL15 (never per SL), GMPs on their SL's VL. */
static void test_mad_vl_counters(void **state)
{
    struct bed *b = *state;
    struct fabric_mad m;
    uint8_t vl[16] = {0};

    vl[0] = 2; /* H1's SL 0 on VL 2 */
    assert_int_equal(board_sl2vl_set(fbed_board(b->f, "H1"), 1, 1, vl), 0);
    assert_int_equal(fabric_client_attach(b->f, 0, fbed_node(b->f, "H1"), false), 0);
    memset(&m, 0, sizeof(m));
    mad_header_init(m.mad, IB_SMI_CLASS, 1, IB_MAD_METHOD_GET, 0, IB_ATTR_NODE_INFO, 0);
    m.dlid = 1;
    assert_int_equal(fabric_client_send(b->f, 0, &m), 0);
    assert_int_equal(FBED_COUNTER(b->f, "S1", 1, vl_op_packets[15]), 1);
    assert_int_equal(FBED_COUNTER(b->f, "S1", 1, vl_op_data[15]), 72);
    assert_int_equal(FBED_COUNTER(b->f, "S1", 1, rcv_data_sl[0]), 0);
    assert_int_equal(FBED_COUNTER(b->f, "H1", 1, xmit_data_sl[0]), 0);
    assert_int_equal(FBED_COUNTER(b->f, "H1", 1, vl_op_packets[15]), 1); /* the answer */

    mad_set_field(m.mad, 0, IB_MAD_MGMTCLASS_F, IB_PERFORMANCE_CLASS);
    mad_set_field(m.mad, 0, IB_MAD_ATTRID_F, 0x12);
    m.dqp = 1;
    m.sqp = 1;
    m.dlid = 12; /* to H2 through S1, no client there: dropped at H2 */
    assert_int_equal(fabric_client_send(b->f, 0, &m), 0);
    assert_int_equal(FBED_COUNTER(b->f, "S1", 1, vl_op_packets[2]), 1);
    assert_int_equal(FBED_COUNTER(b->f, "S1", 1, rcv_data_sl[0]), 72);
    assert_int_equal(FBED_COUNTER(b->f, "H1", 1, xmit_data_sl[0]), 72);
    assert_int_equal(FBED_COUNTER(b->f, "H2", 1, vl_op_packets[0]), 1); /* S1's table: VL 0 */
}

/* The "<sockname>:dgram" messages: round trip, and what decode refuses. */
static void test_wire_format(void **state)
{
    struct board_dgram_addr a = {.dlid = 0xC001,
                                 .slid = 7,
                                 .sl = 3,
                                 .has_grh = true,
                                 .pkey = 0x8001,
                                 .src_qp = 0x200,
                                 .dst_qp = 0xFFFFFF,
                                 .qkey = 0xB1B};
    uint8_t buf[BOARD_SIM_DGRAM_MAX + 8];
    struct board_sim_dgram_msg m;
    size_t n;

    (void)state;
    a.grh[39] = 0x5A;
    n = board_sim_dgram_encode(buf, sizeof(buf), BOARD_SIM_DGRAM_RECV, 0, &a, "hello", 5);
    assert_int_equal(n, BOARD_SIM_DGRAM_HDR + 5);
    assert_int_equal(board_sim_dgram_decode(buf, n, &m), 0);
    assert_int_equal(m.op, BOARD_SIM_DGRAM_RECV);
    assert_int_equal(m.a.dlid, a.dlid);
    assert_int_equal(m.a.slid, a.slid);
    assert_int_equal(m.a.sl, a.sl);
    assert_true(m.a.has_grh);
    assert_int_equal(m.a.pkey, a.pkey);
    assert_int_equal(m.a.src_qp, a.src_qp);
    assert_int_equal(m.a.dst_qp, a.dst_qp);
    assert_int_equal(m.a.qkey, a.qkey);
    assert_memory_equal(m.a.grh, a.grh, sizeof(a.grh));
    assert_int_equal(m.len, 5);
    assert_memory_equal(m.payload, "hello", 5);
    assert_int_equal(board_sim_dgram_decode(buf, n - 1, &m), -EPROTO); /* length */
    assert_int_equal(board_sim_dgram_decode(buf, 10, &m), -EPROTO);
    buf[7] = 16; /* SL */
    assert_int_equal(board_sim_dgram_decode(buf, n, &m), -EPROTO);
    buf[7] = 3;
    buf[6] = 2; /* unknown flag */
    assert_int_equal(board_sim_dgram_decode(buf, n, &m), -EPROTO);
    buf[6] = 1;
    buf[5] = 9; /* op */
    assert_int_equal(board_sim_dgram_decode(buf, n, &m), -EPROTO);
    buf[5] = BOARD_SIM_DGRAM_ATTACH; /* an attach needs a name of 1..64 bytes */
    assert_int_equal(board_sim_dgram_decode(buf, n, &m), 0);
    n = board_sim_dgram_encode(buf, sizeof(buf), BOARD_SIM_DGRAM_ATTACH, 0, &a, NULL, 0);
    assert_int_equal(board_sim_dgram_decode(buf, n, &m), -EPROTO);
    buf[0] ^= 1; /* magic */
    assert_int_equal(board_sim_dgram_decode(buf, n, &m), -EPROTO);
    a.sl = 16;
    assert_int_equal(board_sim_dgram_encode(buf, sizeof(buf), BOARD_SIM_DGRAM_SEND, 0, &a, NULL, 0),
                     0);
    a.sl = 0;
    assert_int_equal(board_sim_dgram_encode(buf, sizeof(buf), BOARD_SIM_DGRAM_SEND, 0, &a, buf,
                                            BOARD_DGRAM_MAX_PAYLOAD + 1),
                     0);
}

/* The board/sim client over a socketpair, the test playing pzfabric's side. */
static void test_sim_client(void **state)
{
    struct board_dgram_addr a = {.src_qp = 0x345, .slid = 9}, to, got;
    static uint8_t buf[BOARD_SIM_DGRAM_MAX + 1];
    struct board_sim_dgram_msg m;
    struct board_sim_dgram *d;
    char err[128];
    uint8_t rx[8];
    int sv[2];
    size_t n;

    (void)state;
    /* A refused attach. */
    assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
    n = board_sim_dgram_encode(buf, sizeof(buf), BOARD_SIM_DGRAM_ATTACHED, -EBUSY, NULL, NULL, 0);
    assert_int_equal(send(sv[1], buf, n, 0), (ssize_t)n);
    assert_null(board_sim_dgram_attach_fd(sv[0], "Leaf1", 1, err, sizeof(err)));
    assert_non_null(strstr(err, strerror(EBUSY)));
    close(sv[1]);

    assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
    n = board_sim_dgram_encode(buf, sizeof(buf), BOARD_SIM_DGRAM_ATTACHED, 0, &a, NULL, 0);
    assert_int_equal(send(sv[1], buf, n, 0), (ssize_t)n); /* the answer, queued first */
    d = board_sim_dgram_attach_fd(sv[0], "Leaf1", 0xB1B, err, sizeof(err));
    assert_non_null(d);
    assert_int_equal(board_sim_dgram_qpn(d), 0x345);
    assert_int_equal(board_sim_dgram_lid(d), 9);
    n = (size_t)recv(sv[1], buf, sizeof(buf), 0);
    assert_int_equal(board_sim_dgram_decode(buf, n, &m), 0);
    assert_int_equal(m.op, BOARD_SIM_DGRAM_ATTACH);
    assert_int_equal(m.a.qkey, 0xB1B);
    assert_int_equal(m.len, 5);
    assert_memory_equal(m.payload, "Leaf1", 5);

    to = (struct board_dgram_addr){.dlid = 7, .sl = 1, .pkey = 0xFFFF, .dst_qp = 0x200, .qkey = 3};
    assert_int_equal(board_sim_dgram_send(d, &to, "hi", 2), 0);
    n = (size_t)recv(sv[1], buf, sizeof(buf), 0);
    assert_int_equal(board_sim_dgram_decode(buf, n, &m), 0);
    assert_int_equal(m.op, BOARD_SIM_DGRAM_SEND);
    assert_int_equal(m.a.dlid, 7);
    assert_int_equal(m.a.sl, 1);
    assert_int_equal(m.a.dst_qp, 0x200);
    assert_memory_equal(m.payload, "hi", 2);
    to.dst_qp = 1;
    assert_int_equal(board_sim_dgram_send(d, &to, "hi", 2), -EINVAL);
    assert_int_equal(board_sim_dgram_open(d, 0x99, NULL), 0);
    n = (size_t)recv(sv[1], buf, sizeof(buf), 0);
    assert_int_equal(board_sim_dgram_decode(buf, n, &m), 0);
    assert_int_equal(m.op, BOARD_SIM_DGRAM_QKEY);
    assert_int_equal(m.a.qkey, 0x99);

    assert_int_equal(board_sim_dgram_recv(d, &got, rx, sizeof(rx)), -EAGAIN);
    send(sv[1], "junk", 4, 0); /* skipped */
    a = (struct board_dgram_addr){
        .slid = 4, .dlid = 9, .src_qp = 0x201, .dst_qp = 0x345, .qkey = 3};
    n = board_sim_dgram_encode(buf, sizeof(buf), BOARD_SIM_DGRAM_RECV, 0, &a, "hello", 5);
    send(sv[1], buf, n, 0);
    assert_int_equal(board_sim_dgram_recv(d, &got, rx, sizeof(rx)), 5);
    assert_int_equal(got.slid, 4);
    assert_int_equal(got.src_qp, 0x201);
    assert_memory_equal(rx, "hello", 5);
    n = board_sim_dgram_encode(buf, sizeof(buf), BOARD_SIM_DGRAM_RECV, 0, &a, "too long", 8);
    send(sv[1], buf, n, 0);
    assert_int_equal(board_sim_dgram_recv(d, &got, rx, 4), -EMSGSIZE);
    assert_int_equal(board_sim_dgram_recv(d, &got, rx, sizeof(rx)), -EAGAIN);
    close(sv[1]);
    assert_int_equal(board_sim_dgram_recv(d, &got, rx, sizeof(rx)), -ENOTCONN);
    assert_int_equal(board_sim_dgram_errors(d), 1);
    board_sim_dgram_close(d);
}

PZT_MAIN_SETUP(setup, fbed_teardown, test_unicast, test_qkey, test_pkey, test_unroutable,
               test_bad_sends, test_links_and_loss, test_multicast, test_mtu, test_board_mem_stack,
               test_board_mem_queues, test_board_mem_qps, test_board_mem_qps_fabric,
               test_two_attached_qps, test_capture, test_mad_vl_counters, test_wire_format,
               test_sim_client)
