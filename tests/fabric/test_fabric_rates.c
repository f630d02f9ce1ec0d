/*
 * test_fabric_rates.c - the traffic model's rate solver
 * (fabric/fabric_traffic_rates.c) alone, on flows whose paths are written
 * by hand: max-min fair sharing of a link, a demand below the fair share,
 * a CA's receive rate, head-of-line blocking in a switch ingress buffer
 * (and none at a CA), an unrouted flow.  Rates in bit/s, exact to 1e-6.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "fabric_traffic_internal.h"

#define G 1000000000.0
#define NODES 16
#define SW 10 /* the switch's node index */

/* One hop of a hand-written path. */
struct hop {
    uint32_t tx_node;
    uint8_t tx_port;
    uint32_t rx_node;
    uint8_t rx_port;
    double gbps;
};

/* A routed flow to dst demanding gbps over hops[0..n). */
static void flow(struct tr_flow *fl, uint32_t dst, double gbps, const struct hop *hops, unsigned n)
{
    memset(fl, 0, sizeof(*fl));
    fl->dst = dst;
    fl->demand_bps = (uint64_t)(gbps * G);
    fl->routed = true;
    fl->num_hops = n;
    for (unsigned k = 0; k < n; k++) {
        fl->hops[k] = (struct fabric_flow_hop){.tx_node = hops[k].tx_node,
                                               .tx_port = hops[k].tx_port,
                                               .rx_node = hops[k].rx_node,
                                               .rx_port = hops[k].rx_port};
        fl->hop_bps[k] = (uint64_t)(hops[k].gbps * G);
        fl->into_switch[k] = hops[k].rx_node == SW;
    }
}

/* Solve flows[0..n) with the CAs' receive rates ca (NULL: none). */
static void solve(struct tr_flow **flows, size_t n, const uint64_t *ca)
{
    static const uint64_t none[NODES];
    struct tr_solver s = {0};

    assert_int_equal(tr_rates_solve(flows, n, ca ? ca : none, &s), 0);
    tr_solver_free(&s);
}

/* |x - gbps| below 1e-6 bit/s (relative to a Gb/s). */
static void check_rate(const struct tr_flow *fl, double gbps)
{
    double d = fl->x - gbps * G;

    assert_true(d < 1e-6 * G && d > -1e-6 * G);
}

/* Two flows of 8 Gb/s through one 10 Gb/s link: 5 each, held by that link. */
static void test_fair_share(void **state)
{
    struct hop a[2] = {{1, 1, SW, 1, 10}, {SW, 3, 3, 1, 10}};
    struct hop b[2] = {{2, 1, SW, 2, 10}, {SW, 3, 3, 1, 10}};
    struct tr_flow fa, fb, *flows[2] = {&fa, &fb};

    (void)state;
    flow(&fa, 3, 8, a, 2);
    flow(&fb, 3, 8, b, 2);
    solve(flows, 2, NULL);
    check_rate(&fa, 5);
    check_rate(&fb, 5);
    assert_int_equal(fa.beta, 1);
    assert_int_equal(fb.beta, 1);
}

/* A demand below the fair share is met; the other flow takes the rest. */
static void test_demand_below_share(void **state)
{
    struct hop a[1] = {{1, 1, 2, 1, 10}};
    struct tr_flow fa, fb, *flows[2] = {&fa, &fb};

    (void)state;
    flow(&fa, 2, 2, a, 1);
    flow(&fb, 2, 20, a, 1);
    solve(flows, 2, NULL);
    check_rate(&fa, 2);
    check_rate(&fb, 8);
    assert_int_equal(fa.beta, TR_NO_BOTTLENECK); /* held by its demand */
    assert_int_equal(fb.beta, 0);
}

/* A CA receiving slower than its link: the sink is the bottleneck (last resource). */
static void test_ca_rate(void **state)
{
    struct hop a[2] = {{1, 1, SW, 1, 10}, {SW, 3, 3, 1, 10}};
    struct tr_flow fa, *flows[1] = {&fa};
    uint64_t ca[NODES] = {0};

    (void)state;
    ca[3] = 3000000000ull;
    flow(&fa, 3, 10, a, 2);
    solve(flows, 1, ca);
    check_rate(&fa, 3);
    assert_int_equal(fa.beta, 2);
    ca[3] = 20000000000ull; /* faster than the link: no sink resource */
    solve(flows, 1, ca);
    check_rate(&fa, 10);
}

/*
 * A and B share the switch's ingress buffer (port 1, VL 0); A goes on to
 * port 3, shared with C and D, and is held there at 10/3; B's way out
 * (port 4) is free, but the FIFO drains at A's pace: B gets 10/3 too.
 */
static void test_head_of_line(void **state)
{
    struct hop a[2] = {{1, 1, SW, 1, 10}, {SW, 3, 3, 1, 10}};
    struct hop b[2] = {{1, 1, SW, 1, 10}, {SW, 4, 4, 1, 10}};
    struct hop c[2] = {{2, 1, SW, 2, 10}, {SW, 3, 3, 1, 10}};
    struct hop d[2] = {{5, 1, SW, 5, 10}, {SW, 3, 3, 1, 10}};
    struct tr_flow fa, fb, fc, fd, *flows[4] = {&fa, &fb, &fc, &fd};

    (void)state;
    flow(&fa, 3, 10, a, 2);
    flow(&fb, 4, 10, b, 2);
    flow(&fc, 3, 10, c, 2);
    flow(&fd, 3, 10, d, 2);
    solve(flows, 4, NULL);
    check_rate(&fa, 10.0 / 3);
    check_rate(&fc, 10.0 / 3);
    check_rate(&fd, 10.0 / 3);
    check_rate(&fb, 10.0 / 3);
    assert_int_equal(fa.beta, 1);
    assert_int_equal(fb.beta, 1); /* the cap of the buffer after hop 0 */

    /* The same paths ending at a CA instead of a switch: no FIFO, B takes the rest. */
    fa.into_switch[0] = fb.into_switch[0] = false;
    solve(flows, 4, NULL);
    check_rate(&fa, 10.0 / 3);
    check_rate(&fb, 20.0 / 3);
    assert_int_equal(fb.beta, 0);
}

/* An unrouted flow gets nothing and takes nothing from the others. */
static void test_unrouted(void **state)
{
    struct hop a[1] = {{1, 1, 2, 1, 10}};
    struct tr_flow fa, fb, *flows[2] = {&fa, &fb};

    (void)state;
    flow(&fa, 2, 10, a, 1);
    flow(&fb, 2, 10, a, 1);
    fb.routed = false;
    solve(flows, 2, NULL);
    check_rate(&fa, 10);
    check_rate(&fb, 0);
    assert_int_equal(fb.beta, TR_NO_BOTTLENECK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fair_share), cmocka_unit_test(test_demand_below_share),
        cmocka_unit_test(test_ca_rate),    cmocka_unit_test(test_head_of_line),
        cmocka_unit_test(test_unrouted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
