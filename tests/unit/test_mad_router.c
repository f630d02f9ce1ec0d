/*
 * test_mad_router.c - mad/mad_router: requests by class to their agent,
 * answers by TID tag (low 32 bits only) to the client that asked, unclaimed
 * answers to the class's agent, and the refusals of overlapping clients.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "mad_header.h"
#include "mad_router.h"
#include "pzt_main.h"

/* What the fake agents and clients saw. */
struct seen {
    int requests, answers;
    uint8_t last_class;
    size_t last_len; /* length-taking clients */
};

/* A MAD of class c, method m (0x80 = the R bit), TID tid. */
static void make_mad(uint8_t *mad, uint8_t c, uint8_t method, uint64_t tid)
{
    mad_header_init(mad, c, 1, method, tid, 0, 0);
}

/* Fake agent: counts, answers with MAD_SEND. */
static enum mad_verdict fake_agent(void *arg, const struct mad_addr *from, const uint8_t *in,
                                   struct mad_addr *to, uint8_t *out)
{
    struct seen *s = arg;

    (void)from;
    (void)to;
    (void)out;
    s->requests++;
    s->last_class = (uint8_t)mad_get_field((void *)in, 0, IB_MAD_MGMTCLASS_F);
    return MAD_SEND;
}

/* Fake client: counts. */
static void fake_client(void *arg, const uint8_t *mad, size_t len)
{
    struct seen *s = arg;

    (void)len; /* a client that reads the header alone */
    s->answers++;
    s->last_class = (uint8_t)mad_get_field((void *)mad, 0, IB_MAD_MGMTCLASS_F);
}

/* Route mad through r; returns how. */
static enum mad_route route(struct mad_router *r, const uint8_t *mad, enum mad_verdict *v)
{
    struct mad_addr from = {0}, to;
    uint8_t out[IB_MAD_SIZE];
    enum mad_route how;

    *v = mad_router_dispatch(r, &from, mad, IB_MAD_SIZE, &to, out, &how);
    return how;
}

static void test_requests_by_class(void **state)
{
    struct mad_router r;
    struct seen sma = {0}, pma = {0};
    uint8_t mad[IB_MAD_SIZE];
    enum mad_verdict v;

    mad_router_init(&r);
    assert_int_equal(mad_router_add_agent(&r, IB_SMI_DIRECT_CLASS, fake_agent, &sma), 0);
    assert_int_equal(mad_router_add_agent(&r, IB_PERFORMANCE_CLASS, fake_agent, &pma), 0);
    assert_int_equal(mad_router_add_agent(&r, IB_PERFORMANCE_CLASS, fake_agent, &pma), -1);
    make_mad(mad, IB_SMI_DIRECT_CLASS, 0x01, 1);
    assert_int_equal(route(&r, mad, &v), MAD_ROUTED_REQUEST);
    assert_int_equal(v, MAD_SEND);
    make_mad(mad, IB_PERFORMANCE_CLASS, 0x02, 2);
    assert_int_equal(route(&r, mad, &v), MAD_ROUTED_REQUEST);
    assert_int_equal(sma.requests, 1);
    assert_int_equal(pma.requests, 1);
    make_mad(mad, IB_CC_CLASS, 0x01, 3); /* nobody serves CC here */
    assert_int_equal(route(&r, mad, &v), MAD_ROUTED_NOBODY);
    assert_int_equal(v, MAD_DROP);
    assert_int_equal(r.stats.no_agent, 1);
    mad_set_field(mad, 0, IB_MAD_BASEVER_F, 2); /* not a MAD we route */
    assert_int_equal(route(&r, mad, &v), MAD_ROUTED_NOBODY);
    assert_int_equal(r.stats.bad, 1);
}

