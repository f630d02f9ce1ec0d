/*
 * smi_dr.c - directed-route SMP hop processing (IBA 14.2.2), switch and CA.
 *
 * Node numbering: node 0 is the originator (or the switch where a leading
 * LID-routed leg ends), node k the k-th hop.  An outgoing SMP arrives at node
 * k with HopPointer == k; a returning SMP arrives at node k with
 * HopPointer == k + 1.
 *
 * Every branch names the compliance statement it implements: C14-9:1..5
 * for an outgoing SMP (Direction 0), C14-13:1..5 for a returning one
 * (Direction 1), as Linux's drivers/infiniband/core/smi.c numbers them;
 * C14-6 bounds the hop count.
 */
#include "smi_dr.h"

#include <infiniband/mad.h>

/*
 * libibmad describes InitialPath/ReturnPath only as whole 64-byte arrays
 * (IB_DRSMP_PATH_F, IB_DRSMP_RPATH_F); single hops are bytes at these offsets.
 */
#define SMI_INITIAL_PATH_OFFS 128
#define SMI_RETURN_PATH_OFFS 192

/* The fields of a DR SMP that hop processing reads. */
struct smi_hdr {
    unsigned hp;
    unsigned hc;
    unsigned drslid;
    unsigned drdlid;
};

/* Read the hop pointer, hop count and DR LIDs. */
static struct smi_hdr smi_read(uint8_t *smp)
{
    struct smi_hdr h = {
        .hp = mad_get_field(smp, 0, IB_DRSMP_HOPPTR_F),
        .hc = mad_get_field(smp, 0, IB_DRSMP_HOPCNT_F),
        .drslid = mad_get_field(smp, 0, IB_DRSMP_DRSLID_F),
        .drdlid = mad_get_field(smp, 0, IB_DRSMP_DRDLID_F),
    };
    return h;
}

/* Store a new hop pointer. */
static void smi_set_hp(uint8_t *smp, unsigned hp)
{
    mad_set_field(smp, 0, IB_DRSMP_HOPPTR_F, hp);
}

/* InitialPath[i] (i < 64). */
static unsigned smi_initial(const uint8_t *smp, unsigned i)
{
    return smp[SMI_INITIAL_PATH_OFFS + i];
}

/* ReturnPath[i] (i < 64). */
static unsigned smi_return(const uint8_t *smp, unsigned i)
{
    return smp[SMI_RETURN_PATH_OFFS + i];
}

/* Record the ingress port in ReturnPath[i]. */
static void smi_set_return(uint8_t *smp, unsigned i, unsigned port)
{
    smp[SMI_RETURN_PATH_OFFS + i] = (uint8_t)port;
}

/* Whether port can be a directed-route exit of node. */
static bool smi_port_valid(const struct smi_node *node, unsigned port)
{
    return port >= 1 && port <= node->num_ports;
}

/* Set *port to a valid exit and return SMI_FORWARD, or return SMI_DISCARD. */
static enum smi_action smi_forward(const struct smi_node *node, unsigned exit, unsigned *port)
{
    if (!smi_port_valid(node, exit))
        return SMI_DISCARD;
    *port = exit;
    return SMI_FORWARD;
}

const char *smi_action_name(enum smi_action action)
{
    static const char *const names[] = {
        [SMI_DISCARD] = "discard",
        [SMI_LOCAL] = "local",
        [SMI_TO_SM] = "to-sm",
        [SMI_FORWARD] = "forward",
        [SMI_LID_DRDLID] = "lid-to-drdlid",
        [SMI_LID_DRSLID] = "lid-to-drslid",
        [SMI_LID_SOURCE] = "lid-to-source",
    };

    if ((unsigned)action >= sizeof(names) / sizeof(names[0]) || !names[action])
        return "?";
    return names[action];
}

