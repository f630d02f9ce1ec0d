/*
 * fabric_host.c - what a node's own management stack (the kernel's MAD
 * layer and SMI on a real host or switch) does with a MAD a client sends,
 * and local attribute reads for the client transport.
 *
 * Send side, as Linux's handle_outgoing_dr_smp()/smi_handle_dr_smp_send():
 *   - directed route with DrSLID permissive, outgoing: hop count 0 goes to
 *     the node's own SMA; otherwise HopPointer 0 -> 1 and out InitialPath[1]
 *     (on a CA that must be the client's own port);
 *   - directed route returning (a client answering an SMP, e.g. SMInfo):
 *     HopPointer HopCount + 1 -> HopCount, out ReturnPath[HopCount];
 *   - everything else, including DR SMPs with a LID-routed first leg, is
 *     LID-routed from the client's port with the port's LID as source.
 */
#include <errno.h>
#include <string.h>

#include <infiniband/mad.h>

#include "fabric_internal.h"
#include "pzf_log.h"

/* InitialPath / ReturnPath byte offsets in a DR SMP (libibmad has whole-array fields only). */
#define HOST_INITIAL_PATH 128
#define HOST_RETURN_PATH 192
#define HOST_MAX_HOPS 64

/* Send an outgoing directed-route SMP from the client's port. */
static void fabric_host_dr_out(struct fabric *f, struct fabric_node *n, unsigned port,
                               struct fabric_pkt *p, unsigned hc, unsigned hp)
{
    unsigned out;

    if (hc == 0) {
        p->kind = FABRIC_PKT_SMA; /* for the node's own SMA */
        fabric_enqueue(f, p);
        return;
    }
    if (hp != 0) {
        fabric_drop(f, p, "outgoing DR SMP with HopPointer != 0");
        return;
    }
    out = p->mad[HOST_INITIAL_PATH + 1];
    if (!n->is_switch && out != port) {
        fabric_drop(f, p, "InitialPath[1] is not the client's port");
        return;
    }
    mad_set_field(p->mad, 0, IB_DRSMP_HOPPTR_F, 1);
    fabric_transmit(f, n, out, p, false);
}

/* Send a returning directed-route SMP (a response a client makes). */
static void fabric_host_dr_back(struct fabric *f, struct fabric_node *n, unsigned port,
                                struct fabric_pkt *p, unsigned hc, unsigned hp)
{
    unsigned out;

    if (hc == 0 || hp != hc + 1) {
        fabric_drop(f, p, "returning DR SMP with a bad HopPointer");
        return;
    }
    out = p->mad[HOST_RETURN_PATH + hc];
    if (!n->is_switch && out != port) {
        fabric_drop(f, p, "ReturnPath[HopCount] is not the client's port");
        return;
    }
    mad_set_field(p->mad, 0, IB_DRSMP_HOPPTR_F, hc);
    fabric_transmit(f, n, out, p, false);
}

/* Send a purely directed-route SMP (DrSLID permissive). */
static void fabric_host_dr(struct fabric *f, struct fabric_node *n, unsigned port,
                           struct fabric_pkt *p)
{
    unsigned hc = mad_get_field(p->mad, 0, IB_DRSMP_HOPCNT_F);
    unsigned hp = mad_get_field(p->mad, 0, IB_DRSMP_HOPPTR_F);

    p->slid = FABRIC_PERMISSIVE_LID;
    p->dlid = FABRIC_PERMISSIVE_LID;
    if (hc >= HOST_MAX_HOPS) {
        fabric_drop(f, p, "DR SMP with HopCount >= 64");
        return;
    }
    if (mad_get_field(p->mad, 0, IB_DRSMP_DIRECTION_F))
        fabric_host_dr_back(f, n, port, p, hc, hp);
    else
        fabric_host_dr_out(f, n, port, p, hc, hp);
}

