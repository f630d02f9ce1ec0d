/*
 * test_pz_routes.c - portzerod's route check (traffic/pz_routes.c) with a
 * fake SA: the requests it sends (attribute, TID tag, the SM's LID and SL
 * from port 0's PortInfo), the four answers of a line of three switches
 * fed back (a late or foreign answer ignored), the result and its summary,
 * and the failures: no SM, one already running, timeouts with resends, an
 * SA error status, an answer that is only a first RMPP segment; without
 * PortInfoRecords (none, no answer) the check runs with LMC 0 and says so.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mad.h"
#include "pz_routes.h"
#include "pzt.h"
#include "sa_query.h"
#include "pzt_main.h"

#define SM_LID 1
#define SEC 1000000000ull

/* What the fake send saw. */
struct sent {
    int count;
    uint8_t mad[IB_MAD_SIZE];
    struct mad_addr to;
};

/* Fake send: keeps the request. */
static int fake_send(void *ctx, const uint8_t *mad, const struct mad_addr *to)
{
    struct sent *s = ctx;

    s->count++;
    memcpy(s->mad, mad, IB_MAD_SIZE);
    s->to = *to;
    return 0;
}

/* An answer to the request in s: header (status, stride) + n records of rec. */
static size_t answer(uint8_t *b, const struct sent *s, uint16_t status, size_t stride,
                     const uint8_t *recs, size_t n)
{
    memset(b, 0, SA_HEADER_LEN);
    memcpy(b, s->mad, 24); /* the request's MAD header: class, TID, attribute */
    b[3] = IB_MAD_METHOD_GET_TABLE_RESPONSE;
    be16_put(b + 4, status);
    be16_put(b + 44, (uint16_t)(stride / 8));
    if (n)
        memcpy(b + SA_HEADER_LEN, recs, n * stride);
    return SA_HEADER_LEN + n * stride;
}

/* NodeRecords of switches 1, 2, 3. */
static size_t node_records(uint8_t *recs)
{
    memset(recs, 0, 3 * 112);
    for (int i = 0; i < 3; i++) {
        uint8_t *r = recs + i * 112;

        be16_put(r, (uint16_t)(i + 1));
        r[4] = r[5] = 1;
        r[6] = 2; /* switch */
        r[7] = 4;
        be64_put(r + 16, 0x100 + (uint64_t)i);
        snprintf((char *)r + 44, 64, "sw%d", i + 1);
    }
    return 3;
}

/* LinkRecords of the line 1[2] - 2[1], 2[2] - 3[1]. */
static size_t link_records(uint8_t *recs)
{
    static const uint8_t l[2][8] = {{0, 1, 2, 1, 0, 2, 0, 0}, {0, 2, 2, 1, 0, 3, 0, 0}};

    memcpy(recs, l, sizeof(l));
    return 2;
}

/* One LFT block per switch: complete routes along the line. */
static size_t lft_records(uint8_t *recs)
{
    memset(recs, 0, 3 * 72);
    for (int s = 1; s <= 3; s++) {
        uint8_t *r = recs + (s - 1) * 72;

        be16_put(r, (uint16_t)s);
        memset(r + 8, 0xff, 64);
        for (int d = 1; d <= 3; d++)
            r[8 + d] = (uint8_t)(d == s ? 0 : d < s ? 1 : 2);
    }
    return 3;
}

/* PortInfoRecords of the switches' ports 0 (LMC 0) and of switch 2's port 1 (ignored). */
static size_t port_info_records(uint8_t *recs)
{
    memset(recs, 0, 4 * 72);
    for (int i = 0; i < 4; i++) {
        uint8_t *r = recs + i * 72;

        be16_put(r, (uint16_t)(i < 3 ? i + 1 : 2));
        r[2] = (uint8_t)(i < 3 ? 0 : 1); /* PortNum */
        r[4 + 34] = i < 3 ? 0 : 3;       /* LMC (low 3 bits of PortInfo byte 34) */
    }
    return 4;
}

/* A checker on a switch whose port 0 knows the SM at SM_LID, SL 0. */
static struct pz_routes *setup(struct pzt_node **n, struct sent *s, uint16_t sm_lid)
{
    *n = pzt_switch_new(4);
    pzt_assign_lid(*n, 2, sm_lid, 18);
    memset(s, 0, sizeof(*s));
    return pz_routes_create(fake_send, s, (*n)->sma);
}

