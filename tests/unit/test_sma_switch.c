/*
 * test_sma_switch.c - SwitchInfo (every field, Set, PortStateChange
 * write-1-to-clear, link state changes), LinearForwardingTable and
 * MulticastForwardingTable.
 */
#include "attr_util.h"
#include "pzt_main.h"
#include "pzt_fields.h"

/* Get SwitchInfo, expecting success. */
static void get_si(struct pzt_node *n, uint8_t *d)
{
    au_get_expect(n, IB_ATTR_SWITCH_INFO, 0, ST_OK, d);
}

/* SwitchInfo.PortStateChange as the SM reads it. */
static unsigned psc(struct pzt_node *n)
{
    uint8_t d[PZT_DATA];

    get_si(n, d);
    return mad_get_field(d, 0, IB_SW_STATE_CHANGE_F);
}

/* Clear PortStateChange the way OpenSM does: write back a Get with PSC = 1. */
static void clear_psc(struct pzt_node *n)
{
    uint8_t d[PZT_DATA];

    get_si(n, d);
    mad_set_field(d, 0, IB_SW_STATE_CHANGE_F, 1);
    au_set_expect(n, IB_ATTR_SWITCH_INFO, 0, d, ST_OK, d);
    assert_int_equal(mad_get_field(d, 0, IB_SW_STATE_CHANGE_F), 0);
}

/* SwitchInfo Get: every field of the default 36-port switch. */
static void test_switch_info_defaults(void **state)
{
    struct pzt_node *n = pzt_switch_new(36);
    uint8_t d[PZT_DATA];

    get_si(n, d);
    PZT_EXPECT_FIELDS(
        d, {IB_SW_LINEAR_FDB_CAP_F, 0xC000}, {IB_SW_RANDOM_FDB_CAP_F, 0},
        {IB_SW_MCAST_FDB_CAP_F, 1024}, {IB_SW_LINEAR_FDB_TOP_F, 0}, {IB_SW_DEF_PORT_F, 0},
        {IB_SW_DEF_MCAST_PRIM_F, 0}, {IB_SW_DEF_MCAST_NOT_PRIM_F, 0}, {IB_SW_LIFE_TIME_F, 0},
        {IB_SW_STATE_CHANGE_F, 0}, {IB_SW_OPT_SLTOVL_MAPPING_F, 1}, {IB_SW_LIDS_PER_PORT_F, 0},
        {IB_SW_PARTITION_ENFORCE_CAP_F, 32}, {IB_SW_PARTITION_ENF_INB_F, 1},
        {IB_SW_PARTITION_ENF_OUTB_F, 1}, {IB_SW_FILTER_RAW_INB_F, 1}, {IB_SW_FILTER_RAW_OUTB_F, 1},
        {IB_SW_ENHANCED_PORT0_F, 0}, {IB_SW_MCAST_FDB_TOP_F, 0xBFFF});
    au_get_expect(n, IB_ATTR_SWITCH_INFO, 1, ST_BAD_FIELD, NULL);
    pzt_node_free(n);
}

/* SwitchInfo Get reflects a different identity (caps, ESP0, no enforcement, no OptSL2VL). */
static void test_switch_info_identity(void **state)
{
    struct board_identity id;
    struct pzt_node *n;
    uint8_t d[PZT_DATA];

    board_mem_default_switch_identity(&id, 0x1000, 12);
    id.lft_cap = 1024;
    id.mft_cap = 64;
    id.partition_enforcement_cap = 0;
    id.enhanced_port0 = true;
    id.optimized_sl2vl = false;
    id.enforcement_caps = false;
    n = pzt_node_new(&id);
    get_si(n, d);
    PZT_EXPECT_FIELDS(d, {IB_SW_LINEAR_FDB_CAP_F, 1024}, {IB_SW_MCAST_FDB_CAP_F, 64},
                      {IB_SW_PARTITION_ENFORCE_CAP_F, 0}, {IB_SW_ENHANCED_PORT0_F, 1},
                      {IB_SW_OPT_SLTOVL_MAPPING_F, 0}, {IB_SW_PARTITION_ENF_INB_F, 0},
                      {IB_SW_PARTITION_ENF_OUTB_F, 0}, {IB_SW_FILTER_RAW_INB_F, 0},
                      {IB_SW_FILTER_RAW_OUTB_F, 0});
    pzt_node_free(n);
}

