/*
 * test_pma_attrs.c - the array counter attributes: PortRcvErrorDetails,
 * PortXmitDiscardDetails, PortOpRcvCounters, PortFlowCtlCounters, the per-VL
 * and per-SL counters, SwPortVLCongestion, PortRcvConCtrl, PortSLRcvFECN/BECN,
 * PortXmitConCtrl, PortVLXmitTimeCong: values field by field, saturation,
 * CounterSelect resets, AllPortSelect, independence from PortCounters.
 */
#include "pma_test_util.h"
#include "pzt_main.h"

#define HW(f) offsetof(struct board_port_counters, f)

/* One array attribute as a manager sees it. */
struct block {
    const char *name;
    unsigned attr;
    enum MAD_FIELDS first; /* libibmad field of counter 0; the others follow */
    unsigned count;
    unsigned width;
    size_t hw; /* hardware counter 0; the others follow */
};

static const struct block blocks[] = {
    {"PortRcvErrorDetails", IB_GSI_PORT_RCV_ERROR_DETAILS, IB_PC_RCV_LOCAL_PHY_ERR_F, 6, 16,
     HW(local_phy_errors)},
    {"PortXmitDiscardDetails", IB_GSI_PORT_XMIT_DISCARD_DETAILS, IB_PC_XMT_INACT_DISC_F, 4, 16,
     HW(inactive_discards)},
    {"PortOpRcvCounters", IB_GSI_PORT_PORT_OP_RCV_COUNTERS, IB_PC_PORT_OP_RCV_PKTS_F, 2, 32,
     HW(op_rcv_pkts)},
    {"PortFlowCtlCounters", IB_GSI_PORT_PORT_FLOW_CTL_COUNTERS, IB_PC_PORT_XMIT_FLOW_PKTS_F, 2, 32,
     HW(xmit_flow_pkts)},
    {"PortVLOpPackets", IB_GSI_PORT_PORT_VL_OP_PACKETS, IB_PC_PORT_VL_OP_PACKETS0_F, 16, 16,
     HW(vl_op_packets)},
    {"PortVLOpData", IB_GSI_PORT_PORT_VL_OP_DATA, IB_PC_PORT_VL_OP_DATA0_F, 16, 32, HW(vl_op_data)},
    {"PortVLXmitFlowCtlUpdateErrors", IB_GSI_PORT_PORT_VL_XMIT_FLOW_CTL_UPDATE_ERRORS,
     IB_PC_PORT_VL_XMIT_FLOW_CTL_UPDATE_ERRORS0_F, 16, 2, HW(vl_xmit_flow_ctl_update_errors)},
    {"PortVLXmitWaitCounters", IB_GSI_PORT_PORT_VL_XMIT_WAIT_COUNTERS, IB_PC_PORT_VL_XMIT_WAIT0_F,
     16, 16, HW(vl_xmit_wait)},
    {"SwPortVLCongestion", IB_GSI_SW_PORT_VL_CONGESTION, IB_PC_SW_PORT_VL_CONGESTION0_F, 16, 16,
     HW(sw_port_vl_congestion)},
    {"PortRcvConCtrl", IB_GSI_PORT_RCV_CON_CTRL, IB_PC_RCV_CON_CTRL_PKT_RCV_FECN_F, 2, 32,
     HW(pkt_rcv_fecn)},
    {"PortSLRcvFECN", IB_GSI_PORT_SL_RCV_FECN, IB_PC_SL_RCV_FECN0_F, 16, 32, HW(rcv_fecn_sl)},
    {"PortSLRcvBECN", IB_GSI_PORT_SL_RCV_BECN, IB_PC_SL_RCV_BECN0_F, 16, 32, HW(rcv_becn_sl)},
    {"PortXmitConCtrl", IB_GSI_PORT_XMIT_CON_CTRL, IB_PC_XMIT_CON_CTRL_TIME_CONG_F, 1, 32,
     HW(xmit_time_cong)},
    {"PortVLXmitTimeCong", IB_GSI_PORT_VL_XMIT_TIME_CONG, IB_PC_VL_XMIT_TIME_CONG0_F, 15, 32,
     HW(vl_xmit_time_cong)},
    {"PortXmitDataSL", IB_GSI_PORT_XMIT_DATA_SL, IB_PC_XMT_DATA_SL0_F, 16, 32, HW(xmit_data_sl)},
    {"PortRcvDataSL", IB_GSI_PORT_RCV_DATA_SL, IB_PC_RCV_DATA_SL0_F, 16, 32, HW(rcv_data_sl)},
};

