/*
 * mad_txn.c - a client's MAD transactions (see mad_txn.h).
 */
#include "mad_txn.h"

#include <errno.h>
#include <string.h>

#include <infiniband/mad.h>

void mad_txns_init(struct mad_txns *t, uint8_t tag, uint64_t port_guid, mad_txn_send_fn send,
                   void *ctx)
{
    memset(t, 0, sizeof(*t));
    t->tag = tag;
    t->requester = (uint16_t)port_guid;
    t->send = send;
    t->send_ctx = ctx;
}

void mad_txns_set_lid(struct mad_txns *t, uint16_t lid)
{
    if (lid && lid < 0xC000)
        t->requester = lid;
}

/* Whether a transaction in flight has TID tid. */
static bool mad_txn_tid_busy(const struct mad_txns *t, uint32_t tid)
{
    for (unsigned i = 0; i < MAD_TXN_MAX; i++)
        if (t->txn[i].busy && t->txn[i].tid == tid)
            return true;
    return false;
}

/* The next TID: tag, requester, a sequence number no transaction in flight has. */
static uint32_t mad_txn_next_tid(struct mad_txns *t)
{
    uint32_t tid;

    do {
        t->seq++;
        tid = MAD_TXN_TAG(t->tag) | (uint32_t)t->requester << 8 | t->seq;
    } while (mad_txn_tid_busy(t, tid)); /* at most MAD_TXN_MAX of 256 are */
    return tid;
}

/* Send one copy of x's request at now and arm its timer; 0 or -EIO. */
static int mad_txn_send(struct mad_txns *t, struct mad_txn *x, uint64_t now)
{
    x->sent++;
    x->due = now + x->timeout;
    if (t->send(t->send_ctx, x->mad, &x->to)) {
        t->stats.send_failed++;
        return -EIO;
    }
    return 0;
}

int mad_txn_start(struct mad_txns *t, uint8_t *mad, const struct mad_addr *to, uint64_t now,
                  const struct mad_txn_timing *tm, mad_txn_done_fn done, void *arg, int *id,
                  uint32_t *tid)
{
    struct mad_txn *x = NULL;
    int i;

    if (!tm->tries)
        return -EINVAL;
    for (i = 0; i < MAD_TXN_MAX && !x; i++)
        if (!t->txn[i].busy)
            x = &t->txn[i];
    if (!x)
        return -ENOSPC;
    *x = (struct mad_txn){.busy = true,
                          .tid = mad_txn_next_tid(t),
                          .to = *to,
                          .timing = *tm,
                          .timeout = tm->timeout,
                          .done = done,
                          .arg = arg};
    mad_set_field64(mad, 0, IB_MAD_TRID_F, x->tid);
    memcpy(x->mad, mad, sizeof(x->mad));
    t->stats.started++;
    if (id)
        *id = (int)(x - t->txn);
    if (tid)
        *tid = x->tid;
    return mad_txn_send(t, x, now);
}

/* End x with status (and the answer) after freeing its slot. */
static void mad_txn_end(struct mad_txn *x, int status, const uint8_t *answer, size_t len)
{
    mad_txn_done_fn done = x->done;
    void *arg = x->arg;

    x->busy = false;
    if (done)
        done(arg, status, answer, len);
}

bool mad_txn_answer(struct mad_txns *t, const uint8_t *mad, size_t len)
{
    uint32_t tid = (uint32_t)mad_get_field64((void *)mad, 0, IB_MAD_TRID_F);

    for (unsigned i = 0; i < MAD_TXN_MAX; i++) {
        if (t->txn[i].busy && t->txn[i].tid == tid) {
            t->stats.answered++;
            mad_txn_end(&t->txn[i], 0, mad, len);
            return true;
        }
    }
    t->stats.stray++;
    return false;
}

void mad_txn_poll(struct mad_txns *t, uint64_t now)
{
    for (unsigned i = 0; i < MAD_TXN_MAX; i++) {
        struct mad_txn *x = &t->txn[i];

        if (!x->busy || now < x->due)
            continue;
        if (x->timing.tries != MAD_TXN_FOREVER && x->sent >= x->timing.tries) {
            t->stats.timed_out++;
            mad_txn_end(x, -ETIMEDOUT, NULL, 0);
            continue;
        }
        if (x->timing.timeout_max)
            x->timeout =
                x->timeout * 2 > x->timing.timeout_max ? x->timing.timeout_max : x->timeout * 2;
        t->stats.resent++;
        mad_txn_send(t, x, now); /* a refused copy is retried like a lost one */
    }
}

uint64_t mad_txn_deadline(const struct mad_txns *t)
{
    uint64_t next = UINT64_MAX;

    for (unsigned i = 0; i < MAD_TXN_MAX; i++)
        if (t->txn[i].busy && t->txn[i].due < next)
            next = t->txn[i].due;
    return next;
}

bool mad_txn_busy(const struct mad_txns *t, int id)
{
    return id >= 0 && id < MAD_TXN_MAX && t->txn[id].busy;
}

uint32_t mad_txn_sent(const struct mad_txns *t, int id)
{
    return mad_txn_busy(t, id) ? t->txn[id].sent : 0;
}

uint64_t mad_txn_due(const struct mad_txns *t, int id)
{
    return mad_txn_busy(t, id) ? t->txn[id].due : UINT64_MAX;
}

void mad_txn_cancel(struct mad_txns *t, int id)
{
    if (id >= 0 && id < MAD_TXN_MAX)
        t->txn[id].busy = false;
}

void mad_txn_cancel_all(struct mad_txns *t)
{
    for (unsigned i = 0; i < MAD_TXN_MAX; i++)
        t->txn[i].busy = false;
}
