/*
 * test_sma_vendor_notice.c - vendor-specific notices from the SMA
 * (sma_send_vendor_notice()): the Notice fields (IsGeneric 0, VendorID,
 * DeviceID, trap number and LIDADDR in DataDetails), transport to the master
 * SM, resends with the same TID until a TrapRepress, hot-spot onset and
 * clear as distinct notices, bad lengths, a full queue, and the monitor's
 * notice record carried end to end.
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

#include "cong_monitor.h"
#include "pma.h"
#include "pma_vendor.h"
#include "pzt.h"
#include "pzt_main.h"
#include "pzt_fields.h"

#define SW_LID 0x21
#define SM_LID 0x05
#define TIMEOUT 18 /* SubnetTimeOut: resend every 4.096 us x 2^18 = 1.07 s */
#define ATTR_NOTICE 0x0002
#define SEC 1000000000ull

/* Notice offsets of a vendor notice's DataDetails (Notice byte 10 on). */
#define N_TOGGLE_COUNT 8
#define N_TRAP 10
#define N_LID 12
#define N_DETAILS 14

/* An 8-port switch with LID, master SM and SubnetTimeOut 18, optionally its own DeviceID. */
static struct pzt_node *switch_ready(uint16_t device_id)
{
    struct board_identity id;
    struct pzt_node *n;

    board_mem_default_switch_identity(&id, 0x0002c90000005000ull, 8);
    if (device_id)
        id.device_id = device_id;
    n = pzt_node_new(&id);
    assert_non_null(n);
    pzt_assign_lid(n, SW_LID, SM_LID, TIMEOUT);
    return n;
}

/* Check t is a vendor Trap(Notice) from the switch to the SM carrying trap and details. */
static void check_vendor_trap(const struct pzt_node *n, const struct pzt_result *t, unsigned trap,
                              const uint8_t *details, size_t len)
{
    const uint8_t *d = t->mad + 64;

    assert_true(t->addr.lid_routed);
    assert_int_equal(t->addr.port, 0);
    assert_int_equal(t->addr.dlid, SM_LID);
    assert_int_equal(t->addr.slid, SW_LID);
    PZT_EXPECT_FIELDS(t->mad, {IB_MAD_MGMTCLASS_F, IB_SMI_CLASS},
                      {IB_MAD_METHOD_F, IB_MAD_METHOD_TRAP}, {IB_MAD_RESPONSE_F, 0},
                      {IB_MAD_ATTRID_F, ATTR_NOTICE}, {IB_MAD_ATTRMOD_F, 0});
    assert_true(mad_get_field64((void *)t->mad, 0, IB_MAD_MKEY_F) == 0);
    /* IsGeneric 0 | Type 4, VendorID (24 bits), DeviceID (16 bits). */
    assert_int_equal(d[0], 0x04);
    assert_int_equal(mad_get_field((void *)d, 0, IB_NOTICE_IS_GENERIC_F), 0);
    assert_int_equal(mad_get_field((void *)d, 0, IB_NOTICE_TYPE_F), SMA_VENDOR_NOTICE_TYPE);
    assert_int_equal(be_get(d + 1, 3), n->id.vendor_id);
    assert_int_equal(be_get(d + 4, 2), n->id.device_id);
    assert_int_equal(mad_get_field((void *)d, 0, IB_NOTICE_ISSUER_LID_F), SW_LID);
    assert_int_equal(be_get(d + N_TOGGLE_COUNT, 2), 0);
    assert_int_equal(be_get(d + N_TRAP, 2), trap);
    assert_int_equal(be_get(d + N_LID, 2), SW_LID);
    assert_memory_equal(d + N_DETAILS, details, len);
    for (size_t i = N_DETAILS + len; i < 64; i++)
        assert_int_equal(d[i], 0);
}

