/*
 * test_pma_core.c - the PMA's reception rules, status codes, response
 * addressing, ClassPortInfo, PortSelect rules and CA mode.
 */
#include "pma_test_util.h"
#include "pzt_main.h"
#include "pzt_fields.h"

/* Build a raw PMA MAD: Get PortCounters, PortSelect 1. */
static void raw_get(uint8_t *mad)
{
    ib_rpc_t rpc = {0};
    uint8_t data[PT_DATA] = {0};

    mad_set_field(data, 0, IB_PC_PORT_SELECT_F, 1);
    rpc.mgtclass = IB_PERFORMANCE_CLASS;
    rpc.method = IB_MAD_METHOD_GET;
    rpc.attr.id = IB_GSI_PORT_COUNTERS;
    rpc.dataoffs = IB_PC_DATA_OFFS;
    rpc.datasz = IB_PC_DATA_SZ;
    rpc.trid = 0x1234;
    memset(mad, 0, PT_MAD);
    assert_non_null(mad_encode(mad, &rpc, NULL, data));
}

static void test_reply_addressing(void **state)
{
    struct pt_node *n = pt_switch_new(8, 0, false);
    uint8_t resp[PT_DATA];

    assert_int_equal(pt_query(n, IB_GSI_PORT_COUNTERS, 3, resp), ST_OK);
    pt_check_reply(n, IB_PERFORMANCE_CLASS);
    assert_int_equal(n->out_addr.port, 0); /* a switch answers from port 0 */
    assert_int_equal(mad_get_field(n->out, 0, IB_MAD_CLASSVER_F), 1);
    assert_int_equal(mad_get_field(n->out, 0, IB_MAD_BASEVER_F), 1);
    assert_int_equal(pt_f(resp, IB_PC_PORT_SELECT_F), 3);
    pt_node_free(n);
}

static void test_drops(void **state)
{
    struct pt_node *n = pt_switch_new(4, 0, false);
    uint8_t mad[PT_MAD];
    struct pma_stats st;

    raw_get(mad);
    assert_int_equal(pt_feed(n, false, mad, PT_MAD), ST_OK);
    assert_int_equal(pt_feed(n, false, mad, PT_MAD - 1), PT_NOANSWER); /* short */

    raw_get(mad);
    mad_set_field(mad, 0, IB_MAD_RESPONSE_F, 1); /* a GetResp */
    assert_int_equal(pt_feed(n, false, mad, PT_MAD), PT_NOANSWER);

    raw_get(mad);
    mad_set_field(mad, 0, IB_MAD_METHOD_F, IB_MAD_METHOD_TRAP);
    assert_int_equal(pt_feed(n, false, mad, PT_MAD), PT_NOANSWER);

    raw_get(mad);
    mad_set_field(mad, 0, IB_MAD_METHOD_F, IB_MAD_METHOD_TRAP_REPRESS);
    assert_int_equal(pt_feed(n, false, mad, PT_MAD), PT_NOANSWER);

    raw_get(mad);
    mad_set_field(mad, 0, IB_MAD_BASEVER_F, 2);
    assert_int_equal(pt_feed(n, false, mad, PT_MAD), PT_NOANSWER);

    raw_get(mad);
    mad_set_field(mad, 0, IB_MAD_MGMTCLASS_F, IB_SMI_CLASS);
    assert_int_equal(pt_feed(n, false, mad, PT_MAD), PT_NOANSWER);

    /* An ingress port the node does not have. */
    raw_get(mad);
    n->in_port = 5;
    assert_int_equal(pt_feed(n, false, mad, PT_MAD), PT_NOANSWER);

    pma_get_stats(n->pma, &st);
    assert_int_equal(st.mads_received, 8);
    assert_int_equal(st.responses_sent, 1);
    assert_int_equal(st.dropped, 7);
    pt_node_free(n);
}

