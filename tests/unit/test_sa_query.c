/*
 * test_sa_query.c - SubnAdm requests and answers (mad/sa_query.c) and their
 * way into the route check (traffic/route_sa.c).  Answers are written byte
 * by byte at the IBA offsets (MAD header 13.4.2, RMPP header 13.6.2.1, SA
 * header 15.2.1.1, records 15.2.5), so libibmad's fields are checked against
 * the specification, not against themselves.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mad.h"
#include "route_check.h"
#include "route_sa.h"
#include "sa_query.h"
#include "pzt_main.h"

#define RMPP_ACTIVE 0x1
#define RMPP_FIRST 0x2
#define RMPP_LAST 0x4

/* An answer header: GetTableResp of attr, TID, status, stride (bytes), RMPP flags, PayloadLength.
 */
static void answer_header(uint8_t *b, uint16_t attr, uint16_t status, size_t stride,
                          uint8_t rmpp_flags, uint32_t paylen)
{
    memset(b, 0, SA_HEADER_LEN);
    b[0] = 1;    /* BaseVersion */
    b[1] = 3;    /* MgmtClass SA */
    b[2] = 2;    /* ClassVersion */
    b[3] = 0x92; /* GetTableResp */
    be16_put(b + 4, status);
    be64_put(b + 8, 0x1122334455667788ull);
    be16_put(b + 16, attr);
    b[24] = rmpp_flags ? 1 : 0;
    b[25] = rmpp_flags ? 1 : 0; /* DATA */
    b[26] = rmpp_flags;
    be32_put(b + 28, rmpp_flags ? 1 : 0);
    be32_put(b + 32, paylen);
    be16_put(b + 44, (uint16_t)(stride / 8));
}

/* A NodeRecord at rec (IBA offsets: LID 0, NodeInfo 4, NodeDescription 44). */
static void node_record(uint8_t *rec, uint16_t lid, uint8_t type, uint8_t nports, uint64_t guid,
                        uint8_t local_port, const char *desc)
{
    memset(rec, 0, 112);
    be16_put(rec, lid);
    rec[4] = 1;                           /* BaseVersion */
    rec[5] = 1;                           /* ClassVersion */
    rec[6] = type;                        /* NodeType */
    rec[7] = nports;                      /* NumPorts */
    be64_put(rec + 8, guid | 0xff);       /* SystemImageGUID */
    be64_put(rec + 16, guid);             /* NodeGUID */
    be64_put(rec + 24, guid + 1);         /* PortGUID */
    rec[40] = local_port;                 /* LocalPortNum */
    memcpy(rec + 44, desc, strlen(desc)); /* NodeDescription */
}

static void test_build(void **state)
{
    uint8_t b[IB_MAD_SIZE];

    assert_int_equal(sa_query_build_all(b, IB_SA_ATTR_LINKRECORD, 0xabcdef01ull), IB_MAD_SIZE);
    assert_int_equal(b[0], 1);
    assert_int_equal(b[1], IB_SA_CLASS);
    assert_int_equal(b[2], 2);
    assert_int_equal(b[3], IB_MAD_METHOD_GET_TABLE);
    assert_int_equal(be64_get(b + 8), 0xabcdef01ull);
    assert_int_equal(be16_get(b + 16), IB_SA_ATTR_LINKRECORD);
    assert_int_equal(be64_get(b + 48), 0); /* ComponentMask */
    for (size_t i = SA_HEADER_LEN; i < IB_MAD_SIZE; i++)
        assert_int_equal(b[i], 0);

    assert_int_equal(sa_query_build_by_lid(b, IB_SA_ATTR_LFTRECORD, 7, 0x1234), IB_MAD_SIZE);
    assert_int_equal(be16_get(b + 16), IB_SA_ATTR_LFTRECORD);
    assert_int_equal(be64_get(b + 48), SA_COMP_LID);
    assert_int_equal(be16_get(b + SA_HEADER_LEN), 0x1234);

    assert_int_equal(sa_query_build(b, IB_MAD_METHOD_GET, 0x11, 1, 0, b, IB_SA_DATA_SIZE + 1), 0);
}

