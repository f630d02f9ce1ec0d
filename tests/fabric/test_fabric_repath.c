/*
 * test_fabric_repath.c - the emulated hosts' side of dFtree
 * (fabric_repath.h) on a hand-built fabric with manual clocks: repath and
 * fast-lane notices (dftree/dftree_notice.h) sent by a client at H5 as
 * pz-dftree sends them, through the fabric to H1.
 *
 *   S1 [1] H1, [2] H2, [3] S2[3], [4] H5     LIDs: S1 1, S2 2,
 *   S2 [1] H3, [2] H4, [3] S1[3]                   H1 11, H2 12, H3 13, H4 14, H5 15
 *
 * SL 1 maps to VL 1 at every hop.  H3 is the hot-spot (receives 10 Gb/s);
 * H1 and H2 send it 50 Gb/s each (contributors); H1 also sends 50 Gb/s to
 * H4 (the victim: it shares S1's ingress buffer of port 1 with H1's
 * contributor flow).  Checks: the victim is held to the contributor's pace;
 * a repath notice to H1 moves only its flow to H3 to SL 1, stamps when,
 * answers status 0, and the victim gets its demand while the contributors
 * keep their rates; a new flow from H1 to H3 starts on SL 1; the fast-lane
 * notice moves it back; bad notices (unknown LID, another trap, an issuer
 * that is not the source, an untrusted issuer, another vendor, a short
 * MAD) move nothing; configurable lanes.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dftree_notice.h"
#include "fabric.h"
#include "fabric_bed.h"
#include "fabric_internal.h"
#include "fabric_repath.h"
#include "fabric_traffic.h"
#include "pzt_main.h"

#define GBPS 1000000000ull
#define T0 1000000000000ull
#define SEC 1000000000ull
#define LID_H3 13
#define LID_H5 15

static const char net[] = FBED_NET_2S4H("[4] \"H5\"[1]\n", "\n"
                                                           "Hca 1 \"H5\"\n"
                                                           "[1] \"S1\"[4]\n");

/* The test's fabric and the last MAD the client at H5 (client 0) received. */
struct bed {
    struct fabric *f;
    struct fabric_mad got;
    unsigned received;
};

/* Keep what the fabric hands the client. */
static void deliver(void *arg, unsigned client, const struct fabric_mad *m)
{
    struct bed *b = arg;

    (void)client;
    b->got = *m;
    b->received++;
}

/* Map SL 1 to VL 1 in the (in, out) table of name. */
static void sl1_to_vl1(struct fabric *f, const char *name, unsigned in, unsigned out)
{
    uint8_t vl[16] = {0};

    vl[1] = 1;
    assert_int_equal(board_sl2vl_set(fbed_board(f, name), in, out, vl), 0);
}

/* Build the fabric: manual clocks, LIDs, Active links, LFTs, SL 1 -> VL 1, the client. */
static int setup(void **state)
{
    static const char *const cas[5] = {"H1", "H2", "H3", "H4", "H5"};
    static const char *const sw[5] = {"S1", "S1", "S2", "S2", "S1"};
    static const unsigned swport[5] = {1, 2, 1, 2, 4};
    static const uint16_t lids[7] = {1, 2, 11, 12, 13, 14, 15};
    static const uint8_t s1[7] = {0, 3, 1, 2, 3, 3, 4}, s2[7] = {3, 0, 3, 3, 1, 2, 3};
    struct bed *b = calloc(1, sizeof(*b));
    struct fabric *f = fbed_fabric(net);

    assert_non_null(b);
    b->f = f;
    for (size_t i = 0; i < fabric_num_nodes(f); i++)
        board_mem_use_manual_clock(f->nodes[i].bm, T0);
    board_set_lid(fbed_board(f, "S1"), 0, 1, 0);
    board_set_lid(fbed_board(f, "S2"), 0, 2, 0);
    for (unsigned i = 0; i < 5; i++) {
        board_set_lid(fbed_board(f, cas[i]), 1, (uint16_t)(11 + i), 0);
        fbed_activate(f, cas[i], 1);
        fbed_activate(f, sw[i], swport[i]);
        sl1_to_vl1(f, cas[i], 1, 1);
    }
    fbed_activate(f, "S1", 3);
    fbed_activate(f, "S2", 3);
    fbed_program_lft(f, "S1", lids, s1, 7);
    fbed_program_lft(f, "S2", lids, s2, 7);
    for (unsigned in = 1; in <= 4; in++)
        for (unsigned out = 1; out <= 4; out++) {
            sl1_to_vl1(f, "S1", in, out);
            sl1_to_vl1(f, "S2", in, out);
        }
    fabric_set_deliver(f, deliver, b);
    assert_int_equal(fabric_client_attach(f, 0, fbed_node(f, "H5"), false), 0);
    *state = b;
    return 0;
}