/* SwitchInfo Set: writable fields change, read-only fields are ignored. */
static void test_switch_info_set(void **state)
{
    struct pzt_node *n = pzt_switch_new(36);
    uint8_t d[PZT_DATA], r[PZT_DATA], g[PZT_DATA];
    struct pzt_result res;

    get_si(n, d);
    PZT_SET_FIELDS(d, {IB_SW_LINEAR_FDB_TOP_F, 0x1234}, {IB_SW_DEF_PORT_F, 3},
                   {IB_SW_DEF_MCAST_PRIM_F, 36}, {IB_SW_DEF_MCAST_NOT_PRIM_F, 0xFF},
                   {IB_SW_LIFE_TIME_F, 0x12}, {IB_SW_MCAST_FDB_TOP_F, 0xC010});
    /* Read-only: must not change. */
    PZT_SET_FIELDS(d, {IB_SW_LINEAR_FDB_CAP_F, 64}, {IB_SW_RANDOM_FDB_CAP_F, 5},
                   {IB_SW_MCAST_FDB_CAP_F, 32}, {IB_SW_OPT_SLTOVL_MAPPING_F, 0},
                   {IB_SW_LIDS_PER_PORT_F, 7}, {IB_SW_PARTITION_ENFORCE_CAP_F, 1},
                   {IB_SW_PARTITION_ENF_INB_F, 0}, {IB_SW_PARTITION_ENF_OUTB_F, 0},
                   {IB_SW_FILTER_RAW_INB_F, 0}, {IB_SW_FILTER_RAW_OUTB_F, 0},
                   {IB_SW_ENHANCED_PORT0_F, 1});

    au_request(n, 1, 1, IB_MAD_METHOD_SET, IB_ATTR_SWITCH_INFO, 0, 0, d, &res);
    au_check_resp(&res, ST_OK, IB_ATTR_SWITCH_INFO, 0);
    memcpy(r, res.data, PZT_DATA);
    get_si(n, g);
    assert_memory_equal(r, g, PZT_DATA); /* the response is the value after the Set */

    PZT_EXPECT_FIELDS(
        g, {IB_SW_LINEAR_FDB_TOP_F, 0x1234}, {IB_SW_DEF_PORT_F, 3}, {IB_SW_DEF_MCAST_PRIM_F, 36},
        {IB_SW_DEF_MCAST_NOT_PRIM_F, 0xFF}, {IB_SW_LIFE_TIME_F, 0x12},
        {IB_SW_MCAST_FDB_TOP_F, 0xC010}, {IB_SW_LINEAR_FDB_CAP_F, 0xC000},
        {IB_SW_RANDOM_FDB_CAP_F, 0}, {IB_SW_MCAST_FDB_CAP_F, 1024}, {IB_SW_OPT_SLTOVL_MAPPING_F, 1},
        {IB_SW_LIDS_PER_PORT_F, 0}, {IB_SW_PARTITION_ENFORCE_CAP_F, 32},
        {IB_SW_PARTITION_ENF_INB_F, 1}, {IB_SW_PARTITION_ENF_OUTB_F, 1},
        {IB_SW_FILTER_RAW_INB_F, 1}, {IB_SW_FILTER_RAW_OUTB_F, 1}, {IB_SW_ENHANCED_PORT0_F, 0});
    assert_int_equal(board_mem_lft_top(n->bm), 0x1234);

    /* MulticastFDBTop back to "none" and to 0 (what a Get of a switch without it returns). */
    mad_set_field(g, 0, IB_SW_MCAST_FDB_TOP_F, 0xBFFF);
    au_set_expect(n, IB_ATTR_SWITCH_INFO, 0, g, ST_OK, r);
    assert_int_equal(mad_get_field(r, 0, IB_SW_MCAST_FDB_TOP_F), 0xBFFF);
    mad_set_field(g, 0, IB_SW_MCAST_FDB_TOP_F, 0);
    au_set_expect(n, IB_ATTR_SWITCH_INFO, 0, g, ST_OK, r);
    assert_int_equal(mad_get_field(r, 0, IB_SW_MCAST_FDB_TOP_F), 0);
    /* Highest valid values. */
    PZT_SET_FIELDS(g, {IB_SW_MCAST_FDB_TOP_F, 0xC000 + 1023}, {IB_SW_LINEAR_FDB_TOP_F, 0xBFFF},
                   {IB_SW_LIFE_TIME_F, 0x1F});
    au_set_expect(n, IB_ATTR_SWITCH_INFO, 0, g, ST_OK, r);
    PZT_EXPECT_FIELDS(r, {IB_SW_MCAST_FDB_TOP_F, 0xC3FF}, {IB_SW_LINEAR_FDB_TOP_F, 0xBFFF},
                      {IB_SW_LIFE_TIME_F, 0x1F});
    pzt_node_free(n);
}

