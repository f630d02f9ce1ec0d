/*
 * test_route_check.c - the route check (traffic/route_check.c) on small
 * hand-built fabrics: complete routes, a missing LFT entry, a port without a
 * link, port 0 at a transit switch, a forwarding loop, a CA that does not
 * own the LID, a ring whose routes close a channel dependency cycle, an
 * up/down tree without one, the all-routes option, a 1000-switch ring
 * (deep graph, no recursion), and LMC ranges (every LID of a CA port's or
 * a switch port 0's range walked, the report's LID counts and LMC note).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "route_check.h"
#include "route_report.h"
#include "pzt_main.h"

#define MAX_LID 4096

/* A fabric under construction: LFTs kept dense here, handed over as blocks. */
struct bed {
    struct rc_fabric *f;
    size_t nsw;
    uint16_t sw_lid[2048];
    uint8_t *lft; /* nsw x MAX_LID */
};

static void bed_init(struct bed *b)
{
    memset(b, 0, sizeof(*b));
    b->f = rc_fabric_new();
    assert_non_null(b->f);
    b->lft = malloc((size_t)2048 * MAX_LID);
    assert_non_null(b->lft);
    memset(b->lft, RC_NO_PORT, (size_t)2048 * MAX_LID);
}

/* Switch with LID lid, named "sw<lid>". */
static void bed_switch(struct bed *b, uint16_t lid, uint8_t nports)
{
    char name[32];

    snprintf(name, sizeof(name), "sw%u", lid);
    assert_int_equal(rc_fabric_add_switch(b->f, lid, 0x1000 + lid, nports, name), 0);
    b->sw_lid[b->nsw++] = lid;
}

/* Index of the switch with LID lid in the bed. */
static size_t bed_index(const struct bed *b, uint16_t lid)
{
    for (size_t i = 0; i < b->nsw; i++)
        if (b->sw_lid[i] == lid)
            return i;
    fail_msg("no switch %u", lid);
    return 0;
}

/* A cable, listed once (the check takes both directions from it). */
static void bed_link(struct bed *b, uint16_t a, uint8_t pa, uint16_t z, uint8_t pz)
{
    assert_int_equal(rc_fabric_add_link(b->f, a, pa, z, pz), 0);
}

/* LFT entry: at switch sw, LID dlid leaves by port. */
static void bed_route(struct bed *b, uint16_t sw, uint16_t dlid, uint8_t port)
{
    b->lft[bed_index(b, sw) * MAX_LID + dlid] = port;
}

/* Hand the LFTs to the fabric (every block that has an entry). */
static void bed_flush(struct bed *b)
{
    for (size_t i = 0; i < b->nsw; i++)
        for (unsigned blk = 0; blk < MAX_LID / 64; blk++) {
            const uint8_t *p = b->lft + i * MAX_LID + blk * 64;
            bool any = false;

            for (int k = 0; k < 64; k++)
                any |= p[k] != RC_NO_PORT;
            if (any)
                assert_int_equal(rc_fabric_add_lft_block(b->f, b->sw_lid[i], (uint16_t)blk, p), 0);
        }
}

static void bed_free(struct bed *b)
{
    rc_fabric_free(b->f);
    free(b->lft);
}

/*
 * A line of three switches 1 - 2 - 3 (port 1 to the left, port 2 to the
 * right), every switch routing every switch LID.
 */
static void line3(struct bed *b)
{
    bed_init(b);
    bed_switch(b, 1, 4);
    bed_switch(b, 2, 4);
    bed_switch(b, 3, 4);
    bed_link(b, 1, 2, 2, 1);
    bed_link(b, 2, 2, 3, 1);
    for (uint16_t s = 1; s <= 3; s++)
        for (uint16_t d = 1; d <= 3; d++)
            bed_route(b, s, d, d == s ? 0 : d < s ? 1 : 2);
}

static void test_line_complete(void **state)
{
    struct bed b;
    struct rc_result r;

    line3(&b);
    bed_flush(&b);
    assert_int_equal(rc_check(b.f, NULL, &r), 0);
    assert_int_equal(r.switches, 3);
    assert_int_equal(r.pairs, 6);
    assert_int_equal(r.routed, 6);
    assert_int_equal(r.nunrouted, 0);
    assert_int_equal(r.channels, 4);
    assert_int_equal(r.max_hops, 2);
    /* 1->2->3 and 3->2->1: two dependencies, no cycle */
    assert_int_equal(r.dependencies, 2);
    assert_false(r.cycle);
    assert_false(rc_result_has_findings(&r));
    rc_result_free(&r);
    bed_free(&b);
}

