/*
 * test_sma_attrs.c - node-level SMA attributes (NodeInfo, NodeDescription,
 * GUIDInfo), every generic status path (unsupported attributes and methods,
 * bad versions, dropped MADs), the response header and addressing, and the
 * SMA in CA mode.
 */
#include "attr_util.h"
#include "pzt_main.h"
#include "pzt_fields.h"

#define SW_GUID 0x0002c90000001000ull

/* A switch identity whose fields all differ from each other, for NodeInfo checks. */
static struct pzt_node *distinct_switch(void)
{
    struct board_identity id;

    board_mem_default_switch_identity(&id, 0x0011223344556677ull, 24);
    id.system_image_guid = 0x0011223344550000ull;
    id.port_guid[0] = 0x0011223344556678ull;
    id.vendor_id = 0x123456;
    id.device_id = 0xBEEF;
    id.revision = 0xA1B2C3D4;
    id.partition_cap = 64;
    return pzt_node_new(&id);
}

/* NodeInfo: every field, LocalPortNum = ingress port, PortGUID = port 0's. */
static void test_node_info_fields(void **state)
{
    struct pzt_node *n = distinct_switch();
    const unsigned ports[] = {0, 1, 13, 24};
    uint8_t d[PZT_DATA];

    for (size_t i = 0; i < sizeof(ports) / sizeof(ports[0]); i++) {
        assert_int_equal(pzt_get_key(n, ports[i], 0, IB_ATTR_NODE_INFO, 0, d), ST_OK);
        PZT_EXPECT_FIELDS(d, {IB_NODE_BASE_VERS_F, 1}, {IB_NODE_CLASS_VERS_F, 1},
                          {IB_NODE_TYPE_F, IB_NODE_SWITCH}, {IB_NODE_NPORTS_F, 24});
        assert_true(mad_get_field64(d, 0, IB_NODE_SYSTEM_GUID_F) == 0x0011223344550000ull);
        assert_true(mad_get_field64(d, 0, IB_NODE_GUID_F) == 0x0011223344556677ull);
        assert_true(mad_get_field64(d, 0, IB_NODE_PORT_GUID_F) == 0x0011223344556678ull);
        PZT_EXPECT_FIELDS(d, {IB_NODE_PARTITION_CAP_F, 64}, {IB_NODE_DEVID_F, 0xBEEF},
                          {IB_NODE_REVISION_F, 0xA1B2C3D4}, {IB_NODE_LOCAL_PORT_F, ports[i]},
                          {IB_NODE_VENDORID_F, 0x123456});
    }
    /* A changed SystemImageGUID shows up in NodeInfo. */
    assert_int_equal(sma_set_system_image_guid(n->sma, 0x99), 0);
    assert_int_equal(pzt_get(n, IB_ATTR_NODE_INFO, 0, d), ST_OK);
    assert_true(mad_get_field64(d, 0, IB_NODE_SYSTEM_GUID_F) == 0x99);
    pzt_node_free(n);
}

/* NodeInfo: modifier must be 0; Set of the read-only attribute is 0x0C. */
static void test_node_info_bad_mod_and_set(void **state)
{
    struct pzt_node *n = pzt_switch_new(8);
    uint8_t d[PZT_DATA], before[PZT_DATA];
    struct pzt_result r;

    au_get_expect(n, IB_ATTR_NODE_INFO, 1, ST_BAD_FIELD, NULL);
    au_get_expect(n, IB_ATTR_NODE_INFO, 0x80000000u, ST_BAD_FIELD, NULL);
    au_get_expect(n, IB_ATTR_NODE_INFO, 0, ST_OK, before);

    memcpy(d, before, sizeof(d));
    mad_set_field(d, 0, IB_NODE_NPORTS_F, 3);
    mad_set_field64(d, 0, IB_NODE_GUID_F, 0x1234);
    au_request(n, 1, 1, IB_MAD_METHOD_SET, IB_ATTR_NODE_INFO, 0, 0, d, &r);
    au_check_resp(&r, ST_BAD_ATTR, IB_ATTR_NODE_INFO, 0);
    au_get_expect(n, IB_ATTR_NODE_INFO, 0, ST_OK, d);
    assert_memory_equal(d, before, PZT_DATA);
    pzt_node_free(n);
}