/* SwitchInfo Set with one invalid field: 0x1C, nothing changes, response = current value. */
static void test_switch_info_set_invalid(void **state)
{
    struct board_identity id;
    struct pzt_node *n;
    uint8_t before[PZT_DATA], d[PZT_DATA], r[PZT_DATA];
    const struct {
        enum MAD_FIELDS field;
        unsigned value;
    } bad[] = {
        {IB_SW_LINEAR_FDB_TOP_F, 1024}, /* = LinearFDBCap */
        {IB_SW_LINEAR_FDB_TOP_F, 0xFFFF},     {IB_SW_DEF_PORT_F, 13},
        {IB_SW_DEF_MCAST_PRIM_F, 0xFE},       {IB_SW_DEF_MCAST_NOT_PRIM_F, 100},
        {IB_SW_MCAST_FDB_TOP_F, 0xC000 + 64}, /* = MulticastFDBCap */
        {IB_SW_MCAST_FDB_TOP_F, 0x1234},      {IB_SW_MCAST_FDB_TOP_F, 0xFFFF},
    };

    board_mem_default_switch_identity(&id, 0x1000, 12);
    id.lft_cap = 1024;
    id.mft_cap = 64;
    n = pzt_node_new(&id);
    get_si(n, before);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        memcpy(d, before, sizeof(d));
        /* Good changes next to the bad one must not be applied either. */
        mad_set_field(d, 0, IB_SW_LIFE_TIME_F, 0x11);
        mad_set_field(d, 0, IB_SW_LINEAR_FDB_TOP_F, 100);
        mad_set_field(d, 0, bad[i].field, bad[i].value);
        au_set_expect(n, IB_ATTR_SWITCH_INFO, 0, d, ST_BAD_FIELD, r);
        assert_memory_equal(r, before, PZT_DATA);
        get_si(n, d);
        assert_memory_equal(d, before, PZT_DATA);
    }
    assert_int_equal(board_mem_lft_top(n->bm), 0);

    /* Boundaries that are valid. */
    memcpy(d, before, sizeof(d));
    PZT_SET_FIELDS(d, {IB_SW_LINEAR_FDB_TOP_F, 1023}, {IB_SW_DEF_PORT_F, 12},
                   {IB_SW_MCAST_FDB_TOP_F, 0xC000 + 63});
    au_set_expect(n, IB_ATTR_SWITCH_INFO, 0, d, ST_OK, r);
    PZT_EXPECT_FIELDS(r, {IB_SW_LINEAR_FDB_TOP_F, 1023}, {IB_SW_DEF_PORT_F, 12},
                      {IB_SW_MCAST_FDB_TOP_F, 0xC03F});

    /* Non-zero modifier. */
    get_si(n, before);
    mad_set_field(d, 0, IB_SW_LIFE_TIME_F, 3);
    au_set_expect(n, IB_ATTR_SWITCH_INFO, 1, d, ST_BAD_FIELD, NULL);
    get_si(n, d);
    assert_memory_equal(d, before, PZT_DATA);
    pzt_node_free(n);
}

