/*
 * pz_echo.h - the switch-to-switch echo service on the port-0 datagram QP.
 *
 * A request datagram is answered with a reply of the same length carrying
 * the same sequence number, timestamp and padding; a reply matches a
 * request this agent sent (pz_echo_ping_start).  Everything else is counted
 * and dropped.  The service only uses the board_dgram_* operations of an
 * already opened QP, so it runs on board/sim (pzfabric) and on board_mem.
 *
 * Wire format (the UD payload; integers big-endian):
 *
 *   off size field
 *     0   4  magic 0x505a4543 ("PZEC")
 *     4   1  version (1)
 *     5   1  type: 1 request, 2 reply
 *     6   2  flags: bit 0 (PZ_ECHO_FLAG_PROBE) marks a reachability probe,
 *               the other bits are 0 when sent and ignored when received;
 *               a reply carries the request's flags unchanged
 *     8   4  sequence number
 *    12   8  sender's timestamp (ns of the requester's board clock)
 *    20   -  padding, any bytes (0..4076): echoed unchanged
 *
 * A reply is the request with type 2: it goes to the request's SLID and
 * source QP with its SL and P_Key (a GRH is answered with a GRH, SGID and
 * DGID swapped), and with the service's Q_Key, which is the one the request
 * was delivered with: requester and responder share one Q_Key
 * (PZ_ECHO_QKEY_DEFAULT unless configured).
 */
#ifndef PZ_ECHO_H
#define PZ_ECHO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "board.h"

#define PZ_ECHO_MAGIC 0x505a4543u /* "PZEC" */
#define PZ_ECHO_VERSION 1
#define PZ_ECHO_HDR_LEN 20
#define PZ_ECHO_QKEY_DEFAULT 0x505a0001u /* high bit clear: not a controlled Q_Key */
#define PZ_ECHO_FLAG_PROBE 0x0001u       /* a reachability probe (pz_echo_probe_send) */

enum pz_echo_type {
    PZ_ECHO_REQUEST = 1,
    PZ_ECHO_REPLY = 2,
};

/* The fixed header of an echo datagram. */
struct pz_echo_hdr {
    uint8_t type;   /* enum pz_echo_type */
    uint16_t flags; /* PZ_ECHO_FLAG_* */
    uint32_t seq;
    uint64_t ts_ns;
};

/* Why a datagram was not an echo datagram (pz_echo_decode). */
enum pz_echo_error {
    PZ_ECHO_OK = 0,
    PZ_ECHO_SHORT = 1,       /* shorter than the header */
    PZ_ECHO_BAD_MAGIC = 2,   /* not "PZEC" */
    PZ_ECHO_BAD_VERSION = 3, /* not version 1 */
    PZ_ECHO_BAD_TYPE = 4,    /* neither request nor reply */
};

/* Counters of the service (what a CLI or SNMP would show). */
struct pz_echo_stats {
    uint64_t received;      /* datagrams taken from the QP */
    uint64_t requests;      /* valid requests */
    uint64_t replies_sent;  /* replies posted */
    uint64_t send_errors;   /* replies or requests the board refused */
    uint64_t malformed;     /* short, bad magic, version or type: dropped */
    uint64_t replies;       /* replies that matched an outstanding ping */
    uint64_t stray_replies; /* replies that matched nothing (late, duplicate, foreign) */
    uint64_t pings_sent;    /* requests posted by pz_echo_ping_start */
    uint64_t recv_errors;   /* receive failures (oversized, lost connection) */
    uint64_t probes_sent;   /* reachability probes posted (pz_echo_probe_send) */
    uint64_t probe_replies; /* replies to probes handed to the probe handler */
};

/* What pz_echo_ping_start sends. */
struct pz_echo_ping {
    uint16_t dlid;   /* the responder's LID */
    uint32_t dst_qp; /* the responder's datagram QP */
    uint8_t sl;
    uint16_t pkey;  /* by value (0xFFFF: the default partition) */
    unsigned count; /* requests, 1..PZ_ECHO_MAX_PINGS */
    size_t len;     /* payload length, PZ_ECHO_HDR_LEN..BOARD_DGRAM_MAX_PAYLOAD */
};

