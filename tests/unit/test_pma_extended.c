/*
 * test_pma_extended.c - PortCountersExtended: 64-bit values including the
 * IB 1.3 additional counters, CounterSelect/CounterSelect2 resets, and how
 * PortCounters and PortCountersExtended resets relate.
 */
#include "pma_test_util.h"
#include "pzt_main.h"
#include "pzt_fields.h"

#define HW(f) offsetof(struct board_port_counters, f)

/* One PortCountersExtended field: hardware counter, libibmad field, reset bit. */
struct pce_field {
    size_t hw;
    enum MAD_FIELDS field;
    unsigned sel; /* CounterSelect bit, 16 + CounterSelect2 bit */
};

static const struct pce_field pce_fields[] = {
    {HW(xmit_data), IB_PC_EXT_XMT_BYTES_F, 0},
    {HW(rcv_data), IB_PC_EXT_RCV_BYTES_F, 1},
    {HW(xmit_pkts), IB_PC_EXT_XMT_PKTS_F, 2},
    {HW(rcv_pkts), IB_PC_EXT_RCV_PKTS_F, 3},
    {HW(unicast_xmit_pkts), IB_PC_EXT_XMT_UPKTS_F, 4},
    {HW(unicast_rcv_pkts), IB_PC_EXT_RCV_UPKTS_F, 5},
    {HW(multicast_xmit_pkts), IB_PC_EXT_XMT_MPKTS_F, 6},
    {HW(multicast_rcv_pkts), IB_PC_EXT_RCV_MPKTS_F, 7},
    {HW(symbol_errors), IB_PC_EXT_ERR_SYM_F, 16},
    {HW(link_error_recovery), IB_PC_EXT_LINK_RECOVERS_F, 17},
    {HW(link_downed), IB_PC_EXT_LINK_DOWNED_F, 18},
    {HW(rcv_errors), IB_PC_EXT_ERR_RCV_F, 19},
    {HW(rcv_remote_phys_errors), IB_PC_EXT_ERR_PHYSRCV_F, 20},
    {HW(rcv_switch_relay_errors), IB_PC_EXT_ERR_SWITCH_REL_F, 21},
    {HW(xmit_discards), IB_PC_EXT_XMT_DISCARDS_F, 22},
    {HW(xmit_constraint_errors), IB_PC_EXT_ERR_XMTCONSTR_F, 23},
    {HW(rcv_constraint_errors), IB_PC_EXT_ERR_RCVCONSTR_F, 24},
    {HW(local_link_integrity_errors), IB_PC_EXT_ERR_LOCALINTEG_F, 25},
    {HW(excessive_buffer_overrun_errors), IB_PC_EXT_ERR_EXCESS_OVR_F, 26},
    {HW(vl15_dropped), IB_PC_EXT_VL15_DROPPED_F, 27},
    {HW(xmit_wait), IB_PC_EXT_XMT_WAIT_F, 28},
    {HW(qp1_dropped), IB_PC_EXT_QP1_DROP_F, 29},
};

#define NPCE (sizeof(pce_fields) / sizeof(pce_fields[0]))

static uint64_t *hw_ctr(struct pt_node *n, unsigned port, const struct pce_field *f)
{
    return (uint64_t *)((char *)pt_hw(n, port) + f->hw);
}

static void test_values_64bit(void **state)
{
    struct pt_node *n = pt_switch_new(4, 0, false);
    uint8_t resp[PT_DATA];

    for (size_t i = 0; i < NPCE; i++)
        pt_add(n, hw_ctr(n, 4, &pce_fields[i]), 0x100000000ull * (i + 1) + i);
    assert_int_equal(pt_query(n, IB_GSI_PORT_COUNTERS_EXT, 4, resp), ST_OK);
    pt_check_reply(n, IB_PERFORMANCE_CLASS);
    assert_int_equal(pt_f(resp, IB_PC_EXT_PORT_SELECT_F), 4);
    for (size_t i = 0; i < NPCE; i++)
        assert_int_equal(pt_f64(resp, pce_fields[i].field), 0x100000000ull * (i + 1) + i);
    pt_node_free(n);
}

/* 32-bit hardware counters: the extended view shows the true 64-bit count. */
static void test_wrap_into_64bit(void **state)
{
    struct pt_node *n = pt_switch_new(2, 32, false);
    uint8_t resp[PT_DATA];

    for (unsigned i = 0; i < 6; i++) {
        pt_add(n, &pt_hw(n, 1)->xmit_data, 0xF0000000u);
        pt_add(n, &pt_hw(n, 1)->symbol_errors, 0xF0000000u);
        pma_poll(n->pma);
    }
    assert_int_equal(pt_query(n, IB_GSI_PORT_COUNTERS_EXT, 1, resp), ST_OK);
    assert_int_equal(pt_f64(resp, IB_PC_EXT_XMT_BYTES_F), 6 * 0xF0000000ull);
    assert_int_equal(pt_f64(resp, IB_PC_EXT_ERR_SYM_F), 6 * 0xF0000000ull);
    pt_node_free(n);
}

