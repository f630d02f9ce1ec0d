/*
 * mad_io.c - mad_io.h: the transport chosen at open, umad or board/sim.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board_sim.h"
#include "board_sim_mad.h"
#include "mad_io_internal.h"

struct mad_io {
    struct mad_io_umad *umad; /* libibumad, or NULL */
    struct board_sim *bs;     /* the board/sim connection, or NULL */
    struct mad_io_rmpp *rmpp; /* board/sim: multi-packet answers being reassembled */
    uint8_t *whole;           /* board/sim: the last MAD taken, when reassembled */
    size_t whole_len;
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
    io->rmpp = mad_io_rmpp_create();
    if (!io->rmpp) {
        snprintf(err, errlen, "out of memory");
        free(io);
        return NULL;
    }
    return io;
}

void mad_io_close(struct mad_io *io)
{
    if (!io)
        return;
    if (io->umad)
        mad_io_umad_close(io->umad);
    mad_io_rmpp_destroy(io->rmpp);
    free(io->whole);
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

/*
 * Board/sim: the next MAD for the agent; RMPP segments go to the receiver
 * (which ACKs them) and come out as one whole MAD once complete.
 */
static int mad_io_board_recv(struct mad_io *io, uint8_t mad[IB_MAD_SIZE], struct mad_addr *addr)
{
    int rc;

    free(io->whole);
    io->whole = NULL;
    io->whole_len = 0;
    while ((rc = mad_io_board_take(io->bs, mad, addr)) > 0) {
        if (!mad_io_rmpp_wants(mad))
            return rc;
        if (mad_io_rmpp_take(io->rmpp, io->bs, mad, addr, &io->whole, &io->whole_len)) {
            memcpy(mad, io->whole, IB_MAD_SIZE);
            return 1;
        }
    }
    return rc;
}

int mad_io_recv(struct mad_io *io, uint8_t mad[IB_MAD_SIZE], struct mad_addr *addr)
{
    return io->bs ? mad_io_board_recv(io, mad, addr) : mad_io_umad_take(io->umad, mad, addr);
}

unsigned long mad_io_smp_dropped(const struct mad_io *io, int port)
{
    if (!io->bs)
        return mad_io_umad_smp_dropped(io->umad, port);
    if (port < 0)
        return board_sim_smp_dropped(io->bs);
    return port < 256 ? board_sim_madq_of(io->bs)->smp_dropped_on[port] : 0;
}

size_t mad_io_recv_whole(const struct mad_io *io, const uint8_t **whole)
{
    if (!io->bs)
        return mad_io_umad_whole(io->umad, whole);
    *whole = io->whole;
    return io->whole ? io->whole_len : 0;
}

int mad_io_send(struct mad_io *io, const uint8_t mad[IB_MAD_SIZE], const struct mad_addr *addr)
{
    return io->bs ? mad_io_board_send(io->bs, mad, addr) : mad_io_umad_send(io->umad, mad, addr);
}
