/*
 * test_sma_trap.c - traps (notes section 4): Trap 128 on link state changes
 * and SwitchInfo.PortStateChange, 144 and 145 on local changes; transport,
 * Notice fields, resends with the same TID until a TrapRepress, the queue.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <infiniband/mad.h>

#include "pzt.h"
#include "pzt_main.h"
#include "pzt_fields.h"

#define SW_LID 0x21
#define SM_LID 0x05
#define SM_SL 3
#define TIMEOUT 18 /* SubnetTimeOut: 4.096 us x 2^18 = 1.07 s, above the 1 ms floor */
#define ATTR_NOTICE 0x0002
#define MKEY 0x0102030405060708ull

/* Notice DataDetails without libibmad fields, as byte offsets in the Notice. */
#define N_TOGGLE_COUNT 8
#define N144_LOCAL_CHANGES 15
#define N144_CHANGE_FLAGS 20
#define N144_CAPMASK2 22
#define N145_LID 12
#define N145_GUID 16

/* The resend interval of a trap: 4.096 us x 2^SubnetTimeOut, at least 1 ms. */
static uint64_t resend_ns(unsigned timeout)
{
    uint64_t ns = 4096ull << timeout;

    return ns < 1000000u ? 1000000u : ns;
}

/* Program LID, master SM LID/SL and SubnetTimeOut through PortInfo(0) Set. */
static void assign(struct pzt_node *n, uint16_t lid, uint16_t sm_lid, unsigned sl, unsigned timeout)
{
    uint8_t pi[PZT_DATA];

    assert_int_equal(pzt_get(n, IB_ATTR_PORT_INFO, 0, pi), 0);
    PZT_SET_FIELDS(pi, {IB_PORT_LID_F, lid}, {IB_PORT_SMLID_F, sm_lid}, {IB_PORT_SMSL_F, sl},
                   {IB_PORT_SUBN_TIMEOUT_F, timeout}, {IB_PORT_STATE_F, 0},
                   {IB_PORT_PHYS_STATE_F, 0});
    assert_int_equal(pzt_set(n, IB_ATTR_PORT_INFO, 0, pi, NULL), 0);
}

/* An 8-port switch with LID, SM and SubnetTimeOut 18. */
static struct pzt_node *switch_ready(void)
{
    struct pzt_node *n = pzt_switch_new(8);

    assert_non_null(n);
    assign(n, SW_LID, SM_LID, SM_SL, TIMEOUT);
    return n;
}

/* SwitchInfo.PortStateChange. */
static unsigned psc(struct pzt_node *n)
{
    uint8_t si[PZT_DATA];

    assert_int_equal(pzt_get(n, IB_ATTR_SWITCH_INFO, 0, si), 0);
    return mad_get_field(si, 0, IB_SW_STATE_CHANGE_F);
}

/* SwitchInfo Set writing PortStateChange = v (1 clears it). */
static void write_psc(struct pzt_node *n, unsigned v)
{
    uint8_t si[PZT_DATA];

    assert_int_equal(pzt_get(n, IB_ATTR_SWITCH_INFO, 0, si), 0);
    mad_set_field(si, 0, IB_SW_STATE_CHANGE_F, v);
    assert_int_equal(pzt_set(n, IB_ATTR_SWITCH_INFO, 0, si, NULL), 0);
}

/* Check that t is a Trap(Notice) SMP from the switch to the SM, M_Key 0. */
static void check_transport(const struct pzt_result *t, unsigned trap_num, unsigned type)
{
    const uint8_t *d = t->mad + 64;

    assert_true(t->addr.lid_routed);
    assert_int_equal(t->addr.port, 0);
    assert_int_equal(t->addr.dlid, SM_LID);
    assert_int_equal(t->addr.slid, SW_LID);
    assert_int_equal(t->addr.sl, SM_SL);
    PZT_EXPECT_FIELDS(t->mad, {IB_MAD_BASEVER_F, 1}, {IB_MAD_MGMTCLASS_F, IB_SMI_CLASS},
                      {IB_MAD_CLASSVER_F, 1}, {IB_MAD_METHOD_F, IB_MAD_METHOD_TRAP},
                      {IB_MAD_RESPONSE_F, 0}, {IB_MAD_STATUS_F, 0}, {IB_MAD_ATTRID_F, ATTR_NOTICE},
                      {IB_MAD_ATTRMOD_F, 0});
    assert_true(mad_get_field64((void *)t->mad, 0, IB_MAD_MKEY_F) == 0);
    assert_int_equal(mad_get_field((void *)d, 0, IB_NOTICE_IS_GENERIC_F), 1);
    assert_int_equal(mad_get_field((void *)d, 0, IB_NOTICE_TYPE_F), type);
    assert_int_equal(mad_get_field((void *)d, 0, IB_NOTICE_PRODUCER_F), 2); /* switch */
    assert_int_equal(mad_get_field((void *)d, 0, IB_NOTICE_TRAP_NUMBER_F), trap_num);
    assert_int_equal(mad_get_field((void *)d, 0, IB_NOTICE_ISSUER_LID_F), SW_LID);
    assert_int_equal(pzt_be(d + N_TOGGLE_COUNT, 2), 0);
}

