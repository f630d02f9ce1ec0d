/*
 * fabric_dgram.h - port-0 UD datagrams through the emulated fabric.
 *
 * A node's port-0 stack (a switch's management CPU, or a CA's port 1) owns
 * UD queue pairs, up to FABRIC_DGRAM_QPS_MAX, each with its own QP number
 * and Q_Key.  They are either attached from outside (the
 * "<sockname>:dgram" socket of dgram_server.c, one QP per connection: a
 * callback receives what arrives) or in-process on the node's board_mem
 * (board_qp_* / board_dgram_* ops on its board: sends come through
 * board_mem's send hook, arrivals wait in the QP's receive queue).  For
 * receiving, the attached QPs win: while a node has one, its board_mem QPs
 * receive nothing.
 *
 * A datagram is carried as hardware carries a UD SEND_ONLY packet: LID
 * routed through the LFTs (every hop PortState Active at both ends, at most
 * 128 hops), multicast DLIDs through the MFTs, P_Keys enforced at switch
 * ports, the drop rate and pulled cables apply; every link counts it in
 * the ports' hardware counters and writes it to the capture.  At the end
 * port the receiving QP checks P_Key, QP number and Q_Key: a unicast
 * datagram goes to the QP whose number is its destination QP (if the Q_Key
 * is that QP's), a multicast one (QP 0xFFFFFF) to every QP of the port
 * whose Q_Key is the datagram's (a simplification: no per-QP attach to
 * multicast groups).  See
 * fabric/README.md, "Port-0 datagrams".
 */
#ifndef PZ_FABRIC_DGRAM_H
#define PZ_FABRIC_DGRAM_H

#include <stddef.h>
#include <stdint.h>

#include "board.h"
#include "fabric.h"

#define FABRIC_DGRAM_QPN_FIRST 0x000200u  /* QP numbers of attached stacks start here */
#define FABRIC_DGRAM_QPS_MAX BOARD_QP_MAX /* attached QPs per node */

/* Where the fabric hands a datagram for the attached stack of node. */
typedef void (*fabric_dgram_rx_fn)(void *arg, size_t node, const struct board_dgram_addr *a,
                                   const uint8_t *payload, size_t len);

/* Datagram counters, for logs, pzfabric-ctl and tests. */
struct fabric_dgram_stats {
    uint64_t sent;         /* datagrams stacks sent into the fabric */
    uint64_t refused;      /* sends refused at the sender (bad address, P_Key, no LID, no QP) */
    uint64_t delivered;    /* copies handed to a stack */
    uint64_t dropped;      /* copies that went nowhere (everything below included) */
    uint64_t lost;         /* of the dropped: lost to the drop rate */
    uint64_t pkey_dropped; /* of the dropped: switch port enforcement or the receiver's P_Keys */
    uint64_t qkey_dropped; /* of the dropped: Q_Key not the receiving QP's */
    uint64_t no_stack;     /* of the dropped: no stack (or no such QP) at the end port */
    uint64_t hops;         /* link traversals */
    uint64_t malformed;    /* malformed messages from stacks (fabric_dgram_note_malformed) */
};

/*
 * Attach a port-0 QP to node (switch: port 0; CA: port 1) with Q_Key qkey;
 * fn receives every datagram for it.  Its QP number (new for every attach)
 * goes to *qpn.  Returns 0, -EINVAL (no such node) or -EBUSY (the node has
 * FABRIC_DGRAM_QPS_MAX attached QPs).
 */
int fabric_dgram_attach(struct fabric *f, size_t node, uint32_t qkey, fabric_dgram_rx_fn fn,
                        void *arg, uint32_t *qpn);

/* Change the Q_Key of node's attached QP qpn; returns 0 or -ENOENT. */
int fabric_dgram_set_qkey_qp(struct fabric *f, size_t node, uint32_t qpn, uint32_t qkey);

/* The same for node's first attached QP. */
int fabric_dgram_set_qkey(struct fabric *f, size_t node, uint32_t qkey);

/* Detach node's attached QP qpn (an unknown one is ignored). */
void fabric_dgram_detach_qp(struct fabric *f, size_t node, uint32_t qpn);

/* Detach every attached QP of node. */
void fabric_dgram_detach(struct fabric *f, size_t node);

/*
 * The stack of node sends one datagram (a's dlid, sl, dst_qp, qkey, pkey,
 * has_grh/grh; the fabric fills slid and src_qp) and the fabric carries it
 * to its end, before returning.  Returns 0 when it left the sender
 * (whatever happens on the way), -EINVAL (bad node, address or length),
 * -ENOTCONN (node has no stack), -EADDRNOTAVAIL (the port has no LID yet)
 * or -EACCES (the P_Key is no entry of the sending port's table).
 */
int fabric_dgram_send(struct fabric *f, size_t node, const struct board_dgram_addr *a,
                      const void *payload, size_t len);

/* The same from node's QP qpn (attached or in-process); -ENOTCONN if it has none such. */
int fabric_dgram_send_qp(struct fabric *f, size_t node, uint32_t qpn,
                         const struct board_dgram_addr *a, const void *payload, size_t len);

/* The LID of node's stack port (switch: port 0; CA: port 1), 0 if none yet. */
uint16_t fabric_dgram_lid(const struct fabric *f, size_t node);

/* Count a malformed message from a stack's transport (dgram_server.c). */
void fabric_dgram_note_malformed(struct fabric *f);

/* A snapshot of the datagram counters. */
void fabric_dgram_get_stats(const struct fabric *f, struct fabric_dgram_stats *st);

#endif /* PZ_FABRIC_DGRAM_H */
