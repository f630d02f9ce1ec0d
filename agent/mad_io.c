/*
 * mad_io.c - mad_io.h: the transport chosen at open, umad or board/sim.
 */
#include <stdio.h>
#include <stdlib.h>

#include "board_sim.h"
#include "board_sim_mad.h"
#include "mad_io_internal.h"

struct mad_io {
    struct mad_io_umad *umad; /* libibumad, or NULL */
    struct board_sim *bs;     /* the board/sim connection, or NULL */
};

struct mad_io *mad_io_open(const char *ca, unsigned port, char *err, size_t errlen)
{
    struct mad_io *io = calloc(1, sizeof(*io));

    if (!io) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    io->umad = mad_io_umad_open(ca, port, err, errlen);
    if (!io->umad) {
        free(io);
        return NULL;
    }
    return io;
}

struct mad_io *mad_io_open_board_sim(struct board_sim *bs, char *err, size_t errlen)
{
    struct mad_io *io;

    if (!bs || !board_sim_carries_mads(bs)) {
        snprintf(err, errlen, "the board/sim connection does not carry MADs");
        return NULL;
    }
    io = calloc(1, sizeof(*io));
    if (!io) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    io->bs = bs;
    return io;
}

void mad_io_close(struct mad_io *io)
{
    if (!io)
        return;
    if (io->umad)
        mad_io_umad_close(io->umad);
    free(io);
}

int mad_io_fd(const struct mad_io *io)
{
    return io->bs ? board_sim_fd(io->bs) : mad_io_umad_fd(io->umad);
}

bool mad_io_pending(const struct mad_io *io)
{
    return io->bs && board_sim_mad_pending(io->bs);
}

int mad_io_recv(struct mad_io *io, uint8_t mad[IB_MAD_SIZE], struct mad_addr *addr)
{
    return io->bs ? mad_io_board_take(io->bs, mad, addr) : mad_io_umad_take(io->umad, mad, addr);
}

int mad_io_send(struct mad_io *io, const uint8_t mad[IB_MAD_SIZE], const struct mad_addr *addr)
{
    return io->bs ? mad_io_board_send(io->bs, mad, addr) : mad_io_umad_send(io->umad, mad, addr);
}
