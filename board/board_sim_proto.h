/*
 * board_sim_proto.h - the board/sim wire protocol.
 *
 * An agent whose switch lives in pzfabric reaches that switch's ASIC tables
 * over an abstract unix SOCK_SEQPACKET socket "<sockname>:board": one request
 * message, one response message.  Messages are fixed-size and carry integers
 * in network byte order, so a malformed message is detected by its size,
 * magic and op alone.  The server side (board_sim_serve) executes a request
 * on any struct board; pzfabric calls it with the node's in-memory board.
 *
 * Posted requests (BOARD_SIM_LFT_SET_POSTED) are never answered: the client
 * checks locally everything the server could refuse, and the server executes
 * a connection's requests in order, so a later request (a Get) sees the
 * write.  pzfabric also executes every posted request an agent sent before
 * it routes a MAD from that agent (board_server_sync), so a switch forwards by
 * a new LFT block before the SetResp reaches the SM.
 */
#ifndef PZ_BOARD_SIM_PROTO_H
#define PZ_BOARD_SIM_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "board.h"

#define BOARD_SIM_MAGIC 0x505a4253u /* "PZBS" */
#define BOARD_SIM_VERSION 4         /* 2: LFT_SET_POSTED; 3: MAD_RX; 4: MAD, COUNTERS_MANY */
#define BOARD_SIM_DATA 1600         /* holds struct board_port_counters */

/* Operations; each maps to one board operation (ATTACH: identity). */
enum board_sim_op {
    BOARD_SIM_ATTACH = 1,      /* a: version, b: agent pid; data: node name -> identity */
    BOARD_SIM_PORT_STATUS,     /* a: port -> status */
    BOARD_SIM_PORT_CONFIG_GET, /* a: port -> config */
    BOARD_SIM_PORT_CONFIG_SET, /* a: port; data: config */
    BOARD_SIM_PORT_STATE_SET,  /* a: port, b: state */
    BOARD_SIM_PHYS_STATE_SET,  /* a: port, b: state */
    BOARD_SIM_LFT_GET,         /* a: block -> 64 entries */
    BOARD_SIM_LFT_SET,         /* a: block; data: 64 entries */
    BOARD_SIM_MFT_GET,         /* a: block, b: position -> 32 masks */
    BOARD_SIM_MFT_SET,         /* a: block, b: position; data: 32 masks */
    BOARD_SIM_PKEY_GET,        /* a: port, b: block -> 32 keys */
    BOARD_SIM_PKEY_SET,        /* a: port, b: block; data: 32 keys */
    BOARD_SIM_SL2VL_GET,       /* a: in, b: out -> 16 VLs */
    BOARD_SIM_SL2VL_SET,       /* a: in, b: out; data: 16 VLs */
    BOARD_SIM_VLARB_GET,       /* a: port, b: block -> 64 bytes */
    BOARD_SIM_VLARB_SET,       /* a: port, b: block; data: 64 bytes */
    BOARD_SIM_SET_LID,         /* a: port, b: lid, c: lmc */
    BOARD_SIM_SET_LFT_TOP,     /* a: top */
    BOARD_SIM_PORT_COUNTERS,   /* a: port -> counters */
    BOARD_SIM_LFT_SET_POSTED,  /* a: block; data: 64 entries; never answered */
    BOARD_SIM_MAD_RX,          /* a, b: TID high, low 32 bits -> receive record */
    BOARD_SIM_PORT_EVENT,      /* fabric -> agent, unsolicited: a: port (ALL: every port) */
    BOARD_SIM_MAD,             /* a MAD of the switch's port 0, either way; never answered */
    BOARD_SIM_COUNTERS_MANY,   /* a: first port, b: count -> count answers, c: index */
    BOARD_SIM_OP_MAX,
};

/*
 * Port events.  A fabric that pushes them says so in its ATTACH answer (c has
 * BOARD_SIM_ATTACH_EVENTS): from then on it sends a PORT_EVENT (seq 0) on the
 * connection whenever a port's status (PortState, PhysState, the active
 * width/speed, LinkDowned) may have changed, before any later answer, as a
 * switch ASIC raises an interrupt.  The agent may then keep port statuses and
 * read them again only after an event for the port.
 */
#define BOARD_SIM_ATTACH_EVENTS 0x1u
#define BOARD_SIM_PORT_ALL 0xFFFFFFFFu

/*
 * MADs over the board connection (version 4).  An agent that sets
 * BOARD_SIM_ATTACH_MADS in field c of its ATTACH request asks the fabric to
 * carry the switch's port-0 MADs on this connection instead of an ibsim
 * client socket (it then needs no umad port at all); the fabric says yes by
 * setting the same bit in its answer's c.  From then on both sides send
 * BOARD_SIM_MAD messages (fabric -> agent with seq 0, agent -> fabric with
 * its next seq; never answered): a = SLID << 16 | DLID, b = source QP,
 * c = destination QP, status = the fabric's status for the MAD (0, or 110
 * for a request of the agent's own that timed out), data = the MAD's length
 * (2 bytes), the ingress port of a request for the switch (1 byte, 0 when
 * the fabric knows none), a reserved byte, then the 256 MAD bytes (all of
 * them: unlike umad2sim's, nothing of the MAD is lost).  The agent's own
 * MADs use SLID 0 ("the switch's LID") or 0xFFFF for directed route, as
 * umad2sim's do.  Requests of one connection still run in order: a posted
 * LFT write sent before a SetResp takes effect before the SetResp is routed.
 */
