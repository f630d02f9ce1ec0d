/*
 * test_cc_agent.c - the Congestion Control agent: class rules and status
 * codes, ClassPortInfo, CongestionInfo, TimeStamp, SwitchCongestionSetting,
 * SwitchPortCongestionSetting, CongestionLog, and CA mode.
 */
#include "pma_test_util.h"
#include "pzt_main.h"
#include "pzt_fields.h"

/* Build a raw CC MAD (Get ClassPortInfo) as libibmad encodes it. */
static void raw_cc(uint8_t *mad, unsigned method, unsigned attr)
{
    ib_rpc_cc_t rpc = {0};

    rpc.mgtclass = IB_CC_CLASS;
    rpc.method = (int)method;
    rpc.attr.id = attr;
    rpc.dataoffs = IB_CC_DATA_OFFS;
    rpc.datasz = IB_CC_DATA_SZ;
    rpc.trid = 0x99;
    memset(mad, 0, PT_MAD);
    assert_non_null(mad_encode(mad, (ib_rpc_t *)&rpc, NULL, NULL));
}

/* Port p's bit in a 256-bit big-endian port mask. */
static bool mask_bit(const uint8_t *mask, unsigned p)
{
    return mask[31 - p / 8] >> (p % 8) & 1;
}

static void test_class_port_info(void **state)
{
    struct pt_node *n = pt_switch_new(8, 0, false);
    uint8_t resp[IB_CC_DATA_SZ];

    assert_int_equal(pt_cc(n, IB_MAD_METHOD_GET, CLASS_PORT_INFO, NULL, resp), ST_OK);
    pt_check_reply(n, IB_CC_CLASS);
    assert_int_equal(n->out_addr.port, 0);
    PZT_EXPECT_FIELDS(resp, {IB_CPI_BASEVER_F, 1}, {IB_CPI_CLASSVER_F, 2}, {IB_CPI_CAPMASK_F, 0},
                      {IB_CPI_RESP_TIME_VALUE_F, 12});
    pt_node_free(n);
}