/* Advance every node's manual clock by ns. */
static void advance(struct fabric *f, uint64_t ns)
{
    for (size_t i = 0; i < fabric_num_nodes(f); i++)
        board_mem_advance_ns(f->nodes[i].bm, ns);
}

/* Add a flow of gbps on SL sl; returns its id. */
static unsigned add(struct fabric *f, const char *src, const char *dst, uint64_t gbps, unsigned sl)
{
    unsigned id = 0;

    assert_int_equal(fabric_flow_add(f, fbed_node(f, src), fbed_node(f, dst), gbps * GBPS, sl, &id),
                     0);
    return id;
}

/* The flow with id id into *fi. */
static void flow(struct fabric *f, unsigned id, struct fabric_flow_info *fi)
{
    for (size_t i = 0; fabric_flow_get(f, i, fi) == 0; i++)
        if (fi->id == id)
            return;
    fail_msg("no flow %u", id);
}

/* Flow id's achieved rate (b/s), SL and last move time. */
static uint64_t rate(struct fabric *f, unsigned id, unsigned *sl, uint64_t *moved_ns)
{
    struct fabric_flow_info *fi = malloc(sizeof(*fi));
    uint64_t r;

    assert_non_null(fi);
    flow(f, id, fi);
    r = fi->rate_bps;
    if (sl)
        *sl = fi->sl;
    if (moved_ns)
        *moved_ns = fi->moved_ns;
    free(fi);
    return r;
}

/*
 * Send a notice (trap, hot LID) from the client at H5 to the host with LID
 * to, with issuer LID issuer and vendor vendor; returns the answer's MAD
 * status, or -1 when the request came back timed out (no answer).
 */
static int notify_to(struct bed *b, uint16_t to, uint16_t trap, uint16_t hot_lid, uint16_t issuer,
                     uint32_t vendor)
{
    struct dftree_notice n = {.tid = 0x1234 + b->received,
                              .vendor_id = vendor,
                              .device_id = DFTREE_DEVICE_ID,
                              .issuer_lid = issuer,
                              .trap = trap,
                              .hot_lid = hot_lid,
                              .switch_lid = 2,
                              .switch_port = 1};
    struct fabric_mad m = {.dlid = to, .sqp = 1, .dqp = 1};
    struct dftree_notice got;
    const char *why;
    unsigned before = b->received;

    dftree_notice_build(m.mad, &n);
    assert_int_equal(fabric_client_send(b->f, 0, &m), 0);
    assert_int_equal(b->received, before + 1);
    if (b->got.status == FABRIC_STATUS_TIMEOUT)
        return -1;
    assert_int_equal(dftree_notice_parse(b->got.mad, FABRIC_MAD_SIZE, &got, &why), 0);
    assert_int_equal(got.method, 0x86);
    assert_int_equal(got.tid, n.tid);
    assert_int_equal(b->got.slid, to);
    return got.status;
}

/* notify_to() H1 (LID 11). */
static int notify(struct bed *b, uint16_t trap, uint16_t hot_lid, uint16_t issuer, uint32_t vendor)
{
    return notify_to(b, 11, trap, hot_lid, issuer, vendor);
}

/* The scenario's flows: contributors H1 and H2 to H3 (10 Gb/s sink), victim H1 -> H4. */
static void scenario(struct fabric *f, unsigned *c1, unsigned *c2, unsigned *victim)
{
    *c1 = add(f, "H1", "H3", 50, 0);
    *c2 = add(f, "H2", "H3", 50, 0);
    *victim = add(f, "H1", "H4", 50, 0);
    assert_int_equal(fabric_ca_rate_set(f, fbed_node(f, "H3"), 10 * GBPS), 0);
}