/* PortStateChange: set by cabling + sma_poll, write 0 keeps it, write 1 clears it. */
static void test_port_state_change_w1c(void **state)
{
    struct pzt_node *n = pzt_switch_new(8);
    uint8_t d[PZT_DATA], r[PZT_DATA];
    struct pzt_result last;

    pzt_assign_lid(n, 0x10, 0x01, 10);
    assert_int_equal(pzt_poll_all(n, NULL), 0);
    assert_int_equal(psc(n), 0);

    board_mem_set_connected(n->bm, 3, true);
    assert_int_equal(pzt_poll_all(n, &last), 1); /* Trap 128 */
    assert_int_equal(mad_get_field(last.data, 0, IB_NOTICE_TRAP_NUMBER_F), 128);
    assert_int_equal(psc(n), 1);

    /* Writing 0 (with another change) keeps PortStateChange. */
    get_si(n, d);
    mad_set_field(d, 0, IB_SW_STATE_CHANGE_F, 0);
    mad_set_field(d, 0, IB_SW_LIFE_TIME_F, 0x12);
    au_set_expect(n, IB_ATTR_SWITCH_INFO, 0, d, ST_OK, r);
    assert_int_equal(mad_get_field(r, 0, IB_SW_STATE_CHANGE_F), 1);
    assert_int_equal(mad_get_field(r, 0, IB_SW_LIFE_TIME_F), 0x12);
    assert_int_equal(psc(n), 1);

    /* A rejected Set does not clear it. */
    mad_set_field(d, 0, IB_SW_STATE_CHANGE_F, 1);
    mad_set_field(d, 0, IB_SW_LINEAR_FDB_TOP_F, 0xC000);
    au_set_expect(n, IB_ATTR_SWITCH_INFO, 0, d, ST_BAD_FIELD, r);
    assert_int_equal(mad_get_field(r, 0, IB_SW_STATE_CHANGE_F), 1);
    assert_int_equal(psc(n), 1);
    mad_set_field(d, 0, IB_SW_LINEAR_FDB_TOP_F, 0);

    /* Writing 1 clears it; a second write of 1 leaves it clear. */
    mad_set_field(d, 0, IB_SW_STATE_CHANGE_F, 1);
    au_set_expect(n, IB_ATTR_SWITCH_INFO, 0, d, ST_OK, r);
    assert_int_equal(mad_get_field(r, 0, IB_SW_STATE_CHANGE_F), 0);
    assert_int_equal(psc(n), 0);
    au_set_expect(n, IB_ATTR_SWITCH_INFO, 0, d, ST_OK, r);
    assert_int_equal(mad_get_field(r, 0, IB_SW_STATE_CHANGE_F), 0);

    /* Nothing changed: polling does not set it again. */
    pzt_poll_all(n, NULL);
    assert_int_equal(psc(n), 0);

    /* Unplugging sets it again. */
    board_mem_set_connected(n->bm, 3, false);
    pzt_poll_all(n, NULL);
    assert_int_equal(psc(n), 1);
    pzt_node_free(n);
}