static void test_node_records_reassembled(void **state)
{
    /* three NodeRecords in a reassembled RMPP answer, plus 8 bytes of padding */
    size_t len = SA_HEADER_LEN + 3 * 112 + 8;
    uint8_t *b = calloc(1, len);
    struct sa_answer a;
    struct sa_node_record n;
    const char *why = NULL;

    answer_header(b, IB_SA_ATTR_NODERECORD, 0, 112, RMPP_ACTIVE | RMPP_FIRST, 20 + 3 * 112);
    node_record(b + SA_HEADER_LEN, 5, IB_NODE_SWITCH, 36, 0x0002c90300001000ull, 0, "spine-1");
    node_record(b + SA_HEADER_LEN + 112, 9, IB_NODE_CA, 1, 0x0002c90300002000ull, 1, "host-1-1");
    node_record(b + SA_HEADER_LEN + 224, 12, IB_NODE_SWITCH, 8, 0x77, 0, "leaf\x01x");
    assert_int_equal(sa_answer_parse(b, len, &a, &why), 0);
    assert_int_equal(a.method, IB_MAD_METHOD_GET_TABLE_RESPONSE);
    assert_int_equal(a.attr_id, IB_SA_ATTR_NODERECORD);
    assert_int_equal(a.tid, 0x1122334455667788ull);
    assert_int_equal(a.stride, 112);
    assert_int_equal(a.count, 3); /* PayloadLength cuts the padding */
    assert_false(a.truncated);
    assert_int_equal(sa_node_record_decode(sa_answer_record(&a, 0), a.stride, &n), 0);
    assert_int_equal(n.lid, 5);
    assert_int_equal(n.node_type, IB_NODE_SWITCH);
    assert_int_equal(n.nports, 36);
    assert_int_equal(n.node_guid, 0x0002c90300001000ull);
    assert_int_equal(n.port_guid, 0x0002c90300001001ull);
    assert_int_equal(n.system_guid, 0x0002c903000010ffull);
    assert_string_equal(n.desc, "spine-1");
    assert_int_equal(sa_node_record_decode(sa_answer_record(&a, 1), a.stride, &n), 0);
    assert_int_equal(n.node_type, IB_NODE_CA);
    assert_int_equal(n.local_port, 1);
    assert_int_equal(sa_node_record_decode(sa_answer_record(&a, 2), a.stride, &n), 0);
    assert_string_equal(n.desc, "leaf?x"); /* control bytes made printable */
    assert_null(sa_answer_record(&a, 3));
    assert_int_equal(sa_node_record_decode(b, 100, &n), -1);
    free(b);
}

static void test_rmpp_segments(void **state)
{
    uint8_t b[IB_MAD_SIZE] = {0};
    struct sa_answer a;

    /* a lone first segment of several: truncated */
    answer_header(b, IB_SA_ATTR_LINKRECORD, 0, 8, RMPP_ACTIVE | RMPP_FIRST, 20 + 800);
    assert_int_equal(sa_answer_parse(b, sizeof(b), &a, NULL), 0);
    assert_true(a.truncated);
    /* a single segment (first and last): PayloadLength says 3 records */
    answer_header(b, IB_SA_ATTR_LINKRECORD, 0, 8, RMPP_ACTIVE | RMPP_FIRST | RMPP_LAST, 20 + 24);
    assert_int_equal(sa_answer_parse(b, sizeof(b), &a, NULL), 0);
    assert_false(a.truncated);
    assert_int_equal(a.count, 3);
    /* no RMPP: all 200 data bytes are records */
    answer_header(b, IB_SA_ATTR_LINKRECORD, 0, 8, 0, 0);
    assert_int_equal(sa_answer_parse(b, sizeof(b), &a, NULL), 0);
    assert_int_equal(a.count, 25);
    /* a Get's answer is one record */
    b[3] = 0x81;
    assert_int_equal(sa_answer_parse(b, sizeof(b), &a, NULL), 0);
    assert_int_equal(a.count, 1);
}

