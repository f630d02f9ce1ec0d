/*
 * mad_io_internal.h - the two MAD transports behind mad_io.h: libibumad
 * (mad_io_umad.c: the kernel's umad on hardware, umad2sim on ibsim and
 * pzfabric) and the board/sim connection (mad_io_board.c: pzfabric only).
 */
#ifndef PZ_MAD_IO_INTERNAL_H
#define PZ_MAD_IO_INTERNAL_H

#include "mad_io.h"

struct board_sim;
struct mad_io_umad;

/* mad_io_umad.c: as mad_io_open/close/fd/recv/send over libibumad. */
struct mad_io_umad *mad_io_umad_open(const char *ca, unsigned port, char *err, size_t errlen);
void mad_io_umad_close(struct mad_io_umad *io);
int mad_io_umad_fd(const struct mad_io_umad *io);
int mad_io_umad_take(struct mad_io_umad *io, uint8_t mad[IB_MAD_SIZE], struct mad_addr *addr);
int mad_io_umad_send(struct mad_io_umad *io, const uint8_t mad[IB_MAD_SIZE],
                     const struct mad_addr *addr);
/* SMP requests the reader dropped (as mad_io_smp_dropped): 0 without a reader. */
unsigned long mad_io_umad_smp_dropped(const struct mad_io_umad *io, int port);
/* The MAD mad_io_umad_take returned last, whole (as mad_io_recv_whole). */
size_t mad_io_umad_whole(const struct mad_io_umad *io, const uint8_t **whole);

/* mad_io_board.c: as mad_io_recv/send over a board/sim connection that carries MADs. */
int mad_io_board_take(struct board_sim *bs, uint8_t mad[IB_MAD_SIZE], struct mad_addr *addr);
int mad_io_board_send(struct board_sim *bs, const uint8_t mad[IB_MAD_SIZE],
                      const struct mad_addr *addr);

/*
 * mad_io_board_rmpp.c: the RMPP receiver of the board-sim transport (the
 * kernel's part on hardware).  A received SA DATA segment goes to
 * mad_io_rmpp_take; it ACKs (through send) and returns 1 with the whole MAD
 * in *whole (malloc'd, the caller's) once the transfer is complete.
 */
struct mad_io_rmpp;
struct mad_io_rmpp *mad_io_rmpp_create(void);
void mad_io_rmpp_destroy(struct mad_io_rmpp *r);
/* Whether mad (IB_MAD_SIZE bytes) is an RMPP packet the receiver takes. */
bool mad_io_rmpp_wants(const uint8_t *mad);
/* Take it; returns 1 with *whole and *len when a transfer completes, else 0. */
int mad_io_rmpp_take(struct mad_io_rmpp *r, struct board_sim *bs, const uint8_t *mad,
                     const struct mad_addr *from, uint8_t **whole, size_t *len);

#endif /* PZ_MAD_IO_INTERNAL_H */
