/*
 * test_sma_mlnx.c - MlnxExtPortInfo (vendor SMP attribute 0xFF90): answered
 * by Mellanox nodes (VendorID 0x02C9), switch and CA, Get and Set of the
 * fields OpenSM reads and sets (StateChangeEnable, LinkSpeedSupported /
 * Enabled / Active for FDR10), bad ports and values (0x1C, port unchanged),
 * and 0x0C from other vendors' nodes.
 */
#include "attr_util.h"
#include "pzt_main.h"
#include "pzt_fields.h"

#define ATTR_MEPI IB_ATTR_MLNX_EXT_PORT_INFO
#define FDR10 0x01

/* A field of a MlnxExtPortInfo answer. */
static unsigned mepi(const uint8_t *d, enum MAD_FIELDS f)
{
    return mad_get_field((void *)d, 0, f);
}

/* MlnxExtPortInfo data with StateChangeEnable sce and LinkSpeedEnabled en. */
static void mepi_data(uint8_t *d, unsigned sce, unsigned en)
{
    memset(d, 0, PZT_DATA);
    mad_set_field(d, 0, IB_MLNX_EXT_PORT_STATE_CHG_ENABLE_F, sce);
    mad_set_field(d, 0, IB_MLNX_EXT_PORT_LINK_SPEED_ENABLED_F, en);
}

/* An 8-port switch with the given VendorID and LinkSpeedExtSupported. */
static struct pzt_node *switch_with(uint32_t vendor, uint8_t speed_ext)
{
    struct board_identity id;
    struct pzt_node *n;

    board_mem_default_switch_identity(&id, 0x0002c90000006000ull, 8);
    id.vendor_id = vendor;
    id.speed_ext_supported = speed_ext;
    n = pzt_node_new(&id);
    assert_non_null(n);
    return n;
}

/* A Mellanox switch: every port answers; external ports support FDR10, enabled by default. */
static void test_mepi_switch_get(void **state)
{
    struct pzt_node *n = switch_with(0x0002c9, 3);
    uint8_t d[PZT_DATA], zero[PZT_DATA] = {0};

    for (unsigned p = 1; p <= 8; p++) {
        au_get_expect(n, ATTR_MEPI, p, ST_OK, d);
        PZT_EXPECT_FIELDS(d, {IB_MLNX_EXT_PORT_STATE_CHG_ENABLE_F, 0},
                          {IB_MLNX_EXT_PORT_LINK_SPEED_SUPPORTED_F, FDR10},
                          {IB_MLNX_EXT_PORT_LINK_SPEED_ENABLED_F, FDR10},
                          {IB_MLNX_EXT_PORT_LINK_SPEED_ACTIVE_F, 0});
        /* Everything else is reserved: zero. */
        mepi_data(zero, 0, 0);
        mad_set_field(zero, 0, IB_MLNX_EXT_PORT_LINK_SPEED_SUPPORTED_F, FDR10);
        mad_set_field(zero, 0, IB_MLNX_EXT_PORT_LINK_SPEED_ENABLED_F, FDR10);
        au_assert_data_equal(d, zero);
    }
    /* Port 0 (management port, no link): answered, nothing supported. */
    au_get_expect(n, ATTR_MEPI, 0, ST_OK, d);
    PZT_EXPECT_FIELDS(d, {IB_MLNX_EXT_PORT_LINK_SPEED_SUPPORTED_F, 0},
                      {IB_MLNX_EXT_PORT_LINK_SPEED_ENABLED_F, 0});
    /* Port 9 of 8, and modifier bits above the port number: 0x1C. */
    au_get_expect(n, ATTR_MEPI, 9, ST_BAD_FIELD, d);
    au_get_expect(n, ATTR_MEPI, 0x100 | 1, ST_BAD_FIELD, d);
    pzt_node_free(n);
}

/* OpenSM's Set (StateChangeEnable 1, LinkSpeedEnabled FDR10 or 0) is applied and read back. */
static void test_mepi_switch_set(void **state)
{
    struct pzt_node *n = switch_with(0x0002c9, 3);
    uint8_t in[PZT_DATA], d[PZT_DATA];

    mepi_data(in, 1, 0);
    au_set_expect(n, ATTR_MEPI, 3, in, ST_OK, d);
    PZT_EXPECT_FIELDS(d, {IB_MLNX_EXT_PORT_STATE_CHG_ENABLE_F, 1},
                      {IB_MLNX_EXT_PORT_LINK_SPEED_ENABLED_F, 0},
                      {IB_MLNX_EXT_PORT_LINK_SPEED_SUPPORTED_F, FDR10});
    au_get_expect(n, ATTR_MEPI, 3, ST_OK, d);
    PZT_EXPECT_FIELDS(d, {IB_MLNX_EXT_PORT_STATE_CHG_ENABLE_F, 1},
                      {IB_MLNX_EXT_PORT_LINK_SPEED_ENABLED_F, 0});
    /* Other ports are untouched. */
    au_get_expect(n, ATTR_MEPI, 4, ST_OK, d);
    PZT_EXPECT_FIELDS(d, {IB_MLNX_EXT_PORT_STATE_CHG_ENABLE_F, 0},
                      {IB_MLNX_EXT_PORT_LINK_SPEED_ENABLED_F, FDR10});
    /* Enable FDR10 again. */
    mepi_data(in, 1, FDR10);
    au_set_expect(n, ATTR_MEPI, 3, in, ST_OK, d);
    assert_int_equal(mepi(d, IB_MLNX_EXT_PORT_LINK_SPEED_ENABLED_F), FDR10);
    /* Read-only fields in a Set are ignored. */
    mepi_data(in, 0, FDR10);
    mad_set_field(in, 0, IB_MLNX_EXT_PORT_LINK_SPEED_SUPPORTED_F, 0);
    mad_set_field(in, 0, IB_MLNX_EXT_PORT_LINK_SPEED_ACTIVE_F, FDR10);
    au_set_expect(n, ATTR_MEPI, 3, in, ST_OK, d);
    PZT_EXPECT_FIELDS(d, {IB_MLNX_EXT_PORT_LINK_SPEED_SUPPORTED_F, FDR10},
                      {IB_MLNX_EXT_PORT_LINK_SPEED_ACTIVE_F, 0},
                      {IB_MLNX_EXT_PORT_STATE_CHG_ENABLE_F, 0});
    pzt_node_free(n);
}