/* ---- Trap 128 ---- */

/* Traps wait until the switch has a LID and knows its master SM. */
static void test_trap128_waits_for_lid_and_sm(void **state)
{
    struct pzt_node *n = pzt_switch_new(8);
    struct pzt_result t;

    assert_int_equal(psc(n), 0);
    board_mem_set_connected(n->bm, 3, true);
    assert_int_equal(pzt_poll_all(n, NULL), 0);
    assert_int_equal(psc(n), 1);
    assert_int_equal(sma_traps_pending(n->sma), 1);
    assert_true(sma_next_deadline(n->sma) == UINT64_MAX);

    assign(n, SW_LID, 0, SM_SL, TIMEOUT); /* LID, no SM */
    assert_int_equal(pzt_poll_all(n, NULL), 0);
    assign(n, 0, SM_LID, SM_SL, TIMEOUT); /* SM, no LID */
    assert_int_equal(pzt_poll_all(n, NULL), 0);
    assert_true(sma_next_deadline(n->sma) == UINT64_MAX);

    assign(n, SW_LID, SM_LID, SM_SL, TIMEOUT);
    assert_true(sma_next_deadline(n->sma) <= board_now_ns(n->board));
    assert_int_equal(pzt_poll_all(n, &t), 1);
    check_transport(&t, 128, 1 /* urgent */);
    pzt_node_free(n);
}

/* The Trap 128 SMP and its Notice, field by field; M_Key 0 even when one is set. */
static void test_trap128_format(void **state)
{
    struct pzt_node *n = switch_ready();
    uint8_t pi[PZT_DATA];
    struct pzt_result t;

    /* A switch M_Key does not go into traps (o14-1). */
    assert_int_equal(pzt_get(n, IB_ATTR_PORT_INFO, 0, pi), 0);
    mad_set_field64(pi, 0, IB_PORT_MKEY_F, MKEY);
    mad_set_field(pi, 0, IB_PORT_STATE_F, 0);
    mad_set_field(pi, 0, IB_PORT_PHYS_STATE_F, 0);
    assert_int_equal(pzt_set(n, IB_ATTR_PORT_INFO, 0, pi, NULL), 0);

    board_mem_set_connected(n->bm, 2, true);
    assert_int_equal(pzt_poll_all(n, &t), 1);
    check_transport(&t, 128, 1 /* urgent */);
    assert_int_equal(mad_get_field(t.data, 0, IB_NOTICE_DATA_LID_F), SW_LID);
    assert_int_equal(sma_traps_pending(n->sma), 1);
    assert_true(pzt_sma_stats(n).traps_sent == 1);
    pzt_node_free(n);
}