/* NodeDescription: Get, Set (CapabilityMask2 bit 0x1 is advertised), bad modifier. */
static void test_node_description(void **state)
{
    struct pzt_node *n = pzt_switch_new(8);
    uint8_t d[PZT_DATA], nd[PZT_DATA], pi[PZT_DATA];

    au_get_expect(n, IB_ATTR_PORT_INFO, 0, ST_OK, pi);
    assert_int_equal(mad_get_field(pi, 0, IB_PORT_CAPMASK2_F) & 0x1, 0x1);

    au_get_expect(n, IB_ATTR_NODE_DESC, 0, ST_OK, d);
    memset(nd, 0, sizeof(nd));
    strcpy((char *)nd, "portzero switch");
    assert_memory_equal(d, nd, PZT_DATA); /* NUL padded to 64 bytes */

    /* A full 64-byte description, no terminating NUL. */
    for (unsigned i = 0; i < PZT_DATA; i++)
        nd[i] = (uint8_t)('A' + i % 26);
    au_set_expect(n, IB_ATTR_NODE_DESC, 0, nd, ST_OK, d);
    assert_memory_equal(d, nd, PZT_DATA);
    au_get_expect(n, IB_ATTR_NODE_DESC, 0, ST_OK, d);
    assert_memory_equal(d, nd, PZT_DATA);
    assert_memory_equal(sma_node_description(n->sma), nd, PZT_DATA);

    /* Shorter again: the rest is replaced too. */
    memset(nd, 0, sizeof(nd));
    strcpy((char *)nd, "leaf-1 portzero");
    au_set_expect(n, IB_ATTR_NODE_DESC, 0, nd, ST_OK, d);
    assert_memory_equal(d, nd, PZT_DATA);

    /* Non-zero modifier: 0x1C, description unchanged. */
    au_get_expect(n, IB_ATTR_NODE_DESC, 1, ST_BAD_FIELD, NULL);
    memset(d, 'x', sizeof(d));
    au_set_expect(n, IB_ATTR_NODE_DESC, 1, d, ST_BAD_FIELD, NULL);
    assert_memory_equal(sma_node_description(n->sma), nd, PZT_DATA);

    /* Without the CapabilityMask2 bit, Set is not supported. */
    assert_int_equal(sma_set_capability_mask(n->sma, 0, mad_get_field(pi, 0, IB_PORT_CAPMASK_F), 0),
                     0);
    au_set_expect(n, IB_ATTR_NODE_DESC, 0, d, ST_BAD_ATTR, NULL);
    assert_memory_equal(sma_node_description(n->sma), nd, PZT_DATA);
    au_get_expect(n, IB_ATTR_PORT_INFO, 0, ST_OK, pi);
    assert_int_equal(mad_get_field(pi, 0, IB_PORT_CAPMASK2_F), 0);
    pzt_node_free(n);
}

/* Read the 8 GUIDs of one GUIDInfo block. */
static void guid_block(const uint8_t *d, uint64_t g[8])
{
    static const enum MAD_FIELDS f[8] = {IB_GI_GUID0_F, IB_GI_GUID1_F, IB_GI_GUID2_F,
                                         IB_GI_GUID3_F, IB_GI_GUID4_F, IB_GI_GUID5_F,
                                         IB_GI_GUID6_F, IB_GI_GUID7_F};

    for (unsigned i = 0; i < 8; i++)
        g[i] = mad_get_field64((void *)d, 0, f[i]);
}

