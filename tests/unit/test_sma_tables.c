/*
 * test_sma_tables.c - P_KeyTable, SLtoVLMappingTable and VLArbitrationTable:
 * sizes, modifiers (including the optimized all-ports SL2VL programming),
 * round trips and every out-of-range modifier.
 */
#include "attr_util.h"
#include "pzt_fields.h"
#include "pzt_main.h"

#define SL2VL_ALL_OUT 0x10000u
#define SL2VL_ALL_IN 0x20000u

/* P_KeyTable modifier on a switch: block | port << 16. */
static uint32_t pkey_mod(unsigned port, unsigned block)
{
    return block | port << 16;
}

/* A block of 32 P_Keys with a pattern depending on seed. */
static void pkey_pattern(uint8_t *d, unsigned seed)
{
    memset(d, 0, PZT_DATA);
    for (unsigned i = 0; i < 32; i++)
        au_put_be16(d, i, (0x8000 | (seed * 64 + i)) & 0xFFFF);
}

/* P_KeyTable sizes: port 0 = PartitionCap, external = PartitionEnforcementCap; default 0xFFFF. */
static void test_pkey_default_sizes(void **state)
{
    struct pzt_node *n = pzt_switch_new(36);
    uint8_t d[PZT_DATA];

    for (unsigned p = 0; p <= 36; p += 9) {
        au_get_expect(n, IB_ATTR_PKEY_TBL, pkey_mod(p, 0), ST_OK, d);
        assert_int_equal(au_be16(d, 0), 0xFFFF);
        for (unsigned i = 1; i < 32; i++)
            assert_int_equal(au_be16(d, i), 0);
        au_get_expect(n, IB_ATTR_PKEY_TBL, pkey_mod(p, 1), ST_BAD_FIELD, NULL);
    }
    au_get_expect(n, IB_ATTR_PKEY_TBL, pkey_mod(37, 0), ST_BAD_FIELD, NULL);
    au_get_expect(n, IB_ATTR_PKEY_TBL, pkey_mod(0xFFFF, 0), ST_BAD_FIELD, NULL);
    au_get_expect(n, IB_ATTR_PKEY_TBL, pkey_mod(1, 0xFFFF), ST_BAD_FIELD, NULL);
    pkey_pattern(d, 1);
    au_set_expect(n, IB_ATTR_PKEY_TBL, pkey_mod(37, 0), d, ST_BAD_FIELD, NULL);
    au_set_expect(n, IB_ATTR_PKEY_TBL, pkey_mod(2, 1), d, ST_BAD_FIELD, NULL);
    pzt_node_free(n);
}