/* Resends every 4.096 us x 2^SubnetTimeOut with the same TID until repressed. */
static void test_trap128_resend_until_repressed(void **state)
{
    struct pzt_node *n = switch_ready();
    const uint64_t iv = 4096ull << TIMEOUT;
    struct sma_stats s0, s1;
    struct pzt_result t;
    uint64_t t0, tid;

    board_mem_set_connected(n->bm, 5, true);
    t0 = board_now_ns(n->board);
    assert_int_equal(pzt_poll_all(n, &t), 1);
    tid = pzt_tid(&t);
    assert_true(sma_next_deadline(n->sma) == t0 + iv);

    /* Not before the interval. */
    board_mem_advance_ns(n->bm, iv - 1);
    assert_int_equal(pzt_poll_all(n, NULL), 0);
    assert_true(sma_next_deadline(n->sma) == t0 + iv);
    /* At the interval: the same TID again. */
    board_mem_advance_ns(n->bm, 1);
    assert_int_equal(pzt_poll_all(n, &t), 1);
    assert_true(pzt_tid(&t) == tid);
    check_transport(&t, 128, 1);
    assert_true(sma_next_deadline(n->sma) == t0 + 2 * iv);

    /* A TrapRepress for another TID does not stop it. */
    pzt_trap_repress(n, SM_LID, tid + 1);
    assert_int_equal(sma_traps_pending(n->sma), 1);
    board_mem_advance_ns(n->bm, iv);
    assert_int_equal(pzt_poll_all(n, &t), 1);
    assert_true(pzt_tid(&t) == tid);

    /* The right one does; it is not answered and not counted as dropped. */
    s0 = pzt_sma_stats(n);
    pzt_trap_repress(n, SM_LID, tid);
    s1 = pzt_sma_stats(n);
    assert_int_equal(sma_traps_pending(n->sma), 0);
    assert_true(s1.traps_repressed == s0.traps_repressed + 1);
    assert_true(s1.dropped == s0.dropped);
    assert_true(s1.responses_sent == s0.responses_sent);
    assert_true(sma_next_deadline(n->sma) == UINT64_MAX);
    board_mem_advance_ns(n->bm, 10 * iv);
    assert_int_equal(pzt_poll_all(n, NULL), 0);
    assert_true(pzt_sma_stats(n).traps_sent == 3);
    pzt_node_free(n);
}

/* The interval for several SubnetTimeOut values, including the 1 ms floor. */
static void test_resend_interval(void **state)
{
    static const unsigned timeouts[] = {0, 5, 7, 8, 10, 14, 18, 20, 31};

    for (size_t i = 0; i < sizeof(timeouts) / sizeof(timeouts[0]); i++) {
        struct pzt_node *n = pzt_switch_new(8);
        struct pzt_result t;
        uint64_t t0;

        assign(n, SW_LID, SM_LID, SM_SL, timeouts[i]);
        board_mem_set_connected(n->bm, 1, true);
        t0 = board_now_ns(n->board);
        assert_int_equal(pzt_poll_all(n, &t), 1);
        if (sma_next_deadline(n->sma) != t0 + resend_ns(timeouts[i]))
            fail_msg("SubnetTimeOut %u: interval %llu ns", timeouts[i],
                     (unsigned long long)(sma_next_deadline(n->sma) - t0));
        board_mem_advance_ns(n->bm, resend_ns(timeouts[i]) - 1);
        assert_int_equal(pzt_poll_all(n, NULL), 0);
        board_mem_advance_ns(n->bm, 1);
        assert_int_equal(pzt_poll_all(n, &t), 1);
        pzt_node_free(n);
    }
    /* Above the floor the formula is exact. */
    assert_true(resend_ns(18) == 1073741824ull);
    assert_true(resend_ns(8) == 1048576ull);
}

/* switch_ready() with port 2 cabled: its one Trap 128 sent, the TID in *tid. */
static struct pzt_node *switch_first_trap128(uint64_t *tid)
{
    struct pzt_node *n = switch_ready();
    struct pzt_result t;

    board_mem_set_connected(n->bm, 2, true);
    assert_int_equal(pzt_poll_all(n, &t), 1);
    *tid = pzt_tid(&t);
    return n;
}

/* One Trap 128 while PortStateChange is set; a new one after the SM clears it. */
static void test_trap128_once_per_psc(void **state)
{
    struct pzt_result t;
    uint64_t tid1;
    struct pzt_node *n = switch_first_trap128(&tid1);

    /* More link changes while PSC is 1: no second trap. */
    board_mem_set_connected(n->bm, 2, false);
    board_mem_set_connected(n->bm, 4, true);
    assert_int_equal(pzt_poll_all(n, NULL), 0);
    assert_int_equal(sma_traps_pending(n->sma), 1);
    pzt_trap_repress(n, SM_LID, tid1);
    board_mem_set_connected(n->bm, 6, true);
    assert_int_equal(pzt_poll_all(n, NULL), 0);
    assert_int_equal(sma_traps_pending(n->sma), 0);

    /* Writing 0 leaves it set; writing 1 clears it (OpenSM's way). */
    write_psc(n, 0);
    assert_int_equal(psc(n), 1);
    write_psc(n, 1);
    assert_int_equal(psc(n), 0);
    assert_int_equal(pzt_poll_all(n, NULL), 0);

    /* The next change sets PSC again, with a new trap and a new TID. */
    board_mem_set_connected(n->bm, 7, true);
    assert_int_equal(pzt_poll_all(n, &t), 1);
    check_transport(&t, 128, 1);
    assert_true(pzt_tid(&t) != tid1);
    assert_int_equal(psc(n), 1);
    pzt_node_free(n);
}