static void test_status_codes(void **state)
{
    struct pt_node *n = pt_switch_new(8, 0, false);
    uint8_t mad[PT_MAD];
    struct cc_stats st;

    /* CA-only attributes on a switch; unknown attributes. */
    assert_int_equal(pt_cc(n, IB_MAD_METHOD_GET, IB_CC_ATTR_CA_CONGESTION_SETTING, NULL, NULL),
                     ST_BAD_ATTR);
    assert_int_equal(pt_cc(n, IB_MAD_METHOD_SET, IB_CC_ATTR_CA_CONGESTION_SETTING, NULL, NULL),
                     ST_BAD_ATTR);
    assert_int_equal(pt_cc(n, IB_MAD_METHOD_GET, IB_CC_ATTR_CONGESTION_CONTROL_TABLE, NULL, NULL),
                     ST_BAD_ATTR);
    assert_int_equal(pt_cc(n, IB_MAD_METHOD_GET, 0x0019, NULL, NULL), ST_BAD_ATTR);
    assert_int_equal(pt_cc(n, IB_MAD_METHOD_GET, NOTICE, NULL, NULL), ST_BAD_ATTR);
    /* Read-only attributes. */
    assert_int_equal(pt_cc(n, IB_MAD_METHOD_SET, CLASS_PORT_INFO, NULL, NULL), ST_BAD_ATTR);
    assert_int_equal(pt_cc(n, IB_MAD_METHOD_SET, IB_CC_ATTR_CONGESTION_INFO, NULL, NULL),
                     ST_BAD_ATTR);
    assert_int_equal(pt_cc(n, IB_MAD_METHOD_SET, IB_CC_ATTR_CONGESTION_LOG, NULL, NULL),
                     ST_BAD_ATTR);
    assert_int_equal(pt_cc(n, IB_MAD_METHOD_SET, IB_CC_ATTR_TIMESTAMP, NULL, NULL), ST_BAD_ATTR);
    /* Methods. */
    assert_int_equal(pt_cc(n, IB_MAD_METHOD_REPORT, IB_CC_ATTR_TIMESTAMP, NULL, NULL),
                     ST_BAD_METHOD);
    assert_int_equal(pt_cc(n, 0x03, IB_CC_ATTR_TIMESTAMP, NULL, NULL), ST_BAD_METHOD);
    /* AttrMod must be 0 except for block attributes. */
    assert_int_equal(pt_cc_mod(n, IB_MAD_METHOD_GET, IB_CC_ATTR_CONGESTION_INFO, 1, NULL, NULL),
                     ST_BAD_FIELD);
    /* Class version 1 (the PMA's) is not the CC class's 2. */
    raw_cc(mad, IB_MAD_METHOD_GET, CLASS_PORT_INFO);
    mad_set_field(mad, 0, IB_MAD_CLASSVER_F, 1);
    assert_int_equal(pt_feed(n, true, mad, PT_MAD), ST_BAD_VERSION);
    /* Responses, traps, other classes and short MADs are dropped. */
    raw_cc(mad, IB_MAD_METHOD_GET_RESPONSE, CLASS_PORT_INFO);
    assert_int_equal(pt_feed(n, true, mad, PT_MAD), PT_NOANSWER);
    raw_cc(mad, IB_MAD_METHOD_TRAP, CLASS_PORT_INFO);
    assert_int_equal(pt_feed(n, true, mad, PT_MAD), PT_NOANSWER);
    raw_cc(mad, IB_MAD_METHOD_GET, CLASS_PORT_INFO);
    assert_int_equal(pt_feed(n, true, mad, 100), PT_NOANSWER);
    mad_set_field(mad, 0, IB_MAD_MGMTCLASS_F, IB_PERFORMANCE_CLASS);
    assert_int_equal(pt_feed(n, true, mad, PT_MAD), PT_NOANSWER);
    cc_get_stats(n->cc, &st);
    assert_int_equal(st.dropped, 4);
    pt_node_free(n);
}

static void test_info_and_timestamp(void **state)
{
    struct pt_node *n = pt_switch_new(8, 0, false);
    uint8_t resp[IB_CC_DATA_SZ];

    assert_int_equal(pt_cc(n, IB_MAD_METHOD_GET, IB_CC_ATTR_CONGESTION_INFO, NULL, resp), ST_OK);
    assert_int_equal(pt_f(resp, IB_CC_CONGESTION_INFO_F), 0);
    assert_int_equal(pt_f(resp, IB_CC_CONGESTION_INFO_CONTROL_TABLE_CAP_F), 0);
    /* The clock is at 1 s: 10^9 / 1024 = 976562 units of 1.024 us. */
    assert_int_equal(pt_cc(n, IB_MAD_METHOD_GET, IB_CC_ATTR_TIMESTAMP, NULL, resp), ST_OK);
    assert_int_equal(pt_f(resp, IB_CC_TIMESTAMP_F), 976562);
    board_mem_advance_ns(n->bm, 2048);
    assert_int_equal(pt_cc(n, IB_MAD_METHOD_GET, IB_CC_ATTR_TIMESTAMP, NULL, resp), ST_OK);
    assert_int_equal(pt_f(resp, IB_CC_TIMESTAMP_F), 976564);
    assert_int_equal(cc_timestamp(n->cc), 976564);
    pt_node_free(n);
}

