/*
 * test_pma_counters.c - PortCounters: values, saturation of every field,
 * hardware wrap at counter_bits, CounterSelect/CounterSelect2 resets,
 * AllPortSelect sums, reset-all, the 64-bit software counters API.
 */
#include "pma_test_util.h"
#include "pzt_main.h"
#include "pzt_fields.h"

#define QP1_FIELD IB_NO_FIELD /* hand-read at bytes 20-21 */

/* One PortCounters field: hardware counter, libibmad field, width, reset bit. */
struct pc_field {
    size_t hw; /* offsetof(struct board_port_counters, ...) */
    enum MAD_FIELDS field;
    unsigned width;
    unsigned sel; /* CounterSelect bit, 16 + CounterSelect2 bit */
};

#define HW(f) offsetof(struct board_port_counters, f)

static const struct pc_field pc_fields[] = {
    {HW(symbol_errors), IB_PC_ERR_SYM_F, 16, 0},
    {HW(link_error_recovery), IB_PC_LINK_RECOVERS_F, 8, 1},
    {HW(link_downed), IB_PC_LINK_DOWNED_F, 8, 2},
    {HW(rcv_errors), IB_PC_ERR_RCV_F, 16, 3},
    {HW(rcv_remote_phys_errors), IB_PC_ERR_PHYSRCV_F, 16, 4},
    {HW(rcv_switch_relay_errors), IB_PC_ERR_SWITCH_REL_F, 16, 5},
    {HW(xmit_discards), IB_PC_XMT_DISCARDS_F, 16, 6},
    {HW(xmit_constraint_errors), IB_PC_ERR_XMTCONSTR_F, 8, 7},
    {HW(rcv_constraint_errors), IB_PC_ERR_RCVCONSTR_F, 8, 8},
    {HW(local_link_integrity_errors), IB_PC_ERR_LOCALINTEG_F, 4, 9},
    {HW(excessive_buffer_overrun_errors), IB_PC_ERR_EXCESS_OVR_F, 4, 10},
    {HW(vl15_dropped), IB_PC_VL15_DROPPED_F, 16, 11},
    {HW(xmit_data), IB_PC_XMT_BYTES_F, 32, 12},
    {HW(rcv_data), IB_PC_RCV_BYTES_F, 32, 13},
    {HW(xmit_pkts), IB_PC_XMT_PKTS_F, 32, 14},
    {HW(rcv_pkts), IB_PC_RCV_PKTS_F, 32, 15},
    {HW(xmit_wait), IB_PC_XMT_WAIT_F, 32, 16},
    {HW(qp1_dropped), QP1_FIELD, 16, 17},
};

#define NPC (sizeof(pc_fields) / sizeof(pc_fields[0]))

/* The hardware counter of a field on port. */
static uint64_t *hw_ctr(struct pt_node *n, unsigned port, const struct pc_field *f)
{
    return (uint64_t *)((char *)pt_hw(n, port) + f->hw);
}

/* A field's value in PortCounters response data. */
static uint64_t pc_value(const uint8_t *resp, const struct pc_field *f)
{
    return f->field == QP1_FIELD ? pt_qp1_dropped(resp) : pt_f(resp, f->field);
}

static uint64_t field_max(const struct pc_field *f)
{
    return (UINT64_C(1) << f->width) - 1;
}

static void test_values(void **state)
{
    struct pt_node *n = pt_switch_new(4, 0, false);
    uint8_t resp[PT_DATA];

    for (size_t i = 0; i < NPC; i++)
        pt_add(n, hw_ctr(n, 2, &pc_fields[i]), i + 1);
    assert_int_equal(pt_query(n, IB_GSI_PORT_COUNTERS, 2, resp), ST_OK);
    for (size_t i = 0; i < NPC; i++)
        assert_int_equal(pc_value(resp, &pc_fields[i]), i + 1);
    /* QP1Dropped and VL15Dropped are distinct fields (bytes 20-21 and 22-23). */
    assert_int_equal(resp[20] << 8 | resp[21], 18);
    assert_int_equal(resp[22] << 8 | resp[23], 12);
    /* Port 3 is untouched. */
    assert_int_equal(pt_query(n, IB_GSI_PORT_COUNTERS, 3, resp), ST_OK);
    for (size_t i = 0; i < NPC; i++)
        assert_int_equal(pc_value(resp, &pc_fields[i]), 0);
    pt_node_free(n);
}