/* GUIDInfo with the default GUIDCap 1: GUID0 = port GUID, read-only; block 1 is 0x1C. */
static void test_guid_info_default(void **state)
{
    struct pzt_node *n = pzt_switch_new(8);
    uint8_t d[PZT_DATA], in[PZT_DATA];
    uint64_t g[8];

    au_get_expect(n, IB_ATTR_PORT_INFO, 0, ST_OK, d);
    assert_int_equal(mad_get_field(d, 0, IB_PORT_GUID_CAP_F), 1);
    au_get_expect(n, IB_ATTR_GUID_INFO, 0, ST_OK, d);
    guid_block(d, g);
    assert_true(g[0] == SW_GUID);
    for (unsigned i = 1; i < 8; i++)
        assert_true(g[i] == 0);
    au_get_expect(n, IB_ATTR_GUID_INFO, 1, ST_BAD_FIELD, NULL);

    memset(in, 0, sizeof(in));
    mad_set_field64(in, 0, IB_GI_GUID0_F, 0x1111);
    mad_set_field64(in, 0, IB_GI_GUID1_F, 0x2222);
    au_set_expect(n, IB_ATTR_GUID_INFO, 0, in, ST_OK, d);
    guid_block(d, g);
    assert_true(g[0] == SW_GUID);
    assert_true(g[1] == 0); /* beyond GUIDCap */
    au_set_expect(n, IB_ATTR_GUID_INFO, 1, in, ST_BAD_FIELD, NULL);
    pzt_node_free(n);
}

/* GUIDInfo with GUIDCap 8: alias GUIDs 1..7 round trip; GUIDCap is capped at what is stored. */
static void test_guid_info_aliases(void **state)
{
    static const enum MAD_FIELDS f[8] = {IB_GI_GUID0_F, IB_GI_GUID1_F, IB_GI_GUID2_F,
                                         IB_GI_GUID3_F, IB_GI_GUID4_F, IB_GI_GUID5_F,
                                         IB_GI_GUID6_F, IB_GI_GUID7_F};
    struct board_identity id;
    struct pzt_node *n;
    uint8_t d[PZT_DATA], in[PZT_DATA];
    uint64_t g[8];

    board_mem_default_switch_identity(&id, SW_GUID, 8);
    id.guid_cap = 8;
    n = pzt_node_new(&id);
    au_get_expect(n, IB_ATTR_PORT_INFO, 0, ST_OK, d);
    assert_int_equal(mad_get_field(d, 0, IB_PORT_GUID_CAP_F), 8);
    memset(in, 0, sizeof(in));
    for (unsigned i = 0; i < 8; i++)
        mad_set_field64(in, 0, f[i], 0x0002c900000A0000ull + i);
    au_set_expect(n, IB_ATTR_GUID_INFO, 0, in, ST_OK, d);
    guid_block(d, g);
    assert_true(g[0] == SW_GUID);
    for (unsigned i = 1; i < 8; i++)
        assert_true(g[i] == 0x0002c900000A0000ull + i);
    au_get_expect(n, IB_ATTR_GUID_INFO, 0, ST_OK, d);
    guid_block(d, g);
    for (unsigned i = 1; i < 8; i++)
        assert_true(g[i] == 0x0002c900000A0000ull + i);
    /* GUIDInfo Get from another ingress port: the same switch-wide table. */
    assert_int_equal(pzt_get_key(n, 5, 0, IB_ATTR_GUID_INFO, 0, d), ST_OK);
    guid_block(d, g);
    assert_true(g[0] == SW_GUID && g[7] == 0x0002c900000A0007ull);
    pzt_node_free(n);

    /* A board with more GUIDs than the SMA stores advertises only those. */
    id.guid_cap = 16;
    n = pzt_node_new(&id);
    au_get_expect(n, IB_ATTR_PORT_INFO, 0, ST_OK, d);
    assert_int_equal(mad_get_field(d, 0, IB_PORT_GUID_CAP_F), 8);
    au_get_expect(n, IB_ATTR_GUID_INFO, 0, ST_OK, NULL);
    au_get_expect(n, IB_ATTR_GUID_INFO, 1, ST_BAD_FIELD, NULL);
    pzt_node_free(n);
}