static void test_missing_entry(void **state)
{
    struct bed b;
    struct rc_result r;

    line3(&b);
    bed_route(&b, 2, 1, RC_NO_PORT); /* switch 2 forgets LID 1 */
    bed_flush(&b);
    assert_int_equal(rc_check(b.f, NULL, &r), 0);
    assert_int_equal(r.routed, 4);
    assert_int_equal(r.nunrouted, 2); /* 2 -> 1 and 3 -> 1 (through 2) */
    assert_int_equal(r.nunrouted_kept, 2);
    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(r.unrouted[i].dlid, 1);
        assert_int_equal(r.unrouted[i].reason, RC_NO_ENTRY);
        assert_int_equal(r.unrouted[i].at, bed_index(&b, 2));
    }
    assert_true(rc_result_has_findings(&r));
    rc_result_free(&r);
    bed_free(&b);
}

static void test_no_link_and_port_zero(void **state)
{
    struct bed b;
    struct rc_result r;

    line3(&b);
    bed_route(&b, 1, 3, 3); /* port 3 of switch 1 has no cable */
    bed_route(&b, 3, 1, 0); /* port 0 of switch 3 for a LID not its own */
    bed_flush(&b);
    assert_int_equal(rc_check(b.f, NULL, &r), 0);
    assert_int_equal(r.nunrouted, 2);
    for (size_t i = 0; i < r.nunrouted_kept; i++) {
        const struct rc_unrouted *u = &r.unrouted[i];

        if (u->dlid == 3) {
            assert_int_equal(u->src, bed_index(&b, 1));
            assert_int_equal(u->reason, RC_NO_LINK);
            assert_int_equal(u->port, 3);
        } else {
            assert_int_equal(u->dlid, 1);
            assert_int_equal(u->reason, RC_PORT_ZERO);
            assert_int_equal(u->at, bed_index(&b, 3));
        }
    }
    rc_result_free(&r);
    bed_free(&b);
}

static void test_loop(void **state)
{
    struct bed b;
    struct rc_result r;

    line3(&b);
    bed_route(&b, 2, 3, 1); /* 2 sends LID 3 back to 1, 1 sends it to 2 */
    bed_flush(&b);
    assert_int_equal(rc_check(b.f, NULL, &r), 0);
    assert_int_equal(r.loop_routes, 2); /* from 1 and from 2 */
    assert_int_equal(r.nloops, 1);
    assert_int_equal(r.loops[0].dlid, 3);
    assert_int_equal(r.loops[0].len, 2);
    assert_int_not_equal(r.loops[0].sw[0], r.loops[0].sw[1]);
    assert_int_equal(r.nunrouted, 2);
    assert_int_equal(r.unrouted[0].reason, RC_LOOP);
    rc_result_free(&r);
    bed_free(&b);
}

/*
 * A ring of n switches (LID i + 1; port 1 counter-clockwise, port 2
 * clockwise) where every route goes clockwise: the classic dependency cycle.
 */
static void ring(struct bed *b, uint16_t n)
{
    bed_init(b);
    for (uint16_t i = 1; i <= n; i++)
        bed_switch(b, i, 2);
    for (uint16_t i = 1; i <= n; i++)
        bed_link(b, i, 2, (uint16_t)(i % n + 1), 1);
    for (uint16_t s = 1; s <= n; s++)
        for (uint16_t d = 1; d <= n; d++)
            bed_route(b, s, d, d == s ? 0 : 2);
    bed_flush(b);
}

/* The cycle is a closed chain of channels of the ring. */
static void assert_closed_cycle(const struct rc_result *r)
{
    assert_true(r->cycle);
    assert_true(r->cycle_len >= 2);
    for (size_t i = 0; i < r->cycle_len; i++)
        assert_int_equal(r->cycle_channels[i].to, r->cycle_channels[(i + 1) % r->cycle_len].from);
}

