/*
 * pma_test_util.h - helpers shared by the PMA and CC agent tests
 * (test_pma_*.c, test_cc_*.c): an in-memory board with a manual clock, a PMA
 * and a CC agent on it, and requests encoded by libibmad's mad_encode() the
 * way perfquery, OpenSM's perfmgr and ibccquery encode them.  Header-only:
 * every helper is static inline.
 */
#ifndef PZ_TEST_PMA_UTIL_H
#define PZ_TEST_PMA_UTIL_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <infiniband/mad.h>

#include "board_mem.h"
#include "cc_agent.h"
#include "pma.h"

#define PT_MAD 256
#define PT_DATA 192
#define PT_NOANSWER (-1)

/* MAD status values. */
#define ST_OK 0x00
#define ST_BAD_VERSION 0x04
#define ST_BAD_METHOD 0x08
#define ST_BAD_ATTR 0x0C
#define ST_BAD_FIELD 0x1C

/* PortSamplesResultExtended attribute ID (libibmad has no name for it). */
#define PT_ATTR_PSR_EXT 0x1E

/* Where requests come from: LID 0x33, QP 0x77, P_Key 0x8001, SL 5. */
#define PT_REQ_SLID 0x33
#define PT_REQ_DLID 0x0A
#define PT_REQ_QP 0x77
#define PT_REQ_PKEY 0x8001
#define PT_REQ_SL 5

/* A node under test. */
struct pt_node {
    struct board_identity id;
    struct board_mem *bm;
    struct board *board;
    struct pma *pma;
    struct cc_agent *cc;
    uint64_t tid;
    unsigned in_port; /* ingress port of requests (CA: 1..N) */
    uint64_t cc_key;  /* CC_Key put into CC requests */
    /* What the last request produced. */
    int verdict;
    struct mad_addr out_addr;
    uint8_t out[PT_MAD];
};

/* Build a node on *id (manual clock at 1 s). */
static inline struct pt_node *pt_node_new(const struct board_identity *id)
{
    struct pt_node *n = calloc(1, sizeof(*n));

    assert_non_null(n);
    n->id = *id;
    n->bm = board_mem_create(&n->id);
    assert_non_null(n->bm);
    board_mem_use_manual_clock(n->bm, 1000000000ull);
    n->board = board_mem_board(n->bm);
    n->pma = pma_create(n->board);
    assert_non_null(n->pma);
    n->cc = cc_create(n->board);
    assert_non_null(n->cc);
    n->tid = 0x1000;
    n->in_port = id->node_type == BOARD_NODE_CA ? 1 : 0;
    return n;
}

/* A switch with num_ports ports, counter_bits-wide hardware counters. */
static inline struct pt_node *pt_switch_new(unsigned num_ports, unsigned counter_bits, bool esp0)
{
    struct board_identity id;

    board_mem_default_switch_identity(&id, 0x0002c90000001000ull, num_ports);
    id.counter_bits = (uint8_t)counter_bits;
    id.enhanced_port0 = esp0;
    return pt_node_new(&id);
}

/* A CA with num_ports ports. */
static inline struct pt_node *pt_ca_new(unsigned num_ports, unsigned counter_bits)
{
    struct board_identity id;

    board_mem_default_ca_identity(&id, 0x0002c90000002000ull, num_ports);
    id.counter_bits = (uint8_t)counter_bits;
    return pt_node_new(&id);
}

static inline void pt_node_free(struct pt_node *n)
{
    if (!n)
        return;
    cc_destroy(n->cc);
    pma_destroy(n->pma);
    board_mem_destroy(n->bm);
    free(n);
}

/* The hardware counters of a port, to bump. */
static inline struct board_port_counters *pt_hw(struct pt_node *n, unsigned port)
{
    struct board_port_counters *c = board_mem_counters(n->bm, port);

    assert_non_null(c);
    return c;
}

/* Advance one hardware counter by delta, wrapping at counter_bits. */
static inline void pt_add(struct pt_node *n, uint64_t *counter, uint64_t delta)
{
    board_mem_counter_add(n->bm, counter, delta);
}

/* The address a request arrives with. */
static inline struct mad_addr pt_from(const struct pt_node *n)
{
    struct mad_addr a = {
        .port = (uint8_t)n->in_port,
        .lid_routed = true,
        .slid = PT_REQ_SLID,
        .dlid = PT_REQ_DLID,
        .sl = PT_REQ_SL,
        .src_qp = PT_REQ_QP,
        .dst_qp = 1,
        .qkey = IB_DEFAULT_QP1_QKEY,
        .pkey = PT_REQ_PKEY,
    };
    return a;
}

/*
 * Feed an already encoded MAD to the PMA (cc false) or the CC agent.
 * Returns the response status, or PT_NOANSWER.
 */
static inline int pt_feed(struct pt_node *n, bool cc, const uint8_t *mad, size_t len)
{
    struct mad_addr from = pt_from(n);

    memset(n->out, 0xEE, sizeof(n->out));
    if (cc)
        n->verdict = cc_process(n->cc, &from, mad, len, &n->out_addr, n->out) == MAD_SEND;
    else
        n->verdict = pma_process(n->pma, &from, mad, len, &n->out_addr, n->out) == MAD_SEND;
    if (!n->verdict)
        return PT_NOANSWER;
    return (int)mad_get_field(n->out, 0, IB_MAD_STATUS_F);
}

/*
 * Encode a PMA (cc false) or CC request (cc true: CC_Key n->cc_key) as
 * libibmad's *_via() calls do (mad_encode(), data at offset 64) and run it.
 * payload: 192 bytes or NULL; resp receives the 192 response data bytes when
 * not NULL.  An answer must carry the request's TID and, for the PMA, its
 * AttributeID, for CC class version 2.
 */
