/*
 * test_pma_samples.c - the sampling engine: PortSamplesControl,
 * PortSamplesResult and PortSamplesResultExtended (start, running, done,
 * results, restart, validation).
 */
#include "pma_test_util.h"
#include "pzt_main.h"
#include "pzt_fields.h"

#define TICK_NS 1000ull /* PortSamplesControl.Tick 249: (249 + 1) * 4 ns */

/* CounterSelect values (IBA's mandatory set). */
#define CS_XMIT_DATA 1
#define CS_RCV_DATA 2
#define CS_XMIT_PKTS 3
#define CS_RCV_PKTS 4
#define CS_XMIT_WAIT 5

/* Start a session: port, start and interval in ticks, tag, CounterSelect0..2. */
static int start(struct pt_node *n, unsigned port, uint32_t start_ticks, uint32_t interval,
                 unsigned tag, unsigned s0, unsigned s1, unsigned s2, uint8_t *resp)
{
    uint8_t req[PT_DATA] = {0};

    PZT_SET_FIELDS(req, {IB_PSC_PORT_SELECT_F, port}, {IB_PSC_SAMPLE_START_F, start_ticks},
                   {IB_PSC_SAMPLE_INTVL_F, interval}, {IB_PSC_TAG_F, tag},
                   {IB_PSC_COUNTER_SEL0_F, s0}, {IB_PSC_COUNTER_SEL1_F, s1},
                   {IB_PSC_COUNTER_SEL2_F, s2});
    return pt_pma(n, IB_MAD_METHOD_SET, IB_GSI_PORT_SAMPLES_CONTROL, req, resp);
}

/* Get PortSamplesResult; returns SampleStatus, resp holds the data. */
static unsigned result(struct pt_node *n, uint8_t *resp)
{
    assert_int_equal(pt_pma(n, IB_MAD_METHOD_GET, IB_GSI_PORT_SAMPLES_RESULT, NULL, resp), ST_OK);
    return pt_f(resp, IB_PSR_SAMPLE_STATUS_F);
}

/* Counter i of a PortSamplesResultExtended (no libibmad fields: bytes 8 + 8i). */
static uint64_t ext_counter(const uint8_t *resp, unsigned i)
{
    uint64_t v = 0;

    for (unsigned b = 0; b < 8; b++)
        v = v << 8 | resp[8 + 8 * i + b];
    return v;
}

static void test_control_defaults(void **state)
{
    struct pt_node *n = pt_switch_new(4, 0, false);
    struct pt_node *ca = pt_ca_new(2, 0);
    uint8_t resp[PT_DATA];

    assert_int_equal(pt_pma(n, IB_MAD_METHOD_GET, IB_GSI_PORT_SAMPLES_CONTROL, NULL, resp), ST_OK);
    pt_check_reply(n, IB_PERFORMANCE_CLASS);
    PZT_EXPECT_FIELDS(resp, {IB_PSC_OPCODE_F, 0}, {IB_PSC_PORT_SELECT_F, 0xFF},
                      {IB_PSC_TICK_F, 249});
    assert_int_equal(pt_f(resp, IB_PSC_COUNTER_WIDTH_F), 4); /* 32 bits */
    PZT_EXPECT_FIELDS(resp, {IB_PSC_COUNTER_MASK0_F, 1}, {IB_PSC_COUNTER_MASKS1TO9_F, 0111111111},
                      {IB_PSC_COUNTER_MASKS10TO14_F, 011111}, {IB_PSC_SAMPLE_STATUS_F, 0});
    assert_int_equal(pt_f64(resp, IB_PSC_OPTION_MASK_F), 0);
    PZT_EXPECT_FIELDS(resp, {IB_PSC_COUNTER_SEL0_F, CS_XMIT_DATA},
                      {IB_PSC_COUNTER_SEL4_F, CS_XMIT_WAIT}, {IB_PSC_COUNTER_SEL5_F, 0});
    assert_int_equal(result(n, resp), 0);

    assert_int_equal(pt_pma(ca, IB_MAD_METHOD_GET, IB_GSI_PORT_SAMPLES_CONTROL, NULL, resp), ST_OK);
    assert_int_equal(pt_f(resp, IB_PSC_PORT_SELECT_F), 1);
    pt_node_free(n);
    pt_node_free(ca);
}