/* Feed the answer to the request in s (one kind of records). */
static void feed(struct pz_routes *rt, const struct sent *s, size_t (*records)(uint8_t *),
                 size_t stride)
{
    uint8_t recs[4 * 112], buf[SA_HEADER_LEN + 4 * 112];
    size_t n = records(recs);

    pz_routes_take_mad(rt, buf, answer(buf, s, 0, stride, recs, n));
}

static void test_check_through_fake_sa(void **state)
{
    struct pzt_node *n;
    struct sent s;
    struct pz_routes *rt = setup(&n, &s, SM_LID);
    struct pz_routes_summary sum;
    uint8_t stale[IB_MAD_SIZE];
    char *text = NULL;
    size_t len = 0;
    FILE *out;

    assert_int_equal(pz_routes_last(rt).valid, false);
    assert_int_equal(pz_routes_start(rt, false, 0), 0);
    assert_int_equal(s.count, 1);
    assert_int_equal(s.to.dlid, SM_LID);
    assert_int_equal(s.to.dst_qp, 1);
    assert_true(s.to.lid_routed);
    assert_int_equal(s.mad[1], IB_SA_CLASS);
    assert_int_equal(s.mad[3], IB_MAD_METHOD_GET_TABLE);
    assert_int_equal(be16_get(s.mad + 16), IB_SA_ATTR_NODERECORD);
    assert_int_equal(be32_get(s.mad + 12) & PZ_ROUTES_TID_MASK, PZ_ROUTES_TID_TAG);
    assert_int_equal(pz_routes_start(rt, false, 0), -EBUSY);
    /* an answer to another TID (a late one) changes nothing */
    memcpy(stale, s.mad, sizeof(stale));
    be32_put(stale + 12, PZ_ROUTES_TID_TAG | 0x00abcdef);
    stale[3] = IB_MAD_METHOD_GET_TABLE_RESPONSE;
    pz_routes_take_mad(rt, stale, sizeof(stale));
    assert_int_equal(s.count, 1);
    feed(rt, &s, node_records, 112);
    assert_int_equal(s.count, 2);
    assert_int_equal(be16_get(s.mad + 16), IB_SA_ATTR_LINKRECORD);
    feed(rt, &s, link_records, 8);
    assert_int_equal(be16_get(s.mad + 16), IB_SA_ATTR_LFTRECORD);
    assert_int_equal(pz_routes_poll(rt, 0), PZ_ROUTES_RUNNING);
    assert_int_equal(s.count, 3); /* each answer sent the next request, nothing resent */
    feed(rt, &s, lft_records, 72);
    assert_int_equal(be16_get(s.mad + 16), IB_SA_ATTR_PORTINFORECORD);
    assert_int_equal(pz_routes_poll(rt, 0), PZ_ROUTES_RUNNING);
    feed(rt, &s, port_info_records, 72);
    assert_int_equal(pz_routes_poll(rt, 0), PZ_ROUTES_DONE);
    sum = pz_routes_last(rt);
    assert_true(sum.valid);
    assert_int_equal(sum.switches, 3);
    assert_int_equal(sum.pairs, 6);
    assert_int_equal(sum.unrouted, 0);
    assert_false(sum.cycle);
    assert_true(sum.when > 0);
    out = open_memstream(&text, &len);
    assert_true(pz_routes_report(rt, out, false));
    fclose(out);
    assert_non_null(strstr(text, "switch-to-switch pairs: 6, routed: 6, unrouted: 0"));
    assert_non_null(strstr(text, "result: clean"));
    assert_non_null(
        strstr(text, "LIDs: switches 3, CA ports 0 (LMC from PortInfoRecords: 0 ports"));
    free(text);
    pz_routes_destroy(rt);
    pzt_node_free(n);
}

static void test_no_sm(void **state)
{
    struct pzt_node *n;
    struct sent s;
    struct pz_routes *rt = setup(&n, &s, 0);

    assert_int_equal(pz_routes_start(rt, false, 0), -ENOENT);
    assert_int_equal(s.count, 0);
    assert_false(pz_routes_report(rt, stdout, false));
    pz_routes_destroy(rt);
    pzt_node_free(n);
}

