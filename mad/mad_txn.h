/*
 * mad_txn.h - a client's MAD transactions: a request sent, then its answer or
 * its timeout, with retries.  Pure: no I/O and no clock of its own (the
 * caller gives the time, sends through a callback, hands in the answers the
 * MAD router gave it, and runs the retry timer from its loop).
 *
 * A transaction keeps a copy of its request and resends that same MAD, with
 * the same TID, each time its timeout passes (the timeout doubling up to a
 * cap, if the caller asks for a backoff) until it has been sent `tries`
 * times; then it ends with -ETIMEDOUT.  An answer to any copy ends it (a
 * late answer to an earlier copy too).  Times are in the caller's unit (the
 * agent's ns, the IPoIB endpoint's ms).
 *
 * TID: the MAD layer (the kernel's umad, umad2sim) owns the high 32 bits, so
 * a transaction is the low 32:
 *   bits 31-24  the client's tag (the router hands it the answers: mask
 *               MAD_TXN_TAG_MASK, tag MAD_TXN_TAG(tag))
 *   bits 23-8   the requester: this switch's LID, or the low 16 bits of its
 *               port GUID while it has none, so that two agents of one
 *               subnet never send the same TID (an SA serves them all)
 *   bits 7-0    a sequence number, never one of a transaction in flight
 */
#ifndef PZ_MAD_TXN_H
#define PZ_MAD_TXN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/mad.h>

#include "mad.h"

/* Transactions of one client in flight at once. */
#define MAD_TXN_MAX 64

#define MAD_TXN_TAG_MASK 0xFF000000u
#define MAD_TXN_TAG(tag) ((uint32_t)(tag) << 24)

/* Sends until a transaction gives up: it runs until answered or cancelled. */
#define MAD_TXN_FOREVER UINT32_MAX

/* When a transaction's copies go out. */
struct mad_txn_timing {
    uint64_t timeout;     /* after the first copy */
    uint64_t timeout_max; /* 0: every timeout is `timeout`; else each doubles up to this */
    uint32_t tries;       /* copies in all (MAD_TXN_FOREVER: no limit) */
};

/* How a request MAD (IB_MAD_SIZE bytes) goes out: 0, or -1 when it could not. */
typedef int (*mad_txn_send_fn)(void *ctx, const uint8_t *mad, const struct mad_addr *to);

/*
 * How a transaction ended: status 0 with its answer (len bytes: a reassembled
 * RMPP answer is longer than a MAD), or -ETIMEDOUT (answer NULL).  The
 * transaction is gone when this runs; it may start new ones.
 */
typedef void (*mad_txn_done_fn)(void *arg, int status, const uint8_t *answer, size_t len);

/* One transaction in flight. */
struct mad_txn {
    bool busy;
    uint32_t tid; /* low 32 bits */
    uint8_t mad[IB_MAD_SIZE];
    struct mad_addr to;
    struct mad_txn_timing timing;
    uint64_t timeout, due; /* the current timeout; when the next copy or the end is due */
    uint32_t sent;
    mad_txn_done_fn done;
    void *arg;
};

/* Counters. */
struct mad_txn_stats {
    uint64_t started, resent, answered, timed_out;
    uint64_t stray;       /* answers carrying the tag that no transaction in flight awaits */
    uint64_t send_failed; /* copies the send callback refused */
};

/* A client's transactions. */
struct mad_txns {
    uint8_t tag;
    uint16_t requester;
    uint8_t seq;
    mad_txn_send_fn send;
    void *send_ctx;
    struct mad_txn txn[MAD_TXN_MAX];
    struct mad_txn_stats stats;
};

/*
 * No transactions yet: tag for TID bits 31-24, sends through send(ctx, ...),
 * the requester part from port_guid until mad_txns_set_lid() gives a LID.
 */
void mad_txns_init(struct mad_txns *t, uint8_t tag, uint64_t port_guid, mad_txn_send_fn send,
                   void *ctx);

/* This switch's LID (a unicast one; 0: none yet, the GUID's part stays) for later TIDs. */
void mad_txns_set_lid(struct mad_txns *t, uint16_t lid);

/*
 * Start a transaction at now: the request mad (IB_MAD_SIZE bytes; its TID is
 * written here) to *to, resent as *tm says until sent tm->tries times, then
 * done(arg, -ETIMEDOUT, NULL, 0); an answer first: done(arg, 0, answer, len)
 * (which may run before this returns, when the send callback hands the
 * answer straight back).
 * Returns 0 with the first copy sent; -EIO: it was not sent but the
 * transaction stands (the timer resends it; mad_txn_cancel() gives up);
 * with either, *id (may be NULL) is its id and *tid (may be NULL) the TID's
 * low 32 bits (both written before the first copy leaves).  -ENOSPC: no
 * room, -EINVAL: no tries; nothing started.
 */
int mad_txn_start(struct mad_txns *t, uint8_t *mad, const struct mad_addr *to, uint64_t now,
                  const struct mad_txn_timing *tm, mad_txn_done_fn done, void *arg, int *id,
                  uint32_t *tid);

/* The copies transaction id has sent so far (0: not in flight). */
uint32_t mad_txn_sent(const struct mad_txns *t, int id);

/* When transaction id's next copy (or its end) is due; UINT64_MAX: not in flight. */
uint64_t mad_txn_due(const struct mad_txns *t, int id);

/*
 * An answer the router gave this client (len bytes, at least the MAD
 * header): the transaction with its TID ends with it.  Returns false for a
 * stray (no such transaction in flight: counted, nothing else happens).
 */
bool mad_txn_answer(struct mad_txns *t, const uint8_t *mad, size_t len);

/* Resend what is due by now, end what has had its tries (-ETIMEDOUT). */
void mad_txn_poll(struct mad_txns *t, uint64_t now);

/* When the next resend or timeout is due; UINT64_MAX with nothing in flight. */
uint64_t mad_txn_deadline(const struct mad_txns *t);

/* Whether transaction id is in flight. */
bool mad_txn_busy(const struct mad_txns *t, int id);

/* End transaction id without calling its done (nothing in flight: nothing happens). */
void mad_txn_cancel(struct mad_txns *t, int id);

/* End every transaction without calling done. */
void mad_txn_cancel_all(struct mad_txns *t);

#endif