/* PSC cleared while the first trap is still unrepressed: the new event gets its own trap. */
static void test_trap128_new_event_while_first_pending(void **state)
{
    struct pzt_result t;
    uint64_t tid1;
    struct pzt_node *n = switch_first_trap128(&tid1);
    write_psc(n, 1);
    board_mem_set_connected(n->bm, 3, true);
    assert_int_equal(pzt_poll_all(n, &t), 1);
    assert_true(pzt_tid(&t) != tid1);
    assert_int_equal(sma_traps_pending(n->sma), 2);
    pzt_trap_repress(n, SM_LID, tid1);
    pzt_trap_repress(n, SM_LID, pzt_tid(&t));
    assert_int_equal(sma_traps_pending(n->sma), 0);
    pzt_node_free(n);
}

/* ---- Traps 144 and 145 ---- */

/* Check a Trap 144 against the current PortInfo(0) capability masks. */
static void check_trap144(struct pzt_node *n, const struct pzt_result *t, unsigned local_changes,
                          unsigned change_flags)
{
    uint8_t pi[PZT_DATA];

    assert_int_equal(pzt_get(n, IB_ATTR_PORT_INFO, 0, pi), 0);
    check_transport(t, 144, 4 /* informational */);
    assert_int_equal(mad_get_field(t->data, 0, IB_NOTICE_DATA_144_LID_F), SW_LID);
    assert_int_equal(t->data[N144_LOCAL_CHANGES] & 1, local_changes);
    assert_int_equal(mad_get_field(t->data, 0, IB_NOTICE_DATA_144_CAPMASK_F),
                     mad_get_field(pi, 0, IB_PORT_CAPMASK_F));
    assert_int_equal(pzt_be(t->data + N144_CHANGE_FLAGS, 2), change_flags);
    assert_int_equal(pzt_be(t->data + N144_CAPMASK2, 2), mad_get_field(pi, 0, IB_PORT_CAPMASK2_F));
}

/* A new NodeDescription: Trap 144, LocalChanges 1, ChangeFlags NodeDescription. */
static void test_trap144_node_description(void **state)
{
    struct pzt_node *n = switch_ready();
    uint8_t nd[PZT_DATA];
    struct pzt_result t;

    assert_int_equal(sma_set_node_description(n->sma, "leaf-7 rack 3"), 0);
    assert_int_equal(pzt_poll_all(n, &t), 1);
    check_trap144(n, &t, 1, 0x0001);
    assert_int_equal(pzt_get(n, IB_ATTR_NODE_DESC, 0, nd), 0);
    assert_string_equal((char *)nd, "leaf-7 rack 3");
    assert_string_equal(sma_node_description(n->sma), "leaf-7 rack 3");

    /* Unchanged: no trap. */
    pzt_trap_repress(n, SM_LID, pzt_tid(&t));
    assert_int_equal(sma_set_node_description(n->sma, "leaf-7 rack 3"), 0);
    assert_int_equal(sma_traps_pending(n->sma), 0);
    assert_int_equal(sma_set_node_description(n->sma, NULL), -EINVAL);
    pzt_node_free(n);
}

/* New capability masks: Trap 144 with the new masks, no LocalChanges. */
static void test_trap144_capability_mask(void **state)
{
    struct pzt_node *n = switch_ready();
    uint8_t pi[PZT_DATA];
    struct pzt_result t;
    uint32_t cap;
    uint16_t cap2;

    assert_int_equal(pzt_get(n, IB_ATTR_PORT_INFO, 0, pi), 0);
    cap = mad_get_field(pi, 0, IB_PORT_CAPMASK_F) | 0x00000010u;
    cap2 = (uint16_t)(mad_get_field(pi, 0, IB_PORT_CAPMASK2_F) | 0x0004u);
    assert_int_equal(sma_set_capability_mask(n->sma, 0, cap, cap2), 0);
    assert_int_equal(pzt_poll_all(n, &t), 1);
    check_trap144(n, &t, 0, 0);
    assert_int_equal(mad_get_field(t.data, 0, IB_NOTICE_DATA_144_CAPMASK_F), cap);
    assert_int_equal(pzt_be(t.data + N144_CAPMASK2, 2), cap2);

    pzt_trap_repress(n, SM_LID, pzt_tid(&t));
    assert_int_equal(sma_set_capability_mask(n->sma, 0, cap, cap2), 0);
    assert_int_equal(sma_traps_pending(n->sma), 0);
    assert_int_equal(sma_set_capability_mask(n->sma, 1, cap, cap2), -EINVAL);
    assert_int_equal(sma_set_capability_mask(n->sma, 9, cap, cap2), -EINVAL);
    pzt_node_free(n);
}

