/*
 * test_fabric_traffic_model.c - the traffic model (fabric_traffic.h) on a
 * hand-built fabric with manual clocks, without a subnet manager: LIDs,
 * port states, LFTs and SL2VL tables are programmed directly.
 *
 *   S1 [1] H1, [2] H2, [3] S2[3], [4] H5     LIDs: S1 1, S2 2,
 *   S2 [1] H3, [2] H4, [3] S1[3]                   H1 11, H2 12, H3 13, H4 14, H5 15
 *
 * Every link is EDR 4x: 100 Gb/s.  Checks: a flow under capacity gets its
 * demand; flows share a link max-min; a CA's receive rate limits its
 * flows and makes the ports feeding it wait (1 - R/C) x 1e6 ticks/s, at
 * the CA-facing port and upstream; a victim in the same ingress buffer on
 * the same VL is slowed, on another VL it is not; counters are exact
 * after manual clock advances, in one step or many; unrouted flows (no
 * LFT entry, a pulled cable) carry nothing; API and error-inject checks.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fabric.h"
#include "fabric_bed.h"
#include "fabric_internal.h"
#include "fabric_traffic.h"
#include "pzt_main.h"

#define GBPS 1000000000ull
#define T0 1000000000000ull /* manual clocks start here */
#define SEC 1000000000ull
#define PKT_BYTES (4096 + 26) /* NeighborMTU 4096 + headers */

/*
 * PortXmitData words for bits on the wire: LRH..ICRC, i.e. without each
 * packet's 2-byte VCRC (IBA PortXmitData), 4 bytes a word.
 */
#define DATA_WORDS(bits) ((bits) * (PKT_BYTES - 2) / (32 * PKT_BYTES))

static const char net[] = FBED_NET_2S4H("[4] \"H5\"[1]\n", "\n"
                                                           "Hca 1 \"H5\"\n"
                                                           "[1] \"S1\"[4]\n");

/* Map SL 1 to VL 1 in the (in, out) table of name (CA: its port's table). */
static void sl1_to_vl1(struct fabric *f, const char *name, unsigned in, unsigned out)
{
    uint8_t vl[16] = {0};

    vl[1] = 1;
    assert_int_equal(board_sl2vl_set(fbed_board(f, name), in, out, vl), 0);
}

/* Build the fabric: manual clocks, LIDs, Active links, LFTs. */
static int setup(void **state)
{
    static const char *const cas[5] = {"H1", "H2", "H3", "H4", "H5"};
    static const char *const sw[5] = {"S1", "S1", "S2", "S2", "S1"};
    static const unsigned swport[5] = {1, 2, 1, 2, 4};
    static const uint16_t lids[6] = {1, 2, 11, 12, 13, 14}; /* H5 (LID 15): no entry */
    static const uint8_t s1[6] = {0, 3, 1, 2, 3, 3}, s2[6] = {3, 0, 3, 3, 1, 2};
    struct fabric *f = fbed_fabric(net);

    for (size_t i = 0; i < fabric_num_nodes(f); i++)
        board_mem_use_manual_clock(f->nodes[i].bm, T0);
    board_set_lid(fbed_board(f, "S1"), 0, 1, 0);
    board_set_lid(fbed_board(f, "S2"), 0, 2, 0);
    for (unsigned i = 0; i < 5; i++) {
        board_set_lid(fbed_board(f, cas[i]), 1, (uint16_t)(11 + i), 0);
        fbed_activate(f, cas[i], 1);
        fbed_activate(f, sw[i], swport[i]);
    }
    fbed_activate(f, "S1", 3);
    fbed_activate(f, "S2", 3);
    fbed_program_lft(f, "S1", lids, s1, 6);
    fbed_program_lft(f, "S2", lids, s2, 6);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fabric_destroy(*state);
    return 0;
}

/* Advance every node's manual clock by ns. */
static void advance(struct fabric *f, uint64_t ns)
{
    for (size_t i = 0; i < fabric_num_nodes(f); i++)
        board_mem_advance_ns(f->nodes[i].bm, ns);
}