/* Set one PortInfo.PortState (other fields as read) on port p; returns the status. */
static int set_port_state(struct pzt_node *n, unsigned p, unsigned port_state)
{
    uint8_t d[PZT_DATA];

    au_get_expect(n, IB_ATTR_PORT_INFO, p, ST_OK, d);
    mad_set_field(d, 0, IB_PORT_STATE_F, port_state);
    mad_set_field(d, 0, IB_PORT_PHYS_STATE_F, 0);
    return pzt_set(n, IB_ATTR_PORT_INFO, p, d, NULL);
}

/* PortStateChange after an SM-requested PortState=Down on an external port. */
static void test_port_state_change_on_set_down(void **state)
{
    struct pzt_node *n = pzt_switch_new(8);
    uint8_t pi[PZT_DATA];

    pzt_connect_all(n);
    pzt_poll_all(n, NULL);
    assert_int_equal(psc(n), 1);
    clear_psc(n);

    /* NOP and Init -> Armed -> Active do not touch it. */
    assert_int_equal(set_port_state(n, 2, BOARD_PORT_NOP), ST_OK);
    assert_int_equal(set_port_state(n, 2, BOARD_PORT_ARMED), ST_OK);
    assert_int_equal(set_port_state(n, 2, BOARD_PORT_ACTIVE), ST_OK);
    pzt_poll_all(n, NULL);
    assert_int_equal(psc(n), 0);

    /* Down bounces the (cabled) link: Active -> Down -> Init, PSC = 1 at once. */
    assert_int_equal(set_port_state(n, 2, BOARD_PORT_DOWN), ST_OK);
    assert_int_equal(psc(n), 1);
    assert_int_equal(board_mem_link_downed(n->bm, 2), 1);
    clear_psc(n);

    /* Down of a port that stays Init (already retrained) bounces it again. */
    assert_int_equal(set_port_state(n, 2, BOARD_PORT_DOWN), ST_OK);
    assert_int_equal(psc(n), 1);
    clear_psc(n);

    /* Disabling the port's PHY takes the link down too. */
    au_get_expect(n, IB_ATTR_PORT_INFO, 6, ST_OK, pi);
    mad_set_field(pi, 0, IB_PORT_STATE_F, 0);
    mad_set_field(pi, 0, IB_PORT_PHYS_STATE_F, BOARD_PHYS_DISABLED);
    au_set_expect(n, IB_ATTR_PORT_INFO, 6, pi, ST_OK, NULL);
    assert_int_equal(psc(n), 1);
    clear_psc(n);

    /* Down of an unplugged port, which is Down already, changes nothing. */
    board_mem_set_connected(n->bm, 5, false);
    pzt_poll_all(n, NULL);
    clear_psc(n);
    assert_int_equal(set_port_state(n, 5, BOARD_PORT_DOWN), ST_OK);
    pzt_poll_all(n, NULL);
    assert_int_equal(psc(n), 0);

    /* PortState on port 0 is not a link state change. */
    assert_int_equal(set_port_state(n, 0, BOARD_PORT_DOWN), ST_OK);
    assert_int_equal(psc(n), 0);
    pzt_node_free(n);
}

/* Fill an LFT block with a recognisable pattern. */
static void lft_pattern(uint8_t *d, unsigned block, unsigned nports)
{
    uint8_t e[64];

    for (unsigned i = 0; i < 64; i++)
        e[i] = (uint8_t)((block * 64 + i) % (nports + 1));
    e[63] = 0xFF;
    memset(d, 0, PZT_DATA);
    mad_set_array(d, 0, IB_LINEAR_FORW_TBL_F, e);
}