/* Each CounterSelect / CounterSelect2 bit resets exactly its extended counter. */
static void test_select_bits(void **state)
{
    for (size_t b = 0; b < NPCE; b++) {
        struct pt_node *n = pt_switch_new(2, 0, false);
        unsigned sel = pce_fields[b].sel;
        uint8_t req[PT_DATA] = {0}, resp[PT_DATA];

        for (size_t i = 0; i < NPCE; i++)
            pt_add(n, hw_ctr(n, 1, &pce_fields[i]), 1000 + i);
        PZT_SET_FIELDS(req, {IB_PC_EXT_PORT_SELECT_F, 1},
                       {IB_PC_EXT_COUNTER_SELECT_F, sel < 16 ? 1u << sel : 0},
                       {IB_PC_EXT_COUNTER_SELECT2_F, sel >= 16 ? 1u << (sel - 16) : 0});
        assert_int_equal(pt_pma(n, IB_MAD_METHOD_SET, IB_GSI_PORT_COUNTERS_EXT, req, resp), ST_OK);
        assert_int_equal(pt_f(resp, IB_PC_EXT_COUNTER_SELECT_F), sel < 16 ? 1u << sel : 0);
        assert_int_equal(pt_f(resp, IB_PC_EXT_COUNTER_SELECT2_F), sel >= 16 ? 1u << (sel - 16) : 0);
        for (size_t i = 0; i < NPCE; i++)
            assert_int_equal(pt_f64(resp, pce_fields[i].field), i == b ? 0 : 1000 + i);
        assert_int_equal(pt_query(n, IB_GSI_PORT_COUNTERS_EXT, 1, resp), ST_OK);
        for (size_t i = 0; i < NPCE; i++)
            assert_int_equal(pt_f64(resp, pce_fields[i].field), i == b ? 0 : 1000 + i);
        pt_node_free(n);
    }
}

/* perfquery -x -R: CounterSelect 0xFFFF, CounterSelect2 0x3FFF (0xfff | XmitWait | QP1). */
static void test_perfquery_x_reset(void **state)
{
    struct pt_node *n = pt_switch_new(2, 0, false);
    uint8_t resp[PT_DATA];

    for (size_t i = 0; i < NPCE; i++)
        pt_add(n, hw_ctr(n, 2, &pce_fields[i]), 77);
    assert_int_equal(
        pt_reset(n, IB_GSI_PORT_COUNTERS_EXT, 2, 0xFFFF | 0xFFF0000 | 1u << 28 | 1u << 29, resp),
        ST_OK);
    for (size_t i = 0; i < NPCE; i++)
        assert_int_equal(pt_f64(resp, pce_fields[i].field), 0);
    pt_node_free(n);
}

/*
 * OpenSM perfmgr resets PortCounters with CounterSelect 0x0FFF when PCE is
 * supported: the extended view (data and errors) must keep counting.
 */
static void test_pc_error_reset_leaves_pce(void **state)
{
    struct pt_node *n = pt_switch_new(2, 32, false);
    uint8_t pc[PT_DATA], pce[PT_DATA];

    for (size_t i = 0; i < NPCE; i++)
        pt_add(n, hw_ctr(n, 1, &pce_fields[i]), 50);
    assert_int_equal(pt_reset(n, IB_GSI_PORT_COUNTERS, 1, 0x0FFF | 1u << 16 | 1u << 17, pc), ST_OK);
    PZT_EXPECT_FIELDS(pc, {IB_PC_ERR_SYM_F, 0}, {IB_PC_XMT_WAIT_F, 0}, {IB_PC_XMT_BYTES_F, 50});
    assert_int_equal(pt_query(n, IB_GSI_PORT_COUNTERS_EXT, 1, pce), ST_OK);
    for (size_t i = 0; i < NPCE; i++)
        assert_int_equal(pt_f64(pce, pce_fields[i].field), 50);
    pt_node_free(n);
}

