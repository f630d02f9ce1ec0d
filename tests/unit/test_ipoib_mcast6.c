/*
 * test_ipoib_mcast6.c - the IPv6 multicast groups of the IPoIB endpoint
 * (ipoib/ipoib_mcast6.c): the join and leave MADs decoded with libibmad
 * (the create mask OpenSM asks of a first joiner, the broadcast group's
 * values, the selectors), an answer read back by the endpoint's join
 * parser, and the table: references, send-only entries and their eviction,
 * the reset of a rejoin and matching by TID (the resends are mad_txn's).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <arpa/inet.h>
#include <cmocka.h>
#include <infiniband/mad.h>

#include "ipoib_ip6.h"
#include "ipoib_mcast6.h"
#include "ipoib_sa.h"
#include "pzt_fields.h"
#include "pzt_main.h"

#define PREFIX 0xfe80000000000000ull
#define NO_DEADLINE UINT64_MAX

/* The 16 bytes of an address written as text. */
static void addr_of(const char *text, uint8_t out[16])
{
    assert_int_equal(inet_pton(AF_INET6, text, out), 1);
}

/* A broadcast group as OpenSM answers for `Default=0x7fff,ipoib,rate=3,mtu=4`. */
static const struct ipoib_group bcast = {
    .qkey = 0x0b1b,
    .mlid = 0xc000,
    .mtu = 4,
    .rate = 3,
    .sl = 2,
    .tclass = 0x10,
    .flow_label = 0x12345,
    .hop_limit = 7,
    .pkey = 0xffff,
    .join_state = 1,
};

/* ---- MADs ------------------------------------------------------------------ */

/* A create-capable join: the mask, the broadcast group's values, selectors "exactly". */
static void test_join_mad(void **state)
{
    uint8_t mad[IPOIB_SA_MAD_LEN], group[16], mgid[16], pgid[16], got[16];
    const uint8_t *rec = mad + IB_SA_DATA_OFFS;

    addr_of("ff02::1:ff00:1234", group);
    ipoib_ip6_mcast_mgid(0xffff, 2, group, mgid);
    ipoib_gid_make(PREFIX, 0x1234, pgid);
    memset(mad, 0xee, sizeof(mad));
    ipoib_mcast6_build_join(mad, 0x2a000005ull, mgid, pgid, &bcast, 0xffff, IPOIB_JOIN_FULL);
    PZT_EXPECT_FIELDS(mad, {IB_MAD_BASEVER_F, 1}, {IB_MAD_MGMTCLASS_F, IB_SA_CLASS},
                      {IB_MAD_CLASSVER_F, 2}, {IB_MAD_METHOD_F, IB_MAD_METHOD_SET},
                      {IB_MAD_ATTRID_F, IB_SA_ATTR_MCRECORD});
    assert_true(mad_get_field64(mad, 0, IB_MAD_TRID_F) == 0x2a000005ull);
    /* MGID PortGID QKey MTUSel MTU TClass PKey RateSel Rate SL Flow HopLimit JoinState */
    assert_true(mad_get_field64(mad, 0, IB_SA_COMPMASK_F) ==
                (1u << 0 | 1u << 1 | 1u << 2 | 1u << 4 | 1u << 5 | 1u << 6 | 1u << 7 | 1u << 8 |
                 1u << 9 | 1u << 12 | 1u << 13 | 1u << 14 | 1u << 16));
    mad_get_array(mad, IB_SA_DATA_OFFS, IB_SA_MCM_MGID_F, got);
    assert_memory_equal(got, mgid, 16);
    mad_get_array(mad, IB_SA_DATA_OFFS, IB_SA_MCM_PORTGID_F, got);
    assert_memory_equal(got, pgid, 16);
    PZT_EXPECT_FIELDS(rec, {IB_SA_MCM_QKEY_F, 0x0b1b}, {IB_SA_MCM_MLID_F, 0}, {IB_SA_MCM_MTU_F, 4},
                      {IB_SA_MCM_RATE_F, 3}, {IB_SA_MCM_TCLASS_F, 0x10}, {IB_SA_MCM_PKEY_F, 0xffff},
                      {IB_SA_MCM_SL_F, 2}, {IB_SA_MCM_FLOW_LABEL_F, 0x12345},
                      {IB_SA_MCM_JOIN_STATE_F, 1});
    assert_int_equal(rec[38] >> 6, 2); /* MTUSelector: exactly */
    assert_int_equal(rec[42] >> 6, 2); /* RateSelector: exactly */
    assert_int_equal(rec[47], 7);      /* HopLimit */
    assert_int_equal(rec[48], 0x21);   /* Scope 2 (link-local), JoinState full */

    ipoib_mcast6_build_join(mad, 1, mgid, pgid, &bcast, 0xffff, IPOIB_JOIN_SENDONLY_FULL);
    assert_int_equal(mad_get_field(mad, IB_SA_DATA_OFFS, IB_SA_MCM_JOIN_STATE_F), 8);
}