/* P_KeyTable sizes from a non-default identity, including a partial last block. */
static void test_pkey_custom_sizes(void **state)
{
    struct board_identity id;
    struct pzt_node *n;
    uint8_t d[PZT_DATA], r[PZT_DATA];

    board_mem_default_switch_identity(&id, 0x1000, 4);
    id.partition_cap = 128;
    id.partition_enforcement_cap = 0;
    n = pzt_node_new(&id);
    au_get_expect(n, IB_ATTR_NODE_INFO, 0, ST_OK, d);
    assert_int_equal(mad_get_field(d, 0, IB_NODE_PARTITION_CAP_F), 128);
    au_get_expect(n, IB_ATTR_SWITCH_INFO, 0, ST_OK, d);
    assert_int_equal(mad_get_field(d, 0, IB_SW_PARTITION_ENFORCE_CAP_F), 0);
    for (unsigned b = 0; b < 4; b++) {
        pkey_pattern(d, b);
        au_set_echoes(n, IB_ATTR_PKEY_TBL, pkey_mod(0, b), d);
    }
    for (unsigned b = 0; b < 4; b++) {
        pkey_pattern(d, b);
        au_get_equals(n, IB_ATTR_PKEY_TBL, pkey_mod(0, b), d);
    }
    au_get_expect(n, IB_ATTR_PKEY_TBL, pkey_mod(0, 4), ST_BAD_FIELD, NULL);
    /* External ports have no P_Key table at all. */
    au_get_expect(n, IB_ATTR_PKEY_TBL, pkey_mod(1, 0), ST_BAD_FIELD, NULL);
    au_set_expect(n, IB_ATTR_PKEY_TBL, pkey_mod(4, 0), d, ST_BAD_FIELD, NULL);
    pzt_node_free(n);

    /* 40 entries on external ports: block 1 holds entries 32..39, the rest reads 0. */
    id.partition_cap = 32;
    id.partition_enforcement_cap = 40;
    n = pzt_node_new(&id);
    pkey_pattern(d, 9);
    au_set_expect(n, IB_ATTR_PKEY_TBL, pkey_mod(3, 1), d, ST_OK, r);
    for (unsigned i = 0; i < 32; i++)
        assert_int_equal(au_be16(r, i), i < 8 ? au_be16(d, i) : 0);
    au_get_expect(n, IB_ATTR_PKEY_TBL, pkey_mod(3, 1), ST_OK, d);
    assert_memory_equal(d, r, PZT_DATA);
    au_get_expect(n, IB_ATTR_PKEY_TBL, pkey_mod(3, 2), ST_BAD_FIELD, NULL);
    au_get_expect(n, IB_ATTR_PKEY_TBL, pkey_mod(0, 1), ST_BAD_FIELD, NULL);
    pzt_node_free(n);
}

/* P_KeyTable Set: response = table after the Set; ports are independent. */
static void test_pkey_round_trip(void **state)
{
    struct pzt_node *n = pzt_switch_new(8);
    uint8_t d[PZT_DATA], r[PZT_DATA];

    pkey_pattern(d, 3);
    au_put_be16(d, 0, 0xFFFF);
    au_put_be16(d, 1, 0x7FFF); /* limited member */
    au_set_echoes(n, IB_ATTR_PKEY_TBL, pkey_mod(3, 0), d);
    au_get_equals(n, IB_ATTR_PKEY_TBL, pkey_mod(3, 0), d);

    /* Port 0 and port 4 keep the default table. */
    au_get_expect(n, IB_ATTR_PKEY_TBL, pkey_mod(4, 0), ST_OK, r);
    assert_int_equal(au_be16(r, 0), 0xFFFF);
    assert_int_equal(au_be16(r, 1), 0);
    au_get_expect(n, IB_ATTR_PKEY_TBL, pkey_mod(0, 0), ST_OK, r);
    assert_int_equal(au_be16(r, 1), 0);

    /* Port 0 (modifier 0). */
    pkey_pattern(d, 4);
    au_set_echoes(n, IB_ATTR_PKEY_TBL, 0, d);
    au_get_expect(n, IB_ATTR_PKEY_TBL, pkey_mod(3, 0), ST_OK, r);
    assert_int_equal(au_be16(r, 1), 0x7FFF);
    pzt_node_free(n);
}

/* Pack 16 SL->VL entries: libibmad has the table only as one 8-byte field. */
static void sl2vl_pack(const uint8_t vl[16], uint8_t *d)
{
    memset(d, 0, PZT_DATA);
    for (unsigned sl = 0; sl < 16; sl++)
        d[sl / 2] |= (uint8_t)((vl[sl] & 0xF) << (sl % 2 ? 0 : 4));
}

/* A packed SL2VL table whose entries depend on seed. */
static void sl2vl_pattern(uint8_t *d, unsigned seed)
{
    uint8_t vl[16];

    for (unsigned sl = 0; sl < 16; sl++)
        vl[sl] = (uint8_t)((seed + sl) % 15);
    sl2vl_pack(vl, d);
}

/* SL2VL modifier on a switch: (in << 8) | out. */
static uint32_t sl2vl_mod(unsigned in, unsigned out)
{
    return in << 8 | out;
}