static void test_link_lft_switchinfo(void **state)
{
    uint8_t rec[72] = {0};
    struct sa_link_record l;
    struct sa_lft_record t;
    struct sa_switch_info_record si;

    be16_put(rec, 0x0102);
    rec[2] = 17;
    rec[3] = 33;
    be16_put(rec + 4, 0x0304);
    assert_int_equal(sa_link_record_decode(rec, 8, &l), 0);
    assert_int_equal(l.from_lid, 0x0102);
    assert_int_equal(l.from_port, 17);
    assert_int_equal(l.to_port, 33);
    assert_int_equal(l.to_lid, 0x0304);
    assert_int_equal(sa_link_record_decode(rec, 4, &l), -1);

    be16_put(rec + 2, 3); /* block 3 */
    for (int i = 0; i < 64; i++)
        rec[8 + i] = (uint8_t)(i + 1);
    assert_int_equal(sa_lft_record_decode(rec, 72, &t), 0);
    assert_int_equal(t.lid, 0x0102);
    assert_int_equal(t.block, 3);
    assert_int_equal(t.port[0], 1);
    assert_int_equal(t.port[63], 64);
    assert_int_equal(sa_lft_record_decode(rec, 64, &t), -1);

    memset(rec, 0, sizeof(rec));
    be16_put(rec, 9);
    be16_put(rec + 4, 49152); /* LinearFDBCap */
    be16_put(rec + 10, 700);  /* LinearFDBTop */
    rec[15] = 0x12 << 3;      /* LifeTimeValue (5 bits) */
    rec[20] = 0x08;           /* EnhancedPort0 (bit 3 of byte 16 of SwitchInfo) */
    assert_int_equal(sa_switch_info_record_decode(rec, 24, &si), 0);
    assert_int_equal(si.lid, 9);
    assert_int_equal(si.linear_fdb_cap, 49152);
    assert_int_equal(si.linear_fdb_top, 700);
    assert_int_equal(si.lifetime, 0x12);
    assert_true(si.enhanced_port0);
    assert_int_equal(sa_switch_info_record_decode(rec, 16, &si), -1);
}

static void test_bad_answers(void **state)
{
    uint8_t b[IB_MAD_SIZE];
    struct sa_answer a;
    const char *why = NULL;

    answer_header(b, IB_SA_ATTR_NODERECORD, 0, 112, 0, 0);
    memset(b + SA_HEADER_LEN, 0, IB_MAD_SIZE - SA_HEADER_LEN);
    assert_int_equal(sa_answer_parse(b, 40, &a, &why), -1);
    assert_non_null(why);
    b[1] = 0x81;
    assert_int_equal(sa_answer_parse(b, sizeof(b), &a, &why), -1);
    b[1] = 3;
    b[3] = 0x12; /* a request */
    assert_int_equal(sa_answer_parse(b, sizeof(b), &a, &why), -1);
    b[3] = 0x92;
    /* stride 0 and zero data: an empty table; non-zero data: an error */
    be16_put(b + 44, 0);
    assert_int_equal(sa_answer_parse(b, sizeof(b), &a, &why), 0);
    assert_int_equal(a.count, 0);
    b[100] = 1;
    assert_int_equal(sa_answer_parse(b, sizeof(b), &a, &why), -1);
    /* an error status: no records, the name */
    be16_put(b + 4, SA_STATUS_NO_RECORDS << 8);
    assert_int_equal(sa_answer_parse(b, sizeof(b), &a, &why), 0);
    assert_int_equal(a.count, 0);
    assert_int_equal(sa_status_code(a.status), SA_STATUS_NO_RECORDS);
    assert_string_equal(sa_status_name(a.status), "no records");
    assert_string_equal(sa_status_name(0x0c), "MAD status error");
}