/* Software counters start at the hardware's value when the PMA is created. */
static void test_start_at_hardware(void **state)
{
    struct pt_node *n = pt_switch_new(4, 32, false);
    uint8_t resp[PT_DATA];
    struct pma_counters c;

    pma_destroy(n->pma);
    pt_hw(n, 1)->xmit_data = 0x12345;
    pt_hw(n, 1)->symbol_errors = 7;
    n->pma = pma_create(n->board);
    assert_non_null(n->pma);
    assert_int_equal(pt_query(n, IB_GSI_PORT_COUNTERS, 1, resp), ST_OK);
    assert_int_equal(pt_f(resp, IB_PC_XMT_BYTES_F), 0x12345);
    assert_int_equal(pt_f(resp, IB_PC_ERR_SYM_F), 7);
    assert_int_equal(pma_port_counters64(n->pma, 1, &c), 0);
    assert_int_equal(c.total.xmit_data, 0x12345);
    pt_node_free(n);
}

/* Every field sticks at all-ones and never wraps. */
static void test_saturation(void **state)
{
    struct pt_node *n = pt_switch_new(4, 0, false);
    uint8_t resp[PT_DATA];

    for (size_t i = 0; i < NPC; i++) {
        const struct pc_field *f = &pc_fields[i];

        pt_add(n, hw_ctr(n, 1, f), field_max(f) - 1);
        assert_int_equal(pt_query(n, IB_GSI_PORT_COUNTERS, 1, resp), ST_OK);
        assert_int_equal(pc_value(resp, f), field_max(f) - 1);
        pt_add(n, hw_ctr(n, 1, f), 1);
        assert_int_equal(pt_query(n, IB_GSI_PORT_COUNTERS, 1, resp), ST_OK);
        assert_int_equal(pc_value(resp, f), field_max(f));
        /* One past all-ones, then far past: a wrapping field would read 0, 5. */
        pt_add(n, hw_ctr(n, 1, f), 1);
        assert_int_equal(pt_query(n, IB_GSI_PORT_COUNTERS, 1, resp), ST_OK);
        assert_int_equal(pc_value(resp, f), field_max(f));
        pt_add(n, hw_ctr(n, 1, f), field_max(f) + 5);
        assert_int_equal(pt_query(n, IB_GSI_PORT_COUNTERS, 1, resp), ST_OK);
        assert_int_equal(pc_value(resp, f), field_max(f));
    }
    /* Neighbouring fields (the 4-bit pair, QP1/VL15) were not disturbed. */
    assert_int_equal(pt_f(resp, IB_PC_ERR_LOCALINTEG_F), 0xF);
    assert_int_equal(pt_f(resp, IB_PC_ERR_EXCESS_OVR_F), 0xF);
    /* A reset brings a saturated counter back to 0. */
    assert_int_equal(pt_reset(n, IB_GSI_PORT_COUNTERS, 1, 1u << 9, resp), ST_OK);
    assert_int_equal(pt_f(resp, IB_PC_ERR_LOCALINTEG_F), 0);
    assert_int_equal(pt_f(resp, IB_PC_ERR_EXCESS_OVR_F), 0xF);
    pt_node_free(n);
}

