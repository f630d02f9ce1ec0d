/*
 * test_node.c - the switch object (node/) on an in-memory switch with a
 * manual clock: MADs in by class to the SMA, PMA and CC agent, answers to
 * the clients that asked, what nobody serves dropped; the poll's link scan
 * and deadline; the monitor started, reconfigured and stopped at run time;
 * receive records on a board without them; a CA node.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <infiniband/mad.h>

#include "mad_header.h"
#include "node.h"
#include "pma.h"
#include "sma.h"
#include "pzt.h"
#include "pzt_main.h"
#include "pzt_fields.h"

#define MS 1000000ull
#define PORTS 4
#define SA_TAG 0x49000000u
#define SA_MASK 0xFF000000u

/* A GMP request of class mgmt_class (class version cv), Get of attr, TID tid. */
static void gmp_get(uint8_t *mad, unsigned mgmt_class, unsigned cv, unsigned attr, uint64_t tid)
{
    mad_header_init(mad, mgmt_class, cv, IB_MAD_METHOD_GET, tid, attr, 0);
}

/* A switch board (pzt) and a node with the given config on it. */
struct fx {
    struct pzt_node *n;
    struct node *node;
    unsigned answers; /* the SA client's */
    uint64_t answer_tid;
};

static struct fx *fx_new(const struct node_config *cfg)
{
    struct fx *f = test_calloc(1, sizeof(*f));
    char err[160] = "";

    f->n = pzt_switch_new(PORTS);
    assert_non_null(f->n);
    f->node = node_create(f->n->board, cfg, NULL, err, sizeof(err));
    assert_non_null(f->node);
    return f;
}

static void fx_free(struct fx *f)
{
    node_destroy(f->node);
    pzt_node_free(f->n);
    test_free(f);
}

/* Process in from from; check the verdict and who had it. */
static void check_routed(struct fx *f, const struct mad_addr *from, const uint8_t *in,
                         enum mad_verdict verdict, enum mad_route how)
{
    uint8_t out[IB_MAD_SIZE];
    struct mad_addr to;
    enum mad_route got;

    assert_int_equal(node_process(f->node, from, in, IB_MAD_SIZE, &to, out, &got), verdict);
    assert_int_equal(got, how);
}

/* The SA client: count the answers and keep the last TID. */
static void fx_sa_answer(void *arg, const uint8_t *mad, size_t len)
{
    struct fx *f = arg;

    (void)len;
    f->answers++;
    f->answer_tid = mad_get_field64((void *)mad, 0, IB_MAD_TRID_F);
}

/* Requests of each class reach their agent; others are dropped. */
static void test_process_by_class(void **state)
{
    struct node_config cfg;
    struct mad_addr from = {
        .port = 1, .lid_routed = true, .slid = 1, .dlid = 2, .src_qp = 1, .dst_qp = 1};
    struct mad_addr to;
    uint8_t in[IB_MAD_SIZE], out[IB_MAD_SIZE];
    enum mad_route how;
    struct fx *f;

    node_default_config(&cfg);
    f = fx_new(&cfg);
    from.dst_qp = 0;
    pzt_lid_smp(in, IB_MAD_METHOD_GET, IB_ATTR_NODE_INFO, 0, 0, 0x11);
    assert_int_equal(node_process(f->node, &from, in, IB_MAD_SIZE, &to, out, &how), MAD_SEND);
    assert_int_equal(how, MAD_ROUTED_REQUEST);
    assert_int_equal(mad_get_field(out, 0, IB_MAD_METHOD_F), IB_MAD_METHOD_GET);
    assert_int_equal(mad_get_field(out, 0, IB_MAD_RESPONSE_F), 1);
    assert_int_equal(mad_get_field(out + IB_SMP_DATA_OFFS, 0, IB_NODE_TYPE_F), 2); /* switch */
    assert_int_equal(mad_get_field(out + IB_SMP_DATA_OFFS, 0, IB_NODE_NPORTS_F), PORTS);

    from.dst_qp = 1;
    gmp_get(in, IB_PERFORMANCE_CLASS, 1, CLASS_PORT_INFO, 0x12);
    assert_int_equal(node_process(f->node, &from, in, IB_MAD_SIZE, &to, out, &how), MAD_SEND);
    assert_int_equal(how, MAD_ROUTED_REQUEST);
    PZT_EXPECT_FIELDS(out, {IB_MAD_MGMTCLASS_F, IB_PERFORMANCE_CLASS},
                      {IB_MAD_METHOD_F, IB_MAD_METHOD_GET}, {IB_MAD_RESPONSE_F, 1},
                      {IB_MAD_STATUS_F, 0});
    assert_int_equal(to.dlid, 1);

    gmp_get(in, IB_CC_CLASS, 2, CLASS_PORT_INFO, 0x13);
    assert_int_equal(node_process(f->node, &from, in, IB_MAD_SIZE, &to, out, NULL), MAD_SEND);
    PZT_EXPECT_FIELDS(out, {IB_MAD_MGMTCLASS_F, IB_CC_CLASS}, {IB_MAD_METHOD_F, IB_MAD_METHOD_GET},
                      {IB_MAD_RESPONSE_F, 1});

    /* The SA class: nobody serves it here. */
    gmp_get(in, IB_SA_CLASS, 2, CLASS_PORT_INFO, 0x14);
    check_routed(f, &from, in, MAD_DROP, MAD_ROUTED_NOBODY);
    /* Not an IBA MAD. */
    pzt_lid_smp(in, IB_MAD_METHOD_GET, IB_ATTR_NODE_INFO, 0, 0, 0x15);
    mad_set_field(in, 0, IB_MAD_BASEVER_F, 2);
    check_routed(f, &from, in, MAD_DROP, MAD_ROUTED_NOBODY);
    fx_free(f);
}

