/*
 * test_sma_link.c - link state changes seen by the SMA's port scan, and the
 * local read API.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <infiniband/mad.h>

#include "pzt.h"
#include "pzt_main.h"

/* SwitchInfo.PortStateChange as the SM reads it. */
static unsigned psc(struct pzt_node *n)
{
    uint8_t d[64];

    assert_int_equal(pzt_get(n, IB_ATTR_SWITCH_INFO, 0, d), 0);
    return mad_get_field(d, 0, IB_SW_STATE_CHANGE_F);
}

/* Clear PortStateChange as OpenSM does (write 1). */
static void clear_psc(struct pzt_node *n)
{
    uint8_t d[64];

    assert_int_equal(pzt_get(n, IB_ATTR_SWITCH_INFO, 0, d), 0);
    mad_set_field(d, 0, IB_SW_STATE_CHANGE_F, 1);
    assert_int_equal(pzt_set(n, IB_ATTR_SWITCH_INFO, 0, d, NULL), 0);
}

/* A bounce that completes between two scans (Init -> Down -> Init) still counts. */
static void test_bounce_between_scans(void **state)
{
    struct pzt_node *n = pzt_switch_new(4);
    struct pzt_result last;

    pzt_assign_lid(n, 5, 1, 18);
    board_mem_set_connected(n->bm, 2, true);
    pzt_poll_all(n, NULL);
    assert_int_equal(psc(n), 1);
    clear_psc(n);
    pzt_poll_all(n, NULL); /* the 128 already queued is resent; no new change */
    assert_int_equal(psc(n), 0);

    /* Unplug and replug before the SMA looks again: the state is Init as before. */
    board_mem_set_connected(n->bm, 2, false);
    board_mem_set_connected(n->bm, 2, true);
    assert_true(pzt_poll_all(n, &last) >= 1);
    assert_int_equal(psc(n), 1);
    assert_int_equal(mad_get_field(last.data, 0, IB_NOTICE_TRAP_NUMBER_F), 128);
    pzt_node_free(n);
}

/* No change, no PortStateChange. */
static void test_no_change_no_psc(void **state)
{
    struct pzt_node *n = pzt_switch_new(4);

    pzt_assign_lid(n, 5, 1, 18);
    pzt_poll_all(n, NULL);
    assert_int_equal(psc(n), 0);
    pzt_poll_all(n, NULL);
    assert_int_equal(psc(n), 0);
    pzt_node_free(n);
}

/* sma_local_get reads without M_Key checks and without counting an SMP. */
static void test_local_get(void **state)
{
    struct pzt_node *n = pzt_switch_new(4);
    struct sma_stats before, after;
    uint8_t pi[64], d[64];

    /* Protect the switch: level 2, key 0x55. */
    assert_int_equal(pzt_get(n, IB_ATTR_PORT_INFO, 0, pi), 0);
    mad_set_field64(pi, 0, IB_PORT_MKEY_F, 0x55);
    mad_set_field(pi, 0, IB_PORT_MKEY_PROT_BITS_F, 2);
    mad_set_field(pi, 0, IB_PORT_LID_F, 9);
    assert_int_equal(pzt_set(n, IB_ATTR_PORT_INFO, 0, pi, NULL), 0);
    assert_int_equal(pzt_get(n, IB_ATTR_PORT_INFO, 0, d), -1); /* SMP without key: dropped */

    sma_get_stats(n->sma, &before);
    assert_int_equal(sma_local_get(n->sma, 0, IB_ATTR_PORT_INFO, 0, d), 0);
    assert_int_equal(mad_get_field(d, 0, IB_PORT_LID_F), 9);
    assert_true(mad_get_field64(d, 0, IB_PORT_MKEY_F) == 0x55);
    assert_int_equal(sma_local_get(n->sma, 0, IB_ATTR_NODE_INFO, 0, d), 0);
    assert_int_equal(mad_get_field(d, 0, IB_NODE_NPORTS_F), 4);
    assert_int_equal(sma_local_get(n->sma, 0, IB_ATTR_PORT_INFO, 9, d), 0x1C);
    assert_int_equal(sma_local_get(n->sma, 0, 0x1234, 0, d), 0x0C);
    sma_get_stats(n->sma, &after);
    assert_true(after.smps_received == before.smps_received);
    assert_true(after.mkey_violations == before.mkey_violations);
    pzt_node_free(n);
}

/* A TrapRepress whose TID's high 32 bits were rewritten by the MAD layer still matches. */
static void test_repress_with_rewritten_high_tid(void **state)
{
    struct pzt_node *n = pzt_switch_new(4);
    struct pzt_result trap;
    uint8_t mad[256];
    uint64_t tid;

    pzt_assign_lid(n, 5, 1, 18);
    board_mem_set_connected(n->bm, 1, true);
    assert_int_equal(pzt_poll_all(n, &trap), 1);
    tid = mad_get_field64(trap.mad, 0, IB_MAD_TRID_F);
    assert_int_equal(sma_traps_pending(n->sma), 1);

    /* Another trap's low bits: no effect. */
    memcpy(mad, trap.mad, sizeof(mad));
    mad_set_field(mad, 0, IB_MAD_METHOD_F, IB_MAD_METHOD_TRAP_REPRESS);
    mad_set_field64(mad, 0, IB_MAD_TRID_F, (tid ^ 0x00ab000000000000ull) + 1);
    pzt_process(n, 1, 1, mad, &trap);
    assert_int_equal(sma_traps_pending(n->sma), 1);

    /* Same low 32 bits, high bits rewritten (as umad2sim and the kernel do). */
    mad_set_field64(mad, 0, IB_MAD_TRID_F, tid ^ 0x00ab000000000000ull);
    pzt_process(n, 1, 1, mad, &trap);
    assert_int_equal(trap.verdict, MAD_DROP); /* never answered */
    assert_int_equal(sma_traps_pending(n->sma), 0);
    pzt_node_free(n);
}

PZT_MAIN(test_bounce_between_scans, test_no_change_no_psc, test_local_get,
         test_repress_with_rewritten_high_tid)