/* Unsupported attributes: Get and Set answer 0x0C with the header echoed. */
static void test_unsupported_attributes(void **state)
{
    static const unsigned attrs[] = {
        0x0002, /* Notice */
        0x0020, /* SMInfo */
        0x001A, /* RandomForwardingTable */
        0x0030, /* VendorDiag */
        0x0031, /* LedInfo */
        0x0033, /* PortInfoExtended */
        /* MlnxExtPortInfo (0xFF90): answered by Mellanox nodes, test_sma_mlnx.c */
        0x001C, /* LinkSpeedWidthPairsTable */
        0x0000,
        0x1234,
        0xFFFF,
    };
    struct pzt_node *n = pzt_switch_new(8);
    uint8_t data[PZT_DATA];
    struct pzt_result r;

    memset(data, 0xA5, sizeof(data));
    for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
        au_request(n, 1, 1, IB_MAD_METHOD_GET, attrs[i], 3, 0, NULL, &r);
        au_check_resp(&r, ST_BAD_ATTR, attrs[i], 3);
        au_request(n, 1, 1, IB_MAD_METHOD_SET, attrs[i], 0, 0, data, &r);
        au_check_resp(&r, ST_BAD_ATTR, attrs[i], 0);
    }
    pzt_node_free(n);
}

/* Unsupported methods answer 0x08 (GetResp method), whatever the attribute. */
static void test_unsupported_methods(void **state)
{
    static const unsigned methods[] = {
        IB_MAD_METHOD_SEND,
        IB_MAD_METHOD_REPORT,
        IB_MAD_METHOD_GET_TABLE,
        IB_MAD_METHOD_GETMULTI,
        IB_MAD_METHOD_DELETE,
        0x04,
        0x7F,
    };
    struct pzt_node *n = pzt_switch_new(8);
    struct pzt_result r;

    for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
        au_request(n, 1, 1, methods[i], IB_ATTR_NODE_INFO, 0, 0, NULL, &r);
        au_check_resp(&r, ST_BAD_METHOD, IB_ATTR_NODE_INFO, 0);
        au_request(n, 1, 1, methods[i], 0x1234, 0, 0, NULL, &r);
        au_check_resp(&r, ST_BAD_METHOD, 0x1234, 0);
    }
    pzt_node_free(n);
}

/* ClassVersion other than 1 answers 0x04 and changes nothing. */
static void test_bad_class_version(void **state)
{
    struct pzt_node *n = pzt_switch_new(8);
    uint8_t mad[PZT_MAD];
    struct pzt_result r;

    pzt_lid_smp(mad, IB_MAD_METHOD_GET, IB_ATTR_NODE_INFO, 0, 0, 7);
    mad_set_field(mad, 0, IB_MAD_CLASSVER_F, 2);
    pzt_process(n, 1, 1, mad, &r);
    au_check_resp(&r, ST_BAD_VERSION, IB_ATTR_NODE_INFO, 0);

    pzt_lid_smp(mad, IB_MAD_METHOD_SET, IB_ATTR_NODE_DESC, 0, 0, 8);
    mad_set_field(mad, 0, IB_MAD_CLASSVER_F, 0);
    memset(mad + IB_SMP_DATA_OFFS, 'z', PZT_DATA);
    pzt_process(n, 1, 1, mad, &r);
    au_check_resp(&r, ST_BAD_VERSION, IB_ATTR_NODE_DESC, 0);
    assert_string_equal(sma_node_description(n->sma), "portzero switch");
    pzt_node_free(n);
}

/* Feed mad to the SMA and check it is dropped and counted as dropped. */
static void expect_drop(struct pzt_node *n, const uint8_t *mad, size_t len)
{
    struct mad_addr in = {.port = 1, .slid = 1, .lid_routed = true};
    struct mad_addr out_addr;
    uint8_t out[PZT_MAD];
    struct sma_stats st0, st1;

    sma_get_stats(n->sma, &st0);
    assert_int_equal(sma_process(n->sma, &in, mad, len, &out_addr, out), MAD_DROP);
    sma_get_stats(n->sma, &st1);
    assert_true(st1.dropped == st0.dropped + 1);
    assert_true(st1.responses_sent == st0.responses_sent);
}