/* Check that (in, out) holds the table of seed. */
static void sl2vl_expect(struct pzt_node *n, unsigned in, unsigned out, unsigned seed)
{
    uint8_t d[PZT_DATA];

    sl2vl_pattern(d, seed);
    au_get_equals(n, IB_ATTR_SLVL_TABLE, sl2vl_mod(in, out), d);
}

/* SLtoVLMappingTable: (in << 8) | out round trips and bounds. */
static void test_sl2vl_round_trip(void **state)
{
    struct pzt_node *n = pzt_switch_new(8);
    uint8_t d[PZT_DATA], zero[PZT_DATA] = {0};

    sl2vl_pattern(d, 1);
    au_set_echoes(n, IB_ATTR_SLVL_TABLE, sl2vl_mod(2, 5), d);
    sl2vl_expect(n, 2, 5, 1);
    au_get_equals(n, IB_ATTR_SLVL_TABLE, sl2vl_mod(5, 2), zero);

    /* Input port 0 (traffic from the management port) is a valid input. */
    sl2vl_pattern(d, 2);
    au_set_echoes(n, IB_ATTR_SLVL_TABLE, sl2vl_mod(0, 8), d);
    sl2vl_expect(n, 0, 8, 2);
    sl2vl_expect(n, 2, 5, 1);

    /* Output port 0 only with EnhancedPort0; ports > N; reserved bits. */
    au_get_expect(n, IB_ATTR_SLVL_TABLE, sl2vl_mod(1, 0), ST_BAD_FIELD, NULL);
    au_set_expect(n, IB_ATTR_SLVL_TABLE, sl2vl_mod(1, 0), d, ST_BAD_FIELD, NULL);
    au_get_expect(n, IB_ATTR_SLVL_TABLE, sl2vl_mod(9, 1), ST_BAD_FIELD, NULL);
    au_get_expect(n, IB_ATTR_SLVL_TABLE, sl2vl_mod(1, 9), ST_BAD_FIELD, NULL);
    au_set_expect(n, IB_ATTR_SLVL_TABLE, sl2vl_mod(9, 1), d, ST_BAD_FIELD, NULL);
    au_set_expect(n, IB_ATTR_SLVL_TABLE, sl2vl_mod(1, 9), d, ST_BAD_FIELD, NULL);
    au_get_expect(n, IB_ATTR_SLVL_TABLE, 0x40000u | sl2vl_mod(1, 1), ST_BAD_FIELD, NULL);
    au_set_expect(n, IB_ATTR_SLVL_TABLE, 0x40000u | sl2vl_mod(1, 1), d, ST_BAD_FIELD, NULL);
    /* The all-ports bits are for Set only. */
    au_get_expect(n, IB_ATTR_SLVL_TABLE, SL2VL_ALL_OUT | sl2vl_mod(1, 1), ST_BAD_FIELD, NULL);
    au_get_expect(n, IB_ATTR_SLVL_TABLE, 0x30000u, ST_BAD_FIELD, NULL);
    sl2vl_expect(n, 2, 5, 1);
    pzt_node_free(n);
}