static void test_answers_by_tid_tag(void **state)
{
    struct mad_router r;
    struct seen sma = {0}, mon = {0}, ip = {0};
    uint8_t mad[IB_MAD_SIZE];
    enum mad_verdict v;

    mad_router_init(&r);
    assert_int_equal(mad_router_add_agent(&r, IB_SMI_DIRECT_CLASS, fake_agent, &sma), 0);
    assert_int_equal(mad_router_add_client(&r, 0, 0xF0000000u, 0x50000000u, fake_client, &mon), 0);
    assert_int_equal(
        mad_router_add_client(&r, IB_SA_CLASS, 0xFF000000u, 0x49000000u, fake_client, &ip), 0);
    /* The monitor's answer, whatever the MAD layer wrote into the high 32 bits. */
    make_mad(mad, IB_SMI_DIRECT_CLASS, 0x81, 0x00070000500012ffull);
    assert_int_equal(route(&r, mad, &v), MAD_ROUTED_ANSWER);
    assert_int_equal(v, MAD_DROP);
    assert_int_equal(mon.answers, 1);
    /* The SA answer to the IP plane. */
    make_mad(mad, IB_SA_CLASS, 0x81, 0x0000000449000002ull);
    assert_int_equal(route(&r, mad, &v), MAD_ROUTED_ANSWER);
    assert_int_equal(ip.answers, 1);
    assert_int_equal(ip.last_class, IB_SA_CLASS);
    /* An SA answer with another tag: nobody asked, no SA agent: dropped, counted. */
    make_mad(mad, IB_SA_CLASS, 0x81, 0x4a000002ull);
    assert_int_equal(route(&r, mad, &v), MAD_ROUTED_NOBODY);
    assert_int_equal(r.stats.no_client, 1);
    /* A returning DR SMP no client claims goes to the SMA (it forwards it). */
    make_mad(mad, IB_SMI_DIRECT_CLASS, 0x81, 0x12345678ull);
    assert_int_equal(route(&r, mad, &v), MAD_ROUTED_REQUEST);
    assert_int_equal(sma.requests, 1);
    assert_int_equal(mon.answers, 1);
}

/* Fake length-taking client: counts and keeps the length. */
static void fake_len_client(void *arg, const uint8_t *mad, size_t len)
{
    struct seen *s = arg;

    s->answers++;
    s->last_class = (uint8_t)mad_get_field((void *)mad, 0, IB_MAD_MGMTCLASS_F);
    s->last_len = len;
}

static void test_long_answers(void **state)
{
    struct mad_router r;
    struct seen rc = {0}, ip = {0};
    uint8_t mad[4 * IB_MAD_SIZE], out[IB_MAD_SIZE];
    struct mad_addr from = {0}, to;
    enum mad_route how;

    mad_router_init(&r);
    assert_int_equal(
        mad_router_add_client(&r, IB_SA_CLASS, 0xFF000000u, 0x72000000u, fake_len_client, &rc), 0);
    assert_int_equal(
        mad_router_add_client(&r, IB_SA_CLASS, 0xFF000000u, 0x49000000u, fake_client, &ip), 0);
    assert_int_equal(mad_router_add_client(&r, IB_SA_CLASS, 0xFF000000u, 0x72000000u, NULL, &rc),
                     -1);
    /* a reassembled answer of 3 MADs' length reaches its client whole */
    make_mad(mad, IB_SA_CLASS, 0x92, 0x0000000172000001ull);
    assert_int_equal(mad_router_dispatch(&r, &from, mad, 700, &to, out, &how), MAD_DROP);
    assert_int_equal(how, MAD_ROUTED_ANSWER);
    assert_int_equal(rc.answers, 1);
    assert_int_equal(rc.last_len, 700);
    /* a MAD's length: the MAD's size */
    assert_int_equal(mad_router_dispatch(&r, &from, mad, IB_MAD_SIZE, &to, out, &how), MAD_DROP);
    assert_int_equal(rc.last_len, IB_MAD_SIZE);
    /* a long answer to a client that reads the header alone */
    make_mad(mad, IB_SA_CLASS, 0x92, 0x49000003ull);
    mad_router_dispatch(&r, &from, mad, 700, &to, out, &how);
    assert_int_equal(how, MAD_ROUTED_ANSWER);
    assert_int_equal(ip.answers, 1);
}

static void test_client_refusals(void **state)
{
    struct mad_router r;
    struct seen s = {0};

    mad_router_init(&r);
    assert_int_equal(mad_router_add_client(&r, 0, 0xF0000000u, 0x50000000u, fake_client, &s), 0);
    /* Overlaps: a narrower tag inside the first, in any class. */
    assert_int_equal(
        mad_router_add_client(&r, IB_SA_CLASS, 0xFF000000u, 0x51000000u, fake_client, &s), -1);
    /* A tag with bits outside its mask, an empty mask, no function. */
    assert_int_equal(mad_router_add_client(&r, 3, 0xFF000000u, 0x00000001u, fake_client, &s), -1);
    assert_int_equal(mad_router_add_client(&r, 3, 0, 0, fake_client, &s), -1);
    assert_int_equal(mad_router_add_client(&r, 3, 0xFF000000u, 0x49000000u, NULL, &s), -1);
    /* Same tag, different classes: both fine. */
    assert_int_equal(mad_router_add_client(&r, 3, 0xFF000000u, 0x49000000u, fake_client, &s), 0);
    assert_int_equal(mad_router_add_client(&r, 4, 0xFF000000u, 0x49000000u, fake_client, &s), 0);
    assert_int_equal(mad_router_add_client(&r, 3, 0xFF000000u, 0x49000000u, fake_client, &s), -1);
}

PZT_MAIN(test_requests_by_class, test_answers_by_tid_tag, test_client_refusals, test_long_answers)
