/*
 * test_node_monitor.c - the switch object's congestion monitor, notifier and
 * neighbour discovery (node/) on an in-memory switch with a manual clock:
 * the neighbour-discovery SMPs
 * it sends (fields, TIDs, retries, give-up and retry, a port that leaves and
 * re-enters Active), the answers it takes and the MADs it leaves alone, the
 * configured CA ports, and the hot-spot notices (onset and clear, none
 * before the SM is known, none with notices off).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <infiniband/mad.h>

#include "cong_monitor.h"
#include "pma.h"
#include "pma_vendor.h"
#include "node.h"
#include "pzt.h"
#include "pzt_main.h"
#include "pzt_fields.h"

#define MS 1000000ull
#define SW_LID 0x21
#define SM_LID 0x05
#define PORTS 4
#define N_TRAP 10 /* vendor trap number, Notice byte 10 (sma/README.md) */

/* A switch: the node on a pzt board, with the discovery SMPs it sent. */
struct fx {
    struct pzt_node *n;
    struct node *m;
    struct pzt_result polled[16]; /* what node_poll() sent, for fx_traps() */
    unsigned num_polled, next_polled;
    struct pzt_sent sent; /* what the send callback was handed */
    int send_rc;          /* what the send callback returns */
};

/* The send callback: record the MAD. */
static int fx_send(void *arg, const uint8_t *mad, const struct mad_addr *to)
{
    struct fx *f = arg;

    pzt_sent_add(&f->sent, mad, to);
    return f->send_rc;
}

/*
 * A 4-port switch with cables in and the node on it: monitor every
 * interval_ms, ports in ca_ports (a bit mask, 0: discover them) facing CAs
 * and the others switches, notices on or off.  The pzt helpers talk to the
 * node's SMA.
 */
static struct fx *fx_new(unsigned interval_ms, unsigned ca_ports, bool notices)
{
    struct fx *f = test_calloc(1, sizeof(*f));
    struct node_hooks hooks = {.send = fx_send, .arg = f};
    struct node_config cfg;
    char err[160] = "";

    f->n = pzt_switch_new(PORTS);
    assert_non_null(f->n);
    pzt_connect_all(f->n);
    node_default_config(&cfg);
    cfg.monitor = true;
    cfg.mon.interval_ms = interval_ms;
    cfg.notices = notices;
    cfg.discover = ca_ports == 0;
    f->m = node_create(f->n->board, &cfg, &hooks, err, sizeof(err));
    assert_non_null(f->m);
    for (unsigned p = 1; ca_ports && p <= PORTS; p++)
        node_set_peer(f->m, p, ca_ports & (1u << p) ? CONG_PEER_CA : CONG_PEER_SWITCH);
    sma_destroy(f->n->sma);
    f->n->sma = node_sma(f->m);
    return f;
}

static void fx_free(struct fx *f)
{
    f->n->sma = NULL; /* the node's */
    node_destroy(f->m);
    pzt_node_free(f->n);
    test_free(f);
}

/*
 * Advance the clock by ms and run the node's due work (as the event loop
 * does at its deadline); what the SMA sends is left for fx_traps().
 */
static void fx_run(struct fx *f, uint64_t ms)
{
    board_mem_advance_ns(f->n->bm, ms * MS);
    while (f->num_polled < 16 && node_poll(f->m, &f->polled[f->num_polled].addr,
                                           f->polled[f->num_polled].mad) == MAD_SEND)
        f->num_polled++;
}

/* Make port Active (Init -> Armed -> Active, as the SM does). */
static void fx_activate(struct fx *f, unsigned port)
{
    assert_int_equal(board_port_state_set(f->n->board, port, BOARD_PORT_ARMED), 0);
    assert_int_equal(board_port_state_set(f->n->board, port, BOARD_PORT_ACTIVE), 0);
}

/* The peer the monitor has for port. */
static uint8_t fx_peer(struct fx *f, unsigned port)
{
    struct cong_port_view v;

    assert_int_equal(cong_monitor_port(node_cong(f->m), port, &v), 0);
    return v.peer;
}

