/*
 * mad_io_umad.c - mad_io over libibumad.
 *
 * The SMA agent registers for the two SMI classes with a method mask that
 * holds every request method it serves (Get, Set, TrapRepress) so that
 * unsolicited requests reach it.
 */
#include "mad_io.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

struct mad_io {
    int portid;
    int agent_lid; /* agent id for class 0x01 */
    int agent_dr;  /* agent id for class 0x81 */
    void *umad;    /* receive/send buffer: umad header + 256-byte MAD */
};

/* Register one class; returns the agent id or -1. */
static int mad_io_register(int portid, unsigned mgmt_class)
{
    long method_mask[16 / sizeof(long)];

    memset(method_mask, 0, sizeof(method_mask));
    /* bit n of the 128-bit mask = method n */
    ((uint8_t *)method_mask)[IB_MAD_METHOD_GET / 8] |= 1u << (IB_MAD_METHOD_GET % 8);
    ((uint8_t *)method_mask)[IB_MAD_METHOD_SET / 8] |= 1u << (IB_MAD_METHOD_SET % 8);
    ((uint8_t *)method_mask)[IB_MAD_METHOD_TRAP_REPRESS / 8] |= 1u
                                                                << (IB_MAD_METHOD_TRAP_REPRESS % 8);
    return umad_register(portid, (int)mgmt_class, 1, 0, method_mask);
}

/*
 * The physical port a MAD entered by, as far as umad lets us know.  umad has
 * no field for it; a kernel that did the directed-route hop processing (as
 * Linux does for switch devices) leaves it in ReturnPath[HopCount] with
 * HopPointer == HopCount + 1.  Otherwise it is taken as the management port.
 */
static uint8_t mad_io_ingress_port(const uint8_t *mad)
{
    unsigned hc, hp;

    if (mad_get_field((void *)mad, 0, IB_MAD_MGMTCLASS_F) != IB_SMI_DIRECT_CLASS ||
        mad_get_field((void *)mad, 0, IB_DRSMP_DIRECTION_F))
        return 0;
    hc = mad_get_field((void *)mad, 0, IB_DRSMP_HOPCNT_F);
    hp = mad_get_field((void *)mad, 0, IB_DRSMP_HOPPTR_F);
    if (hc == 0 || hc >= 64 || hp != hc + 1)
        return 0;
    return mad[192 + hc]; /* ReturnPath[hc]; libibmad has only the whole path */
}

struct mad_io *mad_io_open(const char *ca, unsigned port, char *err, size_t errlen)
{
    struct mad_io *io;

    if (umad_init() < 0) {
        snprintf(err, errlen, "umad_init failed");
        return NULL;
    }
    io = calloc(1, sizeof(*io));
    if (!io || !(io->umad = calloc(1, umad_size() + MAD_IO_SIZE))) {
        free(io);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    io->portid = umad_open_port(ca && *ca ? ca : NULL, (int)port);
    if (io->portid < 0) {
        snprintf(err, errlen, "cannot open umad port %s:%u: %s", ca && *ca ? ca : "(first)", port,
                 strerror(-io->portid));
        goto fail;
    }
    io->agent_lid = mad_io_register(io->portid, IB_SMI_CLASS);
    io->agent_dr = mad_io_register(io->portid, IB_SMI_DIRECT_CLASS);
    if (io->agent_lid < 0 || io->agent_dr < 0) {
        snprintf(err, errlen, "cannot register the SMI classes (is another SMA running?)");
        umad_close_port(io->portid);
        goto fail;
    }
    return io;
fail:
    free(io->umad);
    free(io);
    return NULL;
}

void mad_io_close(struct mad_io *io)
{
    if (!io)
        return;
    umad_unregister(io->portid, io->agent_lid);
    umad_unregister(io->portid, io->agent_dr);
    umad_close_port(io->portid);
    free(io->umad);
    free(io);
}

int mad_io_fd(const struct mad_io *io)
{
    return umad_get_fd(io->portid);
}

int mad_io_recv(struct mad_io *io, uint8_t mad[MAD_IO_SIZE], struct board_mad_addr *addr)
{
    int len = MAD_IO_SIZE;
    int rc = umad_recv(io->portid, io->umad, &len, 0);
    ib_mad_addr_t *ma;

    if (rc < 0)
        return rc == -ETIMEDOUT || rc == -EAGAIN ? 0 : -1;
    if (len < MAD_IO_SIZE || umad_status(io->umad))
        return 0; /* a send completion or a truncated MAD: nothing to serve */
    memcpy(mad, umad_get_mad(io->umad), MAD_IO_SIZE);
    ma = umad_get_mad_addr(io->umad);
    memset(addr, 0, sizeof(*addr));
    addr->slid = ntohs(ma->lid);
    addr->sl = ma->sl;
    addr->src_qp = ntohl(ma->qpn);
    addr->lid_routed = addr->slid != 0xFFFF;
    addr->port = mad_io_ingress_port(mad);
    return 1;
}

int mad_io_send(struct mad_io *io, const uint8_t mad[MAD_IO_SIZE],
                const struct board_mad_addr *addr)
{
    unsigned mgmt_class = mad_get_field((void *)mad, 0, IB_MAD_MGMTCLASS_F);
    int agent = mgmt_class == IB_SMI_DIRECT_CLASS ? io->agent_dr : io->agent_lid;
    int dlid = addr->lid_routed ? addr->dlid : 0xFFFF;

    memset(io->umad, 0, umad_size());
    memcpy(umad_get_mad(io->umad), mad, MAD_IO_SIZE);
    umad_set_addr(io->umad, dlid, 0, addr->sl, 0);
    return umad_send(io->portid, agent, io->umad, MAD_IO_SIZE, 0, 0) < 0 ? -1 : 0;
}