/* Add a flow; returns its id. */
static unsigned add(struct fabric *f, const char *src, const char *dst, uint64_t gbps, unsigned sl)
{
    unsigned id = 0;

    assert_int_equal(fabric_flow_add(f, fbed_node(f, src), fbed_node(f, dst), gbps * GBPS, sl, &id),
                     0);
    return id;
}

/* The flow with id id. */
static void flow(struct fabric *f, unsigned id, struct fabric_flow_info *fi)
{
    for (size_t i = 0; fabric_flow_get(f, i, fi) == 0; i++)
        if (fi->id == id)
            return;
    fail_msg("no flow %u", id);
}

/* The achieved rate of flow id in b/s. */
static uint64_t rate(struct fabric *f, unsigned id)
{
    struct fabric_flow_info *fi = malloc(sizeof(*fi));
    uint64_t r;

    assert_non_null(fi);
    flow(f, id, fi);
    r = fi->rate_bps;
    free(fi);
    return r;
}

/* The XmitWait rate of egress port (name, port), ticks per second. */
static uint64_t wait_rate(struct fabric *f, const char *name, unsigned port)
{
    uint64_t bps, wait;

    assert_int_equal(fabric_port_traffic(f, fbed_node(f, name), port, &bps, &wait), 0);
    return wait;
}

/* The counters of (name, port), read through the board (the hook runs). */
static struct board_port_counters counters(struct fabric *f, const char *name, unsigned port)
{
    struct board_port_counters c;

    assert_int_equal(fabric_port_counters(f, fbed_node(f, name), port, &c), 0);
    return c;
}

/* A flow well under capacity gets its demand and follows the LFTs. */
static void test_single_flow(void **state)
{
    struct fabric *f = *state;
    struct fabric_flow_info *fi = malloc(sizeof(*fi));
    unsigned id = add(f, "H1", "H3", 10, 0);

    assert_non_null(fi);
    flow(f, id, fi);
    assert_true(fi->routed);
    assert_int_equal(fi->rate_bps, 10 * GBPS);
    assert_int_equal(fi->num_hops, 3);
    assert_int_equal(fi->hops[0].tx_node, fbed_node(f, "H1"));
    assert_int_equal(fi->hops[1].tx_node, fbed_node(f, "S1"));
    assert_int_equal(fi->hops[1].tx_port, 3);
    assert_int_equal(fi->hops[2].tx_node, fbed_node(f, "S2"));
    assert_int_equal(fi->hops[2].tx_port, 1);
    assert_int_equal(fi->hops[2].rx_node, fbed_node(f, "H3"));
    assert_int_equal(wait_rate(f, "S2", 1), 0); /* nothing blocked */
    free(fi);
}

/* Two flows on one link: equal shares when both want more, else the rest. */
static void test_max_min(void **state)
{
    struct fabric *f = *state;
    unsigned a = add(f, "H1", "H3", 80, 0), b = add(f, "H2", "H4", 80, 0);

    assert_int_equal(rate(f, a), 50 * GBPS);
    assert_int_equal(rate(f, b), 50 * GBPS);
    /* S1 port 3 is 100% busy: no XmitWait there; the CA ports feeding it wait half the time. */
    assert_int_equal(wait_rate(f, "S1", 3), 0);
    assert_int_equal(wait_rate(f, "H1", 1), 500000);
    assert_int_equal(fabric_flow_del(f, a), 0);
    a = add(f, "H1", "H3", 30, 0);
    assert_int_equal(rate(f, a), 30 * GBPS);
    assert_int_equal(rate(f, b), 70 * GBPS);
    assert_int_equal(wait_rate(f, "H1", 1), 0); /* demand-limited: not blocked */
}