static void test_into_route_check(void **state)
{
    size_t len = SA_HEADER_LEN + 2 * 112;
    uint8_t *b = calloc(1, len), lb[SA_HEADER_LEN + 72] = {0};
    struct sa_answer a;
    struct rc_fabric *f = rc_fabric_new();
    const char *why = NULL;
    bool is_switch = false;

    answer_header(b, IB_SA_ATTR_NODERECORD, 0, 112, 0, 0);
    node_record(b + SA_HEADER_LEN, 5, IB_NODE_SWITCH, 36, 0x1000, 0, "spine-1");
    node_record(b + SA_HEADER_LEN + 112, 9, IB_NODE_CA, 1, 0x2000, 1, "host-1-1");
    assert_int_equal(sa_answer_parse(b, len, &a, NULL), 0);
    assert_int_equal(rc_fabric_add_sa_answer(f, &a, &why), 2);
    assert_string_equal(rc_fabric_lid_name(f, 5, &is_switch), "spine-1");
    assert_true(is_switch);
    assert_string_equal(rc_fabric_lid_name(f, 9, &is_switch), "host-1-1");
    assert_false(is_switch);

    answer_header(lb, IB_SA_ATTR_LFTRECORD, 0, 72, 0, 0);
    be16_put(lb + SA_HEADER_LEN, 5);
    assert_int_equal(sa_answer_parse(lb, sizeof(lb), &a, NULL), 0);
    assert_int_equal(rc_fabric_add_sa_answer(f, &a, &why), 1);
    assert_int_equal(rc_fabric_lft_blocks(f), 1);

    /* refused: truncated, an error status, another attribute */
    answer_header(lb, IB_SA_ATTR_LFTRECORD, 0, 72, RMPP_ACTIVE | RMPP_FIRST, 2000);
    assert_int_equal(sa_answer_parse(lb, sizeof(lb), &a, NULL), 0);
    assert_int_equal(rc_fabric_add_sa_answer(f, &a, &why), -1);
    assert_non_null(strstr(why, "RMPP"));
    answer_header(lb, IB_SA_ATTR_LFTRECORD, SA_STATUS_REQ_INVALID << 8, 72, 0, 0);
    assert_int_equal(sa_answer_parse(lb, sizeof(lb), &a, NULL), 0);
    assert_int_equal(rc_fabric_add_sa_answer(f, &a, &why), -1);
    assert_string_equal(why, "request invalid");
    answer_header(lb, IB_SA_ATTR_LFTRECORD, SA_STATUS_NO_RECORDS << 8, 72, 0, 0);
    assert_int_equal(sa_answer_parse(lb, sizeof(lb), &a, NULL), 0);
    assert_int_equal(rc_fabric_add_sa_answer(f, &a, &why), 0);
    answer_header(lb, IB_SA_ATTR_PATHRECORD, 0, 64, 0, 0);
    assert_int_equal(sa_answer_parse(lb, sizeof(lb), &a, NULL), 0);
    assert_int_equal(rc_fabric_add_sa_answer(f, &a, &why), -1);
    /* a stride too short for the attribute */
    answer_header(lb, IB_SA_ATTR_LFTRECORD, 0, 64, 0, 0);
    assert_int_equal(sa_answer_parse(lb, sizeof(lb), &a, NULL), 0);
    assert_int_equal(rc_fabric_add_sa_answer(f, &a, &why), -1);
    rc_fabric_free(f);
    free(b);
}

/* A PortInfoRecord at rec (IBA offsets: EndportLID 0, PortNum 2, PortInfo 4, in which
 * LID at 16, PortState the low nibble of 32, LMC the low 3 bits of 34; IBA 14.2.5.6). */
static void port_info_record(uint8_t *rec, uint16_t lid, uint8_t port, uint8_t lmc)
{
    memset(rec, 0, 72);
    be16_put(rec, lid);
    rec[2] = port;
    be16_put(rec + 4 + 16, lid);
    rec[4 + 32] = 0x20 | 4;   /* LinkSpeedSupported, PortState Active */
    rec[4 + 33] = 0x52;       /* PortPhysicalState, LinkDownDefaultState */
    rec[4 + 34] = 0xf8 | lmc; /* MKeyProtectBits and reserved bits set: LMC is the low 3 */
    rec[4 + 35] = 0xff;       /* LinkSpeedActive, LinkSpeedEnabled */
}