/* Answers go to the client whose tag their TID carries; discovery's tag is taken. */
static void test_clients(void **state)
{
    struct node_config cfg;
    struct mad_addr from = {.lid_routed = true, .slid = 1, .dlid = 2, .src_qp = 1, .dst_qp = 1};
    uint8_t in[IB_MAD_SIZE];
    struct fx *f;

    node_default_config(&cfg);
    cfg.monitor = true;
    cfg.discover = true;
    f = fx_new(&cfg);
    assert_int_equal(node_add_client(f->node, IB_SA_CLASS, SA_MASK, SA_TAG, fx_sa_answer, f), 0);
    /* Discovery owns 0x5-------: another client there is refused. */
    assert_int_not_equal(
        node_add_client(f->node, 0, NODE_DISC_TID_MASK, NODE_DISC_TID_TAG, fx_sa_answer, f), 0);
    gmp_get(in, IB_SA_CLASS, 2, CLASS_PORT_INFO, 0x0000000749000001ull);
    mad_set_field(in, 0, IB_MAD_RESPONSE_F, 1);
    check_routed(f, &from, in, MAD_DROP, MAD_ROUTED_ANSWER);
    assert_int_equal(f->answers, 1);
    assert_true(f->answer_tid == 0x0000000749000001ull);
    /* Another tag: nobody's. */
    mad_set_field64(in, 0, IB_MAD_TRID_F, 0x48000001ull);
    check_routed(f, &from, in, MAD_DROP, MAD_ROUTED_NOBODY);
    assert_int_equal(f->answers, 1);
    /* A discovery-tagged answer is the node's own (no SMP out: ignored, but taken). */
    pzt_dr_smp(in, IB_MAD_METHOD_GET, IB_ATTR_NODE_INFO, 0, 0, 0x50000101ull, 1, 1,
               (const uint8_t[]){0, 1}, 0xFFFF, 0xFFFF);
    mad_set_field(in, 0, IB_MAD_RESPONSE_F, 1);
    check_routed(f, &from, in, MAD_DROP, MAD_ROUTED_ANSWER);
    fx_free(f);
}

/* The link scan sets the deadline; without a monitor the deadline is the SMA's, PMA's or scan's. */
static void test_poll_deadline(void **state)
{
    struct node_config cfg;
    struct mad_addr to;
    uint8_t out[IB_MAD_SIZE];
    uint64_t now;
    struct fx *f;

    node_default_config(&cfg);
    cfg.link_scan_ns = 10 * MS;
    f = fx_new(&cfg);
    now = board_now_ns(f->n->board);
    assert_true(node_next_deadline(f->node) <= now); /* the first scan is due at once */
    while (node_poll(f->node, &to, out) == MAD_SEND)
        ;
    assert_true(node_next_deadline(f->node) == now + 10 * MS);
    assert_null(node_cong(f->node));
    board_mem_advance_ns(f->n->bm, 10 * MS);
    assert_true(node_next_deadline(f->node) <= board_now_ns(f->n->board));
    fx_free(f);

    node_default_config(&cfg);
    f = fx_new(&cfg);
    assert_true(node_next_deadline(f->node) == pma_next_deadline(node_pma(f->node)) ||
                node_next_deadline(f->node) == sma_next_deadline(node_sma(f->node)));
    fx_free(f);
}