/* Responses, traps, short MADs, foreign base versions and classes are dropped. */
static void test_dropped_mads(void **state)
{
    struct pzt_node *n = pzt_switch_new(8);
    uint8_t mad[PZT_MAD], path[64] = {0, 1};
    struct pzt_result r;

    /* A GetResp (0x81) to the SMA: nobody asked. */
    pzt_lid_smp(mad, IB_MAD_METHOD_GET, IB_ATTR_NODE_INFO, 0, 0, 1);
    mad_set_field(mad, 0, IB_MAD_RESPONSE_F, 1);
    expect_drop(n, mad, PZT_MAD);

    /* The same as a DR SMP. */
    pzt_dr_smp(mad, IB_MAD_METHOD_GET, IB_ATTR_NODE_INFO, 0, 0, 2, 1, 1, path, 0xFFFF, 0xFFFF);
    mad_set_field(mad, 0, IB_MAD_RESPONSE_F, 1);
    expect_drop(n, mad, PZT_MAD);

    /* A Trap (0x05) is for SMs; a TrapRepress (0x07) is never answered. */
    pzt_lid_smp(mad, IB_MAD_METHOD_TRAP, 0x0002, 0, 0, 3);
    expect_drop(n, mad, PZT_MAD);
    pzt_lid_smp(mad, IB_MAD_METHOD_TRAP_REPRESS, 0x0002, 0, 0, 4);
    pzt_process(n, 1, 1, mad, &r);
    assert_int_equal(r.verdict, MAD_DROP);

    /* Shorter than 256 bytes; the same MAD at full length is answered. */
    pzt_lid_smp(mad, IB_MAD_METHOD_GET, IB_ATTR_NODE_INFO, 0, 0, 5);
    expect_drop(n, mad, PZT_MAD - 1);
    expect_drop(n, mad, 24);
    pzt_process(n, 1, 1, mad, &r);
    au_check_resp(&r, ST_OK, IB_ATTR_NODE_INFO, 0);

    /* BaseVersion other than 1. */
    mad_set_field(mad, 0, IB_MAD_BASEVER_F, 2);
    expect_drop(n, mad, PZT_MAD);
    mad_set_field(mad, 0, IB_MAD_BASEVER_F, 0);
    expect_drop(n, mad, PZT_MAD);

    /* Not a subnet management class (PMA, class 0x04). */
    pzt_lid_smp(mad, IB_MAD_METHOD_GET, IB_ATTR_NODE_INFO, 0, 0, 6);
    mad_set_field(mad, 0, IB_MAD_MGMTCLASS_F, 0x04);
    expect_drop(n, mad, PZT_MAD);
    pzt_node_free(n);
}