#define NBLOCKS (sizeof(blocks) / sizeof(blocks[0]))

/* Hardware counter i of block b on port. */
static uint64_t *hw_ctr(struct pt_node *n, unsigned port, const struct block *b, unsigned i)
{
    return (uint64_t *)((char *)pt_hw(n, port) + b->hw) + i;
}

static uint64_t field_of(const uint8_t *resp, const struct block *b, unsigned i)
{
    return pt_f(resp, (enum MAD_FIELDS)(b->first + i));
}

static uint64_t max_of(const struct block *b)
{
    return (UINT64_C(1) << b->width) - 1;
}

/* Every counter of block b in resp reads want. */
static void expect_all(const uint8_t *resp, const struct block *b, uint64_t want)
{
    for (unsigned i = 0; i < b->count; i++)
        assert_int_equal(field_of(resp, b, i), want);
}

static void test_values(void **state)
{
    for (size_t k = 0; k < NBLOCKS; k++) {
        const struct block *b = &blocks[k];
        struct pt_node *n = pt_switch_new(3, 0, false);
        uint8_t resp[PT_DATA];

        print_message("%s\n", b->name);
        for (unsigned i = 0; i < b->count; i++)
            pt_add(n, hw_ctr(n, 2, b, i), (i + 1) % (max_of(b) + 1));
        assert_int_equal(pt_query(n, b->attr, 2, resp), ST_OK);
        pt_check_reply(n, IB_PERFORMANCE_CLASS);
        assert_int_equal(pt_f(resp, IB_PC_PORT_SELECT_F), 2);
        for (unsigned i = 0; i < b->count; i++)
            assert_int_equal(field_of(resp, b, i), (i + 1) % (max_of(b) + 1));
        assert_int_equal(pt_query(n, b->attr, 3, resp), ST_OK);
        expect_all(resp, b, 0);
        pt_node_free(n);
    }
}

static void test_saturation(void **state)
{
    for (size_t k = 0; k < NBLOCKS; k++) {
        const struct block *b = &blocks[k];
        struct pt_node *n = pt_switch_new(3, 0, false);
        uint8_t resp[PT_DATA];

        print_message("%s\n", b->name);
        for (unsigned i = 0; i < b->count; i++)
            pt_add(n, hw_ctr(n, 1, b, i), i % 2 ? max_of(b) + 3 : max_of(b) - 1);
        assert_int_equal(pt_query(n, b->attr, 1, resp), ST_OK);
        for (unsigned i = 0; i < b->count; i++)
            assert_int_equal(field_of(resp, b, i), i % 2 ? max_of(b) : max_of(b) - 1);
        /* Far past the width: still all-ones, no wrap. */
        for (unsigned i = 0; i < b->count; i++)
            pt_add(n, hw_ctr(n, 1, b, i), 2 * max_of(b) + 2);
        assert_int_equal(pt_query(n, b->attr, 1, resp), ST_OK);
        expect_all(resp, b, max_of(b));
        pt_node_free(n);
    }
}

/* CounterSelect bit i resets counter i of the attribute and nothing else. */
static void test_select_bits(void **state)
{
    for (size_t k = 0; k < NBLOCKS; k++) {
        const struct block *b = &blocks[k];

        print_message("%s\n", b->name);
        for (unsigned bit = 0; bit < b->count; bit++) {
            struct pt_node *n = pt_switch_new(2, 0, false);
            uint8_t resp[PT_DATA];

            for (unsigned i = 0; i < b->count; i++) {
                pt_add(n, hw_ctr(n, 1, b, i), 2);
                pt_add(n, hw_ctr(n, 2, b, i), 2);
            }
            assert_int_equal(pt_reset(n, b->attr, 1, 1u << bit, resp), ST_OK);
            assert_int_equal(pt_f(resp, IB_PC_COUNTER_SELECT_F), 1u << bit);
            for (unsigned i = 0; i < b->count; i++)
                assert_int_equal(field_of(resp, b, i), i == bit ? 0 : 2);
            assert_int_equal(pt_query(n, b->attr, 2, resp), ST_OK);
            expect_all(resp, b, 2);
            pt_node_free(n);
        }
    }
}