static void test_switch_congestion_setting(void **state)
{
    struct pt_node *n = pt_switch_new(36, 0, false);
    uint8_t req[IB_CC_DATA_SZ] = {0}, resp[IB_CC_DATA_SZ], mask[32] = {0}, got[32];
    struct cc_switch_setting s;

    assert_int_equal(pt_cc(n, IB_MAD_METHOD_GET, IB_CC_ATTR_SWITCH_CONGESTION_SETTING, NULL, resp),
                     ST_OK);
    assert_int_equal(pt_f(resp, IB_CC_SWITCH_CONGESTION_SETTING_CONTROL_MAP_F), 0);

    /* As OpenSM sends it: Control_Map 0x1F, victim ports 1-36. */
    for (unsigned p = 1; p <= 36; p++)
        mask[31 - p / 8] |= (uint8_t)(1u << (p % 8));
    mad_set_field(req, 0, IB_CC_SWITCH_CONGESTION_SETTING_CONTROL_MAP_F, 0x1F);
    mad_set_array(req, 0, IB_CC_SWITCH_CONGESTION_SETTING_VICTIM_MASK_F, mask);
    PZT_SET_FIELDS(req, {IB_CC_SWITCH_CONGESTION_SETTING_THRESHOLD_F, 0xF},
                   {IB_CC_SWITCH_CONGESTION_SETTING_PACKET_SIZE_F, 8},
                   {IB_CC_SWITCH_CONGESTION_SETTING_CS_THRESHOLD_F, 3},
                   {IB_CC_SWITCH_CONGESTION_SETTING_CS_RETURN_DELAY_F, 0x4123},
                   {IB_CC_SWITCH_CONGESTION_SETTING_MARKING_RATE_F, 0x0A0B});
    assert_int_equal(pt_cc(n, IB_MAD_METHOD_SET, IB_CC_ATTR_SWITCH_CONGESTION_SETTING, req, resp),
                     ST_OK);
    assert_int_equal(pt_f(resp, IB_CC_SWITCH_CONGESTION_SETTING_CONTROL_MAP_F), 0x1F);
    mad_get_array(resp, 0, IB_CC_SWITCH_CONGESTION_SETTING_VICTIM_MASK_F, got);
    assert_memory_equal(got, mask, 32);
    PZT_EXPECT_FIELDS(resp, {IB_CC_SWITCH_CONGESTION_SETTING_THRESHOLD_F, 0xF},
                      {IB_CC_SWITCH_CONGESTION_SETTING_PACKET_SIZE_F, 8},
                      {IB_CC_SWITCH_CONGESTION_SETTING_CS_THRESHOLD_F, 3},
                      {IB_CC_SWITCH_CONGESTION_SETTING_CS_RETURN_DELAY_F, 0x4123},
                      {IB_CC_SWITCH_CONGESTION_SETTING_MARKING_RATE_F, 0x0A0B});
    cc_get_switch_setting(n->cc, &s);
    assert_true(s.victim_mask[31] & 0x02); /* port 1 */
    assert_int_equal(s.marking_rate, 0x0A0B);

    /* Control_Map 0x10 applies Marking_Rate only. */
    memset(req, 0, sizeof(req));
    PZT_SET_FIELDS(req, {IB_CC_SWITCH_CONGESTION_SETTING_CONTROL_MAP_F, 0x10},
                   {IB_CC_SWITCH_CONGESTION_SETTING_MARKING_RATE_F, 7},
                   {IB_CC_SWITCH_CONGESTION_SETTING_THRESHOLD_F, 1});
    assert_int_equal(pt_cc(n, IB_MAD_METHOD_SET, IB_CC_ATTR_SWITCH_CONGESTION_SETTING, req, resp),
                     ST_OK);
    assert_int_equal(pt_f(resp, IB_CC_SWITCH_CONGESTION_SETTING_MARKING_RATE_F), 7);
    assert_int_equal(pt_f(resp, IB_CC_SWITCH_CONGESTION_SETTING_THRESHOLD_F), 0xF);
    mad_get_array(resp, 0, IB_CC_SWITCH_CONGESTION_SETTING_VICTIM_MASK_F, got);
    assert_memory_equal(got, mask, 32);
    pt_node_free(n);
}