/* A Get naming a port that does not exist (perfquery -c LID 9) is refused with 0x1C. */
static void test_control_get_port_select(void **state)
{
    struct pt_node *n = pt_switch_new(4, 0, false);
    struct pt_node *ca = pt_ca_new(2, 0);
    uint8_t req[PT_DATA] = {0}, resp[PT_DATA];

    /* Ports 1-4 and 0xFF (all) of the switch; 1-2 of the CA, which has no "all ports". */
    const struct {
        const char *name;
        bool ca;
        unsigned port_select;
        unsigned status;
    } cases[] = {
        {"switch port 1", false, 1, ST_OK},          {"switch port 2", false, 2, ST_OK},
        {"switch port 3", false, 3, ST_OK},          {"switch port 4", false, 4, ST_OK},
        {"switch all ports", false, 0xFF, ST_OK},    {"switch port 5", false, 5, ST_BAD_FIELD},
        {"switch port 99", false, 99, ST_BAD_FIELD}, {"CA port 2", true, 2, ST_OK},
        {"CA port 3", true, 3, ST_BAD_FIELD},        {"CA all ports", true, 0xFF, ST_BAD_FIELD},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int st;

        mad_set_field(req, 0, IB_PSC_PORT_SELECT_F, cases[i].port_select);
        st =
            pt_pma(cases[i].ca ? ca : n, IB_MAD_METHOD_GET, IB_GSI_PORT_SAMPLES_CONTROL, req, resp);
        if (st != (int)cases[i].status)
            fail_msg("%s: status 0x%x, want 0x%x", cases[i].name, (unsigned)st, cases[i].status);
    }
    pt_node_free(n);
    pt_node_free(ca);
}