/* The response header: GetResp for Get and Set, TID/AttrID/AttrMod echoed, LID addressing. */
static void test_response_header_and_address(void **state)
{
    struct pzt_node *n = pzt_switch_new(8);
    uint8_t mad[PZT_MAD], d[PZT_DATA];
    struct pzt_result r;

    pzt_assign_lid(n, 0x0011, 0x0001, 18);

    /* Get NodeInfo from LID 0x22 through port 5. */
    pzt_lid_smp(mad, IB_MAD_METHOD_GET, IB_ATTR_NODE_INFO, 0, 0, 0x0123456789ABCDEFull);
    pzt_process(n, 5, 0x22, mad, &r);
    au_check_resp(&r, ST_OK, IB_ATTR_NODE_INFO, 0);
    PZT_EXPECT_FIELDS(r.mad, {IB_MAD_BASEVER_F, 1}, {IB_MAD_MGMTCLASS_F, IB_SMI_CLASS},
                      {IB_MAD_CLASSVER_F, 1});
    assert_true(mad_get_field64(r.mad, 0, IB_MAD_TRID_F) == 0x0123456789ABCDEFull);
    assert_true(r.addr.lid_routed);
    assert_int_equal(r.addr.dlid, 0x22);
    assert_int_equal(r.addr.slid, 0x11);
    assert_int_equal(r.addr.port, 0);
    assert_int_equal(mad_get_field(r.data, 0, IB_NODE_LOCAL_PORT_F), 5);

    /* Set P_KeyTable of port 3 from LID 0x33: GetResp, modifier echoed, value after Set. */
    pzt_lid_smp(mad, IB_MAD_METHOD_SET, IB_ATTR_PKEY_TBL, 3u << 16, 0, 0xFEDCBA9876543210ull);
    memset(d, 0, sizeof(d));
    au_put_be16(d, 0, 0xFFFF);
    au_put_be16(d, 1, 0x8123);
    memcpy(mad + IB_SMP_DATA_OFFS, d, PZT_DATA);
    pzt_process(n, 2, 0x33, mad, &r);
    au_check_resp(&r, ST_OK, IB_ATTR_PKEY_TBL, 3u << 16);
    assert_true(mad_get_field64(r.mad, 0, IB_MAD_TRID_F) == 0xFEDCBA9876543210ull);
    assert_int_equal(au_be16(r.data, 1), 0x8123);
    assert_true(r.addr.lid_routed);
    assert_int_equal(r.addr.dlid, 0x33);
    assert_int_equal(r.addr.slid, 0x11);

    /* An error response is addressed the same way. */
    pzt_lid_smp(mad, IB_MAD_METHOD_GET, IB_ATTR_PORT_INFO, 200, 0, 99);
    pzt_process(n, 8, 0x44, mad, &r);
    au_check_resp(&r, ST_BAD_FIELD, IB_ATTR_PORT_INFO, 200);
    assert_true(mad_get_field64(r.mad, 0, IB_MAD_TRID_F) == 99);
    assert_int_equal(r.addr.dlid, 0x44);
    assert_int_equal(r.addr.slid, 0x11);
    pzt_node_free(n);
}

/* A directed-route Set of a read-only attribute: DR status 0x0C with the D bit. */
static void test_dr_status(void **state)
{
    struct pzt_node *n = pzt_switch_new(8);
    uint8_t mad[PZT_MAD], path[64] = {0, 4};
    struct pzt_result r;

    pzt_dr_smp(mad, IB_MAD_METHOD_SET, IB_ATTR_NODE_INFO, 0, 0, 77, 1, 1, path, 0xFFFF, 0xFFFF);
    pzt_process(n, 4, 0xFFFF, mad, &r);
    assert_int_equal(r.verdict, MAD_SEND);
    assert_int_equal(r.status, ST_BAD_ATTR);
    PZT_EXPECT_FIELDS(r.mad, {IB_DRSMP_DIRECTION_F, 1}, {IB_MAD_METHOD_F, IB_MAD_METHOD_GET},
                      {IB_MAD_RESPONSE_F, 1}, {IB_MAD_ATTRID_F, IB_ATTR_NODE_INFO});
    assert_int_equal(r.addr.port, 4);

    pzt_dr_smp(mad, IB_MAD_METHOD_GET, IB_ATTR_PORT_INFO, 9, 0, 78, 1, 1, path, 0xFFFF, 0xFFFF);
    pzt_process(n, 4, 0xFFFF, mad, &r);
    assert_int_equal(r.status, ST_BAD_FIELD);
    assert_int_equal(mad_get_field(r.mad, 0, IB_MAD_ATTRMOD_F), 9);
    pzt_node_free(n);
}