static void test_switch_port_congestion_setting(void **state)
{
    struct pt_node *n = pt_switch_new(40, 0, false);
    uint8_t req[IB_CC_DATA_SZ] = {0}, resp[IB_CC_DATA_SZ];
    struct cc_port_setting s;

    /* Ports 0..40: blocks 0 and 1. */
    assert_int_equal(
        pt_cc_mod(n, IB_MAD_METHOD_GET, IB_CC_ATTR_SWITCH_PORT_CONGESTION_SETTING, 2, NULL, NULL),
        ST_BAD_FIELD);
    for (unsigned i = 0; i < 32; i++) {
        uint8_t *e = req + 4 * i;

        PZT_SET_FIELDS(e, {IB_CC_SWITCH_PORT_CONGESTION_SETTING_ELEMENT_VALID_F, 1},
                       {IB_CC_SWITCH_PORT_CONGESTION_SETTING_ELEMENT_CONTROL_TYPE_F, i & 1},
                       {IB_CC_SWITCH_PORT_CONGESTION_SETTING_ELEMENT_THRESHOLD_F, i & 0xF},
                       {IB_CC_SWITCH_PORT_CONGESTION_SETTING_ELEMENT_PACKET_SIZE_F, i + 1});
        mad_set_field(e, 0, IB_CC_SWITCH_PORT_CONGESTION_SETTING_ELEMENT_CONG_PARM_MARKING_RATE_F,
                      1000 + i);
    }
    assert_int_equal(
        pt_cc_mod(n, IB_MAD_METHOD_SET, IB_CC_ATTR_SWITCH_PORT_CONGESTION_SETTING, 1, req, resp),
        ST_OK);
    /* Elements 0-8 are ports 32-40; the rest of the block does not exist. */
    for (unsigned i = 0; i < 32; i++) {
        const uint8_t *e = resp + 4 * i;
        bool port = i <= 8;

        assert_int_equal(pt_f(e, IB_CC_SWITCH_PORT_CONGESTION_SETTING_ELEMENT_VALID_F), port);
        assert_int_equal(
            pt_f(e, IB_CC_SWITCH_PORT_CONGESTION_SETTING_ELEMENT_CONG_PARM_MARKING_RATE_F),
            port ? 1000 + i : 0);
        assert_int_equal(pt_f(e, IB_CC_SWITCH_PORT_CONGESTION_SETTING_ELEMENT_PACKET_SIZE_F),
                         port ? i + 1 : 0);
    }
    assert_int_equal(cc_get_port_setting(n->cc, 33, &s), 0);
    assert_true(s.valid);
    assert_int_equal(s.control_type, 1);
    assert_int_equal(s.threshold, 1);
    assert_int_equal(s.packet_size, 2);
    assert_int_equal(s.cong_parm, 1001);
    assert_int_equal(cc_get_port_setting(n->cc, 41, &s), -EINVAL);
    /* Block 0 untouched. */
    assert_int_equal(
        pt_cc_mod(n, IB_MAD_METHOD_GET, IB_CC_ATTR_SWITCH_PORT_CONGESTION_SETTING, 0, NULL, resp),
        ST_OK);
    assert_int_equal(pt_f(resp + 4, IB_CC_SWITCH_PORT_CONGESTION_SETTING_ELEMENT_VALID_F), 0);
    pt_node_free(n);
}

/* The CongestionLog data starts at MAD offset 32. */
static const uint8_t *log_data(const struct pt_node *n)
{
    return n->out + IB_CC_LOG_DATA_OFFS;
}