/* A full session: Started, Running, Done, and the deltas of the interval only. */
static void test_session(void **state)
{
    struct pt_node *n = pt_switch_new(4, 32, false);
    uint64_t t0 = board_now_ns(n->board);
    uint8_t resp[PT_DATA];

    assert_int_equal(start(n, 2, 100, 1000, 0xBEEF, CS_XMIT_DATA, CS_XMIT_WAIT, CS_RCV_PKTS, resp),
                     ST_OK);
    assert_int_equal(pt_f(resp, IB_PSC_SAMPLE_STATUS_F), 1); /* SampleStart timer running */
    PZT_EXPECT_FIELDS(resp, {IB_PSC_TAG_F, 0xBEEF}, {IB_PSC_PORT_SELECT_F, 2},
                      {IB_PSC_SAMPLE_START_F, 100}, {IB_PSC_SAMPLE_INTVL_F, 1000},
                      {IB_PSC_COUNTER_SEL1_F, CS_XMIT_WAIT});
    assert_int_equal(pma_next_deadline(n->pma), t0 + 100 * TICK_NS);
    assert_int_equal(result(n, resp), 1);
    assert_int_equal(pt_f(resp, IB_PSR_TAG_F), 0xBEEF);
    assert_int_equal(pt_f(resp, IB_PSR_COUNTER0_F), 0);

    /* Before SampleStart: not counted. */
    board_mem_advance_ns(n->bm, 50 * TICK_NS);
    pt_add(n, &pt_hw(n, 2)->xmit_data, 5);
    board_mem_advance_ns(n->bm, 50 * TICK_NS);
    pma_poll(n->pma);
    assert_int_equal(result(n, resp), 2); /* running */
    assert_int_equal(pt_f(resp, IB_PSR_COUNTER0_F), 0);
    assert_int_equal(pma_next_deadline(n->pma), t0 + 1100 * TICK_NS);

    /* During the interval: counted, port 3 not. */
    pt_add(n, &pt_hw(n, 2)->xmit_data, 1000);
    pt_add(n, &pt_hw(n, 2)->xmit_wait, 77);
    pt_add(n, &pt_hw(n, 2)->rcv_pkts, 3);
    pt_add(n, &pt_hw(n, 3)->xmit_data, 999);
    /* A counter reset does not disturb the sample. */
    assert_int_equal(pt_reset(n, IB_GSI_PORT_COUNTERS, 2, 0xFFFF | 1u << 16, NULL), ST_OK);
    board_mem_advance_ns(n->bm, 1000 * TICK_NS - 1);
    pma_poll(n->pma);
    assert_int_equal(result(n, resp), 2);
    board_mem_advance_ns(n->bm, 1);
    pma_poll(n->pma);
    /* After the interval: not counted. */
    pt_add(n, &pt_hw(n, 2)->xmit_data, 1u << 20);

    assert_int_equal(result(n, resp), 0);
    PZT_EXPECT_FIELDS(resp, {IB_PSR_TAG_F, 0xBEEF}, {IB_PSR_COUNTER0_F, 1000},
                      {IB_PSR_COUNTER1_F, 77}, {IB_PSR_COUNTER2_F, 3});
    for (unsigned i = 3; i < 15; i++)
        assert_int_equal(pt_f(resp, (enum MAD_FIELDS)(IB_PSR_COUNTER0_F + i)), 0);

    assert_int_equal(pt_pma(n, IB_MAD_METHOD_GET, PT_ATTR_PSR_EXT, NULL, resp), ST_OK);
    assert_int_equal(pt_f(resp, IB_PSR_TAG_F), 0xBEEF);
    assert_int_equal(pt_f(resp, IB_PSR_SAMPLE_STATUS_F), 0);
    assert_int_equal(resp[4] >> 6, 2); /* ExtendedWidth: 64 bits */
    assert_int_equal(ext_counter(resp, 0), 1000);
    assert_int_equal(ext_counter(resp, 1), 77);
    assert_int_equal(ext_counter(resp, 2), 3);
    assert_int_equal(ext_counter(resp, 14), 0);
    assert_int_equal(pma_next_deadline(n->pma), board_now_ns(n->board) + 1000000000ull);
    pt_node_free(n);
}

/* PortSamplesResult's 32-bit counters saturate; the extended result has them all. */
static void test_result_widths(void **state)
{
    struct pt_node *n = pt_switch_new(2, 0, false);
    uint8_t resp[PT_DATA];

    assert_int_equal(start(n, 1, 0, 10, 1, CS_RCV_DATA, 0, 0, resp), ST_OK);
    assert_int_equal(pt_f(resp, IB_PSC_SAMPLE_STATUS_F), 2); /* SampleStart 0: running at once */
    pt_add(n, &pt_hw(n, 1)->rcv_data, 0x100000005ull);
    board_mem_advance_ns(n->bm, 10 * TICK_NS);
    /* No poll: the Get itself sees that the interval elapsed. */
    assert_int_equal(result(n, resp), 0);
    assert_int_equal(pt_f(resp, IB_PSR_COUNTER0_F), 0xFFFFFFFFu);
    assert_int_equal(pt_pma(n, IB_MAD_METHOD_GET, PT_ATTR_PSR_EXT, NULL, resp), ST_OK);
    assert_int_equal(ext_counter(resp, 0), 0x100000005ull);
    pt_node_free(n);
}