#define PZ_ECHO_MAX_PINGS 4096

/* Progress of the last ping run. */
struct pz_echo_ping_result {
    uint32_t first_seq; /* sequence number of the run's first request */
    unsigned sent;      /* requests posted */
    unsigned received;  /* distinct replies matched */
    uint64_t rtt_min_ns, rtt_max_ns, rtt_sum_ns;
};

/* Called for every matched reply (may be NULL). */
typedef void (*pz_echo_reply_fn)(void *arg, uint32_t seq, uint64_t rtt_ns,
                                 const struct board_dgram_addr *from, size_t len);

struct pz_echo;

/* Decode the header of a len-byte datagram; returns enum pz_echo_error. */
int pz_echo_decode(const uint8_t *p, size_t len, struct pz_echo_hdr *h);

/*
 * Write a header into the first PZ_ECHO_HDR_LEN bytes of buf (cap bytes);
 * returns PZ_ECHO_HDR_LEN, or 0 if cap is too small.
 */
size_t pz_echo_encode(uint8_t *buf, size_t cap, const struct pz_echo_hdr *h);

/*
 * The service on board b, whose datagram QP is open with Q_Key qkey.
 * Returns NULL on OOM or if the board has no datagram operations.
 */
struct pz_echo *pz_echo_create(const struct board *b, uint32_t qkey);

/* Free the service (NULL is fine). */
void pz_echo_destroy(struct pz_echo *e);

/*
 * Take up to budget datagrams from the QP and handle each.  Returns the
 * number taken, or -ENOTCONN once the board lost its datagram connection
 * (the caller should stop polling).
 */
int pz_echo_poll(struct pz_echo *e, unsigned budget);

/* Handle one received datagram (what pz_echo_poll does per datagram). */
void pz_echo_input(struct pz_echo *e, const struct board_dgram_addr *from, const uint8_t *p,
                   size_t len);

/* A copy of the counters. */
void pz_echo_stats(const struct pz_echo *e, struct pz_echo_stats *out);

/*
 * Start a ping run: post p->count requests, timestamped with the board
 * clock, and forget any earlier run.  Sequence numbers continue from run to
 * run (a late reply of an earlier run is a stray); the padding is byte i =
 * (seq + i) & 0xFF.  A reply matches if its sequence number is one of this
 * run's, not seen before, with the request's length and padding; the round
 * trip is the board clock at its arrival minus its echoed timestamp.
 * Replies are matched as pz_echo_poll takes them; fn (if set) is called
 * for each.  Returns the number posted, or a negative errno (-EINVAL bad
 * parameters).
 */
int pz_echo_ping_start(struct pz_echo *e, const struct pz_echo_ping *p, pz_echo_reply_fn fn,
                       void *arg);

/*
 * Called for every reply that carries PZ_ECHO_FLAG_PROBE: its sequence
 * number, round trip (board clock) and source.  The handler matches it.
 */
typedef void (*pz_echo_probe_fn)(void *arg, uint32_t seq, uint64_t rtt_ns,
                                 const struct board_dgram_addr *from);

/* Set (or with NULL clear) the handler of probe replies. */
void pz_echo_set_probe_handler(struct pz_echo *e, pz_echo_probe_fn fn, void *arg);

/*
 * Post one reachability probe: a header-only request with
 * PZ_ECHO_FLAG_PROBE and sequence number seq to (dlid, dst_qp) with that
 * responder's Q_Key, SL 0 and the default partition.  Independent of ping
 * runs.  Returns 0, -EINVAL (bad QP or LID) or the board's error.
 */
int pz_echo_probe_send(struct pz_echo *e, uint16_t dlid, uint32_t dst_qp, uint32_t qkey,
                       uint32_t seq);

/* Progress of the current run (zeros before any). */
void pz_echo_ping_result(const struct pz_echo *e, struct pz_echo_ping_result *r);

#endif /* PZ_ECHO_H */