static void test_all_ports(void **state)
{
    for (size_t k = 0; k < NBLOCKS; k++) {
        const struct block *b = &blocks[k];
        struct pt_node *n = pt_switch_new(4, 0, false);
        uint8_t resp[PT_DATA];

        print_message("%s\n", b->name);
        for (unsigned p = 1; p <= 4; p++)
            for (unsigned i = 0; i < b->count; i++)
                pt_add(n, hw_ctr(n, p, b, i), i == 0 ? max_of(b) : (p == 2 ? 1 : 0));
        assert_int_equal(pt_query(n, b->attr, 0xFF, resp), ST_OK);
        assert_int_equal(field_of(resp, b, 0), max_of(b)); /* saturated sum */
        if (b->count > 1)
            assert_int_equal(field_of(resp, b, 1), 1);
        assert_int_equal(pt_reset(n, b->attr, 0xFF, 0xFFFF, resp), ST_OK);
        expect_all(resp, b, 0);
        pt_node_free(n);
    }
}

/* These attributes have their own baselines: PortCounters resets leave them alone. */
static void test_independent_of_port_counters(void **state)
{
    struct pt_node *n = pt_switch_new(2, 32, false);
    uint8_t resp[PT_DATA];

    pt_add(n, &pt_hw(n, 1)->xmit_data_sl[3], 40);
    pt_add(n, &pt_hw(n, 1)->xmit_data, 40);
    pt_add(n, &pt_hw(n, 1)->vl_xmit_wait[0], 41);
    pt_add(n, &pt_hw(n, 1)->xmit_wait, 41);
    assert_int_equal(pt_reset(n, IB_GSI_PORT_COUNTERS, 1, 0xFFFF | 3u << 16, NULL), ST_OK);
    assert_int_equal(pt_query(n, IB_GSI_PORT_XMIT_DATA_SL, 1, resp), ST_OK);
    assert_int_equal(pt_f(resp, IB_PC_XMT_DATA_SL3_F), 40);
    assert_int_equal(pt_query(n, IB_GSI_PORT_PORT_VL_XMIT_WAIT_COUNTERS, 1, resp), ST_OK);
    assert_int_equal(pt_f(resp, IB_PC_PORT_VL_XMIT_WAIT0_F), 41);
    assert_int_equal(pt_reset(n, IB_GSI_PORT_XMIT_DATA_SL, 1, 0xFFFF, NULL), ST_OK);
    assert_int_equal(pt_query(n, IB_GSI_PORT_COUNTERS_EXT, 1, resp), ST_OK);
    assert_int_equal(pt_f64(resp, IB_PC_EXT_XMT_BYTES_F), 0); /* cleared by the PC reset */
    assert_int_equal(pt_f64(resp, IB_PC_EXT_XMT_WAIT_F), 41); /* not by the SL reset */
    pt_node_free(n);
}

/* PortOpRcvCounters, PortVLOpPackets and PortVLOpData echo the OpCode of data byte 0. */
static void test_opcode_echo(void **state)
{
    static const unsigned attrs[] = {IB_GSI_PORT_PORT_OP_RCV_COUNTERS,
                                     IB_GSI_PORT_PORT_VL_OP_PACKETS, IB_GSI_PORT_PORT_VL_OP_DATA};
    struct pt_node *n = pt_switch_new(2, 0, false);
    uint8_t req[PT_DATA] = {0}, resp[PT_DATA];

    req[0] = 0x64; /* RC SEND_ONLY */
    mad_set_field(req, 0, IB_PC_PORT_SELECT_F, 1);
    for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
        assert_int_equal(pt_pma(n, IB_MAD_METHOD_GET, attrs[i], req, resp), ST_OK);
        assert_int_equal(resp[0], 0x64);
    }
    /* Others keep byte 0 reserved. */
    assert_int_equal(pt_pma(n, IB_MAD_METHOD_GET, IB_GSI_PORT_XMIT_DATA_SL, req, resp), ST_OK);
    assert_int_equal(resp[0], 0);
    pt_node_free(n);
}

PZT_MAIN(test_values, test_saturation, test_select_bits, test_all_ports,
         test_independent_of_port_counters, test_opcode_echo)