/* A speed that is not supported is refused with 0x1C; the port keeps its values. */
static void test_mepi_set_bad(void **state)
{
    struct pzt_node *n = switch_with(0x0002c9, 3);
    uint8_t in[PZT_DATA], d[PZT_DATA];

    mepi_data(in, 1, 0x02);
    au_set_expect(n, ATTR_MEPI, 2, in, ST_BAD_FIELD, d);
    PZT_EXPECT_FIELDS(d, {IB_MLNX_EXT_PORT_STATE_CHG_ENABLE_F, 0},
                      {IB_MLNX_EXT_PORT_LINK_SPEED_ENABLED_F, FDR10});
    /* Port 0 supports nothing: enabling FDR10 there is refused. */
    mepi_data(in, 1, FDR10);
    au_set_expect(n, ATTR_MEPI, 0, in, ST_BAD_FIELD, d);
    au_set_expect(n, ATTR_MEPI, 9, in, ST_BAD_FIELD, d);
    pzt_node_free(n);
    /* A Mellanox switch without FDR (QDR-only): FDR10 unsupported, Set of it refused. */
    n = switch_with(0x0002c9, 0);
    au_get_expect(n, ATTR_MEPI, 1, ST_OK, d);
    PZT_EXPECT_FIELDS(d, {IB_MLNX_EXT_PORT_LINK_SPEED_SUPPORTED_F, 0},
                      {IB_MLNX_EXT_PORT_LINK_SPEED_ENABLED_F, 0});
    au_set_expect(n, ATTR_MEPI, 1, in, ST_BAD_FIELD, d);
    mepi_data(in, 1, 0);
    au_set_expect(n, ATTR_MEPI, 1, in, ST_OK, d);
    pzt_node_free(n);
}

/* A Mellanox CA: port 0 means the port the SMP arrived on. */
static void test_mepi_ca(void **state)
{
    struct pzt_node *n = pzt_ca_new(2);
    uint8_t in[PZT_DATA], d[PZT_DATA];
    struct pzt_result r;

    assert_int_equal(n->id.vendor_id, 0x0002c9);
    au_get_expect(n, ATTR_MEPI, 1, ST_OK, d);
    assert_int_equal(mepi(d, IB_MLNX_EXT_PORT_LINK_SPEED_SUPPORTED_F),
                     (n->id.speed_ext_supported & 1) ? FDR10 : 0);
    au_get_expect(n, ATTR_MEPI, 3, ST_BAD_FIELD, d);
    mepi_data(in, 1, 0);
    au_set_expect(n, ATTR_MEPI, 2, in, ST_OK, d);
    /* Modifier 0 arriving on port 2 is port 2. */
    au_request(n, 2, 1, IB_MAD_METHOD_GET, ATTR_MEPI, 0, 0, NULL, &r);
    au_check_resp(&r, ST_OK, ATTR_MEPI, 0);
    assert_int_equal(mepi(r.mad + IB_SMP_DATA_OFFS, IB_MLNX_EXT_PORT_STATE_CHG_ENABLE_F), 1);
    au_request(n, 1, 1, IB_MAD_METHOD_GET, ATTR_MEPI, 0, 0, NULL, &r);
    au_check_resp(&r, ST_OK, ATTR_MEPI, 0);
    assert_int_equal(mepi(r.mad + IB_SMP_DATA_OFFS, IB_MLNX_EXT_PORT_STATE_CHG_ENABLE_F), 0);
    pzt_node_free(n);
}

/* Other vendors' nodes do not have the attribute: 0x0C for Get and Set. */
static void test_mepi_other_vendor(void **state)
{
    struct pzt_node *n = switch_with(0x001175, 3); /* not Mellanox */
    uint8_t in[PZT_DATA];
    struct pzt_result r;

    mepi_data(in, 1, FDR10);
    for (unsigned p = 0; p <= 8; p++) {
        au_request(n, 1, 1, IB_MAD_METHOD_GET, ATTR_MEPI, p, 0, NULL, &r);
        au_check_resp(&r, ST_BAD_ATTR, ATTR_MEPI, p);
        au_request(n, 1, 1, IB_MAD_METHOD_SET, ATTR_MEPI, p, 0, in, &r);
        au_check_resp(&r, ST_BAD_ATTR, ATTR_MEPI, p);
    }
    pzt_node_free(n);
}

PZT_MAIN(test_mepi_switch_get, test_mepi_switch_set, test_mepi_set_bad, test_mepi_ca,
         test_mepi_other_vendor)
