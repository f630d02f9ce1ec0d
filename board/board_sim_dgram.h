/*
 * board_sim_dgram.h - port-0 datagrams of a pzfabric node over the socket
 * "<sockname>:dgram" (abstract unix SOCK_SEQPACKET): the board/sim side of
 * the board_dgram_* operations.
 *
 * A connection attaches to one node (a switch: its port 0; a CA: its port
 * 1) and is then one UD QP of that node's port-0 stack, with its own QP
 * number and Q_Key: it posts datagrams (never answered) and receives, one
 * message each, every datagram the fabric delivers to that QP (unicast: its
 * QP number; multicast: every QP of the port with the datagram's Q_Key).
 * Several connections may attach to one node (up to 8, the fabric's
 * FABRIC_DGRAM_QPS_MAX); closing a connection detaches its QP.  Version 1
 * is unchanged: earlier fabrics allowed one connection per node.
 *
 * Wire format: one message per datagram, a 72-byte header followed by the
 * payload; integers big-endian.
 *
 *   off size field
 *     0   4  magic 0x505a4447 ("PZDG")
 *     4   1  version (1)
 *     5   1  op: 1 ATTACH, 2 ATTACHED, 3 SEND, 4 RECV, 5 QKEY
 *     6   1  flags: bit 0 = GRH present (the other bits 0)
 *     7   1  SL (0..15)
 *     8   4  status (ATTACHED: 0 or a negative errno; else 0)
 *    12   2  DLID
 *    14   2  SLID
 *    16   2  P_Key (value)
 *    18   2  payload length (0..4096; the message is exactly 72 + it)
 *    20   4  source QP (24 bits)
 *    24   4  destination QP (24 bits)
 *    28   4  Q_Key
 *    32  40  GRH, as on the wire (meaningful with flags bit 0)
 *    72   -  payload
 *
 *   ATTACH    client -> fabric, first message: payload = node name (1..64
 *             bytes, as SIM_HOST names it), Q_Key = the QP's Q_Key.
 *   ATTACHED  fabric -> client: status; source QP = the stack's QP number;
 *             SLID = the port's LID when attached (0: none yet).  A refused
 *             attach (status -ENOENT no such node, -EBUSY the node has
 *             the most QPs attached, -EPROTO not an ATTACH) is followed by the close.
 *   SEND      client -> fabric, posted: DLID, SL, P_Key, destination QP,
 *             Q_Key, flags/GRH, payload as board_dgram_send takes them.
 *             A bad one is counted and logged by the fabric, never answered.
 *   RECV      fabric -> client: a delivered datagram, every field as
 *             board_dgram_recv reports it.
 *   QKEY      client -> fabric, posted: the QP's new Q_Key.
 */
#ifndef PZ_BOARD_SIM_DGRAM_H
#define PZ_BOARD_SIM_DGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "board.h"

#define BOARD_SIM_DGRAM_MAGIC 0x505a4447u /* "PZDG" */
#define BOARD_SIM_DGRAM_VERSION 1
#define BOARD_SIM_DGRAM_HDR 72
#define BOARD_SIM_DGRAM_MAX (BOARD_SIM_DGRAM_HDR + BOARD_DGRAM_MAX_PAYLOAD)
#define BOARD_SIM_DGRAM_NAME_MAX 64
#define BOARD_SIM_DGRAM_FLAG_GRH 0x01

/* Message types. */
enum board_sim_dgram_op {
    BOARD_SIM_DGRAM_ATTACH = 1,
    BOARD_SIM_DGRAM_ATTACHED = 2,
    BOARD_SIM_DGRAM_SEND = 3,
    BOARD_SIM_DGRAM_RECV = 4,
    BOARD_SIM_DGRAM_QKEY = 5,
};

/* A decoded message; payload points into the buffer it was decoded from. */
struct board_sim_dgram_msg {
    uint8_t op;
    int32_t status;
    struct board_dgram_addr a;
    const uint8_t *payload;
    size_t len;
};

/*
 * Encode a message into buf (cap bytes); returns its length, or 0 if a
 * field does not fit (len > 4096, SL > 15, QP > 24 bits, cap too small).
 */
size_t board_sim_dgram_encode(uint8_t *buf, size_t cap, enum board_sim_dgram_op op, int32_t status,
                              const struct board_dgram_addr *a, const void *payload, size_t len);

/* Decode the n bytes at buf; returns 0, or -EPROTO for anything malformed. */
int board_sim_dgram_decode(const uint8_t *buf, size_t n, struct board_sim_dgram_msg *m);

/* The client: one node's port-0 stack. */
struct board_sim_dgram;

/*
 * Connect to "<sockname>:dgram" and attach as the port-0 stack of node with
 * Q_Key qkey.  Returns NULL with a message in err.
 */
struct board_sim_dgram *board_sim_dgram_connect(const char *sockname, const char *node,
                                                uint32_t qkey, char *err, size_t errlen);

/* Same over a connected SOCK_SEQPACKET descriptor (owned from now on). */
struct board_sim_dgram *board_sim_dgram_attach_fd(int fd, const char *node, uint32_t qkey,
                                                  char *err, size_t errlen);

/* The operations, as board_dgram_* describes them (open: a posted QKEY; qpn from ATTACHED). */
int board_sim_dgram_open(struct board_sim_dgram *d, uint32_t qkey, uint32_t *qpn);
int board_sim_dgram_send(struct board_sim_dgram *d, const struct board_dgram_addr *a,
                         const void *payload, size_t len);
int board_sim_dgram_recv(struct board_sim_dgram *d, struct board_dgram_addr *a, void *buf,
                         size_t cap);
int board_sim_dgram_fd(const struct board_sim_dgram *d);

/* The stack's QP number and its port's LID when it attached. */
uint32_t board_sim_dgram_qpn(const struct board_sim_dgram *d);
uint16_t board_sim_dgram_lid(const struct board_sim_dgram *d);

/* Failed sends and lost connections so far. */
unsigned long board_sim_dgram_errors(const struct board_sim_dgram *d);

/* Detach and free (NULL is fine). */
void board_sim_dgram_close(struct board_sim_dgram *d);

/*
 * Set (on) or clear the dgram ops of a board_sim's ops table: they reach
 * the connection through board_sim_dgram_of(ctx) (board_sim_set_dgram).
 */
void board_sim_dgram_fill_ops(struct board_ops *ops, int on);

/*
 * The port-0 QPs of a board_sim (board_qp_*): one "<sockname>:dgram"
 * connection each, which the board opens itself (qp_open connects and
 * attaches to node; qp_close closes it).  Handle 0 may instead be a
 * connection the caller gave (board_sim_set_dgram): it is used, never
 * closed, by the board.
 */
#define BOARD_SIM_SOCKNAME_MAX 100
struct board_sim_qps {
    char sockname[BOARD_SIM_SOCKNAME_MAX + 1]; /* empty: qp_open cannot connect */
    char node[BOARD_SIM_DGRAM_NAME_MAX + 1];
    struct board_sim_dgram *qp[BOARD_QP_MAX];
    bool owned[BOARD_QP_MAX]; /* opened by qp_open: closed by the board */
};

/* Set the qp_* ops of a board_sim's ops table: they reach q through board_sim_qps_of(ctx). */
void board_sim_qps_fill_ops(struct board_ops *ops);

/* Close every QP the board opened. */
void board_sim_qps_close(struct board_sim_qps *q);

#endif /* PZ_BOARD_SIM_DGRAM_H */
