/*
 * test_reach.c - the reachability table (traffic/reach.c): probes spread
 * over the interval, replies matched by sequence number and source LID,
 * misses up to the loss threshold, state kept across a rediscovery, peers
 * without the echo service, the change reports, and the notices due to
 * the SM (kept as state: none lost, one per peer summing up its changes).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "reach.h"
#include "pzt_main.h"

#define MS 1000000ull

/* The changes reported, in order. */
struct changes {
    unsigned n;
    uint64_t guid[16];
    enum reach_status from[16], to[16];
};

/* Change callback: record it. */
static void record_change(void *arg, const struct reach_peer *p, enum reach_status old)
{
    struct changes *c = arg;

    if (c->n < 16) {
        c->guid[c->n] = p->guid;
        c->from[c->n] = old;
        c->to[c->n] = p->status;
    }
    c->n++;
}

static const struct reach_config cfg = {
    .interval_ns = 1000 * MS, .timeout_ns = 200 * MS, .lost_after = 3};

/* An identity of a peer with the echo service. */
static struct reach_peer peer_id(uint64_t guid, uint16_t lid, bool service)
{
    struct reach_peer p;

    memset(&p, 0, sizeof(p));
    p.guid = guid;
    p.lid = lid;
    snprintf(p.name, sizeof(p.name), "sw-%u", (unsigned)lid);
    p.has_service = service;
    p.qpn = 0x100 + lid;
    p.qkey = 0x505a0001;
    return p;
}

/* A bad configuration is refused. */
static void test_bad_config(void **state)
{
    struct reach_config c = cfg;

    c.timeout_ns = c.interval_ns;
    assert_null(reach_create(&c, NULL, NULL));
    c = cfg;
    c.lost_after = 0;
    assert_null(reach_create(&c, NULL, NULL));
}

/* First probes spread over one interval; a reply makes the peer reachable. */
static void test_spread_and_reply(void **state)
{
    struct changes ch = {0};
    struct reach *r = reach_create(&cfg, record_change, &ch);
    struct reach_peer ids[4];
    struct reach_probe pr[8];
    const struct reach_peer *p;
    size_t n, i;

    for (i = 0; i < 4; i++)
        ids[i] = peer_id(0x1000 + i, (uint16_t)(10 + i), true);
    assert_int_equal(reach_set_peers(r, ids, 4, 0), 0);
    assert_int_equal(reach_due(r, 0, pr, 8), 1); /* only the first is due at once */
    assert_int_equal(pr[0].dlid, 10);
    assert_int_equal(pr[0].qpn, 0x10a);
    assert_int_equal(reach_next_deadline(r), 200 * MS); /* its timeout */
    assert_int_equal(reach_due(r, 750 * MS, pr, 8), 3);
    assert_true(reach_reply(r, pr[0].seq, 11, 5000, 760 * MS));
    assert_false(reach_reply(r, pr[0].seq, 11, 5000, 761 * MS));   /* duplicate */
    assert_false(reach_reply(r, pr[1].seq, 99, 5000, 761 * MS));   /* wrong source */
    assert_false(reach_reply(r, 0xFFFF0003u, 13, 5000, 761 * MS)); /* stale sequence */
    p = reach_peers(r, &n);
    assert_int_equal(n, 4);
    assert_int_equal(p[1].status, REACH_REACHABLE);
    assert_int_equal(p[1].rtt_ns, 5000);
    assert_int_equal(p[1].since_ns, 760 * MS);
    assert_int_equal(ch.n, 1);
    assert_int_equal(ch.from[0], REACH_UNKNOWN);
    assert_int_equal(ch.to[0], REACH_REACHABLE);
    reach_destroy(r);
}