static void test_timeouts(void **state)
{
    struct pzt_node *n;
    struct sent s;
    struct pz_routes *rt = setup(&n, &s, SM_LID);
    uint32_t tid;

    assert_int_equal(pz_routes_start(rt, false, 0), 0);
    tid = be32_get(s.mad + 12);
    assert_int_equal(pz_routes_poll(rt, 3 * SEC), PZ_ROUTES_RUNNING);
    assert_int_equal(s.count, 1);
    assert_int_equal(pz_routes_poll(rt, 5 * SEC), PZ_ROUTES_RUNNING);
    assert_int_equal(s.count, 2); /* resent with its TID: a late answer still counts */
    assert_int_equal(be32_get(s.mad + 12), tid);
    assert_int_equal(be16_get(s.mad + 16), IB_SA_ATTR_NODERECORD);
    assert_int_equal(pz_routes_poll(rt, 10 * SEC), PZ_ROUTES_RUNNING);
    assert_int_equal(s.count, 3);
    assert_int_equal(pz_routes_poll(rt, 15 * SEC), PZ_ROUTES_FAILED);
    assert_string_equal(pz_routes_error(rt), "no answer from the SA");
    /* a new check may start */
    assert_int_equal(pz_routes_start(rt, false, 20 * SEC), 0);
    pz_routes_destroy(rt);
    pzt_node_free(n);
}

static void test_bad_answers(void **state)
{
    struct pzt_node *n;
    struct sent s;
    struct pz_routes *rt = setup(&n, &s, SM_LID);
    uint8_t recs[3 * 112], buf[SA_HEADER_LEN + 3 * 112];

    assert_int_equal(pz_routes_start(rt, false, 0), 0);
    pz_routes_take_mad(rt, buf, answer(buf, &s, SA_STATUS_REQ_INVALID << 8, 112, recs, 0));
    assert_int_equal(pz_routes_poll(rt, 0), PZ_ROUTES_FAILED);
    assert_non_null(strstr(pz_routes_error(rt), "request invalid"));

    /* a lone first RMPP segment: the MAD layer did not reassemble */
    assert_int_equal(pz_routes_start(rt, false, 0), 0);
    node_records(recs);
    answer(buf, &s, 0, 112, recs, 1);
    buf[24] = 1;   /* RMPPVersion */
    buf[25] = 1;   /* DATA */
    buf[26] = 0x3; /* Active, First */
    pz_routes_take_mad(rt, buf, IB_MAD_SIZE);
    assert_int_equal(pz_routes_poll(rt, 0), PZ_ROUTES_FAILED);
    assert_non_null(strstr(pz_routes_error(rt), "RMPP"));
    /* garbage is not an answer: nothing happens */
    assert_int_equal(pz_routes_start(rt, false, 0), 0);
    memset(buf, 0xa5, sizeof(buf));
    pz_routes_take_mad(rt, buf, 10);
    pz_routes_take_mad(rt, buf, sizeof(buf));
    assert_int_equal(pz_routes_poll(rt, 0), PZ_ROUTES_RUNNING);
    pz_routes_destroy(rt);
    pzt_node_free(n);
}

/* Without PortInfoRecords (an SA without them, no answer) the check runs with LMC 0. */
static void test_no_port_info(void **state)
{
    struct pzt_node *n;
    struct sent s;
    struct pz_routes *rt = setup(&n, &s, SM_LID);
    uint8_t buf[SA_HEADER_LEN];
    char *text = NULL;
    size_t len = 0;
    FILE *out;

    for (int round = 0; round < 2; round++) {
        assert_int_equal(pz_routes_start(rt, false, 100 * SEC * (uint64_t)round), 0);
        feed(rt, &s, node_records, 112);
        feed(rt, &s, link_records, 8);
        feed(rt, &s, lft_records, 72);
        assert_int_equal(be16_get(s.mad + 16), IB_SA_ATTR_PORTINFORECORD);
        if (round == 0) {
            pz_routes_take_mad(rt, buf, answer(buf, &s, SA_STATUS_NO_RECORDS << 8, 72, NULL, 0));
        } else {
            uint64_t t = 100 * SEC;

            for (int i = 0; i < 2; i++) /* resent twice */
                assert_int_equal(pz_routes_poll(rt, t += 5 * SEC), PZ_ROUTES_RUNNING);
            assert_int_equal(pz_routes_poll(rt, t + 5 * SEC), PZ_ROUTES_DONE);
        }
        assert_int_equal(pz_routes_poll(rt, 200 * SEC), PZ_ROUTES_DONE);
        assert_int_equal(pz_routes_last(rt).pairs, 6);
        out = open_memstream(&text, &len);
        assert_true(pz_routes_report(rt, out, false));
        fclose(out);
        assert_non_null(strstr(text, round == 0 ? "(LMC not read: the SA has no PortInfoRecords;"
                                                : "(LMC not read: no PortInfoRecord answer;"));
        free(text);
        text = NULL;
    }
    pz_routes_destroy(rt);
    pzt_node_free(n);
}

PZT_MAIN(test_check_through_fake_sa, test_no_sm, test_timeouts, test_bad_answers, test_no_port_info)