static inline int pt_request(struct pt_node *n, bool cc, unsigned method, unsigned attr,
                             uint32_t attr_mod, const uint8_t *payload, uint8_t *resp)
{
    uint8_t mad[PT_MAD] = {0}, data[PT_DATA] = {0};
    ib_rpc_cc_t rpc = {0};
    int status;

    if (payload)
        memcpy(data, payload, PT_DATA);
    rpc.mgtclass = cc ? IB_CC_CLASS : IB_PERFORMANCE_CLASS;
    rpc.method = (int)method;
    rpc.attr.id = attr;
    rpc.attr.mod = attr_mod;
    rpc.dataoffs = IB_PC_DATA_OFFS; /* = IB_CC_DATA_OFFS */
    rpc.datasz = PT_DATA;           /* = IB_PC_DATA_SZ = IB_CC_DATA_SZ */
    rpc.trid = n->tid++;
    rpc.cckey = cc ? n->cc_key : 0;
    assert_non_null(mad_encode(mad, (ib_rpc_t *)&rpc, NULL, data));
    status = pt_feed(n, cc, mad, sizeof(mad));
    if (status != PT_NOANSWER) {
        assert_int_equal(mad_get_field64(n->out, 0, IB_MAD_TRID_F), rpc.trid);
        if (cc)
            assert_int_equal(mad_get_field(n->out, 0, IB_MAD_CLASSVER_F), 2);
        else
            assert_int_equal(mad_get_field(n->out, 0, IB_MAD_ATTRID_F), attr);
        if (resp)
            memcpy(resp, n->out + IB_PC_DATA_OFFS, PT_DATA);
    }
    return status;
}

/*
 * The PMA and the CC class through pt_request; pt_pma and pt_cc with
 * AttrMod 0.
 */
#define pt_pma_mod(n, method, attr, mod, payload, resp)                                            \
    pt_request((n), false, (method), (attr), (mod), (payload), (resp))
#define pt_pma(n, method, attr, payload, resp) pt_pma_mod(n, method, attr, 0, payload, resp)
#define pt_cc_mod(n, method, attr, mod, payload, resp)                                             \
    pt_request((n), true, (method), (attr), (mod), (payload), (resp))
#define pt_cc(n, method, attr, payload, resp) pt_cc_mod(n, method, attr, 0, payload, resp)

/* Get attr with PortSelect = port (pma_query_via). */
static inline int pt_query(struct pt_node *n, unsigned attr, unsigned port, uint8_t *resp)
{
    uint8_t data[PT_DATA] = {0};

    mad_set_field(data, 0, IB_PC_PORT_SELECT_F, port);
    return pt_pma(n, IB_MAD_METHOD_GET, attr, data, resp);
}

/*
 * Reset attr on port with mask as performance_reset_via() encodes it:
 * CounterSelect = mask, CounterSelect2 (PortCountersExtended: the 32-bit one)
 * = mask >> 16, a zero mask meaning all bits.
 */
static inline int pt_reset(struct pt_node *n, unsigned attr, unsigned port, unsigned mask,
                           uint8_t *resp)
{
    uint8_t data[PT_DATA] = {0};

    if (!mask)
        mask = ~0u;
    mad_set_field(data, 0, IB_PC_PORT_SELECT_F, port);
    mad_set_field(data, 0, IB_PC_COUNTER_SELECT_F, mask);
    if (attr == IB_GSI_PORT_COUNTERS_EXT)
        mad_set_field(data, 0, IB_PC_EXT_COUNTER_SELECT2_F, mask >> 16);
    else
        mad_set_field(data, 0, IB_PC_COUNTER_SELECT2_F, mask >> 16);
    return pt_pma(n, IB_MAD_METHOD_SET, attr, data, resp);
}

/* A field of response data (libibmad). */
static inline uint32_t pt_f(const uint8_t *data, enum MAD_FIELDS f)
{
    return mad_get_field((void *)data, 0, f);
}

static inline uint64_t pt_f64(const uint8_t *data, enum MAD_FIELDS f)
{
    return mad_get_field64((void *)data, 0, f);
}

/*
 * PortCounters.QP1Dropped, data bytes 20-21.  Read by hand: libibmad 44's
 * IB_PC_QP1_DROP_F points at bytes 22-23 (VL15Dropped).
 */
static inline unsigned pt_qp1_dropped(const uint8_t *data)
{
    return (unsigned)data[20] << 8 | data[21];
}

/* Check the response header and addressing of the last answered request. */
static inline void pt_check_reply(const struct pt_node *n, unsigned mgmt_class)
{
    assert_true(n->verdict);
    assert_int_equal(mad_get_field((void *)n->out, 0, IB_MAD_METHOD_F), IB_MAD_METHOD_GET);
    assert_int_equal(mad_get_field((void *)n->out, 0, IB_MAD_RESPONSE_F), 1);
    assert_int_equal(mad_get_field((void *)n->out, 0, IB_MAD_MGMTCLASS_F), mgmt_class);
    assert_true(n->out_addr.lid_routed);
    assert_int_equal(n->out_addr.dlid, PT_REQ_SLID);
    assert_int_equal(n->out_addr.slid, PT_REQ_DLID);
    assert_int_equal(n->out_addr.dst_qp, PT_REQ_QP);
    assert_int_equal(n->out_addr.src_qp, 1);
    assert_int_equal(n->out_addr.qkey, IB_DEFAULT_QP1_QKEY);
    assert_int_equal(n->out_addr.pkey, PT_REQ_PKEY);
    assert_int_equal(n->out_addr.sl, PT_REQ_SL);
}

#endif /* PZ_TEST_PMA_UTIL_H */