static void test_ring_cycle(void **state)
{
    struct bed b;
    struct rc_result r;
    char *text = NULL;
    size_t len = 0;
    FILE *out;

    ring(&b, 4);
    assert_int_equal(rc_check(b.f, NULL, &r), 0);
    assert_int_equal(r.routed, 12);
    assert_int_equal(r.channels, 8);
    assert_int_equal(r.max_hops, 3);
    assert_int_equal(r.cycle_len, 4);
    assert_closed_cycle(&r);
    out = open_memstream(&text, &len);
    rc_report_text(out, b.f, &r, NULL);
    fclose(out);
    assert_non_null(strstr(text, "cycle: yes"));
    assert_non_null(strstr(text, "cycle (4 channels):"));
    assert_non_null(strstr(text, "sw1 (LID 1) port 2 -> sw2 (LID 2)"));
    free(text);
    rc_result_free(&r);
    bed_free(&b);
}

/*
 * Two leaves (LIDs 1, 2) and two spines (LIDs 3, 4), leaf l port s+0 cabled
 * to spine s port l, a CA at LID ca1 on leaf 1 port 1 and one at ca2 on
 * leaf 2 port 1, and the up/down switch-to-switch routes: leaves reach the
 * other leaf through spine 3 and the spines directly; a spine reaches the
 * other spine through leaf 1 (a down-up turn, allowed once).  The routes to
 * the CAs are the caller's.
 */
static void tree_switches(struct bed *b, uint16_t ca1, uint16_t ca2)
{
    char name[2][8];

    bed_init(b);
    for (uint16_t i = 1; i <= 4; i++)
        bed_switch(b, i, 4);
    bed_link(b, 1, 3, 3, 1);
    bed_link(b, 1, 4, 4, 1);
    bed_link(b, 2, 3, 3, 2);
    bed_link(b, 2, 4, 4, 2);
    snprintf(name[0], sizeof(name[0]), "ca%u", ca1);
    snprintf(name[1], sizeof(name[1]), "ca%u", ca2);
    assert_int_equal(rc_fabric_add_endpoint(b->f, ca1, 0xa0, 1, name[0]), 0);
    assert_int_equal(rc_fabric_add_endpoint(b->f, ca2, 0xa1, 1, name[1]), 0);
    bed_link(b, ca1, 1, 1, 1);
    bed_link(b, 2, 1, ca2, 1);
    bed_route(b, 1, 1, 0), bed_route(b, 1, 2, 3), bed_route(b, 1, 3, 3), bed_route(b, 1, 4, 4);
    bed_route(b, 2, 2, 0), bed_route(b, 2, 1, 3), bed_route(b, 2, 3, 3), bed_route(b, 2, 4, 4);
    for (uint16_t s = 3; s <= 4; s++) {
        bed_route(b, s, s, 0);
        bed_route(b, s, 1, 1), bed_route(b, s, 2, 2);
        bed_route(b, s, (uint16_t)(7 - s), 1);
    }
}

/*
 * tree_switches() with CAs at LIDs 10 and 11: each leaf reaches its own CA
 * on port 1 and the other leaf's through spine 3; spines go down to them.
 * No cycle.
 */
static void tree(struct bed *b)
{
    tree_switches(b, 10, 11);
    bed_route(b, 1, 10, 1), bed_route(b, 1, 11, 3);
    bed_route(b, 2, 11, 1), bed_route(b, 2, 10, 3);
    for (uint16_t s = 3; s <= 4; s++)
        bed_route(b, s, 10, 1), bed_route(b, s, 11, 2);
}

static void test_tree_no_cycle_all_routes(void **state)
{
    struct bed b;
    struct rc_result r;
    struct rc_options o = {.all_routes = true};

    tree(&b);
    bed_flush(&b);
    assert_int_equal(rc_check(b.f, NULL, &r), 0);
    assert_int_equal(r.routed, 12);
    assert_int_equal(r.ca_pairs, 0);
    assert_false(r.cycle);
    rc_result_free(&r);
    assert_int_equal(rc_check(b.f, &o, &r), 0);
    assert_int_equal(r.endpoints, 2);
    assert_int_equal(r.ca_pairs, 8);
    assert_int_equal(r.ca_routed, 8);
    assert_int_equal(r.max_hops, 3); /* leaf 2 -> spine 3 -> leaf 1 -> CA 10 */
    assert_false(r.cycle);
    rc_result_free(&r);
    bed_free(&b);
}