/* CA: NodeInfo type 1, PortGUID and LocalPortNum of the receiving port. */
static void test_ca_node_info(void **state)
{
    struct pzt_node *n = pzt_ca_new(2);
    uint8_t d[PZT_DATA];
    uint64_t g[8];

    for (unsigned p = 1; p <= 2; p++) {
        assert_int_equal(pzt_get_key(n, p, 0, IB_ATTR_NODE_INFO, 0, d), ST_OK);
        assert_int_equal(mad_get_field(d, 0, IB_NODE_TYPE_F), IB_NODE_CA);
        assert_int_equal(mad_get_field(d, 0, IB_NODE_NPORTS_F), 2);
        assert_true(mad_get_field64(d, 0, IB_NODE_GUID_F) == 0x0002c90000002000ull);
        assert_true(mad_get_field64(d, 0, IB_NODE_PORT_GUID_F) == 0x0002c90000002000ull + p);
        assert_int_equal(mad_get_field(d, 0, IB_NODE_LOCAL_PORT_F), p);
        assert_int_equal(mad_get_field(d, 0, IB_NODE_PARTITION_CAP_F), 64);
        assert_int_equal(pzt_get_key(n, p, 0, IB_ATTR_GUID_INFO, 0, d), ST_OK);
        guid_block(d, g);
        assert_true(g[0] == 0x0002c90000002000ull + p);
    }
    pzt_node_free(n);
}

/* CA: PortInfo modifier 0 = receiving port; per-port LIDs; switch attributes are 0x0C. */
static void test_ca_ports_and_lids(void **state)
{
    static const unsigned sw_attrs[] = {IB_ATTR_SWITCH_INFO, IB_ATTR_LINEARFORWTBL,
                                        IB_ATTR_MULTICASTFORWTBL};
    struct pzt_node *n = pzt_ca_new(2);
    uint8_t d[PZT_DATA], pi[PZT_DATA];
    struct pzt_result r;

    pzt_connect_all(n);
    for (size_t i = 0; i < sizeof(sw_attrs) / sizeof(sw_attrs[0]); i++) {
        au_request(n, 1, 1, IB_MAD_METHOD_GET, sw_attrs[i], 0, 0, NULL, &r);
        au_check_resp(&r, ST_BAD_ATTR, sw_attrs[i], 0);
        memset(d, 0, sizeof(d));
        au_request(n, 2, 1, IB_MAD_METHOD_SET, sw_attrs[i], 0, 0, d, &r);
        au_check_resp(&r, ST_BAD_ATTR, sw_attrs[i], 0);
    }

    /* LID 5 on port 1 (modifier 0 through port 1), LID 6 on port 2 (modifier 0 through 2). */
    for (unsigned p = 1; p <= 2; p++) {
        assert_int_equal(pzt_get_key(n, p, 0, IB_ATTR_PORT_INFO, 0, pi), ST_OK);
        assert_int_equal(mad_get_field(pi, 0, IB_PORT_LOCAL_PORT_F), p);
        PZT_SET_FIELDS(pi, {IB_PORT_LID_F, 4 + p}, {IB_PORT_SMLID_F, 0x40 + p},
                       {IB_PORT_STATE_F, 0}, {IB_PORT_PHYS_STATE_F, 0});
        assert_int_equal(pzt_set_key(n, p, 0, IB_ATTR_PORT_INFO, 0, pi, d), ST_OK);
        assert_int_equal(mad_get_field(d, 0, IB_PORT_LID_F), 4 + p);
        assert_int_equal(mad_get_field(d, 0, IB_PORT_LOCAL_PORT_F), p);
    }
    assert_int_equal(sma_lid(n->sma, 1), 5);
    assert_int_equal(sma_lid(n->sma, 2), 6);
    assert_int_equal(sma_master_sm_lid(n->sma, 1), 0x41);
    assert_int_equal(sma_master_sm_lid(n->sma, 2), 0x42);
    assert_int_equal(board_mem_lid(n->bm, 1), 5);
    assert_int_equal(board_mem_lid(n->bm, 2), 6);

    /* Modifier 0 through each port sees that port; an explicit modifier selects it. */
    assert_int_equal(pzt_get_key(n, 1, 0, IB_ATTR_PORT_INFO, 0, d), ST_OK);
    assert_int_equal(mad_get_field(d, 0, IB_PORT_LID_F), 5);
    assert_int_equal(pzt_get_key(n, 2, 0, IB_ATTR_PORT_INFO, 0, d), ST_OK);
    assert_int_equal(mad_get_field(d, 0, IB_PORT_LID_F), 6);
    assert_int_equal(pzt_get_key(n, 1, 0, IB_ATTR_PORT_INFO, 2, d), ST_OK);
    assert_int_equal(mad_get_field(d, 0, IB_PORT_LID_F), 6);
    assert_int_equal(mad_get_field(d, 0, IB_PORT_LOCAL_PORT_F), 1);
    assert_int_equal(pzt_get_key(n, 1, 0, IB_ATTR_PORT_INFO, 3, d), ST_BAD_FIELD);

    /* Every CA port is an end port: CapabilityMask without IsSM, with ClientReregistration. */
    assert_int_equal(pzt_get_key(n, 2, 0, IB_ATTR_PORT_INFO, 0, d), ST_OK);
    assert_int_equal(mad_get_field(d, 0, IB_PORT_CAPMASK_F) & 0x02000002u, 0x02000000u);
    assert_int_equal(mad_get_field(d, 0, IB_PORT_STATE_F), BOARD_PORT_INIT);

    /* Responses leave from the receiving port's LID. */
    au_request(n, 2, 0x77, IB_MAD_METHOD_GET, IB_ATTR_NODE_INFO, 0, 0, NULL, &r);
    au_check_resp(&r, ST_OK, IB_ATTR_NODE_INFO, 0);
    assert_true(r.addr.lid_routed);
    assert_int_equal(r.addr.port, 2);
    assert_int_equal(r.addr.slid, 6);
    assert_int_equal(r.addr.dlid, 0x77);
    au_request(n, 1, 0x78, IB_MAD_METHOD_GET, IB_ATTR_NODE_INFO, 0, 0, NULL, &r);
    assert_int_equal(r.addr.port, 1);
    assert_int_equal(r.addr.slid, 5);
    pzt_node_free(n);
}

