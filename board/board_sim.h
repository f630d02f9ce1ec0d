/*
 * board_sim.h - a board whose ASIC is a switch of pzfabric, reached over the
 * board/sim protocol (board_sim_proto.h).  Used by portzerod when it takes
 * over a switch of the emulated fabric.
 */
#ifndef PZ_BOARD_SIM_H
#define PZ_BOARD_SIM_H

#include <stddef.h>

#include "board.h"

#define BOARD_SIM_TIMEOUT_MS 2000

struct board_sim;

/*
 * Connect to pzfabric's "<sockname>:board" socket and attach to the switch
 * named node (as SIM_HOST names it).  Returns NULL with a message in err.
 */
struct board_sim *board_sim_connect(const char *sockname, const char *node, char *err,
                                    size_t errlen);

/* Same over an already connected SOCK_SEQPACKET descriptor (tests); owns fd. */
struct board_sim *board_sim_attach_fd(int fd, const char *node, char *err, size_t errlen);

/* The board interface (valid until board_sim_close). */
struct board *board_sim_board(struct board_sim *bs);

/* The socket: it becomes readable (EOF) if pzfabric goes away. */
int board_sim_fd(const struct board_sim *bs);

/*
 * Take the fabric's port events waiting on the connection (without
 * blocking; one receive when none waits).  Returns 0, or -ENOTCONN when the
 * fabric closed the connection.
 */
int board_sim_pump(struct board_sim *bs);

/*
 * Whether the fabric pushes port events (its ATTACH answer promised them):
 * board_port_status_gen() then moves only when a port's status may have
 * changed (an event came, or the agent set a state), so a watcher can wait
 * for it to move instead of polling the links.
 */
bool board_sim_port_events(const struct board_sim *bs);

/*
 * Say that time passed (the agent woke up): the fabric may have sent port
 * events since, so the next read of a kept port status takes them first
 * (one receive per wake-up that reads a status, none otherwise).
 */
void board_sim_wake(struct board_sim *bs);

/*
 * Say whether the software behind port 0 (the agent's IP plane) takes the
 * SM's ClientReregister: PortInfo.CapabilityMask.IsClientReregistrationSupported
 * of port 0.  A property of the agent, not of the fabric's identity; set it
 * before the SMA is created.
 */
void board_sim_set_port0_client_rereg(struct board_sim *bs, bool on);

/* Number of failed operations (timeouts, lost fabric) so far. */
unsigned long board_sim_errors(const struct board_sim *bs);

/* Detach and free. */
void board_sim_close(struct board_sim *bs);

struct board_sim_dgram;

/*
 * Give bs's board the port-0 datagram operations (board_dgram_*) of the
 * node's "<sockname>:dgram" connection d (board_sim_dgram.h; NULL: none).
 * The caller keeps d and closes it after bs.  d is also QP handle 0 of
 * board_qp_* (unless a QP board_qp_open opened holds handle 0).  Without
 * it, a board from board_sim_connect opens its QPs itself: board_qp_open
 * connects one "<sockname>:dgram" connection per QP.
 */
void board_sim_set_dgram(struct board_sim *bs, struct board_sim_dgram *d);

/* The datagram connection of a board_sim's ops context (board_sim_dgram.c's ops). */
struct board_sim_dgram *board_sim_dgram_of(void *ctx);

/* The port-0 QPs of a board_sim's ops context (board_sim_dgram.c's qp ops). */
struct board_sim_qps *board_sim_qps_of(void *ctx);

/*
 * Connect a SOCK_SEQPACKET socket to pzfabric's abstract address
 * "<sockname>:<suffix>" (what: its name in error messages).  Returns the
 * descriptor, or -1 with a message in err.
 */
int board_sim_socket_connect(const char *sockname, const char *suffix, const char *what, char *err,
                             size_t errlen);

#endif /* PZ_BOARD_SIM_H */
