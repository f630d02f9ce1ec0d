/*
 * smi_dr.c - directed-route SMP hop processing (IBA 14.2.2), switch and CA.
 *
 * Node numbering: node 0 is the originator (or the switch where a leading
 * LID-routed leg ends), node k the k-th hop.  An outgoing SMP arrives at node
 * k with HopPointer == k; a returning SMP arrives at node k with
 * HopPointer == k + 1.
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
        return SMI_DISCARD; /* C14-6 */
    if (h.hp == 0 && h.hc > 0) {
        /* Only legal where a leading LID-routed leg ends (at a switch). */
        if (h.drslid == SMI_PERMISSIVE_LID || !node->is_switch)
            return SMI_DISCARD;
        smi_set_hp(smp, 1);
        return smi_forward(node, smi_initial(smp, 1), port);
    }
    if (h.hp > 0 && h.hp < h.hc) {
        /* Intermediate hop: switches only. */
        if (!node->is_switch)
            return SMI_DISCARD;
        smi_set_return(smp, h.hp, in_port);
        smi_set_hp(smp, h.hp + 1);
        return smi_forward(node, smi_initial(smp, h.hp + 1), port);
    }
    if (h.hp == h.hc) {
        /* Last directed-route hop. */
        if (h.hc)
            smi_set_return(smp, h.hp, in_port);
        smi_set_hp(smp, h.hp + 1);
        if (h.drdlid == SMI_PERMISSIVE_LID)
            return SMI_LOCAL;
        return node->is_switch ? SMI_LID_DRDLID : SMI_DISCARD;
    }
    if (h.hp == h.hc + 1)
        return SMI_LOCAL; /* end of a trailing LID-routed leg */
    return SMI_DISCARD;
}

enum smi_action smi_dr_returning(uint8_t *smp, unsigned in_port, const struct smi_node *node,
                                 unsigned *port)
{
    struct smi_hdr h = smi_read(smp);

    (void)in_port;
    if (h.hc >= SMI_MAX_HOPS)
        return SMI_DISCARD;
    if (h.hc > 0 && h.hp == h.hc + 1) {
        /* Back from a trailing LID-routed leg: resume the return path. */
        if (!node->is_switch)
            return SMI_DISCARD;
        smi_set_hp(smp, h.hc);
        return smi_forward(node, smi_return(smp, h.hc), port);
    }
    if (h.hp >= 2 && h.hp <= h.hc) {
        /* Intermediate hop on the way back: switches only. */
        if (!node->is_switch)
            return SMI_DISCARD;
        smi_set_hp(smp, h.hp - 1);
        return smi_forward(node, smi_return(smp, h.hp - 1), port);
    }
    if (h.hp == 1) {
        smi_set_hp(smp, 0);
        if (h.drslid == SMI_PERMISSIVE_LID)
            return SMI_TO_SM;
        return node->is_switch ? SMI_LID_DRSLID : SMI_DISCARD;
    }
    if (h.hp == 0)
        return SMI_TO_SM;
    return SMI_DISCARD;
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
        return SMI_DISCARD;
    if (h.drdlid != SMI_PERMISSIVE_LID) {
        /* The request came over a trailing LID-routed leg: answer along it. */
        return SMI_LID_SOURCE;
    }
    if (h.hc > 0) {
        /* Leave through the port the request came in on (C14-13:1). */
        smi_set_hp(smp, h.hc);
        return smi_forward(node, smi_return(smp, h.hc), port);
    }
    /* HopCount 0: the requester is on this node or at the end of a LID leg. */
    smi_set_hp(smp, 0);
    return h.drslid == SMI_PERMISSIVE_LID ? SMI_TO_SM : SMI_LID_DRSLID;
}