/* LinearForwardingTable: blocks 0..767 round trip; default 0xFF; out of range 0x1C. */
static void test_lft(void **state)
{
    static const unsigned blocks[] = {0, 1, 2, 383, 767};
    struct pzt_node *n = pzt_switch_new(36);
    uint8_t d[PZT_DATA], r[PZT_DATA], e[64], si[PZT_DATA];

    au_get_expect(n, IB_ATTR_LINEARFORWTBL, 5, ST_OK, r);
    mad_get_array(r, 0, IB_LINEAR_FORW_TBL_F, e);
    for (unsigned i = 0; i < 64; i++)
        assert_int_equal(e[i], 0xFF);

    for (size_t i = 0; i < sizeof(blocks) / sizeof(blocks[0]); i++) {
        lft_pattern(d, blocks[i], 36);
        au_set_echoes(n, IB_ATTR_LINEARFORWTBL, blocks[i], d);
    }
    for (size_t i = 0; i < sizeof(blocks) / sizeof(blocks[0]); i++) {
        lft_pattern(d, blocks[i], 36);
        au_get_equals(n, IB_ATTR_LINEARFORWTBL, blocks[i], d);
    }
    /* The datapath sees it up to LinearFDBTop. */
    assert_int_equal(board_mem_lft_entry(n->bm, 65), BOARD_LFT_DROP);
    get_si(n, si);
    mad_set_field(si, 0, IB_SW_LINEAR_FDB_TOP_F, 0xBFFF);
    au_set_expect(n, IB_ATTR_SWITCH_INFO, 0, si, ST_OK, NULL);
    assert_int_equal(board_mem_lft_entry(n->bm, 65), 65 % 37);
    assert_int_equal(board_mem_lft_entry(n->bm, 767 * 64 + 5), (767 * 64 + 5) % 37);
    assert_int_equal(board_mem_lft_entry(n->bm, 767 * 64 + 63), 0xFF);

    /* Out of range blocks, including modifiers that overflow block * 64. */
    au_get_expect(n, IB_ATTR_LINEARFORWTBL, 768, ST_BAD_FIELD, NULL);
    au_get_expect(n, IB_ATTR_LINEARFORWTBL, 0x04000000u, ST_BAD_FIELD, NULL);
    au_get_expect(n, IB_ATTR_LINEARFORWTBL, 0xFFFFFFFFu, ST_BAD_FIELD, NULL);
    lft_pattern(d, 0, 36);
    au_set_expect(n, IB_ATTR_LINEARFORWTBL, 768, d, ST_BAD_FIELD, NULL);
    au_set_expect(n, IB_ATTR_LINEARFORWTBL, 0xFFFFFFFFu, d, ST_BAD_FIELD, NULL);
    au_set_expect(n, IB_ATTR_LINEARFORWTBL, 0x04000000u, d, ST_BAD_FIELD, NULL);
    /* Block 0 still holds its own pattern. */
    au_get_equals(n, IB_ATTR_LINEARFORWTBL, 0, d);
    pzt_node_free(n);
}

/* LinearForwardingTable with a small LinearFDBCap: block >= cap / 64 is 0x1C. */
static void test_lft_small_cap(void **state)
{
    struct board_identity id;
    struct pzt_node *n;
    uint8_t d[PZT_DATA];

    board_mem_default_switch_identity(&id, 0x1000, 8);
    id.lft_cap = 1024;
    n = pzt_node_new(&id);
    lft_pattern(d, 15, 8);
    au_set_echoes(n, IB_ATTR_LINEARFORWTBL, 15, d);
    au_get_expect(n, IB_ATTR_LINEARFORWTBL, 16, ST_BAD_FIELD, NULL);
    au_set_expect(n, IB_ATTR_LINEARFORWTBL, 16, d, ST_BAD_FIELD, NULL);
    pzt_node_free(n);
}

/* Fill 32 MFT masks with a pattern depending on block and position. */
static void mft_pattern(uint8_t *d, unsigned block, unsigned pos)
{
    memset(d, 0, PZT_DATA);
    for (unsigned i = 0; i < 32; i++)
        au_put_be16(d, i, (block * 131 + pos * 17 + i * 7) & 0xFFFF);
}

