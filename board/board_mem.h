/*
 * board_mem.h - a board whose "hardware" is plain memory.
 *
 * Used by the unit tests and by pzfabric for switches served in-process.
 * The tables live in heap memory owned by the instance; there is no global
 * state.  Time comes from a settable clock (tests) or CLOCK_MONOTONIC.
 */
#ifndef PZ_BOARD_MEM_H
#define PZ_BOARD_MEM_H

#include "board.h"

struct board_mem;

/* Called after a port's link state changed (link up/down, SMA request). */
typedef void (*board_mem_port_hook)(void *arg, unsigned port);

/*
 * Called at the start of every counters read through the board interface
 * (board_port_counters: the PMA, board/sim), before the values are copied,
 * so a traffic model can bring the counters up to the current time.  Not
 * called by board_mem_counters(), the datapath's write access.
 */
typedef void (*board_mem_counters_hook)(void *arg, unsigned port);

/* Fill *id with the defaults of a 36-port QDR/EDR switch. */
void board_mem_default_switch_identity(struct board_identity *id, uint64_t node_guid,
                                       unsigned num_ports);

/* Fill *id with the defaults of a CA with num_ports ports. */
void board_mem_default_ca_identity(struct board_identity *id, uint64_t node_guid,
                                   unsigned num_ports);

/* Create an in-memory board; *id is copied.  Returns NULL on bad input or OOM. */
struct board_mem *board_mem_create(const struct board_identity *id);

/* Free the board and its tables. */
void board_mem_destroy(struct board_mem *bm);

/* The board interface of this instance (valid until destroy). */
struct board *board_mem_board(struct board_mem *bm);

/* Use a manual clock starting at start_ns instead of CLOCK_MONOTONIC. */
void board_mem_use_manual_clock(struct board_mem *bm, uint64_t start_ns);

/* Advance the manual clock. */
void board_mem_advance_ns(struct board_mem *bm, uint64_t delta_ns);

/*
 * Tell port what the far end of its cable enables (the width, speed and
 * extended speed enables of peer): its next training picks the best mode
 * both ends enable.  Until told, a port assumes the far end enables all.
 */
void board_mem_set_peer_enables(struct board_mem *bm, unsigned port,
                                const struct board_port_config *peer);

/*
 * The LinkWidthActive/LinkSpeedActive a port that never trained reports
 * (board_mem's default: 0; hardware and ibsim: 4x SDR).  Nothing changes on
 * a port that trained: a link that went down keeps its last modes.
 */
void board_mem_set_untrained_modes(struct board_mem *bm, unsigned port, uint8_t width,
                                   uint8_t speed);

/* Cable a port (connected) or unplug it; a connected enabled port trains to Init. */
void board_mem_set_connected(struct board_mem *bm, unsigned port, bool connected);

/* Whether a port is cabled. */
bool board_mem_connected(const struct board_mem *bm, unsigned port);

/* Install a hook called after any port state change. */
void board_mem_set_port_hook(struct board_mem *bm, board_mem_port_hook hook, void *arg);

/* Install a hook called before every board_port_counters() read (NULL: none). */
void board_mem_set_counters_hook(struct board_mem *bm, board_mem_counters_hook hook, void *arg);

/* Direct table access for the emulator's datapath (out of range: drop / false / 0). */
uint8_t board_mem_lft_entry(const struct board_mem *bm, uint16_t dlid);
uint16_t board_mem_lft_top(const struct board_mem *bm);
bool board_mem_mft_has_port(const struct board_mem *bm, uint16_t mlid, unsigned port);
uint16_t board_mem_lid(const struct board_mem *bm, unsigned port);
uint8_t board_mem_lmc(const struct board_mem *bm, unsigned port);

/*
 * Number of times a port's link went down, on command or not
 * (LinkDownedCounter counts only the failures: a pulled cable, a peer that
 * left the link).
 */
uint32_t board_mem_link_downed(const struct board_mem *bm, unsigned port);

/*
 * The hardware counters of a port, for the emulator's datapath and tests to
 * advance (NULL if port is out of range or out of memory: a port's counters
 * are allocated at its first count, all zero until then).  Values wrap at
 * the identity's counter_bits like real hardware; board_mem_counter_add()
 * does that.
 */
struct board_port_counters *board_mem_counters(struct board_mem *bm, unsigned port);

/*
 * PortXmitWait and PortXmitData of a port as board_port_counters() would
 * read them (the counters hook first), without copying the port's other
 * counters: what a congestion monitor samples.  0, or -EINVAL (port out of
 * range).
 */
int board_mem_xmit_counters(struct board_mem *bm, unsigned port, uint64_t *xmit_wait,
                            uint64_t *xmit_data);

/* Add delta to one counter of the board, wrapping at counter_bits. */
void board_mem_counter_add(const struct board_mem *bm, uint64_t *counter, uint64_t delta);

/*
 * Port-0 datagrams.  board_mem has BOARD_QP_MAX UD QPs (qp_* ops; the
 * single-QP dgram_* ops are handle 0); handle i has QP number
 * BOARD_MEM_DGRAM_QPN + i.  What a QP sends goes to the send hook if one is
 * set (pzfabric routes it; the address has src_qp and slid filled in), else
 * to one send queue that tests read with board_mem_dgram_pop_sent(); what
 * the datapath delivers with board_mem_qp_deliver() waits in that QP's
 * receive queue for qp_recv.  The deliverer does the receive checks (QP,
 * Q_Key, P_Key).  Each queue holds BOARD_MEM_DGRAM_QUEUE datagrams.  The
 * fds are -1 (nothing to poll).
 */
#define BOARD_MEM_DGRAM_QUEUE 64
#define BOARD_MEM_DGRAM_QPN 0x000100u /* the QP number dgram_open reports */

/* A datagram the stack sent; returns 0 or a negative errno (dgram_send's). */
typedef int (*board_mem_dgram_hook)(void *arg, const struct board_dgram_addr *a,
                                    const void *payload, size_t len);

/* Send datagrams through hook (NULL: into the send queue). */
void board_mem_set_dgram_hook(struct board_mem *bm, board_mem_dgram_hook hook, void *arg);

/* Whether QP handle qp is open; its number and Q_Key (either may be NULL). */
bool board_mem_qp_info(const struct board_mem *bm, int qp, uint32_t *qpn, uint32_t *qkey);

/* Whether QP handle 0 (the dgram_* one) is open; its number and Q_Key. */
bool board_mem_dgram_is_open(const struct board_mem *bm, uint32_t *qpn, uint32_t *qkey);

/* Queue a datagram QP qp received; 0, -ENOTCONN (not open), -EINVAL, -ENOBUFS (full). */
int board_mem_qp_deliver(struct board_mem *bm, int qp, const struct board_dgram_addr *a,
                         const void *payload, size_t len);

/* The same for QP handle 0. */
int board_mem_dgram_deliver(struct board_mem *bm, const struct board_dgram_addr *a,
                            const void *payload, size_t len);

/* Take the oldest sent datagram (no hook set): its length, -EAGAIN or -EMSGSIZE. */
int board_mem_dgram_pop_sent(struct board_mem *bm, struct board_dgram_addr *a, void *buf,
                             size_t cap);

/* Datagrams dropped because a queue was full. */
unsigned long board_mem_dgram_overflows(const struct board_mem *bm);

#endif /* PZ_BOARD_MEM_H */
