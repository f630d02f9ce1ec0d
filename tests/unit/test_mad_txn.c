/*
 * test_mad_txn.c - mad/mad_txn, the one MAD transaction layer: an answer
 * ends a transaction, no answer after the tries is a timeout, a retry resends
 * the same MAD with the same TID, a late answer to an earlier copy still
 * ends it, TIDs carry the requester (LID, else the port GUID's low bits),
 * strays and a refused send.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "mad_header.h"
#include "mad_txn.h"
#include "pzt_main.h"

#define SEC 1000000000ull

/* What the fake transport sent and what the transactions ended with. */
struct fx {
    struct mad_txns t;
    unsigned sent;
    uint8_t last[IB_MAD_SIZE];
    struct mad_addr last_to;
    bool refuse; /* the send callback fails */
    unsigned done;
    int status;
    size_t len;
    void *arg;
};

/* Fake transport: keeps the copy. */
static int fx_send(void *ctx, const uint8_t *mad, const struct mad_addr *to)
{
    struct fx *f = ctx;

    if (f->refuse)
        return -1;
    f->sent++;
    memcpy(f->last, mad, IB_MAD_SIZE);
    f->last_to = *to;
    return 0;
}

/* Completion: what it was given. */
static void fx_done(void *arg, int status, const uint8_t *answer, size_t len)
{
    struct fx *f = *(struct fx **)arg;

    f->done++;
    f->status = status;
    f->len = answer ? len : 0;
    f->arg = arg;
}

static struct fx *fx_self; /* the completion's arg points here */

/* A table with tag 0x72, port GUID ...1234, no LID yet. */
static void fx_init(struct fx *f)
{
    memset(f, 0, sizeof(*f));
    fx_self = f;
    mad_txns_init(&f->t, 0x72, 0x0002c90000001234ull, fx_send, f);
}

/* A SubnAdmGet request (TID 0: the layer writes it). */
static void fx_request(uint8_t *mad)
{
    mad_header_init(mad, IB_SA_CLASS, 2, IB_MAD_METHOD_GET, 0, IB_SA_ATTR_NODERECORD, 0);
}

/* The answer to tid (the R bit), as the SA would send it; the MAD layer's high bits set. */
static void fx_answer(uint8_t *mad, uint32_t tid)
{
    mad_header_init(mad, IB_SA_CLASS, 2, IB_MAD_METHOD_GET_RESPONSE, 0x0000000700000000ull | tid,
                    IB_SA_ATTR_NODERECORD, 0);
}

static const struct mad_addr to_sm = {.dlid = 1, .dst_qp = 1, .lid_routed = true};

/* Timeouts and tries of the tests. */
static const struct mad_txn_timing four_s_3 = {.timeout = 4 * SEC, .tries = 3};
static const struct mad_txn_timing no_tries = {.timeout = SEC, .tries = 0};
static const struct mad_txn_timing one_s_1 = {.timeout = SEC, .tries = 1};
static const struct mad_txn_timing one_s_2 = {.timeout = SEC, .tries = 2};
static const struct mad_txn_timing one_s_3 = {.timeout = SEC, .tries = 3};

/* An answer ends the transaction with status 0 and its length; a second copy is a stray. */
static void test_answer(void **state)
{
    struct fx f;
    uint8_t mad[IB_MAD_SIZE], ans[IB_MAD_SIZE];
    uint32_t tid;
    int id;

    fx_init(&f);
    fx_request(mad);
    assert_int_equal(mad_txn_start(&f.t, mad, &to_sm, 100, &four_s_3, fx_done, &fx_self, &id, &tid),
                     0);
    assert_int_equal(f.sent, 1);
    assert_int_equal(f.last_to.dlid, 1);
    assert_int_equal((uint32_t)mad_get_field64(f.last, 0, IB_MAD_TRID_F), tid);
    assert_true(mad_txn_busy(&f.t, id));
    assert_int_equal(mad_txn_deadline(&f.t), 100 + 4 * SEC);
    fx_answer(ans, tid);
    assert_true(mad_txn_answer(&f.t, ans, 300)); /* a reassembled answer's length */
    assert_int_equal(f.done, 1);
    assert_int_equal(f.status, 0);
    assert_int_equal(f.len, 300);
    assert_ptr_equal(f.arg, &fx_self);
    assert_false(mad_txn_busy(&f.t, id));
    assert_int_equal(mad_txn_deadline(&f.t), UINT64_MAX);
    assert_false(mad_txn_answer(&f.t, ans, IB_MAD_SIZE));
    assert_int_equal(f.done, 1);
    assert_int_equal(f.t.stats.stray, 1);
}