/* A PortCounters reset of the data counters (perfquery -R) clears both views' data. */
static void test_pc_data_reset_clears_pce_data(void **state)
{
    struct pt_node *n = pt_switch_new(2, 32, false);
    uint8_t pce[PT_DATA];

    for (size_t i = 0; i < NPCE; i++)
        pt_add(n, hw_ctr(n, 1, &pce_fields[i]), 60);
    /* XmitData and RcvPkts only. */
    assert_int_equal(pt_reset(n, IB_GSI_PORT_COUNTERS, 1, 1u << 12 | 1u << 15, NULL), ST_OK);
    assert_int_equal(pt_query(n, IB_GSI_PORT_COUNTERS_EXT, 1, pce), ST_OK);
    for (size_t i = 0; i < NPCE; i++) {
        bool cleared = pce_fields[i].field == IB_PC_EXT_XMT_BYTES_F ||
                       pce_fields[i].field == IB_PC_EXT_RCV_PKTS_F;

        assert_int_equal(pt_f64(pce, pce_fields[i].field), cleared ? 0 : 60);
    }
    /* perfquery -R: every data counter of both views. */
    assert_int_equal(pt_reset(n, IB_GSI_PORT_COUNTERS, 1, 0xFFFF | 3u << 16, NULL), ST_OK);
    assert_int_equal(pt_query(n, IB_GSI_PORT_COUNTERS_EXT, 1, pce), ST_OK);
    assert_int_equal(pt_f64(pce, IB_PC_EXT_XMT_BYTES_F), 0);
    assert_int_equal(pt_f64(pce, IB_PC_EXT_RCV_BYTES_F), 0);
    assert_int_equal(pt_f64(pce, IB_PC_EXT_XMT_PKTS_F), 0);
    assert_int_equal(pt_f64(pce, IB_PC_EXT_RCV_PKTS_F), 0);
    assert_int_equal(pt_f64(pce, IB_PC_EXT_XMT_UPKTS_F), 60); /* no PortCounters twin */
    assert_int_equal(pt_f64(pce, IB_PC_EXT_ERR_SYM_F), 60);   /* error views are separate */
    assert_int_equal(pt_f64(pce, IB_PC_EXT_XMT_WAIT_F), 60);
    pt_node_free(n);
}

/* A PortCountersExtended reset never touches PortCounters. */
static void test_pce_reset_leaves_pc(void **state)
{
    struct pt_node *n = pt_switch_new(2, 32, false);
    uint8_t pc[PT_DATA], pce[PT_DATA];

    pt_add(n, &pt_hw(n, 2)->xmit_data, 70);
    pt_add(n, &pt_hw(n, 2)->symbol_errors, 71);
    pt_add(n, &pt_hw(n, 2)->xmit_wait, 72);
    assert_int_equal(pt_reset(n, IB_GSI_PORT_COUNTERS_EXT, 2, 0, pce), ST_OK); /* all bits */
    assert_int_equal(pt_f64(pce, IB_PC_EXT_XMT_BYTES_F), 0);
    assert_int_equal(pt_f64(pce, IB_PC_EXT_ERR_SYM_F), 0);
    assert_int_equal(pt_query(n, IB_GSI_PORT_COUNTERS, 2, pc), ST_OK);
    PZT_EXPECT_FIELDS(pc, {IB_PC_XMT_BYTES_F, 70}, {IB_PC_ERR_SYM_F, 71}, {IB_PC_XMT_WAIT_F, 72});
    /* Both views keep counting from their own baselines. */
    pt_add(n, &pt_hw(n, 2)->xmit_data, 5);
    assert_int_equal(pt_query(n, IB_GSI_PORT_COUNTERS, 2, pc), ST_OK);
    assert_int_equal(pt_query(n, IB_GSI_PORT_COUNTERS_EXT, 2, pce), ST_OK);
    assert_int_equal(pt_f(pc, IB_PC_XMT_BYTES_F), 75);
    assert_int_equal(pt_f64(pce, IB_PC_EXT_XMT_BYTES_F), 5);
    pt_node_free(n);
}

/* AllPortSelect sums 64-bit counters and sticks at 2^64 - 1. */
static void test_all_ports_64(void **state)
{
    struct pt_node *n = pt_switch_new(3, 0, false);
    uint8_t resp[PT_DATA];

    for (unsigned p = 1; p <= 3; p++) {
        pt_add(n, &pt_hw(n, p)->rcv_data, 0x6000000000000000ull);
        pt_add(n, &pt_hw(n, p)->multicast_rcv_pkts, p);
    }
    assert_int_equal(pt_query(n, IB_GSI_PORT_COUNTERS_EXT, 0xFF, resp), ST_OK);
    assert_int_equal(pt_f64(resp, IB_PC_EXT_RCV_BYTES_F), UINT64_MAX);
    assert_int_equal(pt_f64(resp, IB_PC_EXT_RCV_MPKTS_F), 6);
    assert_int_equal(pt_reset(n, IB_GSI_PORT_COUNTERS_EXT, 0xFF, 0xFF, resp), ST_OK);
    assert_int_equal(pt_f64(resp, IB_PC_EXT_RCV_BYTES_F), 0);
    assert_int_equal(pt_query(n, IB_GSI_PORT_COUNTERS_EXT, 3, resp), ST_OK);
    assert_int_equal(pt_f64(resp, IB_PC_EXT_RCV_MPKTS_F), 0);
    pt_node_free(n);
}

PZT_MAIN(test_values_64bit, test_wrap_into_64bit, test_select_bits, test_perfquery_x_reset,
         test_pc_error_reset_leaves_pce, test_pc_data_reset_clears_pce_data,
         test_pce_reset_leaves_pc, test_all_ports_64)