/* Optimized SL2VL programming: bit 16 = all outputs, bit 17 = all inputs. */
static void test_sl2vl_optimized(void **state)
{
    struct pzt_node *n = pzt_switch_new(8);
    uint8_t d[PZT_DATA];

    au_get_expect(n, IB_ATTR_SWITCH_INFO, 0, ST_OK, d);
    assert_int_equal(mad_get_field(d, 0, IB_SW_OPT_SLTOVL_MAPPING_F), 1);

    /* 0x30000: every input to every output (output 0 excluded on base port 0). */
    sl2vl_pattern(d, 1);
    au_set_echoes(n, IB_ATTR_SLVL_TABLE, SL2VL_ALL_IN | SL2VL_ALL_OUT, d);
    for (unsigned in = 0; in <= 8; in++)
        for (unsigned out = 1; out <= 8; out++)
            sl2vl_expect(n, in, out, 1);

    /* 0x20000 | out: every input to output 4. */
    sl2vl_pattern(d, 2);
    au_set_echoes(n, IB_ATTR_SLVL_TABLE, SL2VL_ALL_IN | 4, d);
    for (unsigned in = 0; in <= 8; in++)
        sl2vl_expect(n, in, 4, 2);
    sl2vl_expect(n, 3, 5, 1);

    /* 0x10000 | in << 8: input 3 to every output. */
    sl2vl_pattern(d, 3);
    au_set_echoes(n, IB_ATTR_SLVL_TABLE, SL2VL_ALL_OUT | sl2vl_mod(3, 0), d);
    for (unsigned out = 1; out <= 8; out++)
        sl2vl_expect(n, 3, out, 3);
    sl2vl_expect(n, 2, 4, 2);
    sl2vl_expect(n, 2, 5, 1);

    /* The fixed port of a half-optimized modifier must still be valid. */
    sl2vl_pattern(d, 4);
    au_set_expect(n, IB_ATTR_SLVL_TABLE, SL2VL_ALL_IN | 9, d, ST_BAD_FIELD, NULL);
    au_set_expect(n, IB_ATTR_SLVL_TABLE, SL2VL_ALL_IN | 0, d, ST_BAD_FIELD, NULL);
    au_set_expect(n, IB_ATTR_SLVL_TABLE, SL2VL_ALL_OUT | sl2vl_mod(9, 0), d, ST_BAD_FIELD, NULL);
    sl2vl_expect(n, 1, 1, 1);
    pzt_node_free(n);
}

/* Without OptimizedSLtoVLMappingProgramming the all-ports bits are 0x1C. */
static void test_sl2vl_not_optimized(void **state)
{
    struct board_identity id;
    struct pzt_node *n;
    uint8_t d[PZT_DATA], zero[PZT_DATA] = {0};

    board_mem_default_switch_identity(&id, 0x1000, 4);
    id.optimized_sl2vl = false;
    n = pzt_node_new(&id);
    sl2vl_pattern(d, 5);
    au_set_expect(n, IB_ATTR_SLVL_TABLE, SL2VL_ALL_IN | SL2VL_ALL_OUT, d, ST_BAD_FIELD, NULL);
    au_set_expect(n, IB_ATTR_SLVL_TABLE, SL2VL_ALL_IN | 2, d, ST_BAD_FIELD, NULL);
    au_set_expect(n, IB_ATTR_SLVL_TABLE, SL2VL_ALL_OUT | sl2vl_mod(2, 0), d, ST_BAD_FIELD, NULL);
    au_get_equals(n, IB_ATTR_SLVL_TABLE, sl2vl_mod(1, 2), zero);
    au_set_echoes(n, IB_ATTR_SLVL_TABLE, sl2vl_mod(1, 2), d);
    pzt_node_free(n);
}

/* Enhanced port 0: output port 0 has SL2VL tables and VL arbitration. */
static void test_tables_enhanced_port0(void **state)
{
    struct board_identity id;
    struct pzt_node *n;
    uint8_t d[PZT_DATA];

    board_mem_default_switch_identity(&id, 0x1000, 4);
    id.enhanced_port0 = true;
    n = pzt_node_new(&id);
    sl2vl_pattern(d, 6);
    au_set_echoes(n, IB_ATTR_SLVL_TABLE, sl2vl_mod(2, 0), d);
    sl2vl_expect(n, 2, 0, 6);
    sl2vl_pattern(d, 7);
    au_set_expect(n, IB_ATTR_SLVL_TABLE, SL2VL_ALL_IN | SL2VL_ALL_OUT, d, ST_OK, NULL);
    for (unsigned in = 0; in <= 4; in++)
        for (unsigned out = 0; out <= 4; out++)
            sl2vl_expect(n, in, out, 7);

    memset(d, 0, sizeof(d));
    d[0] = 1;
    d[1] = 200;
    au_set_echoes(n, IB_ATTR_VL_ARBITRATION, 1u << 16 | 0, d);
    pzt_node_free(n);
}