/* The answer a neighbour of NodeType type gives to sent SMP i, TID bits 32-47 set by the MAD layer.
 */
static void fx_answer(const struct fx *f, unsigned i, unsigned type, uint8_t *out)
{
    uint64_t tid = mad_get_field64((void *)f->sent.mad[i], 0, IB_MAD_TRID_F);

    memcpy(out, f->sent.mad[i], 256);
    mad_set_field(out, 0, IB_MAD_RESPONSE_F, 1);
    mad_set_field(out, 0, IB_DRSMP_DIRECTION_F, 1);
    mad_set_field64(out, 0, IB_MAD_TRID_F, tid | 0x0000123400000000ull);
    mad_set_field(out, IB_SMP_DATA_OFFS, IB_NODE_TYPE_F, type);
}

/* Check sent SMP i is a DR SubnGet(NodeInfo) out of port, HopCount 1. */
static void check_disc_smp(const struct fx *f, unsigned i, unsigned port)
{
    const uint8_t *s = f->sent.mad[i];

    PZT_EXPECT_FIELDS(
        s, {IB_MAD_BASEVER_F, 1}, {IB_MAD_MGMTCLASS_F, IB_SMI_DIRECT_CLASS}, {IB_MAD_CLASSVER_F, 1},
        {IB_MAD_METHOD_F, IB_MAD_METHOD_GET}, {IB_MAD_RESPONSE_F, 0}, {IB_DRSMP_DIRECTION_F, 0},
        {IB_MAD_ATTRID_F, IB_ATTR_NODE_INFO}, {IB_MAD_ATTRMOD_F, 0}, {IB_DRSMP_HOPCNT_F, 1},
        {IB_DRSMP_HOPPTR_F, 0}, {IB_DRSMP_DRSLID_F, 0xFFFF}, {IB_DRSMP_DRDLID_F, 0xFFFF});
    assert_int_equal(s[128], 0);    /* InitialPath[0] */
    assert_int_equal(s[129], port); /* InitialPath[1] */
    assert_true(mad_get_field64((void *)s, 0, IB_MAD_TRID_F) >> 32 == 0);
    assert_false(f->sent.to[i].lid_routed);
}

/* Nothing before a port is Active; then one SMP per Active port; answers set the peers. */
static void test_discovery(void **state)
{
    struct fx *f = fx_new(100, 0, true);
    uint8_t ans[256];

    fx_run(f, 300);
    assert_int_equal(f->sent.num, 0); /* trained (Init), not Active */
    fx_activate(f, 1);
    fx_activate(f, 3);
    fx_activate(f, 4);
    fx_run(f, 300);
    assert_int_equal(f->sent.num, 3);
    check_disc_smp(f, 0, 1);
    check_disc_smp(f, 1, 3);
    check_disc_smp(f, 2, 4);
    assert_int_equal(fx_peer(f, 1), CONG_PEER_UNKNOWN);
    fx_answer(f, 0, 1, ans); /* a CA */
    assert_true(node_discovery_take(f->m, ans));
    assert_int_equal(fx_peer(f, 1), CONG_PEER_CA);
    fx_answer(f, 1, 2, ans); /* a switch */
    assert_true(node_discovery_take(f->m, ans));
    assert_int_equal(fx_peer(f, 3), CONG_PEER_SWITCH);
    fx_answer(f, 2, 3, ans); /* a router: never a hot-spot */
    assert_true(node_discovery_take(f->m, ans));
    assert_int_equal(fx_peer(f, 4), CONG_PEER_UNKNOWN);
    /* A duplicate answer is ours but changes nothing. */
    fx_answer(f, 1, 1, ans);
    assert_true(node_discovery_take(f->m, ans));
    assert_int_equal(fx_peer(f, 3), CONG_PEER_SWITCH);
    /* Nothing more to ask: no SMP for minutes. */
    for (int i = 0; i < 10; i++)
        fx_run(f, 30000);
    assert_int_equal(f->sent.num, 3);
    fx_free(f);
}