static void test_congestion_log(void **state)
{
    struct pt_node *n = pt_switch_new(40, 0, false);
    const uint8_t *log;
    uint8_t map[32];
    struct cc_stats st;

    assert_int_equal(pt_cc(n, IB_MAD_METHOD_GET, IB_CC_ATTR_CONGESTION_LOG, NULL, NULL), ST_OK);
    log = log_data(n);
    PZT_EXPECT_FIELDS(log, {IB_CC_CONGESTION_LOG_LOGTYPE_F, 1},
                      {IB_CC_CONGESTION_LOG_CONGESTION_FLAGS_F, 0},
                      {IB_CC_CONGESTION_LOG_SWITCH_LOG_EVENTS_COUNTER_F, 0},
                      {IB_CC_CONGESTION_LOG_SWITCH_CURRENT_TIME_STAMP_F, 976562});

    cc_log_event(n->cc, 0x11, 0x21, 3, 1000);
    cc_log_event(n->cc, 0x12, 0x22, 0x1F, 1001); /* SL is 4 bits */
    cc_log_event(n->cc, 0x13, 0x23, 5, 1002);
    cc_log_port_marked(n->cc, 5);
    cc_log_port_marked(n->cc, 33);
    cc_log_port_marked(n->cc, 41); /* no such port: ignored */
    assert_int_equal(pt_cc(n, IB_MAD_METHOD_GET, IB_CC_ATTR_CONGESTION_LOG, NULL, NULL), ST_OK);
    log = log_data(n);
    assert_int_equal(pt_f(log, IB_CC_CONGESTION_LOG_SWITCH_LOG_EVENTS_COUNTER_F), 3);
    mad_get_array((void *)log, 0, IB_CC_CONGESTION_LOG_SWITCH_PORTMAP_F, map);
    for (unsigned p = 0; p < 256; p++)
        assert_int_equal(mask_bit(map, p), p == 5 || p == 33);
    for (unsigned i = 0; i < 15; i++) {
        const uint8_t *ev = log + 40 + 12 * i;

        assert_int_equal(pt_f(ev, IB_CC_CONGESTION_LOG_ENTRY_SWITCH_SLID_F), i < 3 ? 0x11 + i : 0);
        assert_int_equal(pt_f(ev, IB_CC_CONGESTION_LOG_ENTRY_SWITCH_DLID_F), i < 3 ? 0x21 + i : 0);
        assert_int_equal(pt_f(ev, IB_CC_CONGESTION_LOG_ENTRY_SWITCH_TIMESTAMP_F),
                         i < 3 ? 1000 + i : 0);
    }
    assert_int_equal(pt_f(log + 40, IB_CC_CONGESTION_LOG_ENTRY_SWITCH_SL_F), 3);
    assert_int_equal(pt_f(log + 52, IB_CC_CONGESTION_LOG_ENTRY_SWITCH_SL_F), 0xF);

    /* Reading cleared it. */
    assert_int_equal(pt_cc(n, IB_MAD_METHOD_GET, IB_CC_ATTR_CONGESTION_LOG, NULL, NULL), ST_OK);
    log = log_data(n);
    assert_int_equal(pt_f(log, IB_CC_CONGESTION_LOG_SWITCH_LOG_EVENTS_COUNTER_F), 0);
    mad_get_array((void *)log, 0, IB_CC_CONGESTION_LOG_SWITCH_PORTMAP_F, map);
    for (unsigned p = 0; p < 256; p++)
        assert_false(mask_bit(map, p));
    assert_int_equal(pt_f(log + 40, IB_CC_CONGESTION_LOG_ENTRY_SWITCH_SLID_F), 0);

    /* 20 events: the counter says 20, the 15 most recent are kept, oldest first. */
    for (unsigned i = 0; i < 20; i++)
        cc_log_event(n->cc, (uint16_t)(0x100 + i), 1, 0, i);
    assert_int_equal(pt_cc(n, IB_MAD_METHOD_GET, IB_CC_ATTR_CONGESTION_LOG, NULL, NULL), ST_OK);
    log = log_data(n);
    assert_int_equal(pt_f(log, IB_CC_CONGESTION_LOG_SWITCH_LOG_EVENTS_COUNTER_F), 20);
    for (unsigned i = 0; i < 15; i++)
        assert_int_equal(pt_f(log + 40 + 12 * i, IB_CC_CONGESTION_LOG_ENTRY_SWITCH_SLID_F),
                         0x100 + 5 + i);
    cc_get_stats(n->cc, &st);
    assert_int_equal(st.log_events, 23);
    assert_int_equal(st.log_events_lost, 5);

    /* LogEventsCounter sticks at 0xFFFF. */
    for (unsigned i = 0; i < 70000; i++)
        cc_log_event(n->cc, 1, 2, 0, i);
    assert_int_equal(pt_cc(n, IB_MAD_METHOD_GET, IB_CC_ATTR_CONGESTION_LOG, NULL, NULL), ST_OK);
    assert_int_equal(pt_f(log_data(n), IB_CC_CONGESTION_LOG_SWITCH_LOG_EVENTS_COUNTER_F), 0xFFFF);
    pt_node_free(n);
}

