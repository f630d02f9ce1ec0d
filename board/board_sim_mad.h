/*
 * board_sim_mad.h - the switch's port-0 MADs over the board/sim connection
 * (protocol version 4, BOARD_SIM_ATTACH_MADS in board_sim_proto.h).
 *
 * An agent that attaches with board_sim_connect_flags(..., BOARD_SIM_ATTACH_MADS)
 * needs no umad port: pzfabric hands it the MADs that end at its switch on
 * the board connection and routes the MADs it sends there, as it does a
 * umad client's.  One socket carries the board requests, the fabric's port
 * events and the MADs, so MADs that arrive while a board request waits for
 * its answer are kept in a queue here; board_sim_mad_pending() says when
 * the queue holds some, so an event loop does not sleep on them.
 *
 * Receiving takes every message waiting on the socket in one recvmmsg()
 * (at most BOARD_SIM_MAD_BATCH); after a receive that found the socket
 * empty, board_sim_mad_recv() answers "none" without a system call until
 * board_sim_wake() says the agent woke up again.  Sending is one send() per
 * MAD, as the kernel's umad write.
 */
#ifndef PZ_BOARD_SIM_MAD_H
#define PZ_BOARD_SIM_MAD_H

#include <stdbool.h>
#include <stdint.h>

#include "board.h"
#include "board_sim.h"
#include "board_sim_proto.h"

#define BOARD_SIM_MAD_BATCH 16   /* messages one recvmmsg() takes at most */
#define BOARD_SIM_POSTED_MAX 16  /* posted writes held for the next send */
#define BOARD_SIM_MAD_QUEUE 1024 /* MADs kept while board requests wait */
/*
 * SMP requests kept at once: the management port's receive queue (QP0).
 * One more arriving while it is full is dropped and counted in the
 * VL15Dropped of the port it entered by (IBA 16.1.3.5: "incoming VL15
 * packets dropped due to resource limitations ... in the port");
 * a flood then costs the agent a receive each, never a backlog that the
 * SM's own SMPs wait behind.  (Linux posts 512 receive buffers per QP;
 * a switch's management CPU keeps fewer.)
 */
#define BOARD_SIM_SMP_DEPTH 128

/*
 * Connect to pzfabric's "<sockname>:board" socket and attach to node as
 * board_sim_connect() does, asking for the ATTACH flags in flags
 * (BOARD_SIM_ATTACH_MADS: carry the switch's MADs here).  A fabric that
 * does not grant a flag asked for is refused with a message in err.
 */
struct board_sim *board_sim_connect_flags(const char *sockname, const char *node, unsigned flags,
                                          char *err, size_t errlen);

/* Same over a connected SOCK_SEQPACKET descriptor (tests, fuzzing); owns fd. */
struct board_sim *board_sim_attach_fd_flags(int fd, const char *node, unsigned flags, char *err,
                                            size_t errlen);

/* Whether the connection carries the switch's MADs. */
bool board_sim_carries_mads(const struct board_sim *bs);

/*
 * Receive one MAD without blocking: 1 with *m filled, 0 when none waits,
 * -ENOTCONN when the fabric closed the connection.  Port events found on
 * the way are taken; a malformed message is skipped.
 */
int board_sim_mad_recv(struct board_sim *bs, struct board_sim_mad *m);

/* Whether MADs wait in the queue (the socket need not be readable for them). */
bool board_sim_mad_pending(const struct board_sim *bs);

/* Send one MAD (never answered); 0, or -EIO when the fabric is gone. */
int board_sim_mad_send(struct board_sim *bs, const struct board_sim_mad *m);

/*
 * Send the posted writes (LFT blocks) held back: with the MADs on this
 * connection they go out with the next message (the SetResp that follows
 * them, one sendmmsg), which the fabric reads after them; this sends them
 * alone.  0, or -EIO.
 */
int board_sim_flush(struct board_sim *bs);

/* MADs dropped because the queue was full (the fabric times their requests out). */
unsigned long board_sim_mad_dropped(const struct board_sim *bs);

/* SMP requests dropped because BOARD_SIM_SMP_DEPTH of them waited already. */
unsigned long board_sim_smp_dropped(const struct board_sim *bs);

/*
 * Count n SMPs that entered by port and that the agent's own receive queue
 * dropped (the umad transport's reader): they show in that port's
 * VL15Dropped with the ones dropped here.
 */
void board_sim_note_vl15_dropped(struct board_sim *bs, unsigned port, unsigned long n);

/* ---- Internal to board/: the queue board_sim.c keeps, and its hooks. ---- */

/* Room for one received message (one byte more: a longer one is malformed). */
#define BOARD_SIM_MADQ_BUF (sizeof(struct board_sim_msg) + 1)

struct board_sim_madq {
    struct board_sim_mad *ring; /* BOARD_SIM_MAD_QUEUE entries; NULL: MADs not carried */
    uint8_t *rxbuf;             /* BOARD_SIM_MAD_BATCH receive buffers */
    unsigned head, count;
    bool drained;              /* the last receive found the socket empty (until the next wake) */
    unsigned long dropped;     /* arrived with the queue full */
    unsigned smps;             /* SMP requests in the ring (at most BOARD_SIM_SMP_DEPTH) */
    unsigned long smp_dropped; /* SMP requests that found BOARD_SIM_SMP_DEPTH waiting */
    unsigned long smp_dropped_on[256]; /* the same by ingress port */
    unsigned long vl15_noted[256];     /* drops the agent counted (board_sim_note_vl15_dropped) */
    unsigned since_fill;               /* MADs taken since the socket was last read to the end */
    bool have_last;                    /* the receive record of the last request taken */
    uint64_t last_tid;
    struct board_mad_rx last_rx;
};

/* Allocate the queue; 0 or -1. */
int board_sim_madq_init(struct board_sim_madq *q);
/* Free it. */
void board_sim_madq_free(struct board_sim_madq *q);
/* Keep a decoded BOARD_SIM_MAD message (malformed or no room: dropped). */
void board_sim_madq_push(struct board_sim_madq *q, const struct board_sim_msg *m);
/* The receive record of the last SMP request taken, if it has tid: 0 or -ENOENT. */
int board_sim_madq_rx(const struct board_sim_madq *q, uint64_t tid, struct board_mad_rx *rx);

/* One answer to a request (decoded); returns true when it was the last one wanted. */
typedef bool (*board_sim_answer_fn)(void *arg, const struct board_sim_msg *m);

/*
 * Wait (poll, at most timeout_ms each time) for the answers with seq and op,
 * receiving in batches: each goes to answer(arg, m) until it says it was the
 * last; MADs and port events that come between are taken.  0, or -1
 * (timeout, a malformed message, the end of the connection).
 */
int board_sim_madq_await(struct board_sim *bs, uint32_t seq, uint16_t op, int timeout_ms,
                         board_sim_answer_fn answer, void *arg);

/* board_sim.c: the queue of bs, and one message received outside a request's wait. */
struct board_sim_madq *board_sim_madq_of(struct board_sim *bs);
void board_sim_take_msg(struct board_sim *bs, const struct board_sim_msg *m);

#endif /* PZ_BOARD_SIM_MAD_H */