/* A CA sinking at 10 Gb/s of 100: its switch port and the ports upstream wait 900000/s. */
static void test_ca_rate_xmit_wait(void **state)
{
    struct fabric *f = *state;
    unsigned id = add(f, "H1", "H3", 50, 0);
    struct board_port_counters c0, c1;

    assert_int_equal(fabric_ca_rate_set(f, fbed_node(f, "H3"), 10 * GBPS), 0);
    assert_int_equal(fabric_ca_rate(f, fbed_node(f, "H3")), 10 * GBPS);
    assert_int_equal(rate(f, id), 10 * GBPS);
    assert_int_equal(wait_rate(f, "S2", 1), 900000);
    assert_int_equal(wait_rate(f, "S1", 3), 900000);
    assert_int_equal(wait_rate(f, "H1", 1), 900000);
    assert_int_equal(wait_rate(f, "S2", 2), 0);
    c0 = counters(f, "S2", 1);
    advance(f, SEC);
    c1 = counters(f, "S2", 1);
    assert_int_equal(c1.xmit_wait - c0.xmit_wait, 900000);
    assert_int_equal(c1.vl_xmit_wait[0] - c0.vl_xmit_wait[0], 900000);
    assert_int_equal(c1.xmit_data - c0.xmit_data, DATA_WORDS(10 * GBPS));
    c1 = counters(f, "S1", 3);
    assert_int_equal(c1.xmit_wait, 900000);
    c1 = counters(f, "S2", 2);
    assert_int_equal(c1.xmit_wait, 0);
    /* Back to the link rate: the demand, no wait. */
    assert_int_equal(fabric_ca_rate_set(f, fbed_node(f, "H3"), 0), 0);
    assert_int_equal(rate(f, id), 50 * GBPS);
    assert_int_equal(wait_rate(f, "S2", 1), 0);
    assert_int_equal(fabric_ca_rate_set(f, fbed_node(f, "S1"), GBPS), -EINVAL);
}

/* A victim sharing the hot flow's ingress buffer on VL 0 is slowed to its pace. */
static void test_hol_same_vl(void **state)
{
    struct fabric *f = *state;
    unsigned hot = add(f, "H1", "H3", 50, 0), victim = add(f, "H1", "H4", 50, 0);
    struct board_port_counters c0, c1;

    assert_int_equal(fabric_ca_rate_set(f, fbed_node(f, "H3"), 10 * GBPS), 0);
    assert_int_equal(rate(f, hot), 10 * GBPS);
    /* FIFO at S1 port 1, VL 0: drains 10 of 50 offered by each flow. */
    assert_int_equal(rate(f, victim), 10 * GBPS);
    /* The victim's own CA port is not blocked: it sends 10 of 100, no wait. */
    assert_int_equal(wait_rate(f, "S2", 2), 0);
    assert_int_equal(wait_rate(f, "S2", 1), 900000);
    c0 = counters(f, "S2", 2);
    advance(f, SEC / 2);
    c1 = counters(f, "S2", 2);
    assert_int_equal(c1.xmit_wait - c0.xmit_wait, 0);
    assert_int_equal(c1.xmit_data - c0.xmit_data, DATA_WORDS(10 * GBPS / 2));
    /* Without the hot flow the victim gets its demand. */
    assert_int_equal(fabric_flow_del(f, hot), 0);
    assert_int_equal(rate(f, victim), 50 * GBPS);
}

/* On another VL (SL 1 -> VL 1 at every hop) the victim is not blocked. */
static void test_hol_other_vl(void **state)
{
    struct fabric *f = *state;
    unsigned hot, victim;
    struct board_port_counters c;

    sl1_to_vl1(f, "H1", 1, 1);
    sl1_to_vl1(f, "S1", 1, 3);
    sl1_to_vl1(f, "S2", 3, 2);
    hot = add(f, "H1", "H3", 50, 0);
    victim = add(f, "H1", "H4", 50, 1);
    assert_int_equal(fabric_ca_rate_set(f, fbed_node(f, "H3"), 10 * GBPS), 0);
    assert_int_equal(rate(f, hot), 10 * GBPS);
    assert_int_equal(rate(f, victim), 50 * GBPS);
    /* S1 port 3 carries 60 of 100; VL 0 is blocked: the port waits 40%, VL 0 90%. */
    assert_int_equal(wait_rate(f, "S1", 3), 400000);
    advance(f, SEC);
    c = counters(f, "S1", 3);
    assert_int_equal(c.xmit_wait, 400000);
    assert_int_equal(c.vl_xmit_wait[0], 900000);
    assert_int_equal(c.vl_xmit_wait[1], 0);
    assert_int_equal(c.xmit_data_sl[1], DATA_WORDS(50 * GBPS));
    assert_int_equal(c.xmit_data_sl[0], DATA_WORDS(10 * GBPS));
    c = counters(f, "S2", 3); /* ingress: per-VL receive counters */
    assert_int_equal(c.vl_op_data[1], DATA_WORDS(50 * GBPS));
    assert_int_equal(c.vl_op_data[0], DATA_WORDS(10 * GBPS));
    assert_int_equal(c.rcv_data_sl[1], DATA_WORDS(50 * GBPS));
}