/* The SA's answer to that join is read by the endpoint's parser for the IPv6 MGID. */
static void test_join_answer(void **state)
{
    uint8_t mad[IPOIB_SA_MAD_LEN], group[16], mgid[16], pgid[16], other[16];
    struct ipoib_group g;
    unsigned status;

    addr_of("ff02::1", group);
    ipoib_ip6_mcast_mgid(0xffff, 2, group, mgid);
    ipoib_gid_make(PREFIX, 0x1234, pgid);
    ipoib_mcast6_build_join(mad, 3, mgid, pgid, &bcast, 0xffff, IPOIB_JOIN_FULL);
    PZT_SET_FIELDS(mad, {IB_MAD_METHOD_F, IB_MAD_METHOD_GET}, {IB_MAD_RESPONSE_F, 1});
    mad_set_field(mad, IB_SA_DATA_OFFS, IB_SA_MCM_MLID_F, 0xc003);
    assert_int_equal(ipoib_sa_parse_join(mad, sizeof(mad), mgid, &g, &status), IPOIB_SA_OK);
    assert_int_equal(g.mlid, 0xc003);
    assert_int_equal(g.qkey, 0x0b1b);
    assert_int_equal(g.mtu, 4);
    assert_int_equal(g.hop_limit, 7);
    ipoib_bcast_mgid(0xffff, other);
    assert_int_equal(ipoib_sa_parse_join(mad, sizeof(mad), other, &g, &status), IPOIB_SA_MISMATCH);
}

/* A leave is SubnAdmDelete with MGID, PortGID, P_Key and JoinState. */
static void test_leave_mad(void **state)
{
    uint8_t mad[IPOIB_SA_MAD_LEN], group[16], mgid[16], pgid[16], got[16];

    addr_of("ff02::16", group);
    ipoib_ip6_mcast_mgid(0xffff, 2, group, mgid);
    ipoib_gid_make(PREFIX, 0x1234, pgid);
    ipoib_mcast6_build_leave(mad, 77, mgid, pgid, 0xffff, IPOIB_JOIN_FULL);
    PZT_EXPECT_FIELDS(mad, {IB_MAD_MGMTCLASS_F, IB_SA_CLASS}, {IB_MAD_METHOD_F, 0x15},
                      {IB_MAD_RESPONSE_F, 0}, {IB_MAD_ATTRID_F, IB_SA_ATTR_MCRECORD});
    assert_true(mad_get_field64(mad, 0, IB_SA_COMPMASK_F) ==
                (1u << 0 | 1u << 1 | 1u << 7 | 1u << 16));
    mad_get_array(mad, IB_SA_DATA_OFFS, IB_SA_MCM_MGID_F, got);
    assert_memory_equal(got, mgid, 16);
    assert_int_equal(mad_get_field(mad, IB_SA_DATA_OFFS, IB_SA_MCM_JOIN_STATE_F), 1);
}