/* A new SystemImageGUID: Trap 145 carrying it. */
static void test_trap145_system_image_guid(void **state)
{
    const uint64_t guid = 0x0002c9000000beefull;
    struct pzt_node *n = switch_ready();
    uint8_t ni[PZT_DATA];
    struct pzt_result t;

    assert_int_equal(sma_set_system_image_guid(n->sma, guid), 0);
    assert_int_equal(pzt_poll_all(n, &t), 1);
    check_transport(&t, 145, 4 /* informational */);
    assert_int_equal(pzt_be(t.data + N145_LID, 2), SW_LID);
    assert_true(pzt_be(t.data + N145_GUID, 8) == guid);
    assert_int_equal(pzt_get(n, IB_ATTR_NODE_INFO, 0, ni), 0);
    assert_true(mad_get_field64(ni, 0, IB_NODE_SYSTEM_GUID_F) == guid);

    pzt_trap_repress(n, SM_LID, pzt_tid(&t));
    assert_int_equal(sma_set_system_image_guid(n->sma, guid), 0);
    assert_int_equal(sma_traps_pending(n->sma), 0);
    pzt_node_free(n);
}

/* Equal notices merge while unsent; once one went out, a new event is a new trap. */
static void test_unsent_notices_merge(void **state)
{
    struct pzt_node *n = pzt_switch_new(8);
    struct pzt_result t;
    uint64_t tid1;

    assert_int_equal(sma_set_node_description(n->sma, "a"), 0);
    assert_int_equal(sma_set_node_description(n->sma, "b"), 0);
    assert_int_equal(sma_traps_pending(n->sma), 1);
    assign(n, SW_LID, SM_LID, SM_SL, TIMEOUT);
    assert_int_equal(pzt_poll_all(n, &t), 1);
    tid1 = pzt_tid(&t);
    assert_int_equal(sma_set_node_description(n->sma, "c"), 0);
    assert_int_equal(sma_traps_pending(n->sma), 2);
    assert_int_equal(pzt_poll_all(n, &t), 1);
    assert_true(pzt_tid(&t) != tid1);
    check_trap144(n, &t, 1, 0x0001);
    pzt_node_free(n);
}

/* A full queue counts traps_lost and keeps working. */
static void test_queue_overflow(void **state)
{
    struct pzt_node *n = pzt_switch_new(8);
    struct pzt_result t;
    uint64_t tids[64];
    unsigned queued, sent = 0;

    for (unsigned i = 0; i < 1000; i++)
        assert_int_equal(sma_set_capability_mask(n->sma, 0, 0x100u + i, 0), 0);
    queued = sma_traps_pending(n->sma);
    assert_true(queued >= 1 && queued < 1000);
    assert_true(pzt_sma_stats(n).traps_lost == 1000 - queued);

    /* Once the SM is known they all go out, each with its own TID. */
    assign(n, SW_LID, SM_LID, SM_SL, TIMEOUT);
    while (sent < 64 && sma_poll(n->sma, &t.addr, t.mad) == MAD_SEND) {
        tids[sent] = pzt_tid(&t);
        for (unsigned j = 0; j < sent; j++)
            assert_true(tids[j] != tids[sent]);
        sent++;
    }
    assert_int_equal(sent, queued);
    for (unsigned i = 0; i < sent; i++)
        pzt_trap_repress(n, SM_LID, tids[i]);
    assert_int_equal(sma_traps_pending(n->sma), 0);

    /* Room again. */
    assert_int_equal(sma_set_system_image_guid(n->sma, 0x1234), 0);
    assert_int_equal(pzt_poll_all(n, &t), 1);
    check_transport(&t, 145, 4);
    assert_true(pzt_sma_stats(n).traps_lost == 1000 - queued);
    pzt_node_free(n);
}

PZT_MAIN(test_trap128_waits_for_lid_and_sm, test_trap128_format,
         test_trap128_resend_until_repressed, test_resend_interval, test_trap128_once_per_psc,
         test_trap128_new_event_while_first_pending, test_trap144_node_description,
         test_trap144_capability_mask, test_trap145_system_image_guid, test_unsent_notices_merge,
         test_queue_overflow)