/* lost_after misses in a row make a peer unreachable; a reply brings it back. */
static void test_loss_and_recovery(void **state)
{
    struct changes ch = {0};
    struct reach *r = reach_create(&cfg, record_change, &ch);
    struct reach_peer id = peer_id(0x2000, 20, true);
    struct reach_probe pr[2];
    uint64_t t = 0;
    int k;

    assert_int_equal(reach_set_peers(r, &id, 1, 0), 0);
    assert_int_equal(reach_due(r, t, pr, 2), 1);
    assert_true(reach_reply(r, pr[0].seq, 20, 1000, t + MS));
    for (k = 0; k < 3; k++) {
        t += 1000 * MS;
        assert_int_equal(reach_due(r, t, pr, 2), 1);
        reach_expire(r, t + 100 * MS); /* not yet timed out */
        assert_int_equal(reach_peers(r, &(size_t){0})[0].misses, (unsigned)k);
        reach_expire(r, t + 200 * MS);
        assert_int_equal(reach_peers(r, &(size_t){0})[0].status,
                         k == 2 ? REACH_UNREACHABLE : REACH_REACHABLE);
    }
    assert_int_equal(reach_peers(r, &(size_t){0})[0].status, REACH_UNREACHABLE);
    assert_int_equal(reach_peers(r, &(size_t){0})[0].misses, 3);
    assert_int_equal(ch.n, 2);
    assert_int_equal(ch.to[1], REACH_UNREACHABLE);
    /* On demand: due at once, and a reply is a recovery. */
    reach_probe_all_now(r, t + 300 * MS);
    assert_int_equal(reach_due(r, t + 300 * MS, pr, 2), 1);
    assert_true(reach_reply(r, pr[0].seq, 20, 1000, t + 301 * MS));
    assert_int_equal(ch.n, 3);
    assert_int_equal(ch.from[2], REACH_UNREACHABLE);
    assert_int_equal(ch.to[2], REACH_REACHABLE);
    reach_destroy(r);
}

/* A rediscovery keeps state by GUID, cancels a probe to a changed LID, drops the gone. */
static void test_rediscovery(void **state)
{
    struct changes ch = {0};
    struct reach *r = reach_create(&cfg, record_change, &ch);
    struct reach_peer ids[2] = {peer_id(0x3000, 30, true), peer_id(0x3001, 31, true)};
    struct reach_probe pr[4];
    const struct reach_peer *p;
    size_t n;

    assert_int_equal(reach_set_peers(r, ids, 2, 0), 0);
    assert_int_equal(reach_due(r, 600 * MS, pr, 4), 2);
    assert_true(reach_reply(r, pr[0].seq, 30, 1000, 601 * MS));
    assert_true(reach_set_hops(r, 30, 3));
    /* Peer 0x3001 left; 0x3000 got LID 40 (its probe in flight would be stale). */
    ids[0].lid = 40;
    assert_int_equal(reach_set_peers(r, ids, 1, 700 * MS), 0);
    p = reach_peers(r, &n);
    assert_int_equal(n, 1);
    assert_int_equal(p[0].status, REACH_REACHABLE);
    assert_int_equal(p[0].hops, 3);
    assert_int_equal(p[0].lid, 40);
    assert_false(p[0].outstanding);
    reach_destroy(r);
}

/* A peer without the echo service is no-agent and never probed. */
static void test_no_agent(void **state)
{
    struct changes ch = {0};
    struct reach *r = reach_create(&cfg, record_change, &ch);
    struct reach_peer id = peer_id(0x4000, 50, false);
    struct reach_probe pr[2];

    assert_int_equal(reach_set_peers(r, &id, 1, 0), 0);
    assert_int_equal(reach_due(r, 5000 * MS, pr, 2), 0);
    assert_int_equal(reach_next_deadline(r), UINT64_MAX);
    assert_int_equal(reach_peers(r, &(size_t){0})[0].status, REACH_NO_AGENT);
    assert_string_equal(reach_status_name(REACH_NO_AGENT), "no-agent");
    /* The service appears: probed at once. */
    id.has_service = true;
    assert_int_equal(reach_set_peers(r, &id, 1, 6000 * MS), 0);
    assert_int_equal(reach_peers(r, &(size_t){0})[0].status, REACH_UNKNOWN);
    assert_int_equal(reach_due(r, 6000 * MS, pr, 2), 1);
    reach_destroy(r);
}