/* No answer: resent at each timeout, -ETIMEDOUT after the tries, nothing sent after. */
static void test_timeout(void **state)
{
    struct fx f;
    uint8_t mad[IB_MAD_SIZE];

    fx_init(&f);
    fx_request(mad);
    assert_int_equal(mad_txn_start(&f.t, mad, &to_sm, 0, &one_s_3, fx_done, &fx_self, NULL, NULL),
                     0);
    mad_txn_poll(&f.t, SEC - 1); /* not yet */
    assert_int_equal(f.sent, 1);
    mad_txn_poll(&f.t, SEC);
    assert_int_equal(f.sent, 2);
    mad_txn_poll(&f.t, 2 * SEC);
    assert_int_equal(f.sent, 3);
    assert_int_equal(f.done, 0);
    mad_txn_poll(&f.t, 3 * SEC);
    assert_int_equal(f.sent, 3);
    assert_int_equal(f.done, 1);
    assert_int_equal(f.status, -ETIMEDOUT);
    assert_int_equal(f.t.stats.timed_out, 1);
    assert_int_equal(mad_txn_deadline(&f.t), UINT64_MAX);
    mad_txn_poll(&f.t, 10 * SEC);
    assert_int_equal(f.sent, 3);
    assert_int_equal(f.done, 1);
}

/* A retry is the same MAD with the same TID (the kernel's MAD layer resends alike). */
static void test_retry_keeps_tid(void **state)
{
    struct fx f;
    uint8_t mad[IB_MAD_SIZE], first[IB_MAD_SIZE];
    uint32_t tid;

    fx_init(&f);
    fx_request(mad);
    assert_int_equal(mad_txn_start(&f.t, mad, &to_sm, 0, &one_s_3, fx_done, &fx_self, NULL, &tid),
                     0);
    memcpy(first, f.last, IB_MAD_SIZE);
    mad_txn_poll(&f.t, SEC);
    assert_int_equal(f.sent, 2);
    assert_memory_equal(f.last, first, IB_MAD_SIZE);
    assert_int_equal((uint32_t)mad_get_field64(f.last, 0, IB_MAD_TRID_F), tid);
    assert_int_equal(f.t.stats.resent, 1);
}

/* The answer to the first copy arriving after the retry still ends the transaction. */
static void test_late_answer(void **state)
{
    struct fx f;
    uint8_t mad[IB_MAD_SIZE], ans[IB_MAD_SIZE];
    uint32_t tid;

    fx_init(&f);
    fx_request(mad);
    assert_int_equal(mad_txn_start(&f.t, mad, &to_sm, 0, &one_s_3, fx_done, &fx_self, NULL, &tid),
                     0);
    mad_txn_poll(&f.t, SEC);
    mad_txn_poll(&f.t, 2 * SEC); /* two retries out */
    fx_answer(ans, tid);         /* the answer to the first */
    assert_true(mad_txn_answer(&f.t, ans, IB_MAD_SIZE));
    assert_int_equal(f.done, 1);
    assert_int_equal(f.status, 0);
    mad_txn_poll(&f.t, 5 * SEC);
    assert_int_equal(f.done, 1); /* no timeout after it */
    assert_int_equal(f.sent, 3);
}

/* TIDs: tag, requester (the GUID's low 16 bits, then the LID), a sequence unique in flight. */
static void test_tid_layout(void **state)
{
    struct fx f, g;
    uint8_t mad[IB_MAD_SIZE];
    uint32_t a, b, c, d;

    fx_init(&f);
    fx_request(mad);
    assert_int_equal(mad_txn_start(&f.t, mad, &to_sm, 0, &one_s_1, fx_done, &fx_self, NULL, &a), 0);
    assert_int_equal(a & 0xFFFFFF00u, 0x72123400u);
    assert_int_equal(mad_txn_start(&f.t, mad, &to_sm, 0, &one_s_1, fx_done, &fx_self, NULL, &b), 0);
    assert_int_not_equal(a, b);
    mad_txns_set_lid(&f.t, 0xC001); /* multicast: not a requester */
    mad_txns_set_lid(&f.t, 0);
    assert_int_equal(mad_txn_start(&f.t, mad, &to_sm, 0, &one_s_1, fx_done, &fx_self, NULL, &c), 0);
    assert_int_equal(c & 0xFFFFFF00u, 0x72123400u);
    mad_txns_set_lid(&f.t, 0x0007);
    assert_int_equal(mad_txn_start(&f.t, mad, &to_sm, 0, &one_s_1, fx_done, &fx_self, NULL, &d), 0);
    assert_int_equal(d & 0xFFFFFF00u, 0x72000700u);
    /* Another switch's agent: same tag, same sequence, its own LID: another TID. */
    memset(&g, 0, sizeof(g));
    mad_txns_init(&g.t, 0x72, 0x0002c90000001234ull, fx_send, &g);
    mad_txns_set_lid(&g.t, 0x0008);
    for (unsigned i = 0; i < 4; i++)
        assert_int_equal(mad_txn_start(&g.t, mad, &to_sm, 0, &one_s_1, NULL, NULL, NULL, &b), 0);
    assert_int_equal(b & 0xFFu, d & 0xFFu);
    assert_int_not_equal(b, d);
}