/*
 * A VLArbitration block: 32 entries of {VL (low nibble of byte 0), Weight
 * (byte 1)}; libibmad has the block only as one field, not per entry.
 */
static void vlarb_pattern(uint8_t *d, unsigned seed, bool reserved_bits)
{
    for (unsigned i = 0; i < 32; i++) {
        d[2 * i] = (uint8_t)((seed + i) % 15 | (reserved_bits ? 0xF0 : 0));
        d[2 * i + 1] = (uint8_t)(seed * 7 + i * 3);
    }
}

/* VLArbitrationTable modifier on a switch: block (1..4) << 16 | port. */
static uint32_t vlarb_mod(unsigned block, unsigned port)
{
    return block << 16 | port;
}

/* VLArbitrationTable: blocks 1 (low) and 3 (high), caps 8 -> blocks 2/4 0x1C, ports. */
static void test_vlarb(void **state)
{
    struct pzt_node *n = pzt_switch_new(8);
    uint8_t d[PZT_DATA], clean[PZT_DATA], r[PZT_DATA], zero[PZT_DATA] = {0};

    vlarb_pattern(d, 1, true);
    vlarb_pattern(clean, 1, false);
    au_set_expect(n, IB_ATTR_VL_ARBITRATION, vlarb_mod(1, 3), d, ST_OK, r);
    assert_memory_equal(r, clean, PZT_DATA); /* reserved VL bits cleared */
    au_get_equals(n, IB_ATTR_VL_ARBITRATION, vlarb_mod(1, 3), clean);

    vlarb_pattern(d, 2, false);
    au_set_echoes(n, IB_ATTR_VL_ARBITRATION, vlarb_mod(3, 3), d);
    au_get_equals(n, IB_ATTR_VL_ARBITRATION, vlarb_mod(3, 3), d);
    au_get_equals(n, IB_ATTR_VL_ARBITRATION, vlarb_mod(1, 3), clean);
    au_get_equals(n, IB_ATTR_VL_ARBITRATION, vlarb_mod(1, 4), zero);

    /* Blocks 2 and 4 need caps above 32 entries; 0 and 5.. do not exist. */
    au_get_expect(n, IB_ATTR_VL_ARBITRATION, vlarb_mod(2, 3), ST_BAD_FIELD, NULL);
    au_get_expect(n, IB_ATTR_VL_ARBITRATION, vlarb_mod(4, 3), ST_BAD_FIELD, NULL);
    au_set_expect(n, IB_ATTR_VL_ARBITRATION, vlarb_mod(2, 3), d, ST_BAD_FIELD, NULL);
    au_set_expect(n, IB_ATTR_VL_ARBITRATION, vlarb_mod(4, 3), d, ST_BAD_FIELD, NULL);
    au_get_expect(n, IB_ATTR_VL_ARBITRATION, vlarb_mod(0, 3), ST_BAD_FIELD, NULL);
    au_get_expect(n, IB_ATTR_VL_ARBITRATION, vlarb_mod(5, 3), ST_BAD_FIELD, NULL);
    au_get_expect(n, IB_ATTR_VL_ARBITRATION, vlarb_mod(0xFFFF, 3), ST_BAD_FIELD, NULL);
    au_set_expect(n, IB_ATTR_VL_ARBITRATION, vlarb_mod(0, 3), d, ST_BAD_FIELD, NULL);
    /* Base port 0 has no VL arbitration; ports > N do not exist. */
    au_get_expect(n, IB_ATTR_VL_ARBITRATION, vlarb_mod(1, 0), ST_BAD_FIELD, NULL);
    au_set_expect(n, IB_ATTR_VL_ARBITRATION, vlarb_mod(1, 0), d, ST_BAD_FIELD, NULL);
    au_get_expect(n, IB_ATTR_VL_ARBITRATION, vlarb_mod(1, 9), ST_BAD_FIELD, NULL);
    au_set_expect(n, IB_ATTR_VL_ARBITRATION, vlarb_mod(3, 0xFFFF), d, ST_BAD_FIELD, NULL);
    au_get_equals(n, IB_ATTR_VL_ARBITRATION, vlarb_mod(3, 3), d);
    pzt_node_free(n);
}