/* 32-bit hardware counters: one wrap between reads is accounted for. */
static void test_hw_wrap_32(void **state)
{
    struct pt_node *n = pt_switch_new(4, 32, false);
    uint8_t resp[PT_DATA];
    struct pma_counters c;

    pt_add(n, &pt_hw(n, 1)->xmit_data, 0xFFFFFFF0u);
    pt_add(n, &pt_hw(n, 1)->symbol_errors, 0xFFFFFFFEu);
    pma_poll(n->pma);
    assert_int_equal(pt_reset(n, IB_GSI_PORT_COUNTERS, 1, 0xFFFF, NULL), ST_OK);
    pt_add(n, &pt_hw(n, 1)->xmit_data, 0x20); /* hardware wraps to 0x10 */
    pt_add(n, &pt_hw(n, 1)->symbol_errors, 3);
    assert_int_equal(pt_hw(n, 1)->xmit_data, 0x10);
    assert_int_equal(pt_query(n, IB_GSI_PORT_COUNTERS, 1, resp), ST_OK);
    assert_int_equal(pt_f(resp, IB_PC_XMT_BYTES_F), 0x20);
    assert_int_equal(pt_f(resp, IB_PC_ERR_SYM_F), 3);
    assert_int_equal(pma_port_counters64(n->pma, 1, &c), 0);
    assert_int_equal(c.total.xmit_data, 0x100000010ull);
    /* Many wraps, each observed by a poll: the 64-bit total keeps counting. */
    for (unsigned i = 0; i < 5; i++) {
        pt_add(n, &pt_hw(n, 1)->xmit_data, 0xC0000000u);
        pma_poll(n->pma);
    }
    assert_int_equal(pma_port_counters64(n->pma, 1, &c), 0);
    assert_int_equal(c.total.xmit_data, 0x100000010ull + 5 * 0xC0000000ull);
    assert_int_equal(pt_query(n, IB_GSI_PORT_COUNTERS, 1, resp), ST_OK);
    assert_int_equal(pt_f(resp, IB_PC_XMT_BYTES_F), 0xFFFFFFFFu); /* sticky */
    pt_node_free(n);
}

/* Odd widths (12 bits) and full 64-bit hardware counters wrap too. */
static void test_hw_wrap_other_widths(void **state)
{
    struct pt_node *n12 = pt_switch_new(2, 12, false);
    struct pt_node *n64 = pt_switch_new(2, 0, false);
    struct pma_counters c;

    pt_add(n12, &pt_hw(n12, 2)->rcv_pkts, 4000);
    pma_poll(n12->pma);
    pt_add(n12, &pt_hw(n12, 2)->rcv_pkts, 200); /* 4200 mod 4096 = 104 */
    assert_int_equal(pt_hw(n12, 2)->rcv_pkts, 104);
    assert_int_equal(pma_port_counters64(n12->pma, 2, &c), 0);
    assert_int_equal(c.total.rcv_pkts, 4200);

    pt_hw(n64, 2)->rcv_pkts = UINT64_MAX - 2;
    pma_poll(n64->pma);
    pt_add(n64, &pt_hw(n64, 2)->rcv_pkts, 5);
    assert_int_equal(pt_hw(n64, 2)->rcv_pkts, 2);
    assert_int_equal(pma_port_counters64(n64->pma, 2, &c), 0);
    assert_int_equal(c.total.rcv_pkts, 2); /* started at MAX-2, wrapped: counts mod 2^64 */
    pt_node_free(n12);
    pt_node_free(n64);
}

static void test_poll_deadline(void **state)
{
    struct pt_node *n = pt_switch_new(2, 32, false);
    uint64_t now = board_now_ns(n->board);

    assert_int_equal(pma_next_deadline(n->pma), now + 1000000000ull);
    board_mem_advance_ns(n->bm, 700000000ull);
    pma_poll(n->pma);
    assert_int_equal(pma_next_deadline(n->pma), now + 1700000000ull);
    pt_node_free(n);
}