/* A refused first copy: -EIO, the transaction stands and the timer resends it. */
static void test_refused_send(void **state)
{
    struct fx f;
    uint8_t mad[IB_MAD_SIZE];
    int id;

    fx_init(&f);
    fx_request(mad);
    f.refuse = true;
    assert_int_equal(mad_txn_start(&f.t, mad, &to_sm, 0, &one_s_2, fx_done, &fx_self, &id, NULL),
                     -EIO);
    assert_true(mad_txn_busy(&f.t, id));
    f.refuse = false;
    mad_txn_poll(&f.t, SEC);
    assert_int_equal(f.sent, 1);
    mad_txn_cancel(&f.t, id);
    assert_false(mad_txn_busy(&f.t, id));
    mad_txn_poll(&f.t, 5 * SEC);
    assert_int_equal(f.done, 0); /* a cancelled one never ends by itself */
}

/* The table holds MAD_TXN_MAX, all with different TIDs; then -ENOSPC; tries 0 is -EINVAL. */
static void test_full(void **state)
{
    struct fx f;
    uint8_t mad[IB_MAD_SIZE];
    uint32_t tids[MAD_TXN_MAX];

    fx_init(&f);
    fx_request(mad);
    for (unsigned i = 0; i < MAD_TXN_MAX; i++) {
        assert_int_equal(
            mad_txn_start(&f.t, mad, &to_sm, 0, &one_s_1, fx_done, &fx_self, NULL, &tids[i]), 0);
        for (unsigned j = 0; j < i; j++)
            assert_int_not_equal(tids[i], tids[j]);
    }
    assert_int_equal(mad_txn_start(&f.t, mad, &to_sm, 0, &one_s_1, fx_done, &fx_self, NULL, NULL),
                     -ENOSPC);
    mad_txn_cancel_all(&f.t);
    assert_int_equal(mad_txn_start(&f.t, mad, &to_sm, 0, &no_tries, fx_done, &fx_self, NULL, NULL),
                     -EINVAL);
    assert_int_equal(mad_txn_deadline(&f.t), UINT64_MAX);
}

/* A backoff: each timeout doubles up to the cap; MAD_TXN_FOREVER never gives up. */
static void test_backoff(void **state)
{
    static const struct mad_txn_timing backoff = {
        .timeout = 1000, .timeout_max = 16000, .tries = MAD_TXN_FOREVER};
    const uint64_t due[] = {1000, 3000, 7000, 15000, 31000, 47000, 63000};
    struct fx f;
    uint8_t mad[IB_MAD_SIZE];
    int id;

    fx_init(&f);
    fx_request(mad);
    assert_int_equal(mad_txn_start(&f.t, mad, &to_sm, 0, &backoff, fx_done, &fx_self, &id, NULL),
                     0);
    for (unsigned i = 0; i < sizeof(due) / sizeof(due[0]); i++) {
        assert_int_equal(mad_txn_due(&f.t, id), due[i]);
        assert_int_equal(mad_txn_sent(&f.t, id), i + 1);
        mad_txn_poll(&f.t, due[i]);
    }
    assert_int_equal(f.done, 0);
    assert_int_equal(f.sent, 8);
    mad_txn_cancel(&f.t, id);
    assert_int_equal(mad_txn_sent(&f.t, id), 0);
    assert_int_equal(mad_txn_due(&f.t, id), UINT64_MAX);
}

PZT_MAIN(test_answer, test_timeout, test_retry_keeps_tid, test_late_answer, test_tid_layout,
         test_refused_send, test_full, test_backoff)