/* Queued, sent to the SM, resent with the same TID until repressed. */
static void test_vendor_notice_resend_until_repressed(void **state)
{
    struct pzt_node *n = switch_ready(0);
    const uint64_t iv = 4096ull << TIMEOUT;
    uint8_t details[5] = {1, 2, 3, 4, 5};
    struct pzt_result t;
    uint64_t tid;

    assert_int_equal(sma_send_vendor_notice(n->sma, 0x0001, details, sizeof(details)), 0);
    assert_int_equal(sma_traps_pending(n->sma), 1);
    assert_int_equal(pzt_poll_all(n, &t), 1);
    check_vendor_trap(n, &t, 0x0001, details, sizeof(details));
    tid = pzt_tid(&t);
    board_mem_advance_ns(n->bm, iv - 1);
    assert_int_equal(pzt_poll_all(n, NULL), 0);
    board_mem_advance_ns(n->bm, 1);
    assert_int_equal(pzt_poll_all(n, &t), 1);
    assert_true(pzt_tid(&t) == tid);
    check_vendor_trap(n, &t, 0x0001, details, sizeof(details));
    pzt_trap_repress(n, SM_LID, tid + 1); /* another TID: still pending */
    assert_int_equal(sma_traps_pending(n->sma), 1);
    pzt_trap_repress(n, SM_LID, tid);
    assert_int_equal(sma_traps_pending(n->sma), 0);
    assert_true(pzt_sma_stats(n).traps_repressed == 1);
    board_mem_advance_ns(n->bm, 10 * iv);
    assert_int_equal(pzt_poll_all(n, NULL), 0);
    assert_true(pzt_sma_stats(n).traps_sent == 2);
    pzt_node_free(n);
}

/* Onset and clear of the same port are two notices with their own TIDs. */
static void test_onset_and_clear_distinct(void **state)
{
    struct pzt_node *n = switch_ready(0);
    uint8_t details[CONG_NOTICE_DETAILS_LEN] = {3};
    struct pzt_result t1, t2;
    uint8_t mad[PZT_MAD];
    struct pzt_result r;

    assert_int_equal(
        sma_send_vendor_notice(n->sma, CONG_TRAP_HOTSPOT_ONSET, details, sizeof(details)), 0);
    assert_int_equal(
        sma_send_vendor_notice(n->sma, CONG_TRAP_HOTSPOT_CLEAR, details, sizeof(details)), 0);
    /* A repeat of an unsent notice merges. */
    assert_int_equal(
        sma_send_vendor_notice(n->sma, CONG_TRAP_HOTSPOT_CLEAR, details, sizeof(details)), 0);
    assert_int_equal(sma_traps_pending(n->sma), 2);
    r.verdict = sma_poll(n->sma, &t1.addr, t1.mad);
    assert_int_equal(r.verdict, MAD_SEND);
    r.verdict = sma_poll(n->sma, &t2.addr, t2.mad);
    assert_int_equal(r.verdict, MAD_SEND);
    assert_int_equal(sma_poll(n->sma, &r.addr, mad), MAD_DROP);
    check_vendor_trap(n, &t1, CONG_TRAP_HOTSPOT_ONSET, details, sizeof(details));
    check_vendor_trap(n, &t2, CONG_TRAP_HOTSPOT_CLEAR, details, sizeof(details));
    assert_true(pzt_tid(&t1) != pzt_tid(&t2));
    pzt_trap_repress(n, SM_LID, pzt_tid(&t2));
    assert_int_equal(sma_traps_pending(n->sma), 1);
    pzt_trap_repress(n, SM_LID, pzt_tid(&t1));
    assert_int_equal(sma_traps_pending(n->sma), 0);
    pzt_node_free(n);
}

/* A DeviceID equal to a generic trap number (128, 144) does not get that trap's LID patch. */
static void test_device_id_not_a_trap_number(void **state)
{
    static const uint16_t ids[] = {128, 144};

    for (unsigned i = 0; i < 2; i++) {
        struct pzt_node *n = switch_ready(ids[i]);
        uint8_t details[CONG_NOTICE_DETAILS_LEN];
        struct pzt_result t;

        memset(details, 0x5A, sizeof(details));
        assert_int_equal(sma_send_vendor_notice(n->sma, 0x0002, details, sizeof(details)), 0);
        assert_int_equal(pzt_poll_all(n, &t), 1);
        check_vendor_trap(n, &t, 0x0002, details, sizeof(details));
        pzt_node_free(n);
    }
}