static void test_port_info_record(void **state)
{
    uint8_t rec[72];
    struct sa_port_info_record p;

    port_info_record(rec, 0x1234, 1, 2);
    assert_int_equal(sa_port_info_record_decode(rec, 72, &p), 0);
    assert_int_equal(p.lid, 0x1234);
    assert_int_equal(p.port, 1);
    assert_int_equal(p.base_lid, 0x1234);
    assert_int_equal(p.lmc, 2);
    assert_int_equal(p.state, 4);
    port_info_record(rec, 7, 0, 7);
    assert_int_equal(sa_port_info_record_decode(rec, SA_PORT_INFO_RECORD_LEN, &p), 0);
    assert_int_equal(p.lmc, 7);
    assert_int_equal(p.port, 0);
    assert_int_equal(sa_port_info_record_decode(rec, SA_PORT_INFO_RECORD_LEN - 1, &p), -1);
}

/* PortInfoRecords into the route check: CA and switch port 0 LMCs, the rest ignored,
 * and the fallback to LMC 0 when the SA has none. */
static void test_port_info_into_route_check(void **state)
{
    size_t nlen = SA_HEADER_LEN + 2 * 112, plen = SA_HEADER_LEN + 5 * 72;
    uint8_t *nb = calloc(1, nlen), *pb = calloc(1, plen);
    struct sa_answer a;
    struct rc_fabric *f = rc_fabric_new();
    const char *why = NULL;

    answer_header(nb, IB_SA_ATTR_NODERECORD, 0, 112, 0, 0);
    node_record(nb + SA_HEADER_LEN, 5, IB_NODE_SWITCH, 36, 0x1000, 0, "spine-1");
    node_record(nb + SA_HEADER_LEN + 112, 16, IB_NODE_CA, 1, 0x2000, 1, "host-1-1");
    assert_int_equal(sa_answer_parse(nb, nlen, &a, NULL), 0);
    assert_int_equal(rc_fabric_add_sa_answer(f, &a, &why), 2);

    /* none: an SA without PortInfoRecords, an error status, an empty table */
    answer_header(pb, IB_SA_ATTR_PORTINFORECORD, SA_STATUS_NO_RECORDS << 8, 72, 0, 0);
    assert_int_equal(sa_answer_parse(pb, SA_HEADER_LEN, &a, NULL), 0);
    assert_int_equal(rc_fabric_add_sa_answer(f, &a, &why), 0);
    assert_false(rc_fabric_lmc_known(f, &why));
    assert_string_equal(why, "the SA has no PortInfoRecords");
    answer_header(pb, IB_SA_ATTR_PORTINFORECORD, 0x000c, 72, 0, 0); /* unsupported attribute */
    assert_int_equal(sa_answer_parse(pb, SA_HEADER_LEN, &a, NULL), 0);
    assert_int_equal(rc_fabric_add_sa_answer(f, &a, &why), 0);
    assert_false(rc_fabric_lmc_known(f, &why));
    assert_string_equal(why, "PortInfoRecords refused: MAD status error");
    answer_header(pb, IB_SA_ATTR_PORTINFORECORD, 0, 72, 0, 0);
    assert_int_equal(sa_answer_parse(pb, SA_HEADER_LEN, &a, NULL), 0);
    assert_int_equal(rc_fabric_add_sa_answer(f, &a, &why), 0);
    assert_false(rc_fabric_lmc_known(f, NULL));

    /* the CA's LMC 2 and the switch's port-0 LMC 1 taken; the switch's port 3 (its
     * record carries the switch's LID; LMC 3 would fit: 5 .. 12 are free) and a LID
     * nobody owns ignored */
    answer_header(pb, IB_SA_ATTR_PORTINFORECORD, 0, 72, 0, 0);
    port_info_record(pb + SA_HEADER_LEN, 5, 0, 1);
    port_info_record(pb + SA_HEADER_LEN + 72, 5, 3, 3);
    port_info_record(pb + SA_HEADER_LEN + 144, 16, 1, 2);
    port_info_record(pb + SA_HEADER_LEN + 216, 40, 1, 1);
    port_info_record(pb + SA_HEADER_LEN + 288, 0, 1, 1); /* a port without a LID */
    assert_int_equal(sa_answer_parse(pb, plen, &a, NULL), 0);
    assert_int_equal(a.count, 5);
    assert_int_equal(rc_fabric_add_sa_answer(f, &a, &why), 5);
    assert_true(rc_fabric_lmc_known(f, NULL));
    assert_string_equal(rc_fabric_lid_name(f, 6, NULL), "spine-1");
    assert_null(rc_fabric_lid_name(f, 7, NULL)); /* not 3 from port 3's record */
    assert_string_equal(rc_fabric_lid_name(f, 19, NULL), "host-1-1");
    assert_null(rc_fabric_lid_name(f, 20, NULL));
    assert_null(rc_fabric_lid_name(f, 41, NULL));

    /* a stride too short for a PortInfoRecord: an error */
    answer_header(pb, IB_SA_ATTR_PORTINFORECORD, 0, 64, 0, 0);
    assert_int_equal(sa_answer_parse(pb, SA_HEADER_LEN + 64, &a, NULL), 0);
    assert_int_equal(rc_fabric_add_sa_answer(f, &a, &why), -1);
    rc_fabric_free(f);
    free(nb);
    free(pb);
}