static void test_wrong_ca(void **state)
{
    struct bed b;
    struct rc_result r;
    struct rc_options o = {.all_routes = true};

    tree(&b);
    bed_route(&b, 2, 10, 1); /* leaf 2 hands CA 10's packets to its own CA 11 */
    bed_flush(&b);
    assert_int_equal(rc_check(b.f, &o, &r), 0);
    assert_int_equal(r.ca_routed, 7); /* only leaf 2's own route to CA 10 breaks */
    assert_int_equal(r.nunrouted, 1);
    assert_int_equal(r.unrouted[0].src, bed_index(&b, 2));
    assert_int_equal(r.unrouted[0].dlid, 10);
    assert_int_equal(r.unrouted[0].reason, RC_WRONG_CA);
    assert_int_equal(r.unrouted[0].port, 1);
    rc_result_free(&r);
    bed_free(&b);
}

static void test_limits_and_errors(void **state)
{
    struct bed b;
    struct rc_result r;
    struct rc_options o = {.max_unrouted = 1};
    struct rc_fabric *empty = rc_fabric_new();
    bool is_switch = false;

    assert_int_equal(rc_check(empty, NULL, &r), -1);
    assert_int_equal(rc_fabric_add_switch(empty, 0, 1, 4, "lid0"), -1);
    assert_int_equal(rc_fabric_add_switch(empty, 0xc000, 1, 4, "mcast"), -1);
    assert_int_equal(rc_fabric_add_link(empty, 1, 255, 2, 1), -1);
    rc_fabric_free(empty);
    line3(&b);
    /* a second record for LID 2 is ignored */
    assert_int_equal(rc_fabric_add_endpoint(b.f, 2, 0xbad, 1, "dup"), 0);
    assert_string_equal(rc_fabric_lid_name(b.f, 2, &is_switch), "sw2");
    assert_true(is_switch);
    assert_null(rc_fabric_lid_name(b.f, 77, NULL));
    /* no LFT at all: every pair unrouted, one kept */
    assert_int_equal(rc_check(b.f, &o, &r), 0);
    assert_int_equal(r.nunrouted, 6);
    assert_int_equal(r.nunrouted_kept, 1);
    rc_result_free(&r);
    bed_free(&b);
}

static void test_big_ring(void **state)
{
    struct bed b;
    struct rc_result r;

    ring(&b, 1000);
    assert_int_equal(rc_check(b.f, NULL, &r), 0);
    assert_int_equal(r.routed, 1000 * 999);
    assert_int_equal(r.max_hops, 999);
    assert_int_equal(r.dependencies, 1000);
    assert_int_equal(r.cycle_len, 1000);
    assert_closed_cycle(&r);
    rc_result_free(&r);
    bed_free(&b);
}

static void test_json(void **state)
{
    struct bed b;
    struct rc_result r;
    struct rc_timing t = {.read_s = 0.5, .check_s = 0.25};
    char *text = NULL;
    size_t len = 0;
    FILE *out;

    line3(&b);
    bed_route(&b, 2, 1, RC_NO_PORT);
    bed_flush(&b);
    assert_int_equal(rc_check(b.f, NULL, &r), 0);
    out = open_memstream(&text, &len);
    rc_report_json(out, b.f, &r, &t);
    fclose(out);
    assert_non_null(strstr(text, "\"pairs\": 6, \"routed\": 4, \"unrouted\": 2"));
    assert_non_null(strstr(text, "\"cycle\": false"));
    assert_non_null(strstr(text, "\"check_seconds\": 0.250000"));
    assert_non_null(strstr(text, "{\"src\": {\"name\": \"sw2\", \"lid\": 2}, \"dst\": {\"name\": "
                                 "\"sw1\", \"lid\": 1}, \"reason\": \"no LFT entry\""));
    free(text);
    rc_result_free(&r);
    bed_free(&b);
}

/* rc_route_hops: one route's links, walked from the tables alone. */
static void test_route_hops(void **state)
{
    struct bed b;

    line3(&b);
    bed_flush(&b);
    assert_int_equal(rc_route_hops(b.f, 1, 1), 0);
    assert_int_equal(rc_route_hops(b.f, 1, 2), 1);
    assert_int_equal(rc_route_hops(b.f, 1, 3), 2);
    assert_int_equal(rc_route_hops(b.f, 3, 1), 2);
    assert_int_equal(rc_route_hops(b.f, 9, 1), -1); /* no such switch */
    assert_int_equal(rc_route_hops(b.f, 1, 9), -1); /* no LFT entry */
    assert_int_equal(rc_route_hops(NULL, 1, 2), -1);
    bed_free(&b);
    line3(&b);
    bed_route(&b, 2, 3, 1); /* the loop of test_loop */
    bed_flush(&b);
    assert_int_equal(rc_route_hops(b.f, 1, 3), -1);
    assert_int_equal(rc_route_hops(b.f, 3, 1), 2);
    bed_free(&b);
}