static void test_ca_mode(void **state)
{
    struct pt_node *n = pt_ca_new(2, 0);
    uint8_t req[IB_CC_DATA_SZ] = {0}, resp[IB_CC_DATA_SZ];
    struct cc_ca_entry e;
    struct cc_port_setting ps;

    n->in_port = 2;
    assert_int_equal(pt_cc(n, IB_MAD_METHOD_GET, IB_CC_ATTR_CONGESTION_INFO, NULL, resp), ST_OK);
    pt_check_reply(n, IB_CC_CLASS);
    assert_int_equal(n->out_addr.port, 2);
    assert_int_equal(pt_f(resp, IB_CC_CONGESTION_INFO_CONTROL_TABLE_CAP_F), 2);
    assert_int_equal(pt_cc(n, IB_MAD_METHOD_GET, IB_CC_ATTR_SWITCH_CONGESTION_SETTING, NULL, NULL),
                     ST_BAD_ATTR);
    assert_int_equal(
        pt_cc(n, IB_MAD_METHOD_GET, IB_CC_ATTR_SWITCH_PORT_CONGESTION_SETTING, NULL, NULL),
        ST_BAD_ATTR);
    assert_int_equal(cc_get_port_setting(n->cc, 1, &ps), -EINVAL);

    /* CACongestionSetting: entries of the SLs in Control_Map only. */
    mad_set_field(req, 0, IB_CC_CA_CONGESTION_SETTING_PORT_CONTROL_F, 1);
    mad_set_field(req, 0, IB_CC_CA_CONGESTION_SETTING_CONTROL_MAP_F, 0x0005);
    for (unsigned sl = 0; sl < 16; sl++) {
        uint8_t *en = req + 4 + 8 * sl;

        PZT_SET_FIELDS(en, {IB_CC_CA_CONGESTION_ENTRY_CCTI_TIMER_F, 100 + sl},
                       {IB_CC_CA_CONGESTION_ENTRY_CCTI_INCREASE_F, 2},
                       {IB_CC_CA_CONGESTION_ENTRY_TRIGGER_THRESHOLD_F, 3},
                       {IB_CC_CA_CONGESTION_ENTRY_CCTI_MIN_F, 4});
    }
    assert_int_equal(pt_cc(n, IB_MAD_METHOD_SET, IB_CC_ATTR_CA_CONGESTION_SETTING, req, resp),
                     ST_OK);
    assert_int_equal(pt_f(resp, IB_CC_CA_CONGESTION_SETTING_PORT_CONTROL_F), 1);
    assert_int_equal(pt_f(resp, IB_CC_CA_CONGESTION_SETTING_CONTROL_MAP_F), 5);
    for (unsigned sl = 0; sl < 16; sl++) {
        bool set = sl == 0 || sl == 2;

        assert_int_equal(pt_f(resp + 4 + 8 * sl, IB_CC_CA_CONGESTION_ENTRY_CCTI_TIMER_F),
                         set ? 100 + sl : 0);
        assert_int_equal(pt_f(resp + 4 + 8 * sl, IB_CC_CA_CONGESTION_ENTRY_CCTI_MIN_F),
                         set ? 4 : 0);
    }
    assert_int_equal(cc_get_ca_entry(n->cc, 2, &e), 0);
    assert_int_equal(e.ccti_timer, 102);
    assert_int_equal(e.trigger_threshold, 3);
    assert_int_equal(cc_get_ca_entry(n->cc, 16, &e), -EINVAL);

    /* CongestionControlTable: 2 blocks of 64 entries. */
    memset(req, 0, sizeof(req));
    mad_set_field(req, 0, IB_CC_CONGESTION_CONTROL_TABLE_CCTI_LIMIT_F, 127);
    for (unsigned j = 0; j < 64; j++) {
        mad_set_field(req + 4 + 2 * j, 0, IB_CC_CONGESTION_CONTROL_TABLE_ENTRY_CCT_SHIFT_F, j % 4);
        mad_set_field(req + 4 + 2 * j, 0, IB_CC_CONGESTION_CONTROL_TABLE_ENTRY_CCT_MULTIPLIER_F,
                      j * 100);
    }
    assert_int_equal(
        pt_cc_mod(n, IB_MAD_METHOD_SET, IB_CC_ATTR_CONGESTION_CONTROL_TABLE, 1, req, resp), ST_OK);
    assert_int_equal(pt_f(resp, IB_CC_CONGESTION_CONTROL_TABLE_CCTI_LIMIT_F), 127);
    for (unsigned j = 0; j < 64; j++) {
        assert_int_equal(pt_f(resp + 4 + 2 * j, IB_CC_CONGESTION_CONTROL_TABLE_ENTRY_CCT_SHIFT_F),
                         j % 4);
        assert_int_equal(
            pt_f(resp + 4 + 2 * j, IB_CC_CONGESTION_CONTROL_TABLE_ENTRY_CCT_MULTIPLIER_F), j * 100);
    }
    assert_int_equal(
        pt_cc_mod(n, IB_MAD_METHOD_GET, IB_CC_ATTR_CONGESTION_CONTROL_TABLE, 0, NULL, resp), ST_OK);
    assert_int_equal(pt_f(resp + 4 + 2, IB_CC_CONGESTION_CONTROL_TABLE_ENTRY_CCT_MULTIPLIER_F), 0);
    assert_int_equal(
        pt_cc_mod(n, IB_MAD_METHOD_GET, IB_CC_ATTR_CONGESTION_CONTROL_TABLE, 2, NULL, NULL),
        ST_BAD_FIELD);
    mad_set_field(req, 0, IB_CC_CONGESTION_CONTROL_TABLE_CCTI_LIMIT_F, 128);
    assert_int_equal(
        pt_cc_mod(n, IB_MAD_METHOD_SET, IB_CC_ATTR_CONGESTION_CONTROL_TABLE, 0, req, NULL),
        ST_BAD_FIELD);

    /* A CA's CongestionLog has LogType 2 and no events. */
    assert_int_equal(pt_cc(n, IB_MAD_METHOD_GET, IB_CC_ATTR_CONGESTION_LOG, NULL, NULL), ST_OK);
    assert_int_equal(pt_f(log_data(n), IB_CC_CONGESTION_LOG_LOGTYPE_F), 2);
    assert_int_equal(pt_f(log_data(n), IB_CC_CONGESTION_LOG_CA_CURRENT_TIMESTAMP_F), 976562);
    pt_node_free(n);
}

static void test_create_rejects(void **state)
{
    struct board b = {0};

    assert_null(cc_create(NULL));
    assert_null(cc_create(&b));
    cc_destroy(NULL);
}

PZT_MAIN(test_class_port_info, test_status_codes, test_info_and_timestamp,
         test_switch_congestion_setting, test_switch_port_congestion_setting, test_congestion_log,
         test_ca_mode, test_create_rejects)