/* MADs that are not answers to discovery go to the agents. */
static void test_not_ours(void **state)
{
    struct fx *f = fx_new(CONG_INTERVAL_DEFAULT_MS, 0, true);
    uint8_t ans[256], mad[256];

    fx_activate(f, 2);
    fx_run(f, 300);
    assert_int_equal(f->sent.num, 1);
    fx_answer(f, 0, 1, ans);
    /* A request with the same TID (the SM's Get) is not an answer. */
    memcpy(mad, ans, sizeof(mad));
    mad_set_field(mad, 0, IB_MAD_RESPONSE_F, 0);
    assert_false(node_discovery_take(f->m, mad));
    /* Another attribute's answer, another class, another TID tag: not ours. */
    memcpy(mad, ans, sizeof(mad));
    mad_set_field(mad, 0, IB_MAD_METHOD_F, IB_MAD_METHOD_SET);
    assert_false(node_discovery_take(f->m, mad));
    memcpy(mad, ans, sizeof(mad));
    mad_set_field(mad, 0, IB_MAD_MGMTCLASS_F, IB_SMI_CLASS);
    assert_false(node_discovery_take(f->m, mad));
    memcpy(mad, ans, sizeof(mad));
    mad_set_field64(mad, 0, IB_MAD_TRID_F, 0x1234);
    assert_false(node_discovery_take(f->m, mad));
    /* Our tag but another requester's TID (another switch's agent). */
    mad_set_field64(mad, 0, IB_MAD_TRID_F, 0x50000109ull);
    assert_false(node_discovery_take(f->m, mad));
    assert_false(node_discovery_take(NULL, ans));
    /* An error status: ours, peer unchanged, asked again at the timeout. */
    memcpy(mad, ans, sizeof(mad));
    mad_set_field(mad, 0, IB_DRSMP_STATUS_F, 0x0C);
    assert_true(node_discovery_take(f->m, mad));
    assert_int_equal(fx_peer(f, 2), CONG_PEER_UNKNOWN);
    fx_run(f, 1000);
    assert_int_equal(f->sent.num, 2);
    check_disc_smp(f, 1, 2);
    /* The resend kept its TID: the answer to the first SMP, late, still counts. */
    assert_true(node_discovery_take(f->m, ans));
    assert_int_equal(fx_peer(f, 2), CONG_PEER_CA);
    fx_answer(f, 1, 2, ans); /* then the answer to the resend: a duplicate, ignored */
    assert_true(node_discovery_take(f->m, ans));
    assert_int_equal(fx_peer(f, 2), CONG_PEER_CA);
    fx_free(f);
}

/* No answer: 3 sends 1 s apart, then a new try 10 s later; a failed send counts as a try. */
static void test_retries(void **state)
{
    struct fx *f = fx_new(CONG_INTERVAL_DEFAULT_MS, 0, true);
    uint64_t tid0, tid1;

    fx_activate(f, 1);
    fx_run(f, 300);
    assert_int_equal(f->sent.num, 1);
    fx_run(f, 999);
    assert_int_equal(f->sent.num, 1);
    fx_run(f, 1);
    assert_int_equal(f->sent.num, 2);
    tid0 = mad_get_field64((void *)f->sent.mad[0], 0, IB_MAD_TRID_F);
    tid1 = mad_get_field64((void *)f->sent.mad[1], 0, IB_MAD_TRID_F);
    assert_true(tid0 == tid1); /* a resend keeps its TID (a late answer still counts) */
    f->send_rc = -1;
    fx_run(f, 1000);
    assert_int_equal(f->sent.num, 3);
    f->send_rc = 0;
    fx_run(f, 1000); /* third try timed out: give up for 10 s */
    assert_int_equal(f->sent.num, 3);
    fx_run(f, 9000);
    assert_int_equal(f->sent.num, 3);
    fx_run(f, 1000);
    assert_int_equal(f->sent.num, 4);
    check_disc_smp(f, 3, 1);
    fx_free(f);
}