/* A ServiceRecord Set carries every field where IBA 15.2.5.14 puts it, and decodes back. */
static void test_service_record(void **state)
{
    struct sa_service_record r = {.id = 0x1122334455667788ull, .pkey = 0xFFFF, .lease = 300}, back;
    uint8_t mad[IB_MAD_SIZE];
    size_t i;

    for (i = 0; i < 16; i++)
        r.gid[i] = (uint8_t)(0xA0 + i);
    snprintf(r.name, sizeof(r.name), "portzero-echo");
    r.data32[0] = 0x000123;
    r.data32[1] = 0x505A0001;
    assert_int_equal(sa_service_build(mad, IB_MAD_METHOD_SET, 0x42, &r,
                                      SA_SR_COMP_ID | SA_SR_COMP_GID | SA_SR_COMP_DATA32(1)),
                     IB_MAD_SIZE);
    assert_int_equal(mad[3], IB_MAD_METHOD_SET);
    assert_int_equal(be16_get(mad + 16), IB_SA_ATTR_SERVICERECORD);
    assert_int_equal(be64_get(mad + 48), SA_SR_COMP_ID | SA_SR_COMP_GID | (1ull << 32));
    /* Record bytes: ID at 0, GID at 8, P_Key at 24, lease at 28, name at 48, Data32 at 144. */
    assert_int_equal(be64_get(mad + 56), r.id);
    assert_int_equal(mad[56 + 8], 0xA0);
    assert_int_equal(be16_get(mad + 56 + 24), 0xFFFF);
    assert_int_equal(be32_get(mad + 56 + 28), 300);
    assert_memory_equal(mad + 56 + 48, "portzero-echo", 13);
    assert_int_equal(be32_get(mad + 56 + 144), 0x123);
    assert_int_equal(be32_get(mad + 56 + 148), 0x505A0001);
    assert_int_equal(sa_service_record_decode(mad + 56, SA_SERVICE_RECORD_LEN, &back), 0);
    assert_int_equal(back.id, r.id);
    assert_memory_equal(back.gid, r.gid, 16);
    assert_int_equal(back.lease, 300);
    assert_string_equal(back.name, "portzero-echo");
    assert_int_equal(back.data32[0], 0x123);
    assert_int_equal(back.data32[1], 0x505A0001);
    assert_int_equal(sa_service_record_decode(mad + 56, SA_SERVICE_RECORD_LEN - 1, &back), -1);
}

PZT_MAIN(test_build, test_node_records_reassembled, test_rmpp_segments, test_link_lft_switchinfo,
         test_bad_answers, test_into_route_check, test_service_record, test_port_info_record,
         test_port_info_into_route_check)