static void test_status_codes(void **state)
{
    struct pt_node *n = pt_switch_new(4, 0, false);
    uint8_t mad[PT_MAD], resp[PT_DATA], req[PT_DATA] = {0};

    /* Unknown attribute (PortExtendedSpeedsCounters is not implemented), vendor range. */
    assert_int_equal(pt_query(n, IB_GSI_PORT_EXT_SPEEDS_COUNTERS, 1, NULL), ST_BAD_ATTR);
    assert_int_equal(pt_query(n, 0x0013, 1, NULL), ST_BAD_ATTR);
    assert_int_equal(pt_query(n, 0xFF00, 1, NULL), ST_BAD_ATTR);
    /* Set of a read-only attribute. */
    assert_int_equal(pt_pma(n, IB_MAD_METHOD_SET, CLASS_PORT_INFO, NULL, NULL), ST_BAD_ATTR);
    assert_int_equal(pt_pma(n, IB_MAD_METHOD_SET, IB_GSI_PORT_SAMPLES_RESULT, NULL, NULL),
                     ST_BAD_ATTR);
    assert_int_equal(pt_pma(n, IB_MAD_METHOD_SET, PT_ATTR_PSR_EXT, NULL, NULL), ST_BAD_ATTR);
    /* Unknown methods. */
    assert_int_equal(pt_pma(n, IB_MAD_METHOD_REPORT, IB_GSI_PORT_COUNTERS, NULL, NULL),
                     ST_BAD_METHOD);
    assert_int_equal(pt_pma(n, IB_MAD_METHOD_GET_TABLE, IB_GSI_PORT_COUNTERS, NULL, NULL),
                     ST_BAD_METHOD);
    assert_int_equal(pt_pma(n, 0x03, IB_GSI_PORT_COUNTERS, NULL, NULL), ST_BAD_METHOD);
    /* AttributeModifier must be 0. */
    mad_set_field(req, 0, IB_PC_PORT_SELECT_F, 1);
    assert_int_equal(pt_pma_mod(n, IB_MAD_METHOD_GET, IB_GSI_PORT_COUNTERS, 1, req, NULL),
                     ST_BAD_FIELD);
    /* Class version 2. */
    raw_get(mad);
    mad_set_field(mad, 0, IB_MAD_CLASSVER_F, 2);
    assert_int_equal(pt_feed(n, false, mad, PT_MAD), ST_BAD_VERSION);
    pt_check_reply(n, IB_PERFORMANCE_CLASS);
    /* An error answer echoes the request data. */
    mad_set_field(req, 0, IB_PC_PORT_SELECT_F, 9);
    mad_set_field(req, 0, IB_PC_XMT_BYTES_F, 0xABCD);
    assert_int_equal(pt_pma(n, IB_MAD_METHOD_GET, IB_GSI_PORT_COUNTERS, req, resp), ST_BAD_FIELD);
    assert_memory_equal(resp, req, PT_DATA);
    pt_node_free(n);
}

/* Every port-selected attribute applies the same PortSelect rules. */
static const unsigned port_attrs[] = {
    IB_GSI_PORT_COUNTERS,
    IB_GSI_PORT_COUNTERS_EXT,
    IB_GSI_PORT_RCV_ERROR_DETAILS,
    IB_GSI_PORT_XMIT_DISCARD_DETAILS,
    IB_GSI_PORT_PORT_OP_RCV_COUNTERS,
    IB_GSI_PORT_PORT_FLOW_CTL_COUNTERS,
    IB_GSI_PORT_PORT_VL_OP_PACKETS,
    IB_GSI_PORT_PORT_VL_OP_DATA,
    IB_GSI_PORT_PORT_VL_XMIT_FLOW_CTL_UPDATE_ERRORS,
    IB_GSI_PORT_PORT_VL_XMIT_WAIT_COUNTERS,
    IB_GSI_SW_PORT_VL_CONGESTION,
    IB_GSI_PORT_RCV_CON_CTRL,
    IB_GSI_PORT_SL_RCV_FECN,
    IB_GSI_PORT_SL_RCV_BECN,
    IB_GSI_PORT_XMIT_CON_CTRL,
    IB_GSI_PORT_VL_XMIT_TIME_CONG,
    IB_GSI_PORT_XMIT_DATA_SL,
    IB_GSI_PORT_RCV_DATA_SL,
};

#define NATTRS (sizeof(port_attrs) / sizeof(port_attrs[0]))

static void test_port_select_switch(void **state)
{
    struct pt_node *n = pt_switch_new(6, 0, false);
    struct pt_node *e = pt_switch_new(6, 0, true);

    for (size_t i = 0; i < NATTRS; i++) {
        unsigned a = port_attrs[i];

        assert_int_equal(pt_query(n, a, 1, NULL), ST_OK);
        assert_int_equal(pt_query(n, a, 6, NULL), ST_OK);
        assert_int_equal(pt_query(n, a, 7, NULL), ST_BAD_FIELD);
        assert_int_equal(pt_query(n, a, 0xFE, NULL), ST_BAD_FIELD);
        assert_int_equal(pt_query(n, a, 0xFF, NULL), ST_OK);
        assert_int_equal(pt_query(n, a, 0, NULL), ST_BAD_FIELD); /* base port 0 */
        assert_int_equal(pt_query(e, a, 0, NULL), ST_OK);        /* enhanced port 0 */
        assert_int_equal(pt_reset(n, a, 7, 0xFFFF, NULL), ST_BAD_FIELD);
        assert_int_equal(pt_reset(n, a, 0, 0xFFFF, NULL), ST_BAD_FIELD);
        assert_int_equal(pt_reset(e, a, 0, 0xFFFF, NULL), ST_OK);
        assert_int_equal(pt_reset(n, a, 0xFF, 0xFFFF, NULL), ST_OK);
    }
    pt_node_free(n);
    pt_node_free(e);
}