/* A port that leaves Active forgets its peer and is asked again when Active again. */
static void test_port_bounce(void **state)
{
    struct fx *f = fx_new(CONG_INTERVAL_DEFAULT_MS, 0, true);
    uint8_t ans[256];

    fx_activate(f, 1);
    fx_run(f, 300);
    fx_answer(f, 0, 1, ans);
    assert_true(node_discovery_take(f->m, ans));
    assert_int_equal(fx_peer(f, 1), CONG_PEER_CA);
    board_mem_set_connected(f->n->bm, 1, false);
    fx_run(f, 300);
    assert_int_equal(fx_peer(f, 1), CONG_PEER_UNKNOWN);
    board_mem_set_connected(f->n->bm, 1, true);
    fx_run(f, 300);
    assert_int_equal(f->sent.num, 1); /* Init again: not yet */
    fx_activate(f, 1);
    fx_run(f, 300);
    assert_int_equal(f->sent.num, 2);
    check_disc_smp(f, 1, 1);
    fx_answer(f, 1, 2, ans); /* recabled to a switch */
    assert_true(node_discovery_take(f->m, ans));
    assert_int_equal(fx_peer(f, 1), CONG_PEER_SWITCH);
    fx_free(f);
}

/* monitor_ca_ports: the listed ports face CAs, the others switches; no SMP ever. */
static void test_ca_port_list(void **state)
{
    struct fx *f = fx_new(CONG_INTERVAL_DEFAULT_MS, 1u << 1 | 1u << 3 | 1u << 4, true);

    for (unsigned p = 1; p <= PORTS; p++)
        fx_activate(f, p);
    fx_run(f, 5000);
    assert_int_equal(f->sent.num, 0);
    assert_int_equal(fx_peer(f, 1), CONG_PEER_CA);
    assert_int_equal(fx_peer(f, 2), CONG_PEER_SWITCH);
    assert_int_equal(fx_peer(f, 3), CONG_PEER_CA);
    assert_int_equal(fx_peer(f, 4), CONG_PEER_CA);
    fx_free(f);
}

/* Port 1 blocked (XmitWait at 1e6 ticks/s) for ms. */
static void fx_block(struct fx *f, uint64_t ms)
{
    board_mem_counter_add(f->n->bm, &board_mem_counters(f->n->bm, 1)->xmit_wait, ms * 1000);
}

/* The next MAD the SMA sends: what fx_run()'s polls got first, then sma_poll()'s; false if none. */
static bool fx_next_sent(struct fx *f, struct pzt_result *r)
{
    if (f->next_polled < f->num_polled) {
        *r = f->polled[f->next_polled++];
        return true;
    }
    f->num_polled = f->next_polled = 0;
    return sma_poll(f->n->sma, &r->addr, r->mad) == MAD_SEND;
}

/* The vendor trap numbers the SMA sends now, in order, into traps[] (at most max); returns the
 * count. */
static unsigned fx_traps(struct fx *f, unsigned *traps, unsigned max)
{
    struct pzt_result r;
    unsigned count = 0;

    while (count < 16 && fx_next_sent(f, &r)) {
        if (mad_get_field((void *)(r.mad + 64), 0, IB_NOTICE_IS_GENERIC_F))
            continue;                                                   /* the SMA's own traps */
        assert_int_equal(r.addr.dlid, sma_master_sm_lid(f->n->sma, 0)); /* the current SM */
        if (count < max)
            traps[count] = (unsigned)be_get(r.mad + 64 + N_TRAP, 2);
        count++;
    }
    return count;
}