/* ---- the table ------------------------------------------------------------ */

/* Two references keep a member group; the second unwant frees it. */
static void test_refs(void **state)
{
    struct ipoib_mcast6_table t;
    uint8_t sn[16], want_mgid[16];
    struct ipoib_mcast6 *e, evicted;

    assert_int_equal(ipoib_mcast6_init(&t, 4, 2, 0x7fff, 2, 1000), 0);
    addr_of("ff02::1:ff00:1234", sn);
    e = ipoib_mcast6_want(&t, sn, &evicted);
    assert_non_null(e);
    assert_int_equal(e->state, IPOIB_MCAST6_IDLE);
    assert_int_equal(e->kind, IPOIB_MCAST6_FULL);
    addr_of("ff12:601b:ffff::1:ff00:1234", want_mgid);
    assert_memory_equal(e->mgid, want_mgid, 16);
    assert_ptr_equal(ipoib_mcast6_want(&t, sn, &evicted), e); /* link-local and global share it */
    assert_int_equal(e->refs, 2);
    assert_false(ipoib_mcast6_unwant(&t, sn));
    assert_true(ipoib_mcast6_unwant(&t, sn));
    ipoib_mcast6_remove(e);
    assert_null(ipoib_mcast6_find(&t, sn));
    assert_false(ipoib_mcast6_unwant(&t, sn)); /* not there: nothing to leave */
    ipoib_mcast6_fini(&t);
}

/* Send-only entries: at most sendonly_max, the least recently used evicted. */
static void test_sendonly_eviction(void **state)
{
    struct ipoib_mcast6_table t;
    struct ipoib_mcast6 evicted, *a, *b, *c;
    uint8_t ga[16], gb[16], gc[16], gd[16], all[16];

    assert_int_equal(ipoib_mcast6_init(&t, 4, 2, 0xffff, 2, 1000), 0);
    addr_of("ff02::1:ff00:d", gd);
    addr_of("ff02::1:ff00:a", ga);
    addr_of("ff02::1:ff00:b", gb);
    addr_of("ff02::1:ff00:c", gc);
    ipoib_ip6_all_nodes(all);
    assert_non_null(ipoib_mcast6_want(&t, all, &evicted));
    a = ipoib_mcast6_sendonly(&t, ga, 100, &evicted);
    assert_non_null(a);
    assert_int_equal(a->kind, IPOIB_MCAST6_SENDONLY);
    assert_int_equal(evicted.state, IPOIB_MCAST6_FREE);
    b = ipoib_mcast6_sendonly(&t, gb, 200, &evicted);
    assert_non_null(b);
    assert_ptr_equal(ipoib_mcast6_sendonly(&t, ga, 300, &evicted), a); /* a used again */
    c = ipoib_mcast6_sendonly(&t, gc, 400, &evicted);
    assert_non_null(c);
    assert_int_equal(evicted.state, IPOIB_MCAST6_IDLE); /* b, the least recently used */
    assert_memory_equal(evicted.group, gb, 16);
    assert_null(ipoib_mcast6_find(&t, gb));
    assert_non_null(ipoib_mcast6_find(&t, ga));
    /* A member group is used as it is, never as a send-only one. */
    assert_int_equal(ipoib_mcast6_sendonly(&t, all, 500, &evicted)->kind, IPOIB_MCAST6_FULL);
    /* Wanting a send-only group makes it a member one that joins again. */
    a->state = IPOIB_MCAST6_UP;
    assert_ptr_equal(ipoib_mcast6_want(&t, ga, &evicted), a);
    assert_int_equal(a->kind, IPOIB_MCAST6_FULL);
    assert_int_equal(a->state, IPOIB_MCAST6_IDLE);
    /* Full: a new member group takes the last send-only entry (c). */
    assert_non_null(ipoib_mcast6_want(&t, gb, &evicted));
    assert_non_null(ipoib_mcast6_find(&t, gc));
    assert_non_null(ipoib_mcast6_want(&t, gd, &evicted));
    assert_int_equal(evicted.kind, IPOIB_MCAST6_SENDONLY); /* c, for the caller to end */
    assert_memory_equal(evicted.group, gc, 16);
    assert_null(ipoib_mcast6_find(&t, gc));
    assert_null(ipoib_mcast6_sendonly(&t, gc, 600, &evicted));
    assert_null(ipoib_mcast6_want(&t, gc, &evicted));
    ipoib_mcast6_fini(&t);
}