/* Each CounterSelect/CounterSelect2 bit resets exactly its counter. */
static void test_counter_select_bits(void **state)
{
    for (size_t b = 0; b < NPC; b++) {
        struct pt_node *n = pt_switch_new(3, 0, false);
        unsigned sel = pc_fields[b].sel;
        unsigned mask = 1u << sel;
        uint8_t resp[PT_DATA], req[PT_DATA] = {0};

        for (size_t i = 0; i < NPC; i++) {
            pt_add(n, hw_ctr(n, 2, &pc_fields[i]), 3);
            pt_add(n, hw_ctr(n, 3, &pc_fields[i]), 3);
        }
        /* Encoded as perfquery -R <lid> 2 <mask> does. */
        PZT_SET_FIELDS(req, {IB_PC_PORT_SELECT_F, 2}, {IB_PC_COUNTER_SELECT_F, mask & 0xFFFF},
                       {IB_PC_COUNTER_SELECT2_F, mask >> 16});
        assert_int_equal(pt_pma(n, IB_MAD_METHOD_SET, IB_GSI_PORT_COUNTERS, req, resp), ST_OK);
        pt_check_reply(n, IB_PERFORMANCE_CLASS);
        PZT_EXPECT_FIELDS(resp, {IB_PC_PORT_SELECT_F, 2}, {IB_PC_COUNTER_SELECT_F, mask & 0xFFFF},
                          {IB_PC_COUNTER_SELECT2_F, mask >> 16});
        /* The Set answers with the values after the reset... */
        for (size_t i = 0; i < NPC; i++)
            assert_int_equal(pc_value(resp, &pc_fields[i]), i == b ? 0 : 3);
        /* ...a Get agrees, and port 3 was not touched. */
        assert_int_equal(pt_query(n, IB_GSI_PORT_COUNTERS, 2, resp), ST_OK);
        for (size_t i = 0; i < NPC; i++)
            assert_int_equal(pc_value(resp, &pc_fields[i]), i == b ? 0 : 3);
        assert_int_equal(pt_query(n, IB_GSI_PORT_COUNTERS, 3, resp), ST_OK);
        for (size_t i = 0; i < NPC; i++)
            assert_int_equal(pc_value(resp, &pc_fields[i]), 3);
        /* Counting resumes from zero. */
        pt_add(n, hw_ctr(n, 2, &pc_fields[b]), 1);
        assert_int_equal(pt_query(n, IB_GSI_PORT_COUNTERS, 2, resp), ST_OK);
        assert_int_equal(pc_value(resp, &pc_fields[b]), 1);
        pt_node_free(n);
    }
}

/* perfquery -R: CounterSelect 0xFFFF plus XmitWait and QP1Dropped in CounterSelect2. */
static void test_perfquery_reset_all_counters(void **state)
{
    struct pt_node *n = pt_switch_new(3, 0, false);
    uint8_t resp[PT_DATA];

    for (size_t i = 0; i < NPC; i++)
        pt_add(n, hw_ctr(n, 1, &pc_fields[i]), 9);
    assert_int_equal(pt_reset(n, IB_GSI_PORT_COUNTERS, 1, 0xFFFF | 1u << 16 | 1u << 17, resp),
                     ST_OK);
    for (size_t i = 0; i < NPC; i++)
        assert_int_equal(pc_value(resp, &pc_fields[i]), 0);
    /* Without CounterSelect2, XmitWait and QP1Dropped stay. */
    for (size_t i = 0; i < NPC; i++)
        pt_add(n, hw_ctr(n, 1, &pc_fields[i]), 2);
    assert_int_equal(pt_reset(n, IB_GSI_PORT_COUNTERS, 1, 0xFFFF, resp), ST_OK);
    assert_int_equal(pt_f(resp, IB_PC_XMT_WAIT_F), 2);
    assert_int_equal(pt_qp1_dropped(resp), 2);
    assert_int_equal(pt_f(resp, IB_PC_XMT_BYTES_F), 0);
    pt_node_free(n);
}