enum smi_action smi_dr_outgoing(uint8_t *smp, unsigned in_port, const struct smi_node *node,
                                unsigned *port)
{
    struct smi_hdr h = smi_read(smp);

    if (h.hc >= SMI_MAX_HOPS)
        return SMI_DISCARD; /* C14-6: at most 63 hops */
    if (h.hp == 0 && h.hc > 0) {
        /* C14-9:1: only where a leading LID-routed leg ends (at a switch). */
        if (h.drslid == SMI_PERMISSIVE_LID || !node->is_switch)
            return SMI_DISCARD;
        smi_set_hp(smp, 1);
        return smi_forward(node, smi_initial(smp, 1), port);
    }
    if (h.hp > 0 && h.hp < h.hc) {
        /* C14-9:2: an intermediate hop, switches only. */
        if (!node->is_switch)
            return SMI_DISCARD;
        smi_set_return(smp, h.hp, in_port);
        smi_set_hp(smp, h.hp + 1);
        return smi_forward(node, smi_initial(smp, h.hp + 1), port);
    }
    if (h.hp == h.hc) {
        /* C14-9:3: the end of the directed-route part: here, or on by DrDLID (a switch). */
        if (h.hc)
            smi_set_return(smp, h.hp, in_port);
        smi_set_hp(smp, h.hp + 1);
        if (h.drdlid == SMI_PERMISSIVE_LID)
            return SMI_LOCAL;
        return node->is_switch ? SMI_LID_DRDLID : SMI_DISCARD;
    }
    if (h.hp == h.hc + 1)
        return SMI_LOCAL; /* C14-9:4: the end of a trailing LID-routed leg: to the SMA */
    return SMI_DISCARD;   /* C14-9:5: an unreasonable hop pointer */
}

enum smi_action smi_dr_returning(uint8_t *smp, unsigned in_port, const struct smi_node *node,
                                 unsigned *port)
{
    struct smi_hdr h = smi_read(smp);

    (void)in_port;
    if (h.hc >= SMI_MAX_HOPS)
        return SMI_DISCARD; /* C14-6: at most 63 hops */
    if (h.hc > 0 && h.hp == h.hc + 1) {
        /* C14-13:1: back from a trailing LID-routed leg: resume the return path. */
        if (!node->is_switch)
            return SMI_DISCARD;
        smi_set_hp(smp, h.hc);
        return smi_forward(node, smi_return(smp, h.hc), port);
    }
    if (h.hp >= 2 && h.hp <= h.hc) {
        /* C14-13:2: an intermediate hop on the way back, switches only. */
        if (!node->is_switch)
            return SMI_DISCARD;
        smi_set_hp(smp, h.hp - 1);
        return smi_forward(node, smi_return(smp, h.hp - 1), port);
    }
    if (h.hp == 1) {
        /* C14-13:3: the end of the directed-route part: the SM, or on by DrSLID (a switch). */
        smi_set_hp(smp, 0);
        if (h.drslid == SMI_PERMISSIVE_LID)
            return SMI_TO_SM;
        return node->is_switch ? SMI_LID_DRSLID : SMI_DISCARD;
    }
    if (h.hp == 0)
        return SMI_TO_SM; /* C14-13:4: at the requester: to the SM */
    return SMI_DISCARD;   /* C14-13:5: an unreasonable hop pointer */
}

enum smi_action smi_dr_receive(uint8_t *smp, unsigned in_port, const struct smi_node *node,
                               unsigned *port)
{
    if (mad_get_field(smp, 0, IB_DRSMP_DIRECTION_F))
        return smi_dr_returning(smp, in_port, node, port);
    return smi_dr_outgoing(smp, in_port, node, port);
}

enum smi_action smi_dr_respond(uint8_t *smp, const struct smi_node *node, unsigned *port)
{
    struct smi_hdr h = smi_read(smp);

    mad_set_field(smp, 0, IB_DRSMP_DIRECTION_F, 1);
    if (h.hc >= SMI_MAX_HOPS || h.hp != h.hc + 1)
        return SMI_DISCARD; /* C14-6, and C14-9:4 (a request the SMA takes has hc + 1) */
    if (h.drdlid != SMI_PERMISSIVE_LID) {
        /* C14-13:1's first leg: the request came over a trailing LID-routed leg, the
         * answer goes back along it to the switch that resumes the return path. */
        return SMI_LID_SOURCE;
    }
    if (h.hc > 0) {
        /* C14-13:1: leave through the port the request came in on. */
        smi_set_hp(smp, h.hc);
        return smi_forward(node, smi_return(smp, h.hc), port);
    }
    /* C14-13:3 with HopCount 0: the requester is on this node (the SM) or at the end of a
     * leading LID leg (DrSLID). */
    smi_set_hp(smp, 0);
    return h.drslid == SMI_PERMISSIVE_LID ? SMI_TO_SM : SMI_LID_DRSLID;
}