/* Make every peer of r miss lost_after probes from t on; returns the time after. */
static uint64_t miss_all(struct reach *r, uint64_t t)
{
    struct reach_probe pr[8];

    for (unsigned k = 0; k < cfg.lost_after; k++) {
        t += 1000 * MS;
        while (reach_due(r, t, pr, 8) == 8)
            ;
        reach_expire(r, t + 200 * MS);
    }
    return t + 200 * MS;
}

/* Answer every probe due at t; returns t. */
static uint64_t answer_all(struct reach *r, uint64_t t)
{
    struct reach_probe pr[8];
    size_t n;

    reach_probe_all_now(r, t);
    while ((n = reach_due(r, t, pr, 8)) > 0)
        for (size_t i = 0; i < n; i++)
            assert_true(reach_reply(r, pr[i].seq, pr[i].dlid, 1000, t + MS));
    return t + MS;
}

/* The indexes of the peers whose notice is due, told one by one; returns how many. */
static unsigned tell_all(struct reach *r, unsigned changes[8])
{
    const struct reach_peer *p = reach_peers(r, &(size_t){0});
    unsigned n = 0;
    size_t i;

    while (reach_notice_due(r, &i)) {
        assert_true(n < 8);
        changes[i] = p[i].notice_changes;
        reach_notice_told(r, i);
        n++;
    }
    return n;
}

/* Notices are state: every loss is due until told, a peer that changed again has one notice
 * summing up its changes, a recovery is due, a new SM hears of the unreachable again. */
static void test_notices_due(void **state)
{
    struct changes ch = {0};
    struct reach *r = reach_create(&cfg, record_change, &ch);
    struct reach_peer ids[6];
    unsigned changes[8] = {0};
    uint64_t t;
    size_t i;

    for (i = 0; i < 6; i++)
        ids[i] = peer_id(0x5000 + i, (uint16_t)(60 + i), true);
    assert_int_equal(reach_set_peers(r, ids, 6, 0), 0);
    t = answer_all(r, 0);
    assert_false(reach_notice_due(r, &i)); /* unknown -> reachable: nothing to tell */

    /* All six lost at once: six notices due, nothing dropped while none is told. */
    t = miss_all(r, t);
    assert_int_equal(tell_all(r, changes), 6);
    for (i = 0; i < 6; i++)
        assert_int_equal(changes[i], 1);
    assert_false(reach_notice_due(r, &i));

    /* Back, then lost again before any notice went out: one notice each, with the status
     * now (unreachable) and the two changes it sums up. */
    t = answer_all(r, t);
    t = miss_all(r, t);
    assert_true(reach_notice_due(r, &i));
    memset(changes, 0, sizeof(changes));
    assert_int_equal(tell_all(r, changes), 6);
    for (i = 0; i < 6; i++) {
        assert_int_equal(changes[i], 2);
        assert_int_equal(reach_peers(r, &(size_t){0})[i].status, REACH_UNREACHABLE);
    }
    /* Recovery: due. */
    t = answer_all(r, t);
    assert_int_equal(tell_all(r, changes), 6);
    /* A new SM: none is unreachable now, so nothing is due; after a loss, one each. */
    reach_notice_new_sm(r);
    assert_false(reach_notice_due(r, &i));
    t = miss_all(r, t);
    (void)tell_all(r, changes);
    reach_notice_new_sm(r);
    assert_int_equal(tell_all(r, changes), 6);
    reach_notice_told(r, 99); /* out of range: ignored */
    reach_destroy(r);
}

/* A peer that answered and left discovery is kept as lost (reported, notice due) behind the
 * listed ones for lost_keep_ns, then dropped; one that never answered is dropped at once; a
 * lost one listed again is probed and regained at its first answer. */