/* MulticastForwardingTable: block bits 8:0, position bits 31:28, round trips and bounds. */
static void test_mft(void **state)
{
    struct pzt_node *n = pzt_switch_new(36); /* 37 ports with port 0: positions 0..2 */
    uint8_t d[PZT_DATA], r[PZT_DATA];

    au_get_expect(n, IB_ATTR_MULTICASTFORWTBL, 0, ST_OK, r);
    for (unsigned i = 0; i < 32; i++)
        assert_int_equal(au_be16(r, i), 0);

    for (unsigned pos = 0; pos < 3; pos++) {
        for (unsigned block = 0; block < 32; block += 31) {
            uint32_t mod = block | pos << 28;

            mft_pattern(d, block, pos);
            au_set_echoes(n, IB_ATTR_MULTICASTFORWTBL, mod, d);
        }
    }
    for (unsigned pos = 0; pos < 3; pos++) {
        for (unsigned block = 0; block < 32; block += 31) {
            mft_pattern(d, block, pos);
            au_get_equals(n, IB_ATTR_MULTICASTFORWTBL, block | pos << 28, d);
        }
    }
    /* The datapath: MLID 0xC000 + 32 * 31 + 5, port 16 * 2 + bit. */
    mft_pattern(d, 31, 2);
    for (unsigned bit = 0; bit < 5; bit++) {
        unsigned mask = au_be16(d, 5);

        assert_int_equal(board_mem_mft_has_port(n->bm, 0xC000 + 31 * 32 + 5, 32 + bit),
                         (mask >> bit) & 1);
    }

    /* Out of range: position 3, block 32 (MulticastFDBCap 1024), reserved bits 27:9. */
    mft_pattern(d, 0, 0);
    au_get_expect(n, IB_ATTR_MULTICASTFORWTBL, 3u << 28, ST_BAD_FIELD, NULL);
    au_get_expect(n, IB_ATTR_MULTICASTFORWTBL, 0xF0000000u, ST_BAD_FIELD, NULL);
    au_get_expect(n, IB_ATTR_MULTICASTFORWTBL, 32, ST_BAD_FIELD, NULL);
    au_get_expect(n, IB_ATTR_MULTICASTFORWTBL, 0x1FF, ST_BAD_FIELD, NULL);
    au_get_expect(n, IB_ATTR_MULTICASTFORWTBL, 0x200, ST_BAD_FIELD, NULL);
    au_get_expect(n, IB_ATTR_MULTICASTFORWTBL, 0x08000000u, ST_BAD_FIELD, NULL);
    au_set_expect(n, IB_ATTR_MULTICASTFORWTBL, 3u << 28, d, ST_BAD_FIELD, NULL);
    au_set_expect(n, IB_ATTR_MULTICASTFORWTBL, 32 | 1u << 28, d, ST_BAD_FIELD, NULL);
    au_set_expect(n, IB_ATTR_MULTICASTFORWTBL, 0x400, d, ST_BAD_FIELD, NULL);
    /* Nothing was overwritten. */
    au_get_equals(n, IB_ATTR_MULTICASTFORWTBL, 0, d);
    pzt_node_free(n);
}

/* MulticastForwardingTable of a switch with 15 ports: one position only. */
static void test_mft_one_position(void **state)
{
    struct pzt_node *n = pzt_switch_new(15);
    uint8_t d[PZT_DATA];

    mft_pattern(d, 7, 0);
    au_set_echoes(n, IB_ATTR_MULTICASTFORWTBL, 7, d);
    au_get_expect(n, IB_ATTR_MULTICASTFORWTBL, 7 | 1u << 28, ST_BAD_FIELD, NULL);
    au_set_expect(n, IB_ATTR_MULTICASTFORWTBL, 7 | 1u << 28, d, ST_BAD_FIELD, NULL);
    pzt_node_free(n);
}

PZT_MAIN(test_switch_info_defaults, test_switch_info_identity, test_switch_info_set,
         test_switch_info_set_invalid, test_port_state_change_w1c,
         test_port_state_change_on_set_down, test_lft, test_lft_small_cap, test_mft,
         test_mft_one_position)