/* Counters along the path are exact, whether advanced at once or in many small steps. */
static void test_counters_exact(void **state)
{
    struct fabric *f = *state;
    static const char *const tx[3] = {"H1", "S1", "S2"};
    static const unsigned txp[3] = {1, 3, 1};
    static const char *const rx[3] = {"S1", "S2", "H3"};
    static const unsigned rxp[3] = {1, 3, 1};
    uint64_t words = DATA_WORDS(10 * GBPS), pkts = 10 * GBPS / 8 / PKT_BYTES;

    add(f, "H1", "H3", 10, 0);
    advance(f, SEC);
    for (int k = 0; k < 3; k++) {
        struct board_port_counters c = counters(f, tx[k], txp[k]);
        struct board_port_counters d = counters(f, rx[k], rxp[k]);

        assert_int_equal(c.xmit_data, words);
        assert_int_equal(c.xmit_pkts, pkts);
        assert_int_equal(c.unicast_xmit_pkts, pkts);
        assert_int_equal(c.xmit_data_sl[0], words);
        assert_int_equal(d.rcv_data, words);
        assert_int_equal(d.rcv_pkts, pkts);
        assert_int_equal(d.unicast_rcv_pkts, pkts);
        assert_int_equal(d.rcv_data_sl[0], words);
        assert_int_equal(d.vl_op_packets[0], pkts);
        assert_int_equal(d.vl_op_data[0], words);
    }
    /* 3 s more in 3000 steps of 1 ms (and one odd 7 ns): nothing lost to rounding. */
    for (int i = 0; i < 3000; i++) {
        advance(f, SEC / 1000);
        fabric_traffic_update(f, board_now_ns(fbed_board(f, "H1")));
    }
    advance(f, 7);
    assert_int_equal(counters(f, "S1", 3).xmit_data, DATA_WORDS(4 * 10 * GBPS + 7 * 10));
    assert_int_equal(counters(f, "S1", 3).xmit_pkts, 4 * 10 * GBPS / 8 / PKT_BYTES);
}

/* Unrouted flows (no LFT entry, a pulled cable) carry nothing. */
static void test_unrouted(void **state)
{
    struct fabric *f = *state;
    struct fabric_flow_info *fi = malloc(sizeof(*fi));
    unsigned nolft = add(f, "H1", "H5", 10, 0), cut = add(f, "H2", "H4", 10, 0);

    assert_non_null(fi);
    flow(f, nolft, fi);
    assert_false(fi->routed);
    assert_int_equal(fi->rate_bps, 0);
    assert_string_equal(fi->why, "no LFT route");
    assert_int_equal(fi->num_hops, 1); /* H1 -> S1, then no entry for LID 15 */
    assert_int_equal(rate(f, cut), 10 * GBPS);
    assert_int_equal(fabric_link_set(f, fbed_node(f, "S1"), 3, false), 0);
    fabric_traffic_update(f, board_now_ns(fbed_board(f, "H1")));
    flow(f, cut, fi);
    assert_false(fi->routed);
    assert_int_equal(fi->rate_bps, 0);
    advance(f, SEC);
    assert_int_equal(counters(f, "S1", 4).xmit_data, 0);
    assert_int_equal(counters(f, "H1", 1).xmit_data, 0);
    assert_int_equal(counters(f, "H2", 1).xmit_data, 0);
    free(fi);
}

