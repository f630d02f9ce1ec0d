/*
 * mad_io_board.c - mad_io over the board/sim connection (board = sim,
 * mad_transport = board): pzfabric hands the switch's MADs to the agent on
 * the connection it already has for the switch's tables, and routes what
 * the agent sends there as it routes a umad client's MADs.  No umad port,
 * no reader thread: the agent loop polls the board socket itself, takes
 * every MAD waiting in one receive and sends each answer with one send.
 *
 * Addresses are what umad2sim would give and take, so the fabric and the
 * agent see the same MADs either way: received, the source LID and QP of
 * the packet (SL 0: the ibsim protocol has none), LID-routed unless the
 * SLID is permissive, and the ingress port the switch recorded for an SMP
 * request; sent, DLID 0xFFFF for directed route, SLID 0 (the switch's LID)
 * or 0xFFFF, source QP 0 for SMPs and 1 for GMPs, the destination QP 0 for
 * SMPs.
 */
#include <string.h>

#include <infiniband/mad.h>

#include "board_sim_mad.h"
#include "mad_io_internal.h"

#define MAD_IO_PERMISSIVE_LID 0xFFFF

/* Whether a MAD of the management classes SMI / directed-route SMI. */
static bool mad_io_board_is_smp(const uint8_t *mad)
{
    return mad[1] == IB_SMI_CLASS || mad[1] == IB_SMI_DIRECT_CLASS;
}

int mad_io_board_take(struct board_sim *bs, uint8_t mad[IB_MAD_SIZE], struct mad_addr *addr)
{
    struct board_sim_mad m;
    int rc;

    /* A timed-out request of the agent's own, or a short SMP: nothing to serve. */
    while ((rc = board_sim_mad_recv(bs, &m)) == 1 &&
           (m.status || (mad_io_board_is_smp(m.mad) && m.len < IB_MAD_SIZE)))
        ;
    if (rc <= 0)
        return rc < 0 ? -1 : 0;
    memcpy(mad, m.mad, IB_MAD_SIZE);
    memset(addr, 0, sizeof(*addr));
    addr->slid = m.slid;
    addr->src_qp = m.sqp;
    addr->lid_routed = m.slid != MAD_IO_PERMISSIVE_LID;
    addr->port = m.port;
    return 1;
}

int mad_io_board_send(struct board_sim *bs, const uint8_t mad[IB_MAD_SIZE],
                      const struct mad_addr *addr)
{
    struct board_sim_mad m;
    bool smp = mad_io_board_is_smp(mad);

    memset(&m, 0, sizeof(m));
    m.dlid = addr->lid_routed ? addr->dlid : MAD_IO_PERMISSIVE_LID;
    m.slid = m.dlid == MAD_IO_PERMISSIVE_LID ? MAD_IO_PERMISSIVE_LID : 0;
    m.sqp = smp ? 0 : 1;
    m.dqp = smp ? 0 : addr->dst_qp;
    m.len = IB_MAD_SIZE;
    memcpy(m.mad, mad, IB_MAD_SIZE);
    return board_sim_mad_send(bs, &m) ? -1 : 0;
}