#define BOARD_SIM_ATTACH_MADS 0x2u
#define BOARD_SIM_MAD_HDR 4     /* length, port, reserved: before the MAD in data[] */
#define BOARD_SIM_MAD_BYTES 256 /* the MAD's room in data[] */
#define BOARD_SIM_MAD_MIN 24    /* the common MAD header: a shorter MAD is none */

/* One MAD as it travels over the board connection (host order). */
struct board_sim_mad {
    uint16_t slid, dlid;
    uint32_t sqp, dqp;
    uint32_t status; /* 0, or the fabric's 110 (ETIMEDOUT) for an unanswered request */
    uint16_t len;    /* bytes of mad[] the sender filled, 24..256; the rest is zero */
    uint8_t port;    /* ingress port of a request for the switch (fabric -> agent), else 0 */
    uint8_t mad[BOARD_SIM_MAD_BYTES];
};

/* One request or response as it travels (all integers big-endian). */
struct board_sim_msg {
    uint32_t magic;
    uint32_t seq; /* echoed in the response */
    uint16_t op;
    uint16_t pad;
    int32_t status; /* response: 0 or a negative errno */
    uint32_t a, b, c;
    uint8_t data[BOARD_SIM_DATA];
};

/* Fill a request (host order values; converted here). */
void board_sim_msg_request(struct board_sim_msg *m, uint32_t seq, enum board_sim_op op, uint32_t a,
                           uint32_t b, uint32_t c);

/* Read the integer fields of a received message into host order; 0 if sane. */
int board_sim_msg_decode(const void *buf, size_t len, struct board_sim_msg *m);

/* Pack / unpack the structures carried in data[]. */
void board_sim_pack_status(uint8_t *d, const struct board_port_status *st);
void board_sim_unpack_status(const uint8_t *d, struct board_port_status *st);
void board_sim_pack_config(uint8_t *d, const struct board_port_config *cfg);
void board_sim_unpack_config(const uint8_t *d, struct board_port_config *cfg);
void board_sim_pack_counters(uint8_t *d, const struct board_port_counters *c);
void board_sim_unpack_counters(const uint8_t *d, struct board_port_counters *c);
/* A MAD's receive record: port, hop pointer, MAD bytes 192-255 (66 bytes). */
void board_sim_pack_mad_rx(uint8_t *d, const struct board_mad_rx *rx);
void board_sim_unpack_mad_rx(const uint8_t *d, struct board_mad_rx *rx);
/*
 * COUNTERS_MANY (version 4): the counters of b ports from port a, answered
 * by b messages with the request's seq and op, c = the index (0 .. b - 1),
 * status and data as PORT_COUNTERS's, in order.  b is 1 ..
 * BOARD_SIM_COUNTERS_MAX; a bad count gets one answer (index 0, -EINVAL).
 * board_sim_serve() answers it with -EOPNOTSUPP (one answer): only a server
 * that sends several answers per request (board_sim_serve_counters_many)
 * takes it.
 */
#define BOARD_SIM_COUNTERS_MAX 64

/* Serve COUNTERS_MANY request m (decoded) on target: emit(arg, answer) once per answer. */
void board_sim_serve_counters_many(const struct board *target, const struct board_sim_msg *m,
                                   void (*emit)(void *arg, const struct board_sim_msg *resp),
                                   void *arg);

/* Fill m as the BOARD_SIM_MAD message carrying mad (seq: the sender's). */
void board_sim_pack_mad(struct board_sim_msg *m, uint32_t seq, const struct board_sim_mad *mad);
/* Read a decoded BOARD_SIM_MAD message into *mad; 0, or -1 if its length is out of range. */
int board_sim_unpack_mad(const struct board_sim_msg *m, struct board_sim_mad *mad);
/* The identity of a switch (port GUID 0 only) fits in data[]. */
void board_sim_pack_identity(uint8_t *d, const struct board_identity *id);
int board_sim_unpack_identity(const uint8_t *d, struct board_identity *id);

/*
 * Execute the request in req (len bytes, as received) on target and write
 * the response message to *resp.  Returns 0, or -1 if req is not a board/sim
 * message at all (then *resp is an error response with seq 0).  ATTACH is
 * answered with target's identity; the caller decides which board a
 * connection is attached to.
 */
int board_sim_serve(const struct board *target, const void *req, size_t len,
                    struct board_sim_msg *resp);

/* Whether the response board_sim_serve wrote must be sent (false: a posted request's). */
bool board_sim_reply_wanted(const struct board_sim_msg *resp);

#endif /* PZ_BOARD_SIM_PROTO_H */
