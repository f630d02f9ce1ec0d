/*
 * mad_io_umad.c - mad_io over libibumad.
 *
 * The agent registers for the two SMI classes, the PMA class and the
 * Congestion Control class, each with a method mask that holds every
 * request method it serves (Get, Set, TrapRepress) so that
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
    int agent_pma; /* agent id for class 0x04 (PMA), or -1 */
    int agent_cc;  /* agent id for class 0x21 (Congestion Control), or -1 */
    void *umad;    /* receive/send buffer: umad header + 256-byte MAD */
};

#define MAD_IO_GSI_QKEY 0x80010000u /* the well-known Q_Key of QP1 */
#define MAD_IO_CC_CLASS 0x21

/* Register one class (class version version); returns the agent id or -1. */
static int mad_io_register(int portid, unsigned mgmt_class, unsigned version)
{
    long method_mask[16 / sizeof(long)];

    memset(method_mask, 0, sizeof(method_mask));
    /* bit n of the 128-bit mask = method n */
    ((uint8_t *)method_mask)[IB_MAD_METHOD_GET / 8] |= 1u << (IB_MAD_METHOD_GET % 8);
    ((uint8_t *)method_mask)[IB_MAD_METHOD_SET / 8] |= 1u << (IB_MAD_METHOD_SET % 8);
    ((uint8_t *)method_mask)[IB_MAD_METHOD_TRAP_REPRESS / 8] |= 1u
                                                                << (IB_MAD_METHOD_TRAP_REPRESS % 8);
    return umad_register(portid, (int)mgmt_class, (int)version, 0, method_mask);
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

/*
 * Bytes a umad buffer needs: header and MAD.  The MAD starts at
 * umad_get_mad(), sizeof(struct ib_user_mad) (64) into the buffer.
 * libibumad's umad_size() says 56 until a port is open (it switches to the
 * header with pkey_index, 64, when the kernel or umad2sim supports it), so
 * call this after umad_open_port; the larger of the two is taken anyway, a
 * buffer of 56 + 256 bytes being 8 bytes short of the MAD's end.
 */
static size_t mad_io_umad_bytes(void)
{
    size_t hdr = umad_size();

    return (hdr > sizeof(struct ib_user_mad) ? hdr : sizeof(struct ib_user_mad)) + MAD_IO_SIZE;
}

struct mad_io *mad_io_open(const char *ca, unsigned port, char *err, size_t errlen)
{
    struct mad_io *io;

    if (umad_init() < 0) {
        snprintf(err, errlen, "umad_init failed");
        return NULL;
    }
    io = calloc(1, sizeof(*io));
    if (!io) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    io->portid = umad_open_port(ca && *ca ? ca : NULL, (int)port);
    if (io->portid < 0) {
        snprintf(err, errlen, "cannot open umad port %s:%u: %s", ca && *ca ? ca : "(first)", port,
                 strerror(-io->portid));
        goto fail;
    }
    io->umad = calloc(1, mad_io_umad_bytes());
    if (!io->umad) {
        snprintf(err, errlen, "out of memory");
        umad_close_port(io->portid);
        goto fail;
    }
    io->agent_lid = mad_io_register(io->portid, IB_SMI_CLASS, 1);
    io->agent_dr = mad_io_register(io->portid, IB_SMI_DIRECT_CLASS, 1);
    /* The GSI agents are optional: without them the switch still has its SMA. */
    io->agent_pma = mad_io_register(io->portid, IB_PERFORMANCE_CLASS, 1);
    io->agent_cc = mad_io_register(io->portid, MAD_IO_CC_CLASS, 2);
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
    if (io->agent_pma >= 0)
        umad_unregister(io->portid, io->agent_pma);
    if (io->agent_cc >= 0)
        umad_unregister(io->portid, io->agent_cc);
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
    int len = (int)(mad_io_umad_bytes() - umad_size()); /* the whole buffer */
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
    int dlid = addr->lid_routed ? addr->dlid : 0xFFFF;
    int agent = io->agent_lid;

    if (mgmt_class == IB_SMI_DIRECT_CLASS)
        agent = io->agent_dr;
    else if (mgmt_class == IB_PERFORMANCE_CLASS)
        agent = io->agent_pma;
    else if (mgmt_class == MAD_IO_CC_CLASS)
        agent = io->agent_cc;
    if (agent < 0)
        return -1;
    memset(io->umad, 0, mad_io_umad_bytes());
    memcpy(umad_get_mad(io->umad), mad, MAD_IO_SIZE);
    if (mgmt_class == IB_SMI_CLASS || mgmt_class == IB_SMI_DIRECT_CLASS)
        umad_set_addr(io->umad, dlid, 0, addr->sl, 0);
    else
        umad_set_addr(io->umad, dlid, (int)addr->dst_qp, addr->sl, (int)MAD_IO_GSI_QKEY);
    return umad_send(io->portid, agent, io->umad, MAD_IO_SIZE, 0, 0) < 0 ? -1 : 0;
}