/* CA: P_KeyTable of the receiving port (PartitionCap entries), default 0xFFFF. */
static void test_ca_pkeys(void **state)
{
    struct pzt_node *n = pzt_ca_new(2);
    uint8_t d[PZT_DATA], in[PZT_DATA];

    assert_int_equal(pzt_get_key(n, 1, 0, IB_ATTR_PKEY_TBL, 0, d), ST_OK);
    assert_int_equal(au_be16(d, 0), 0xFFFF);
    for (unsigned i = 1; i < 32; i++)
        assert_int_equal(au_be16(d, i), 0);
    assert_int_equal(pzt_get_key(n, 1, 0, IB_ATTR_PKEY_TBL, 1, d), ST_OK);
    assert_int_equal(pzt_get_key(n, 1, 0, IB_ATTR_PKEY_TBL, 2, d), ST_BAD_FIELD);

    memset(in, 0, sizeof(in));
    au_put_be16(in, 0, 0x7FFF);
    au_put_be16(in, 31, 0x8002);
    assert_int_equal(pzt_set_key(n, 2, 0, IB_ATTR_PKEY_TBL, 1, in, d), ST_OK);
    assert_memory_equal(d, in, PZT_DATA);
    assert_int_equal(pzt_get_key(n, 2, 0, IB_ATTR_PKEY_TBL, 1, d), ST_OK);
    assert_memory_equal(d, in, PZT_DATA);
    /* Port 1's block 1 is separate. */
    assert_int_equal(pzt_get_key(n, 1, 0, IB_ATTR_PKEY_TBL, 1, d), ST_OK);
    assert_int_equal(au_be16(d, 0), 0);
    pzt_node_free(n);
}

PZT_MAIN(test_node_info_fields, test_node_info_bad_mod_and_set, test_node_description,
         test_guid_info_default, test_guid_info_aliases, test_unsupported_attributes,
         test_unsupported_methods, test_bad_class_version, test_dropped_mads,
         test_response_header_and_address, test_dr_status, test_ca_node_info,
         test_ca_ports_and_lids, test_ca_pkeys)