/* The shortest write Linux's ib_umad_write() takes: MAD and RMPP headers (IB_MGMT_RMPP_HDR). */
#define HOST_UMAD_MIN_LEN 36

/*
 * Make an SMP the whole 256-byte MAD it is on the wire, whatever length its
 * client wrote; returns false for one too short to have been sent at all.
 * Linux's ib_umad_write() refuses a MAD shorter than 36 bytes (-EINVAL) and
 * has ib_create_send_mad() pad every MAD that is not RMPP-active with zeros
 * up to the MAD size, so an SMP leaves a real host as 256 bytes and every
 * SMA, in-process or external, sees the same zero-filled MAD (a short umad
 * write is not a short packet).
 */
static bool fabric_host_pad_smp(struct fabric_pkt *p)
{
    unsigned mgmt_class = mad_get_field(p->mad, 0, IB_MAD_MGMTCLASS_F);

    if (mgmt_class != IB_SMI_CLASS && mgmt_class != IB_SMI_DIRECT_CLASS)
        return true;
    if (p->len && p->len < HOST_UMAD_MIN_LEN)
        return false;
    if (p->len && p->len < FABRIC_MAD_SIZE)
        memset(p->mad + p->len, 0, FABRIC_MAD_SIZE - p->len);
    p->len = 0; /* all FABRIC_MAD_SIZE bytes */
    return true;
}

void fabric_host_send(struct fabric *f, const struct fabric_client *c, const struct fabric_mad *m)
{
    struct fabric_node *n = &f->nodes[c->node];
    struct fabric_pkt p;

    memset(&p, 0, sizeof(p));
    memcpy(p.mad, m->mad, FABRIC_MAD_SIZE);
    p.sqp = m->sqp;
    p.dqp = m->dqp;
    p.len = m->len <= FABRIC_MAD_SIZE ? m->len : 0;
    p.node = c->node;
    p.port = c->port;
    if (!fabric_host_pad_smp(&p)) {
        fabric_drop(f, &p, "SMP shorter than 36 bytes (a umad write would fail)");
        return;
    }
    if (mad_get_field(p.mad, 0, IB_MAD_BASEVER_F) != 1) {
        pzf_log(f->verbose, PZF_LOG_ERROR, "client at %s: not an IBA MAD (BaseVersion %u)", n->name,
                mad_get_field(p.mad, 0, IB_MAD_BASEVER_F));
        fabric_drop(f, &p, "bad BaseVersion");
        return;
    }
    if (mad_get_field(p.mad, 0, IB_MAD_MGMTCLASS_F) == IB_SMI_DIRECT_CLASS &&
        mad_get_field(p.mad, 0, IB_DRSMP_DRSLID_F) == FABRIC_PERMISSIVE_LID) {
        fabric_host_dr(f, n, c->port, &p);
        return;
    }
    p.dlid = m->dlid;
    p.slid = fabric_port_lid(n, c->port);
    if (p.dlid == 0 || p.dlid == FABRIC_PERMISSIVE_LID) {
        fabric_drop(f, &p, "LID-routed MAD without a destination LID");
        return;
    }
    p.kind = FABRIC_PKT_ROUTE;
    fabric_enqueue(f, &p);
}

int fabric_host_get_attr(struct fabric *f, struct fabric_node *n, unsigned port, uint16_t attr_id,
                         uint32_t attr_mod, uint8_t data[64])
{
    /*
     * The node's own management software reads its port without an SMP (a
     * driver's local query, e.g. MAD_IFC with IGNORE_MKEY): no M_Key check,
     * so clients still attach to ports an SM protects at level 2, and no
     * M_KeyViolations count or Trap 256.
     */
    unsigned status = sma_local_get(node_sma(n->node), port, attr_id, attr_mod, data);

    if (status) {
        pzf_log(f->verbose, PZF_LOG_INFO,
                "%s: local Get of attribute 0x%04x failed (status 0x%04x)", n->name, attr_id,
                status);
        return -EIO;
    }
    return 0;
}