/* AllPortSelect: the sum over ports 1..N (0..N with ESP0), saturated per field. */
static void test_all_port_select(void **state)
{
    struct pt_node *n = pt_switch_new(4, 32, false);
    struct pt_node *e = pt_switch_new(4, 32, true);
    uint8_t resp[PT_DATA];

    for (unsigned p = 0; p <= 4; p++) {
        pt_add(n, &pt_hw(n, p)->xmit_pkts, 10 * p + 1);
        pt_add(e, &pt_hw(e, p)->xmit_pkts, 10 * p + 1);
        pt_add(n, &pt_hw(n, p)->link_downed, 100); /* 8-bit field: 400 > 255 */
        pt_add(n, &pt_hw(n, p)->xmit_data, 0x50000000u);
        pt_add(n, &pt_hw(n, p)->local_link_integrity_errors, 2 * p);
    }
    assert_int_equal(pt_query(n, IB_GSI_PORT_COUNTERS, 0xFF, resp), ST_OK);
    PZT_EXPECT_FIELDS(resp, {IB_PC_PORT_SELECT_F, 0xFF}, {IB_PC_XMT_PKTS_F, 11 + 21 + 31 + 41},
                      {IB_PC_LINK_DOWNED_F, 0xFF}, {IB_PC_XMT_BYTES_F, 0xFFFFFFFFu});
    assert_int_equal(pt_f(resp, IB_PC_ERR_LOCALINTEG_F), 0xF); /* 2+4+6+8 = 20 > 15 */
    assert_int_equal(pt_query(e, IB_GSI_PORT_COUNTERS, 0xFF, resp), ST_OK);
    assert_int_equal(pt_f(resp, IB_PC_XMT_PKTS_F), 1 + 11 + 21 + 31 + 41);

    /* Reset-all with PortSelect 0xFF clears every port. */
    assert_int_equal(pt_reset(n, IB_GSI_PORT_COUNTERS, 0xFF, 0xFFFF, resp), ST_OK);
    assert_int_equal(pt_f(resp, IB_PC_XMT_PKTS_F), 0);
    for (unsigned p = 1; p <= 4; p++) {
        assert_int_equal(pt_query(n, IB_GSI_PORT_COUNTERS, p, resp), ST_OK);
        assert_int_equal(pt_f(resp, IB_PC_XMT_PKTS_F), 0);
        assert_int_equal(pt_f(resp, IB_PC_LINK_DOWNED_F), 0);
    }
    /* A single-port reset changes the sum by that port only. */
    pt_add(n, &pt_hw(n, 1)->xmit_pkts, 5);
    pt_add(n, &pt_hw(n, 2)->xmit_pkts, 7);
    assert_int_equal(pt_reset(n, IB_GSI_PORT_COUNTERS, 2, 1u << 14, NULL), ST_OK);
    assert_int_equal(pt_query(n, IB_GSI_PORT_COUNTERS, 0xFF, resp), ST_OK);
    assert_int_equal(pt_f(resp, IB_PC_XMT_PKTS_F), 5);
    pt_node_free(n);
    pt_node_free(e);
}

/* The 64-bit software counters are monotonic: PMA resets do not touch them. */
static void test_counters64_api(void **state)
{
    struct pt_node *n = pt_switch_new(3, 32, false);
    struct pma_counters c;

    pt_add(n, &pt_hw(n, 3)->rcv_data, 1000);
    pt_add(n, &pt_hw(n, 3)->vl_xmit_wait[7], 44);
    assert_int_equal(pt_reset(n, IB_GSI_PORT_COUNTERS, 3, 0xFFFF, NULL), ST_OK);
    assert_int_equal(pt_reset(n, IB_GSI_PORT_COUNTERS_EXT, 3, 0xFF, NULL), ST_OK);
    assert_int_equal(pt_reset(n, IB_GSI_PORT_PORT_VL_XMIT_WAIT_COUNTERS, 3, 0xFFFF, NULL), ST_OK);
    pt_add(n, &pt_hw(n, 3)->rcv_data, 1);
    assert_int_equal(pma_port_counters64(n->pma, 3, &c), 0); /* reads the hardware first */
    assert_int_equal(c.total.rcv_data, 1001);
    assert_int_equal(c.total.vl_xmit_wait[7], 44);
    assert_int_equal(pma_port_counters64(n->pma, 0, &c), -EINVAL); /* base port 0 */
    assert_int_equal(pma_port_counters64(n->pma, 4, &c), -EINVAL);
    pt_node_free(n);
}

PZT_MAIN(test_values, test_start_at_hardware, test_saturation, test_hw_wrap_32,
         test_hw_wrap_other_widths, test_poll_deadline, test_counter_select_bits,
         test_perfquery_reset_all_counters, test_all_port_select, test_counters64_api)