/* Bad lengths, no details, a full queue. */
static void test_bad_input_and_full_queue(void **state)
{
    struct pzt_node *n = switch_ready(0);
    uint8_t details[SMA_VENDOR_DETAILS_MAX + 1] = {0};
    unsigned queued = 0;

    assert_int_equal(sma_send_vendor_notice(n->sma, 1, details, sizeof(details)), -EINVAL);
    assert_int_equal(sma_send_vendor_notice(n->sma, 1, NULL, 4), -EINVAL);
    assert_int_equal(sma_traps_pending(n->sma), 0);
    assert_int_equal(sma_send_vendor_notice(n->sma, 1, NULL, 0), 0);
    for (unsigned p = 1; p < 20; p++) {
        details[0] = (uint8_t)p;
        if (sma_send_vendor_notice(n->sma, 1, details, SMA_VENDOR_DETAILS_MAX) == 0)
            queued++;
        else
            assert_int_equal(sma_send_vendor_notice(n->sma, 1, details, 1), -ENOSPC);
    }
    assert_int_equal(sma_traps_pending(n->sma), queued + 1);
    assert_true(pzt_sma_stats(n).traps_lost == 2 * (19 - queued));
    /* Vendor notices leave SMA_TRAP_RESERVED slots to the SMA's own traps. */
    assert_int_equal(sma_traps_pending(n->sma), 8 - SMA_TRAP_RESERVED);
    assert_int_equal(sma_vendor_notice_room(n->sma), 0);
    assert_int_equal(sma_set_capability_mask(n->sma, 0, 0x1234, 0), 0); /* a Trap 144 */
    assert_int_equal(sma_traps_pending(n->sma), 8 - SMA_TRAP_RESERVED + 1);
    pzt_node_free(n);
}

/* A monitor's hot-spot onset, encoded by cong_event_notice(), reaches the SM intact. */
static void test_monitor_event_end_to_end(void **state)
{
    struct pzt_node *n = switch_ready(0);
    uint8_t details[CONG_NOTICE_DETAILS_LEN];
    struct cong_monitor *m;
    struct cong_event ev;
    struct pma *pma;
    struct pzt_result t;
    unsigned trap;

    pma = pma_create(n->board);
    assert_non_null(pma);
    board_mem_set_connected(n->bm, 4, true);
    m = cong_monitor_create(n->board, cong_monitor_read_pma, pma, NULL);
    assert_non_null(m);
    cong_monitor_set_peer(m, 4, CONG_PEER_CA);
    board_mem_counter_add(n->bm, &board_mem_counters(n->bm, 4)->xmit_wait, 400000);
    board_mem_advance_ns(n->bm, SEC);
    pzt_poll_all(n, NULL); /* the Trap 128 of port 4's link */
    assert_int_equal(cong_monitor_poll(m), 1);
    assert_true(cong_monitor_next_event(m, &ev));
    trap = cong_event_notice(m, &ev, details);
    assert_int_equal(trap, CONG_TRAP_HOTSPOT_ONSET);
    assert_int_equal(sma_send_vendor_notice(n->sma, (uint16_t)trap, details, sizeof(details)), 0);
    assert_int_equal(pzt_poll_all(n, &t), 1);
    check_vendor_trap(n, &t, CONG_TRAP_HOTSPOT_ONSET, details, sizeof(details));
    assert_int_equal(t.mad[64 + N_DETAILS + PZ_CMN_PORT], 4);
    assert_true(be_get(t.mad + 64 + N_DETAILS + PZ_CMN_CONGESTION, 8) == 400000);
    cong_monitor_destroy(m);
    pma_destroy(pma);
    pzt_node_free(n);
}

PZT_MAIN(test_vendor_notice_resend_until_repressed, test_onset_and_clear_distinct,
         test_device_id_not_a_trap_number, test_bad_input_and_full_queue,
         test_monitor_event_end_to_end)
