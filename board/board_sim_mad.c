/*
 * board_sim_mad.c - the switch's port-0 MADs over the board/sim connection:
 * the queue of MADs received while a board request waited, receiving a
 * batch per system call, sending, and the receive record of the last SMP
 * (board_sim_mad.h).
 *
 * The MAD header's bytes are read by offset here (class at 1, method at 3,
 * a directed-route SMP's hop pointer at 6, the TID at 8..15): board/ calls
 * the C library only, and these are the four fields the queue needs.
 */
#define _GNU_SOURCE /* recvmmsg() */
#include "board_sim_mad.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define MAD_CLASS_OFFS 1
#define MAD_METHOD_OFFS 3
#define MAD_HOP_PTR_OFFS 6
#define MAD_CLASS_SMI 0x01
#define MAD_CLASS_SMI_DR 0x81
#define MAD_METHOD_RESPONSE 0x80
/* Batches one look at the socket reads at most (BOARD_SIM_MAD_QUEUE's worth). */
#define BOARD_SIM_MADQ_ROUNDS (BOARD_SIM_MAD_QUEUE / BOARD_SIM_MAD_BATCH)

int board_sim_madq_init(struct board_sim_madq *q)
{
    memset(q, 0, sizeof(*q));
    q->ring = calloc(BOARD_SIM_MAD_QUEUE, sizeof(*q->ring));
    q->rxbuf = malloc(BOARD_SIM_MAD_BATCH * BOARD_SIM_MADQ_BUF);
    if (q->ring && q->rxbuf)
        return 0;
    board_sim_madq_free(q);
    return -1;
}

void board_sim_madq_free(struct board_sim_madq *q)
{
    free(q->ring);
    free(q->rxbuf);
    memset(q, 0, sizeof(*q));
}

/* Whether a MAD is an SMP request (class SMI or directed-route SMI, not a response). */
static bool madq_is_smp_request(const uint8_t *mad)
{
    uint8_t cls = mad[MAD_CLASS_OFFS];

    return (cls == MAD_CLASS_SMI || cls == MAD_CLASS_SMI_DR) &&
           !(mad[MAD_METHOD_OFFS] & MAD_METHOD_RESPONSE);
}

void board_sim_madq_push(struct board_sim_madq *q, const struct board_sim_msg *m)
{
    struct board_sim_mad *slot;
    bool smp;

    if (!q->ring)
        return; /* MADs were not asked for: a confused fabric's are dropped */
    if (q->count == BOARD_SIM_MAD_QUEUE) {
        q->dropped++;
        return;
    }
    slot = &q->ring[(q->head + q->count) % BOARD_SIM_MAD_QUEUE];
    if (board_sim_unpack_mad(m, slot) != 0)
        return;
    smp = madq_is_smp_request(slot->mad);
    if (smp && q->smps >= BOARD_SIM_SMP_DEPTH) {
        q->smp_dropped++; /* QP0's receive queue is full: VL15Dropped */
        q->smp_dropped_on[slot->port]++;
        return;
    }
    q->smps += smp;
    q->count++;
}

/* Remember what the fabric said of an SMP request being taken: its receive record. */
static void madq_note_rx(struct board_sim_madq *q, const struct board_sim_mad *m)
{
    if (!madq_is_smp_request(m->mad))
        return;
    q->smps--;
    q->have_last = true;
    q->last_tid = mad_tid(m->mad);
    q->last_rx.port = m->port;
    q->last_rx.hop_ptr = m->mad[MAD_HOP_PTR_OFFS];
    memcpy(q->last_rx.tail, m->mad + BOARD_MAD_TAIL_OFFS, BOARD_MAD_TAIL);
}

/* Take the oldest queued MAD into *m; false when the queue is empty. */
static bool madq_pop(struct board_sim_madq *q, struct board_sim_mad *m)
{
    if (!q->count)
        return false;
    *m = q->ring[q->head];
    q->head = (q->head + 1) % BOARD_SIM_MAD_QUEUE;
    q->count--;
    madq_note_rx(q, m);
    return true;
}

int board_sim_madq_rx(const struct board_sim_madq *q, uint64_t tid, struct board_mad_rx *rx)
{
    if (!q->have_last || q->last_tid != tid)
        return -ENOENT;
    *rx = q->last_rx;
    return 0;
}

static int madq_recv_batch(struct board_sim *bs, struct board_sim_madq *q, struct mmsghdr *msgs,
                           struct iovec *iov);

/*
 * Read what waits on the socket, up to BOARD_SIM_MAD_BATCH messages in one
 * recvmmsg(), and take each (MADs into the queue).  Returns 0, or -ENOTCONN
 * when the fabric closed the connection.
 */