/* Bad arguments are refused; ids are not reused. */
static void test_api_errors(void **state)
{
    struct fabric *f = *state;
    unsigned id = 0, id2 = 0;

    assert_int_equal(fabric_flow_add(f, fbed_node(f, "S1"), fbed_node(f, "H1"), GBPS, 0, &id),
                     -EINVAL);
    assert_int_equal(fabric_flow_add(f, fbed_node(f, "H1"), fbed_node(f, "H1"), GBPS, 0, &id),
                     -EINVAL);
    assert_int_equal(fabric_flow_add(f, fbed_node(f, "H1"), fbed_node(f, "H2"), 0, 0, &id),
                     -EINVAL);
    assert_int_equal(fabric_flow_add(f, fbed_node(f, "H1"), fbed_node(f, "H2"), GBPS, 16, &id),
                     -EINVAL);
    assert_int_equal(fabric_flow_add(f, 99, fbed_node(f, "H2"), GBPS, 0, &id), -EINVAL);
    assert_int_equal(
        fabric_flow_add(f, fbed_node(f, "H1"), fbed_node(f, "H2"), FABRIC_FLOW_BPS_MAX + 1, 0, &id),
        -EINVAL);
    assert_int_equal(fabric_flow_del(f, 1), -ENOENT);
    assert_int_equal(fabric_flow_count(f), 0);
    assert_int_equal(fabric_flow_add(f, fbed_node(f, "H1"), fbed_node(f, "H2"), GBPS, 15, &id), 0);
    assert_int_equal(fabric_flow_del(f, id), 0);
    assert_int_equal(fabric_flow_add(f, fbed_node(f, "H1"), fbed_node(f, "H2"), GBPS, 0, &id2), 0);
    assert_int_not_equal(id, id2);
    assert_int_equal(fabric_flow_count(f), 1);
    /* The flow table is bounded (unrouted flows: H5 has no LFT entry). */
    for (unsigned i = 1; i < FABRIC_FLOWS_MAX; i++)
        assert_int_equal(fabric_flow_add(f, fbed_node(f, "H1"), fbed_node(f, "H5"), GBPS, 0, &id),
                         0);
    assert_int_equal(fabric_flow_add(f, fbed_node(f, "H1"), fbed_node(f, "H5"), GBPS, 0, &id),
                     -ENOSPC);
    assert_int_equal(fabric_flow_count(f), FABRIC_FLOWS_MAX);
}

/* error-inject: exact, details count in their aggregate, bad input refused. */
static void test_error_inject(void **state)
{
    struct fabric *f = *state;
    struct board_port_counters c;

    assert_int_equal(fabric_error_inject(f, fbed_node(f, "S1"), 2, "symbol", 7), 0);
    assert_int_equal(fabric_error_inject(f, fbed_node(f, "S1"), 2, "malformed", 3), 0);
    assert_int_equal(fabric_error_inject(f, fbed_node(f, "S1"), 2, "rcv-errors", 2), 0);
    assert_int_equal(fabric_error_inject(f, fbed_node(f, "S1"), 2, "hoq-discard", 4), 0);
    assert_int_equal(fabric_error_inject(f, fbed_node(f, "S1"), 0, "vl15-dropped", 1), 0);
    c = counters(f, "S1", 2);
    assert_int_equal(c.symbol_errors, 7);
    assert_int_equal(c.malformed_pkt_errors, 3);
    assert_int_equal(c.rcv_errors, 5);
    assert_int_equal(c.sw_hoq_lifetime_limit_discards, 4);
    assert_int_equal(c.xmit_discards, 4);
    assert_int_equal(counters(f, "S1", 0).vl15_dropped, 1);
    assert_int_equal(fabric_error_inject(f, fbed_node(f, "S1"), 2, "bogus", 1), -ENOENT);
    assert_int_equal(fabric_error_inject(f, fbed_node(f, "S1"), 9, "symbol", 1), -EINVAL);
    assert_int_equal(fabric_error_inject(f, fbed_node(f, "H1"), 0, "symbol", 1), -EINVAL);
    assert_int_equal(fabric_error_inject(f, fbed_node(f, "S1"), 2, "symbol", 0), -EINVAL);
    assert_int_equal(fabric_error_inject(f, fbed_node(f, "S1"), 2, "symbol", 1ull << 32), -EINVAL);
}

PZT_MAIN_SETUP(setup, teardown, test_single_flow, test_max_min, test_ca_rate_xmit_wait,
               test_hol_same_vl, test_hol_other_vl, test_counters_exact, test_unrouted,
               test_api_errors, test_error_inject)