/* VLArbitrationTable caps from PortInfo decide which blocks exist. */
static void test_vlarb_caps(void **state)
{
    struct board_identity id;
    struct pzt_node *n;
    uint8_t d[PZT_DATA];

    board_mem_default_switch_identity(&id, 0x1000, 4);
    id.vlarb_low_cap = 64;
    id.vlarb_high_cap = 0;
    n = pzt_node_new(&id);
    au_get_expect(n, IB_ATTR_PORT_INFO, 2, ST_OK, d);
    PZT_EXPECT_FIELDS(d, {IB_PORT_VL_ARBITRATION_LOW_CAP_F, 64},
                      {IB_PORT_VL_ARBITRATION_HIGH_CAP_F, 0});
    for (unsigned b = 1; b <= 2; b++) {
        vlarb_pattern(d, b, false);
        au_set_echoes(n, IB_ATTR_VL_ARBITRATION, vlarb_mod(b, 2), d);
    }
    vlarb_pattern(d, 1, false);
    au_get_equals(n, IB_ATTR_VL_ARBITRATION, vlarb_mod(1, 2), d);
    au_get_expect(n, IB_ATTR_VL_ARBITRATION, vlarb_mod(3, 2), ST_BAD_FIELD, NULL);
    au_get_expect(n, IB_ATTR_VL_ARBITRATION, vlarb_mod(4, 2), ST_BAD_FIELD, NULL);
    pzt_node_free(n);
}

/* CA: SL2VL, VLArbitration and P_Keys are those of the receiving port. */
static void test_ca_tables(void **state)
{
    struct pzt_node *n = pzt_ca_new(2);
    uint8_t d[PZT_DATA], r[PZT_DATA], zero[PZT_DATA] = {0};

    sl2vl_pattern(d, 8);
    assert_int_equal(pzt_set_key(n, 2, 0, IB_ATTR_SLVL_TABLE, 0, d, r), ST_OK);
    assert_memory_equal(r, d, PZT_DATA);
    assert_int_equal(pzt_get_key(n, 2, 0, IB_ATTR_SLVL_TABLE, 0, r), ST_OK);
    assert_memory_equal(r, d, PZT_DATA);
    assert_int_equal(pzt_get_key(n, 1, 0, IB_ATTR_SLVL_TABLE, 0, r), ST_OK);
    assert_memory_equal(r, zero, PZT_DATA);

    vlarb_pattern(d, 3, false);
    assert_int_equal(pzt_set_key(n, 1, 0, IB_ATTR_VL_ARBITRATION, 1u << 16, d, r), ST_OK);
    assert_memory_equal(r, d, PZT_DATA);
    assert_int_equal(pzt_get_key(n, 1, 0, IB_ATTR_VL_ARBITRATION, 1u << 16, r), ST_OK);
    assert_memory_equal(r, d, PZT_DATA);
    assert_int_equal(pzt_get_key(n, 2, 0, IB_ATTR_VL_ARBITRATION, 1u << 16, r), ST_OK);
    assert_memory_equal(r, zero, PZT_DATA);
    assert_int_equal(pzt_get_key(n, 1, 0, IB_ATTR_VL_ARBITRATION, 2u << 16, r), ST_BAD_FIELD);
    pzt_node_free(n);
}

PZT_MAIN(test_pkey_default_sizes, test_pkey_custom_sizes, test_pkey_round_trip,
         test_sl2vl_round_trip, test_sl2vl_optimized, test_sl2vl_not_optimized,
         test_tables_enhanced_port0, test_vlarb, test_vlarb_caps, test_ca_tables)