static int madq_fill(struct board_sim *bs, struct board_sim_madq *q)
{
    struct mmsghdr msgs[BOARD_SIM_MAD_BATCH];
    struct iovec iov[BOARD_SIM_MAD_BATCH];
    struct board_sim_msg m;
    int got = madq_recv_batch(bs, q, msgs, iov);

    if (got < 0)
        return -ENOTCONN;
    q->drained = got < BOARD_SIM_MAD_BATCH;
    for (int k = 0; k < got; k++) {
        if (msgs[k].msg_len == 0)
            return -ENOTCONN; /* end of the connection */
        if (board_sim_msg_decode(iov[k].iov_base, msgs[k].msg_len, &m) == 0)
            board_sim_take_msg(bs, &m);
    }
    return 0;
}

/* Receive what waits (recvmmsg into the queue's buffers); the count, or -1 at the end. */
static int madq_recv_batch(struct board_sim *bs, struct board_sim_madq *q, struct mmsghdr *msgs,
                           struct iovec *iov)
{
    int got;

    for (unsigned k = 0; k < BOARD_SIM_MAD_BATCH; k++) {
        iov[k] = (struct iovec){.iov_base = q->rxbuf + k * BOARD_SIM_MADQ_BUF,
                                .iov_len = BOARD_SIM_MADQ_BUF};
        msgs[k] = (struct mmsghdr){.msg_hdr = {.msg_iov = &iov[k], .msg_iovlen = 1}};
    }
    got = recvmmsg(board_sim_fd(bs), msgs, BOARD_SIM_MAD_BATCH, MSG_DONTWAIT, NULL);
    if (got < 0)
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
    return got ? got : -1;
}

int board_sim_madq_await(struct board_sim *bs, uint32_t seq, uint16_t op, int timeout_ms,
                         board_sim_answer_fn answer, void *arg)
{
    struct board_sim_madq *q = board_sim_madq_of(bs);
    struct pollfd pfd = {.fd = board_sim_fd(bs), .events = POLLIN};
    struct mmsghdr msgs[BOARD_SIM_MAD_BATCH];
    struct iovec iov[BOARD_SIM_MAD_BATCH];
    struct board_sim_msg m;
    bool done = false;

    while (!done) {
        int got;

        if (poll(&pfd, 1, timeout_ms) != 1 || (got = madq_recv_batch(bs, q, msgs, iov)) < 0)
            return -1;
        for (int k = 0; k < got; k++) {
            if (msgs[k].msg_len == 0)
                return -1; /* the fabric closed the connection */
            if (board_sim_msg_decode(iov[k].iov_base, msgs[k].msg_len, &m))
                return -1;
            if (!done && m.seq == seq && m.op == op)
                done = answer(arg, &m);
            else
                board_sim_take_msg(bs, &m); /* MADs and events; older answers skipped */
        }
    }
    return 0;
}

/*
 * Read the socket to its end (at most BOARD_SIM_MADQ_ROUNDS batches), so
 * that SMPs beyond the receive queue's depth are dropped as they arrive
 * instead of waiting on the socket.  Returns 0 or -ENOTCONN.
 */
static int madq_fill_all(struct board_sim *bs, struct board_sim_madq *q)
{
    q->since_fill = 0;
    for (unsigned r = 0; r < BOARD_SIM_MADQ_ROUNDS && !q->drained; r++) {
        int rc = madq_fill(bs, q);

        if (rc)
            return rc;
    }
    return 0;
}

int board_sim_mad_recv(struct board_sim *bs, struct board_sim_mad *m)
{
    struct board_sim_madq *q = board_sim_madq_of(bs);
    int rc;

    if (!q->ring)
        return 0;
    /* every batch taken, look at what waits behind it (one recvmmsg when quiet) */
    if (++q->since_fill > BOARD_SIM_MAD_BATCH && (rc = madq_fill_all(bs, q)))
        return rc;
    while (!madq_pop(q, m)) {
        if (q->drained)
            return 0;
        rc = madq_fill(bs, q); /* a full batch of port events: round again */
        if (rc)
            return rc;
    }
    return 1;
}

bool board_sim_mad_pending(const struct board_sim *bs)
{
    return board_sim_madq_of((struct board_sim *)bs)->count > 0;
}

unsigned long board_sim_mad_dropped(const struct board_sim *bs)
{
    return board_sim_madq_of((struct board_sim *)bs)->dropped;
}

unsigned long board_sim_smp_dropped(const struct board_sim *bs)
{
    return board_sim_madq_of((struct board_sim *)bs)->smp_dropped;
}

void board_sim_note_vl15_dropped(struct board_sim *bs, unsigned port, unsigned long n)
{
    if (port < 256)
        board_sim_madq_of(bs)->vl15_noted[port] += n;
}
