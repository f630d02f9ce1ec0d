/*
 * test_sma_smoke.c - the SMA answers the basic sweep SMPs of OpenSM.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <infiniband/mad.h>

#include "pzt.h"
#include "pzt_main.h"
#include "pzt_fields.h"

/* NodeInfo over LID routing, decoded with libibmad. */
static void test_node_info_lid(void **state)
{
    struct pzt_node *n = pzt_switch_new(36);
    uint8_t d[64];

    assert_int_equal(pzt_get_key(n, 7, 0, IB_ATTR_NODE_INFO, 0, d), 0);
    PZT_EXPECT_FIELDS(d, {IB_NODE_TYPE_F, 2}, {IB_NODE_NPORTS_F, 36}, {IB_NODE_LOCAL_PORT_F, 7});
    assert_true(mad_get_field64(d, 0, IB_NODE_GUID_F) == 0x0002c90000001000ull);
    pzt_node_free(n);
}

/* NodeInfo over one directed-route hop: reply leaves through the ingress port. */
static void test_node_info_dr(void **state)
{
    struct pzt_node *n = pzt_switch_new(8);
    uint8_t mad[256], path[64] = {0, 5};
    struct pzt_result r;

    pzt_dr_smp(mad, IB_MAD_METHOD_GET, IB_ATTR_NODE_INFO, 0, 0, 42, 1, 1, path, 0xFFFF, 0xFFFF);
    pzt_process(n, 3, 0xFFFF, mad, &r);
    assert_int_equal(r.verdict, MAD_SEND);
    assert_int_equal(r.status, 0);
    assert_int_equal(r.addr.port, 3);
    assert_false(r.addr.lid_routed);
    assert_int_equal(mad_get_field(r.mad, 0, IB_DRSMP_DIRECTION_F), 1);
    assert_int_equal(mad_get_field(r.mad, 0, IB_DRSMP_HOPPTR_F), 1);
    assert_int_equal(r.mad[192 + 1], 3); /* ReturnPath[1] = ingress port */
    assert_int_equal(mad_get_field(r.mad, 0, IB_MAD_METHOD_F), 0x01);
    assert_int_equal(mad_get_field(r.mad, 0, IB_MAD_RESPONSE_F), 1);
    assert_int_equal(mad_get_field(r.data, 0, IB_NODE_LOCAL_PORT_F), 3);
    assert_true(mad_get_field64(r.mad, 0, IB_MAD_TRID_F) == 42);
    pzt_node_free(n);
}

/* PortInfo of every port, and an unknown attribute gets 0x0C. */
static void test_port_info_and_unknown(void **state)
{
    struct pzt_node *n = pzt_switch_new(8);
    uint8_t d[64];

    pzt_connect_all(n);
    for (unsigned p = 0; p <= 8; p++)
        assert_int_equal(pzt_get(n, IB_ATTR_PORT_INFO, p, d), 0);
    assert_int_equal(mad_get_field(d, 0, IB_PORT_STATE_F), 2);
    assert_int_equal(mad_get_field(d, 0, IB_PORT_PHYS_STATE_F), 5);
    assert_int_equal(pzt_get(n, IB_ATTR_PORT_INFO, 9, d), 0x1C);
    assert_int_equal(pzt_get(n, 0x1234, 0, d), 0x0C);
    assert_int_equal(pzt_get(n, IB_ATTR_SMINFO, 0, d), 0x0C);
    pzt_node_free(n);
}

PZT_MAIN(test_node_info_lid, test_node_info_dr, test_port_info_and_unknown)