/*
 * Joins: IDLE ones wanted, JOINING with the caller's transaction and TID
 * (matched on the low 32 bits), a refusal counted and still JOINING (the
 * transaction resends), the answer UP, a rejoin IDLE again.
 */
static void test_join_cycle(void **state)
{
    struct ipoib_mcast6_table t;
    struct ipoib_mcast6 *e, *so, evicted;
    uint8_t all[16], ga[16];
    struct ipoib_group info = bcast;
    uint64_t now = 1000;

    assert_int_equal(ipoib_mcast6_init(&t, 4, 2, 0xffff, 2, 1000), 0);
    ipoib_ip6_all_nodes(all);
    e = ipoib_mcast6_want(&t, all, &evicted);
    assert_int_equal(e->txn, -1);
    assert_ptr_equal(ipoib_mcast6_next_idle(&t), e);
    ipoib_mcast6_joining(e, 5, 0x2a000200u);
    assert_int_equal(e->state, IPOIB_MCAST6_JOINING);
    assert_null(ipoib_mcast6_next_idle(&t)); /* its transaction resends it */
    assert_null(ipoib_mcast6_find_tid(&t, 0x2a000201ull));
    assert_ptr_equal(ipoib_mcast6_find_tid(&t, 0xff2a000200ull), e); /* low 32 bits */
    ipoib_mcast6_answer(e, NULL); /* refused: the transaction's next copy asks again */
    ipoib_mcast6_answer(e, NULL);
    assert_int_equal(e->state, IPOIB_MCAST6_JOINING);
    assert_ptr_equal(ipoib_mcast6_find_tid(&t, 0x2a000200ull), e); /* the same TID */
    assert_int_equal(e->failures, 2);
    info.mlid = 0xc001;
    ipoib_mcast6_answer(e, &info);
    assert_int_equal(e->state, IPOIB_MCAST6_UP);
    assert_int_equal(e->info.mlid, 0xc001);
    assert_int_equal(e->failures, 0);
    assert_int_equal(e->txn, -1);
    assert_null(ipoib_mcast6_find_tid(&t, 0x2a000200ull));
    assert_null(ipoib_mcast6_next_idle(&t));

    /* A rejoin: the member group is IDLE again with its references, send-only is gone. */
    addr_of("ff02::1:ff00:a", ga);
    so = ipoib_mcast6_sendonly(&t, ga, now, &evicted);
    assert_non_null(so);
    ipoib_mcast6_joining(so, 6, 0x2a000201u);
    ipoib_mcast6_reset(&t);
    assert_int_equal(e->state, IPOIB_MCAST6_IDLE);
    assert_int_equal(e->refs, 1);
    assert_int_equal(e->info.mlid, 0);
    assert_int_equal(e->txn, -1);
    assert_null(ipoib_mcast6_find(&t, ga));
    assert_null(ipoib_mcast6_find_tid(&t, 0x2a000201ull));
    assert_ptr_equal(ipoib_mcast6_next_idle(&t), e);
    ipoib_mcast6_fini(&t);
}

PZT_MAIN(test_join_mad, test_join_answer, test_leave_mad, test_refs, test_sendonly_eviction,
         test_join_cycle)