/*
 * tree_switches() with its CAs at LIDs 16 (LMC 2 when told: 16 .. 19)
 * and 20 (LMC 1: 20, 21); the leaves spread the CA LIDs over both spines
 * (base and +2 through spine 3, +1 and +3 through spine 4), as an LMC
 * routing does; leaf 2 has no entry for LID 19.
 */
static void tree_lmc(struct bed *b)
{
    tree_switches(b, 16, 20);
    for (uint16_t d = 16; d <= 19; d++) {
        bed_route(b, 1, d, 1);
        if (d != 19)
            bed_route(b, 2, d, d % 2 ? 4 : 3);
    }
    for (uint16_t d = 20; d <= 21; d++) {
        bed_route(b, 2, d, 1);
        bed_route(b, 1, d, d % 2 ? 4 : 3);
    }
    for (uint16_t s = 3; s <= 4; s++)
        for (uint16_t d = 16; d <= 21; d++)
            bed_route(b, s, d, d < 20 ? 1 : 2);
    bed_flush(b);
}

/* LMC ranges: which LIDs a port may be given, and the check walking all of them. */
static void test_lmc_ranges(void **state)
{
    struct bed b;
    struct rc_result r0, r;
    struct rc_options o = {.all_routes = true};
    const char *why = NULL;
    bool is_switch = true;

    tree_lmc(&b);
    /* not told: base LIDs only, 4 switches x 2 CA LIDs */
    assert_false(rc_fabric_lmc_known(b.f, &why));
    assert_string_equal(why, "not asked");
    assert_int_equal(rc_check(b.f, &o, &r0), 0);
    assert_int_equal(r0.ca_pairs, 8);
    assert_int_equal(r0.ca_routed, 8);
    assert_int_equal(r0.ca_lids, 2);
    assert_int_equal(r0.switch_lids, 4);
    assert_int_equal(r0.lmc_ports, 0);
    assert_false(r0.lmc_known);
    assert_null(rc_fabric_lid_name(b.f, 17, NULL));

    /* refused: not a base LID, no node, LMC above 7, a range into another node's LIDs */
    assert_int_equal(rc_fabric_set_lmc(b.f, 17, 0), -1);
    assert_int_equal(rc_fabric_set_lmc(b.f, 99, 1), -1);
    assert_int_equal(rc_fabric_set_lmc(b.f, 16, 8), -1);
    assert_int_equal(rc_fabric_set_lmc(b.f, 3, 1), -1);  /* 3 .. 4: switch 4's */
    assert_int_equal(rc_fabric_set_lmc(b.f, 16, 3), -1); /* 16 .. 23: ca20's */
    assert_int_equal(rc_fabric_set_lmc(b.f, 0, 0), -1);
    /* a larger LMC, then a smaller one: the LIDs beyond it are given back */
    assert_int_equal(rc_fabric_set_lmc(b.f, 20, 2), 0);
    assert_string_equal(rc_fabric_lid_name(b.f, 23, NULL), "ca20");
    assert_int_equal(rc_fabric_set_lmc(b.f, 20, 1), 0);
    assert_null(rc_fabric_lid_name(b.f, 22, NULL));
    assert_int_equal(rc_fabric_set_lmc(b.f, 16, 2), 0);
    assert_string_equal(rc_fabric_lid_name(b.f, 19, &is_switch), "ca16");
    assert_false(is_switch);
    rc_fabric_set_lmc_known(b.f, true, NULL);
    assert_true(rc_fabric_lmc_known(b.f, NULL));

    /* every LID walked: 4 switches x 6 CA LIDs; leaf 2's route to 19 missing */
    assert_int_equal(rc_check(b.f, &o, &r), 0);
    assert_int_equal(r.ca_lids, 6);
    assert_int_equal(r.switch_lids, 4);
    assert_int_equal(r.lmc_ports, 2);
    assert_int_equal(r.max_lmc, 2);
    assert_true(r.lmc_known);
    assert_int_equal(r.ca_pairs, 24);
    assert_int_equal(r.ca_routed, 23);
    assert_int_equal(r.pairs, 12);
    assert_int_equal(r.nunrouted, 1);
    assert_int_equal(r.unrouted[0].src, bed_index(&b, 2));
    assert_int_equal(r.unrouted[0].dlid, 19);
    assert_int_equal(r.unrouted[0].reason, RC_NO_ENTRY);
    /* the +1 LIDs' routes through spine 4 add leaf 2 -> spine 4 -> leaf 1 and back */
    assert_int_equal(r.dependencies, r0.dependencies + 2);
    assert_false(r.cycle);
    assert_int_equal(rc_route_hops(b.f, 2, 17), 3);
    assert_int_equal(rc_route_hops(b.f, 2, 19), -1);
    assert_int_equal(rc_route_hops(b.f, 3, 21), 2);
    rc_result_free(&r0);
    rc_result_free(&r);
    bed_free(&b);
}