/* A Set restarts: the old session is abandoned, the new Tag identifies the results. */
static void test_restart(void **state)
{
    struct pt_node *n = pt_switch_new(2, 32, false);
    uint8_t resp[PT_DATA];

    assert_int_equal(start(n, 1, 0, 100, 0x1111, CS_XMIT_PKTS, 0, 0, resp), ST_OK);
    pt_add(n, &pt_hw(n, 1)->xmit_pkts, 10);
    board_mem_advance_ns(n->bm, 50 * TICK_NS);
    assert_int_equal(start(n, 1, 20, 100, 0x2222, CS_XMIT_PKTS, 0, 0, resp), ST_OK);
    assert_int_equal(pt_f(resp, IB_PSC_SAMPLE_STATUS_F), 1);
    assert_int_equal(result(n, resp), 1);
    assert_int_equal(pt_f(resp, IB_PSR_TAG_F), 0x2222);
    board_mem_advance_ns(n->bm, 20 * TICK_NS);
    pma_poll(n->pma);
    pt_add(n, &pt_hw(n, 1)->xmit_pkts, 4);
    board_mem_advance_ns(n->bm, 100 * TICK_NS);
    pma_poll(n->pma);
    assert_int_equal(result(n, resp), 0);
    assert_int_equal(pt_f(resp, IB_PSR_COUNTER0_F), 4);

    /* Restart after Done, with other selections. */
    assert_int_equal(start(n, 1, 0, 5, 0x3333, CS_XMIT_WAIT, CS_XMIT_PKTS, 0, resp), ST_OK);
    assert_int_equal(result(n, resp), 2);
    assert_int_equal(pt_f(resp, IB_PSR_COUNTER0_F), 0); /* only valid when Done */
    pt_add(n, &pt_hw(n, 1)->xmit_wait, 6);
    board_mem_advance_ns(n->bm, 5 * TICK_NS);
    assert_int_equal(result(n, resp), 0);
    PZT_EXPECT_FIELDS(resp, {IB_PSR_TAG_F, 0x3333}, {IB_PSR_COUNTER0_F, 6}, {IB_PSR_COUNTER1_F, 0});
    pt_node_free(n);
}

/* AllPortSelect samples the sum over the ports. */
static void test_all_ports(void **state)
{
    struct pt_node *n = pt_switch_new(3, 32, false);
    uint8_t resp[PT_DATA];

    assert_int_equal(start(n, 0xFF, 0, 10, 7, CS_RCV_PKTS, 0, 0, resp), ST_OK);
    for (unsigned p = 1; p <= 3; p++)
        pt_add(n, &pt_hw(n, p)->rcv_pkts, p);
    board_mem_advance_ns(n->bm, 10 * TICK_NS);
    pma_poll(n->pma);
    assert_int_equal(result(n, resp), 0);
    assert_int_equal(pt_f(resp, IB_PSR_COUNTER0_F), 6);
    pt_node_free(n);
}

static void test_validation(void **state)
{
    struct pt_node *n = pt_switch_new(3, 0, false);
    struct pt_node *ca = pt_ca_new(1, 0);
    uint8_t resp[PT_DATA];

    assert_int_equal(start(n, 1, 0, 10, 0x77, CS_XMIT_DATA, 0x0042, 0, resp), ST_BAD_FIELD);
    assert_int_equal(start(n, 4, 0, 10, 0x77, CS_XMIT_DATA, 0, 0, resp), ST_BAD_FIELD);
    assert_int_equal(start(n, 0, 0, 10, 0x77, CS_XMIT_DATA, 0, 0, resp), ST_BAD_FIELD);
    assert_int_equal(start(ca, 0xFF, 0, 10, 0x77, CS_XMIT_DATA, 0, 0, resp), ST_BAD_FIELD);
    /* Nothing changed. */
    assert_int_equal(pt_pma(n, IB_MAD_METHOD_GET, IB_GSI_PORT_SAMPLES_CONTROL, NULL, resp), ST_OK);
    PZT_EXPECT_FIELDS(resp, {IB_PSC_TAG_F, 0}, {IB_PSC_SAMPLE_STATUS_F, 0},
                      {IB_PSC_COUNTER_SEL1_F, CS_RCV_DATA});
    pt_node_free(n);
    pt_node_free(ca);
}

PZT_MAIN(test_control_defaults, test_control_get_port_select, test_session, test_result_widths,
         test_restart, test_all_ports, test_validation)