/* Repath, a new flow, fast lane: the whole loop on H1. */
static void test_repath_and_back(void **state)
{
    struct bed *b = *state;
    struct fabric *f = b->f;
    struct fabric_repath_stats st;
    unsigned c1, c2, victim, sl, c3;
    uint64_t moved;

    scenario(f, &c1, &c2, &victim);
    assert_int_equal(rate(f, c1, &sl, &moved), 5 * GBPS);
    assert_int_equal(sl, 0);
    assert_int_equal(moved, 0);
    assert_int_equal(rate(f, c2, NULL, NULL), 5 * GBPS);
    /* Held to its contributor's pace in S1's ingress buffer of port 1, VL 0. */
    assert_int_equal(rate(f, victim, NULL, NULL), 5 * GBPS);

    advance(f, SEC);
    assert_int_equal(notify(b, DFTREE_TRAP_REPATH, LID_H3, LID_H5, DFTREE_VENDOR_ID), 0);
    assert_int_equal(rate(f, c1, &sl, &moved), 5 * GBPS); /* the contributor loses nothing */
    assert_int_equal(sl, 1);
    assert_int_equal(moved, T0 + SEC);
    assert_int_equal(rate(f, c2, &sl, &moved), 5 * GBPS);
    assert_int_equal(sl, 0); /* H2 was not told */
    assert_int_equal(moved, 0);
    /* Still held: H2's contributor flow shares S2's ingress buffer of port 3, VL 0. */
    assert_int_equal(rate(f, victim, NULL, NULL), 5 * GBPS);
    assert_int_equal(notify_to(b, 12, DFTREE_TRAP_REPATH, LID_H3, LID_H5, DFTREE_VENDOR_ID), 0);
    assert_int_equal(rate(f, c2, &sl, &moved), 5 * GBPS);
    assert_int_equal(sl, 1);
    assert_int_equal(moved, T0 + SEC);
    assert_int_equal(rate(f, c1, NULL, NULL), 5 * GBPS);       /* the contributors lose nothing */
    assert_int_equal(rate(f, victim, &sl, &moved), 50 * GBPS); /* its demand: no HOL blocking */
    assert_int_equal(sl, 0);
    assert_int_equal(moved, 0);
    assert_true(fabric_repath_is_hot(f, fbed_node(f, "H1"), fbed_node(f, "H3")));
    assert_false(fabric_repath_is_hot(f, fbed_node(f, "H4"), fbed_node(f, "H3")));

    /* A second repath for the same hot-spot moves nothing and is still answered. */
    assert_int_equal(notify(b, DFTREE_TRAP_REPATH, LID_H3, LID_H5, DFTREE_VENDOR_ID), 0);
    assert_int_equal(rate(f, c1, NULL, &moved), 5 * GBPS);
    assert_int_equal(moved, T0 + SEC);

    /* A new flow to the hot-spot starts on the slow lane; one to elsewhere does not. */
    advance(f, SEC);
    c3 = add(f, "H1", "H3", 20, 0);
    rate(f, c3, &sl, &moved);
    assert_int_equal(sl, 1);
    assert_int_equal(moved, T0 + 2 * SEC);
    rate(f, add(f, "H1", "H2", 20, 0), &sl, &moved);
    assert_int_equal(sl, 0);
    assert_int_equal(moved, 0);
    /* A flow on another SL stays there. */
    rate(f, add(f, "H1", "H3", 20, 3), &sl, NULL);
    assert_int_equal(sl, 3);

    /* Fast lane: both slow flows back on SL 0, the victim held again. */
    advance(f, SEC);
    assert_int_equal(notify(b, DFTREE_TRAP_FAST_LANE, LID_H3, LID_H5, DFTREE_VENDOR_ID), 0);
    rate(f, c1, &sl, &moved);
    assert_int_equal(sl, 0);
    assert_int_equal(moved, T0 + 3 * SEC);
    rate(f, c3, &sl, NULL);
    assert_int_equal(sl, 0);
    assert_true(rate(f, victim, NULL, NULL) < 50 * GBPS);
    assert_false(fabric_repath_is_hot(f, fbed_node(f, "H1"), fbed_node(f, "H3")));
    /* After the clear a new flow stays on the fast lane. */
    rate(f, add(f, "H1", "H3", 20, 0), &sl, NULL);
    assert_int_equal(sl, 0);

    fabric_repath_get_stats(f, &st);
    assert_int_equal(st.notices, 4);
    assert_int_equal(st.repaths, 3);
    assert_int_equal(st.fast, 1);
    assert_int_equal(st.moves, 4); /* c1 there and back, c2 there, c3 back */
    assert_int_equal(st.refused, 0);
    assert_int_equal(st.dropped, 0);
}