static void test_lost_kept(void **state)
{
    struct reach_config c = cfg;
    struct changes ch = {0};
    struct reach *r;
    struct reach_peer ids[3] = {peer_id(0x6000, 70, true), peer_id(0x6001, 71, true),
                                peer_id(0x6002, 72, true)};
    struct reach_probe pr[4];
    const struct reach_peer *p;
    uint64_t t;
    size_t n, i;

    c.lost_keep_ns = 60000 * MS;
    r = reach_create(&c, record_change, &ch);
    assert_int_equal(reach_set_peers(r, ids, 3, 0), 0);
    assert_int_equal(reach_due(r, 1000 * MS, pr, 4), 3);
    for (i = 0; i < 3; i++)
        if (pr[i].dlid != 72) /* 72 never answers */
            assert_true(reach_reply(r, pr[i].seq, pr[i].dlid, 1000, 1001 * MS));
    /* Discovery lists 70 only: 71 (answered) is kept as lost, 72 (never answered) dropped. */
    t = 1500 * MS;
    ch.n = 0;
    assert_int_equal(reach_set_peers(r, ids, 1, t), 0);
    p = reach_peers(r, &n);
    assert_int_equal(n, 2);
    assert_int_equal(p[1].guid, 0x6001);
    assert_int_equal(p[1].status, REACH_LOST);
    assert_false(p[1].has_service);
    assert_string_equal(reach_status_name(REACH_LOST), "lost");
    assert_int_equal(ch.n, 1);
    assert_int_equal(ch.from[0], REACH_REACHABLE);
    assert_int_equal(ch.to[0], REACH_LOST);
    assert_true(reach_notice_due(r, &i));
    assert_int_equal(i, 1);
    reach_notice_told(r, 1);
    /* Another rediscovery keeps it, unprobed, with its since time; the deadline covers its end. */
    assert_int_equal(reach_set_peers(r, ids, 1, t + 5000 * MS), 0);
    p = reach_peers(r, &n);
    assert_int_equal(n, 2);
    assert_int_equal(p[1].since_ns, t);
    assert_true(reach_next_deadline(r) <= t + 60000 * MS);
    assert_int_equal(ch.n, 1);
    /* Back in the subnet: probed at once, lost until it answers, then regained (notified). */
    assert_int_equal(reach_set_peers(r, ids, 2, t + 6000 * MS), 0);
    p = reach_peers(r, &n);
    assert_int_equal(n, 2);
    assert_int_equal(p[1].status, REACH_LOST);
    n = reach_due(r, t + 6000 * MS, pr, 4);
    for (i = 0; i < n; i++)
        assert_true(reach_reply(r, pr[i].seq, pr[i].dlid, 1000, t + 6001 * MS));
    assert_int_equal(reach_peers(r, &n)[1].status, REACH_REACHABLE);
    assert_int_equal(ch.from[ch.n - 1], REACH_LOST);
    assert_true(reach_notice_due(r, &i));
    reach_notice_told(r, i);
    /* Gone again: lost; kept until lost_keep_ns after it went, then forgotten. */
    t += 7000 * MS;
    assert_int_equal(reach_set_peers(r, ids, 1, t), 0);
    assert_int_equal(reach_peers(r, &n)[1].status, REACH_LOST);
    reach_expire(r, t + 59999 * MS);
    (void)reach_peers(r, &n);
    assert_int_equal(n, 2);
    reach_expire(r, t + 60000 * MS);
    (void)reach_peers(r, &n);
    assert_int_equal(n, 1);
    reach_destroy(r);

    /* Without lost_keep_ns a peer that left is dropped at once, as before. */
    memset(&ch, 0, sizeof(ch));
    r = reach_create(&cfg, record_change, &ch);
    assert_int_equal(reach_set_peers(r, ids, 2, 0), 0);
    n = reach_due(r, 1000 * MS, pr, 4);
    for (i = 0; i < n; i++)
        assert_true(reach_reply(r, pr[i].seq, pr[i].dlid, 1000, 1001 * MS));
    assert_int_equal(reach_set_peers(r, ids, 1, 2000 * MS), 0);
    (void)reach_peers(r, &n);
    assert_int_equal(n, 1);
    reach_destroy(r);
}

PZT_MAIN(test_bad_config, test_spread_and_reply, test_loss_and_recovery, test_rediscovery,
         test_no_agent, test_notices_due, test_lost_kept)