static void test_class_port_info(void **state)
{
    struct pt_node *sw = pt_switch_new(4, 0, false);
    struct pt_node *ca = pt_ca_new(2, 0);
    uint8_t resp[PT_DATA];

    assert_int_equal(pt_pma(sw, IB_MAD_METHOD_GET, CLASS_PORT_INFO, NULL, resp), ST_OK);
    assert_int_equal(pt_f(resp, IB_CPI_BASEVER_F), 1);
    assert_int_equal(pt_f(resp, IB_CPI_CLASSVER_F), 1);
    /* AllPortSelect, IsExtendedWidthSupported, XmitWait, QP1Dropped. */
    assert_int_equal(pt_f(resp, IB_CPI_CAPMASK_F), 0x0100 | 0x0200 | 0x1000 | 0x8000);
    /* IsAdditionalPortCountersExtendedSupported. */
    PZT_EXPECT_FIELDS(resp, {IB_CPI_CAPMASK2_F, 0x2}, {IB_CPI_RESP_TIME_VALUE_F, 12},
                      {IB_CPI_REDIRECT_LID_F, 0}, {IB_CPI_TRAP_LID_F, 0});
    /* As perfquery reads it: bytes 2-3 and bytes 4-7 >> 5. */
    assert_int_equal(resp[2] << 8 | resp[3], 0x9300);
    assert_int_equal(((uint32_t)resp[4] << 24 | resp[5] << 16 | resp[6] << 8 | resp[7]) >> 5, 2);

    /* A CA has no AllPortSelect. */
    assert_int_equal(pt_pma(ca, IB_MAD_METHOD_GET, CLASS_PORT_INFO, NULL, resp), ST_OK);
    assert_int_equal(pt_f(resp, IB_CPI_CAPMASK_F), 0x0200 | 0x1000 | 0x8000);
    pt_node_free(sw);
    pt_node_free(ca);
}

static void test_ca_mode(void **state)
{
    struct pt_node *n = pt_ca_new(2, 32);
    uint8_t resp[PT_DATA];

    pt_hw(n, 1)->xmit_data = 100;
    pt_hw(n, 2)->xmit_data = 200;
    n->in_port = 2;
    assert_int_equal(pt_query(n, IB_GSI_PORT_COUNTERS, 2, resp), ST_OK);
    pt_check_reply(n, IB_PERFORMANCE_CLASS);
    assert_int_equal(n->out_addr.port, 2); /* a CA answers out of the ingress port */
    assert_int_equal(pt_f(resp, IB_PC_XMT_BYTES_F), 200);
    assert_int_equal(pt_query(n, IB_GSI_PORT_COUNTERS, 1, resp), ST_OK);
    assert_int_equal(pt_f(resp, IB_PC_XMT_BYTES_F), 100);
    /* From the CA's own stack (port 0): answered out of port 1. */
    n->in_port = 0;
    assert_int_equal(pt_query(n, IB_GSI_PORT_COUNTERS, 2, resp), ST_OK);
    assert_int_equal(n->out_addr.port, 1);
    /* CA: ports 1..N only, no AllPortSelect, no SwPortVLCongestion. */
    assert_int_equal(pt_query(n, IB_GSI_PORT_COUNTERS, 0, NULL), ST_BAD_FIELD);
    assert_int_equal(pt_query(n, IB_GSI_PORT_COUNTERS, 3, NULL), ST_BAD_FIELD);
    assert_int_equal(pt_query(n, IB_GSI_PORT_COUNTERS, 0xFF, NULL), ST_BAD_FIELD);
    assert_int_equal(pt_reset(n, IB_GSI_PORT_COUNTERS, 0xFF, 0xFFFF, NULL), ST_BAD_FIELD);
    assert_int_equal(pt_query(n, IB_GSI_SW_PORT_VL_CONGESTION, 1, NULL), ST_BAD_ATTR);
    /* Reset of port 2 leaves port 1 alone. */
    assert_int_equal(pt_reset(n, IB_GSI_PORT_COUNTERS, 2, 0xFFFF, resp), ST_OK);
    assert_int_equal(pt_f(resp, IB_PC_XMT_BYTES_F), 0);
    assert_int_equal(pt_query(n, IB_GSI_PORT_COUNTERS, 1, resp), ST_OK);
    assert_int_equal(pt_f(resp, IB_PC_XMT_BYTES_F), 100);
    pt_node_free(n);
}

static void test_create_rejects(void **state)
{
    struct board b = {0};

    assert_null(pma_create(NULL));
    assert_null(pma_create(&b));
    pma_destroy(NULL);
}

PZT_MAIN(test_reply_addressing, test_drops, test_status_codes, test_port_select_switch,
         test_class_port_info, test_ca_mode, test_create_rejects)