/* Onset and clear each make one notice once the SM is known; none before. */
static void test_notices(void **state)
{
    struct fx *f = fx_new(100, 1u << 1, true);
    unsigned traps[4];

    fx_block(f, 100);
    fx_run(f, 100);
    assert_int_equal(cong_monitor_samples(node_cong(f->m)), 1);
    /* Hot-spot, but no LID and no SM yet: nothing queued. */
    assert_int_equal(fx_traps(f, traps, 4), 0);
    pzt_assign_lid(f->n, SW_LID, SM_LID, 18);
    pzt_poll_all(f->n, NULL); /* the SMA's own traps, if any */
    fx_block(f, 100);
    fx_run(f, 100);
    assert_int_equal(fx_traps(f, traps, 4), 1);
    assert_int_equal(traps[0], CONG_TRAP_HOTSPOT_ONSET);
    fx_block(f, 100);
    fx_run(f, 100);
    /* Still hot: no new notice (the first is resent by the SMA later, not now). */
    assert_int_equal(fx_traps(f, traps, 4), 0);
    fx_run(f, 100); /* flows stopped: no XmitWait */
    assert_int_equal(fx_traps(f, traps, 4), 1);
    assert_int_equal(traps[0], CONG_TRAP_HOTSPOT_CLEAR);
    fx_free(f);
}

/*
 * A new master SM (another MasterSMLID) has heard of no hot-spot: it gets
 * an onset for the one that goes on, and the clear later; the old SM's
 * LID coming back is a new SM again.
 */
static void test_notices_new_sm(void **state)
{
    struct fx *f = fx_new(100, 1u << 1, true);
    unsigned traps[4];

    pzt_assign_lid(f->n, SW_LID, SM_LID, 18);
    pzt_poll_all(f->n, NULL);
    fx_block(f, 100);
    fx_run(f, 100);
    assert_int_equal(fx_traps(f, traps, 4), 1);
    assert_int_equal(traps[0], CONG_TRAP_HOTSPOT_ONSET);
    pzt_assign_lid(f->n, SW_LID, SM_LID + 1, 18); /* failover: another SM takes over */
    pzt_poll_all(f->n, NULL);
    fx_block(f, 100);
    fx_run(f, 100);
    assert_int_equal(fx_traps(f, traps, 4), 1);
    assert_int_equal(traps[0], CONG_TRAP_HOTSPOT_ONSET);
    fx_block(f, 100);
    fx_run(f, 100);
    assert_int_equal(fx_traps(f, traps, 4), 0); /* told once */
    fx_run(f, 100);
    assert_int_equal(fx_traps(f, traps, 4), 1);
    assert_int_equal(traps[0], CONG_TRAP_HOTSPOT_CLEAR);
    /* A new SM while nothing is hot: nothing to tell it. */
    pzt_assign_lid(f->n, SW_LID, SM_LID, 18);
    pzt_poll_all(f->n, NULL);
    fx_run(f, 100);
    assert_int_equal(fx_traps(f, traps, 4), 0);
    fx_free(f);
}

/* monitor_notices = off: the state changes, no notice. */
static void test_notices_off(void **state)
{
    struct fx *f = fx_new(100, 1u << 1, false);
    struct cong_port_view v;
    unsigned traps[4];

    pzt_assign_lid(f->n, SW_LID, SM_LID, 18);
    pzt_poll_all(f->n, NULL);
    fx_block(f, 100);
    fx_run(f, 100);
    assert_int_equal(cong_monitor_port(node_cong(f->m), 1, &v), 0);
    assert_int_equal(v.cls, CONG_PORT_HOTSPOT);
    assert_int_equal(fx_traps(f, traps, 4), 0);
    fx_free(f);
}

/* The deadline is the monitor's next sample, or sooner for discovery work. */
static void test_deadline(void **state)
{
    struct fx *f = fx_new(5000, 1u << 1, true);
    uint64_t now = board_now_ns(f->n->board);

    assert_true(node_next_deadline(f->m) == now + 5000 * MS);
    fx_free(f);
    f = fx_new(5000, 0, true);
    now = board_now_ns(f->n->board);
    assert_true(node_next_deadline(f->m) <= now); /* the first port scan */
    fx_run(f, 0);
    assert_true(node_next_deadline(f->m) == now + 200 * MS);
    fx_free(f);
}

PZT_MAIN(test_discovery, test_not_ours, test_retries, test_port_bounce, test_ca_port_list,
         test_notices, test_notices_new_sm, test_notices_off, test_deadline)
