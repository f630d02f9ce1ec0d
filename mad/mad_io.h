/*
 * mad_io.h - management datagrams on the switch's management port, through
 * libibumad (the kernel's umad device on hardware, umad2sim in emulation),
 * or, on pzfabric (board = sim), over the board/sim connection itself
 * (mad_io_open_board_sim; mad_io_board.c).
 */
#ifndef PZ_MAD_IO_H
#define PZ_MAD_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "board.h"

#define IB_MAD_SIZE 256

struct mad_io;

/*
 * Open ca/port (NULL/0 = first) and register as SMA (classes 0x01, 0x81),
 * PMA (0x04), CC agent (0x21) and SA client (0x03, with RMPP: a GetTable
 * answer arrives whole, see mad_io_recv_whole()).  Under umad2sim a reader
 * thread takes the MADs (mad_io_umad.c says why).
 */
struct mad_io *mad_io_open(const char *ca, unsigned port, char *err, size_t errlen);

struct board_sim;

/*
 * MADs over bs's board/sim connection, which must have been attached with
 * BOARD_SIM_ATTACH_MADS (board_sim_mad.h); no umad port is opened.  bs
 * stays the caller's and must outlive the mad_io.  NULL with a message in err.
 */
struct mad_io *mad_io_open_board_sim(struct board_sim *bs, char *err, size_t errlen);

/*
 * Whether MADs wait in mad_io's own queue although mad_io_fd() may not be
 * readable (board/sim: MADs that came while a board request waited); the
 * event loop must not sleep then (pz_loop_set_pending).
 */
bool mad_io_pending(const struct mad_io *io);

/* Close and unregister. */
void mad_io_close(struct mad_io *io);

/* File descriptor to poll for incoming MADs (an ordinary one, also under umad2sim). */
int mad_io_fd(const struct mad_io *io);

/*
 * Receive one MAD without blocking.  Returns 1 with mad[] and *addr filled,
 * 0 if none is waiting, -1 on error.
 */
int mad_io_recv(struct mad_io *io, uint8_t mad[IB_MAD_SIZE], struct mad_addr *addr);

/*
 * The MAD mad_io_recv() returned last, whole, when it is longer than
 * IB_MAD_SIZE (a reassembled RMPP answer of the SA: mad[] held its first
 * 256 bytes): its length and *whole, valid until the next mad_io_recv().
 * 0 for an ordinary MAD.
 */
size_t mad_io_recv_whole(const struct mad_io *io, const uint8_t **whole);

/*
 * SMP requests dropped so far because the management port's receive queue
 * was full (board_sim_mad.h says why a flood is dropped, not queued): all
 * of them (port < 0), or those that entered by port (0: where umad did not
 * tell).  On the kernel's umad the hardware drops them and counts
 * VL15Dropped itself: 0 there.
 */
unsigned long mad_io_smp_dropped(const struct mad_io *io, int port);

/* Send one MAD as *addr says.  Returns 0 or -1. */
int mad_io_send(struct mad_io *io, const uint8_t mad[IB_MAD_SIZE], const struct mad_addr *addr);

#endif /* PZ_MAD_IO_H */