/* The monitor starts, takes a new interval, refuses bad settings and stops at run time. */
static void test_monitor_lifecycle(void **state)
{
    struct node_config cfg;
    struct cong_monitor_config mc;
    struct fx *f;

    node_default_config(&cfg);
    f = fx_new(&cfg);
    assert_null(node_cong(f->node));
    node_set_peer(f->node, 1, CONG_PEER_CA); /* no monitor: nothing to tell */
    cong_monitor_default_config(&mc);
    mc.interval_ms = 500;
    assert_int_equal(node_monitor_start(f->node, &mc), 0);
    assert_non_null(node_cong(f->node));
    assert_true(node_next_deadline(f->node) <= board_now_ns(f->n->board) + 500 * MS);
    mc.interval_ms = 2000;
    assert_int_equal(node_monitor_start(f->node, &mc), 0); /* the running one, reconfigured */
    cong_monitor_get_config(node_cong(f->node), &mc);
    assert_int_equal(mc.interval_ms, 2000);
    mc.interval_ms = 1; /* below the minimum */
    assert_int_equal(node_monitor_start(f->node, &mc), -EINVAL);
    node_monitor_stop(f->node);
    assert_null(node_cong(f->node));
    node_monitor_stop(f->node); /* twice is fine */
    fx_free(f);
}

/* Bad monitor settings: no node, and a message. */
static void test_bad_settings(void **state)
{
    struct pzt_node *n = pzt_switch_new(PORTS);
    struct node_config cfg;
    char err[80] = "";

    node_default_config(&cfg);
    cfg.monitor = true;
    cfg.mon.interval_ms = 1;
    assert_null(node_create(n->board, &cfg, NULL, err, sizeof(err)));
    assert_string_equal(err, "monitor: bad settings");
    pzt_node_free(n);
}

/* A board without receive records leaves the MAD and the port as they are. */
static void test_rx_record_none(void **state)
{
    struct node_config cfg;
    struct mad_addr from = {.port = 3};
    uint8_t mad[IB_MAD_SIZE], copy[IB_MAD_SIZE];
    struct fx *f;

    node_default_config(&cfg);
    f = fx_new(&cfg);
    pzt_dr_smp(mad, IB_MAD_METHOD_GET, IB_ATTR_NODE_INFO, 0, 0, 0x21, 1, 1, (const uint8_t[]){0, 3},
               0xFFFF, 0xFFFF);
    memcpy(copy, mad, sizeof(mad));
    node_take_rx_record(f->node, mad, &from);
    assert_memory_equal(mad, copy, sizeof(mad));
    assert_int_equal(from.port, 3);
    assert_true(node_board(f->node) == f->n->board);
    assert_non_null(node_cc(f->node));
    fx_free(f);
}

/* A CA node answers NodeInfo as a CA. */
static void test_ca_node(void **state)
{
    struct pzt_node *ca = pzt_ca_new(2);
    struct node_config cfg;
    struct mad_addr from = {.port = 1, .lid_routed = true, .slid = 1, .dlid = 2};
    struct mad_addr to;
    uint8_t in[IB_MAD_SIZE], out[IB_MAD_SIZE];
    struct node *node;
    char err[80];

    assert_non_null(ca);
    node_default_config(&cfg);
    node = node_create(ca->board, &cfg, NULL, err, sizeof(err));
    assert_non_null(node);
    pzt_lid_smp(in, IB_MAD_METHOD_GET, IB_ATTR_NODE_INFO, 0, 0, 0x31);
    assert_int_equal(node_process(node, &from, in, IB_MAD_SIZE, &to, out, NULL), MAD_SEND);
    assert_int_equal(mad_get_field(out + IB_SMP_DATA_OFFS, 0, IB_NODE_TYPE_F), 1);
    node_destroy(node);
    pzt_node_free(ca);
}

PZT_MAIN(test_process_by_class, test_clients, test_poll_deadline, test_monitor_lifecycle,
         test_rx_record_none, test_ca_node, test_bad_settings)