/* A switch whose port 0 has LMC 1 (enhanced port 0): both its LIDs are destinations. */
static void test_lmc_switch(void **state)
{
    struct bed b;
    struct rc_result r;
    char *text = NULL;
    size_t len = 0;
    FILE *out;

    bed_init(&b);
    bed_switch(&b, 2, 4);
    bed_switch(&b, 4, 4);
    bed_switch(&b, 6, 4);
    bed_link(&b, 2, 2, 4, 1);
    bed_link(&b, 4, 2, 6, 1);
    for (uint16_t s = 2; s <= 6; s += 2)
        for (uint16_t d = 2; d <= 6; d++)
            bed_route(&b, s, d, d == s || d == s + 1 ? 0 : d < s ? 1 : 2);
    bed_route(&b, 6, 5, RC_NO_PORT); /* switch 6 knows only switch 4's base LID */
    bed_flush(&b);
    assert_int_equal(rc_fabric_set_lmc(b.f, 4, 1), 0);
    rc_fabric_set_lmc_known(b.f, true, NULL);
    assert_int_equal(rc_check(b.f, NULL, &r), 0);
    assert_int_equal(r.switch_lids, 4);
    assert_int_equal(r.pairs, 8); /* to 2 and 6 from two switches each, to 4 and 5 from two */
    assert_int_equal(r.routed, 7);
    assert_int_equal(r.unrouted[0].dlid, 5);
    out = open_memstream(&text, &len);
    rc_report_text(out, b.f, &r, NULL);
    rc_report_json(out, b.f, &r, NULL);
    fclose(out);
    assert_non_null(strstr(text, "LIDs: switches 4, CA ports 0 (LMC from PortInfoRecords: 1 ports "
                                 "above 0, at most 1)"));
    assert_non_null(strstr(text, "-> sw4 (LID 5): no LFT entry at sw6 (LID 6)"));
    assert_non_null(strstr(text, "\"switch_lids\": 4, \"ca_lids\": 0, \"lmc_ports\": 1, "
                                 "\"max_lmc\": 1,\n  \"lmc_known\": true, \"lmc_note\": null,"));
    free(text);
    rc_result_free(&r);
    /* not read: the note, LMC 0 everywhere */
    rc_fabric_set_lmc_known(b.f, false, "the SA has no PortInfoRecords");
    assert_int_equal(rc_check(b.f, NULL, &r), 0);
    out = open_memstream(&text, &len);
    rc_report_text(out, b.f, &r, NULL);
    rc_report_json(out, b.f, &r, NULL);
    fclose(out);
    assert_non_null(strstr(text, "(LMC not read: the SA has no PortInfoRecords; every port taken "
                                 "as LMC 0)"));
    assert_non_null(strstr(text, "\"lmc_known\": false, \"lmc_note\": \"the SA has no "
                                 "PortInfoRecords\""));
    free(text);
    rc_result_free(&r);
    bed_free(&b);
}

PZT_MAIN(test_line_complete, test_missing_entry, test_no_link_and_port_zero, test_loop,
         test_ring_cycle, test_tree_no_cycle_all_routes, test_wrong_ca, test_limits_and_errors,
         test_big_ring, test_json, test_route_hops, test_lmc_ranges, test_lmc_switch)