/* Bad notices: answered 0x1C or dropped, and nothing moves. */
static void test_bad_notices(void **state)
{
    struct bed *b = *state;
    struct fabric *f = b->f;
    struct fabric_repath_stats st;
    struct fabric_mad m = {.dlid = 11, .sqp = 1, .dqp = 1, .len = 64};
    unsigned c1, c2, victim, sl;

    scenario(f, &c1, &c2, &victim);
    /* LID 99 and LID 2 (a switch's) are no CA port's; 0xC001 is multicast; 0 is none. */
    assert_int_equal(notify(b, DFTREE_TRAP_REPATH, 99, LID_H5, DFTREE_VENDOR_ID),
                     DFTREE_STATUS_INVALID);
    assert_int_equal(notify(b, DFTREE_TRAP_REPATH, 2, LID_H5, DFTREE_VENDOR_ID),
                     DFTREE_STATUS_INVALID);
    assert_int_equal(notify(b, DFTREE_TRAP_REPATH, 0xC001, LID_H5, DFTREE_VENDOR_ID),
                     DFTREE_STATUS_INVALID);
    assert_int_equal(notify(b, DFTREE_TRAP_REPATH, 0, LID_H5, DFTREE_VENDOR_ID),
                     DFTREE_STATUS_INVALID);
    /* Another trap number (the switches' onset). */
    assert_int_equal(notify(b, 0x0001, LID_H3, LID_H5, DFTREE_VENDOR_ID), DFTREE_STATUS_INVALID);
    /* An IssuerLID that is not the source: dropped, the sender times out. */
    assert_int_equal(notify(b, DFTREE_TRAP_REPATH, LID_H3, 12, DFTREE_VENDOR_ID), -1);
    /* Another vendor: dropped. */
    assert_int_equal(notify(b, DFTREE_TRAP_REPATH, LID_H3, LID_H5, 0x001405), -1);
    /* Too short (a 64-byte umad write): dropped. */
    dftree_notice_build(m.mad, &(struct dftree_notice){.vendor_id = DFTREE_VENDOR_ID,
                                                       .device_id = DFTREE_DEVICE_ID,
                                                       .issuer_lid = LID_H5,
                                                       .trap = DFTREE_TRAP_REPATH,
                                                       .hot_lid = LID_H3});
    assert_int_equal(fabric_client_send(f, 0, &m), 0);
    assert_int_equal(b->got.status, FABRIC_STATUS_TIMEOUT);
    /* Only H2 is trusted: H5's notice is dropped. */
    assert_int_equal(fabric_repath_trust(f, fbed_node(f, "H2")), 0);
    assert_int_equal(notify(b, DFTREE_TRAP_REPATH, LID_H3, LID_H5, DFTREE_VENDOR_ID), -1);
    assert_int_equal(fabric_repath_trust(f, 999), -EINVAL);

    rate(f, c1, &sl, NULL);
    assert_int_equal(sl, 0);
    assert_int_equal(rate(f, victim, NULL, NULL), 5 * GBPS);
    assert_false(fabric_repath_is_hot(f, fbed_node(f, "H1"), fbed_node(f, "H3")));
    fabric_repath_get_stats(f, &st);
    assert_int_equal(st.notices, 9);
    assert_int_equal(st.refused, 5);
    assert_int_equal(st.dropped, 4);
    assert_int_equal(st.moves, 0);

    /* Trusting H5 too: taken. */
    assert_int_equal(fabric_repath_trust(f, fbed_node(f, "H5")), 0);
    assert_int_equal(notify(b, DFTREE_TRAP_REPATH, LID_H3, LID_H5, DFTREE_VENDOR_ID), 0);
    rate(f, c1, &sl, NULL);
    assert_int_equal(sl, 1);
}

/* Other lanes: fast SL 2, slow SL 5; bad lane settings refused. */
static void test_lanes(void **state)
{
    struct bed *b = *state;
    struct fabric *f = b->f;
    unsigned fast, slow, on_fast, on_zero, sl;

    fabric_repath_lanes(f, &fast, &slow);
    assert_int_equal(fast, FABRIC_FAST_SL_DEFAULT);
    assert_int_equal(slow, FABRIC_SLOW_SL_DEFAULT);
    assert_int_equal(fabric_repath_set_lanes(f, 2, 2), -EINVAL);
    assert_int_equal(fabric_repath_set_lanes(f, 16, 1), -EINVAL);
    assert_int_equal(fabric_repath_set_lanes(f, 0, 16), -EINVAL);
    assert_int_equal(fabric_repath_set_lanes(f, 2, 5), 0);
    fabric_repath_lanes(f, &fast, &slow);
    assert_int_equal(fast, 2);
    assert_int_equal(slow, 5);
    on_fast = add(f, "H1", "H3", 10, 2);
    on_zero = add(f, "H1", "H3", 10, 0);
    assert_int_equal(fabric_repath_apply(f, fbed_node(f, "H1"), LID_H3, true), 1);
    rate(f, on_fast, &sl, NULL);
    assert_int_equal(sl, 5);
    rate(f, on_zero, &sl, NULL);
    assert_int_equal(sl, 0);
    assert_int_equal(fabric_repath_apply(f, fbed_node(f, "H1"), LID_H3, false), 1);
    rate(f, on_fast, &sl, NULL);
    assert_int_equal(sl, 2);
    assert_int_equal(fabric_repath_apply(f, fbed_node(f, "S1"), LID_H3, true), -EINVAL);
}

PZT_MAIN_SETUP(setup, fbed_teardown, test_repath_and_back, test_bad_notices, test_lanes)
